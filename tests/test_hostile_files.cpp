//! @file Files a hostile user or cluster hands the CLI (issue 42): FIFOs where files are read,
//! outputs that name an input or each other, and writes that fail part-way.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "engine/checkpoint/checkpoint_file.hpp"
#include "tests/resume_harness.hpp"
#include "tests/test_support.hpp"

namespace chromalign {
namespace {

using test::read_text;
using test::write_text;

/// Files in `dir` whose name holds `part` (a temporary left behind).
int files_named(const std::string& dir, const std::string& part) {
    bool ok = false;
    const std::string listed = test::command_output("ls -a '" + dir + "'", ok);
    int n = 0;
    for (const std::string& name : test::split(listed, '\n')) n += name.find(part) != std::string::npos;
    return n;
}

TEST(HostileFiles, FifosAreRefusedAtOnceNotWaitedOn) {
    test::ResumeHarness h(3000, 3000, test::seed());
    h.set_watchdog(30);  // a run that waits on a FIFO is killed and fails, rather than hanging
    ASSERT_EQ(::mkfifo(h.path("fifo.cfg").c_str(), 0600), 0);
    const test::ChildRun config = h.run({"-q", "-b", "cpu", "--config", h.path("fifo.cfg")});
    EXPECT_FALSE(config.watchdog) << "waited on a FIFO given as --config";
    EXPECT_EQ(config.exit_code, 2) << config.err;
    EXPECT_NE(config.err.find("is not a regular file"), std::string::npos) << config.err;

    ASSERT_EQ(::mkdir(h.path("presets").c_str(), 0700), 0);
    ASSERT_EQ(::mkfifo(h.path("presets/slow.cfg").c_str(), 0600), 0);
    ::setenv("CHROMALIGN_CONFIG_DIR", h.path("presets").c_str(), 1);
    const test::ChildRun preset = h.run({"-q", "-b", "cpu", "-x", "slow"});
    ::unsetenv("CHROMALIGN_CONFIG_DIR");
    EXPECT_FALSE(preset.watchdog) << "waited on a FIFO as a preset";
    EXPECT_EQ(preset.exit_code, 2) << preset.err;
    EXPECT_NE(preset.err.find("is not a regular file"), std::string::npos) << preset.err;

    // A traceback journal that is a FIFO: the traceback names it and stops.
    const std::string dir = h.path("rows");
    const test::ChildRun stage1 = h.run({"-q", "-b", "cpu", "--traceback-dir", dir});
    ASSERT_EQ(stage1.exit_code, 0) << stage1.err;
    ASSERT_EQ(::mkfifo((dir + "/traceback.journal").c_str(), 0600), 0);
    const test::ChildRun traceback =
        h.run_command({"traceback", dir, "-q", "-b", "cpu", "--traceback", h.path("out.paf")});
    EXPECT_FALSE(traceback.watchdog) << "waited on a FIFO as the traceback journal";
    EXPECT_EQ(traceback.exit_code, 1) << traceback.err;
    EXPECT_NE(traceback.err.find("traceback.journal is not a regular file"), std::string::npos) << traceback.err;
}

TEST(HostileFiles, AnOutputThatIsAnInputOrAnotherOutputIsRefusedBeforeStage1) {
    test::ResumeHarness h(3000, 3000, test::seed());
    const std::string a = h.path("a.fa"), before = read_text(a);
    // By name, through another spelling of its path, and through a link.
    ASSERT_EQ(::symlink(a.c_str(), h.path("link.fa").c_str()), 0);
    for (const std::vector<std::string>& outputs :
         {std::vector<std::string>{"-o", a}, {"--traceback", h.path("./a.fa")}, {"--traceback", h.path("link.fa")},
          {"--traceback", h.path("x.paf"), "--plot", h.path("b.fa")}}) {
        std::vector<std::string> args = {"-q", "-b", "cpu"};
        args.insert(args.end(), outputs.begin(), outputs.end());
        const test::ChildRun r = h.run(args);
        EXPECT_EQ(r.exit_code, 1) << outputs[1] << "\n" << r.err;
        EXPECT_NE(r.err.find("it would be overwritten"), std::string::npos) << r.err;
        EXPECT_EQ(r.err.find("stage 1"), std::string::npos) << "refused before stage 1:\n" << r.err;
    }
    EXPECT_EQ(read_text(a), before) << "an input was overwritten";
    // Files the options were read from are inputs too: a --pairs file, a list of records, a
    // --config file (each was overwritten with exit 0 before).
    const auto name_of = [](const std::string& fasta) {
        const std::string header = read_text(fasta).substr(1);
        return header.substr(0, header.find_first_of(" \t\n"));
    };
    const std::string s0 = name_of(a), s1 = name_of(h.path("b.fa"));
    const std::vector<std::vector<std::string>> option_files = {
        {"--pairs", h.path("pairs.tsv"), s0 + "\t" + s1 + "\n", "-o"},
        {"--s1-record", h.path("names.txt"), s1 + "\n", "-o"},
        {"--config", h.path("run.cfg"), "match = 1\n", "--traceback"}};
    for (const std::vector<std::string>& f : option_files) {
        std::ofstream(f[1]) << f[2];
        const test::ChildRun r = h.run({"-q", "-b", "cpu", f[0], f[1], f[3], f[1]});
        EXPECT_EQ(r.exit_code, 1) << f[0] << "\n" << r.err;
        EXPECT_NE(r.err.find(f[0] + " (" + f[1] + "): it would be overwritten"), std::string::npos) << r.err;
        EXPECT_EQ(read_text(f[1]), f[2]) << f[0] << "'s file was overwritten";
    }
    const test::ChildRun same = h.run({"-q", "-b", "cpu", "--traceback", h.path("x.paf"), "-o", h.path("./x.paf")});
    EXPECT_EQ(same.exit_code, 1) << same.err;
    EXPECT_NE(same.err.find("name one file"), std::string::npos) << same.err;
    EXPECT_FALSE(file_exists(h.path("x.paf")));
    // Devices are not overwritten: both outputs thrown away is a run like any other.
    const test::ChildRun discarded =
        h.run({"-q", "-b", "cpu", "--traceback", "/dev/null", "--alignment-format", "paf", "-o", "/dev/null"});
    EXPECT_EQ(discarded.exit_code, 0) << discarded.err;
    // The alignment into the file or pipe that takes the result (SAM lines among the report's,
    // which samtools then refused), as --traceback - -o - would; /proc/self/fd/1 is what
    // /dev/stdout links to.
    const test::ChildRun shared = h.run({"-q", "-b", "cpu", "--traceback", "/proc/self/fd/1", "--alignment-format", "sam"});
    EXPECT_EQ(shared.exit_code, 1) << shared.err;
    EXPECT_NE(shared.err.find("the result (standard output) and --traceback /proc/self/fd/1 are one stream"),
              std::string::npos) << shared.err;
    const test::ChildRun apart = h.run({"-q", "-b", "cpu", "--traceback", "/proc/self/fd/1", "--alignment-format",
                                        "sam", "-o", h.path("result.tsv")});
    EXPECT_EQ(apart.exit_code, 0) << apart.err;
    EXPECT_EQ(apart.out.rfind("@HD", 0), 0u) << apart.out;
    // An output through a symbolic link replaces the file it names; the link stays (a rename
    // over the link turned it into a file, and as root over /dev/stdout the system's).
    std::ofstream(h.path("real.paf")) << "an earlier result\n";
    ASSERT_EQ(::symlink(h.path("real.paf").c_str(), h.path("out.paf").c_str()), 0);
    const test::ChildRun linked = h.run({"-q", "-b", "cpu", "--traceback", h.path("out.paf")});
    EXPECT_EQ(linked.exit_code, 0) << linked.err;
    struct stat st{};
    ASSERT_EQ(::lstat(h.path("out.paf").c_str(), &st), 0);
    EXPECT_TRUE(S_ISLNK(st.st_mode)) << "the link was replaced";
    EXPECT_NE(read_text(h.path("real.paf")).find("cg:Z:"), std::string::npos) << read_text(h.path("real.paf"));
}

TEST(HostileFiles, AWriteThatFailsLeavesNoPartialOutput) {
    // A 20 kbp alignment's SAM record is larger than a file size limit of 4 KiB: its write
    // fails part-way, as on a full disk.
    test::ResumeHarness h(20000, 20000, test::seed());
    for (const char* name : {"out.sam", "out.paf.svg"}) {
        const std::string out = h.path(name);
        std::ofstream(out) << "an earlier result\n";
        const bool plot = std::string(name).find(".svg") != std::string::npos;
        std::vector<std::string> args = {"-q", "-b", "cpu", "--traceback", plot ? "/dev/null" : out};
        if (plot) args.insert(args.end(), {"--alignment-format", "paf", "--plot", out});
        const test::ChildRun r = h.run_limited("ulimit -f 4", args);
        EXPECT_EQ(r.exit_code, 1) << r.err;
        EXPECT_NE(r.err.find(out), std::string::npos) << "the message names the file\n" << r.err;
        EXPECT_EQ(read_text(out), "an earlier result\n") << name << ": a failed write replaced the earlier file";
        EXPECT_EQ(files_named(h.path(""), ".tmp"), 0) << "a temporary was left behind";
    }
    // Without the limit the same run writes the whole file.
    const test::ChildRun whole = h.run({"-q", "-b", "cpu", "--traceback", h.path("out.sam")});
    ASSERT_EQ(whole.exit_code, 0) << whole.err;
    EXPECT_GT(read_text(h.path("out.sam")).size(), 20000u);
}

TEST(HostileFiles, AStage1RecordThatLiesIsRefusedByTheTraceback) {
    test::ResumeHarness h(3000, 3000, test::seed());
    const std::string dir = h.path("rows"), record = dir + "/stage1.json", out = h.path("out.paf");
    const test::ChildRun stage1 = h.run({"-q", "-b", "cpu", "--traceback-dir", dir});
    ASSERT_EQ(stage1.exit_code, 0) << stage1.err;
    const nlohmann::json truth = nlohmann::json::parse(read_text(record));
    const int32_t score = truth.at("result").at("score").get<int32_t>();
    ASSERT_GT(score, 100);
    // Score 0 at the real end cell (an empty alignment, before), one more, one less, far less.
    for (const int32_t lie : {0, score + 1, score - 1, score / 2}) {
        nlohmann::json forged = truth;
        forged["result"]["score"] = lie;
        write_text(record, forged.dump(1));
        ASSERT_EQ(nlohmann::json::parse(read_text(record)).at("result").at("score"), lie);
        const test::ChildRun r = h.run_command({"traceback", dir, "-q", "-b", "cpu", "--traceback", out});
        EXPECT_EQ(r.exit_code, 1) << "score " << lie << " for " << score << "\n" << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_FALSE(file_exists(out)) << "an alignment was written for a forged score " << lie;
    }
    // Numbers of no field's type: a float beyond any integer (undefined behaviour in
    // nlohmann's conversion before) and an integer beyond the score's 32 bits.
    for (const nlohmann::json& lie : {nlohmann::json(1e30), nlohmann::json(int64_t{1} << 40), nlohmann::json(2.5)}) {
        nlohmann::json forged = truth;
        forged["result"]["score"] = lie;
        write_text(record, forged.dump(1));
        const test::ChildRun r = h.run_command({"traceback", dir, "-q", "-b", "cpu", "--traceback", out});
        EXPECT_EQ(r.exit_code, 1) << "score " << lie.dump() << "\n" << r.err;
        EXPECT_NE(r.err.find("not an integer"), std::string::npos) << r.err;
        EXPECT_FALSE(file_exists(out));
    }
    write_text(record, truth.dump(1));
    const test::ChildRun honest = h.run_command({"traceback", dir, "-q", "-b", "cpu", "--traceback", out});
    EXPECT_EQ(honest.exit_code, 0) << honest.err;
    EXPECT_TRUE(file_exists(out));
}

TEST(HostileFiles, ATracebackDirOfAnotherScoringIsNotTakenAsThisOnes) {
    // Rows of another substitution scoring (the same lengths, sequences and gap costs) in the
    // directory, with its stage 1 record and without it (a stage 1 stopped before its end):
    // the run with --match 2 keeps fewer rows of its own, and must not walk through the others.
    test::ResumeHarness h(12000, 12000, test::seed());
    const std::string fresh = h.path("fresh.paf");
    const test::ChildRun truth = h.run({"-q", "-b", "cpu", "--match", "2", "--traceback", fresh});
    ASSERT_EQ(truth.exit_code, 0) << truth.err;
    for (const bool with_record : {true, false}) {
        const std::string dir = h.path(with_record ? "with" : "without"), out = h.path("out.paf");
        const test::ChildRun other = h.run({"-q", "-b", "cpu", "--traceback-dir", dir});
        ASSERT_EQ(other.exit_code, 0) << other.err;
        if (!with_record) std::remove((dir + "/stage1.json").c_str());
        const test::ChildRun r = h.run({"-q", "-b", "cpu", "--match", "2", "--traceback-disk", "200K",
                                        "--traceback-dir", dir, "--traceback", out});
        ASSERT_EQ(r.exit_code, 0) << (with_record ? "with" : "without") << " the record\n" << r.err;
        EXPECT_EQ(test::ResumeHarness::parse_tsv(r.out), test::ResumeHarness::parse_tsv(truth.out));
        EXPECT_EQ(read_text(out), read_text(fresh)) << "the alignments differ";
    }
}

TEST(HostileFiles, ADamagedRecordExitsOneAndAMissingParentIsRefused) {
    test::ResumeHarness h(3000, 3000, test::seed());
    const std::string dir = h.path("rows");
    const test::ChildRun stage1 = h.run({"-q", "-b", "cpu", "--traceback-dir", dir});
    ASSERT_EQ(stage1.exit_code, 0) << stage1.err;
    // A damaged record is an error of the file (1), not of the command line (2).
    for (const char* name : {"stage1.json", "job.json"}) {
        const std::string record = dir + "/" + name, kept = read_text(record);
        write_text(record, kept.substr(0, kept.size() / 2));
        const test::ChildRun r = h.run_command({"traceback", dir, "-q", "-b", "cpu", "--traceback", h.path("out.paf")});
        EXPECT_EQ(r.exit_code, 1) << name << "\n" << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_NE(r.err.find(name), std::string::npos) << r.err;
        write_text(record, kept);
    }
    // --traceback-dir makes DIR, not its parents.
    const std::string deep = h.path("no/such/parent/rows");
    const test::ChildRun missing = h.run({"-q", "-b", "cpu", "--traceback-dir", deep});
    EXPECT_EQ(missing.exit_code, 1) << missing.err;
    EXPECT_NE(missing.err.find("no directory"), std::string::npos) << missing.err;
    EXPECT_FALSE(file_exists(h.path("no"))) << "a parent was made";
}

/// The special rows (.srow) under dir, found by `find`.
std::vector<std::string> special_rows_under(const std::string& dir) {
    bool ok = false;
    std::vector<std::string> out;
    for (const std::string& line : test::split(test::command_output("find '" + dir + "' -name '*.srow'", ok), '\n'))
        if (!line.empty()) out.push_back(line);
    return out;
}

/// Overwrites `size` bytes of `path` at `offset` with `bytes`.
void patch(const std::string& path, int64_t offset, const void* bytes, size_t size) {
    std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(offset);
    f.write(static_cast<const char*>(bytes), static_cast<std::streamsize>(size));
    ASSERT_TRUE(f.good()) << path;
}

TEST(HostileFiles, ForgedSpecialRowValuesAreNotUsed) {
    // Only a row's header has a CRC. Its block bounds and peaks (read at once) must be values
    // stage 1 could write, or the piece is left out and the traceback does without it (INT64_MAX
    // overflowed TracebackTerms::bound before); its H (read where the walk needs it) must be
    // too, or the run stops naming the file.
    test::ResumeHarness h(12000, 12000, test::seed());
    const std::string dir = h.path("rows"), kept = h.path("kept"), out = h.path("out.paf");
    const test::ChildRun truth = h.run({"-q", "-b", "cpu", "--traceback", h.path("fresh.paf")});
    ASSERT_EQ(truth.exit_code, 0) << truth.err;
    ASSERT_EQ(h.run({"-q", "-b", "cpu", "--traceback-dir", dir}).exit_code, 0);
    const std::vector<std::string> rows = special_rows_under(dir);
    ASSERT_GE(rows.size(), 4u) << "no special rows to forge";
    bool ok = false;
    test::command_output("cp -r '" + dir + "' '" + kept + "'", ok);
    const auto reset = [&] { test::command_output("rm -rf '" + dir + "' && cp -r '" + kept + "' '" + dir + "'", ok); };
    constexpr int64_t kHeader = 96, kBlocks = 3;  // 12000 columns: 3 blocks of 4096
    const int64_t bound_max = INT64_MAX, bound_min = INT64_MIN + 1;
    const int32_t peak_max = INT32_MAX, negative = -1;
    struct Forgery {
        const char* what;
        int64_t offset;
        const void* value;
        size_t size;
    };
    for (const Forgery& f : {Forgery{"a block bound of INT64_MAX", kHeader, &bound_max, 8},
                             Forgery{"a block bound of INT64_MIN + 1", kHeader + 8, &bound_min, 8},
                             Forgery{"a peak of INT32_MAX", kHeader + 8 * kBlocks, &peak_max, 4},
                             Forgery{"a negative region peak", kHeader + 12 * kBlocks + 4, &negative, 4}}) {
        reset();
        for (const std::string& row : rows) patch(row, f.offset, f.value, f.size);
        const test::ChildRun r = h.run_command({"traceback", dir, "-q", "-b", "cpu", "--traceback", out});
        ASSERT_EQ(r.exit_code, 0) << f.what << "\n" << r.err;
        EXPECT_EQ(read_text(out), read_text(h.path("fresh.paf"))) << f.what;
    }
    reset();
    for (const std::string& row : rows)
        for (int64_t c = 0; c < 12000; c += 97) patch(row, kHeader + 16 * kBlocks + 4 * c, &peak_max, 4);
    std::remove(out.c_str());
    const test::ChildRun r = h.run_command({"traceback", dir, "-q", "-b", "cpu", "--traceback", out});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(".srow: special row"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("is damaged"), std::string::npos) << r.err;
    EXPECT_FALSE(file_exists(out));
}

TEST(HostileFiles, ARefusedCheckpointSaysSoOnce) {
    // The file offer() could not use was also warned of as "not used", a second line saying
    // the same before the error's. With -q the error is the only line; without, the notes
    // may come before it, but the problem is stated once.
    test::ResumeHarness h(3000, 3000, test::seed());
    const std::string ck = h.path("run.ckpt");
    write_text(ck, "not a checkpoint at all\n");
    for (const bool quiet : {true, false}) {
        std::vector<std::string> args = {"-b", "cpu", "--no-stack", "--checkpoint", ck};  // stacks keep none
        if (quiet) args.insert(args.begin(), "-q");
        const test::ChildRun r = h.run(args);
        EXPECT_EQ(r.exit_code, 1) << r.err;
        if (quiet) {
            EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        }
        size_t said = 0;
        for (size_t at = r.err.find("bad magic"); at != std::string::npos; at = r.err.find("bad magic", at + 1)) ++said;
        EXPECT_EQ(said, 1u) << r.err;
        EXPECT_NE(r.err.find("--restart"), std::string::npos) << r.err;
        EXPECT_EQ(read_text(ck), "not a checkpoint at all\n") << "a refused checkpoint is left untouched";
    }
}

TEST(HostileFiles, AHugeRecordNameIsNotEchoedInFull) {
    test::ResumeHarness h(3000, 3000, test::seed());
    write_text(h.path("long.fa"), ">" + std::string(500000, 'N') + "\n>b\nACGT\n");  // an empty first record
    for (const std::vector<std::string>& extra : {std::vector<std::string>{}, {"--s0-record", std::string(100000, 'Q')}}) {
        std::vector<std::string> args = {"-q", "-b", "cpu"};
        args.insert(args.end(), extra.begin(), extra.end());
        args.insert(args.end(), {h.path("long.fa"), h.path("b.fa")});
        const test::ChildRun r = h.run_command(args);
        EXPECT_EQ(r.exit_code, 1) << r.err.substr(0, 300);
        EXPECT_LT(r.err.size(), 1000u) << r.err.substr(0, 300);
        EXPECT_NE(r.err.find("bytes)"), std::string::npos) << r.err.substr(0, 300);
    }
}

TEST(HostileFiles, RunningOutOfMemoryInAGzipInputIsNotCalledCorrupt) {
#if defined(__SANITIZE_ADDRESS__)
    GTEST_SKIP() << "ASan's runtime must come first; a preloaded allocator cannot";
#endif
    // Large enough that inflate keeps a window: a small file decompresses in one call without.
    test::ResumeHarness h(200000, 3000, test::seed());
    const std::string gz = h.path("a.fa.gz");
    ASSERT_EQ(std::system(("gzip -c '" + h.path("a.fa") + "' > '" + gz + "'").c_str()), 0);
    const std::vector<std::string> args = {"-q", "-b", "cpu", "--strand", "forward", gz, h.path("b.fa")};
    h.set_launcher({"env", std::string("LD_PRELOAD=") + CHROMALIGN_FAIL_ZLIB_ALLOC});
    const test::ChildRun starved = h.run_command(args);
    EXPECT_EQ(starved.exit_code, 1) << starved.err;
    EXPECT_NE(starved.err.find(gz), std::string::npos) << "the message names the file\n" << starved.err;
    EXPECT_NE(starved.err.find("out of memory while decompressing"), std::string::npos) << starved.err;
    EXPECT_EQ(starved.err.find("corrupt"), std::string::npos) << "a sound file is blamed\n" << starved.err;
    // The same file read with memory to spare is sound.
    h.set_launcher({});
    const test::ChildRun fed = h.run_command(args);
    EXPECT_EQ(fed.exit_code, 0) << fed.err;
}

}  // namespace
}  // namespace chromalign
