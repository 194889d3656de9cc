//! @file Option parsing, preset lookup and the one place where option conflicts are checked.
#include "tools/cli_options.hpp"

#include <boost/program_options.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <sys/stat.h>
#include <fstream>
#include <optional>
#include <sstream>

#include "engine/error.hpp"
#include "engine/scoring/matrix_file.hpp"
#include "io/alignment_formats.hpp"
#include "kernels/registry.hpp"

namespace po = boost::program_options;

namespace chromalign::cli {
namespace {

/// The scoring flags as given; make_scoring turns them into a Scoring.
struct ScoringFlags {
    int32_t match = Scoring{}.match(), mismatch = Scoring{}.mismatch();
    int32_t gap_open = Scoring{}.gap_open, gap_extend = Scoring{}.gap_extend;
    std::string matrix;      ///< --matrix FILE as given
    std::string matrix_dir;  ///< the directory a relative --matrix is read from ("" for the working one)
};

po::options_description scoring_options(ScoringFlags& s) {
    po::options_description d("Scoring (a gap of length k costs gap-open + (k-1)*gap-extend)");
    d.add_options()
        ("match", po::value<int32_t>(&s.match)->default_value(s.match), "score of a matching A/C/G/T pair")
        ("mismatch", po::value<int32_t>(&s.mismatch)->default_value(s.mismatch), "score of any other pair (negative)")
        ("matrix", po::value<std::string>(&s.matrix), "4x4 substitution matrix file (NCBI/LASTZ text: a row of column "
         "letters, then rows 'A 91 -114 -31 -123'; rows are S0 bases) instead of --match/--mismatch; N and other "
         "codes score its lowest entry. In a --config or preset file, relative to that file's directory")
        ("gap-open", po::value<int32_t>(&s.gap_open)->default_value(s.gap_open), "cost of a gap's first position")
        ("gap-extend", po::value<int32_t>(&s.gap_extend)->default_value(s.gap_extend), "cost of each further gap position");
    return d;
}

/// Stores one source of options into vm (the first source to set an option wins) and, when
/// this source is the one that sets --matrix, remembers its directory for a relative path.
/// The substitution scores are one choice: a source above this one (the command line over
/// --config over --preset) that made it whole, with --matrix or with both --match and
/// --mismatch, overrides this one's. Half of it (--match alone over a preset's matrix) would
/// mix the two, and stays the usage error of make_scoring.
void store_source(po::parsed_options parsed, const std::string& dir, po::variables_map& vm, ScoringFlags& flags) {
    const auto given = [&vm](const char* name) { return vm.count(name) && !vm[name].defaulted(); };
    const bool matrix_above = given("matrix"), pair_above = given("match") && given("mismatch");
    // The records to compare, likewise: a source above that names them replaces this one's
    // (s0-record and s1-record compose within a source only; --pairs excludes both).
    const bool s0_above = given("s0-record"), s1_above = given("s1-record"), pairs_above = given("pairs");
    auto& options = parsed.options;
    options.erase(std::remove_if(options.begin(), options.end(),
                                 [&](const po::option& option) {
                                     const std::string& key = option.string_key;
                                     return (pair_above && key == "matrix") ||
                                            (matrix_above && (key == "match" || key == "mismatch")) ||
                                            (key == "s0-record" && (s0_above || pairs_above)) ||
                                            (key == "s1-record" && (s1_above || pairs_above)) ||
                                            (key == "pairs" && (s0_above || s1_above));
                                 }),
                  options.end());
    if (!vm.count("matrix"))
        for (const po::option& option : parsed.options)
            if (option.string_key == "matrix") flags.matrix_dir = dir;
    po::store(parsed, vm);
}

std::string directory_of(const std::string& path) {
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

/// The Scoring the flags ask for, reading the matrix file if one is named. --matrix replaces
/// --match and --mismatch, so giving both (in one source: store_source) is a usage error.
Scoring make_scoring(const ScoringFlags& f, const po::variables_map& vm, std::string* matrix_file) {
    if (f.matrix.empty()) return Scoring(f.match, f.mismatch, f.gap_open, f.gap_extend);
    if (!vm["match"].defaulted() || !vm["mismatch"].defaulted())
        throw UsageError("--matrix replaces --match and --mismatch: give one or the other");
    *matrix_file = f.matrix.front() == '/' ? f.matrix : f.matrix_dir + f.matrix;
    try {
        return Scoring::from_matrix(read_matrix_file(*matrix_file), f.gap_open, f.gap_extend);
    } catch (const Error& e) {
        throw UsageError(std::string("--matrix: ") + e.what());
    }
}

/// --backend's help: every backend of the registry with its summary.
std::string backend_help() {
    std::string text = "auto (the first of";
    for (const BackendEntry& e : backend_entries())
        if (e.automatic) text += " " + e.name;
    text += " that can run here)";
    for (const BackendEntry& e : backend_entries()) text += "; " + e.name + ": " + e.summary;
    return text;
}

/// --slabs's help, with each backend's default.
std::string slabs_help() {
    return "column slabs each process runs at once, a thread each; on a GPU their kernels run concurrently, on cpu "
           "each has --threads threads (0: " + default_slabs_text() + ")";
}

bool is_regular_file(const std::string& path) {
    struct stat st{};
    return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

/// Throws UsageError naming `what` unless `path` is a regular file: checked before it is
/// opened, as opening a FIFO would wait for a writer; a path that is not there says why.
void require_regular_file(const std::string& path, const std::string& what) {
    struct stat st{};
    if (stat(path.c_str(), &st) != 0) throw UsageError(what + ": '" + path + "': " + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) throw UsageError(what + ": '" + path + "' is not a regular file");
}

/// A number followed by one of `units` (suffix, scale) or by nothing (scale 1), scaled;
/// nothing when the text is not such a number.
std::optional<double> scaled_number(const std::string& text, const std::vector<std::pair<std::string, double>>& units) {
    size_t used = 0;
    double value = 0;
    try {
        value = std::stod(text, &used);
    } catch (const std::exception&) {
        return std::nullopt;
    }
    const std::string unit = text.substr(used);
    if (unit.empty()) return value;
    for (const auto& [suffix, scale] : units)
        if (unit == suffix) return value * scale;
    return std::nullopt;
}

double parse_duration(const std::string& text, const char* flag) {
    const std::optional<double> value = scaled_number(text, {{"s", 1}, {"m", 60}, {"h", 3600}});
    if (!value || !(*value > 0) || !std::isfinite(*value))
        throw UsageError(std::string(flag) + " must be a positive duration such as 90, 30s, 10m or 1h (got '" + text + "')");
    return *value;
}

/// "8G", "500m", "1T", "0", "123" (bytes); binary units, either case, as samtools reads them.
/// `positive`: 0 is refused too, and the message offers what the flag takes.
int64_t parse_size(const std::string& text, const char* flag, bool positive = false,
                   const char* examples = "8G, 500M or 0") {
    const std::optional<double> value =
        scaled_number(text, {{"K", 0x1p10}, {"M", 0x1p20}, {"G", 0x1p30}, {"T", 0x1p40},
                             {"k", 0x1p10}, {"m", 0x1p20}, {"g", 0x1p30}, {"t", 0x1p40}});
    if (!value || !(*value >= 0) || *value > 0x1p60 || (positive && static_cast<int64_t>(*value) <= 0))
        throw UsageError(std::string(flag) + " must be a size such as " + examples + " (got '" + text + "')");
    return static_cast<int64_t>(*value);
}

Format parse_format(const std::string& f) {
    if (f == "text") return Format::kText;
    if (f == "tsv") return Format::kTsv;
    if (f == "json") return Format::kJson;
    throw UsageError("--format must be text, tsv or json (got '" + f + "')");
}

io::RecordSelector parse_record(const std::string& text, const char* flag) {
    try {
        return io::parse_selector(text);
    } catch (const Error& e) {
        throw UsageError(std::string(flag) + ": " + e.what());
    }
}

/// --s0-record's values: each a selector, or the name of a file of selectors (one a line).
/// The selectors of `flag`'s values: a value naming a regular file is a file of them, which a
/// note says, as a record of that name would otherwise be taken for it without a word.
std::vector<io::RecordSelector> parse_records(const std::vector<std::string>& values, const char* flag,
                                              Options& o) {
    std::vector<io::RecordSelector> selectors;
    for (const std::string& v : values) {
        if (!is_regular_file(v)) {
            selectors.push_back(parse_record(v, flag));
            continue;
        }
        try {
            const std::vector<io::RecordSelector> listed = io::read_selector_file(v);
            o.notes.push_back(std::string(flag) + " " + v + ": the file of that name, read as a list of " +
                              std::to_string(listed.size()) + " record(s)");
            o.option_files.emplace_back(flag, v);
            selectors.insert(selectors.end(), listed.begin(), listed.end());
        } catch (const Error& e) {
            throw UsageError(std::string(flag) + ": " + e.what());
        }
    }
    return selectors;
}

std::vector<Strand> parse_strands(const std::string& text) {
    if (text == "both") return {Strand::kForward, Strand::kReverse};
    if (text == "forward") return {Strand::kForward};
    if (text == "reverse") return {Strand::kReverse};
    throw UsageError("--strand must be both, forward or reverse (got '" + text + "')");
}

/// Every option conflict and range check lives here, with a message naming the flag.
void check_options(const Options& o) {
    if (const std::string why = o.scoring.validate(); !why.empty())
        throw UsageError("invalid scoring: " + why);
    const auto names = backend_names();
    if (std::find(names.begin(), names.end(), o.backend) == names.end()) {
        std::string known;
        for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
        throw UsageError("--backend must be one of " + known + " (got '" + o.backend + "')");
    }
    if (o.backend_options.threads < 0) throw UsageError("--threads must be >= 0");
    if (o.backend_options.device < 0) throw UsageError("--device must be >= 0");
    if (o.backend_options.slabs < 0 || o.backend_options.slabs > 64) throw UsageError("--slabs must be 0 to 64");
    const int a = o.backend_options.alpha;
    if (a != 0 && a != 4 && a != 8 && a != 16) throw UsageError("--alpha must be 4, 8 or 16 (or 0: auto)");
    if (o.backend_options.blocks_per_sm < 0) throw UsageError("--blocks-per-sm must be >= 0 (0: auto)");
    const CheckpointOptions& ck = o.backend_options.checkpoint;
    if (ck.path.empty() && (ck.restart || ck.strict || !ck.keep_rows_dir.empty()))
        throw UsageError("--restart, --checkpoint-strict and --keep-rows need --checkpoint FILE");
    if (!o.plot.empty() && o.traceback.empty()) throw UsageError("--plot needs --traceback FILE");
    if (o.traceback == "-" && o.output == "-")
        throw UsageError("--traceback - and -o - would both write to standard output: name a file for one");
    if (!o.alignment_format.empty()) {
        if (o.traceback.empty()) throw UsageError("--alignment-format needs --traceback FILE");
        try {
            io::parse_alignment_format(o.alignment_format);
        } catch (const Error& e) {
            throw UsageError(e.what());
        }
    }
    if (!o.pairs.empty() && (!o.s0_records.empty() || !o.s1_records.empty()))
        throw UsageError("--pairs names the records itself: give it or --s0-record/--s1-record, not both");
    if (o.min_score < 0) throw UsageError("--min-score must be >= 0");
    if (o.alignments < 1) throw UsageError("--alignments must be >= 1");
    if (o.alignments > 1 && o.traceback.empty()) throw UsageError("--alignments needs --traceback FILE (where they are written)");
    if (!ck.path.empty() && o.backend == "reference")
        throw UsageError("--checkpoint needs a tiled backend (cpu or cuda), not reference");
}

}  // namespace

std::string config_dir() {
    if (const char* env = std::getenv("CHROMALIGN_CONFIG_DIR"); env && *env) return env;
    return CHROMALIGN_SOURCE_CONFIG_DIR;
}

std::vector<std::string> preset_names() {
    std::vector<std::string> names;
    if (DIR* dir = opendir(config_dir().c_str())) {
        while (const dirent* entry = readdir(dir)) {
            const std::string file = entry->d_name;
            if (file.size() > 4 && file.compare(file.size() - 4, 4, ".cfg") == 0)
                names.push_back(file.substr(0, file.size() - 4));
        }
        closedir(dir);
    }
    std::sort(names.begin(), names.end());
    return names;
}

Options parse_options(int argc, const char* const* argv, bool sequences_optional) {
    Options o;
    std::string format = "text", config_file, every = "60s", disk = "16G", strand = "both", pairs, search_memory = "auto";
    std::vector<std::string> s0_records, s1_records;
    bool no_pruning = false, no_stack = false;
    po::options_description meta("Options");
    meta.add_options()
        ("help,h", "show this help and exit")
        ("version", "print the version and exit")
        ("preset,x", po::value<std::string>(&o.preset), "preset from configs/: scoring (cudalign, blastn, hoxd70, hoxd55, primate) or GPU tuning (hopper)")
        ("config", po::value<std::string>(&config_file), "read options from this file (key = value lines, any option below)");
    // Options a --config file may also set (not help, version, config or preset).
    po::options_description general;
    general.add_options()
        ("s0-record", po::value<std::vector<std::string>>(&s0_records)->composing(), "record of S0 to compare: NAME or NAME:START-END (1-based, inclusive; a name holding ':' in braces, {NAME}:START-END); give it again for more, or name a file of them, one a line (default: every record)")
        ("s1-record", po::value<std::vector<std::string>>(&s1_records)->composing(), "record of S1 to compare, as --s0-record (default: every record)")
        ("pairs", po::value<std::string>(&pairs), "compare only the record pairs of this file: lines 'S0_RECORD<TAB>S1_RECORD' (regions allowed); or 'mapped': only the pairs minimap2 links, on either strand (a heuristic: a pair it misses is not compared); default: every S0 record against every S1 record")
        ("strand", po::value<std::string>(&strand)->default_value(strand), "strand of S1 to compare S0 with: both, forward or reverse (S1's reverse complement); with both, a pair's answer is its better strand, forward on a tie")
        ("min-score", po::value<int32_t>(&o.min_score)->default_value(0), "leave pairs scoring below this out of the alignment output (--traceback; default: every pair); with --alignments, also the alignments below it")
        ("alignments", po::value<int>(&o.alignments)->default_value(1), "write each pair's K best alignments that share no aligned pair, over its strands (Waterman-Eggert; needs --traceback): the best primary, the others secondary with HI:i:rank; 1: the best alone")
        ("alignments-memory", po::value<std::string>(&search_memory)->default_value(search_memory), "memory the search for --alignments keeps its tiles' edges in (per record pair, shared by its strands, which are searched at once; with cuda on the GPU when a GiB stays free there, the host holding only the edges it reads); more memory, smaller tiles, less computed again after each alignment; auto: tiles of 3072 a side (for a pair shorter than 64 of them, a 64th of its longer sequence, at least 512), larger only where their edges would take more than a quarter of the host's memory (with cuda, of the GPU's if less)")
        ("backend,b", po::value<std::string>(&o.backend)->default_value(o.backend), backend_help().c_str())
        ("device", po::value<int>(&o.backend_options.device)->default_value(0), "CUDA device index (under mpirun or srun: the rank's index on its node)")
        ("threads,t", po::value<int>(&o.backend_options.threads)->default_value(0), "CPU threads (0: every core this process may use, shared among its slabs)")
        ("alpha", po::value<int>(&o.backend_options.alpha)->default_value(0), "rows per GPU thread or CPU SIMD lane: 4, 8 or 16 (0: auto)")
        ("blocks-per-sm", po::value<int>(&o.backend_options.blocks_per_sm)->default_value(0), "resident blocks per GPU multiprocessor (0: as many as fit, at most 16)")
        ("slabs", po::value<int>(&o.backend_options.slabs)->default_value(0), slabs_help().c_str())
        ("no-pruning", po::bool_switch(&no_pruning), "compute every cell (default: skip blocks that cannot reach the best score found so far; the answer is the same)")
        ("bound", po::value<std::string>(&o.bound)->default_value(o.bound), "lower bound that pruning starts from, found beside stage 1: minimap2 (its library maps S1 onto S0, and the best chained path, scored exactly here, is the bound) or none (start from 0); the answer is the same")
        ("no-stack", po::bool_switch(&no_stack), "compare short S0 records one by one (default: stack them into one matrix per S1 record and strand, which keeps the GPU full; the answers are the same)")
        ("format,f", po::value<std::string>(&format)->default_value(format), "output format: text, tsv or json")
        ("output,o", po::value<std::string>(&o.output), "write the result to this file (default, or -: standard output; standard error when --traceback is -)")
        ("traceback", po::value<std::string>(&o.traceback), "also write the best alignment itself to FILE (-: standard output, and the result then to standard error unless -o names a file)")
        ("alignment-format", po::value<std::string>(&o.alignment_format), "sam, bam, cram, paf, maf or view (default: by the --traceback file's extension; else view)")
        ("traceback-dir", po::value<std::string>(&o.traceback_dir), "keep stage 1's special rows and result here, for a traceback now or later (chromalign traceback DIR); a run with --traceback whose comparison DIR holds skips stage 1 (default: a temporary directory, removed afterwards)")
        ("traceback-disk", po::value<std::string>(&disk)->default_value(disk), "disk the special rows may take: 16G, 500M, 0 (none: the traceback recomputes from row 0); more rows cost stage 1 disk writes and save traceback time")
        ("plot", po::value<std::string>(&o.plot), "also draw the alignment's path over the matrix as an SVG dot plot in FILE, shaded by the best score stage 1 reached in each region (needs --traceback)")
        ("quiet,q", po::bool_switch(&o.quiet), "no notes, progress or run summary on stderr")
        ("checkpoint", po::value<std::string>(&o.backend_options.checkpoint.path), "save progress as FILE.slab<k>of<N>.<0|1> (one per column slab; FILE.lock while running) and resume from them when they match")
        ("checkpoint-every", po::value<std::string>(&every)->default_value(every), "interval between checkpoints: 90, 30s, 10m or 1h")
        ("restart", po::bool_switch(&o.backend_options.checkpoint.restart), "ignore an existing checkpoint file and overwrite it")
        ("checkpoint-strict", po::bool_switch(&o.backend_options.checkpoint.strict), "stop (exit 1) when a checkpoint cannot be written")
        ("keep-rows", po::value<std::string>(&o.backend_options.checkpoint.keep_rows_dir), "also keep every checkpointed row in this directory");
    ScoringFlags scoring_flags;
    const po::options_description scoring = scoring_options(scoring_flags);
    po::options_description hidden;
    hidden.add_options()("s0", po::value<std::string>(&o.s0_path))("s1", po::value<std::string>(&o.s1_path));
    po::positional_options_description positional;
    positional.add("s0", 1).add("s1", 1);

    po::options_description all, in_config;
    all.add(meta).add(general).add(scoring).add(hidden);
    in_config.add(general).add(scoring);
    po::variables_map vm;
    try {
        store_source(po::command_line_parser(argc, argv).options(all).positional(positional).run(), "", vm,
                     scoring_flags);
        if (vm.count("config")) {
            const std::string path = vm["config"].as<std::string>();
            require_regular_file(path, "--config");
            o.option_files.emplace_back("--config", path);
            std::ifstream in(path);
            if (!in) throw UsageError("--config: cannot read '" + path + "'");
            try {
                store_source(po::parse_config_file(in, in_config), directory_of(path), vm, scoring_flags);
            } catch (const po::error& e) {
                throw UsageError("--config " + path + ": " + e.what());
            }
        }
        if (vm.count("preset")) {
            const std::string name = vm["preset"].as<std::string>();
            const std::string path = config_dir() + "/" + name + ".cfg";
            struct stat st{};
            const bool exists = stat(path.c_str(), &st) == 0;
            if (exists && !S_ISREG(st.st_mode)) throw UsageError("preset " + path + " is not a regular file");
            std::ifstream in;
            if (exists) in.open(path);
            if (!in.is_open()) {
                std::string known;
                for (const auto& n : preset_names()) known += (known.empty() ? "" : ", ") + n;
                throw UsageError("unknown preset '" + name + "' (known: " + known + ")");
            }
            store_source(po::parse_config_file(in, in_config), config_dir() + "/", vm, scoring_flags);
            o.option_files.emplace_back("preset " + name, path);
        }
        po::notify(vm);
    } catch (const po::error& e) {
        throw UsageError(e.what());
    }
    if (vm.count("help")) {
        std::ostringstream text;
        text << "Usage: chromalign [options] S0.fa[.gz] S1.fa[.gz]\n"
             << "       chromalign traceback DIR --traceback FILE [options] [S0 S1]\n"
             << "Exact Smith-Waterman (affine gaps) of two genomes: for every pair of their records, on both\n"
             << "strands, the best local score and where it ends (and with --traceback the alignment).\n"
             << "The second form traces back the alignment of a stage 1 run with --traceback-dir DIR, from\n"
             << "its sequences, scoring and rows (S0 S1: the sequences' files, if they moved).\n\n"
             << meta << general << "\n" << scoring << "\nPresets in " << config_dir() << ":";
        for (const auto& n : preset_names()) text << " " << n;
        text << "\n";
        o.help = true;
        o.help_text = text.str();
        return o;
    }
    if (vm.count("version")) {
        o.version = true;
        return o;
    }
    if ((o.s0_path.empty() || o.s1_path.empty()) && !(sequences_optional && o.s0_path.empty()))
        throw UsageError("two sequence files are needed: S0 and S1");
    o.s0_records = parse_records(s0_records, "--s0-record", o);
    o.s1_records = parse_records(s1_records, "--s1-record", o);
    if (pairs == "mapped") {
        o.pairs_mapped = true;
    } else if (!pairs.empty()) {
        require_regular_file(pairs, "--pairs");
        o.option_files.emplace_back("--pairs", pairs);
        try {
            o.pairs = io::read_pairs_file(pairs);
        } catch (const Error& e) {
            throw UsageError(std::string("--pairs: ") + e.what());
        }
        if (o.pairs.empty()) throw UsageError("--pairs: " + pairs + " names no pair");
    }
    o.strands = parse_strands(strand);
    o.format = parse_format(format);
    o.backend_options.checkpoint.every_seconds = parse_duration(every, "--checkpoint-every");
    o.traceback_disk = parse_size(disk, "--traceback-disk");
    if (search_memory != "auto") {
        o.alignments_memory = parse_size(search_memory, "--alignments-memory", true, "8G or 500M, or auto");
    }
    o.backend_options.pruning = !no_pruning;
    o.stack = !no_stack;
    if (o.bound != "minimap2" && o.bound != "none")
        throw UsageError("--bound must be minimap2 or none (got '" + o.bound + "')");
    o.device_given = !vm["device"].defaulted();
    o.scoring = make_scoring(scoring_flags, vm, &o.matrix_file);
    check_options(o);
    return o;
}

}  // namespace chromalign::cli
