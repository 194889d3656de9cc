//! @file `--alignments K` through the CLI: the K best alignments of a pair over both strands,
//! as the Waterman-Eggert oracle gives them strand by strand, merged; written as SAM (the best
//! primary, the others secondary, HI:i:rank) and PAF (tp:A:P or S, HI:i:rank), and listed in
//! the report with the share of each sequence they cover.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "engine/declump/pair_alignments.hpp"
#include "engine/job/strand.hpp"
#include "io/genome_plot.hpp"
#include "kernels/reference/waterman_eggert.hpp"
#include "kernels/registry.hpp"
#include "tests/resume_harness.hpp"
#include "tests/test_support.hpp"
#include "tools/mutate.hpp"

namespace chromalign {
namespace {

std::string reverse_complement_text(std::string text) {
    std::reverse(text.begin(), text.end());
    for (char& c : text) c = c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : c == 'T' ? 'A' : c;
    return text;
}

std::string mutated(std::string text, int changes, std::mt19937_64& rng) {
    for (int k = 0; k < changes; ++k) text[rng() % text.size()] = "ACGT"[rng() % 4];
    return text;
}

struct Expected {
    char strand;
    Alignment a;
};

TEST(AlignmentsCli, TheKBestOverBothStrandsAreTheOraclesMergedAndWrittenRanked) {
    const uint64_t seed = test::seed() + 91;
    std::mt19937_64 rng(seed);
    // S1 holds copies of two units, some reverse-complemented, among random bases; on the
    // reverse strand a copy of U and one of V lie in the query's order and align as one.
    const std::string u = gen::random_dna(400, rng), v = gen::random_dna(250, rng);
    const std::string query = gen::random_dna(100, rng) + u + gen::random_dna(80, rng) + v + gen::random_dna(60, rng);
    const std::string target = gen::random_dna(300, rng) + mutated(u, 12, rng) + gen::random_dna(200, rng) +
                               reverse_complement_text(mutated(v, 3, rng)) + gen::random_dna(150, rng) +
                               reverse_complement_text(mutated(u, 30, rng)) + gen::random_dna(90, rng) + mutated(v, 20, rng) +
                               gen::random_dna(120, rng);
    test::ResumeHarness h(10, 10, seed);
    test::write_text(h.path("q.fa"), ">q\n" + query + "\n");
    test::write_text(h.path("t.fa"), ">t\n" + target + "\n");
    const int kCount = 8, kMinScore = 40;
    const Scoring scoring(1, -3, 5, 2);
    const Sequence s0 = make_sequence("q", query), s1 = make_sequence("t", target);
    std::vector<Expected> want;
    for (const Alignment& a : reference_alignments(s0, s1, scoring, kCount, kMinScore)) want.push_back({'+', a});
    for (const Alignment& a : reference_alignments(s0, reverse_complement(s1), scoring, kCount, kMinScore))
        want.push_back({'-', a});
    std::stable_sort(want.begin(), want.end(), [](const Expected& a, const Expected& b) { return a.a.score > b.a.score; });
    want.resize(std::min<size_t>(want.size(), kCount));
    std::string listed;
    for (const Expected& e : want)
        listed += std::string(1, e.strand) + " " + std::to_string(e.a.score) + " " + std::to_string(e.a.s0_start) + "-" +
                  std::to_string(e.a.s0_end) + " x " + std::to_string(e.a.s1_start) + "-" + std::to_string(e.a.s1_end) + "\n";
    ASSERT_GE(want.size(), 3u) << "copies on both strands (seed " << seed << ")\n" << listed;

    const test::ChildRun run = h.run_command({"-q", "-b", "cpu", "-f", "json", "--alignments", std::to_string(kCount),
                                              "--min-score", std::to_string(kMinScore), "--traceback", h.path("out.paf"),
                                              h.path("q.fa"), h.path("t.fa")});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const std::vector<std::string> lines = test::split(test::read_text(h.path("out.paf")), '\n');
    ASSERT_GE(lines.size(), want.size());
    const int64_t n = s1.length();
    for (size_t k = 0; k < want.size(); ++k) {
        const auto f = test::split(lines[k], '\t');
        ASSERT_EQ(f.size(), 17u) << lines[k];
        const Alignment& a = want[k].a;
        // PAF: S1's forward-strand coordinates, 0-based half-open.
        const int64_t s1_from = want[k].strand == '+' ? a.s1_start - 1 : n - a.s1_end;
        const int64_t s1_to = want[k].strand == '+' ? a.s1_end : n - a.s1_start + 1;
        EXPECT_EQ(f[2] + " " + f[3] + " " + f[4] + " " + f[7] + " " + f[8],
                  std::to_string(a.s0_start - 1) + " " + std::to_string(a.s0_end) + " " + want[k].strand + " " +
                      std::to_string(s1_from) + " " + std::to_string(s1_to))
            << "alignment " << k + 1 << ", seed " << seed;
        EXPECT_EQ(f[12], "AS:i:" + std::to_string(a.score)) << "alignment " << k + 1;
        EXPECT_EQ(f[15], std::string("tp:A:") + (k == 0 ? "P" : "S"));
        EXPECT_EQ(f[16], "HI:i:" + std::to_string(k + 1));
    }
    EXPECT_EQ(lines.size(), want.size() + (lines.back().empty() ? 1 : 0)) << "no alignment below --min-score";

    // The report lists them all, and what they cover.
    const nlohmann::json j = nlohmann::json::parse(run.out);
    ASSERT_EQ(j["alignments"].size(), want.size());
    for (size_t k = 0; k < want.size(); ++k) {
        EXPECT_EQ(j["alignments"][k]["rank"], k + 1);
        EXPECT_EQ(j["alignments"][k]["score"], want[k].a.score);
        EXPECT_EQ(j["alignments"][k]["strand"], std::string(1, want[k].strand));
    }
    EXPECT_GT(j["s0_covered_share"].get<double>(), 0.5);
    EXPECT_LE(j["s0_covered"].get<int64_t>(), s0.length());

    // SAM: one primary, the others secondary; samtools reads them all.
    if (!test::have_tool("samtools")) GTEST_SKIP() << "samtools not found";
    const test::ChildRun sam = h.run_command({"-q", "-b", "cpu", "--alignments", std::to_string(kCount), "--min-score",
                                              std::to_string(kMinScore), "--traceback", h.path("out.sam"), h.path("q.fa"),
                                              h.path("t.fa")});
    ASSERT_EQ(sam.exit_code, 0) << sam.err;
    bool ok = false;
    const std::string flags = test::command_output("samtools view " + h.path("out.sam") + " | cut -f2 | tr '\\n' ' '", ok);
    ASSERT_TRUE(ok);
    std::string expected_flags;
    for (size_t k = 0; k < want.size(); ++k)
        expected_flags += std::to_string((k ? 256 : 0) + (want[k].strand == '-' ? 16 : 0)) + " ";
    EXPECT_EQ(flags, expected_flags);
    const std::string ranks = test::command_output("samtools view " + h.path("out.sam") + " | grep -o 'HI:i:[0-9]*' | tr '\\n' ' '", ok);
    std::string expected_ranks;
    for (size_t k = 0; k < want.size(); ++k) expected_ranks += "HI:i:" + std::to_string(k + 1) + " ";
    EXPECT_EQ(ranks, expected_ranks);
}

TEST(AlignmentsCli, ASearchKilledMidWayIsTakenUpWithTheSameAlignments) {
    const uint64_t seed = test::seed() + 93;
    std::mt19937_64 rng(seed);
    test::ResumeHarness h(3000, 3000, seed);
    const std::vector<std::string> args = {"-q", "-b", "cpu", "--strand", "both", "--alignments", "12", "--min-score",
                                           "8", "--checkpoint", h.path("ck"), "--checkpoint-every", "0.05s",
                                           h.path("a.fa"), h.path("b.fa"), "--traceback"};
    auto with = [&](const std::string& out) {
        std::vector<std::string> a = args;
        a.push_back(h.path(out));
        return a;
    };
    std::vector<std::string> loud = with("whole.paf");
    loud.erase(loud.begin());  // without -q, to read its notes
    const test::ChildRun whole = h.run_command(loud);
    ASSERT_EQ(whole.exit_code, 0) << whole.err;
    ASSERT_GE(test::split(test::read_text(h.path("whole.paf")), '\n').size(), 8u) << "seed " << seed;
    // A checkpoint keeps no stage 1 first (its traceback would say from how many special rows).
    EXPECT_EQ(whole.err.find("special rows"), std::string::npos) << whole.err;
    // Killed (as kill -9) right after the third alignment this run finds is saved.
    setenv("CHROMALIGN_CRASH_SEARCH", "3", 1);
    const test::ChildRun killed = h.run_command(with("killed.paf"));
    unsetenv("CHROMALIGN_CRASH_SEARCH");
    ASSERT_EQ(killed.exit_code, 86) << killed.err;
    const std::string state = test::read_text(h.path("ck.job"));
    ASSERT_NE(state.find("\"searches\""), std::string::npos) << state;
    // A saved alignment that does not score its score is refused, the state left as it is.
    std::string forged = state;
    const size_t at = forged.rfind("\"score\": ");
    forged.insert(at + 9, "1");
    test::write_text(h.path("ck.job"), forged);
    const test::ChildRun refused = h.run_command(with("refused.paf"));
    EXPECT_EQ(refused.exit_code, 1) << refused.err;
    EXPECT_NE(refused.err.find("does not score its score"), std::string::npos) << refused.err;
    test::write_text(h.path("ck.job"), state);
    // Taken up: the same alignments, the same file.
    std::vector<std::string> noisy = with("resumed.paf");
    noisy.erase(noisy.begin());  // without -q, to read its notes
    const test::ChildRun resumed = h.run_command(noisy);
    ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
    EXPECT_NE(resumed.err.find("taking up the search for 12 alignments"), std::string::npos) << resumed.err;
    EXPECT_EQ(test::read_text(h.path("resumed.paf")), test::read_text(h.path("whole.paf")));
}

TEST(AlignmentsCli, AStrandOutrankedByTheOtherIsTakenUpAsEnded) {
    const uint64_t seed = test::seed() + 95;
    std::mt19937_64 rng(seed);
    // The query holds pieces of the target, longest first, on alternate strands, one change in
    // 100 bases: the two strands' alignments interleave, so each count takes more of both.
    const std::string target = gen::random_dna(6000, rng);
    std::string query;
    for (int k = 0; k < 12; ++k) {
        const std::string piece = mutated(target.substr(static_cast<size_t>(k) * 500, 400 - 20 * k), 4 - k / 4, rng);
        query += gen::random_dna(60, rng) + (k % 2 ? reverse_complement_text(piece) : piece);
    }
    test::ResumeHarness h(10, 10, seed);
    // Two S0 records of the same bases: the job's second pair repeats its first.
    test::write_text(h.path("two.fa"), ">q1\n" + query + "\n>q2\n" + query + "\n");
    test::write_text(h.path("t.fa"), ">t\n" + target + "\n");
    const auto args = [&](int count, const std::string& out) {
        return std::vector<std::string>{"-b", "cpu", "--strand", "both", "--alignments", std::to_string(count),
                                        "--min-score", "50", "--checkpoint", h.path("ck"), h.path("two.fa"),
                                        h.path("t.fa"), "--traceback", h.path(out)};
    };
    const auto reverse_of_q1 = [&](const std::string& paf) {
        int n = 0;
        for (const std::string& line : test::split(test::read_text(h.path(paf)), '\n')) {
            const std::vector<std::string> f = test::split(line, '\t');
            n += f.size() > 4 && f[0] == "q1" && f[4] == "-";
        }
        return n;
    };
    ASSERT_EQ(h.run_command(args(6, "six.paf")).exit_code, 0);
    ASSERT_EQ(h.run_command(args(9, "nine.paf")).exit_code, 0);
    const int reverse = reverse_of_q1("six.paf");
    ASSERT_GT(reverse_of_q1("nine.paf"), reverse) << "9 alignments take more of the reverse strand, seed " << seed;
    // Each strand's search ends with those of its alignments that rank, outranked by the
    // other's; killed (as kill -9) at the second pair's first alignment.
    setenv("CHROMALIGN_CRASH_SEARCH", "1@1", 1);
    const test::ChildRun killed = h.run_command(args(6, "killed.paf"));
    unsetenv("CHROMALIGN_CRASH_SEARCH");
    ASSERT_EQ(killed.exit_code, 86) << killed.err;
    const std::string state = test::read_text(h.path("ck.job"));
    const nlohmann::json parsed = nlohmann::json::parse(state);
    int saved = 0;
    for (const auto& s : parsed["searches"])
        if (s["pair"] == 0) {
            ++saved;
            EXPECT_TRUE(s["ended"].get<bool>() && s["outranked"].get<bool>()) << s.dump();
            EXPECT_EQ(s["found"].size(), static_cast<size_t>(s["strand"] == "reverse" ? reverse : 6 - reverse)) << s.dump();
        }
    ASSERT_EQ(saved, 2) << state;
    // Taken up on the same terms, the first pair is not searched again: no first pass.
    const test::ChildRun same = h.run_command(args(6, "same.paf"));
    ASSERT_EQ(same.exit_code, 0) << same.err;
    // The note names the pair's strands searched, not alignment 1's.
    const size_t note = same.err.find("q1 x t (both strands): 6 of 6 alignments sharing no pair found in");
    ASSERT_NE(note, std::string::npos) << same.err;
    EXPECT_EQ(same.err.find("a first pass of 0 cells", note), same.err.find("a first pass", note)) << same.err;
    EXPECT_EQ(test::read_text(h.path("same.paf")), test::read_text(h.path("six.paf")));
    // Taken up for more alignments, the outranked strand is searched on.
    test::write_text(h.path("ck.job"), state);
    const test::ChildRun more = h.run_command(args(9, "more.paf"));
    ASSERT_EQ(more.exit_code, 0) << more.err;
    EXPECT_EQ(test::read_text(h.path("more.paf")), test::read_text(h.path("nine.paf"))) << "seed " << seed;
}

TEST(AlignmentsCli, ThePlotDrawsEveryAlignmentOverBothGenomesWithAxesAndRecords) {
    const uint64_t seed = test::seed() + 94;
    std::mt19937_64 rng(seed);
    std::vector<std::string> u;
    for (int k = 0; k < 5; ++k) u.push_back(gen::random_dna(3000, rng));
    // S0: chrA = u0 u1, chrB = u2, plasmid = u3 u4; S1: one = u1 rc(u2), two = u0 rc(u4) u3.
    test::ResumeHarness h(10, 10, seed);
    test::write_text(h.path("g0.fa"), ">chrA\n" + u[0] + u[1] + "\n>chrB\n" + u[2] + "\n>plasmid\n" + u[3] + u[4] + "\n");
    test::write_text(h.path("g1.fa"), ">one\n" + mutated(u[1], 40, rng) + reverse_complement_text(mutated(u[2], 40, rng)) +
                                          "\n>two\n" + mutated(u[0], 40, rng) +
                                          reverse_complement_text(mutated(u[4], 40, rng)) + mutated(u[3], 40, rng) + "\n");
    const test::ChildRun run = h.run_command({"-q", "-b", "cpu", "--alignments", "10", "--min-score", "500", "--traceback",
                                              h.path("g.paf"), "--plot", h.path("g.svg"), h.path("g0.fa"), h.path("g1.fa")});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    std::vector<std::string> paf = test::split(test::read_text(h.path("g.paf")), '\n');
    paf.erase(std::remove(paf.begin(), paf.end(), std::string()), paf.end());
    ASSERT_EQ(paf.size(), 5u) << "five alignments, one per unit (seed " << seed << ")";
    const std::string svg = test::read_text(h.path("g.svg"));
    size_t lines = 0, reverse = 0;
    for (size_t at = svg.find("<polyline"); at != std::string::npos; at = svg.find("<polyline", at + 1)) {
        ++lines;
        reverse += svg.compare(svg.find("stroke=", at), 16, "stroke=\"#1f77b4\"") == 0;
    }
    EXPECT_EQ(lines, 5u);
    EXPECT_EQ(reverse, 2u) << "u2 and u4 lie on S1's reverse strand";
    for (const char* name : {"chrA", "chrB", "plasmid", "one", "two"})
        EXPECT_NE(svg.find(std::string(">") + name + "<"), std::string::npos) << name;
    EXPECT_NE(svg.find(">10 kbp<"), std::string::npos) << "ticks in kbp";
    EXPECT_NE(svg.find("stroke-dasharray"), std::string::npos) << "record boundaries";
    EXPECT_EQ(io::axis_label(0, 1e6), "0");
    EXPECT_EQ(io::axis_label(1.5e6, 5e5), "1500 kbp");
    EXPECT_EQ(io::axis_label(2.5e7, 5e6), "25 Mbp");
    EXPECT_EQ(io::axis_label(750, 250), "750 bp");
}

TEST(AlignmentsCli, AskingForNoneOrWithoutAnOutputIsAUsageError) {
    test::ResumeHarness h(100, 100, test::seed() + 92);
    EXPECT_EQ(h.run({"--alignments", "0", "--traceback", h.path("x.paf")}).exit_code, 2);
    const test::ChildRun missing = h.run({"--alignments", "3"});
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_NE(missing.err.find("--alignments needs --traceback"), std::string::npos) << missing.err;
}

TEST(AlignmentsCli, RegionsOfOneRecordAreOneReadAndOneReference) {
    // Two regions of S1's record t and two of S0's record q, and a second S1 record u: t was
    // listed twice as a reference (no alignment file, exit 1 after stage 1), q got a primary
    // line per region, and HI restarted at 1 with each pair. A tab in a file name made an @PG
    // line samtools refuses.
    const uint64_t seed = test::seed() + 93;
    std::mt19937_64 rng(seed);
    const std::string target = gen::random_dna(4000, rng), other = gen::random_dna(3000, rng);
    const std::string query = mutated(target.substr(500, 3000), 60, rng);
    test::ResumeHarness h(10, 10, seed);
    test::write_text(h.path("q\tx.fa"), ">q\n" + query + "\n");
    test::write_text(h.path("t.fa"), ">t\n" + target + "\n>u\n" + other + "\n");
    for (const char* format : {"sam", "paf"}) {
        const std::string out = h.path(std::string("out.") + format);
        const test::ChildRun run = h.run_command(
            {"-q", "-b", "cpu", "--alignments", "3", "--traceback", out, "--s0-record", "q:1-1500", "--s0-record",
             "q:1501-3000", "--s1-record", "t:1-2000", "--s1-record", "t:2001-4000", "--s1-record", "u",
             h.path("q\tx.fa"), h.path("t.fa")});
        ASSERT_EQ(run.exit_code, 0) << format << " (seed " << seed << ")\n" << run.err;
        int primaries = 0, references = 0;
        std::vector<int> ranks;
        for (const std::string& line : test::split(test::read_text(out), '\n')) {
            if (line.empty()) continue;
            const auto f = test::split(line, '\t');
            if (line.rfind("@SQ", 0) == 0) ++references;
            if (line[0] == '@') continue;
            const bool sam = std::string(format) == "sam";
            const bool secondary = sam ? (std::stoi(f.at(1)) & 0x100) != 0 : line.find("tp:A:S") != std::string::npos;
            primaries += secondary ? 0 : 1;
            const size_t hi = line.find("HI:i:");
            ASSERT_NE(hi, std::string::npos) << line;
            ranks.push_back(std::stoi(line.substr(hi + 5)));
        }
        if (std::string(format) == "sam") EXPECT_EQ(references, 2) << "t and u, once each";
        EXPECT_EQ(primaries, 1) << format << ": one primary line for read q";
        std::vector<int> want(ranks.size());
        for (size_t k = 0; k < want.size(); ++k) want[k] = static_cast<int>(k) + 1;
        EXPECT_EQ(ranks, want) << format << ": HI counts read q's lines";
        EXPECT_GE(ranks.size(), 4u) << format << ": q's regions against t's and u";
        if (std::string(format) == "sam" && test::have_tool("samtools")) {
            bool ok = false;
            const std::string view = test::command_output("samtools view -H '" + out + "' 2>&1", ok);
            EXPECT_TRUE(ok) << view;
            EXPECT_NE(view.find("q\\tx.fa"), std::string::npos) << "the tab escaped in @PG CL\n" << view;
        }
    }
}

/// t.fa, random bases of `length`, and q.fa, its [from, from + count) with `changes` bases drawn again.
void write_piece_of_target(test::ResumeHarness& h, std::mt19937_64& rng, size_t length, size_t from, size_t count,
                           int changes) {
    const std::string target = gen::random_dna(static_cast<int64_t>(length), rng);
    test::write_text(h.path("q.fa"), ">q\n" + mutated(target.substr(from, count), changes, rng) + "\n");
    test::write_text(h.path("t.fa"), ">t\n" + target + "\n");
}

// The plan of a search says what it does, not a time at stage 1's rate, and the first progress
// line, before any cell is computed, says no ETA rather than 0 s.
TEST(AlignmentsCli, ASearchsPlanAndFirstProgressPromiseNoTime) {
    const uint64_t seed = test::seed() + 97;
    std::mt19937_64 rng(seed);
    test::ResumeHarness h(10, 10, seed);
    write_piece_of_target(h, rng, 3000, 500, 1500, 15);
    const test::ChildRun run = h.run_command({"-b", "cpu", "--alignments", "4", "--traceback", h.path("out.paf"),
                                              h.path("q.fa"), h.path("t.fa")});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_NE(run.err.find("2 comparisons, 9e+06 cells; each comparison's cells once (the ETA's), then its search for 4 "
                           "alignments\n"),
              std::string::npos)
        << run.err;
    EXPECT_EQ(run.err.find("GCUPS (this backend"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("  0.0% done, comparison 1 of 2, 0.00 GCUPS, 0 s elapsed, ETA unknown yet, best so far 0\n"),
              std::string::npos)
        << run.err;
    EXPECT_EQ(run.err.find("ETA 0 s"), std::string::npos) << run.err;
}

// The search's tiles are those --alignments-memory allows, else (auto) of 3072, or a 64th of
// a shorter pair's longer sequence (at least 512), larger only where their edges would pass
// the backend's share of the host's memory; the report says so.
TEST(AlignmentsCli, TheSearchsTilesFitTheMemoryNamedElseAreOf3072OrAShare) {
    const uint64_t seed = test::seed() + 98;
    std::mt19937_64 rng(seed);
    test::ResumeHarness h(10, 10, seed);
    write_piece_of_target(h, rng, 12000, 1000, 9000, 90);
    const auto search = [&](const std::vector<std::string>& memory) {
        std::vector<std::string> args = {"-b", "cpu", "--alignments", "3", "--traceback", h.path("out.paf")};
        args.insert(args.end(), memory.begin(), memory.end());
        args.insert(args.end(), {h.path("q.fa"), h.path("t.fa")});
        return h.run_command(args);
    };
    // 12000 / 64 is under 512: both strands' edges in tiles of 512, 18 bands and 24 columns of
    // them, 8 bytes a value.
    const test::ChildRun automatic = search({});
    ASSERT_EQ(automatic.exit_code, 0) << automatic.err;
    char auto_note[64];
    std::snprintf(auto_note, sizeof auto_note, "(tiles of 512, %.3g GiB of edges)",
                  2 * 8 * (17.0 * 12001 + 23.0 * 9000) / (1 << 30));
    EXPECT_NE(automatic.err.find(auto_note), std::string::npos) << auto_note << "\n" << automatic.err;
    // 192 KiB, 96 a strand: a side of 16 x 9000 x 12000 / 98304 = 17578, rounded up to 512s;
    // one tile keeps no edges.
    const test::ChildRun named = search({"--alignments-memory", "192k"});  // either case, as samtools
    ASSERT_EQ(named.exit_code, 0) << named.err;
    EXPECT_NE(named.err.find("(tiles of 17920, 0 GiB of edges)"), std::string::npos) << named.err;
    // Auto's tiles grow where those of 3072 would pass the backend's share, the two strands
    // half of it each.
    const int64_t most = make_backend("cpu", BackendOptions{})->search_memory() / 2;
    EXPECT_EQ(auto_tiles(9000, 12000, most).tile_rows, 512);
    EXPECT_EQ(auto_tiles(9000, 12000, 98304).tile_rows, 17920);
    EXPECT_EQ(auto_tiles(20000, 50000, most).tile_rows, 1024);  // 50000 / 64 = 781
    EXPECT_EQ(auto_tiles(131072, 1000, most).tile_rows, 2048);
    EXPECT_EQ(auto_tiles(131136, 1000, most).tile_rows, 2560);  // 2049, in 512s
    EXPECT_EQ(auto_tiles(200000, 200000, most).tile_rows, 3072);
    EXPECT_EQ(auto_tiles(int64_t{1} << 30, int64_t{1} << 30, most).tile_rows,
              tiles_within(int64_t{1} << 30, int64_t{1} << 30, most).tile_rows);
    EXPECT_GT(tiles_within(int64_t{1} << 30, int64_t{1} << 30, most).tile_rows, 3072);
    const test::ChildRun none = search({"--alignments-memory", "0"});
    EXPECT_EQ(none.exit_code, 2);
    EXPECT_NE(none.err.find("--alignments-memory must be a size such as 8G or 500M, or auto (got '0')"),
              std::string::npos)
        << none.err;
}

}  // namespace
}  // namespace chromalign
