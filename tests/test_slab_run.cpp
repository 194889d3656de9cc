//! @file Column-slab runs (engine/slab_run) on CPU executors, ranks as threads: every split of
//! the columns against the reference oracle, and the coordinated checkpoints of all ranks.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <mutex>
#include <random>
#include <thread>
#include <cstdlib>
#include <string>
#include <algorithm>
#include <atomic>
#include <vector>

#include "kernels/registry.hpp"
#include "engine/bound/minimap2_bound.hpp"
#include "engine/checkpoint/checkpoint_file.hpp"
#include "engine/error.hpp"
#include "kernels/reference/reference.hpp"
#include "engine/checkpoint/pieces.hpp"
#include "engine/orchestration/slab_group.hpp"
#include "engine/orchestration/slab_run.hpp"
#include "tests/test_support.hpp"
#include "tests/slab_support.hpp"

namespace chromalign {
namespace {

const Scoring kScorings[] = {
    {1, -3, 5, 2}, {2, -3, 7, 2}, {1, -1, 2, 2}, {5, -4, 10, 1}, {1, -2, 1, 1}, {200, -150, 300, 40},
};

AlignmentEnd slab_align(const Sequence& s0, const Sequence& s1, const Scoring& scoring, int ranks,
                        const BackendOptions& options) {
    return test::slab_align("cpu", s0, s1, scoring, ranks, options);
}

void expect_reference(const Sequence& s0, const Sequence& s1, const Scoring& scoring, int ranks,
                      const BackendOptions& o, const std::string& what) {
    test::expect_slab_matches_reference("cpu", s0, s1, scoring, ranks, o, what);
}

BackendOptions options(int alpha, int max_blocks) {
    BackendOptions o;
    o.threads = 1;
    o.alpha = alpha;
    o.max_blocks = max_blocks;
    return o;
}

TEST(SlabGroupThreads, TheFailureItselfIsRethrownNotItsEcho) {
    // Slab 0 sees slab 1's failure first (as a collective would tell it) and throws the echo
    // at once; slab 1 throws the failure itself later. The caller must get the failure: it
    // once got "rank 1 failed (its message says why)", which says nothing.
    SlabGroup group(3);
    try {
        run_in_group(group, [](int local) {
            if (local == 0) throw PeerFailed("rank 1 failed (its message says why)");
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            if (local == 1) throw Error("the failure itself");
        });
        FAIL() << "nothing thrown";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "the failure itself");
    }
}

TEST(CutSlabs, EqualSharesWithExactGridsAndTheRestLast) {
    for (const int64_t n : {int64_t{200}, int64_t{1000}, int64_t{123457}, int64_t{16000000}})
        for (const int ranks : {2, 3, 8}) {
            if (n < 64 * ranks + 1) continue;
            const std::vector<SlabShape> shapes(static_cast<size_t>(ranks), SlabShape{512, 1584});
            const auto slabs = cut_slabs(n, shapes);
            int64_t c0 = 0;
            for (size_t k = 0; k < slabs.size(); ++k) {
                EXPECT_EQ(slabs[k].c0, c0);
                EXPECT_GE(slabs[k].width, 1);
                if (k + 1 < slabs.size()) {
                    const int64_t cols = slabs[k].width / slabs[k].blocks;
                    EXPECT_EQ(cols * slabs[k].blocks, slabs[k].width) << "n=" << n << " rank " << k;
                    EXPECT_EQ(cols % kColumnQuantum, 0);
                    EXPECT_GE(cols, 64);
                    EXPECT_LE(slabs[k].blocks, 1584);
                    // Equal shares, within one rounding step of the block columns.
                    EXPECT_NEAR(static_cast<double>(slabs[k].c0 + slabs[k].width), double(n) * (k + 1) / ranks,
                                64.0 + 4.0 * slabs[k].blocks);
                }
                c0 += slabs[k].width;
            }
            EXPECT_EQ(c0, n);
        }
    EXPECT_EQ(cut_slabs(100, std::vector<SlabShape>(2, SlabShape{512, 4})).back().width, 36);  // last: any width
    EXPECT_THROW(cut_slabs(128, std::vector<SlabShape>(3, SlabShape{512, 4})), Error);
    // A backend that needs wider block columns than the least gets them, whichever rank asks.
    std::vector<SlabShape> wide(3, SlabShape{512, 1584});
    wide[1].min_block_cols = 256;
    for (const Slab& s : cut_slabs(100000, wide))
        if (s.c0 + s.width < 100000) {
            EXPECT_GE(s.width / s.blocks, 256) << "slab at " << s.c0;
        }
}

TEST(SlabRun, RandomAndMutatedPairsMatchReference) {
    std::mt19937_64 rng(test::seed());
    const int alphas[] = {4, 8, 16};
    const int max_blocks[] = {1, 2, 3, 0};
    for (int i = 0; i < 60; ++i) {
        const int ranks = 2 + static_cast<int>(rng() % 3);
        const int64_t m = 1 + rng() % (i < 30 ? 400 : 2500);
        const int64_t n = 64 * ranks + 1 + rng() % (i < 30 ? 600 : 4000);
        const bool mutated = i % 4 != 0;
        auto [s0, s1] = mutated ? test::mutated_pair(m, n, rng, i % 5 == 0 ? 0.02 : 0.0) : test::random_pair(m, n, rng);
        expect_reference(s0, s1, kScorings[rng() % 6], ranks, options(alphas[rng() % 3], max_blocks[rng() % 4]),
                         (mutated ? "mutated pair #" : "random pair #") + std::to_string(i));
        if (HasFatalFailure()) return;
    }
}

TEST(SlabRun, MatricesMatchReference) {
    // Slab edges carry H and E across ranks whatever the substitution: every test matrix, in
    // 16-bit lanes (small scores) and 32-bit ones.
    std::mt19937_64 rng(test::seed() + 20);
    for (const test::NamedScoring& ns : test::matrix_scorings(rng))
        for (int i = 0; i < 4; ++i) {
            const int ranks = 2 + static_cast<int>(rng() % 3);
            const int64_t m = 1 + rng() % 1500, n = 64 * ranks + 1 + rng() % 2500;
            auto [s0, s1] = test::mutated_pair(m, n, rng, i == 0 ? 0.02 : 0.0);
            expect_reference(s0, s1, ns.scoring, ranks, options(i % 2 ? 4 : 8, 0), ns.name + " #" + std::to_string(i));
            if (HasFatalFailure()) return;
        }
}

TEST(SlabRun, EdgeSizesMatchReference) {
    std::mt19937_64 rng(test::seed() + 1);
    for (const int alpha : {4, 16}) {
        auto backend = make_backend("cpu", options(alpha, 0));
        const int64_t band = backend->slab_engine()->slab_shape(1000, 1000, kScorings[0]).rows_per_band;
        for (const int64_t m : {int64_t{1}, band - 1, band, band + 1, 3 * band + 7})
            for (const int64_t n : {int64_t{129}, int64_t{130}, int64_t{255}, int64_t{1001}}) {
                auto [s0, s1] = test::mutated_pair(m, n, rng);
                expect_reference(s0, s1, kScorings[rng() % 6], 2, options(alpha, 1 + rng() % 3), "edge sizes");
                if (HasFatalFailure()) return;
            }
    }
}

TEST(SlabRun, ProgressCountsTheCellsOfEverySlabOfTheProcess) {
    // Long enough (a few seconds) for reports, which come at most once a second.
    std::mt19937_64 rng(test::seed() + 5);
    const auto [s0, s1] = test::mutated_pair(300000, 300000, rng);
    for (const bool pruning : {true, false}) {
        BackendOptions o;
        o.slabs = 3;
        o.pruning = pruning;
        std::vector<Progress> reports;
        o.on_progress = [&reports](const Progress& p) { reports.push_back(p); };
        make_backend("cpu", o)->align(s0, s1, kScorings[0]);
        ASSERT_FALSE(reports.empty()) << "the run ended before its first report";
        const int64_t cells = s0.length() * s1.length();
        int64_t last = 0;
        for (const Progress& p : reports) {
            EXPECT_EQ(p.cells_total, cells);
            EXPECT_EQ(p.cells_this_run + p.cells_left, cells) << "every slab's cells, none twice";
            EXPECT_GT(p.cells_this_run, last) << "progress only grows";
            EXPECT_LE(p.cells_done, cells);
            EXPECT_LE(p.cells_pruned, p.cells_this_run);
            EXPECT_GE(p.cells_left_live, 0);
            if (pruning) {  // the ETA leaves out what pruning is expected to skip
                EXPECT_LE(p.cells_left_live, p.cells_left);
            } else {
                EXPECT_EQ(p.cells_left_live, p.cells_left);
                EXPECT_EQ(p.cells_pruned, 0);
            }
            last = p.cells_this_run;
        }
        if (pruning) {
            EXPECT_LT(reports.back().cells_left_live, reports.back().cells_left) << "no cell expected to be skipped";
        }
    }
}

TEST(SlabRun, WithABoundTheEtaExpectsWhatPruningSkips) {
    // A lower bound from the start (minimap2's): the first report's expectation of the cells
    // left to compute matches what the run then computes, within a quarter.
    std::mt19937_64 rng(test::seed() + 6);
    const auto [s0, s1] = test::mutated_pair(700000, 700000, rng);
    const std::atomic<bool> running{false};
    std::atomic<int32_t> bound{Minimap2Bound(2).find(s0, s1, kScorings[0], running).witness.score};
    ASSERT_GT(bound.load(), 0);
    BackendOptions o;
    o.lower_bound = &bound;
    std::vector<Progress> reports;
    o.on_progress = [&reports](const Progress& p) { reports.push_back(p); };
    const auto backend = make_backend("cpu", o);
    EXPECT_GE(backend->align(s0, s1, kScorings[0]).score, bound.load());
    ASSERT_FALSE(reports.empty()) << "the run ended before its first report";
    const Progress& first = reports.front();
    const int64_t cells = s0.length() * s1.length();
    const double computed_after = static_cast<double>(cells - backend->cells_pruned() -
                                                      (first.cells_this_run - first.cells_pruned));
    std::printf("[ eta      ] expected %lld cells to compute after the first report, computed %.0f\n",
                static_cast<long long>(first.cells_left_live), computed_after);
    EXPECT_NEAR(static_cast<double>(first.cells_left_live), computed_after, 0.25 * computed_after);
}

TEST(SlabRun, WithSixSlabsTheEtaHoldsAsTheLeftSlabsEnd) {
    // The left slabs end long before the right ones, whose rows left hold the live band: each
    // report's expectation of the cells left to compute, slab by slab, stays near what the run
    // then computes until the last quarter (one front for all slabs fell to a quarter of it).
    std::mt19937_64 rng(test::seed() + 8);
    const auto [s0, s1] = test::mutated_pair(700000, 700000, rng);
    const std::atomic<bool> running{false};
    std::atomic<int32_t> bound{Minimap2Bound(2).find(s0, s1, kScorings[0], running).witness.score};
    BackendOptions o;
    o.slabs = 6;
    o.lower_bound = &bound;
    std::vector<Progress> reports;
    o.on_progress = [&reports](const Progress& p) { reports.push_back(p); };
    const auto backend = make_backend("cpu", o);
    backend->align(s0, s1, kScorings[0]);
    const double cells = static_cast<double>(s0.length()) * static_cast<double>(s1.length());
    const double computed = cells - static_cast<double>(backend->cells_pruned());
    int judged = 0;
    for (const Progress& p : reports) {
        const double done = static_cast<double>(p.cells_done) / cells;
        const double after = computed - static_cast<double>(p.cells_this_run - p.cells_pruned);
        std::printf("[ eta      ] %.0f%% done: expected %.3g cells left, computed %.3g\n", 100 * done,
                    static_cast<double>(p.cells_left_live), after);
        if (done > 0.75) continue;
        ++judged;
        EXPECT_GT(static_cast<double>(p.cells_left_live), 0.55 * after) << 100 * done << "% done";
        EXPECT_LT(static_cast<double>(p.cells_left_live), 1.5 * after) << 100 * done << "% done";
    }
    EXPECT_GE(judged, 2) << "too few reports before the last quarter";
}

TEST(SlabRun, ReportsGoOnAfterTheFirstSlabEnds) {
    // The left slab ends first, long before the last on a band-shaped run (a bound's): the
    // progress must not end with it. Here the last slab is held back a few ms a diagonal.
    std::mt19937_64 rng(test::seed() + 7);
    const auto [s0, s1] = test::mutated_pair(200000, 200000, rng);
    BackendOptions o;
    o.slabs = 3;
    using Clock = std::chrono::steady_clock;
    std::mutex mutex;
    Clock::time_point first_slab_ended;
    std::vector<Clock::time_point> reports;
    o.on_diagonal = [&](int rank, int64_t) {
        if (rank == 2) std::this_thread::sleep_for(std::chrono::milliseconds(12));
        if (rank != 0) return;
        const std::lock_guard<std::mutex> lock(mutex);
        first_slab_ended = Clock::now();
    };
    o.on_progress = [&](const Progress&) {
        const std::lock_guard<std::mutex> lock(mutex);
        reports.push_back(Clock::now());
    };
    make_backend("cpu", o)->align(s0, s1, kScorings[0]);
    const double left = std::chrono::duration<double>(Clock::now() - first_slab_ended).count();
    std::printf("[ slabs    ] the left slab ended %.2f s before the run, %zu reports\n", left, reports.size());
    ASSERT_GT(left, 2.5) << "the last slab was held back too little";
    EXPECT_TRUE(std::any_of(reports.begin(), reports.end(),
                            [&](Clock::time_point t) { return t > first_slab_ended + std::chrono::milliseconds(500); }))
        << "no report in the " << left << " s after the left slab ended";
}

TEST(SlabRun, SharedRealPairMatchesSingleProcess) {
    Sequence s0, s1;
    if (!test::load_shared_pair("paper", "AF133821.1", "AY352275.1", s0, s1)) GTEST_SKIP() << "no shared data";
    const AlignmentEnd want = reference_align(s0, s1, kScorings[0]);
    EXPECT_EQ(slab_align(s0, s1, kScorings[0], 3, options(16, 0)), want);
}

using chromalign::test::TempDir;

class SlabCheckpoints : public ::testing::Test {
protected:
    void SetUp() override {
        std::mt19937_64 rng(test::seed() + 2);
        std::tie(s0_, s1_) = test::mutated_pair(3000, 2500, rng, 0.01);
        want_ = reference_align(s0_, s1_, kScorings[0]);
        o_ = options(4, 3);
        o_.checkpoint.path = dir_.file("run.ckpt");
    }

