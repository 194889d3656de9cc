//! @file The bound pass (engine/bound/): a path's best stretch against a brute force, bridges
//! against a textbook global alignment, minimap2's bound against the optimum, and jobs whose
//! stage 1 prunes from injected bounds (zero, below the optimum, the optimum, above it).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "engine/bound/chain.hpp"
#include "engine/bound/mapped_pairs.hpp"
#include "engine/bound/minimap2_bound.hpp"
#include "engine/bound/minimap2_support.hpp"
#include "engine/bound/shared_kmers.hpp"
#include "engine/error.hpp"
#include "engine/job/job.hpp"
#include "engine/job/job_files.hpp"
#include "engine/job/job_state.hpp"
#include "engine/job/strand.hpp"
#include "kernels/reference/reference.hpp"
#include "io/fasta.hpp"
#include "kernels/registry.hpp"
#include "tests/job_support.hpp"
#include "tests/pruning_support.hpp"
#include "tests/test_support.hpp"
#include "tools/mutate.hpp"

namespace chromalign {
namespace {

/// A random monotone path through s0 x s1 from (i0, j0), with runs of every kind.
MatrixPath random_path(std::mt19937_64& rng, int64_t m, int64_t n) {
    MatrixPath path;
    path.s0_from = static_cast<int64_t>(rng() % static_cast<uint64_t>(m / 4 + 1));
    path.s1_from = static_cast<int64_t>(rng() % static_cast<uint64_t>(n / 4 + 1));
    int64_t i = path.s0_from, j = path.s1_from;
    while (true) {
        const char op = "MMMMID"[rng() % 6];
        const int64_t length = 1 + static_cast<int64_t>(rng() % 12);
        if (i + (op == 'D' ? 0 : length) > m || j + (op == 'I' ? 0 : length) > n) break;
        path.add(op, length);
        i += op == 'D' ? 0 : length;
        j += op == 'I' ? 0 : length;
    }
    return path;
}

/// The best score of a stretch of `path` that starts and ends with a pair, by trying them all.
int64_t brute_best_stretch(const MatrixPath& path, const Sequence& s0, const Sequence& s1, const Scoring& scoring) {
    std::vector<char> ops;
    for (const PathRun& r : path.runs) ops.insert(ops.end(), static_cast<size_t>(r.length), r.op);
    const int64_t further = std::min(scoring.gap_extend, scoring.gap_open);
    int64_t best = 0;
    int64_t i0 = path.s0_from, j0 = path.s1_from;
    for (size_t a = 0; a < ops.size(); ++a) {
        int64_t score = 0, i = i0, j = j0;
        for (size_t b = a; b < ops.size(); ++b) {
            if (ops[b] == 'M') {
                score += scoring.score(s0.codes[static_cast<size_t>(i++)], s1.codes[static_cast<size_t>(j++)]);
                if (ops[a] == 'M') best = std::max(best, score);
            } else {
                score -= b > a && ops[b - 1] == ops[b] ? further : scoring.gap_open;
                (ops[b] == 'I' ? i : j) += 1;
            }
        }
        if (ops[a] == 'M') {
            ++i0, ++j0;
        } else {
            (ops[a] == 'I' ? i0 : j0) += 1;
        }
    }
    return best;
}

/// The best global alignment score of s0[i0, i1) x s1[j0, j1), gaps costed as rescore() does.
int64_t brute_global(const Sequence& s0, const Sequence& s1, int64_t i0, int64_t i1, int64_t j0, int64_t j1,
                     const Scoring& scoring) {
    const int64_t open = scoring.gap_open, ext = std::min(scoring.gap_extend, scoring.gap_open);
    const int64_t rows = i1 - i0, cols = j1 - j0, none = INT64_MIN / 4;
    std::vector<std::vector<int64_t>> h(rows + 1, std::vector<int64_t>(cols + 1, none)), e = h, f = h;
    h[0][0] = 0;
    for (int64_t i = 0; i <= rows; ++i)
        for (int64_t j = 0; j <= cols; ++j) {
            if (i == 0 && j == 0) continue;
            if (i > 0) f[i][j] = std::max(h[i - 1][j] - open, f[i - 1][j] - ext);
            if (j > 0) e[i][j] = std::max(h[i][j - 1] - open, e[i][j - 1] - ext);
            int64_t pair = none;
            if (i > 0 && j > 0)
                pair = h[i - 1][j - 1] + scoring.score(s0.codes[static_cast<size_t>(i0 + i - 1)],
                                                       s1.codes[static_cast<size_t>(j0 + j - 1)]);
            h[i][j] = std::max({pair, e[i][j], f[i][j]});
        }
    return h[rows][cols];
}

TEST(BoundPath, TheBestStretchIsTheBestSegmentAndRescoresToIt) {
    const uint64_t seed = test::seed() + 901;
    std::mt19937_64 rng(seed);
    const std::vector<Scoring> scorings = {Scoring{}, Scoring(2, -3, 5, 2), Scoring(1, -1, 2, 3)};
    for (int t = 0; t < 300; ++t) {
        const int64_t m = 1 + static_cast<int64_t>(rng() % 120), n = 1 + static_cast<int64_t>(rng() % 120);
        const auto [s0, s1] = test::mutated_pair(m, n, rng);
        const Scoring& scoring = scorings[static_cast<size_t>(t) % scorings.size()];
        const MatrixPath path = random_path(rng, m, n);
        const Alignment a = best_stretch(path, s0, s1, scoring);
        ASSERT_EQ(a.score, brute_best_stretch(path, s0, s1, scoring)) << "seed " << seed << ", case " << t;
        if (a.score > 0) {
            EXPECT_EQ(rescore(a, s0, s1, scoring), a.score) << "seed " << seed << ", case " << t;
        }
        EXPECT_LE(a.score, reference_align(s0, s1, scoring).score) << "a path never beats the optimum";
    }
}

TEST(BoundPath, APathThatLeavesTheMatrixIsRefused) {
    const Sequence s = make_sequence("s", "ACGTACGT");
    MatrixPath path;
    path.s0_from = 4;
    path.add('M', 5);
    EXPECT_THROW(best_stretch(path, s, s, Scoring{}), Error);
}

/// `text` with about one base in ten substituted.
std::string substituted(std::string text, std::mt19937_64& rng) {
    for (char& c : text)
        if (rng() % 10 == 0) c = "ACGT"[rng() % 4];
    return text;
}

TEST(BoundChain, BlocksAreJoinedByTheBestGlobalPathBetweenThem) {
    std::mt19937_64 rng(test::seed() + 902);
    for (int t = 0; t < 60; ++t) {
        const Scoring scoring = t % 2 ? Scoring{} : Scoring(2, -3, 5, 2);
        // S0 = X G Y and S1 = X' H Y', X' and Y' similar to X and Y, G and H unrelated gaps of up
        // to 40 bases: blocks along X x X' and Y x Y', to be chained across G x H. Chaining
        // pays only where each block outscores the bridge's estimate (down to -81 at +1/-3):
        // a block of 300 bases scores about 210 +- 18 there (150 bases fell below it with seeds
        // 145 and 1104 of test::seed()).
        const int64_t a_len = 300 + static_cast<int64_t>(rng() % 100), di = static_cast<int64_t>(rng() % 40),
                      dj = static_cast<int64_t>(rng() % 40), b_len = 300 + static_cast<int64_t>(rng() % 100);
        const std::string x = gen::random_dna(a_len, rng), y = gen::random_dna(b_len, rng);
        const Sequence s0 = make_sequence("s0", x + gen::random_dna(di, rng) + y);
        const Sequence s1 = make_sequence("s1", substituted(x, rng) + gen::random_dna(dj, rng) + substituted(y, rng));
        MatrixPath a, b;
        a.add('M', a_len);
        b.s0_from = a_len + di, b.s1_from = a_len + dj;
        b.add('M', b_len);
        const MatrixPath chain = chain_blocks({b, a}, s0, s1, scoring);
        ASSERT_EQ(chain.s0_from, 0) << "seed " << test::seed() << ", case " << t;
        ASSERT_EQ(chain.s0_to(), s0.length());
        ASSERT_EQ(chain.s1_to(), s1.length());
        const int64_t own = path_score(a, s0, s1, scoring) + path_score(b, s0, s1, scoring);
        const int64_t bridge = brute_global(s0, s1, a_len, a_len + di, a_len, a_len + dj, scoring);
        const int64_t joined = path_score(chain, s0, s1, scoring);
        EXPECT_EQ(joined, own + bridge) << "seed " << test::seed() << ", case " << t << ": " << di << " x " << dj;
    }
}

TEST(BoundChain, ASmallOverlapIsCutAndALargeOneIsNotChained) {
    std::mt19937_64 rng(test::seed() + 903);
    const Sequence s = make_sequence("s", gen::random_dna(5000, rng));
    const auto block = [](int64_t from, int64_t length) {
        MatrixPath p;
        p.s0_from = p.s1_from = from;
        p.add('M', length);
        return p;
    };
    const auto columns = [](const MatrixPath& p) {
        int64_t c = 0;
        for (const PathRun& r : p.runs) c += r.length;
        return c;
    };
    // 50 bases of overlap: the second block is cut to start where the first ends.
    const MatrixPath cut = chain_blocks({block(0, 2000), block(1950, 2000)}, s, s, Scoring{});
    EXPECT_EQ(cut.s0_from, 0);
    EXPECT_EQ(columns(cut), 3950);
    EXPECT_EQ(path_score(cut, s, s, Scoring{}), 3950);
    // 1500 bases of overlap: one block or the other, the better.
    const MatrixPath either = chain_blocks({block(0, 2000), block(500, 3000)}, s, s, Scoring{});
    EXPECT_EQ(either.s0_from, 500);
    EXPECT_EQ(columns(either), 3000);
}

/// The optimum of s0 x s1 from the cpu backend without pruning (the reference is too slow at
/// these sizes); the cpu backend is itself checked against the reference elsewhere.
AlignmentEnd optimum(const Sequence& s0, const Sequence& s1, const Scoring& scoring) {
    BackendOptions options;
    options.pruning = false;
    return make_backend("cpu", options)->align(s0, s1, scoring);
}

TEST(Minimap2Bound, TheBoundIsAPathScoreBelowTheOptimumAndCloseToIt) {
    const uint64_t seed = test::seed() + 904;
    std::mt19937_64 rng(seed);
    Minimap2Bound pass(2);
    const std::atomic<bool> running{false};
    struct Case {
        std::string what;
        Sequence s0, s1;
        double at_least;  // of the optimum
    };
    std::vector<Case> cases;
    {
        const auto [a, b] = test::mutated_pair(60000, 60000, rng);
        cases.push_back({"mutated", a, b, 0.99});
    }
    {
        auto [a, b] = gen::related_pair(80000, gen::RelatedSpec{}, rng);
        cases.push_back({"related", make_sequence("a", a), make_sequence("b", b), 0.6});
    }
    {
        const auto [a, b] = test::mutated_pair(40000, 40000, rng);
        cases.push_back({"reverse-complemented", a, reverse_complement(b), 0});
    }
    {
        cases.push_back({"unrelated", make_sequence("a", gen::random_dna(50000, rng)),
                         make_sequence("b", gen::random_dna(50000, rng)), 0});
    }
    for (const Case& c : cases)
        for (const Scoring& scoring : {Scoring{}, Scoring(2, -3, 5, 2)}) {
            const BoundFound found = pass.find(c.s0, c.s1, scoring, running);
            const AlignmentEnd best = optimum(c.s0, c.s1, scoring);
            std::printf("[ bound    ] %s: %d of %d (%.2f%%), %lld blocks\n", c.what.c_str(), found.witness.score,
                        best.score, 100.0 * found.witness.score / std::max(best.score, 1),
                        static_cast<long long>(found.blocks));
            EXPECT_LE(found.witness.score, best.score) << c.what << ", seed " << seed;
            EXPECT_GE(found.witness.score, c.at_least * best.score) << c.what << ", seed " << seed;
            if (found.witness.score > 0) {
                EXPECT_EQ(rescore(found.witness, c.s0, c.s1, scoring), found.witness.score) << c.what;
            }
        }
}

TEST(Minimap2Bound, TheBoundDoesNotDependOnHowManyPiecesAreMapped) {
    // 1 piece against 5 of 200 kbp: the blocks of neighbouring pieces overlap by a few bases
    // and must still chain, and a long gap must not be credited as if it aligned.
    const uint64_t seed = test::seed() + 912;
    std::mt19937_64 rng(seed);
    const auto [s0, s1] = test::mutated_pair(1000000, 1000000, rng);
    const std::atomic<bool> running{false};
    Minimap2Bound one(1), five(5);
    const BoundFound whole = one.find(s0, s1, Scoring{}, running), pieces = five.find(s0, s1, Scoring{}, running);
    std::printf("[ bound    ] one piece %d (%lld blocks), five %d (%lld blocks)\n", whole.witness.score,
                static_cast<long long>(whole.blocks), pieces.witness.score, static_cast<long long>(pieces.blocks));
    EXPECT_GE(pieces.witness.score, whole.witness.score * 0.999) << "seed " << seed;
    EXPECT_GT(whole.witness.s0_end - whole.witness.s0_start, 990000) << "seed " << seed;
    EXPECT_GT(pieces.witness.s0_end - pieces.witness.s0_start, 990000) << "seed " << seed;
}

TEST(Minimap2Bound, ACancelledPassReturnsNothing) {
    std::mt19937_64 rng(test::seed() + 905);
    const auto [s0, s1] = test::mutated_pair(20000, 20000, rng);
    Minimap2Bound pass(2);
    const std::atomic<bool> cancelled{true};
    EXPECT_EQ(pass.find(s0, s1, Scoring{}, cancelled).witness.score, 0);
}

TEST(Minimap2Bound, ACancelDoesNotWaitForTheIndex) {
    // minimap2 builds its index on one core and cannot be interrupted (250 Mbp took 13-50 s
    // to stop on a 2-core machine): a cancel leaves the build behind, and a stop does not
    // wait for it. Timed against the same index built to the end.
    std::mt19937_64 rng(test::seed() + 906);
    const auto [s0, s1] = test::mutated_pair(3'000'000, 20000, rng);
    const auto start = std::chrono::steady_clock::now();
    const Minimap2Index whole({&s0}, 0, "test");
    ASSERT_NE(whole.index(), nullptr);
    const auto built = std::chrono::steady_clock::now() - start;
    const std::atomic<bool> cancelled{true};
    EXPECT_EQ(Minimap2Index({&s0}, 0, "test", &cancelled).index(), nullptr);

    std::atomic<bool> cancel{false};
    Minimap2Bound pass(2);
    const auto asked = std::chrono::steady_clock::now();
    std::thread stop([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        cancel.store(true);
    });
    const BoundFound found = pass.find(s0, s1, Scoring{}, cancel);
    const auto took = std::chrono::steady_clock::now() - asked;
    stop.join();
    EXPECT_EQ(found.witness.score, 0);
    EXPECT_LT(took, built / 2) << "the index alone took " << std::chrono::duration<double>(built).count() << " s";
}

/// A bound a test chooses, found after `delay`.
class FixedBound : public BoundSource {
public:
    FixedBound(int32_t score, std::chrono::milliseconds delay = {}) : score_(score), delay_(delay) {}
    std::string name() const override { return "test"; }
    BoundFound find(const Sequence&, const Sequence&, const Scoring&, const std::atomic<bool>&) override {
        std::this_thread::sleep_for(delay_);
        BoundFound found;
        found.witness.score = score_;
        return found;
    }

private:
    int32_t score_;
    std::chrono::milliseconds delay_;
};

class FailingBound : public BoundSource {
public:
    std::string name() const override { return "failing"; }
    BoundFound find(const Sequence&, const Sequence&, const Scoring&, const std::atomic<bool>&) override {
        throw Error("no bound today");
    }
};

using test::one_pair;

TEST(JobBound, InjectedBoundsUpToTheOptimumGiveTheUnprunedAnswer) {
    const uint64_t seed = test::seed() + 906;
    std::mt19937_64 rng(seed);
    std::vector<test::PruningCase> cases = test::pruning_cases(rng, 1500);
    const std::vector<BackendOptions> grids = {test::grid(0, 0, 1), test::grid(8, 3, 3, 2), test::grid(4, 5, 2)};
    int64_t pruned_at_optimum = 0, pruned_from_zero = 0;
    for (const BackendOptions& grid : grids) {
        const auto backend = make_backend("cpu", grid);
        for (const test::PruningCase& c : cases)
            for (const std::vector<Strand>& strands :
                 {std::vector<Strand>{Strand::kForward}, std::vector<Strand>{Strand::kForward, Strand::kReverse}}) {
                const test::Expected want = test::expected(c.s0, c.s1, c.scoring, strands);
                const int32_t top = want.forward.score;
                const int32_t below = top > 0 ? static_cast<int32_t>(rng() % static_cast<uint64_t>(top)) : 0;
                for (const int32_t injected : {0, below, std::max(top - 1, 0), top}) {
                    FixedBound bound(injected);
                    JobOptions options;
                    options.bound = &bound;
                    options.stack = false;  // stacks never prune
                    const JobResult got = test::run_on(*backend, one_pair(c.s0, c.s1, c.scoring, strands), options);
                    const PairAnswer& a = got.answers[0];
                    ASSERT_EQ(a.best, want.best) << c.what << ", bound " << injected << ", seed " << seed;
                    ASSERT_EQ(a.strand, want.strand) << c.what << ", bound " << injected;
                    if (strands.size() == 1 && injected == top) pruned_at_optimum += got.cells_pruned;
                    if (strands.size() == 1 && injected == 0) pruned_from_zero += got.cells_pruned;
                }
            }
    }
    std::printf("[ pruned   ] %lld cells from the optimum, %lld from zero\n", static_cast<long long>(pruned_at_optimum),
                static_cast<long long>(pruned_from_zero));
    EXPECT_GT(pruned_at_optimum, pruned_from_zero) << "a bound from the first row must prune more";
}

TEST(JobBound, ABoundAboveTheOptimumIsRefusedNotAnswered) {
    const uint64_t seed = test::seed() + 907;
    std::mt19937_64 rng(seed);
    const auto [s0, s1] = test::mutated_pair(3000, 3000, rng);
    const AlignmentEnd best = reference_align(s0, s1, Scoring{});
    const auto backend = make_backend("cpu", test::grid(0, 0, 2));
    for (const int32_t above : {best.score + 1, best.score + 1000, INT32_MAX / 4}) {
        FixedBound bound(above);
        JobOptions options;
        options.bound = &bound;
        options.stack = false;  // stacks never prune
        try {
            test::run_on(*backend, one_pair(s0, s1, Scoring{}, {Strand::kForward}), options);
            ADD_FAILURE() << "a bound of " << above << " above the optimum " << best.score << " was not refused";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("above its optimum"), std::string::npos) << e.what();
        }
    }
}

TEST(JobBound, ALateOrFailedBoundChangesNothing) {
    std::mt19937_64 rng(test::seed() + 908);
    const auto [s0, s1] = test::mutated_pair(20000, 20000, rng);
    const AlignmentEnd best = optimum(s0, s1, Scoring{});
    const auto backend = make_backend("cpu", test::grid(0, 0, 2));
    FixedBound late(best.score, std::chrono::milliseconds(150));
    FailingBound failing;
    std::vector<std::string> notes;
    for (BoundSource* source : std::vector<BoundSource*>{&late, &failing}) {
        JobOptions options;
        options.bound = source;
        options.stack = false;
        options.on_note = [&notes](const std::string& text) { notes.push_back(text); };
        const JobResult got = test::run_on(*backend, one_pair(s0, s1, Scoring{}, {Strand::kForward}), options);
        EXPECT_EQ(got.answers[0].best, best) << source->name();
        EXPECT_EQ(got.answers[0].bound.source, source->name());
    }
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_NE(notes[0].find("no bound today"), std::string::npos) << notes[0];
}

TEST(JobBound, Minimap2BoundsKeepEveryAnswerOfAGenomeJob) {
    const uint64_t seed = test::seed() + 909;
    std::mt19937_64 rng(seed);
    // Records related on either strand, and one unrelated.
    const auto [a, b] = test::mutated_pair(30000, 30000, rng);
    const auto [c, d] = test::mutated_pair(20000, 20000, rng);
    JobSpec spec;
    spec.s0 = {a, c, make_sequence("u", gen::random_dna(10000, rng))};
    spec.s1 = {b, reverse_complement(d)};
    for (size_t i = 0; i < spec.s0.size(); ++i)
        for (size_t j = 0; j < spec.s1.size(); ++j) spec.pairs.push_back(RecordPair{i, j});
    Minimap2Bound pass(2);
    const auto backend = make_backend("cpu", test::grid(0, 0, 2));
    JobOptions with, without;
    with.bound = &pass;
    with.stack = without.stack = false;
    const JobResult bounded = test::run_on(*backend, spec, with);
    const JobResult plain = test::run_on(*backend, spec, without);
    ASSERT_EQ(bounded.answers.size(), plain.answers.size());
    for (size_t k = 0; k < plain.answers.size(); ++k) {
        EXPECT_EQ(bounded.answers[k].best, plain.answers[k].best) << "pair " << k << ", seed " << seed;
        EXPECT_EQ(bounded.answers[k].strand, plain.answers[k].strand) << "pair " << k;
    }
    // On a loaded machine a pass can end after its comparison: a late bound prunes nothing, and
    // racing threads prune a little more or less from run to run (1.3067e9 against 1.3093e9
    // cells once). The pruning is compared where a bound entered in the first half of its pair.
    bool early = false;
    for (const PairAnswer& a : bounded.answers) early |= a.bound.score > 0 && a.bound.seconds < 0.5 * a.seconds;
    if (early)
        EXPECT_GT(bounded.cells_pruned, plain.cells_pruned);
    else
        std::printf("[ bound    ] every pass ended in its pair's second half on this machine: pruning not compared\n");
}

TEST(JobBound, TheEtaOfBothStrandsExpectsTheReverseStrandPrunedFromTheForwardBest) {
    // The reverse strand of a mutated pair starts from the forward strand's best and keeps
    // little more than the corner that gain alone lets through. The first report, in the
    // forward strand, must expect that of it, and the reverse strand's own first report must
    // not expect the band an alignment of its own would need: each close to what the run
    // then computes. Before, the job counted the reverse strand whole and the strand itself
    // a third of its cells: on a 32M pair the ETA said 817 s where 50 s were left.
    std::mt19937_64 rng(test::seed() + 912);
    const auto [s0, s1] = test::mutated_pair(700000, 700000, rng);
    const JobSpec spec = one_pair(s0, s1, Scoring{}, {Strand::kForward, Strand::kReverse});
    Minimap2Bound pass(2);
    JobOptions options;
    options.bound = &pass;
    std::vector<std::pair<Progress, int64_t>> reports;
    options.on_progress = [&reports](const Progress& p, int64_t comparison) { reports.emplace_back(p, comparison); };
    const auto backend = make_backend("cpu", test::grid(0, 0, 2));
    const JobResult got = test::run_on(*backend, spec, options);
    const int64_t computed = 2 * s0.length() * s1.length() - got.cells_pruned;
    // The forward strand's reports before its bound entered cannot know it (on a loaded machine
    // the pass ends well after the first report): its first report after is the one judged.
    const BoundReport& bound = got.answers.at(0).bound;
    ASSERT_EQ(got.answers[0].strand, Strand::kForward);
    ASSERT_TRUE(bound.in_time && bound.score > 0) << "the bound entered during the forward strand";
    for (const int64_t comparison : {0, 1}) {
        const auto first = std::find_if(reports.begin(), reports.end(), [&](const auto& r) {
            return r.second == comparison && r.first.seconds > 0 && (comparison == 1 || r.first.best_score >= bound.score);
        });
        // With the gain table the reverse strand may end before its first report: then the
        // forward strand's report, which counts it, is the check.
        if (comparison == 1 && first == reports.end()) {
            std::printf("[ eta      ] comparison 1 ended before its first report\n");
            continue;
        }
        ASSERT_NE(first, reports.end()) << "no report during comparison " << comparison;
        const Progress& p = first->first;
        const double after = static_cast<double>(computed - (p.cells_this_run - p.cells_pruned));
        std::printf("[ eta      ] comparison %lld: expected %lld cells to compute after its first report, computed %.0f\n",
                    static_cast<long long>(comparison), static_cast<long long>(p.cells_left_live), after);
        // The model takes the rows above a front as done, the run sweeps antidiagonals: the
        // corner the reverse strand keeps is done sooner than the model thinks. And the gain
        // table leaves the reverse strand little beyond what it computes before the table is
        // built, a time a loaded machine stretches: an error of 1% of its cells is none.
        const double cells = static_cast<double>(s0.length()) * static_cast<double>(s1.length());
        EXPECT_NEAR(static_cast<double>(p.cells_left_live), after,
                    std::max((comparison == 0 ? 0.25 : 0.4) * after, 0.01 * cells))
            << "comparison " << comparison;
    }
}

TEST(JobBound, AResumedComparisonPrunesFromItsSavedBoundAndRefusesAForgedOne) {
    const uint64_t seed = test::seed() + 910;
    std::mt19937_64 rng(seed);
    const auto [s0, s1] = test::mutated_pair(20000, 20000, rng);
    const AlignmentEnd best = optimum(s0, s1, Scoring{});
    const JobSpec spec = one_pair(s0, s1, Scoring{}, {Strand::kForward});
    const auto backend = make_backend("cpu", test::grid(0, 0, 2));
    test::TempDir dir;
    const std::string checkpoint = dir.file("run.ckpt");
    for (const int32_t saved : {best.score - 7, best.score, best.score + 1}) {
        {  // what a stopped run leaves: the state with the bound its pass found
            JobState state(checkpoint, job_fingerprint(spec), spec, true, true, true, {});
            state.add_bound(0, Strand::kForward, saved);
        }
        FailingBound pass;  // the saved bound is taken up, the pass not run again
        JobOptions options;
        options.bound = &pass;
        options.stack = false;
        options.backend.checkpoint.path = checkpoint;
        if (saved <= best.score) {
            const JobResult got = test::run_on(*backend, spec, options);
            EXPECT_EQ(got.answers[0].best, best) << "saved bound " << saved << ", seed " << seed;
            EXPECT_EQ(got.answers[0].bound.source, "checkpoint");
            EXPECT_EQ(got.answers[0].bound.score, saved);
        } else {
            EXPECT_THROW(test::run_on(*backend, spec, options), Error) << "a forged bound " << saved;
        }
        std::remove(job_state_path(checkpoint).c_str());
    }
}

TEST(JobBound, ASavedBoundOutOfRangeIsRefusedWithTheState) {
    std::mt19937_64 rng(test::seed() + 911);
    const auto [s0, s1] = test::mutated_pair(500, 400, rng);
    const JobSpec spec = one_pair(s0, s1, Scoring{}, {Strand::kForward});
    test::TempDir dir;
    const std::string checkpoint = dir.file("run.ckpt");
    {
        JobState state(checkpoint, job_fingerprint(spec), spec, true, true, true, {});
        state.add_bound(0, Strand::kForward, 401);  // above 400 columns at +1 each
    }
    try {
        JobState state(checkpoint, job_fingerprint(spec), spec, false, true, true, {});
        ADD_FAILURE() << "a bound no alignment can reach was taken up";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("a bound out of range"), std::string::npos) << e.what();
    }
}

