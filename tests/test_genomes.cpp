//! @file Genomes through the CLI: many records on both strands, pairs files, the reverse strand
//! against a reverse-complemented file, one SAM that samtools reads, PAF as minimap2 writes it,
//! and bad multi-record input.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "engine/job/strand.hpp"
#include "io/fasta.hpp"
#include "kernels/reference/reference.hpp"
#include "tests/resume_harness.hpp"
#include "tests/test_support.hpp"
#include "tools/mutate.hpp"

namespace chromalign {
namespace {

using test::sam_records;
using test::split;
using test::write_records;

/// A pair's answer over both strands as the CLI reports it: positions in the records, S1's on
/// its forward strand, and the forward strand wins a tie.
struct Want {
    int32_t score = 0;
    int64_t s0_end = 0, s1_end = 0;
    char strand = '+';
};

Want both_strands(const Sequence& s0, const Sequence& s1, const Scoring& scoring) {
    const AlignmentEnd f = reference_align(s0, s1, scoring);
    const AlignmentEnd r = reference_align(s0, reverse_complement(s1), scoring);
    if (r.score > f.score) return {r.score, r.s0_end, r.s1_end > 0 ? s1.length() - r.s1_end + 1 : 0, '-'};
    return {f.score, f.s0_end, f.s1_end, '+'};
}

/// Three S0 records against two S1 records, one of each related pair deposited on the other strand.
class Genomes : public ::testing::Test {
protected:
    void SetUp() override {
        harness_ = std::make_unique<test::ResumeHarness>(10, 10, test::seed());
        std::mt19937_64 rng(test::seed() + 601);
        for (int k = 0; k < 3; ++k) {
            auto [a, b] = test::mutated_pair(1500 + 300 * k, 1800, rng);
            a.name = "query" + std::to_string(k);
            b.name = "chr" + std::to_string(k);
            s0_.push_back(a);
            if (k < 2) s1_.push_back(k == 1 ? reverse_complement(b) : b);  // query2 has no partner
        }
        write_records(path("s0.fa"), s0_);
        write_records(path("s1.fa"), s1_);
    }

    std::string path(const std::string& name) const { return harness_->path(name); }

    test::ChildRun run(std::vector<std::string> args, bool with_files = true) const {
        if (with_files) {
            args.push_back(path("s0.fa"));
            args.push_back(path("s1.fa"));
        }
        return harness_->run_command(args);
    }