    /// A run of `ranks` that gets a stop request at once: every rank must stop at the same
    /// checkpoint with Interrupted.
    void interrupted_run(int ranks) {
        static volatile std::sig_atomic_t stop = SIGTERM;
        BackendOptions o = o_;
        o.checkpoint.stop = &stop;
        try {
            slab_align(s0_, s1_, kScorings[0], ranks, o);
            FAIL() << "the run was not interrupted";
        } catch (const Interrupted& e) {
            EXPECT_EQ(e.signal_number(), SIGTERM);
        }
    }

    /// A run of `ranks` without a stop request: the exact answer, and a first note that says it
    /// resumed from `source`.
    void expect_resumed_run(int ranks, const std::string& source) {
        std::vector<std::string> notes;
        BackendOptions o = o_;
        o.on_note = [&](const std::string& text) { notes.push_back(text); };
        EXPECT_EQ(slab_align(s0_, s1_, kScorings[0], ranks, o), want_);
        ASSERT_FALSE(notes.empty());
        EXPECT_NE(notes[0].find(source), std::string::npos) << notes[0];
    }

    /// The external diagonals rank 0 of a run of 2 slabs enqueues (one without checkpoints),
    /// expecting the reference's answer: where stopped_at may stop such a run.
    int64_t two_slab_diagonals() {
        BackendOptions unchecked = o_;
        unchecked.checkpoint.path.clear();
        int64_t diagonals = 0;
        const auto run = [&](const BackendOptions& with) { return slab_align(s0_, s1_, kScorings[0], 2, with); };
        EXPECT_EQ(test::counting_diagonals(unchecked, run, diagonals), want_);
        return diagonals;
    }