TEST(MappedPairs, EveryLongContigKeepsItsNucmerChromosomeAndShortOnesKeepAll) {
    const std::string contigs = test::shared_data("genomes/V_cholerae_H1_contigs.fasta.gz");
    const std::string h1 = test::shared_data("genomes/V_cholerae_H1.fasta.gz");
    const std::string coords = test::shared_data("genomes/V_cholerae_H1_contigs.nucmer.coords.gz");
    if (contigs.empty() || h1.empty() || coords.empty()) GTEST_SKIP() << "../shared/data is absent";
    const std::vector<Sequence> s0 = io::read_fasta_records(contigs, {}), s1 = io::read_fasta_records(h1, {});
    const std::vector<RecordPair> pairs = mapped_pairs(s0, s1, 500, 1000, 2);
    std::set<std::pair<std::string, std::string>> kept;
    for (const RecordPair& p : pairs) kept.insert({s0[p.s0].name, s1[p.s1].name});
    std::map<std::string, int64_t> length;
    for (const Sequence& s : s0) length[s.name] = s.length();
    int long_placed = 0, short_kept = 0;
    for (const auto& [contig, places] : test::nucmer_places(coords, length, 95)) {
        if (length[contig] < 1000) {
            for (const Sequence& chromosome : s1) short_kept += kept.count({contig, chromosome.name});
            continue;
        }
        bool found = false;
        for (const test::NucmerPlace& p : places) found = found || kept.count({contig, p.record});
        EXPECT_TRUE(found) << contig << " (" << length[contig] << " bases) lost its nucmer chromosome " << places[0].record;
        ++long_placed;
    }
    std::printf("[ mapped   ] %zu of %zu pairs kept; %d long contigs nucmer places, %d short pairs kept\n",
                pairs.size(), s0.size() * s1.size(), long_placed, short_kept);
    EXPECT_GT(long_placed, 50);
    EXPECT_LT(pairs.size(), s0.size() * s1.size()) << "nothing was left out";
}

