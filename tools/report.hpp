//! @file Formats the result of one comparison as text, TSV or JSON.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/alignment/alignment.hpp"
#include "engine/result.hpp"
#include "engine/scoring/scoring.hpp"
#include "engine/sequence.hpp"
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
};

struct RunReport {
    SequenceInfo s0, s1;
    Scoring scoring;
    std::string matrix_file;   ///< the --matrix file, if any
    AlignmentEnd result;
    double seconds = 0;        ///< alignment only, without reading the input
    std::string backend, device, layout;
    size_t device_bytes = 0;
    int64_t cells_pruned = 0;  ///< real cells pruning skipped
    int64_t cells_resumed = 0; ///< cells a resumed run took from its checkpoint
    const Alignment* alignment = nullptr;  ///< with --traceback: the alignment itself
    double traceback_seconds = 0;          ///< the traceback stage
    int64_t special_rows = 0;              ///< stage 1's rows it started from
    int64_t traceback_cells = 0;           ///< cells the traceback recomputed
    int64_t traceback_swept_cells = 0;     ///< of those, the ones of sweeps that kept rows
    double traceback_sweep_seconds = 0;    ///< the time those sweeps took (not those swept ahead)
    int64_t traceback_windows_ahead = 0;   ///< windows swept ahead of the walk that served it
    int64_t traceback_walked_ahead = 0;    ///< of those, windows walked ahead too
    int64_t traceback_joined = 0;          ///< of the others, windows whose walk met the one taken ahead

    int64_t cells() const { return s0.length * s1.length; }
    /// Cells of m*n this run finished (computed or skipped): all but a resumed run's.
    int64_t cells_this_run() const { return cells() - cells_resumed; }
    double pruned_fraction() const { return cells() > 0 ? static_cast<double>(cells_pruned) / static_cast<double>(cells()) : 0; }
    double gcups() const { return seconds > 0 ? static_cast<double>(cells_this_run()) / seconds / 1e9 : 0; }
};

/// The whole output, ending in a newline.
std::string format_report(const RunReport& report, Format format);

}  // namespace chromalign::cli