    /// The same for one process with the CPU backend; returns its notes.
    std::vector<std::string> expect_single_process_run(const std::string& source) {
        std::vector<std::string> notes;
        BackendOptions o = o_;
        o.on_note = [&](const std::string& text) { notes.push_back(text); };
        EXPECT_EQ(make_backend("cpu", o)->align(s0_, s1_, kScorings[0]), want_);
        EXPECT_FALSE(notes.empty());
        if (!notes.empty()) {
            EXPECT_NE(notes[0].find(source), std::string::npos) << notes[0];
        }
        return notes;
    }

    /// A flat checkpoint at PATH, as release 0.1.0's single-process runs wrote them: the piece
    /// of a one-slab run stopped at once (the same file: one slab is all of S1), moved there.
    void leave_flat_checkpoint() {
        static volatile std::sig_atomic_t stop = SIGINT;
        BackendOptions o = o_;
        o.checkpoint.stop = &stop;
        o.max_blocks = 1;  // one block column: its wavefront is a row
        EXPECT_THROW(make_backend("cpu", o)->align(s0_, s1_, kScorings[0]), Interrupted);
        ASSERT_EQ(::rename((o_.checkpoint.path + ".slab0of1.1").c_str(), o_.checkpoint.path.c_str()), 0);
    }