    std::unique_ptr<test::ResumeHarness> harness_;
    std::vector<Sequence> s0_, s1_;
};

TEST_F(Genomes, EveryRecordPairOnBothStrandsBestFirst) {
    for (const char* backend : {"cpu", "reference"}) {
        const test::ChildRun r = run({"-q", "-b", backend, "-f", "json"});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        const nlohmann::json j = nlohmann::json::parse(r.out);
        ASSERT_EQ(j.at("pairs").size(), 6u) << r.out;
        std::map<std::string, Want> want;
        for (const Sequence& a : s0_)
            for (const Sequence& b : s1_) want[a.name + " " + b.name] = both_strands(a, b, Scoring{});
        int reverse = 0;
        for (size_t k = 0; k < 6; ++k) {
            const auto& p = j["pairs"][k];
            const Want& w = want.at(p.at("s0_name").get<std::string>() + " " + p.at("s1_name").get<std::string>());
            EXPECT_EQ(p.at("score"), w.score) << backend << "\n" << p;
            EXPECT_EQ(p.at("s0_end"), w.s0_end) << backend << "\n" << p;
            EXPECT_EQ(p.at("s1_end"), w.s1_end) << backend << "\n" << p;
            EXPECT_EQ(p.at("strand"), std::string(1, w.strand)) << backend << "\n" << p;
            if (k > 0) {
                EXPECT_GE(j["pairs"][k - 1].at("score"), p.at("score")) << "best first";
            }
            reverse += w.strand == '-' && w.score > 1000;
        }
        EXPECT_GE(reverse, 1) << "chr1 holds query1 on the other strand";
        EXPECT_EQ(j.at("score"), j["pairs"][0].at("score"));
    }
}

TEST_F(Genomes, TheReverseStrandIsAForwardRunOnTheReverseComplement) {
    std::vector<Sequence> rc;
    for (const Sequence& s : s1_) rc.push_back(reverse_complement(s));
    write_records(path("rc.fa"), rc);
    const test::ChildRun reverse = run({"-q", "-b", "cpu", "-f", "tsv", "--strand", "reverse"});
    const test::ChildRun forward =
        run({"-q", "-b", "cpu", "-f", "tsv", "--strand", "forward", path("s0.fa"), path("rc.fa")}, false);
    ASSERT_EQ(reverse.exit_code, 0) << reverse.err;
    ASSERT_EQ(forward.exit_code, 0) << forward.err;
    const auto lines_r = split(reverse.out, '\n'), lines_f = split(forward.out, '\n');
    ASSERT_EQ(lines_r.size(), 7u) << reverse.out;
    ASSERT_EQ(lines_f.size(), 7u) << forward.out;
    const auto head = split(lines_r[0], '\t');
    const size_t strand = static_cast<size_t>(std::find(head.begin(), head.end(), "strand") - head.begin());
    for (size_t k = 1; k < 7; ++k) {
        const auto r = split(lines_r[k], '\t'), f = split(lines_f[k], '\t');
        EXPECT_EQ(r[0], f[0]) << "score";
        EXPECT_EQ(r[1], f[1]) << "s0_end";
        EXPECT_EQ(r[3], f[3]);
        EXPECT_EQ(r[4], f[4]);
        // The reverse run gives S1's forward position of the end: n - j + 1 of the reverse complement's j.
        const int64_t n = std::stoll(f[6]), j = std::stoll(f[2]);
        EXPECT_EQ(std::stoll(r[2]), j > 0 ? n - j + 1 : 0) << lines_r[k] << "\n" << lines_f[k];
        EXPECT_EQ(r.at(strand), "-");
        EXPECT_EQ(f.at(strand), "+");
    }
}

TEST_F(Genomes, PairsFileAndRepeatedRecordOptionsChooseThePairs) {
    std::ofstream(path("pairs.tsv")) << "# S0\tS1\nquery2\tchr0\nquery0:101-900\tchr1\n";
    const test::ChildRun listed = run({"-q", "-b", "cpu", "-f", "json", "--pairs", path("pairs.tsv")});
    ASSERT_EQ(listed.exit_code, 0) << listed.err;
    const nlohmann::json j = nlohmann::json::parse(listed.out);
    ASSERT_EQ(j.at("pairs").size(), 2u);
    std::vector<std::string> names;
    for (const auto& p : j["pairs"]) names.push_back(p.at("s0_name").get<std::string>() + " " + p.at("s1_name").get<std::string>());
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"query0 chr1", "query2 chr0"}));
    for (const auto& p : j["pairs"])
        if (p.at("s0_name") == "query0") {
            EXPECT_EQ(p.at("s0_region"), "101-900") << p;
        }

    std::ofstream(path("names.txt")) << "query1\n\n# and the last\nquery2\n";
    const test::ChildRun named =
        run({"-q", "-b", "cpu", "-f", "tsv", "--s0-record", path("names.txt"), "--s1-record", "chr1"});
    ASSERT_EQ(named.exit_code, 0) << named.err;
    EXPECT_EQ(split(named.out, '\n').size(), 3u) << named.out;
    // A value that names a file is read as one: a note says so (a record might bear that name).
    const test::ChildRun noted = run({"-b", "cpu", "-f", "tsv", "--s0-record", path("names.txt"), "--s1-record", "chr1"});
    ASSERT_EQ(noted.exit_code, 0) << noted.err;
    EXPECT_NE(noted.err.find("note: --s0-record " + path("names.txt") + ": the file of that name, read as a list of 2 "
                             "record(s)"),
              std::string::npos)
        << noted.err;
    const test::ChildRun twice =
        run({"-q", "-b", "cpu", "-f", "tsv", "--s0-record", "query0", "--s0-record", "query2"});
    ASSERT_EQ(twice.exit_code, 0) << twice.err;
    EXPECT_EQ(split(twice.out, '\n').size(), 5u) << twice.out;
    const test::ChildRun both = run({"-q", "--pairs", path("pairs.tsv"), "--s0-record", "query0"});
    EXPECT_EQ(both.exit_code, 2) << both.err;
}

TEST_F(Genomes, PairsMappedComparesOnlyThePairsMinimap2Links) {
    // query0 lies on chr0's forward strand, query1 on chr1's reverse one; query2 nowhere.
    const test::ChildRun r = run({"-b", "cpu", "-f", "json", "--pairs", "mapped"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("--pairs mapped: 2 of 6 record pairs are linked"), std::string::npos) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j.at("pairs").size(), 2u) << r.out;
    std::map<std::string, std::string> strand;
    for (const auto& p : j["pairs"])
        strand[p.at("s0_name").get<std::string>() + " " + p.at("s1_name").get<std::string>()] = p.at("strand");
    EXPECT_EQ(strand, (std::map<std::string, std::string>{{"query0 chr0", "+"}, {"query1 chr1", "-"}}));
    // Unrelated records: nothing to compare is an error, not an empty answer.
    std::mt19937_64 rng(test::seed() + 602);
    write_records(path("other.fa"), {make_sequence("other", gen::random_dna(3000, rng))});
    const test::ChildRun none = run({"-q", "-b", "cpu", "--pairs", "mapped", path("s0.fa"), path("other.fa")}, false);
    EXPECT_EQ(none.exit_code, 1) << none.err;
    EXPECT_NE(none.err.find("links no record"), std::string::npos) << none.err;
}

