//! @file Formats the result of a job (one record pair or many) as text, TSV or JSON.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/alignment/alignment.hpp"
#include "engine/bound/bound_thread.hpp"
#include "engine/declump/pair_alignments.hpp"
#include "engine/job/strand.hpp"
#include "engine/result.hpp"
#include "engine/scoring/scoring.hpp"
#include "engine/sequence.hpp"
#include "engine/traceback/linear_traceback.hpp"
#include "tools/cli_options.hpp"

namespace chromalign::cli {

struct SequenceInfo {
    std::string name;
    std::string path;
    int64_t length = 0;         ///< bases compared: the region's, with --s0-record NAME:START-END
    int64_t offset = 0;         ///< the record's bases before the region (START - 1)
    int64_t record_length = 0;  ///< the whole record's
    std::string region;         ///< "START-END" of a region shorter than its record, else empty
    int64_t in_record(int64_t p) const { return record_position(p, offset); }
    /// Position p of the strand compared as a position on the record's forward strand (the
    /// report's convention, BLAST's and nucmer's: on '-' an alignment's start lies after its end).
    int64_t on_forward(int64_t p, Strand strand) const {
        return strand == Strand::kForward ? in_record(p) : forward_of_reverse(p, offset, length);
    }
};

/// One record pair's answer.
struct PairReport {
    SequenceInfo s0, s1;       ///< s1: the record on its forward strand
    Strand strand = Strand::kForward;
    AlignmentEnd result;       ///< in the coordinates compared (S1's reverse complement on '-')
    int64_t cells = 0;         ///< m n per strand compared
    int64_t cells_pruned = 0;  ///< real cells pruning skipped
    int64_t cells_resumed = 0; ///< cells taken from a checkpoint or an earlier stage 1
    double seconds = 0;        ///< stage 1 of its strands
    const Alignment* alignment = nullptr;  ///< with --traceback: the alignment itself
    double traceback_seconds = 0;          ///< the traceback stage
    int64_t special_rows = 0;              ///< stage 1's rows it started from
    TracebackCounts traceback;             ///< what the traceback recomputed, swept and walked ahead
    BoundReport bound;                     ///< the lower bound `strand`'s stage 1 pruned from
    /// With --alignments K > 1: the pair's alignments after `alignment` (none: not asked), and
    /// what finding them computed.
    const std::vector<StrandAlignment>* others = nullptr;
    DeclumpCounts declump;
    double declump_seconds = 0;

    int64_t cells_this_run() const { return cells - cells_resumed; }
    double gcups() const { return seconds > 0 ? static_cast<double>(cells_this_run()) / seconds / 1e9 : 0; }
};

struct RunReport {
    std::vector<PairReport> pairs;  ///< best first
    std::vector<Strand> strands;
    int64_t s0_records = 0, s1_records = 0;  ///< records the pairs were drawn from
    Scoring scoring;
    std::string matrix_file;   ///< the --matrix file, if any
    double seconds = 0;        ///< stage 1 of every pair, without reading the input
    std::string backend, device, layout;
    size_t device_bytes = 0;

    int64_t cells() const;
    int64_t cells_pruned() const;
    /// Cells of every pair this run finished (computed or skipped): all but resumed ones.
    int64_t cells_this_run() const;
    double pruned_fraction() const;
    double gcups() const { return seconds > 0 ? static_cast<double>(cells_this_run()) / seconds / 1e9 : 0; }
};

/// `value` with `digits` decimals.
std::string fixed(double value, int digits);
/// "a" or "a:3-10".
std::string record_label(const SequenceInfo& s);

/// The whole output, ending in a newline. One pair: `key<TAB>value` lines (text), a header and
/// a line (TSV), an object (JSON). Several: the job's lines then a table of the pairs (text), a
/// line per pair (TSV), the best pair's fields and a `pairs` array of all (JSON).
std::string format_report(const RunReport& report, Format format);

}  // namespace chromalign::cli