    /// What a finished 2-rank job killed while removing its pieces leaves: rank 0's piece gone,
    /// rank 1's still there, and the completion marker.
    void leave_spent_pieces() {
        interrupted_run(2);
        write_completion_marker(o_.checkpoint.path);
        ASSERT_EQ(::unlink((o_.checkpoint.path + ".slab0of2.1").c_str()), 0);
    }

    TempDir dir_;
    Sequence s0_, s1_;
    AlignmentEnd want_;
    BackendOptions o_;
};

TEST_F(SlabCheckpoints, StopOnEveryRankThenResumeGivesTheSameAnswer) {
    interrupted_run(3);
    for (int k = 0; k < 3; ++k)
        EXPECT_TRUE(file_exists(o_.checkpoint.path + ".slab" + std::to_string(k) + "of3.1")) << "rank " << k;
    expect_resumed_run(3, "resuming from");
    for (int k = 0; k < 3; ++k) EXPECT_FALSE(file_exists(o_.checkpoint.path + ".slab" + std::to_string(k) + "of3.1"));
    EXPECT_FALSE(file_exists(completion_marker(o_.checkpoint.path))) << "the marker goes last";
}

TEST_F(SlabCheckpoints, FrequentCheckpointsDuringAWholeRun) {
    BackendOptions o = o_;
    o.checkpoint.every_seconds = 0;  // as often as the acknowledgements allow
    o.checkpoint.keep_rows_dir = dir_.file("");
    EXPECT_EQ(slab_align(s0_, s1_, kScorings[0], 2, o), want_);
    int kept = 0;
    // Row 0 too: a slab that has begun no band when a checkpoint is asked for keeps its top row.
    for (int64_t row = 0; row <= s0_.length(); ++row) kept += file_exists(dir_.file("row_" + std::to_string(row) + ".slab1of2.ckpt"));
    // How many depends on thread timing (each waits for every rank's acknowledgement).
    EXPECT_GE(kept, 1) << "a checkpoint was written along the run";
    EXPECT_FALSE(file_exists(o_.checkpoint.path + ".slab1of2.0") || file_exists(o_.checkpoint.path + ".slab1of2.1"));
}

TEST_F(SlabCheckpoints, ResumesWithAnotherRankCount) {
    interrupted_run(2);
    expect_resumed_run(3, "the pieces of 2 slabs");
    EXPECT_FALSE(file_exists(o_.checkpoint.path + ".slab0of2.1")) << "obsolete pieces are removed at the end";
}

TEST_F(SlabCheckpoints, AFinishedRunLeavesNoFlatCheckpointBehind) {
    // A flat row beside the pieces of 2 slabs; a run of 3 finishes from those pieces. Before,
    // the flat row outlived it and the next identical command started over from it.
    leave_flat_checkpoint();  // a row near the top
    const auto two = [&](const BackendOptions& with) { return slab_align(s0_, s1_, kScorings[0], 2, with); };
    const int64_t diagonals = two_slab_diagonals();
    ASSERT_TRUE(test::stopped_at(diagonals / 2, o_, two));  // pieces below the flat row
    expect_resumed_run(3, "the pieces of 2 slabs");
    EXPECT_FALSE(file_exists(o_.checkpoint.path)) << "a spent flat checkpoint outlived the run";
    std::vector<std::string> notes;
    BackendOptions o = o_;
    o.on_note = [&](const std::string& text) { notes.push_back(text); };
    EXPECT_EQ(slab_align(s0_, s1_, kScorings[0], 3, o), want_);
    for (const std::string& note : notes) EXPECT_EQ(note.find("resuming"), std::string::npos) << note;
}

TEST_F(SlabCheckpoints, APieceWithABestCellBeyondS1IsNotAnswered) {
    // A piece holds its slab's columns, so only the run knows S1's width: a best cell beyond
    // it, with a right CRC, came back as the answer (issue 42: 18 41058 171828 on a matrix of
    // 171,823 columns).
    interrupted_run(2);
    const std::string name = o_.checkpoint.path + ".slab1of2.1";
    Checkpoint c = read_checkpoint(name);
    // Above the true best, and a score a cell of that row could reach.
    c.best = AlignmentEnd{want_.score + 100, s0_.length() - 1, s1_.length() + 5};
    write_checkpoint(name, c);
    // Resumed by 2 slabs, the piece is refused; levelled for 3, the run answers right or refuses.
    for (const int ranks : {2, 3}) {
        try {
            const AlignmentEnd got = slab_align(s0_, s1_, kScorings[0], ranks, o_);
            EXPECT_NE(ranks, 2) << "the piece was not refused";
            EXPECT_EQ(got, want_) << ranks << " slabs";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("its best cell lies outside the matrix"), std::string::npos)
                << e.what();
        }
    }
}

