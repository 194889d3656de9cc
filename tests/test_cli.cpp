//! @file End-to-end tests of the chromalign binary: exit codes, error lines, output formats,
//! presets and record selection, each a run of the built program on tiny FASTA files.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <map>
#include <fstream>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/reference/reference.hpp"
#include "engine/scoring/scoring.hpp"
#include "engine/sequence.hpp"
#include "engine/version.hpp"
#include "tests/test_support.hpp"

#ifndef CHROMALIGN_SOURCE_DIR
#define CHROMALIGN_SOURCE_DIR "."
#endif
#ifndef CHROMALIGN_CLI
#define CHROMALIGN_CLI "chromalign"
#endif

namespace chromalign {
namespace {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// Running the binary
// ---------------------------------------------------------------------------------------------

/// What one run of the binary left behind.
struct CliRun {
    int code = -1;    ///< exit status; 128 + signal number when a signal ended it
    std::string out;  ///< everything written to stdout
    std::string err;  ///< everything written to stderr
};

std::string shell_quote(const std::string& text) {
    std::string quoted = "'";
    for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

using chromalign::test::TempDir;

/// Runs chromalign with `args`, stdin from /dev/null and stdout to `stdout_to` (a file in a
/// fresh capture directory when empty). Presets are read from the source tree's configs/
/// whatever the caller's environment says.
CliRun run_cli(const std::vector<std::string>& args, const std::string& stdout_to = "") {
    const TempDir capture;
    const fs::path out_path = stdout_to.empty() ? capture.path() / "stdout" : fs::path(stdout_to);
    const fs::path err_path = capture.path() / "stderr";
    std::string command = "exec env CHROMALIGN_CONFIG_DIR=" +
                          shell_quote(std::string(CHROMALIGN_SOURCE_DIR) + "/configs") + " " +
                          shell_quote(CHROMALIGN_CLI);
    for (const auto& a : args) command += " " + shell_quote(a);
    command += " <" + shell_quote("/dev/null") + " >" + shell_quote(out_path.string()) + " 2>" +
               shell_quote(err_path.string());
    CliRun run;
    const int status = std::system(command.c_str());
    if (status == -1) {
        ADD_FAILURE() << "std::system failed for: " << command;
        return run;
    }
    if (WIFEXITED(status))
        run.code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        run.code = 128 + WTERMSIG(status);
    if (stdout_to.empty()) run.out = test::read_text(out_path);
    run.err = test::read_text(err_path);
    return run;
}

std::string describe(const std::vector<std::string>& args, const CliRun& run) {
    std::string text = "chromalign";
    for (const auto& a : args) text += " " + a;
    return text + "\n  exit " + std::to_string(run.code) + "\n  stdout: [" + run.out +
           "]\n  stderr: [" + run.err + "]";
}

using test::count_of;
using test::split;

/// Every failure must look the same to a script: no crash, exactly one stderr line that starts
/// with "chromalign: ", nothing on stdout.
void expect_one_error_line(const CliRun& run, const std::string& context) {
    EXPECT_LT(run.code, 128) << "crashed\n" << context;
    EXPECT_EQ(count_of(run.err, "\n"), 1) << "stderr is not exactly one line\n" << context;
    EXPECT_EQ(run.err.rfind("chromalign: ", 0), 0u) << context;
    EXPECT_FALSE(run.err.empty() || run.err.back() != '\n') << context;
    EXPECT_TRUE(run.out.empty()) << context;
}

// ---------------------------------------------------------------------------------------------
// Input files, written once per test program
// ---------------------------------------------------------------------------------------------

std::string fasta(const std::string& header, const std::string& bases) {
    std::string text = ">" + header + "\n";
    for (size_t at = 0; at < bases.size(); at += 60) text += bases.substr(at, 60) + "\n";
    return text;
}

std::string random_bases(size_t length, std::mt19937_64& rng) {
    std::string bases(length, 'A');
    for (auto& b : bases) b = "ACGT"[rng() % 4];
    return bases;
}

/// The tiny inputs every test shares. The pair is related (S1 holds a mutated copy of part of
/// S0) so that its score is well above what random DNA gives.
struct Inputs {
    TempDir dir;
    std::string s0_bases, s1_bases, first_bases, second_bases;
    fs::path s0, s1;      ///< one record each: "a0 some description" and "b1"
    fs::path two;         ///< records "first" and "second"
    fs::path bad;         ///< a digit on line 3
    fs::path empty;       ///< zero bytes
    fs::path long_seq;    ///< 1100 bases, too long for --match 1048576
    fs::path config_match4, config_unknown_key;
    fs::path matrix;          ///< HOXD70 in LASTZ's text format
    fs::path matrix_bad;      ///< a row of three scores on line 3
    fs::path matrix_big;      ///< scores of 2^20: only 1020 bases fit
    fs::path config_matrix;   ///< sub/hoxd.cfg: "matrix = hoxd.mat", relative to its directory
    fs::path missing;     ///< never created
    fs::path long_name;   ///< a record named by 300 'n's
    fs::path fifo;        ///< a FIFO nobody writes

    Inputs() {
        std::mt19937_64 rng(20240601);
        s0_bases = random_bases(300, rng);
        std::string copy = s0_bases.substr(60, 180);
        for (size_t at = 15; at < copy.size(); at += 37) copy[at] = copy[at] == 'A' ? 'C' : 'A';
        copy.erase(90, 3);
        copy.insert(40, "GG");
        s1_bases = random_bases(25, rng) + copy + random_bases(30, rng);
        first_bases = random_bases(90, rng);
        second_bases = s0_bases.substr(100, 70) + random_bases(20, rng);

        const fs::path& d = dir.path();
        s0 = d / "s0.fa";
        s1 = d / "s1.fa";
        two = d / "two.fa";
        bad = d / "bad.fa";
        empty = d / "empty.fa";
        long_seq = d / "long.fa";
        config_match4 = d / "match4.cfg";
        config_unknown_key = d / "unknown.cfg";
        matrix = d / "hoxd70.mat";
        matrix_bad = d / "bad.mat";
        matrix_big = d / "big.mat";
        config_matrix = d / "sub" / "hoxd.cfg";
        missing = d / "does_not_exist.fa";
        long_name = d / "long_name.fa";
        fifo = d / "fifo.fa";
        test::write_text(long_name, fasta(std::string(300, 'n'), s0_bases));
        if (::mkfifo(fifo.c_str(), 0600) != 0) throw std::runtime_error("cannot make a FIFO in the test directory");
        test::write_text(s0, fasta("a0 some description", s0_bases));
        test::write_text(s1, fasta("b1", s1_bases));
        test::write_text(two, fasta("first", first_bases) + fasta("second", second_bases));
        test::write_text(bad, ">bad\nACGTACGT\nACG3T\n");
        test::write_text(empty, "");
        test::write_text(long_seq, fasta("long", random_bases(1100, rng)));
        test::write_text(config_match4, "# only the match score\nmatch = 4\n");
        test::write_text(config_unknown_key, "colour = red\n");
        const std::string hoxd70 = "# HOXD70\n   A    C    G    T\nA  91 -114  -31 -123\nC -114  100 -125  -31\n"
                                   "G  -31 -125  100 -114\nT -123  -31 -114   91\n";
        test::write_text(matrix, hoxd70);
        test::write_text(matrix_bad, "A C G T\nA 1 -1 -1 -1\nC -1 1 -1\n");
        test::write_text(matrix_big, "A C G T\nA 1048576 -1 -1 -1\nC -1 1 -1 -1\nG -1 -1 1 -1\nT -1 -1 -1 1\n");
        fs::create_directory(d / "sub");
        test::write_text(d / "sub" / "hoxd.mat", hoxd70);
        test::write_text(config_matrix, "matrix = hoxd.mat\ngap-open = 430\ngap-extend = 30\n");
    }
};

const Inputs& inputs() {
    static const Inputs instance;
    return instance;
}

/// Replaces {s0} {s1} {two} {bad} {empty} {long} {missing} {dir} {cfg4} {cfgbad} {mat} {badmat}
/// {bigmat} {cfgmat} {longname} {fifo} with paths.
std::string expand(std::string text) {
    const Inputs& in = inputs();
    const std::pair<const char*, std::string> names[] = {
        {"{s0}", in.s0.string()},           {"{s1}", in.s1.string()},
        {"{two}", in.two.string()},         {"{bad}", in.bad.string()},
        {"{empty}", in.empty.string()},     {"{long}", in.long_seq.string()},
        {"{missing}", in.missing.string()}, {"{dir}", in.dir.path().string()},
        {"{cfg4}", in.config_match4.string()}, {"{cfgbad}", in.config_unknown_key.string()},
        {"{mat}", in.matrix.string()},         {"{badmat}", in.matrix_bad.string()},
        {"{bigmat}", in.matrix_big.string()},  {"{cfgmat}", in.config_matrix.string()},
        {"{longname}", in.long_name.string()}, {"{fifo}", in.fifo.string()},
    };
    for (const auto& [key, value] : names) {
        const std::string placeholder = key;
        for (size_t at = text.find(placeholder); at != std::string::npos;
             at = text.find(placeholder, at + value.size()))
            text.replace(at, placeholder.size(), value);
    }
    return text;
}

std::vector<std::string> expand(const std::vector<std::string>& args) {
    std::vector<std::string> out;
    for (const auto& a : args) out.push_back(expand(a));
    return out;
}

Scoring make_scoring(int32_t match, int32_t mismatch, int32_t gap_open, int32_t gap_extend) {
    return Scoring(match, mismatch, gap_open, gap_extend);
}

// ---------------------------------------------------------------------------------------------
// A small JSON checker (the output is flat apart from the scoring object)
// ---------------------------------------------------------------------------------------------

/// Whether the text is one valid JSON document (parsed with nlohmann-json).
bool braces_balance(const std::string& json) { return nlohmann::json::accept(json); }

/// The value of `key` in the JSON object `json`, if it parses and holds one of type T.
template <typename T>
std::optional<T> json_value(const std::string& json, const std::string& key) {
    const nlohmann::json j = nlohmann::json::parse(json, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains(key)) return std::nullopt;
    const nlohmann::json& v = j.at(key);
    if constexpr (std::is_same_v<T, std::string>) {
        if (!v.is_string()) return std::nullopt;
    } else if constexpr (std::is_integral_v<T>) {
        if (!v.is_number_integer()) return std::nullopt;
    } else {
        if (!v.is_number()) return std::nullopt;
    }
    return v.get<T>();
}

std::optional<int64_t> json_int(const std::string& json, const std::string& key) { return json_value<int64_t>(json, key); }
std::optional<double> json_number(const std::string& json, const std::string& key) { return json_value<double>(json, key); }
std::optional<std::string> json_string(const std::string& json, const std::string& key) {
    return json_value<std::string>(json, key);
}

/// The "scoring" object as JSON text, or "" when absent.
std::string json_scoring(const std::string& json) {
    const nlohmann::json j = nlohmann::json::parse(json, nullptr, false);
    return !j.is_discarded() && j.contains("scoring") ? j.at("scoring").dump() : "";
}

/// Checks the JSON shape and that its scoring object holds `want`.
void expect_json_scoring(const std::string& json, const Scoring& want) {
    const std::string scoring = json_scoring(json);
    ASSERT_FALSE(scoring.empty()) << json;
    EXPECT_EQ(json_int(scoring, "match"), want.match()) << scoring;
    EXPECT_EQ(json_int(scoring, "mismatch"), want.mismatch()) << scoring;
    EXPECT_EQ(json_int(scoring, "gap_open"), want.gap_open) << scoring;
    EXPECT_EQ(json_int(scoring, "gap_extend"), want.gap_extend) << scoring;
}

/// Runs a JSON comparison on the reference backend and expects exit 0.
CliRun run_json(std::vector<std::string> args) {
    args.insert(args.end(), {"--backend", "reference", "--format", "json", "--quiet"});
    const std::vector<std::string> expanded = expand(args);
    CliRun run = run_cli(expanded);
    EXPECT_EQ(run.code, 0) << describe(expanded, run);
    return run;
}

// ---------------------------------------------------------------------------------------------
// Errors: exit code, one "chromalign: " line on stderr, never a crash
// ---------------------------------------------------------------------------------------------

struct ErrorCase {
    const char* label;             ///< gtest name suffix
    std::vector<std::string> args; ///< placeholders as in expand()
    int code;                      ///< 2: usage error, 1: runtime error
    std::vector<std::string> mentions;  ///< substrings of the stderr line (placeholders expanded)
};

class CliErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(CliErrors, ExitCodeAndOneStderrLine) {
    const ErrorCase& c = GetParam();
    const std::vector<std::string> args = expand(c.args);
    const CliRun run = run_cli(args);
    const std::string context = describe(args, run);
    EXPECT_EQ(run.code, c.code) << context;
    expect_one_error_line(run, context);
    if (c.code == 2) {
        EXPECT_NE(run.err.find("--help"), std::string::npos) << context;
    }
    for (const auto& m : c.mentions)
        EXPECT_NE(run.err.find(expand(m)), std::string::npos) << "no '" << expand(m) << "'\n"
                                                              << context;
}

const ErrorCase kErrorCases[] = {
    // Usage errors: exit 2 and a hint to --help.
    {"unknown_option", {"--bogus", "{s0}", "{s1}"}, 2, {"bogus"}},
    {"no_arguments", {}, 2, {"two sequence files"}},
    {"missing_second_file", {"{s0}"}, 2, {"two sequence files"}},
    {"third_positional", {"{s0}", "{s1}", "{s1}"}, 2, {}},
    {"option_without_value", {"{s0}", "{s1}", "--format"}, 2, {"format"}},
    {"format_xml", {"--format", "xml", "{s0}", "{s1}"}, 2, {"--format", "xml"}},
    {"backend_foo", {"--backend", "foo", "{s0}", "{s1}"}, 2, {"--backend", "foo"}},
    {"match_zero", {"--match", "0", "{s0}", "{s1}"}, 2, {"match"}},
    {"match_not_a_number", {"--match", "abc", "{s0}", "{s1}"}, 2, {"match"}},
    {"match_too_large", {"--match", "2000000", "{s0}", "{s1}"}, 2, {"scoring"}},
    {"mismatch_positive", {"--mismatch", "1", "{s0}", "{s1}"}, 2, {"mismatch"}},
    {"gap_open_zero", {"--gap-open", "0", "{s0}", "{s1}"}, 2, {"gap-open"}},
    {"gap_extend_negative", {"--gap-extend", "-2", "{s0}", "{s1}"}, 2, {"gap-extend"}},
    {"alpha_3", {"--alpha", "3", "{s0}", "{s1}"}, 2, {"--alpha"}},
    {"threads_negative", {"--threads", "-1", "{s0}", "{s1}"}, 2, {"--threads"}},
    {"preset_nope", {"--preset", "nope", "{s0}", "{s1}"}, 2, {"nope", "blastn", "cudalign"}},
    {"checkpoint_every_inf", {"--checkpoint-every", "inf", "{s0}", "{s1}"}, 2, {"--checkpoint-every", "inf"}},
    {"config_missing_file", {"--config", "{missing}", "{s0}", "{s1}"}, 2,
     {"--config", "{missing}", "No such file"}},
    {"pairs_missing_file", {"--pairs", "{missing}", "{s0}", "{s1}"}, 2, {"--pairs", "{missing}", "No such file"}},
    {"pairs_directory", {"--pairs", "{dir}", "{s0}", "{s1}"}, 2, {"--pairs", "{dir}", "not a regular file"}},
    {"config_unknown_key", {"--config", "{cfgbad}", "{s0}", "{s1}"}, 2, {"--config {cfgbad}", "colour"}},
    {"matrix_and_match", {"--matrix", "{mat}", "--match", "2", "{s0}", "{s1}"}, 2, {"--matrix", "--match"}},
    {"matrix_preset_and_mismatch", {"-x", "hoxd70", "--mismatch", "-2", "{s0}", "{s1}"}, 2, {"--matrix"}},
    {"matrix_missing_file", {"--matrix", "{missing}", "{s0}", "{s1}"}, 2, {"--matrix", "{missing}"}},
    {"matrix_malformed", {"--matrix", "{badmat}", "{s0}", "{s1}"}, 2,
     {"--matrix", "{badmat}, line 3", "row C has 3 scores"}},
    {"matrix_gap_open_zero", {"--matrix", "{mat}", "--gap-open", "0", "{s0}", "{s1}"}, 2, {"gap-open"}},
    {"s0_record_reversed_region", {"--s0-record", "x:5-3", "{s0}", "{s1}"}, 2, {"--s0-record"}},
    {"s1_record_region_without_name", {"--s1-record", ":1-5", "{s0}", "{s1}"}, 2, {"--s1-record"}},
    {"s0_record_region_not_numbers", {"--s0-record", "a0:1-x", "{s0}", "{s1}"}, 2, {"--s0-record"}},
    // Runtime errors: exit 1.
    {"s0_missing_file", {"{missing}", "{s1}"}, 1, {"{missing}"}},
    {"s1_missing_file", {"{s0}", "{missing}"}, 1, {"{missing}"}},
    {"digit_in_sequence", {"{s0}", "{bad}"}, 1, {"{bad}", "line 3", "'3'"}},
    {"empty_file", {"{empty}", "{s1}"}, 1, {"{empty}"}},
    {"directory_as_input", {"{s0}", "{dir}"}, 1, {"{dir}"}},
    {"record_missing", {"--s1-record", "nothere", "{s0}", "{two}"}, 1, {"nothere", "first"}},
    {"region_beyond_record", {"--s0-record", "a0:290-400", "{s0}", "{s1}"}, 1, {"a0", "300"}},
    {"score_could_overflow", {"--match", "1048576", "{long}", "{long}"}, 1, {"--match"}},
    {"matrix_score_could_overflow", {"--matrix", "{bigmat}", "{long}", "{long}"}, 1,
     {"at most 1020 bases", "matrix of smaller scores"}},
    // Outputs that could never be written stop the run before stage 1, not after it.
    {"output_in_missing_dir",
     {"-q", "-b", "reference", "-o", "{dir}/no/such/dir/out", "{s0}", "{s1}"}, 1,
     {"-o {dir}/no/such/dir/out: no directory {dir}/no/such/dir"}},
    {"traceback_in_missing_dir", {"--traceback", "{dir}/no/a.sam", "{s0}", "{s1}"}, 1, {"--traceback", "no directory"}},
    {"keep_rows_missing_dir", {"--checkpoint", "{dir}/k.ckpt", "--keep-rows", "{dir}/no", "{s0}", "{s1}"}, 1,
     {"--keep-rows {dir}/no: no such directory"}},
    {"plot_is_a_directory", {"--traceback", "{dir}/a.paf", "--plot", "{dir}", "{s0}", "{s1}"}, 1,
     {"--plot {dir}: is a directory"}},
    {"traceback_compressed", {"--traceback", "{dir}/a.sam.gz", "{missing}", "{s1}"}, 1, {"--traceback", "compressed"}},
    {"sam_query_name_too_long", {"--traceback", "{dir}/a.bam", "{longname}", "{s1}"}, 1,
     {"S0 record 'nnnn", "300 characters", "254"}},
    // A stream (standard input, a FIFO) can be read once: S0 and S1 cannot both be it.
    {"standard_input_twice", {"-", "-"}, 1, {"one stream (standard input)"}},
    {"fifo_twice", {"{fifo}", "{fifo}"}, 1, {"one stream ({fifo})"}},
};

INSTANTIATE_TEST_SUITE_P(Cli, CliErrors, ::testing::ValuesIn(kErrorCases),
                         [](const ::testing::TestParamInfo<ErrorCase>& info) {
                             return std::string(info.param.label);
                         });

TEST(CliErrorsCuda, BackendCudaWithoutGpuIsRuntimeError) {
    if (std::system("nvidia-smi >/dev/null 2>&1") == 0)
        GTEST_SKIP() << "nvidia-smi works: this machine has a GPU";
    const std::vector<std::string> args =
        expand(std::vector<std::string>{"--backend", "cuda", "{s0}", "{s1}"});
    const CliRun run = run_cli(args);
    EXPECT_EQ(run.code, 1) << describe(args, run);
    expect_one_error_line(run, describe(args, run));
}

TEST(CliErrorsStdout, UnwritableStdoutIsRuntimeError) {
    if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
    const std::vector<std::string> args =
        expand(std::vector<std::string>{"-q", "-b", "reference", "{s0}", "{s1}"});
    const CliRun run = run_cli(args, "/dev/full");
    EXPECT_EQ(run.code, 1) << describe(args, run);
    expect_one_error_line(run, describe(args, run));
}

// ---------------------------------------------------------------------------------------------
// --version and --help
// ---------------------------------------------------------------------------------------------

TEST(CliInfo, VersionPrintsNameAndVersion) {
    const CliRun run = run_cli({"--version"});
    EXPECT_EQ(run.code, 0);
    EXPECT_EQ(run.out, std::string("chromalign ") + kVersion + "\n");
    EXPECT_TRUE(run.err.empty()) << run.err;
}

TEST(CliInfo, HelpShowsRealDefaultsAndPresets) {
    const CliRun run = run_cli({"--help"});
    EXPECT_EQ(run.code, 0);
    EXPECT_TRUE(run.err.empty()) << run.err;
    EXPECT_EQ(run.out.rfind("Usage: chromalign", 0), 0u) << run.out;
    for (const char* part : {"--match arg (=1)", "--mismatch arg (=-3)", "--gap-open arg (=5)",
                             "--gap-extend arg (=2)", "(=auto)", "(=text)", "cudalign", "blastn",
                             "--s0-record", "--output", "--quiet", "--matrix arg", "hoxd70", "primate"})
        EXPECT_NE(run.out.find(part), std::string::npos) << "no '" << part << "' in\n" << run.out;
    // The traceback command shows the same help, which names its form.
    const CliRun traceback = run_cli({"traceback", "--help"});
    EXPECT_EQ(traceback.code, 0) << traceback.err;
    EXPECT_EQ(traceback.out, run.out);
    EXPECT_NE(run.out.find("chromalign traceback DIR"), std::string::npos) << run.out;
}

// ---------------------------------------------------------------------------------------------
// Output formats
// ---------------------------------------------------------------------------------------------

TEST(CliFormats, JsonHasEveryKeyOnceWithReferenceValues) {
    const Inputs& in = inputs();
    const CliRun run = run_json({"{s0}", "{s1}"});
    const std::string& json = run.out;
    ASSERT_FALSE(json.empty());
    EXPECT_EQ(json.front(), '{') << json;
    EXPECT_EQ(json.substr(json.size() - std::min<size_t>(2, json.size())), "}\n") << json;
    EXPECT_TRUE(braces_balance(json)) << json;
    // The best pair's fields and the job's, once each; then every pair's, in `pairs`.
    const size_t pairs_at = json.find("\"pairs\":");
    ASSERT_NE(pairs_at, std::string::npos) << json;
    const std::string top = json.substr(0, pairs_at);
    for (const char* key : {"score", "s0_end", "s1_end", "strand", "s0_name", "s1_name", "s0_path", "s1_path",
                            "s0_length", "s1_length", "cells", "cells_this_run", "seconds", "gcups",
                            "cells_pruned", "pruned_fraction", "backend", "device", "scoring", "match",
                            "mismatch", "gap_open", "gap_extend", "strands"})
        EXPECT_EQ(count_of(top, std::string("\"") + key + "\":"), 1) << key << " in\n" << json;
    const nlohmann::json parsed = nlohmann::json::parse(json);
    ASSERT_EQ(parsed.at("pairs").size(), 1u) << json;
    for (const char* key : {"score", "s0_end", "s1_end", "strand", "s0_name", "s1_name", "cells", "seconds"})
        EXPECT_EQ(parsed["pairs"][0].at(key), key == std::string("cells") ? nlohmann::json(parsed.at(key)) : parsed.at(key))
            << key;

    const Sequence s0 = make_sequence("a0", in.s0_bases);
    const Sequence s1 = make_sequence("b1", in.s1_bases);
    const AlignmentEnd want = reference_align(s0, s1, Scoring{});
    ASSERT_GT(want.score, 100) << "the test pair should score well above random DNA";
    EXPECT_EQ(json_int(json, "score"), want.score) << json;
    EXPECT_EQ(json_int(json, "s0_end"), want.s0_end) << json;
    EXPECT_EQ(json_int(json, "s1_end"), want.s1_end) << json;
    EXPECT_EQ(json_int(json, "s0_length"), s0.length()) << json;
    EXPECT_EQ(json_int(json, "s1_length"), s1.length()) << json;
    // Both strands by default: m n cells each. The forward strand of this related pair wins.
    EXPECT_EQ(json_string(json, "strand"), "+") << json;
    EXPECT_EQ(json_string(json, "strands"), "both") << json;
    EXPECT_EQ(json_int(json, "cells"), 2 * s0.length() * s1.length()) << json;
    EXPECT_EQ(json_int(json, "cells_this_run"), 2 * s0.length() * s1.length()) << "nothing was resumed";
    EXPECT_EQ(json_string(json, "s0_name"), "a0") << json;
    EXPECT_EQ(json_string(json, "s1_name"), "b1") << json;
    EXPECT_EQ(json_string(json, "s0_path"), in.s0.string()) << json;
    EXPECT_EQ(json_string(json, "s1_path"), in.s1.string()) << json;
    EXPECT_EQ(json_string(json, "backend"), "reference") << json;
    EXPECT_TRUE(json_string(json, "device").has_value()) << json;
    ASSERT_TRUE(json_number(json, "seconds").has_value()) << json;
    ASSERT_TRUE(json_number(json, "gcups").has_value()) << json;
    EXPECT_GE(*json_number(json, "seconds"), 0.0);
    EXPECT_GE(*json_number(json, "gcups"), 0.0);
    expect_json_scoring(json, Scoring{});
}

TEST(CliFormats, JsonReportsTheBoundAndItsGainTable) {
    // 200 kbp and a copy with every 25th base changed: minimap2 maps it, and a gain table is
    // built beside the pass (the JSON and the summary line say so); --bound none runs neither.
    // A stage 1 that ends first cancels the pass: at 20 kbp (0.04 s on 2 threads, the pass
    // 0.03 s) a loaded machine let it (bound 0, bound_in_time false); here 0.68 s and 0.13 s.
    std::mt19937_64 rng(test::seed());
    const std::string s0 = random_bases(200000, rng);
    std::string s1 = s0;
    for (size_t i = 0; i < s1.size(); i += 25) s1[i] = s1[i] == 'A' ? 'C' : 'A';
    const TempDir dir;
    const std::string f0 = (dir.path() / "s0.fa").string(), f1 = (dir.path() / "s1.fa").string();
    test::write_text(f0, fasta("s0", s0));
    test::write_text(f1, fasta("s1", s1));
    for (const bool bound : {true, false}) {
        std::vector<std::string> args{"-b", "cpu", "-f", "json", f0, f1};
        if (!bound) args.insert(args.begin(), {"--bound", "none"});
        const CliRun run = run_cli(args);
        ASSERT_EQ(run.code, 0) << describe(args, run);
        const nlohmann::json j = nlohmann::json::parse(run.out);
        if (!bound) {
            EXPECT_FALSE(j.contains("bound")) << run.out;
            EXPECT_FALSE(j.contains("gain_table_k")) << run.out;
            EXPECT_EQ(run.err.find("gain table"), std::string::npos) << run.err;
            continue;
        }
        EXPECT_EQ(j.value("bound_source", ""), "minimap2") << run.out;
        EXPECT_GT(j.value("bound", 0), 0) << run.out;
        EXPECT_LE(j.value("bound", 0), j.at("score").get<int>()) << run.out;
        EXPECT_GE(j.value("gain_table_k", 0), 6) << run.out;
        EXPECT_GE(j.value("gain_table_seconds", -1.0), 0.0) << run.out;
        // The alignment runs from (0, 0) along its diagonal: what the table lets a path add from
        // there is at least its score, and at most best_score (1) a column.
        const double gain = j.value("gain_table_per_column", -1.0);
        EXPECT_GE(gain * 200000, j.at("score").get<double>()) << run.out;
        EXPECT_LE(gain, 1.0) << run.out;
        EXPECT_GE(j.value("gain_table_band_diagonals", 0), 1) << run.out;
        // And the run's summary line says so.
        EXPECT_NE(run.err.find("-mers in "), std::string::npos) << run.err;
    }
}

TEST(CliFormats, TsvHeaderMatchesDataRow) {
    const Inputs& in = inputs();
    const std::vector<std::string> args =
        expand(std::vector<std::string>{"-q", "-b", "reference", "-f", "tsv", "{s0}", "{s1}"});
    const CliRun run = run_cli(args);
    ASSERT_EQ(run.code, 0) << describe(args, run);
    ASSERT_FALSE(run.out.empty());
    EXPECT_EQ(run.out.back(), '\n');
    const std::vector<std::string> lines = split(run.out, '\n');
    ASSERT_EQ(lines.size(), 2u) << run.out;
    const std::vector<std::string> header = split(lines[0], '\t');
    const std::vector<std::string> row = split(lines[1], '\t');
    ASSERT_EQ(header.size(), row.size()) << run.out;
    ASSERT_GE(header.size(), 3u);
    EXPECT_EQ(header[0], "score");
    EXPECT_EQ(header[1], "s0_end");
    EXPECT_EQ(header[2], "s1_end");
    const AlignmentEnd want = reference_align(make_sequence("a0", in.s0_bases),
                                              make_sequence("b1", in.s1_bases), Scoring{});
    EXPECT_EQ(row[0], std::to_string(want.score));
    EXPECT_EQ(row[1], std::to_string(want.s0_end));
    EXPECT_EQ(row[2], std::to_string(want.s1_end));
}

TEST(CliFormats, TsvNamesTheRegionsAndWithATracebackTheAlignment) {
    // Positions are the record's and lengths the region's: the region column tells which.
    const TempDir dir;
    const std::vector<std::string> args =
        expand(std::vector<std::string>{"-q", "-b", "reference", "-f", "tsv", "--s0-record", "a0:11-290", "--traceback",
                                        (dir.path() / "a.paf").string(), "{s0}", "{s1}"});
    const CliRun run = run_cli(args);
    ASSERT_EQ(run.code, 0) << describe(args, run);
    const std::vector<std::string> lines = split(run.out, '\n');
    ASSERT_EQ(lines.size(), 2u) << run.out;
    const std::vector<std::string> header = split(lines[0], '\t'), row = split(lines[1], '\t');
    ASSERT_EQ(header.size(), row.size()) << run.out;
    std::map<std::string, std::string> field;
    for (size_t k = 0; k < header.size(); ++k) field[header[k]] = row[k];
    EXPECT_EQ(field["s0_length"], "280") << run.out;
    EXPECT_EQ(field["s0_region"], "11-290") << run.out;
    EXPECT_EQ(field["s1_region"], "-") << run.out;
    const std::vector<std::string> paf = split(test::read_text((dir.path() / "a.paf").string()), '\t');
    ASSERT_GE(paf.size(), 11u);
    EXPECT_EQ(field["s0_start"], std::to_string(std::stoll(paf[2]) + 1)) << run.out;  // PAF is 0-based
    EXPECT_EQ(field["s1_start"], std::to_string(std::stoll(paf[7]) + 1)) << run.out;
    EXPECT_EQ(field["length"], paf[10]) << run.out;
    EXPECT_EQ(field["identity"].substr(0, 2), "0.") << run.out;
}

TEST(CliFormats, TextIsDefaultOnBundledExample) {
    const std::string dir = std::string(CHROMALIGN_SOURCE_DIR) + "/data/example/";
    const std::vector<std::string> args = {"-q", "--backend", "reference",
                                           dir + "NC_004830.2_deformed_wing_virus.fasta.gz",
                                           dir + "NC_006494.1_varroa_destructor_virus_1.fasta.gz"};
    const CliRun run = run_cli(args);
    ASSERT_EQ(run.code, 0) << describe(args, run);
    for (const char* line : {"score\t3706\n", "s0_end\t10139\n", "s1_end\t10111\n"})
        EXPECT_NE(run.out.find(line), std::string::npos) << "no '" << line << "' in\n" << run.out;
    EXPECT_EQ(run.out.rfind("score\t", 0), 0u) << run.out;
}

// ---------------------------------------------------------------------------------------------
// --output, --quiet and the run summary
// ---------------------------------------------------------------------------------------------

TEST(CliOutput, AnAlignmentThatCannotBeWrittenLeavesTheResult) {
    // /dev/full takes the file's opening and fails its writes: the run exits 1, naming it,
    // and the result (the scores stage 1 found) is still written.
    const TempDir dir;
    const std::string file = (dir.path() / "result.tsv").string();
    const std::vector<std::string> args = expand(
        std::vector<std::string>{"-q", "-b", "reference", "-f", "tsv", "--traceback", "/dev/full", "-o", file, "{s0}", "{s1}"});
    const CliRun run = run_cli(args);
    EXPECT_EQ(run.code, 1) << describe(args, run);
    EXPECT_NE(run.err.find("/dev/full"), std::string::npos) << describe(args, run);
    std::ifstream in(file);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text.rfind("score\t", 0), 0u) << text;
}

TEST(CliOutput, OutputFileGetsResultAndStdoutNothing) {
    const TempDir dir;
    const std::string file = (dir.path() / "result.txt").string();
    const std::vector<std::string> args =
        expand(std::vector<std::string>{"-q", "-b", "reference", "--output", file, "{s0}", "{s1}"});
    const CliRun run = run_cli(args);
    ASSERT_EQ(run.code, 0) << describe(args, run);
    EXPECT_TRUE(run.out.empty()) << run.out;
    const AlignmentEnd want = reference_align(make_sequence("a0", inputs().s0_bases),
                                              make_sequence("b1", inputs().s1_bases), Scoring{});
    const std::string written = test::read_text(file);
    EXPECT_EQ(written.rfind("score\t" + std::to_string(want.score) + "\n", 0), 0u) << written;
    EXPECT_NE(written.find("s0_end\t" + std::to_string(want.s0_end) + "\n"), std::string::npos);
}

TEST(CliOutput, DashOutputIsStandardOutput) {
    const std::vector<std::string> args = expand(std::vector<std::string>{"-q", "-b", "reference", "-o", "-", "{s0}", "{s1}"});
    const CliRun run = run_cli(args);
    ASSERT_EQ(run.code, 0) << describe(args, run);
    EXPECT_EQ(run.out.rfind("score\t", 0), 0u) << run.out;
    EXPECT_FALSE(fs::exists("-")) << "no file named '-'";
}

TEST(CliOutput, QuietPrintsNothingOnStderr) {
    // The two-record file would otherwise produce a note as well as the summary.
    const std::vector<std::string> args =
        expand(std::vector<std::string>{"--quiet", "-b", "reference", "{two}", "{s1}"});
    const CliRun run = run_cli(args);
    EXPECT_EQ(run.code, 0) << describe(args, run);
    EXPECT_TRUE(run.err.empty()) << run.err;
    EXPECT_FALSE(run.out.empty());
}

TEST(CliOutput, SummaryOnStderrWithoutQuiet) {
    const std::vector<std::string> args =
        expand(std::vector<std::string>{"-b", "reference", "{s0}", "{s1}"});
    const CliRun run = run_cli(args);
    ASSERT_EQ(run.code, 0) << describe(args, run);
    EXPECT_EQ(run.err.rfind("chromalign: job: 1 record pair (1 S0 x 1 S1 records), both strands: 2 comparisons", 0), 0u)
        << "the job's plan comes first:\n" << run.err;
    EXPECT_NE(run.err.find("\nchromalign " + std::string(kVersion) + ": "), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("GCUPS"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("peak memory"), std::string::npos) << run.err;
    EXPECT_EQ(run.out.find("GCUPS"), std::string::npos) << "the summary belongs on stderr";
}

// ---------------------------------------------------------------------------------------------
// Presets, config files and their precedence
// ---------------------------------------------------------------------------------------------

TEST(CliScoring, PresetBlastn) {
    const Scoring blastn = make_scoring(2, -3, 7, 2);
    const CliRun run = run_json({"--preset", "blastn", "{s0}", "{s1}"});
    expect_json_scoring(run.out, blastn);
    const AlignmentEnd want = reference_align(make_sequence("a0", inputs().s0_bases),
                                              make_sequence("b1", inputs().s1_bases), blastn);
    EXPECT_EQ(json_int(run.out, "score"), want.score) << run.out;
}

TEST(CliScoring, FlagOverridesPreset) {
    const CliRun run = run_json({"--preset", "blastn", "--match", "3", "{s0}", "{s1}"});
    expect_json_scoring(run.out, make_scoring(3, -3, 7, 2));
}

TEST(CliScoring, ConfigOverridesPresetButNotFlag) {
    const CliRun from_config =
        run_json({"--preset", "blastn", "--config", "{cfg4}", "{s0}", "{s1}"});
    expect_json_scoring(from_config.out, make_scoring(4, -3, 7, 2));
    const CliRun from_flag =
        run_json({"--config", "{cfg4}", "--match", "3", "--preset", "blastn", "{s0}", "{s1}"});
    expect_json_scoring(from_flag.out, make_scoring(3, -3, 7, 2));
}

// ---------------------------------------------------------------------------------------------
// Substitution matrices: --matrix, matrix presets, and how the reports show them
// ---------------------------------------------------------------------------------------------

/// Checks the JSON scoring object of a matrix run, and the score against the reference.
void expect_matrix_run(const CliRun& run, const Scoring& want, const std::string& matrix_file) {
    const std::string scoring = json_scoring(run.out);
    ASSERT_FALSE(scoring.empty()) << run.out;
    EXPECT_EQ(nlohmann::json::parse(scoring).at("matrix"), nlohmann::json(want.matrix)) << scoring;
    EXPECT_EQ(json_string(scoring, "matrix_file"), matrix_file) << scoring;
    EXPECT_EQ(json_int(scoring, "other"), want.other) << scoring;
    EXPECT_EQ(json_int(scoring, "gap_open"), want.gap_open) << scoring;
    EXPECT_EQ(json_int(scoring, "gap_extend"), want.gap_extend) << scoring;
    EXPECT_FALSE(nlohmann::json::parse(scoring).contains("match")) << scoring;
    EXPECT_TRUE(braces_balance(run.out)) << run.out;
    const AlignmentEnd ref = reference_align(make_sequence("a0", inputs().s0_bases),
                                             make_sequence("b1", inputs().s1_bases), want);
    ASSERT_GT(ref.score, 0);
    EXPECT_EQ(json_int(run.out, "score"), ref.score) << run.out;
    EXPECT_EQ(json_int(run.out, "s0_end"), ref.s0_end) << run.out;
    EXPECT_EQ(json_int(run.out, "s1_end"), ref.s1_end) << run.out;
}

TEST(CliMatrix, MatrixFileScoresAsTheReference) {
    const CliRun run = run_json({"--matrix", "{mat}", "--gap-open", "430", "--gap-extend", "30", "{s0}", "{s1}"});
    expect_matrix_run(run, test::hoxd70(), inputs().matrix.string());
}

TEST(CliMatrix, PresetsReadTheirMatrixBesideThem) {
    const std::string configs = std::string(CHROMALIGN_SOURCE_DIR) + "/configs/";
    const struct {
        const char* preset;
        const char* file;
        NucleotideMatrix matrix;
        int32_t gap_open, gap_extend;
    } presets[] = {
        {"hoxd70", "hoxd70.mat", test::hoxd70().matrix, 430, 30},
        {"hoxd55", "hoxd55.mat", {{{91, -90, -25, -100}, {-90, 100, -100, -25}, {-25, -100, 100, -90}, {-100, -25, -90, 91}}},
         430, 30},
        {"primate", "human_chimp_v2.mat",
         {{{90, -330, -236, -356}, {-330, 100, -318, -236}, {-236, -318, 100, -330}, {-356, -236, -330, 90}}}, 750, 150},
    };
    for (const auto& p : presets) {
        SCOPED_TRACE(p.preset);
        const CliRun run = run_json({"-x", p.preset, "{s0}", "{s1}"});
        expect_matrix_run(run, Scoring::from_matrix(p.matrix, p.gap_open, p.gap_extend), configs + p.file);
    }
    // Flags still override a preset's gap costs.
    const CliRun run = run_json({"-x", "hoxd70", "--gap-extend", "40", "{s0}", "{s1}"});
    expect_matrix_run(run, Scoring::from_matrix(test::hoxd70().matrix, 430, 40), configs + "hoxd70.mat");
}

TEST(CliMatrix, ConfigFileReadsARelativeMatrixFromItsDirectory) {
    // The binary runs in the test's working directory, not the config's.
    const CliRun run = run_json({"--config", "{cfgmat}", "{s0}", "{s1}"});
    expect_matrix_run(run, test::hoxd70(), (inputs().dir.path() / "sub" / "hoxd.mat").string());
    // A --matrix on the command line wins over the config's, and is read as given.
    const CliRun flag = run_json({"--config", "{cfgmat}", "--matrix", "{mat}", "{s0}", "{s1}"});
    expect_matrix_run(flag, test::hoxd70(), inputs().matrix.string());
}

TEST(CliMatrix, AWholeSubstitutionChoiceOverridesAPresetsOther) {
    // --matrix over a match/mismatch preset, and --match with --mismatch over a matrix preset.
    const CliRun matrix = run_json({"-x", "blastn", "--matrix", "{mat}", "{s0}", "{s1}"});
    expect_matrix_run(matrix, Scoring::from_matrix(test::hoxd70().matrix, 7, 2), inputs().matrix.string());
    const CliRun pair = run_json({"-x", "hoxd70", "--match", "2", "--mismatch", "-3", "{s0}", "{s1}"});
    expect_json_scoring(pair.out, make_scoring(2, -3, 430, 30));
}

TEST(CliMatrix, TsvAndTextShowTheMatrix) {
    const std::vector<std::string> tsv_args =
        expand(std::vector<std::string>{"-q", "-b", "reference", "-f", "tsv", "-x", "hoxd70", "{s0}", "{s1}"});
    const CliRun tsv = run_cli(tsv_args);
    ASSERT_EQ(tsv.code, 0) << describe(tsv_args, tsv);
    const std::vector<std::string> lines = split(tsv.out, '\n');
    ASSERT_EQ(lines.size(), 2u) << tsv.out;
    const std::vector<std::string> header = split(lines[0], '\t'), row = split(lines[1], '\t');
    ASSERT_EQ(header.size(), row.size()) << tsv.out;
    const std::vector<std::string> tail(header.end() - 7, header.end());
    EXPECT_EQ(tail, (std::vector<std::string>{"matrix", "other", "gap_open", "gap_extend", "strand", "s0_region",
                                              "s1_region"}))
        << tsv.out;
    EXPECT_EQ(row[row.size() - 7], "91,-114,-31,-123,-114,100,-125,-31,-31,-125,100,-114,-123,-31,-114,91");
    EXPECT_EQ(row[row.size() - 6], "-125");

    const std::vector<std::string> text_args =
        expand(std::vector<std::string>{"-q", "-b", "reference", "-x", "hoxd70", "{s0}", "{s1}"});
    const CliRun text = run_cli(text_args);
    ASSERT_EQ(text.code, 0) << describe(text_args, text);
    EXPECT_NE(text.out.find("scoring\tmatrix A:91,-114,-31,-123 C:-114,100,-125,-31 G:-31,-125,100,-114 "
                            "T:-123,-31,-114,91 other=-125 gap_open=430 gap_extend=30\n"),
              std::string::npos)
        << text.out;
    EXPECT_NE(text.out.find("matrix_file\t" + std::string(CHROMALIGN_SOURCE_DIR) + "/configs/hoxd70.mat\n"),
              std::string::npos)
        << text.out;
}

TEST(CliMatrix, CpuBackendMatchesTheReference) {
    const CliRun run = run_json({"-x", "primate", "{s0}", "{s1}"});
    const std::vector<std::string> args =
        expand(std::vector<std::string>{"-q", "-b", "cpu", "-f", "json", "-x", "primate", "{s0}", "{s1}"});
    const CliRun cpu = run_cli(args);
    ASSERT_EQ(cpu.code, 0) << describe(args, cpu);
    for (const char* key : {"score", "s0_end", "s1_end"}) EXPECT_EQ(json_int(cpu.out, key), json_int(run.out, key)) << key;
    EXPECT_NE(json_string(cpu.out, "layout")->find("/matrix"), std::string::npos) << cpu.out;
}

// ---------------------------------------------------------------------------------------------
// Record selection
// ---------------------------------------------------------------------------------------------

TEST(CliRecords, SecondRecordByName) {
    const Inputs& in = inputs();
    const CliRun run = run_json({"--s1-record", "second", "{s0}", "{two}"});
    const Sequence second = make_sequence("second", in.second_bases);
    const AlignmentEnd want = reference_align(make_sequence("a0", in.s0_bases), second, Scoring{});
    EXPECT_EQ(json_string(run.out, "s1_name"), "second") << run.out;
    EXPECT_EQ(json_int(run.out, "s1_length"), second.length()) << run.out;
    EXPECT_EQ(json_int(run.out, "score"), want.score) << run.out;
    EXPECT_EQ(json_int(run.out, "s1_end"), want.s1_end) << run.out;
}

TEST(CliRecords, EveryRecordByDefaultBestFirst) {
    const Inputs& in = inputs();
    const std::vector<std::string> args =
        expand(std::vector<std::string>{"-b", "reference", "-f", "json", "{s0}", "{two}"});
    const CliRun run = run_cli(args);
    ASSERT_EQ(run.code, 0) << describe(args, run);
    const nlohmann::json j = nlohmann::json::parse(run.out);
    ASSERT_EQ(j.at("pairs").size(), 2u) << run.out;
    const Sequence s0 = make_sequence("a0", in.s0_bases);
    std::vector<std::pair<int64_t, std::string>> want;  // (score, S1 record)
    for (const auto& [name, bases] : {std::pair{"first", in.first_bases}, std::pair{"second", in.second_bases}})
        want.emplace_back(reference_align(s0, make_sequence(name, bases), Scoring{}).score, name);
    std::sort(want.begin(), want.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (size_t k = 0; k < 2; ++k) {
        EXPECT_EQ(j["pairs"][k].at("s1_name"), want[k].second) << run.out;
        EXPECT_GE(j["pairs"][k].at("score").get<int64_t>(), want[k].first) << "the forward strand alone scores that";
    }
    EXPECT_EQ(j.at("score"), j["pairs"][0].at("score")) << "the best pair comes first and at the top";
    EXPECT_NE(run.err.find("job: 2 record pairs (1 S0 x 2 S1 records), both strands: 4 comparisons"), std::string::npos)
        << run.err;
}

TEST(CliRecords, TheCommandLinesRecordsReplaceAConfigsRecords) {
    // "Options on the command line override --config": s0-record and s1-record compose within
    // one source, so the config's were added to the command line's (both records compared),
    // and a config naming records could not go with --pairs.
    const Inputs& in = inputs();
    const fs::path config = in.two.parent_path() / "records.cfg";
    test::write_text(config, "s1-record = first\n");
    const CliRun flag = run_json({"--config", config.string(), "--s1-record", "second", "{s0}", "{two}"});
    const nlohmann::json j = nlohmann::json::parse(flag.out);
    EXPECT_EQ(j.at("pairs").size(), 1u) << flag.out;
    EXPECT_EQ(j.at("s1_name"), "second") << flag.out;
    const fs::path pairs = in.two.parent_path() / "records.pairs";
    test::write_text(pairs, "a0\tsecond\n");
    const CliRun listed = run_json({"--config", config.string(), "--pairs", pairs.string(), "{s0}", "{two}"});
    EXPECT_EQ(json_string(listed.out, "s1_name"), "second") << listed.out;
    const CliRun config_alone = run_json({"--config", config.string(), "{s0}", "{two}"});
    EXPECT_EQ(json_string(config_alone.out, "s1_name"), "first") << config_alone.out;
}

TEST(CliRecords, RegionUsesOnlyItsBases) {
    const Inputs& in = inputs();
    const CliRun run = run_json({"--s0-record", "a0:2-5", "{s0}", "{s1}"});
    const AlignmentEnd want = reference_align(make_sequence("a0", in.s0_bases.substr(1, 4)),
                                              make_sequence("b1", in.s1_bases), Scoring{});
    EXPECT_EQ(json_int(run.out, "s0_length"), 4) << run.out;
    EXPECT_EQ(json_int(run.out, "cells"), 2 * 4 * static_cast<int64_t>(in.s1_bases.size())) << "both strands";
    EXPECT_EQ(json_int(run.out, "score"), want.score) << run.out;
    EXPECT_EQ(json_string(run.out, "s0_name"), "a0") << run.out;
}

}  // namespace
}  // namespace chromalign