TEST_F(Genomes, OneSamOfEveryPairThatSamtoolsReads) {
    if (!test::have_tool("samtools")) GTEST_SKIP() << "samtools is not installed";
    const test::ChildRun r = run({"-q", "-b", "cpu", "-f", "json", "--traceback", path("all.sam")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    bool ok = false;
    const std::string header = test::command_output("samtools view -H " + path("all.sam"), ok);
    ASSERT_TRUE(ok) << header;
    EXPECT_NE(header.find("@SQ\tSN:chr0\tLN:" + std::to_string(s1_[0].length())), std::string::npos) << header;
    EXPECT_NE(header.find("@SQ\tSN:chr1\tLN:" + std::to_string(s1_[1].length())), std::string::npos) << header;
    const std::string body = test::command_output("samtools view " + path("all.sam"), ok);
    ASSERT_TRUE(ok);
    std::map<std::string, int> primary;
    int records = 0, reverse = 0;
    for (const std::string& line : split(body, '\n')) {
        const auto f = split(line, '\t');
        const int flag = std::stoi(f[1]);
        ++records;
        if (!(flag & 0x900)) ++primary[f[0]];
        reverse += (flag & 16) != 0;
    }
    EXPECT_EQ(records, 6);
    EXPECT_GE(reverse, 1);
    for (const Sequence& s : s0_) EXPECT_EQ(primary[s.name], 1) << "one primary line per query: " << s.name;
    const std::string flagstat = test::command_output("samtools flagstat " + path("all.sam"), ok);
    ASSERT_TRUE(ok) << flagstat;
    EXPECT_NE(flagstat.find("3 + 0 primary"), std::string::npos) << flagstat;
    // calmd recomputes NM from S1: it must find ours on every line.
    const std::string calmd =
        test::command_output("samtools calmd " + path("all.sam") + " " + path("s1.fa") + " 2>/dev/null", ok);
    ASSERT_TRUE(ok);
    for (const std::string& line : split(calmd, '\n')) {
        if (line.empty() || line[0] == '@') continue;
        EXPECT_NE(line.find("\tMD:Z:"), std::string::npos) << line;
    }
    const std::string ours = test::command_output("samtools view " + path("all.sam") + " | grep -o 'NM:i:[0-9]*'", ok);
    const std::string theirs = test::command_output("samtools calmd " + path("all.sam") + " " + path("s1.fa") +
                                                  " 2>/dev/null | grep -v '^@' | grep -o 'NM:i:[0-9]*'",
                                              ok);
    EXPECT_EQ(ours, theirs);
    // --min-score leaves the weak pairs out.
    const int32_t strong = nlohmann::json::parse(r.out)["pairs"][1].at("score").get<int32_t>();
    const test::ChildRun some =
        run({"-q", "-b", "cpu", "--traceback", path("some.sam"), "--min-score", std::to_string(strong)});
    ASSERT_EQ(some.exit_code, 0) << some.err;
    EXPECT_EQ(split(test::command_output("samtools view " + path("some.sam"), ok), '\n').size(), 2u);
}

TEST_F(Genomes, PafStrandsAndCoordinatesAreMinimap2s) {
    if (!test::have_tool("minimap2")) GTEST_SKIP() << "minimap2 is not installed";
    // One query, deposited on the other strand of a longer reference. Both have flanks of
    // unequal lengths, so coordinates taken on the wrong strand would be hundreds off. The copy
    // has 100 exact bases at each end: with +1/-3 a local alignment may drop a mutated end that
    // minimap2's scoring keeps (seed 10263672636200267679 dropped 70), but not an exact one.
    std::mt19937_64 rng(test::seed() + 602);
    const std::string source = gen::random_dna(12000, rng);
    const Sequence core = make_sequence("core", source);
    const Sequence copy = make_sequence("copy", gen::mutate(source, gen::MutationSpec{}, rng));  // all of it
    const auto [head, tail] = test::random_pair(100, 100, rng);
    const auto [query_left, query_right] = test::random_pair(700, 200, rng);
    const auto [left, right] = test::random_pair(3000, 2500, rng);
    const auto join = [](std::initializer_list<const Sequence*> parts, const char* name) {
        Sequence s;
        for (const Sequence* p : parts) s.codes.insert(s.codes.end(), p->codes.begin(), p->codes.end());
        s.name = name;
        return s;
    };
    const Sequence query = join({&query_left, &head, &core, &tail, &query_right}, "query");
    const Sequence rc_copy = reverse_complement(join({&head, &copy, &tail}, "copy"));
    const Sequence ref = join({&left, &rc_copy, &right}, "ref");
    write_records(path("ref.fa"), {ref});
    write_records(path("query.fa"), {query});
    const test::ChildRun r = run({"-q", "-b", "cpu", "--traceback", path("q.paf"), path("query.fa"), path("ref.fa")}, false);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::ifstream in(path("q.paf"));
    std::string ours;
    ASSERT_TRUE(std::getline(in, ours));
    bool ok = false;
    const std::string theirs =
        test::command_output("minimap2 -c --eqx " + path("ref.fa") + " " + path("query.fa") + " 2>/dev/null | head -1", ok);
    ASSERT_TRUE(ok && !theirs.empty()) << theirs;
    const auto a = split(ours, '\t'), b = split(theirs, '\t');
    EXPECT_EQ(a[4], "-");
    EXPECT_EQ(b[4], "-");
    EXPECT_EQ(a[5], b[5]);
    EXPECT_EQ(a[6], b[6]);
    // Query and target intervals, both on their forward strands. The alignment may run a few
    // bases into the random flanks where they happen to match.
    const int64_t copy_length = 200 + static_cast<int64_t>(copy.length());
    const std::map<int, int64_t> truth = {{2, 700}, {3, 700 + 200 + static_cast<int64_t>(core.length())},
                                          {7, 3000}, {8, 3000 + copy_length}};
    for (const auto& [field, expected] : truth) {
        EXPECT_LE(std::abs(std::stoll(a[field]) - expected), 20) << "ours, field " << field << "\n" << ours;
        EXPECT_LE(std::abs(std::stoll(b[field]) - expected), 20) << "minimap2's, field " << field << "\n" << theirs;
    }
    std::printf("[ minimap2 ] ours   %s\n[ minimap2 ] theirs %s\n", a[8].c_str(), b[8].c_str());
}

TEST_F(Genomes, ATracebackLaterGivesEveryPairsAlignmentOnItsStrand) {
    for (const char* stack : {"--no-stack", ""}) {  // rows kept per comparison, or stacks without rows
        std::vector<std::string> extra = {"-q", "-b", "cpu"};
        if (*stack) extra.push_back(stack);
        const std::string dir = path(std::string("rows") + stack);
        std::vector<std::string> stage1 = extra, direct = extra;
        stage1.insert(stage1.end(), {"--traceback-dir", dir});
        direct.insert(direct.end(), {"--traceback", path("direct.sam")});
        ASSERT_EQ(run(stage1).exit_code, 0);
        ASSERT_EQ(run(direct).exit_code, 0);
        EXPECT_TRUE(std::ifstream(dir + "/job.json").good());
        EXPECT_TRUE(std::ifstream(dir + "/pair6.reverse/stage1.json").good()) << "every comparison's record";
        const test::ChildRun later =
            run({"traceback", dir, "-q", "-b", "cpu", "--traceback", path("later.sam")}, false);
        ASSERT_EQ(later.exit_code, 0) << later.err;
        const std::string records = sam_records(path("later.sam"));
        EXPECT_EQ(records, sam_records(path("direct.sam"))) << stack;
        EXPECT_NE(records.find("\t16\t"), std::string::npos) << "a reverse-strand record";
    }
}

TEST_F(Genomes, BadRecordsAreOneLineNamingFileRecordAndLine) {
    std::ofstream(path("dup.fa")) << ">a\nACGT\n>b\nACGT\n>a\nACGT\n";
    std::ofstream(path("hole.fa")) << ">a\nACGT\n>b\n>c\nACGT\n";
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{path("dup.fa"), path("s1.fa")}, "record 'a' at line 5 has the name of the record at line 1"},
        {{path("hole.fa"), path("s1.fa")}, "record 'b', line 3: empty sequence"},
        {{"--s1-record", "chr9", path("s0.fa"), path("s1.fa")}, "no record named 'chr9'"},
    };
    for (const auto& [args, message] : cases) {
        std::vector<std::string> all = {"-q", "-b", "cpu"};
        all.insert(all.end(), args.begin(), args.end());
        const test::ChildRun r = run(all, false);
        EXPECT_EQ(r.exit_code, 1) << r.err;
        EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
}

}  // namespace
}  // namespace chromalign