TEST_F(SlabCheckpoints, AStopWhoseSaveFailsStillStops) {
    // On a full disk a stop's checkpoint cannot be written: the run must still stop as a stop
    // (Interrupted: 128 + the signal), keep the previous checkpoint, and resume from it. Before,
    // the failed save was an error (exit 1). --checkpoint-strict keeps it one.
    interrupted_run(2);  // the previous checkpoint: a stop at once
    const auto two = [&](const BackendOptions& with) { return slab_align(s0_, s1_, kScorings[0], 2, with); };
    const int64_t diagonals = two_slab_diagonals();
    for (const bool strict : {false, true}) {
        BackendOptions o = o_;
        o.checkpoint.strict = strict;
        std::vector<std::string> notes;
        o.on_note = [&](const std::string& text) { notes.push_back(text); };
        bool stopped = false;
        {
            const test::FileSizeLimit limit(1000);  // below a piece's size: a full disk
            try {
                stopped = test::stopped_at(diagonals / 2, o, two);
            } catch (const Error& e) {
                EXPECT_TRUE(strict) << e.what();
                EXPECT_NE(std::string(e.what()).find("cannot write checkpoint"), std::string::npos) << e.what();
            }
        }
        EXPECT_EQ(stopped, !strict);
        if (!strict) {
            EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
                return n.find("the stop's checkpoint is lost, the previous one is kept") != std::string::npos;
            }));
        }
    }
    expect_resumed_run(2, "resuming from");
}

