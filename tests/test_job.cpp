//! @file Jobs of many record pairs on both strands (engine/job/): every pair's answer against the
//! reference on each strand alone, the tie rule between strands, the floor one strand gives the
//! other, tracebacks, and a job resumed from its state.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <map>
#include <random>
#include <set>

#include "engine/error.hpp"
#include "engine/job/job.hpp"
#include "engine/checkpoint/checkpoint_file.hpp"
#include "engine/job/job_files.hpp"
#include "engine/job/job_state.hpp"
#include "engine/orchestration/slab_run.hpp"
#include "kernels/reference/reference.hpp"
#include "kernels/reference/traceback.hpp"
#include "kernels/registry.hpp"
#include "tests/job_support.hpp"
#include "tests/pruning_support.hpp"
#include "tests/test_support.hpp"
#include "tools/mutate.hpp"

namespace chromalign {
namespace {

using test::one_pair;
using test::write_text;

const std::vector<std::vector<Strand>> kStrandSets = {
    {Strand::kForward, Strand::kReverse}, {Strand::kForward}, {Strand::kReverse}};

/// Stage 1 in this process on `backend`, counting its runs in `runs`.
Stage1Runner counting_runner(Backend& backend, int& runs) {
    return [&backend, &runs](const Sequence& s0, const Sequence& s1, const Scoring& scoring, const BackendOptions& run) {
        ++runs;
        const AlignmentEnd best = backend.align_run(s0, s1, scoring, run);
        return Stage1Outcome{best, backend.cells_pruned(), backend.cells_resumed(), backend.record_bests()};
    };
}

TEST(JobStrands, EveryPairAndStrandMatchesTheReferenceOnEveryBackend) {
    std::mt19937_64 rng(test::seed() + 501);
    std::vector<test::PruningCase> cases = test::pruning_cases(rng, 1500);
    // A pair whose better strand is the reverse one: S1 holds a mutated copy of S0's reverse complement.
    for (const auto& c : std::vector<test::PruningCase>(cases.begin(), cases.begin() + 3)) {
        test::PruningCase r = c;
        r.what = "reversed " + c.what;
        r.s1 = reverse_complement(c.s1);
        cases.push_back(r);
    }
    std::vector<std::pair<std::string, BackendOptions>> backends = {{"reference", {}}, {"cpu", test::grid(0, 0, 1)},
                                                                    {"cpu", test::grid(8, 3, 3, 2)}};
    backends.push_back({"cpu", test::grid(0, 0, 2)});
    backends.back().second.pruning = false;
    int reverse_won = 0;
    for (const auto& [name, options] : backends) {
        const auto backend = make_backend(name, options);
        for (const test::PruningCase& c : cases)
            for (const auto& strands : kStrandSets) {
                const test::Expected want = test::expected(c.s0, c.s1, c.scoring, strands);
                const JobResult got = test::run_on(*backend, one_pair(c.s0, c.s1, c.scoring, strands));
                ASSERT_EQ(got.answers.size(), 1u);
                const PairAnswer& a = got.answers[0];
                EXPECT_EQ(a.strand, want.strand) << name << ", " << c.what << ", " << strands.size() << " strands";
                EXPECT_EQ(a.best, want.best) << name << ", " << c.what << ", strand " << strand_name(a.strand);
                EXPECT_EQ(a.cells, c.s0.length() * c.s1.length() * static_cast<int64_t>(strands.size()));
                reverse_won += strands.size() == 2 && a.strand == Strand::kReverse;
            }
    }
    EXPECT_GE(reverse_won, 3 * 4) << "the reversed cases must be won on the reverse strand";
}

TEST(JobStrands, TheForwardStrandWinsATie) {
    // S1 is its own reverse complement: both strands compare S0 with the same bases.
    std::mt19937_64 rng(test::seed() + 502);
    const auto [s0, half] = test::mutated_pair(400, 300, rng);
    Sequence s1 = half;
    const Sequence rc = reverse_complement(half);
    s1.codes.insert(s1.codes.end(), rc.codes.begin(), rc.codes.end());
    ASSERT_EQ(reverse_complement(s1).codes, s1.codes);
    for (const char* name : {"reference", "cpu"}) {
        const auto backend = make_backend(name, {});
        const JobResult got = test::run_on(*backend, one_pair(s0, s1, Scoring{}, kStrandSets[0]));
        EXPECT_EQ(got.answers[0].strand, Strand::kForward) << name;
        EXPECT_EQ(got.answers[0].best, reference_align(s0, s1, Scoring{})) << name;
    }
}

TEST(JobStrands, AStrongForwardStrandPrunesTheReverse) {
    std::mt19937_64 rng(test::seed() + 503);
    const auto [s0, s1] = test::mutated_pair(60000, 60000, rng);
    const auto backend = make_backend("cpu", {});
    const JobResult forward = test::run_on(*backend, one_pair(s0, s1, Scoring{}, kStrandSets[1]));
    const JobResult both = test::run_on(*backend, one_pair(s0, s1, Scoring{}, kStrandSets[0]));
    EXPECT_EQ(both.answers[0].best, forward.answers[0].best);
    const int64_t reverse_pruned = both.cells_pruned - forward.cells_pruned;
    // Left live on the reverse strand: about the corner where min(m - i, n - j) still reaches the
    // forward score, and nothing of the band an alignment would need.
    std::printf("[ pruned   ] forward %.1f%%, reverse %.1f%% (forward score %d)\n",
                100.0 * forward.cells_pruned / (60000.0 * 60000), 100.0 * reverse_pruned / (60000.0 * 60000),
                forward.answers[0].best.score);
    EXPECT_GT(reverse_pruned, 60000LL * 60000 * 8 / 10) << "the reverse strand starts from the forward best";
}

TEST(JobRecords, EveryRecordPairIsItsOwnOptimumBestFirst) {
    std::mt19937_64 rng(test::seed() + 504);
    JobSpec spec;
    spec.scoring = Scoring{};
    for (int k = 0; k < 3; ++k) {
        auto [a, b] = k == 1 ? test::random_pair(700, 500, rng) : test::mutated_pair(300 + 200 * k, 600, rng);
        a.name = "q" + std::to_string(k);
        b.name = "t" + std::to_string(k);
        spec.s0.push_back(a);
        if (k < 2) spec.s1.push_back(k == 0 ? reverse_complement(b) : b);
    }
    for (size_t a = 0; a < spec.s0.size(); ++a)
        for (size_t b = 0; b < spec.s1.size(); ++b) spec.pairs.push_back({a, b});
    for (const char* name : {"reference", "cpu"}) {
        const auto backend = make_backend(name, test::grid(0, 4, 2));
        const JobResult got = test::run_on(*backend, spec);
        ASSERT_EQ(got.answers.size(), spec.pairs.size());
        for (size_t k = 0; k < got.answers.size(); ++k) {
            const PairAnswer& a = got.answers[k];
            const RecordPair& p = spec.pairs[a.pair];
            const test::Expected want = test::expected(spec.s0[p.s0], spec.s1[p.s1], spec.scoring, spec.strands);
            EXPECT_EQ(a.best, want.best) << name << ": pair " << a.pair;
            EXPECT_EQ(a.strand, want.strand) << name << ": pair " << a.pair;
            if (k > 0) {
                EXPECT_GE(got.answers[k - 1].best.score, a.best.score) << "answers are best first";
            }
        }
    }
}


TEST(JobRecords, TheBestSoFarOfTheJobNeverFalls) {
    // A related pair, then an unrelated one long enough to report: the progress line's "best
    // so far" is the job's, so the second pair's reports keep the first pair's best. Before,
    // they showed the second pair's own, and the last line of a both-strands run showed the
    // reverse strand's best (22) after the forward one's 440147.
    std::mt19937_64 rng(test::seed() + 505);
    JobSpec spec;
    spec.scoring = Scoring{};
    spec.strands = {Strand::kForward};
    auto [a, b] = test::mutated_pair(20000, 20000, rng);
    auto [c, d] = test::random_pair(300000, 300000, rng);
    spec.s0 = {a, c};
    spec.s1 = {b, d};
    spec.pairs = {{0, 0}, {1, 1}};
    JobOptions options;
    std::vector<std::pair<int64_t, int32_t>> reports;  // (comparison, best so far)
    options.on_progress = [&](const Progress& p, int64_t comparison) { reports.emplace_back(comparison, p.best_score); };
    const auto backend = make_backend("cpu", test::grid(0, 0, 2));
    const JobResult got = test::run_on(*backend, spec, options);
    ASSERT_EQ(got.answers.size(), 2u);
    const int32_t first = got.answers[0].pair == 0 ? got.answers[0].best.score : got.answers[1].best.score;
    const auto second = std::find_if(reports.begin(), reports.end(), [](const auto& r) { return r.first == 1; });
    ASSERT_NE(second, reports.end()) << "no report during the unrelated pair";
    for (auto r = second; r != reports.end(); ++r) EXPECT_EQ(r->second, first) << "comparison " << r->first;
    for (size_t k = 1; k < reports.size(); ++k) EXPECT_GE(reports[k].second, reports[k - 1].second) << "report " << k;
}
TEST(JobTraceback, EachPairGetsTheReferenceAlignmentOfItsStrand) {
    std::mt19937_64 rng(test::seed() + 505);
    JobSpec spec;
    for (int k = 0; k < 2; ++k) {
        auto [a, b] = test::mutated_pair(900, 800, rng);
        spec.s0.push_back(a);
        spec.s1.push_back(k == 1 ? reverse_complement(b) : b);
    }
    spec.pairs = {{0, 0}, {0, 1}, {1, 1}, {1, 0}};
    const test::TempDir rows;
    JobOptions options;
    options.traceback = true;
    options.rows_dir = rows.path().string();
    options.backend.special_rows.budget_bytes = int64_t{1} << 30;
    const auto backend = make_backend("cpu", {});
    const JobResult got = test::run_on(*backend, spec, options);
    for (const PairAnswer& a : got.answers) {
        const RecordPair& p = spec.pairs[a.pair];
        const Sequence s1 = a.strand == Strand::kForward ? spec.s1[p.s1] : reverse_complement(spec.s1[p.s1]);
        ASSERT_TRUE(a.alignment.has_value()) << "pair " << a.pair;
        const Alignment want = reference_traceback(spec.s0[p.s0], s1, spec.scoring);
        EXPECT_EQ(a.alignment->runs, want.runs) << "pair " << a.pair;
        EXPECT_EQ(a.alignment->s0_start, want.s0_start);
        EXPECT_EQ(a.alignment->s1_start, want.s1_start);
        EXPECT_EQ(a.alignment->score, a.best.score);
    }
    // min_score leaves the weak pairs untraced.
    options.min_score = got.answers.front().best.score;
    const JobResult strong = test::run_on(*backend, spec, options);
    EXPECT_TRUE(strong.answers.front().alignment.has_value());
    EXPECT_FALSE(strong.answers.back().alignment.has_value());
}

TEST(JobAlignments, TheSearchAloneGivesWhatStage1AndTheTracebackGive) {
    // With --alignments K > 1 the search's first pass replaces stage 1 and the traceback: each
    // pair's best, strand, alignments and cells must be theirs. S0's first record ends in a
    // copy of its bases 200-499, a second alignment; the pairs with a random record reach no
    // least score, and their bests are then the first passes' best cells.
    std::mt19937_64 rng(test::seed() + 510);
    JobSpec spec;
    auto [a, b] = test::mutated_pair(1200, 1100, rng);
    a.codes.insert(a.codes.end(), a.codes.begin() + 200, a.codes.begin() + 500);
    spec.s0 = {a, make_sequence("random0", gen::random_dna(700, rng))};
    spec.s1 = {reverse_complement(b), make_sequence("random1", gen::random_dna(800, rng))};
    spec.pairs = {{0, 0}, {0, 1}, {1, 1}};
    const test::TempDir rows;
    JobOptions options;
    options.traceback = true;
    options.alignments = 4;
    options.min_score = 30;
    options.rows_dir = rows.path().string();
    options.backend.special_rows.budget_bytes = int64_t{1} << 30;
    const auto backend = make_backend("cpu", test::grid(8, 3, 3, 2));
    options.search_alone = false;
    const JobResult want = test::run_on(*backend, spec, options);
    options.search_alone = true;
    const JobResult got = test::run_on(*backend, spec, options);
    ASSERT_EQ(got.answers.size(), want.answers.size());
    int searched = 0, unaligned = 0;
    for (size_t k = 0; k < want.answers.size(); ++k) {
        const PairAnswer &g = got.answers[k], &w = want.answers[k];
        const std::string what = "pair " + std::to_string(w.pair) + ", seed " + std::to_string(test::seed());
        EXPECT_EQ(g.pair, w.pair) << what;
        EXPECT_EQ(g.best, w.best) << what;
        EXPECT_EQ(g.strand, w.strand) << what;
        EXPECT_EQ(g.cells, w.cells) << what;
        EXPECT_GT(g.declump.first_cells, 0) << what << ": no stage 1 beside the search";
        EXPECT_EQ(g.seconds, g.declump.first_seconds) << what;
        ASSERT_EQ(g.alignment.has_value(), w.alignment.has_value()) << what;
        if (!w.alignment) {
            ++unaligned;
            EXPECT_LT(w.best.score, options.min_score) << what;
            continue;
        }
        EXPECT_EQ(*g.alignment, *w.alignment) << what;
        ASSERT_EQ(g.others.size(), w.others.size()) << what;
        for (size_t r = 0; r < w.others.size(); ++r) {
            EXPECT_EQ(g.others[r].strand, w.others[r].strand) << what << ", alignment " << r + 2;
            EXPECT_EQ(g.others[r].alignment, w.others[r].alignment) << what << ", alignment " << r + 2;
        }
        EXPECT_EQ(g.traceback_seconds, 0.0) << what << ": no traceback runs beside the search";
        searched += !g.others.empty();
    }
    EXPECT_GE(searched, 1) << "no pair with several alignments to compare";
    EXPECT_GE(unaligned, 1) << "no pair below the least score";
    EXPECT_EQ(got.answers.front().strand, Strand::kReverse) << "the best pair lies on the reverse strand";
}

TEST(JobAlignments, TheSearchAloneReportsItsFirstPassesAsTheJobsProgress) {
    // Two pairs, both strands: four first passes, each reported from its start to its end as
    // its comparison, the job's cells done rising to all of them. After each pass its search
    // tells each alignment it finds, its cells all done; a pair's strands are searched at
    // once, so the forward strand's may tell while the reverse one's pass runs.
    std::mt19937_64 rng(test::seed() + 511);
    JobSpec spec;
    auto [a, b] = test::mutated_pair(900, 1000, rng);
    spec.s0 = {a};
    spec.s1 = {b, reverse_complement(b)};
    spec.pairs = {{0, 0}, {0, 1}};
    JobOptions options;
    options.traceback = true;
    options.alignments = 3;
    std::vector<std::pair<int64_t, Progress>> reports;
    options.on_progress = [&](const Progress& p, int64_t comparison) { reports.emplace_back(comparison, p); };
    const auto backend = make_backend("cpu", test::grid(8, 3, 3, 2));
    const JobResult got = test::run_on(*backend, spec, options);
    ASSERT_EQ(got.answers.size(), 2u);
    ASSERT_FALSE(reports.empty());
    std::set<int64_t> comparisons;
    std::map<int64_t, int> found;  // by comparison: alignments its search told
    int64_t before = 0;
    for (const auto& [comparison, p] : reports) {
        comparisons.insert(comparison);
        EXPECT_EQ(p.cells_total, spec.cells());
        EXPECT_GE(p.cells_done, before) << "comparison " << comparison;
        EXPECT_EQ(p.cells_done + p.cells_left, p.cells_total) << "comparison " << comparison;
        before = p.cells_done;
        if (p.alignments_wanted == 0) {
            EXPECT_EQ(found.count(comparison), 0u) << "comparison " << comparison << ": cells told after its search";
            continue;
        }
        EXPECT_EQ(p.alignments_wanted, options.alignments);
        EXPECT_EQ(p.alignments_found, ++found[comparison]) << "comparison " << comparison;
        EXPECT_LE(p.alignment_score, p.best_score);
        EXPECT_GE(p.cells_done, (comparison + 1) * spec.cells() / 4)
            << "comparison " << comparison << ": its pass and those before it are done";
        EXPECT_LE(p.cells_done, (comparison / 2 + 1) * spec.cells() / 2)
            << "comparison " << comparison << ": no later pair's pass has begun";
    }
    EXPECT_EQ(comparisons, (std::set<int64_t>{0, 1, 2, 3}));
    int64_t alignments = 0;
    for (const PairAnswer& a : got.answers) alignments += 1 + static_cast<int64_t>(a.others.size());
    int64_t told = 0;
    for (const auto& [comparison, n] : found) told += n;
    EXPECT_GE(told, alignments) << "every alignment kept was told as found";
    EXPECT_EQ(reports.back().second.cells_done, spec.cells()) << "the last pass's end is the job's";
}

TEST(JobAlignments, ASearchAloneStoppedAndResumedGivesEachPairItsBest) {
    // Pair 0 (random records) reaches no least score: its strands' searches end with no
    // alignment and are saved so. A stop in pair 1's first pass ends the job; the rerun takes
    // pair 0's searches up as ended, which hold no best cell, so stage 1 gives it, and pair 1
    // is searched again.
    std::mt19937_64 rng(test::seed() + 512);
    JobSpec spec;
    auto [a, b] = test::mutated_pair(700, 800, rng);
    spec.s0 = {make_sequence("random0", gen::random_dna(600, rng)), a};
    spec.s1 = {make_sequence("random1", gen::random_dna(650, rng)), b};
    spec.pairs = {{0, 0}, {1, 1}};
    const auto backend = make_backend("cpu", test::grid(8, 3, 3, 2));
    JobOptions options;
    options.traceback = true;
    options.alignments = 3;
    options.min_score = 40;
    int stage1_runs = 0;
    const Stage1Runner counting = counting_runner(*backend, stage1_runs);
    options.search_alone = false;
    const JobResult want = run_job(spec, options, *backend, counting);
    ASSERT_FALSE(want.answers.back().alignment.has_value()) << "pair 0 must reach no least score";
    ASSERT_TRUE(want.answers.front().alignment.has_value());

    const test::TempDir dir;
    options.search_alone = true;
    options.backend.checkpoint.path = dir.file("job.ckpt");
    options.backend.checkpoint.every_seconds = 0;
    volatile std::sig_atomic_t stop = 0;
    options.backend.checkpoint.stop = &stop;
    options.on_progress = [&](const Progress&, int64_t comparison) {
        if (comparison == 2) stop = 15;  // pair 1's forward pass has begun
    };
    stage1_runs = 0;
    EXPECT_THROW(run_job(spec, options, *backend, counting), Interrupted);
    EXPECT_EQ(stage1_runs, 0);
    ASSERT_TRUE(file_exists(job_state_path(options.backend.checkpoint.path)));
    stop = 0;
    options.on_progress = {};
    const JobResult got = run_job(spec, options, *backend, counting);
    EXPECT_EQ(stage1_runs, 2) << "pair 0's two strands";
    ASSERT_EQ(got.answers.size(), want.answers.size());
    for (size_t k = 0; k < want.answers.size(); ++k) {
        const PairAnswer &g = got.answers[k], &w = want.answers[k];
        EXPECT_EQ(g.pair, w.pair);
        EXPECT_EQ(g.best, w.best) << "pair " << w.pair << ", seed " << test::seed();
        EXPECT_EQ(g.strand, w.strand) << "pair " << w.pair;
        ASSERT_EQ(g.alignment.has_value(), w.alignment.has_value()) << "pair " << w.pair;
        if (w.alignment) {
            EXPECT_EQ(*g.alignment, *w.alignment);
        }
    }
}

TEST(JobAlignments, AStopBetweenPairsCountsTheComparisonsSearched) {
    // A stop once pair 0's search ended is seen before pair 1's: its two strands are the
    // comparisons the state holds, searched without stage 1.
    std::mt19937_64 rng(test::seed() + 513);
    JobSpec spec;
    auto [a, b] = test::mutated_pair(700, 800, rng);
    spec.s0 = {a, make_sequence("random0", gen::random_dna(600, rng))};
    spec.s1 = {b, make_sequence("random1", gen::random_dna(650, rng))};
    spec.pairs = {{0, 0}, {1, 1}};
    const test::TempDir dir;
    JobOptions options;
    options.traceback = true;
    options.alignments = 3;
    options.backend.checkpoint.path = dir.file("job.ckpt");
    volatile std::sig_atomic_t stop = 0;
    options.backend.checkpoint.stop = &stop;
    options.on_note = [&](const std::string& text) {
        if (text.find("alignments sharing no pair found") != std::string::npos) stop = 15;
    };
    const auto backend = make_backend("cpu", test::grid(8, 3, 3, 2));
    int stage1_runs = 0;
    try {
        run_job(spec, options, *backend, counting_runner(*backend, stage1_runs));
        ADD_FAILURE() << "the stop was not seen";
    } catch (const Interrupted& e) {
        EXPECT_NE(std::string(e.what()).find("between two comparisons; 2 of 4 are saved"), std::string::npos) << e.what();
    }
    EXPECT_EQ(stage1_runs, 0);
}

TEST(JobStacks, StackedRecordsAreEachTheirOwnOptimum) {
    std::mt19937_64 rng(test::seed() + 508);
    for (const auto& [name, scoring] : std::vector<std::pair<std::string, Scoring>>{
             {"default", Scoring{}}, {"hoxd70", test::hoxd70()}, {"tiny", test::matrix_scorings(rng)[2].scoring}})
        for (const BackendOptions& grid : {test::grid(0, 0, 1), test::grid(8, 3, 3, 2), test::grid(0, 0, 2, 1)}) {
            const auto backend = make_backend("cpu", grid);
            SlabEngine* engine = backend->slab_engine();
            const int64_t rows = engine->slab_shape(1 << 16, 9000, scoring).rows_per_band;
            const JobSpec spec = test::stacked_spec(rng, rows, scoring);
            ASSERT_LT(spec.s0.back().length(), engine->stack_below(scoring)) << "the records must be stacked";
            const JobResult got = test::run_on(*backend, spec);
            int stacked_checked = 0;
            for (const PairAnswer& a : got.answers) {
                const RecordPair& p = spec.pairs[a.pair];
                const test::Expected want = test::expected(spec.s0[p.s0], spec.s1[p.s1], scoring, spec.strands);
                ASSERT_EQ(a.best, want.best) << name << ", " << spec.s0[p.s0].name << " (" << spec.s0[p.s0].length()
                                             << " bases) x " << spec.s1[p.s1].name << ", rows " << rows;
                EXPECT_EQ(a.strand, want.strand) << name << ", " << spec.s0[p.s0].name;
                ++stacked_checked;
            }
            EXPECT_EQ(stacked_checked, static_cast<int>(spec.pairs.size()));
        }
}

TEST(JobStacks, AStackBeyondTheScoreRangeOfItsRecordsIsSplit) {
    // A match of 2^20 allows 1020 bases a sequence. Records of 600 and 1000 bases pass; a
    // stack of two (or one padded to whole bands) does not, and the job was refused with the
    // stack's length ("sequences of 1536 x 2399") where --no-stack answered.
    std::mt19937_64 rng(test::seed() + 509);
    const Scoring scoring(1 << 20, -3, 5, 2);
    ASSERT_EQ(scoring.longest_length(), 1020);
    JobSpec spec;
    spec.scoring = scoring;
    spec.strands = {Strand::kForward};
    const std::string target = gen::random_dna(2400, rng);
    for (const auto& [from, length] : {std::pair{100, 600}, std::pair{900, 600}, std::pair{1300, 1000}})
        spec.s0.push_back(make_sequence("r" + std::to_string(from), target.substr(from, length)));
    spec.s1 = {make_sequence("t", target)};
    spec.pairs = {{0, 0}, {1, 0}, {2, 0}};
    const auto backend = make_backend("cpu", test::grid(0, 0, 2));
    const JobResult got = test::run_on(*backend, spec);
    ASSERT_EQ(got.answers.size(), 3u);
    for (const PairAnswer& a : got.answers) {
        const RecordPair& p = spec.pairs[a.pair];
        EXPECT_EQ(a.best, test::expected(spec.s0[p.s0], spec.s1[p.s1], scoring, spec.strands).best)
            << spec.s0[p.s0].name;
    }
}

TEST(JobStacks, StackedAndOneByOneGiveTheSameAnswersAndAlignments) {
    std::mt19937_64 rng(test::seed() + 509);
    const auto backend = make_backend("cpu", {});
    const int64_t rows = backend->slab_engine()->slab_shape(1 << 16, 9000, Scoring{}).rows_per_band;
    const JobSpec spec = test::stacked_spec(rng, rows, Scoring{});
    JobOptions options;
    options.traceback = true;
    const JobResult stacked = test::run_on(*backend, spec, options);
    options.stack = false;
    const JobResult alone = test::run_on(*backend, spec, options);
    ASSERT_EQ(stacked.answers.size(), alone.answers.size());
    for (size_t k = 0; k < alone.answers.size(); ++k) {
        EXPECT_EQ(stacked.answers[k].pair, alone.answers[k].pair);
        EXPECT_EQ(stacked.answers[k].best, alone.answers[k].best);
        EXPECT_EQ(stacked.answers[k].strand, alone.answers[k].strand);
        ASSERT_EQ(stacked.answers[k].alignment.has_value(), alone.answers[k].alignment.has_value());
        if (alone.answers[k].alignment) {
            EXPECT_EQ(stacked.answers[k].alignment->runs, alone.answers[k].alignment->runs);
        }
    }
    EXPECT_EQ(stacked.cells, alone.cells);
}

TEST(JobState, AStoppedJobResumesWithoutRunningItsFinishedComparisons) {
    std::mt19937_64 rng(test::seed() + 506);
    JobSpec spec;
    for (int k = 0; k < 3; ++k) {
        auto [a, b] = test::mutated_pair(500, 500, rng);
        a.name = "a" + std::to_string(k);
        b.name = "b" + std::to_string(k);
        spec.s0.push_back(a);
        spec.s1.push_back(b);
    }
    for (size_t k = 0; k < 3; ++k) spec.pairs.push_back({k, (k + 1) % 3});
    const auto backend = make_backend("cpu", {});
    const JobResult whole = test::run_on(*backend, spec);

    const test::TempDir dir;
    JobOptions options;
    options.stack = false;  // each comparison runs on its own (stacks: JobStacks)
    options.backend.checkpoint.path = dir.file("job.ckpt");
    options.backend.checkpoint.every_seconds = 0;  // the state is written after every comparison
    int calls = 0, stop_at = 4;
    const Stage1Runner stopping = [&](const Sequence& s0, const Sequence& s1, const Scoring& scoring,
                                      const BackendOptions& run) {
        if (++calls == stop_at) throw Interrupted(15, "stopped by the test");
        EXPECT_EQ(run.checkpoint.path, comparison_checkpoint(options.backend.checkpoint.path, (calls - 1) / 2,
                                                             calls % 2 ? Strand::kForward : Strand::kReverse));
        const AlignmentEnd best = backend->align_run(s0, s1, scoring, run);
        return Stage1Outcome{best, backend->cells_pruned(), backend->cells_resumed(), backend->record_bests()};
    };
    EXPECT_THROW(run_job(spec, options, *backend, stopping), Interrupted);
    ASSERT_TRUE(file_exists(job_state_path(options.backend.checkpoint.path)));
    // The rerun takes the three finished comparisons from the state and runs the other three.
    calls = 0;
    stop_at = -1;
    int runs = 0;
    const Stage1Runner counting = counting_runner(*backend, runs);
    const JobResult resumed = run_job(spec, options, *backend, counting);
    EXPECT_EQ(runs, 3);
    ASSERT_EQ(resumed.answers.size(), whole.answers.size());
    for (size_t k = 0; k < whole.answers.size(); ++k) {
        EXPECT_EQ(resumed.answers[k].pair, whole.answers[k].pair);
        EXPECT_EQ(resumed.answers[k].best, whole.answers[k].best);
        EXPECT_EQ(resumed.answers[k].strand, whole.answers[k].strand);
    }
    // Pair 0's two strands and pair 1's forward one were finished: they count as resumed.
    const auto cells = [&](size_t k) { return spec.s0[spec.pairs[k].s0].length() * spec.s1[spec.pairs[k].s1].length(); };
    EXPECT_EQ(resumed.cells_resumed, 2 * cells(0) + cells(1));
    EXPECT_FALSE(file_exists(job_state_path(options.backend.checkpoint.path))) << "a finished job leaves no state";
}

TEST(JobState, TheStateOfAnotherJobIsRefusedUnlessRestarted) {
    std::mt19937_64 rng(test::seed() + 507);
    const auto [s0, s1] = test::mutated_pair(300, 300, rng);
    const test::TempDir dir;
    JobOptions options;
    options.backend.checkpoint.path = dir.file("job.ckpt");
    const std::string state = job_state_path(options.backend.checkpoint.path);
    write_text(state, "{\"format\": \"chromalign job state, version 1\", \"job\": \"1\", \"done\": [], "
                            "\"alignments\": []}\n");
    const auto backend = make_backend("cpu", {});
    try {
        test::run_on(*backend, one_pair(s0, s1, Scoring{}, kStrandSets[0]), options);
        ADD_FAILURE() << "the state of another job was taken";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("another job"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("--restart"), std::string::npos) << e.what();
    }
    options.backend.checkpoint.restart = true;
    EXPECT_EQ(test::run_on(*backend, one_pair(s0, s1, Scoring{}, kStrandSets[0]), options).answers[0].best,
              test::expected(s0, s1, Scoring{}, kStrandSets[0]).best);
    // A forged answer beyond the matrix is refused, not reported.
    options.backend.checkpoint.restart = false;
    JobSpec spec = one_pair(s0, s1, Scoring{}, kStrandSets[0]);
    write_text(state, "{\"format\": \"chromalign job state, version 1\", \"job\": \"" +
                                std::to_string(job_fingerprint(spec)) +
                                "\", \"done\": [{\"pair\": 0, \"strand\": \"forward\", \"score\": 20, \"s0_end\": 5, "
                                "\"s1_end\": 999, \"floor\": 0, \"cells_pruned\": 0}], \"alignments\": []}\n");
    EXPECT_THROW(test::run_on(*backend, spec, options), Error);
}

}  // namespace
}  // namespace chromalign
