//! @file Runs over several MPI ranks through the CLI (mpirun --oversubscribe, CPU backend): the
//! same answers as one process, and kill -9 of the whole job then resume. Skipped when this
//! build has no MPI or the machine no mpirun.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "engine/checkpoint/checkpoint_file.hpp"
#include "engine/checkpoint/pieces.hpp"
#include "engine/job/strand.hpp"
#include "io/fasta.hpp"
#include "tests/resume_harness.hpp"
#include "tests/test_support.hpp"

namespace chromalign {
namespace {

bool mpi_ready() {
#ifdef CHROMALIGN_HAVE_MPI
    static const bool ready = std::system("mpirun --version > /dev/null 2>&1") == 0;
    return ready;
#else
    return false;
#endif
}

#define SKIP_WITHOUT_MPI() \
    if (!mpi_ready()) GTEST_SKIP() << "no MPI in this build, or no mpirun on the PATH"

std::vector<std::string> mpirun(int ranks) {
    // Containers and CI machines often run as root, which Open MPI refuses unless told.
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    return {"mpirun", "--oversubscribe", "--bind-to", "none", "-np", std::to_string(ranks)};
}

/// The share of cells pruned that a run's closing line reports ("..., 48.2% of cells pruned").
double pruned_percent(const std::string& err) {
    const size_t at = err.find("% of cells pruned");
    if (at == std::string::npos) return -1;
    const size_t start = err.rfind(' ', at);
    return std::stod(err.substr(start + 1, at - start - 1));
}

/// Writes the pair into the harness's a.fa and b.fa, then checks 2, 3 and 4 ranks of one slab,
/// and 2 ranks of 2 slabs each (slabs 0 and 2 on rank 0), with pruning, against one process
/// without; with `prunes`, the ranks must have skipped some cells.
void expect_ranks_agree(test::ResumeHarness& h, const Sequence& s0, const Sequence& s1, const std::string& what,
                        bool prunes = false) {
    io::write_fasta(h.path("a.fa"), s0);
    io::write_fasta(h.path("b.fa"), s1);
    h.set_launcher({});
    const test::ChildRun one = h.run({"-q", "-b", "cpu", "-t", "1", "--no-pruning"});
    ASSERT_EQ(one.exit_code, 0) << one.err;
    const AlignmentEnd want = test::ResumeHarness::parse_tsv(one.out);
    for (const auto& [ranks, slabs] : {std::pair<int, int>{2, 1}, {3, 1}, {4, 1}, {2, 2}}) {
        const std::string run = what + ", " + std::to_string(ranks) + " ranks of " + std::to_string(slabs) + " slabs";
        h.set_launcher(mpirun(ranks));
        const test::ChildRun r = h.run({"-b", "cpu", "-t", "1", "--slabs", std::to_string(slabs)});
        ASSERT_EQ(r.exit_code, 0) << run << ":\n" << r.err;
        EXPECT_EQ(test::ResumeHarness::parse_tsv(r.out), want) << run << ", seed " << test::seed();
        EXPECT_NE(r.out.find("rank 0 of " + std::to_string(ranks) + " (" + std::to_string(ranks * slabs) +
                             " column slabs"),
                  std::string::npos)
            << r.out;
        EXPECT_NE(r.err.find("pipeline"), std::string::npos) << r.err;
        if (prunes) {
            EXPECT_GT(pruned_percent(r.err), 0) << run << ":\n" << r.err;
        }
    }
}

TEST(MpiCli, RandomMutatedAndRealPairsMatchOneProcess) {
    SKIP_WITHOUT_MPI();
    std::mt19937_64 rng(test::seed());
    test::ResumeHarness h(1, 1, test::seed());
    {
        auto [s0, s1] = test::random_pair(3000, 2500, rng);
        expect_ranks_agree(h, s0, s1, "random pair");
    }
    for (const auto& [m, n] : {std::pair<int64_t, int64_t>{20000, 15000}, {777, 5000}, {9001, 193}}) {
        auto [s0, s1] = test::mutated_pair(m, n, rng, 0.01);
        expect_ranks_agree(h, s0, s1, "mutated pair " + std::to_string(m) + " x " + std::to_string(n), m == 20000);
    }
    const std::string example = std::string(CHROMALIGN_SOURCE_DIR) + "/data/example/";
    expect_ranks_agree(h, io::read_fasta(example + "NC_004830.2_deformed_wing_virus.fasta.gz", {}),
                       io::read_fasta(example + "NC_006494.1_varroa_destructor_virus_1.fasta.gz", {}),
                       "bundled example pair");
    Sequence s0, s1;
    if (test::load_shared_pair("paper", "AF133821.1", "AY352275.1", s0, s1)) expect_ranks_agree(h, s0, s1, "HIV pair");
}

TEST(MpiCli, ErrorsEndEveryRank) {
    SKIP_WITHOUT_MPI();
    test::ResumeHarness h(50, 50, test::seed());
    h.set_launcher(mpirun(2));
    const test::ChildRun ref = h.run({"-b", "reference"});
    EXPECT_NE(ref.exit_code, 0);
    EXPECT_NE(ref.err.find("cannot run over several ranks"), std::string::npos) << ref.err;
}

/// Bases [from, to) of s as a record of its own.
Sequence cut(const Sequence& s, int64_t from, int64_t to, const std::string& name) {
    Sequence part = make_sequence(name, "");
    part.codes.assign(s.codes.begin() + from, s.codes.begin() + to);
    return part;
}

/// Each row of a TSV report without the columns that differ between runs (seconds, GCUPS,
/// the device and its ranks).
std::string tsv_answers(const std::string& out) {
    std::istringstream rows(out);
    std::string kept;
    for (std::string line; std::getline(rows, line);) {
        std::istringstream fields(line);
        std::string field;
        for (int k = 0; std::getline(fields, field, '\t'); ++k)
            if (k != 8 && k != 9 && k != 11) kept += field + "\t";
        kept += "\n";
    }
    return kept;
}

TEST(MpiCli, AnS1RecordTooShortForEverySlabIsComputedByEachRankAlone) {
    SKIP_WITHOUT_MPI();
    // A genome's short records (a plasmid, a contig) among long ones: 3 ranks, or 2 of 2 slabs,
    // cannot cut 50 or 100 columns into slabs of 64; they ended the whole job. Now each rank
    // computes such a comparison alone, and the job goes on over the ranks for the others.
    std::mt19937_64 rng(test::seed() + 72);
    auto [a, b] = test::mutated_pair(6000, 6000, rng, 0.01);
    test::ResumeHarness h(1, 1, test::seed());
    test::write_records(h.path("g0.fa"), {a});
    test::write_records(h.path("g1.fa"), {cut(b, 0, 3000, "b1"), cut(b, 3000, 3050, "short1"),
                                          reverse_complement(cut(b, 3050, 5900, "b2")), cut(b, 5900, 6000, "short2")});
    const auto job = [&h](const std::string& paf, const std::vector<std::string>& more) {
        std::vector<std::string> args{"-b", "cpu", "-t", "1", "-f", "tsv", "--traceback", h.path(paf)};
        args.insert(args.end(), more.begin(), more.end());
        args.insert(args.end(), {h.path("g0.fa"), h.path("g1.fa")});
        return args;
    };
    const test::ChildRun one = h.run_command(job("one.paf", {}));
    ASSERT_EQ(one.exit_code, 0) << one.err;
    const std::string want = tsv_answers(one.out), want_paf = test::read_text(h.path("one.paf"));
    EXPECT_NE(want.find("short2"), std::string::npos) << one.out;
    for (const auto& [ranks, slabs] : {std::pair<int, int>{3, 1}, {2, 2}}) {
        const std::string run = std::to_string(ranks) + " ranks of " + std::to_string(slabs) + " slabs";
        h.set_launcher(mpirun(ranks));
        const test::ChildRun r = h.run_command(job(run + ".paf", {"--slabs", std::to_string(slabs)}));
        h.set_launcher({});
        ASSERT_EQ(r.exit_code, 0) << run << ":\n" << r.err;
        EXPECT_EQ(tsv_answers(r.out), want) << run << ", seed " << test::seed();
        EXPECT_EQ(test::read_text(h.path(run + ".paf")), want_paf) << run << ", seed " << test::seed();
        EXPECT_NE(r.err.find("S1 record 'short1' (50 bases) is too short to cut over " + std::to_string(ranks * slabs) +
                             " column slabs: each rank computes it alone"),
                  std::string::npos)
            << r.err;
        EXPECT_EQ(r.err.find("'b1' (3000 bases) is too short"), std::string::npos) << r.err;
    }
    // One process of several slabs takes a short S1 on one slab.
    const test::ChildRun slabs = h.run_command(job("slabs.paf", {"--slabs", "4"}));
    ASSERT_EQ(slabs.exit_code, 0) << slabs.err;
    EXPECT_EQ(tsv_answers(slabs.out), want);
    EXPECT_EQ(test::read_text(h.path("slabs.paf")), want_paf);
}

TEST(MpiCli, TheKBestOfAGenomeJobOverTwoAndThreeRanksAreThoseOfOneProcess) {
    SKIP_WITHOUT_MPI();
    // Two genomes of two records each cut from a mutated pair, S1's first record on the other
    // strand, and a1 ending in a copy of its bases 2000-3499, a second alignment with b2: stage
    // 1 runs over the ranks, and rank 0 alone traces back and searches for the others of each
    // record pair while the other ranks wait for the next comparison.
    std::mt19937_64 rng(test::seed() + 71);
    auto [a, b] = test::mutated_pair(20000, 20000, rng, 0.01);
    Sequence a1 = cut(a, 0, 9000, "a1");
    a1.codes.insert(a1.codes.end(), a.codes.begin() + 2000, a.codes.begin() + 3500);
    const std::vector<Sequence> s0 = {a1, cut(a, 9000, 20000, "a2")};
    const std::vector<Sequence> s1 = {reverse_complement(cut(b, 8000, 20000, "b1")), cut(b, 0, 8000, "b2")};
    test::ResumeHarness h(1, 1, test::seed());
    test::write_records(h.path("g0.fa"), s0);
    test::write_records(h.path("g1.fa"), s1);
    const auto job = [&h](const std::string& sam) {
        return std::vector<std::string>{"-q", "-b", "cpu", "-t", "1", "--alignments", "6", "--min-score", "40",
                                        "--traceback", h.path(sam), h.path("g0.fa"), h.path("g1.fa")};
    };
    const test::ChildRun one = h.run_command(job("one.sam"));
    ASSERT_EQ(one.exit_code, 0) << one.err;
    const std::string want = test::lines_without(test::read_text(h.path("one.sam")), "@PG");
    int secondary = 0, reverse = 0;
    std::istringstream records(want);
    for (std::string line; std::getline(records, line);) {
        if (line.empty() || line[0] == '@') continue;
        const int flag = std::stoi(line.substr(line.find('\t') + 1));
        secondary += (flag & 256) != 0;
        reverse += (flag & 16) != 0;
    }
    EXPECT_GE(secondary, 2) << "too few secondary alignments to compare:\n" << want;
    EXPECT_GE(reverse, 1) << "no reverse-strand alignment to compare:\n" << want;
    for (const int ranks : {2, 3}) {
        h.set_launcher(mpirun(ranks));
        const std::string sam = std::to_string(ranks) + ".sam";
        const test::ChildRun r = h.run_command(job(sam));
        h.set_launcher({});
        ASSERT_EQ(r.exit_code, 0) << ranks << " ranks:\n" << r.err;
        EXPECT_EQ(test::lines_without(test::read_text(h.path(sam)), "@PG"), want)
            << ranks << " ranks, seed " << test::seed();
    }
}

#ifdef CHROMALIGN_MPI_LINK_STRESS
TEST(MpiCli, EdgesFlowPastALaggingSlab) {
    SKIP_WITHOUT_MPI();
    // tests/mpi_link_stress.cpp: 2 processes of 8 slabs, the last slab taking its edges slowly;
    // the old link deadlocked here. `timeout` turns a hang into a failure.
    std::string command;
    for (const std::string& word : mpirun(2)) command += word + " ";
    command += std::string("timeout 120 ") + CHROMALIGN_MPI_LINK_STRESS + " 8 3000";
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
}
#endif

/// A mutated pair that two CI cores compute in under 2 s (pruning skips half of it).
constexpr int64_t kLength = 200000;
/// Each external diagonal of every slab sleeps this long (engine/orchestration/test_pace.hpp):
/// runs last several seconds, so kills and stops land mid-run, while the ranks leave the cores
/// to a loaded machine's other work.
constexpr int kPaceUs = 10000;

TEST(MpiCliSlow, AShortS1RecordKilledOnEveryRankResumesFromRankZerosPiece) {
    SKIP_WITHOUT_MPI();
    // S1 of 100 bases cannot be cut over 3 ranks: each computes it alone and rank 0 keeps the
    // checkpoint. After kill -9 of the whole job past one of its pieces, a resume over 3 ranks
    // or in one process takes that piece up and gives one process's answer.
    test::ResumeHarness h(kLength, 100, test::seed());
    const test::ChildRun whole = h.run({"-q", "-b", "cpu", "--no-pruning"});
    ASSERT_EQ(whole.exit_code, 0) << whole.err;
    const AlignmentEnd want = test::ResumeHarness::parse_tsv(whole.out);
    const std::string ck = h.path("short.ckpt");
    const std::vector<std::string> args = {"-b", "cpu", "-t", "1", "--no-pruning", "--checkpoint", ck,
                                           "--checkpoint-every", "0.5s"};
    for (const int resume_ranks : {3, 1}) {
        const std::string run = "resumed " + (resume_ranks > 1 ? "over 3 ranks" : std::string("in one process"));
        h.set_pace_us(kPaceUs);
        h.set_launcher(mpirun(3));
        const test::ChildRun killed = h.run(args, 100, SIGKILL, ck + ".slab0of1.1");
        ASSERT_EQ(killed.exit_code, 128 + SIGKILL) << run << ": the job ended before its kill:\n" << killed.err;
        h.set_pace_us(0);
        h.set_launcher(resume_ranks > 1 ? mpirun(resume_ranks) : std::vector<std::string>{});
        const test::ChildRun r = h.run(args);
        ASSERT_EQ(r.exit_code, 0) << run << ":\n" << r.err;
        EXPECT_NE(r.err.find("resuming from " + ck + " (1 slab"), std::string::npos) << run << ":\n" << r.err;
        EXPECT_EQ(test::ResumeHarness::parse_tsv(r.out), want) << run << ", seed " << test::seed();
    }
}

TEST(MpiCliSlow, KillNineOfTheWholeJobThenResume) {
    SKIP_WITHOUT_MPI();
    test::ResumeHarness h(kLength, kLength, test::seed());
    const test::ChildRun whole = h.run({"-q", "-b", "cpu"});
    ASSERT_EQ(whole.exit_code, 0) << whole.err;
    h.set_pace_us(kPaceUs);
    const AlignmentEnd want = test::ResumeHarness::parse_tsv(whole.out);

    h.set_launcher(mpirun(2));
    std::mt19937_64 rng(test::seed() + 7);
    const std::string ck = h.path("job.ckpt");
    const std::vector<std::string> args = {"-b", "cpu", "-t", "1", "--checkpoint", ck, "--checkpoint-every", "0.5s"};
    int killed = 0, resumed = 0;
    for (int moment = 0; moment < 3; ++moment) {
        // After rank 1's first piece of this run, so every kill finds a complete checkpoint.
        const int after_ms = static_cast<int>(rng() % 1000);
        const test::ChildRun r = h.run(args, after_ms, SIGKILL, ck + ".slab1of2.1");
        std::printf("[ kill -9  ] mpirun and its ranks, %d ms after a checkpoint: exit %d%s\n", after_ms, r.exit_code,
                    r.err.find("resuming") != std::string::npos ? " (had resumed)" : "");
        resumed += r.err.find("resuming") != std::string::npos;
        if (r.exit_code == 0) {
            EXPECT_EQ(test::ResumeHarness::parse_tsv(r.out), want);
            continue;
        }
        // A kill that lands once the job has finished its cells (its completion marker written,
        // or its pieces removed, while it exits) ends a finished run: the next one starts
        // afresh, so it is not a kill mid-way. With pruning the last rows go fast, so it happens.
        const bool pieces = file_exists(ck + ".slab0of2.0") || file_exists(ck + ".slab0of2.1");
        if (r.err.find("run complete") != std::string::npos || file_exists(completion_marker(ck)) || !pieces) continue;
        ++killed;
    }
    const test::ChildRun last = h.run(args);
    ASSERT_EQ(last.exit_code, 0) << last.err;
    EXPECT_EQ(test::ResumeHarness::parse_tsv(last.out), want) << "seed " << test::seed();
    EXPECT_GE(killed, 2) << "too few runs were killed mid-way to test anything";
    EXPECT_GE(resumed + (last.err.find("resuming") != std::string::npos), killed) << "a run did not resume";
    EXPECT_FALSE(file_exists(ck + ".slab0of2.0") || file_exists(ck + ".slab0of2.1") || file_exists(ck + ".slab1of2.1"))
        << "a completed run removes its pieces";
}

// Issue 23's resume across rank counts: the pieces of 4 ranks, levelled, finish on 2.
TEST(MpiCliSlow, KillNineAtFourRanksThenResumeWithTwo) {
    SKIP_WITHOUT_MPI();
    test::ResumeHarness h(kLength, kLength, test::seed() + 2);
    const test::ChildRun whole = h.run({"-q", "-b", "cpu"});
    ASSERT_EQ(whole.exit_code, 0) << whole.err;
    h.set_pace_us(kPaceUs);
    const std::string ck = h.path("four.ckpt");
    const std::vector<std::string> args = {"-b", "cpu", "-t", "1", "--checkpoint", ck, "--checkpoint-every", "0.5s"};
    std::mt19937_64 rng(test::seed() + 9);
    h.set_launcher(mpirun(4));
    bool killed = false;
    for (int attempt = 0; attempt < 3 && !killed; ++attempt) {
        const int after_ms = static_cast<int>(rng() % 500);
        const test::ChildRun r = h.run(args, after_ms, SIGKILL, ck + ".slab3of4.0");
        std::printf("[ kill -9  ] 4 ranks, %d ms after the last slab's first piece: exit %d\n", after_ms, r.exit_code);
        // A run that finished its cells before the kill (its completion marker written, or its
        // pieces removed) ends a finished run: the next attempt starts afresh.
        killed = r.exit_code != 0 && file_exists(ck + ".slab3of4.0") && !file_exists(completion_marker(ck));
    }
    ASSERT_TRUE(killed) << "no attempt was killed mid-way";
    h.set_launcher(mpirun(2));
    const test::ChildRun resumed = h.run(args);
    ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
    EXPECT_NE(resumed.err.find("resuming from the pieces of 4 slabs"), std::string::npos) << resumed.err;
    EXPECT_EQ(test::ResumeHarness::parse_tsv(resumed.out), test::ResumeHarness::parse_tsv(whole.out))
        << "seed " << test::seed();
}

TEST(MpiCliSlow, SigusrOneToMpirunStopsEveryRankAtOneCheckpoint) {
    SKIP_WITHOUT_MPI();
    test::ResumeHarness h(kLength, kLength, test::seed() + 1);
    const test::ChildRun whole = h.run({"-q", "-b", "cpu"});
    ASSERT_EQ(whole.exit_code, 0) << whole.err;
    h.set_pace_us(kPaceUs);
    h.set_launcher(mpirun(3));  // mpirun forwards SIGUSR1 to every rank
    const std::string ck = h.path("usr1.ckpt");
    // Two slabs per rank: the stop and the pieces' acknowledgements cross threads and ranks.
    // The signal comes 200 ms after the last slab's first piece, so every rank is running with
    // its handlers (1.5 s after the start, a loaded machine once had the ranks still starting).
    const std::vector<std::string> args = {"-b", "cpu", "-t", "1", "--slabs", "2", "--checkpoint", ck,
                                           "--checkpoint-every", "1s"};
    const test::ChildRun r = h.run(args, 200, SIGUSR1, ck + ".slab5of6.0");
    ASSERT_NE(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("every slab checkpointed"), std::string::npos) << r.err;
    const test::ChildRun again = h.run(args);
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_NE(again.err.find("resuming from"), std::string::npos) << again.err;
    EXPECT_EQ(test::ResumeHarness::parse_tsv(again.out), test::ResumeHarness::parse_tsv(whole.out));
}

}  // namespace
}  // namespace chromalign