TEST_F(SlabCheckpoints, TheSlabsOfAProcessNoteOneAtATime) {
    // Each slab of the process warns from its own thread when its stop's piece cannot be
    // written; the handler (here one that would corrupt a vector if entered twice) gets them
    // one at a time. Before, two notes at once aborted a test now and then.
    static volatile std::sig_atomic_t stop = SIGTERM;
    BackendOptions o = o_;
    o.checkpoint.stop = &stop;
    std::atomic<int> inside{0};
    std::atomic<bool> overlapped{false};
    int notes = 0;
    o.on_note = [&](const std::string&) {
        if (inside.fetch_add(1) > 0) overlapped = true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a slow handler widens any overlap
        ++notes;
        inside.fetch_sub(1);
    };
    const auto backend = make_backend("cpu", o);
    {
        const test::FileSizeLimit limit(1000);  // below a piece's size: every slab's save fails
        EXPECT_THROW(run_local_slabs(s0_, s1_, kScorings[0], *backend->slab_engine(), 3, o), Interrupted);
    }
    EXPECT_GE(notes, 3) << "each slab warns";
    EXPECT_FALSE(overlapped);
}

TEST_F(SlabCheckpoints, PiecesWithoutACommonRowAreRefused) {
    interrupted_run(2);
    ASSERT_EQ(::unlink((o_.checkpoint.path + ".slab1of2.1").c_str()), 0);
    EXPECT_THROW(slab_align(s0_, s1_, kScorings[0], 2, o_), Error);  // rank 1 has no piece
    EXPECT_THROW(slab_align(s0_, s1_, kScorings[0], 3, o_), Error);  // nor can 3 ranks assemble a row
    EXPECT_TRUE(file_exists(o_.checkpoint.path + ".slab0of2.1")) << "refused pieces are left untouched";
    BackendOptions o = o_;
    o.checkpoint.restart = true;
    EXPECT_EQ(slab_align(s0_, s1_, kScorings[0], 2, o), want_);
}