/// The look run_slabs takes before cutting slabs (engine/bound/shared_kmers.hpp): random pairs
/// share no sampled k-mer, mutated copies about (1 - 5%)^k of them, a copy all of them; the
/// sample is the same over any number of workers; an N ends the k-mers over it; S1 counts on
/// its strand as given.
TEST(SharedKmers, RandomPairsShareNoneCopiesAllAndMutatedOnesTheirSurvivors) {
    const uint64_t seed = test::seed();
    std::mt19937_64 rng(seed);
    SCOPED_TRACE("seed " + std::to_string(seed));
    const int64_t length = 200000 + static_cast<int64_t>(rng() % 100000);
    const auto [r0, r1] = test::random_pair(length, length, rng);
    const KmerShare none = shared_kmers(r0, r1, 2);
    // About length / 64 sampled; a spurious shared 20-mer is a 1e-2 event at this length.
    EXPECT_GT(none.sampled, length / 100);
    EXPECT_LE(none.shared, 2);

    const KmerShare all = shared_kmers(r0, r0, 2);
    EXPECT_EQ(all.shared, all.sampled);
    EXPECT_NEAR(static_cast<double>(all.sampled), length / 64.0, length / 64.0 * 0.1);
    for (const int workers : {1, 3, 7, 64}) {
        const KmerShare again = shared_kmers(r0, r1, workers);
        EXPECT_EQ(again.sampled, none.sampled) << workers << " workers";
        EXPECT_EQ(again.shared, none.shared) << workers << " workers";
        EXPECT_EQ(shared_kmers(r0, r0, workers).sampled, all.sampled) << workers << " workers";
    }

    const auto [m0, m1] = test::mutated_pair(length, length, rng);  // 5% substitutions
    const KmerShare some = shared_kmers(m0, m1, 2);
    const double share = static_cast<double>(some.shared) / static_cast<double>(some.sampled);
    EXPECT_GT(share, 0.2) << some.shared << " of " << some.sampled;
    EXPECT_LT(share, 0.5) << some.shared << " of " << some.sampled;
    EXPECT_LE(shared_kmers(m0, reverse_complement(m0), 2).shared, 2);

    // Every 20th base an N: no 20 bases in a row, no k-mer; one shorter than k has none either.
    Sequence gappy = r0;
    for (size_t p = 19; p < gappy.codes.size(); p += 20) gappy.codes[p] = kBaseOther;
    EXPECT_EQ(shared_kmers(gappy, gappy, 2).sampled, 0);
    gappy.codes.resize(KmerShare::kK - 1);
    EXPECT_EQ(shared_kmers(r0, gappy, 2).sampled, 0);
    // Every 21st: one k-mer in each run of 20, sampled as in the sequence without the Ns.
    Sequence runs = r0;
    for (size_t p = 20; p < runs.codes.size(); p += 21) runs.codes[p] = kBaseOther;
    const KmerShare in_runs = shared_kmers(runs, runs, 3);
    EXPECT_GT(in_runs.sampled, 0);
    EXPECT_LT(in_runs.sampled, length / 21 / 64 * 2);
}

}  // namespace
}  // namespace chromalign
