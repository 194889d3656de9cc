//! @file CPU backend tests: every compiled ISA against the reference oracle, the executor's band
//! capture and starting rows, and (label slow) the paper's published results.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "kernels/registry.hpp"
#include "kernels/cpu/cpu_backend.hpp"
#include "engine/error.hpp"
#include "kernels/reference/reference.hpp"
#include "tests/test_support.hpp"

namespace chromalign {
namespace {

const Scoring kScorings[] = {
    {1, -3, 5, 2},          // cudalign
    {2, -3, 7, 2},          // blastn in our convention
    {1, -1, 2, 2},
    {5, -4, 10, 1},
    {1, -2, 1, 1},          // open + mismatch < 0, extend = open
    {200, -150, 300, 40},   // too large for 16-bit lanes: always the 32-bit kernels
};
constexpr int kNumScorings = sizeof(kScorings) / sizeof(kScorings[0]);

/// The matrices of test::matrix_scorings, drawn once from the printed seed.
const std::vector<test::NamedScoring>& matrices() {
    static const std::vector<test::NamedScoring> all = [] {
        std::mt19937_64 rng(test::seed() + 100);
        return test::matrix_scorings(rng);
    }();
    return all;
}

const Scoring& matrix(const std::string& name) {
    for (const test::NamedScoring& ns : matrices())
        if (ns.name == name) return ns.scoring;
    throw std::invalid_argument("no test matrix " + name);
}

/// Sets $CHROMALIGN_CPU_ISA for the scope of one check (each test runs in its own process).
class IsaScope {
public:
    explicit IsaScope(const std::string& isa) { setenv("CHROMALIGN_CPU_ISA", isa.c_str(), 1); }
    ~IsaScope() { unsetenv("CHROMALIGN_CPU_ISA"); }
};

/// The instruction sets this machine runs, weakest first: every one is tested.
const std::vector<std::string>& isas() {
    static const std::vector<std::string> available = [] {
        std::vector<std::string> out;
        for (const char* isa : {"scalar", "sse41", "avx", "avx2", "avx512"}) {
            IsaScope scope(isa);
            try {
                make_backend("cpu", BackendOptions{});
                out.push_back(isa);
            } catch (const Error&) {
            }
        }
        return out;
    }();
    return available;
}

struct Case {
    Sequence s0, s1;
    Scoring scoring;
    BackendOptions options;
    std::string isa;
    std::string what;
};

void expect_same_as_reference(const Case& c) {
    const AlignmentEnd want = reference_align(c.s0, c.s1, c.scoring);
    IsaScope scope(c.isa);
    auto backend = make_backend("cpu", c.options);
    const AlignmentEnd got = backend->align(c.s0, c.s1, c.scoring);
    ASSERT_EQ(got, want) << c.what << " m=" << c.s0.length() << " n=" << c.s1.length() << " "
                         << c.scoring.to_string() << " threads=" << c.options.threads
                         << " alpha=" << c.options.alpha << " max_blocks=" << c.options.max_blocks
                         << " grid " << backend->layout() << " (" << backend->device() << ")"
                         << "\n got " << got.score << " (" << got.s0_end << ", " << got.s1_end << ")"
                         << " want " << want.score << " (" << want.s0_end << ", " << want.s1_end << ")"
                         << "\n s0 " << test::preview(c.s0) << "\n s1 " << test::preview(c.s1)
                         << "\n seed " << test::seed();
}

BackendOptions options(int threads, int alpha, int max_blocks) {
    BackendOptions o;
    o.threads = threads;
    o.alpha = alpha;
    o.max_blocks = max_blocks;
    return o;
}

TEST(CpuBackend, RandomAndMutatedPairsMatchReference) {
    std::mt19937_64 rng(test::seed());
    const int threads[] = {1, 2, 7};
    const int alphas[] = {4, 8, 16};
    const int max_blocks[] = {1, 2, 3, 5, 16, 0};
    for (const std::string& isa : isas())
        for (int i = 0; i < 80; ++i) {
            const int64_t m = 1 + rng() % (i < 40 ? 300 : 2000);
            const int64_t n = 1 + rng() % (i < 40 ? 300 : 2000);
            const bool mutated = i % 3 != 0;
            auto [s0, s1] = mutated ? test::mutated_pair(m, n, rng, (i % 7 == 0) ? 0.02 : 0.0)
                                    : test::random_pair(m, n, rng);
            Case c{std::move(s0), std::move(s1), kScorings[rng() % kNumScorings],
                   options(threads[rng() % 3], alphas[rng() % 3], max_blocks[rng() % 6]), isa,
                   (mutated ? "mutated pair #" : "random pair #") + std::to_string(i)};
            expect_same_as_reference(c);
            if (HasFatalFailure()) return;
        }
}

TEST(CpuBackend, EdgeSizesMatchReference) {
    std::mt19937_64 rng(test::seed() + 1);
    for (const std::string& isa : isas()) {
        const int lanes = isa == "avx2" ? 16 : isa == "scalar" ? 1 : 8;  // 16-bit lanes
        for (const int alpha : {4, 8}) {
            const int64_t band = int64_t{lanes} * alpha;
            const int64_t cols = 2 * lanes;  // narrowest block column
            const std::vector<int64_t> sizes = {1,        2,        lanes - 1, lanes + 1, band - 1, band,
                                                band + 1, cols + 1, 3 * cols - 1, 3 * cols, 2 * band + 1};
            for (const int64_t m : sizes)
                for (const int64_t n : sizes) {
                    if (m < 1 || n < 1) continue;
                    auto [s0, s1] = test::mutated_pair(m, n, rng);
                    Case c{std::move(s0), std::move(s1), kScorings[rng() % kNumScorings],
                           options(1 + static_cast<int>(rng() % 3), alpha, 3), isa, "edge sizes"};
                    expect_same_as_reference(c);
                    if (HasFatalFailure()) return;
                }
        }
    }
}

TEST(CpuBackend, ThinWideAndManyBandsMatchReference) {
    std::mt19937_64 rng(test::seed() + 2);
    const std::pair<int64_t, int64_t> shapes[] = {{20000, 50}, {50, 20000}, {12345, 789},
                                                  {789, 12345}, {1, 5000},  {5000, 1}};
    for (const std::string& isa : isas())
        for (const auto& [m, n] : shapes)
            for (const int max_blocks : {1, 7, 0}) {
                auto [s0, s1] = test::mutated_pair(m, n, rng, 0.01);
                Case c{std::move(s0), std::move(s1), kScorings[rng() % kNumScorings],
                       options(2, 4, max_blocks), isa, "thin/wide"};
                expect_same_as_reference(c);
                if (HasFatalFailure()) return;
            }
}

TEST(CpuBackend, EveryScoringOnLargerMutatedPairs) {
    std::mt19937_64 rng(test::seed() + 3);
    for (const std::string& isa : isas())
        for (const Scoring& scoring : kScorings) {
            auto [s0, s1] = test::mutated_pair(4000 + rng() % 500, 4000 + rng() % 500, rng, 0.001);
            Case c{std::move(s0), std::move(s1), scoring, options(2, 0, 0), isa, "default grid"};
            expect_same_as_reference(c);
            if (HasFatalFailure()) return;
        }
}

TEST(CpuBackend, WideBlocksRunAsNarrowKernelTiles) {
    // One block column 9000 wide is beyond the 16-bit bound of the default scoring at alpha 4,
    // yet it runs in 16-bit lanes: as kernel tiles within the bound, passing their edges on.
    std::mt19937_64 rng(test::seed() + 4);
    auto [s0, s1] = test::mutated_pair(3000, 9000, rng);
    const AlignmentEnd want = reference_align(s0, s1, kScorings[0]);
    for (const std::string& isa : isas()) {
        IsaScope scope(isa);
        for (const int max_blocks : {1, 3, 0}) {
            auto backend = make_backend("cpu", options(2, 4, max_blocks));
            EXPECT_EQ(backend->align(s0, s1, kScorings[0]), want) << isa << " " << backend->layout();
            if (isa != "scalar") {
                EXPECT_NE(backend->layout().find("i16"), std::string::npos) << backend->layout();
            }
        }
    }
}

TEST(CpuBackend, RelativeLanesFarAboveTheInt16Range) {
    // Match 12: H passes 32767 after about 2700 aligned bases, so later tiles hold scores far
    // above int16 relative to their corner (up to 72000), with the floor 0 saturated away.
    // Narrow tiles (alpha 4) keep this scoring within the 16-bit bound, with tiles at least
    // 16 lanes wide even for AVX-512's 32 lanes.
    const Scoring big{12, -15, 25, 5};
    std::mt19937_64 rng(test::seed() + 9);
    auto [s0, s1] = test::mutated_pair(6000, 5800, rng, 0.001);
    const Sequence same = test::mutated_pair(6000, 1, rng).first;
    for (const std::string& isa : isas()) {
        if (isa == "scalar") continue;
        IsaScope scope(isa);
        for (const int max_blocks : {0, 24}) {
            auto backend = make_backend("cpu", options(2, 4, max_blocks));
            EXPECT_EQ(backend->align(s0, s1, big), reference_align(s0, s1, big)) << isa << " " << backend->layout();
            EXPECT_EQ(backend->align(same, same, big), (AlignmentEnd{72000, 6000, 6000})) << isa;
            EXPECT_NE(backend->layout().find("i16"), std::string::npos) << backend->layout();
        }
    }
}

TEST(CpuBackend, IdenticalSequencesAndNoMatch) {
    std::mt19937_64 rng(test::seed() + 5);
    const Sequence a = test::mutated_pair(5000, 1, rng).first;
    const Sequence n = make_sequence("n", std::string(3000, 'N'));
    for (const std::string& isa : isas()) {
        IsaScope scope(isa);
        auto backend = make_backend("cpu", options(2, 0, 0));
        EXPECT_EQ(backend->align(a, a, kScorings[0]), (AlignmentEnd{5000, 5000, 5000})) << isa;
        EXPECT_EQ(backend->align(n, n, kScorings[0]), (AlignmentEnd{0, 0, 0})) << isa;
    }
}

TEST(CpuBackendMatrix, RandomAndMutatedPairsMatchReference) {
    std::mt19937_64 rng(test::seed() + 10);
    const int alphas[] = {4, 8, 16};
    const int max_blocks[] = {1, 2, 3, 7, 0};
    for (const std::string& isa : isas())
        for (const test::NamedScoring& ns : matrices())
            for (int i = 0; i < 12; ++i) {
                const int64_t m = 1 + rng() % (i < 6 ? 300 : 1500);
                const int64_t n = 1 + rng() % (i < 6 ? 300 : 1500);
                const bool mutated = i % 4 != 0;
                auto [s0, s1] = mutated ? test::mutated_pair(m, n, rng, i % 3 == 0 ? 0.02 : 0.0)
                                        : test::random_pair(m, n, rng);
                Case c{std::move(s0), std::move(s1), ns.scoring,
                       options(1 + static_cast<int>(rng() % 3), alphas[rng() % 3], max_blocks[rng() % 5]), isa,
                       ns.name + (mutated ? ", mutated pair #" : ", random pair #") + std::to_string(i)};
                expect_same_as_reference(c);
                if (HasFatalFailure()) return;
            }
}

TEST(CpuBackendMatrix, EdgeSizesMatchReference) {
    std::mt19937_64 rng(test::seed() + 11);
    for (const std::string& isa : isas()) {
        const int lanes = isa == "avx512" ? 32 : isa == "avx2" ? 16 : isa == "scalar" ? 1 : 8;  // 16-bit lanes
        const int64_t band = int64_t{lanes} * 4, cols = 2 * lanes;
        const std::vector<int64_t> sizes = {1, lanes - 1, lanes + 1, band - 1, band, band + 1, 3 * cols, 2 * band + 1};
        size_t k = 0;
        for (const int64_t m : sizes)
            for (const int64_t n : sizes) {
                if (m < 1 || n < 1) continue;
                const test::NamedScoring& ns = matrices()[k++ % matrices().size()];
                auto [s0, s1] = test::mutated_pair(m, n, rng, 0.01);
                Case c{std::move(s0), std::move(s1), ns.scoring, options(1 + static_cast<int>(rng() % 3), 4, 3), isa,
                       ns.name + ", edge sizes"};
                expect_same_as_reference(c);
                if (HasFatalFailure()) return;
            }
    }
}

TEST(CpuBackendMatrix, RelativeLanesFarAboveTheInt16Range) {
    // As RelativeLanesFarAboveTheInt16Range, with an asymmetric matrix: scores pass 32767
    // after about 3000 aligned bases, far above int16 relative to the later tiles' corners.
    const Scoring big = Scoring::from_matrix({{{12, -15, -6, -14}, {-13, 11, -15, -7}, {-5, -14, 12, -12},
                                               {-15, -8, -11, 10}}},
                                             25, 5);
    std::mt19937_64 rng(test::seed() + 13);
    auto [s0, s1] = test::mutated_pair(6000, 5800, rng, 0.001);
    const Sequence same = test::mutated_pair(6000, 1, rng).first;
    const AlignmentEnd want = reference_align(s0, s1, big), want_same = reference_align(same, same, big);
    ASSERT_GT(want_same.score, 60000);
    for (const std::string& isa : isas()) {
        if (isa == "scalar") continue;
        IsaScope scope(isa);
        for (const int max_blocks : {0, 24}) {
            auto backend = make_backend("cpu", options(2, 4, max_blocks));
            EXPECT_EQ(backend->align(s0, s1, big), want) << isa << " " << backend->layout();
            EXPECT_EQ(backend->align(same, same, big), want_same) << isa;
            EXPECT_NE(backend->layout().find("i16/a4/matrix"), std::string::npos) << backend->layout();
        }
    }
}

TEST(CpuBackendMatrix, EachMatrixTakesItsLanesAndSubstitution) {
    // Small scores run in 16-bit lanes, HOXD70 and larger in 32-bit ones; a matrix of
    // match/mismatch shape takes the equality kernels, every other one the table lookups.
    std::mt19937_64 rng(test::seed() + 12);
    auto [s0, s1] = test::mutated_pair(1500, 1400, rng, 0.005);
    for (const std::string& isa : isas()) {
        IsaScope scope(isa);
        for (const test::NamedScoring& ns : matrices()) {
            auto backend = make_backend("cpu", options(2, 0, 0));
            EXPECT_EQ(backend->align(s0, s1, ns.scoring), reference_align(s0, s1, ns.scoring)) << isa << " " << ns.name;
            const std::string layout = backend->layout();
            const bool sixteen = isa != "scalar" && (ns.name == "small" || ns.name == "tiny" ||
                                                     ns.name == "match_mismatch_shape");
            EXPECT_NE(layout.find(sixteen ? "/i16/" : "/i32/"), std::string::npos) << ns.name << ": " << layout;
            EXPECT_EQ(layout.find("/matrix") != std::string::npos, ns.name != "match_mismatch_shape")
                << ns.name << ": " << layout;
        }
    }
}

TEST(CpuBackend, UnknownOrMissingIsaIsAnError) {
    IsaScope scope("neon");
    EXPECT_THROW(make_backend("cpu", BackendOptions{}), Error);
}

TEST(CpuBackend, AutoIsCpuWithoutGpu) {
    if ((backend_devices("cuda") > 0)) GTEST_SKIP() << "a CUDA device is present";
    EXPECT_EQ(make_backend("auto", BackendOptions{})->name(), "cpu");
}

using test::DpRow;
using test::dp_row;

/// Walks every diagonal of `ex`, capturing band `band`'s bottom row; each column must be
/// written by exactly one capture call.
DpRow run_and_capture(TileExecutor& ex, int64_t band, int64_t n) {
    const TileGrid& g = ex.grid();
    DpRow row{std::vector<int32_t>(n, INT32_MIN), std::vector<int32_t>(n, INT32_MIN)};
    std::vector<int> writes(n, 0);
    for (int64_t d = 0; d < g.diagonals(); ++d) {
        ex.enqueue_diagonal(d);
        if (d < band || d > band + g.blocks) continue;
        std::vector<int32_t> h(n, INT32_MIN), f(n, INT32_MIN);
        ex.capture_band_bottom(band, d, h.data(), f.data());
        ex.synchronize();
        for (int64_t c = 0; c < n; ++c)
            if (h[c] != INT32_MIN) {
                ++writes[c];
                row.h[c] = h[c];
                row.f[c] = f[c];
            }
    }
    for (int64_t c = 0; c < n; ++c) EXPECT_EQ(writes[c], 1) << "column " << c;
    return row;
}

TEST(CpuExecutor, CapturedBandBottomIsTheDpRow) {
    std::mt19937_64 rng(test::seed() + 6);
    for (const std::string& isa : isas())
        for (const Scoring& scoring : {kScorings[0], kScorings[5], matrix("small"), test::hoxd70()}) {
            IsaScope scope(isa);
            auto [s0, s1] = test::mutated_pair(1500, 1100, rng, 0.01);
            auto ex = make_cpu_executor(s0, s1, scoring, options(2, 4, 5), 0, TopRow{});
            const int64_t band = std::min<int64_t>(2, ex->grid().bands - 2);
            const int64_t row = (band + 1) * ex->grid().rows_per_band();
            ASSERT_LE(row, s0.length());
            const DpRow got = run_and_capture(*ex, band, s1.length());
            const DpRow want = dp_row(s0, s1, scoring, row);
            EXPECT_EQ(got.h, want.h) << isa << " row " << row << " " << ex->grid().describe();
            EXPECT_EQ(got.f, want.f) << isa << " row " << row << " " << ex->grid().describe();
        }
}

TEST(CpuExecutor, StartingRowContinuesTheWholeRun) {
    std::mt19937_64 rng(test::seed() + 7);
    for (const std::string& isa : isas())
        for (const Scoring& scoring : {kScorings[0], kScorings[3], kScorings[5], matrix("small"), test::hoxd70()}) {
            IsaScope scope(isa);
            auto [s0, s1] = test::mutated_pair(2500, 2000, rng, 0.005);
            const AlignmentEnd whole = reference_align(s0, s1, scoring);
            // Split at a band boundary of one grid, captured by that grid's executor, and
            // continue on another grid (other alpha, blocks and threads), as a resume may.
            auto first = make_cpu_executor(s0, s1, scoring, options(2, 8, 3), 0, TopRow{});
            const int64_t band = 1, split = (band + 1) * first->grid().rows_per_band();
            ASSERT_LT(split, s0.length());
            const DpRow row = run_and_capture(*first, band, s1.length());
            // A row that is not a band boundary of either grid, from the textbook DP.
            const int64_t odd_split = split + 37;
            const DpRow odd_row = dp_row(s0, s1, scoring, odd_split);
            for (const auto& [at, top] : {std::make_pair(split, row), std::make_pair(odd_split, odd_row)}) {
                auto rest = make_cpu_executor(s0, s1, scoring, options(7, 4, 2), at, TopRow{top.h, top.f});
                for (int64_t d = 0; d < rest->grid().diagonals(); ++d) rest->enqueue_diagonal(d);
                AlignmentEnd below = rest->best();
                if (below.score > 0) below.s0_end += at;
                Sequence head = s0;
                head.codes.resize(static_cast<size_t>(at));
                const AlignmentEnd above = reference_align(head, s1, scoring);
                const AlignmentEnd combined = better_end(below, above) ? below : above;
                EXPECT_EQ(combined, whole) << isa << " split at row " << at << " " << scoring.to_string();
            }
        }
}

/// Runs `ex` from its first diagonal to the end, capturing the bottom row of `band` on the way;
/// its best cell in rows of the whole matrix.
AlignmentEnd finish(TileExecutor& ex, int64_t first_row, int64_t band, DpRow& row) {
    row.h.assign(static_cast<size_t>(ex.grid().n), INT32_MIN);
    row.f = row.h;
    for (int64_t d = ex.first_diagonal(); d < ex.grid().diagonals(); ++d) {
        ex.enqueue_diagonal(d);
        if (d >= band && d <= band + ex.grid().blocks) ex.capture_band_bottom(band, d, row.h.data(), row.f.data());
    }
    return offset_end(ex.best(), first_row, 0);
}

TEST(CpuExecutor, WavefrontContinuesTheWholeRun) {
    std::mt19937_64 rng(test::seed() + 12);
    int gaps_of_two = 0, inside_blocks = 0;
    for (const std::string& isa : isas())
        for (const Scoring& scoring : {kScorings[0], kScorings[5], matrix("small"), test::hoxd70()})
            for (const bool interrupt : {false, true}) {
                IsaScope scope(isa);
                // Blocks of 2 kernel tiles or more (S1 over 3 x 2048 columns), so that an
                // interrupt may leave a block's band half done.
                auto [s0, s1] = test::mutated_pair(3000 + rng() % 500, 7000 + rng() % 2000, rng, 0.01);
                const AlignmentEnd whole = reference_align(s0, s1, scoring);
                auto first = make_cpu_executor(s0, s1, scoring, options(2, 4, 3), 0, TopRow{});
                const TileGrid g = first->grid();
                const int64_t R = g.rows_per_band();
                // Any diagonal while block 0 is short of the last band: the ramp, the middle; or
                // one that an interrupt leaves after some of its tiles.
                const int64_t d = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(g.bands - 2));
                for (int64_t k = 0; k < d; ++k) first->enqueue_diagonal(k);
                std::atomic<int> tiles{0};
                // Asked before every kernel tile but a block's first, and before each block.
                const int keep = static_cast<int>(rng() % static_cast<uint64_t>(3 * g.blocks));
                if (interrupt) first->set_interrupt([&] { return tiles++ >= keep; });
                first->enqueue_diagonal(d);
                TopRow top;
                const int64_t rows0 = first->take_wavefront(top.h, top.f, top.steps, rng() % 2 == 0);
                ASSERT_GE(rows0, 0);
                ASSERT_GE(static_cast<int64_t>(top.steps.size()), g.blocks - 1);
                // What Checkpointer::top does: rows from the last block column's, in bands.
                const int64_t low = top.steps.back().row;
                top.first_band = (rows0 - low) / R;
                for (StairStep& step : top.steps) {
                    gaps_of_two += step.h.size() == static_cast<size_t>(2 * R);
                    inside_blocks += step.col % g.block_cols != 0;
                    step.row -= low;
                }
                const AlignmentEnd before = first->best();
                if (rows0 == low) continue;  // one row: StartingRowContinuesTheWholeRun
                // Another thread count, the same grid (max_blocks caps B).
                auto rest = make_cpu_executor(s0, s1, scoring, options(3, 4, 3), low, top);
                // The band below block 0's row needs every step's columns and left edge.
                DpRow next;
                const AlignmentEnd after = finish(*rest, low, top.first_band, next);
                const std::string what = isa + " wavefront after diagonal " + std::to_string(d) +
                                         (interrupt ? " (interrupted after " + std::to_string(keep) + " tiles)" : "") +
                                         " of " + g.describe() + " " + scoring.to_string();
                EXPECT_EQ(better_of(before, after), whole) << what;
                if (const int64_t row = low + (top.first_band + 1) * R; row <= s0.length()) {
                    const DpRow want = dp_row(s0, s1, scoring, row);
                    EXPECT_EQ(next.h, want.h) << what << ", row " << row;
                    EXPECT_EQ(next.f, want.f) << what << ", row " << row;
                }
                // Bands of another height cannot take it.
                EXPECT_THROW(make_cpu_executor(s0, s1, scoring, options(2, 8, 3), low, top), WavefrontMismatch);
            }
    std::printf("[ steps    ] %d steps two bands behind their left neighbour, %d inside a block column\n",
                gaps_of_two, inside_blocks);
}

TEST(CpuExecutor, RejectsAStartingRowThatIsNoDpRow) {
    std::mt19937_64 rng(test::seed() + 8);
    auto [s0, s1] = test::mutated_pair(500, 400, rng);
    for (const bool negative_h : {true, false}) {
        TopRow top{std::vector<int32_t>(400, 0), std::vector<int32_t>(400, kScoreNegInf)};
        if (negative_h)
            top.h[200] = -1;  // H >= 0 in every DP row
        else
            top.f[200] = 5;  // F <= H
        for (const std::string& isa : isas()) {
            IsaScope scope(isa);
            EXPECT_THROW(make_cpu_executor(s0, s1, kScorings[0], options(1, 4, 0), 100, top), Error) << isa;
        }
    }
}

struct PaperPair {
    const char* s0;
    const char* s1;
    AlignmentEnd expected;
};

void check_paper_pair(const PaperPair& p) {
    Sequence s0, s1;
    if (!test::load_shared_pair("paper", p.s0, p.s1, s0, s1)) GTEST_SKIP() << "../shared/data/paper is absent";
    auto backend = make_backend("cpu", BackendOptions{});
    const AlignmentEnd got = backend->align(s0, s1, kScorings[0]);
    std::printf("[ result   ] %s x %s: score %d end (%lld, %lld), grid %s, %s\n", p.s0, p.s1, got.score,
                static_cast<long long>(got.s0_end), static_cast<long long>(got.s1_end), backend->layout().c_str(),
                backend->device().c_str());
    EXPECT_EQ(got, p.expected);
}

TEST(CpuBackendPaper, Herpes162k) { check_paper_pair({"NC_000898.1", "NC_007605.1", {18, 41058, 44353}}); }
TEST(CpuBackendPaper, Plasmid543k) { check_paper_pair({"NC_003064.2", "NC_000914.1", {48, 455134, 308558}}); }

}  // namespace
}  // namespace chromalign