TEST_F(SlabCheckpoints, ResumesFromAFlatCheckpoint) {
    leave_flat_checkpoint();
    expect_resumed_run(3, "the flat checkpoint");
    EXPECT_FALSE(file_exists(o_.checkpoint.path));
}

/// Without the marker, pieces without a common row are refused (PiecesWithoutACommonRowAreRefused);
/// with it, the pieces are spent and a run removes them.
TEST_F(SlabCheckpoints, PiecesOfAFinishedRunAreRemovedNotRefused) {
    leave_spent_pieces();
    expect_resumed_run(2, "had finished");  // a fresh run: its first note says what it removed
    EXPECT_FALSE(file_exists(o_.checkpoint.path + ".slab1of2.1"));
    EXPECT_FALSE(file_exists(completion_marker(o_.checkpoint.path)));

    // The same state again, now for one process, and with the flat checkpoint a finished
    // slab job had resumed from: spent as well, so it starts afresh rather than resuming.
    leave_flat_checkpoint();
    leave_spent_pieces();
    for (const std::string& note : expect_single_process_run("had finished"))
        EXPECT_EQ(note.find("resuming"), std::string::npos) << note;
    EXPECT_FALSE(file_exists(o_.checkpoint.path + ".slab1of2.1"));
    EXPECT_FALSE(file_exists(completion_marker(o_.checkpoint.path)));
}

TEST_F(SlabCheckpoints, ASingleProcessRunResumesFromPieces) {
    interrupted_run(3);
    expect_single_process_run("the pieces of 3 slabs");
    for (int k = 0; k < 3; ++k)
        EXPECT_FALSE(file_exists(o_.checkpoint.path + ".slab" + std::to_string(k) + "of3.1")) << "removed at the end";
}

TEST(SlabStaircase, StopsAtRandomMomentsResumeExactlyWithAnyRankCount) {
    std::mt19937_64 rng(test::seed() + 11);
    auto [s0, s1] = test::mutated_pair(30000, 12000, rng, 0.02);
    const Scoring& scoring = kScorings[rng() % 3];
    test::expect_staircases_resume_exactly("cpu", s0, s1, scoring, options(4, 3), reference_align(s0, s1, scoring),
                                           rng());
}

