//! @file Command-line and config-file options of chromalign, parsed with Boost.Program_options.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "engine/backend/options.hpp"
#include "engine/job/strand.hpp"
#include "engine/scoring/scoring.hpp"
#include "io/fasta.hpp"
#include "io/record_lists.hpp"

namespace chromalign::cli {

/// A usage mistake: tools print it with a hint to --help and exit 2.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

enum class Format { kText, kTsv, kJson };

struct Options {
    std::string s0_path, s1_path;
    /// --s0-record/--s1-record, each given once or more or read from a file of names; empty:
    /// every record of the file.
    std::vector<io::RecordSelector> s0_records, s1_records;
    /// What reading the options has to tell the user (load_job passes them on as notes).
    std::vector<std::string> notes;
    /// The files options were read from (--config, a preset, --pairs, record lists), as the
    /// option and the path: inputs no output may overwrite.
    std::vector<std::pair<std::string, std::string>> option_files;
    /// --pairs FILE (or a traceback directory's job): exactly these record pairs, instead of
    /// every S0 record against every S1 record.
    std::vector<io::SelectorPair> pairs;
    /// --pairs mapped: only the record pairs minimap2 links (engine/bound/mapped_pairs.hpp).
    bool pairs_mapped = false;
    std::vector<Strand> strands{Strand::kForward, Strand::kReverse};  ///< --strand
    int32_t min_score = 0;     ///< --min-score: pairs below it stay out of the alignment output
    int alignments = 1;        ///< --alignments: each traced pair's K best non-intersecting alignments
    int64_t alignments_memory = 0;  ///< --alignments-memory, in bytes (0: auto, the backend's choice)
    bool stack = true;         ///< short S0 records stacked (engine/job/stack.hpp); --no-stack: one by one
    std::string bound = "minimap2";  ///< --bound: where pruning's first lower bound comes from (engine/bound)
    Scoring scoring;
    std::string matrix_file;   ///< the --matrix file the scoring was read from, if any
    std::string preset;        ///< preset name the scoring came from, if any
    std::string backend = "auto";
    BackendOptions backend_options;
    bool device_given = false; ///< --device was set (else an MPI rank takes its node-local rank)
    Format format = Format::kText;
    std::string output;        ///< empty: standard output
    std::string traceback;     ///< --traceback FILE: write the alignment itself there ("-": stdout)
    std::string alignment_format;  ///< --alignment-format; empty: by the extension of `traceback`
    std::string traceback_dir;     ///< --traceback-dir: where stage 1 keeps its special rows and its record
    std::string plot;              ///< --plot FILE: the alignment's path as an SVG dot plot
    bool traceback_only = false;   ///< `chromalign traceback DIR`: stage 1's result from DIR's record
    int64_t traceback_disk = 0;    ///< --traceback-disk, in bytes
    bool quiet = false;
    bool help = false;
    bool version = false;
    std::string help_text;     ///< filled for --help
};

/// Parses argv; throws UsageError (unknown option, bad value, conflict, missing argument, a
/// --matrix file that cannot be read or parsed).
/// Precedence: command-line flags, then --config FILE, then --preset NAME, then defaults.
/// With `sequences_optional` (the traceback subcommand), S0 and S1 may be left out.
Options parse_options(int argc, const char* const* argv, bool sequences_optional = false);

/// Directory searched for presets: $CHROMALIGN_CONFIG_DIR, else the configs/ of the source tree.
std::string config_dir();

/// Names of the presets found in config_dir() (files NAME.cfg).
std::vector<std::string> preset_names();

}  // namespace chromalign::cli