/// The slabs of one process (the cpu backend's --slabs): once the first has taken a stop, the
/// others leave their diagonals too, so their wavefronts may hold blocks half done. Every
/// stop's pieces are checked cell by cell, and resume to the reference answer.
TEST(SlabStaircase, SlabsOfOneProcessLeaveTheirDiagonalsOnAStop) {
    std::mt19937_64 rng(test::seed() + 12);
    auto [s0, s1] = test::mutated_pair(30000, 14000, rng, 0.02);
    const Scoring& scoring = kScorings[rng() % 3];
    const AlignmentEnd want = reference_align(s0, s1, scoring);
    TempDir dir;
    BackendOptions o = options(4, 3);
    o.slabs = 3;
    o.threads = 1;
    o.checkpoint.path = dir.file("group.ckpt");
    o.checkpoint.every_seconds = 1e9;
    const auto run = [&](const BackendOptions& with) { return make_backend("cpu", with)->align(s0, s1, scoring); };
    int64_t diagonals = 0;
    EXPECT_EQ(test::counting_diagonals(o, run, diagonals), want);
    for (int trial = 0; trial < 6; ++trial) {
        BackendOptions stopping = o;
        stopping.pruning = trial % 2 == 1;
        // A point of the run, not of the clock: a loaded machine cannot finish before it.
        const int64_t at = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(std::max<int64_t>(1, diagonals / 2)));
        ASSERT_TRUE(test::stopped_at(at, stopping, run)) << "a stop at diagonal " << at << " of " << diagonals;
        const std::vector<int64_t> rows = test::piece_rows(o.checkpoint.path, 3);
        std::printf("[ stop     ] diagonal %lld of %lld: rows %lld %lld %lld\n", static_cast<long long>(at),
                    static_cast<long long>(diagonals), static_cast<long long>(rows[0]), static_cast<long long>(rows[1]),
                    static_cast<long long>(rows[2]));
        test::expect_pieces_exact(s0, s1, scoring, o.checkpoint.path, 3, stopping.pruning);
        EXPECT_EQ(make_backend("cpu", o)->align(s0, s1, scoring), want) << "resumed from rows " << rows[0] << " "
                                                                         << rows[1] << " " << rows[2];
    }
}

TEST(SlabStaircase, PiecesThatDoNotFitTogetherAreRefused) {
    // A slab below its left neighbour's row must hold the left edge rows in between: a piece
    // that lost them (rewritten with a right CRC) is refused, by the same and another count.
    std::mt19937_64 rng(test::seed() + 12);
    auto [s0, s1] = test::mutated_pair(3000, 2500, rng, 0.01);
    TempDir dir;
    BackendOptions o = options(4, 1);  // one block column a slab: slab 0 stops at a row
    o.checkpoint.path = dir.file("gap.ckpt");
    static volatile std::sig_atomic_t stop = SIGTERM;
    BackendOptions stopping = o;
    stopping.checkpoint.stop = &stop;
    EXPECT_THROW(slab_align(s0, s1, kScorings[0], 2, stopping), Interrupted);
    const std::vector<int64_t> rows = test::piece_rows(o.checkpoint.path, 2);
    ASSERT_LT(rows[1], rows[0]) << "a stop at once: slab 1 has begun no band";
    std::string name = piece_name(o.checkpoint.path, 1, 2, 1);
    Checkpoint c = read_checkpoint(name);
    ASSERT_EQ(c.row + static_cast<int64_t>(c.left_h.size()), rows[0]);
    c.left_h.pop_back();
    c.left_e.pop_back();
    write_checkpoint(name, c);
    for (const int ranks : {2, 3}) {
        try {
            slab_align(s0, s1, kScorings[0], ranks, o);
            ADD_FAILURE() << ranks << " slabs resumed from pieces that do not fit";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("do not fit together"), std::string::npos) << e.what();
        }
    }
    EXPECT_TRUE(file_exists(name)) << "refused pieces are left untouched";
}

TEST_F(SlabCheckpoints, ASingleProcessRunRefusesIncompletePieces) {
    interrupted_run(2);
    ASSERT_EQ(::unlink((o_.checkpoint.path + ".slab1of2.1").c_str()), 0);
    EXPECT_THROW(make_backend("cpu", o_)->align(s0_, s1_, kScorings[0]), Error);
    EXPECT_TRUE(file_exists(o_.checkpoint.path + ".slab0of2.1")) << "refused pieces are left untouched";
    BackendOptions o = o_;
    o.checkpoint.restart = true;
    EXPECT_EQ(make_backend("cpu", o)->align(s0_, s1_, kScorings[0]), want_);
}

}  // namespace
}  // namespace chromalign
