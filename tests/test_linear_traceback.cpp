//! @file The linear-memory traceback equals the full-matrix reference byte for byte, whatever
//! rows it starts from and however small its windows: random, mutated, tie-rich and edge-size
//! pairs, every preset, rows kept at random places, windows that must widen many times.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <stdexcept>
#include <random>

#include "engine/error.hpp"
#include "engine/orchestration/slab_run.hpp"
#include "engine/traceback/engine_sweeper.hpp"
#include "engine/traceback/linear_traceback.hpp"
#include "engine/traceback/special_rows.hpp"
#include "engine/tiling/tile_executor.hpp"
#include "kernels/reference/reference.hpp"
#include "kernels/reference/traceback.hpp"
#include "tests/sweep_support.hpp"
#include "tests/test_support.hpp"

namespace chromalign {
namespace {

/// True rows of the whole matrix at chosen places, as stage 1 would keep them.
class TrueRows : public RowSource {
public:
    TrueRows(const Sequence& s0, const Sequence& s1, const Scoring& sc, std::vector<int64_t> wanted) {
        const TracebackTerms t(sc);
        WindowSpec w;
        w.bottom = s0.length();
        w.hi = s1.length();
        FirstRowOnly zero;
        rows_[0] = zero.read(0, 1, w.hi);
        std::vector<int32_t> h(2 * static_cast<size_t>(w.hi + 1)), e(h.size()), f(h.size());
        const auto slot = [&](std::vector<int32_t>& v, int64_t i) { return v.data() + (i % 2) * (w.hi + 1); };
        sweep_window(
            s0, s1, t, w, rows_[0], [&](int64_t i) { return RowSlots{slot(h, i), slot(e, i), slot(f, i)}; },
            [&](int64_t i) {
                if (std::find(wanted.begin(), wanted.end(), i) == wanted.end()) return;
                rows_[i] = WindowRow{i, std::vector<int32_t>(slot(h, i), slot(h, i) + w.hi + 1),
                                     std::vector<int32_t>(slot(f, i), slot(f, i) + w.hi + 1)};
            });
    }
    int64_t lo() const override { return 1; }
    int64_t k() const override { return kNoMissedPaths; }
    int64_t top() const override { return 0; }
    int64_t row_above(int64_t i) const override { return std::prev(rows_.lower_bound(i))->first; }
    bool row_exact(int64_t) const override { return true; }
    WindowRow read(int64_t row, int64_t from, int64_t to) override {
        const WindowRow& r = rows_.at(row);
        return WindowRow{row, std::vector<int32_t>(r.h.begin() + from - 1, r.h.begin() + to + 1),
                         std::vector<int32_t>(r.f.begin() + from - 1, r.f.begin() + to + 1)};
    }
    int64_t edge_term(int64_t row, int64_t to, int64_t gap) override {
        int64_t best = 0;
        for (int64_t c = 1; c <= to; ++c) best = std::max(best, std::max<int64_t>(0, rows_.at(row).h[c]) + gap * c);
        return best;
    }

private:
    std::map<int64_t, WindowRow> rows_;
};

void expect_same(const Sequence& s0, const Sequence& s1, const Scoring& sc, RowSource& rows,
                 const TracebackLimits& limits, const std::string& what, TracebackCounts* counts = nullptr) {
    const Alignment want = reference_traceback(s0, s1, sc);
    const AlignmentEnd end{want.score, want.s0_end, want.s1_end};
    const Alignment got = linear_traceback(s0, s1, sc, end, rows, limits, counts);
    ASSERT_EQ(got.score, want.score) << what << ", seed " << test::seed();
    EXPECT_EQ(got.s0_start, want.s0_start) << what << ", seed " << test::seed();
    EXPECT_EQ(got.s1_start, want.s1_start) << what;
    EXPECT_EQ(got.cigar(), want.cigar()) << what << ", seed " << test::seed();
    if (got.score > 0) {
        EXPECT_EQ(rescore(got, s0, s1, sc), got.score) << what;
    }
}

std::vector<int64_t> random_rows(int64_t m, int count, std::mt19937_64& rng) {
    std::vector<int64_t> rows;
    for (int k = 0; k < count && m > 1; ++k) rows.push_back(1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(m - 1)));
    return rows;
}

TEST(LinearTraceback, EqualsTheReferenceFromRowZeroWithTinyWindows) {
    std::mt19937_64 rng(test::seed() + 71);
    std::vector<test::NamedScoring> scorings = test::matrix_scorings(rng);
    scorings.push_back({"cudalign", Scoring(1, -3, 5, 2)});
    scorings.push_back({"blastn", Scoring(2, -3, 7, 2)});
    scorings.push_back({"extend above open", Scoring(1, -3, 2, 5)});
    scorings.push_back({"hoxd70", test::hoxd70()});
    TracebackCounts counts;
    // 80 pairs, and more until a window has widened (one seed in some hundreds widened none
    // of the 80: CI failed on 14602498498069730627).
    for (int k = 0; k < 80 || (counts.widened == 0 && k < 480); ++k) {
        const test::NamedScoring& s = scorings[static_cast<size_t>(k) % scorings.size()];
        const int64_t m = 1 + static_cast<int64_t>(rng() % 500), n = 1 + static_cast<int64_t>(rng() % 500);
        auto [a, b] = k % 4 == 0 ? test::random_pair(m, n, rng) : test::mutated_pair(m, n, rng, k % 5 == 0 ? 0.02 : 0);
        // Windows of 64 .. 4096 cells and rows for a few kilobytes: recursion several deep.
        const TracebackLimits limits{int64_t{64} << (k % 7), int64_t{2048} << (k % 3)};
        FirstRowOnly zero;
        expect_same(a, b, s.scoring, zero, limits, "pair #" + std::to_string(k) + " " + std::to_string(m) + " x " +
                                                       std::to_string(n) + ", " + s.name, &counts);
        if (HasFatalFailure()) return;
    }
    EXPECT_GT(counts.widened, 0) << "no window had to widen: the bound was never tested";
}

TEST(LinearTraceback, EqualsTheReferenceFromKeptRows) {
    std::mt19937_64 rng(test::seed() + 72);
    const Scoring sc(1, -3, 5, 2);
    for (int k = 0; k < 30; ++k) {
        const int64_t m = 2 + static_cast<int64_t>(rng() % 700), n = 2 + static_cast<int64_t>(rng() % 700);
        auto [a, b] = test::mutated_pair(m, n, rng, k % 3 == 0 ? 0.01 : 0);
        TrueRows rows(a, b, sc, random_rows(m, 1 + k % 20, rng));
        const TracebackLimits limits{int64_t{256} << (k % 5), int64_t{4096}};
        expect_same(a, b, sc, rows, limits, "kept rows, pair #" + std::to_string(k));
        if (HasFatalFailure()) return;
    }
}

TEST(LinearTraceback, TieRichAndEdgeSizes) {
    std::mt19937_64 rng(test::seed() + 73);
    const Scoring sc(1, -3, 5, 2);
    const TracebackLimits tiny{64, 1024};
    const std::string x = test::preview(test::mutated_pair(300, 1, rng).first, 300);
    FirstRowOnly zero;
    expect_same(make_sequence("a", x), make_sequence("b", x + x), sc, zero, tiny, "S1 = S0 twice");
    expect_same(make_sequence("a", x + x), make_sequence("b", x), sc, zero, tiny, "S0 = S1 twice");
    expect_same(make_sequence("a", std::string(200, 'A')), make_sequence("b", std::string(150, 'A')), sc, zero, tiny,
                "homopolymers");
    std::string tandem;
    for (int k = 0; k < 40; ++k) tandem += "ACGTTGCA";
    expect_same(make_sequence("a", tandem), make_sequence("b", tandem.substr(3) + "GG" + tandem), sc, zero, tiny,
                "tandem repeats");
    for (const int64_t m : {1, 2, 7, 8, 9, 63, 64, 65})
        for (const int64_t n : {1, 2, 31, 32, 33, 200}) {
            auto [a, b] = test::mutated_pair(m, n, rng);
            expect_same(a, b, sc, zero, tiny, "edge " + std::to_string(m) + " x " + std::to_string(n));
        }
}

TEST(LinearTraceback, RefusesAnEndThatIsNotABestCell) {
    const Sequence a = make_sequence("a", "ACGTACGTAC"), b = make_sequence("b", "ACGTACGTAC");
    FirstRowOnly zero;
    EXPECT_THROW(linear_traceback(a, b, Scoring{}, AlignmentEnd{10, 10, 9}, zero), Error);
    EXPECT_THROW(linear_traceback(a, b, Scoring{}, AlignmentEnd{10, 11, 10}, zero), Error);
    EXPECT_EQ(linear_traceback(a, b, Scoring{}, AlignmentEnd{10, 10, 10}, zero).cigar(), "10=");
}

/// A mutated pair of `length` to 1.6 `length` bases each, and rows of it every `gap` to
/// 1.75 `gap` rows, as stage 1 would keep them (for TrueRows).
struct PairWithRows {
    Sequence a, b;
    std::vector<int64_t> rows;
};
PairWithRows pair_with_rows(std::mt19937_64& rng, int64_t length, int64_t gap, double indels) {
    const int64_t m = length + static_cast<int64_t>(rng() % static_cast<uint64_t>(length * 3 / 5));
    const int64_t n = length + static_cast<int64_t>(rng() % static_cast<uint64_t>(length * 3 / 5));
    auto [a, b] = test::mutated_pair(m, n, rng, indels);
    PairWithRows p{std::move(a), std::move(b), {}};
    for (int64_t r = gap + static_cast<int64_t>(rng() % static_cast<uint64_t>(gap * 3 / 4)); r < m;
         r += gap + static_cast<int64_t>(rng() % static_cast<uint64_t>(gap * 3 / 4)))
        p.rows.push_back(r);
    return p;
}

TEST(LinearTraceback, WindowsSweptAheadServeTheWalk) {
    // Rows of stage 1 every 400 to 700 rows and windows of at most 4096 cells: every window
    // between two rows is swept on the cpu engine, three at a time ahead of the walk.
    std::mt19937_64 rng(test::seed() + 74);
    const std::unique_ptr<Backend> cpu = test::small_backend("cpu");
    const Scoring sc(1, -3, 5, 2);
    TracebackCounts counts;
    for (int k = 0; k < 4; ++k) {
        const auto [a, b, wanted] = pair_with_rows(rng, 2500, 400, k % 2 ? 0.01 : 0);
        TrueRows rows(a, b, sc, wanted);
        const Alignment want = reference_traceback(a, b, sc);
        EngineSweeper sweeper(*cpu->slab_engine(), a, b, sc, int64_t{1} << 30, 3);
        const Alignment got = linear_traceback(a, b, sc, {want.score, want.s0_end, want.s1_end}, rows,
                                               TracebackLimits{4096, int64_t{1} << 20}, &counts, &sweeper);
        EXPECT_EQ(got.s0_start, want.s0_start) << "pair #" << k << ", seed " << test::seed();
        EXPECT_EQ(got.s1_start, want.s1_start) << "pair #" << k;
        EXPECT_EQ(got.cigar(), want.cigar()) << "pair #" << k;
    }
    EXPECT_GT(counts.ahead, 4) << "no window swept ahead served the walk";
    EXPECT_GT(counts.walked_ahead, 2) << "no walk taken ahead served the walk";
    std::printf("[ ahead    ] %lld windows swept ahead served the walk, %lld walked ahead too, %lld joined\n",
                static_cast<long long>(counts.ahead), static_cast<long long>(counts.walked_ahead),
                static_cast<long long>(counts.joined));
}

TEST(LinearTraceback, AWalkEnteringElsewhereJoinsTheWalkTakenAhead) {
    // Insertions of 300 bases in s0 (vertical gaps) with a row of stage 1 in the middle of
    // each: the walk crosses those rows in state F, while the walks taken ahead start from
    // the rows' peaks in state H. They meet within a window or two, and the walk goes on as the
    // walk ahead did; the alignment stays the reference's.
    std::mt19937_64 rng(test::seed() + 78);
    const auto part = [&](int64_t n) { return test::preview(test::random_pair(n, 1, rng).first, n); };
    std::string x, y;
    std::vector<int64_t> wanted;
    for (int k = 0; k < 6; ++k) {
        const std::string flank = part(1200);
        x += flank;
        y += flank;
        if (k == 5) break;
        wanted.push_back(static_cast<int64_t>(x.size()) - 400);
        wanted.push_back(static_cast<int64_t>(x.size()) + 150);  // inside the insertion
        x += part(300);
    }
    const Sequence s0 = make_sequence("s0", x), s1 = make_sequence("s1", y);
    const Scoring sc(1, -3, 5, 2);
    const Alignment want = reference_traceback(s0, s1, sc);
    TrueRows rows(s0, s1, sc, wanted);
    const std::unique_ptr<Backend> cpu = test::small_backend("cpu");
    EngineSweeper sweeper(*cpu->slab_engine(), s0, s1, sc, int64_t{1} << 30, 3);
    TracebackCounts counts;
    const Alignment got = linear_traceback(s0, s1, sc, {want.score, want.s0_end, want.s1_end}, rows,
                                           TracebackLimits{4096, int64_t{1} << 20}, &counts, &sweeper);
    EXPECT_EQ(got.s0_start, want.s0_start) << "seed " << test::seed();
    EXPECT_EQ(got.s1_start, want.s1_start);
    EXPECT_EQ(got.cigar(), want.cigar());
    EXPECT_GT(counts.joined, 0) << "no walk met a walk taken ahead: the test tests little";
    std::printf("[ ahead    ] %lld windows swept ahead, %lld walked ahead, %lld joined\n",
                static_cast<long long>(counts.ahead), static_cast<long long>(counts.walked_ahead),
                static_cast<long long>(counts.joined));
}

TEST(LinearTraceback, ALongGapCostsAboutItsOwnCells) {
    // Flanks of 6000 bases around a 2000-base deletion and, in a later window, a 2000-base
    // insertion. The deletion is wider than the window it lies in (span 1314 for rows 1000
    // apart), and the rows below it are certain only in a window that holds where it opens:
    // windows widen, nested ones too, and the cells must stay a small multiple of the windows'.
    std::mt19937_64 rng(test::seed() + 76);
    const auto part = [&](int64_t n) { return test::preview(test::random_pair(n, 1, rng).first, n); };
    const std::string a = part(6000), b = part(6000), c = part(6000);
    const Sequence s0 = make_sequence("s0", a + b + part(2000) + c), s1 = make_sequence("s1", a + part(2000) + b + c);
    const Scoring sc(1, -3, 5, 2);
    const AlignmentEnd end = reference_align(s0, s1, sc);
    std::vector<int64_t> wanted;
    for (int64_t r = 500; r < s0.length(); r += 1000) wanted.push_back(r);
    TrueRows rows(s0, s1, sc, wanted);
    TracebackCounts counts;
    const Alignment got = linear_traceback(s0, s1, sc, end, rows, TracebackLimits{int64_t{1} << 20, int64_t{1} << 24},
                                           &counts);
    // The flanks and both gaps, give or take a few bases the random parts match by chance.
    ASSERT_EQ(got.score, end.score) << "seed " << test::seed();
    EXPECT_GE(got.score, 18000 - 2 * (5 + 2 * 1999));
    EXPECT_EQ(rescore(got, s0, s1, sc), got.score);
    EXPECT_LT(got.s0_start, 10);
    EXPECT_LT(got.s1_start, 10);
    // 20 windows of 1000 x 1314 cells; the deletion adds about twice its 1000 x 2000 cells,
    // and the nested windows of the sweeps as much.
    const int64_t windows = 20 * int64_t{1000} * 1314;
    std::printf("[ cells    ] %lld computed, %.2f times the windows' %lld; %lld widened\n",
                static_cast<long long>(counts.cells), static_cast<double>(counts.cells) / static_cast<double>(windows),
                static_cast<long long>(windows), static_cast<long long>(counts.widened));
    EXPECT_LT(counts.cells, 4 * windows) << "a long gap cost far more than its cells";
}

TEST(CrossingBias, BelowALongGapThePathNotWhereTheGapOpened) {
    // Rows 1000 rows above the walk's cell (1100, j), scoring +1/-3, gaps 5 + 2 (k - 1).
    // Row 100: the path crosses at p, 300 columns left of the diagonal (a net deletion); right
    // of p, cells its gap reaches (H lower by 3 + 2x); far left, where a 40000-column gap
    // opened above, H is higher by 30000 than the path's, as under a skipped rearrangement.
    // Row 200: the path crosses 300 columns right of the diagonal; left of it, cells its path
    // reaches down a vertical gap (H lower by 3 + 2.5x: the gap, and the 0.5 a row the path
    // scores). A bias of M min(a, b) - ext |a - b| would favour those by 0.5x - 3.
    const int64_t a = 1000, n = 60000, j = n, p = j - a - 300, opened = p - 40000, q = j - a + 300;
    WindowSpec w;
    w.top = 0;
    w.bottom = 1100;
    w.hi = n;
    KeptRows rows(w, first_row(1, n));
    const int32_t v = 50000;
    const auto blank = [&](int64_t r) {
        return WindowRow{r, std::vector<int32_t>(static_cast<size_t>(n + 1), 0),
                         std::vector<int32_t>(static_cast<size_t>(n + 1), kScoreNegInf)};
    };
    WindowRow below_gap = blank(100), right = blank(200);
    below_gap.h[static_cast<size_t>(p)] = v;
    for (int64_t x = 1; x <= 600; ++x) below_gap.h[static_cast<size_t>(p + x)] = static_cast<int32_t>(v - 3 - 2 * x);
    below_gap.h[static_cast<size_t>(opened)] = v + 30000;
    right.h[static_cast<size_t>(q)] = v;
    for (int64_t x = 1; x <= 600; ++x) right.h[static_cast<size_t>(q - x)] = static_cast<int32_t>(v - 3 - 5 * x / 2);
    rows.keep(below_gap);
    rows.keep(right);
    EXPECT_EQ(rows.crossing_column(100, 1, CrossingBias{0, a, j}), opened) << "the plain peak";
    EXPECT_EQ(rows.crossing_column(100, 1, CrossingBias{2, a, j}), p);
    EXPECT_EQ(rows.crossing_column(200, 1, CrossingBias{2, a, j}), q);
}

TEST(SpecialRows, CrossingColumnIsTheRightmostLargestBiasedH) {
    // Rows of two pieces with H drawn from a few values (many ties, equal block peaks): the
    // crossing found from the blocks' maxima equals a scan of the row, on ranges of every kind
    // (inside a block, across pieces, block-aligned ends, the matrix's last partial block).
    std::mt19937_64 rng(test::seed() + 77);
    const int64_t n = 3 * SpecialRows::kPeakColumns + 1 + static_cast<int64_t>(rng() % 8000);
    const auto [s0, s1] = test::random_pair(64, n, rng);
    const Scoring sc(1, -3, 5, 2);
    test::TempDir dir;
    const int64_t split = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(n - 1));
    std::map<int64_t, std::vector<int32_t>> regions;  // what region_peaks() must read back
    for (const int64_t row : {16, 32}) {
        regions[row].assign(static_cast<size_t>(n / SpecialRows::kPeakColumns + 1), 0);
        for (const auto& [first, width] : {std::pair<int64_t, int64_t>{1, split}, {split + 1, n - split}}) {
            SpecialRowWriter writer(dir.path(), rows_identity(s0, s1), first, width, sc, nullptr);
            std::vector<int32_t> h(static_cast<size_t>(width)), f(h.size());
            for (size_t k = 0; k < h.size(); ++k) {
                // At most min(row, column): what a row could hold (the reader checks).
                const int64_t most = std::min<int64_t>(row, first + static_cast<int64_t>(k));
                const int64_t values = std::min<int64_t>(row == 16 ? 5 : 400, most + 1);
                h[k] = static_cast<int32_t>(rng() % static_cast<uint64_t>(values));
                f[k] = h[k] - 7;
            }
            // The pieces share the block the split falls in: the reader keeps the larger peak.
            std::vector<int32_t> region(static_cast<size_t>(writer.runs()));
            for (size_t r = 0; r < region.size(); ++r) {
                region[r] = static_cast<int32_t>(rng() % 65);  // at most m = 64
                int32_t& want = regions[row][static_cast<size_t>(first / SpecialRows::kPeakColumns) + r];
                want = std::max(want, region[r]);
            }
            writer.write(row, h, f, region);
            writer.finish();
        }
    }
    SpecialRows rows(dir.path(), rows_identity(s0, s1), sc);
    ASSERT_EQ(rows.count(), 2);
    EXPECT_EQ(rows.region_peaks(), regions);
    for (int k = 0; k < 400; ++k) {
        const int64_t row = k % 2 ? 16 : 32, b = SpecialRows::kPeakColumns;
        int64_t from = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(n)), to = from;
        to = std::min(n, from + static_cast<int64_t>(rng() % static_cast<uint64_t>(k % 3 ? n : 300)));
        if (k % 5 == 0) from = std::max<int64_t>(1, from / b * b);      // a block's first column
        if (k % 7 == 0) to = std::min(n, (to / b + 1) * b - 1);         // a block's last column
        if (k == 0) from = 1, to = n;
        // No bias (the plain peak), or one whose slopes are those of scorings (many ties).
        const CrossingBias bias{k % 4 ? static_cast<int64_t>(rng() % 4) : 0, static_cast<int64_t>(rng() % static_cast<uint64_t>(n)),
                                to};
        const WindowRow r = rows.read(row, from, to);
        int64_t want = to;
        const auto value = [&](int64_t c) {
            const int64_t a = bias.a, b = to - c;
            return r.h[static_cast<size_t>(c - from + 1)] - bias.ext * std::abs(a - b);
        };
        for (int64_t c = to; c >= from; --c)
            if (value(c) > value(want)) want = c;
        EXPECT_EQ(rows.crossing_column(row, from, bias), want)
            << "row " << row << ", columns " << from << " .. " << to << ", bias " << bias.ext << " " << bias.a
            << ", seed " << test::seed();
    }
    // edge_reach: the leftmost column where the running maximum of max(0, H) + e c reaches a
    // level, from a scan of the row (column 0 counts H = 0).
    for (int k = 0; k < 200; ++k) {
        const int64_t row = k % 2 ? 16 : 32, gap = 2;
        const int64_t to = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(n));
        const WindowRow r = rows.read(row, 1, to);
        std::vector<int64_t> running(static_cast<size_t>(to + 1));
        for (int64_t c = 0; c <= to; ++c)
            running[static_cast<size_t>(c)] = std::max(c ? running[static_cast<size_t>(c - 1)] : 0,
                                                       edge_value(c ? r.h[static_cast<size_t>(c)] : 0, c, gap));
        const int64_t least = running[static_cast<size_t>(rng() % static_cast<uint64_t>(to + 1))] + static_cast<int64_t>(rng() % 3);
        int64_t want = to + 1;
        for (int64_t c = 0; c <= to && want > to; ++c)
            if (running[static_cast<size_t>(c)] >= least) want = c;
        EXPECT_EQ(rows.edge_reach(row, to, least, gap), want) << "row " << row << " to " << to << " least " << least;
    }
    EXPECT_EQ(rows.crossing_column(0, 5, CrossingBias{0, 3, 90}), 90) << "row 0, no bias: all zero, the rightmost";
    EXPECT_EQ(rows.crossing_column(0, 5, CrossingBias{2, 30, 90}), 60) << "row 0: where the bias peaks";
}

/// Keeps the last point saved; "crashes" (throws) at save number `crash_at`, as a kill would.
class MemoryJournal : public TracebackJournal {
public:
    std::optional<TracebackPoint> saved;
    int saves = 0, crash_at = -1;
    bool load(TracebackPoint& p) override {
        if (!saved) return false;
        p = *saved;
        return true;
    }
    bool due() override { return true; }
    void save(const TracebackPoint& p) override {
        saved = p;
        if (++saves == crash_at) throw std::runtime_error("crash");
    }
};

TEST(SpecialRows, RowsWithoutRegionPeaksStillRead) {
    // A row as chromalign wrote it before the regions' peaks (magic CASROW02, 12 bytes a
    // block): made from a new one by dropping that array. Its H reads back the same, and the
    // plot's map falls back on the row's own peaks.
    std::mt19937_64 rng(test::seed() + 78);
    const int64_t n = 2 * SpecialRows::kPeakColumns + 100;
    const auto [s0, s1] = test::random_pair(64, n, rng);
    const Scoring sc(1, -3, 5, 2);
    test::TempDir dir;
    std::vector<int32_t> h(static_cast<size_t>(n)), f(h.size());
    for (size_t k = 0; k < h.size(); ++k)  // at most min(40, column)
        h[k] = static_cast<int32_t>(rng() % std::min<uint64_t>(300, std::min<uint64_t>(40, k + 1) + 1)), f[k] = h[k] - 9;
    {
        SpecialRowWriter writer(dir.path(), rows_identity(s0, s1), 1, n, sc, nullptr);
        writer.write(40, h, f, std::vector<int32_t>(static_cast<size_t>(writer.runs()), 7));
    }
    const std::string path = (dir.path() / ("row40.col1-" + std::to_string(n) + ".srow")).string();
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_GT(bytes.size(), 96u) << path;
    constexpr size_t kCrcAt = 88, kHeader = 96;
    const int64_t blocks = n / SpecialRows::kPeakColumns + 1;
    bytes.erase(kHeader + 12 * static_cast<size_t>(blocks), 4 * static_cast<size_t>(blocks));
    bytes[7] = '2';
    const uint32_t crc = static_cast<uint32_t>(crc32(0L, reinterpret_cast<const Bytef*>(bytes.data()), kCrcAt));
    std::memcpy(&bytes[kCrcAt], &crc, sizeof crc);
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));

    SpecialRows rows(dir.path(), rows_identity(s0, s1), sc);
    ASSERT_EQ(rows.count(), 1) << "the old row was not read";
    const WindowRow got = rows.read(40, 1, n);
    EXPECT_TRUE(std::equal(h.begin(), h.end(), got.h.begin() + 1));
    std::vector<int32_t> own(static_cast<size_t>(blocks), 0);
    for (int64_t c = 1; c <= n; ++c)
        own[static_cast<size_t>(c / SpecialRows::kPeakColumns)] =
            std::max(own[static_cast<size_t>(c / SpecialRows::kPeakColumns)], h[static_cast<size_t>(c - 1)]);
    EXPECT_EQ(rows.region_peaks().at(40), own);
}

TEST(LinearTraceback, AJournalTakesUpAnInterruptedWalk) {
    std::mt19937_64 rng(test::seed() + 75);
    const Scoring sc(1, -3, 5, 2);
    int resumed = 0;
    for (int k = 0; k < 12; ++k) {
        const auto [a, b, wanted] = pair_with_rows(rng, 1500, 100, k % 2 ? 0.01 : 0);
        TrueRows rows(a, b, sc, wanted);
        const Alignment want = reference_traceback(a, b, sc);
        const AlignmentEnd end{want.score, want.s0_end, want.s1_end};
        MemoryJournal journal;
        journal.crash_at = 2 + static_cast<int>(rng() % 8);
        try {
            linear_traceback(a, b, sc, end, rows, TracebackLimits{4096, int64_t{1} << 20}, nullptr, nullptr, &journal);
        } catch (const std::runtime_error&) {
            ++resumed;
            ASSERT_TRUE(journal.saved.has_value());
            EXPECT_FALSE(journal.saved->runs_back.empty()) << "the walk was saved before any step";
        }
        journal.crash_at = -1;
        const Alignment got = linear_traceback(a, b, sc, end, rows, TracebackLimits{4096, int64_t{1} << 20}, nullptr,
                                               nullptr, &journal);
        EXPECT_EQ(got.s0_start, want.s0_start) << "pair #" << k << ", seed " << test::seed();
        EXPECT_EQ(got.s1_start, want.s1_start) << "pair #" << k;
        EXPECT_EQ(got.cigar(), want.cigar()) << "pair #" << k;
    }
    EXPECT_GE(resumed, 6) << "too few walks were interrupted";
}

TEST(LinearTraceback, AForgedJournalIsRefusedNotWalked) {
    // A journal's CRC guards its bytes, not its sense: a walk with a value no optimal prefix
    // has, runs of another letter, of no length or that do not lead from its point to the end
    // cell is refused before any step, and one that passes those tests but leads nowhere is
    // blamed on the journal, not on the end cell (before, such walks blamed the end cell or
    // the rows, or gave an alignment that is not the optimum's).
    std::mt19937_64 rng(test::seed() + 76);
    const Scoring sc(1, -3, 5, 2);
    const auto [a, b, wanted] = pair_with_rows(rng, 1500, 100, 0.01);
    TrueRows rows(a, b, sc, wanted);
    const Alignment want = reference_traceback(a, b, sc);
    const AlignmentEnd end{want.score, want.s0_end, want.s1_end};
    MemoryJournal journal;
    journal.crash_at = 3;
    ASSERT_THROW(linear_traceback(a, b, sc, end, rows, TracebackLimits{4096, int64_t{1} << 20}, nullptr, nullptr,
                                  &journal),
                 std::runtime_error);
    ASSERT_TRUE(journal.saved && !journal.saved->runs_back.empty());
    const TracebackPoint real = *journal.saved;
    std::vector<std::pair<const char*, TracebackPoint>> forged(6, {"", real});
    forged[0].first = "a value above the score", forged[0].second.v = end.score + 1;
    forged[1].first = "a negative value", forged[1].second.v = -1;
    forged[2].first = "a run of another letter", forged[2].second.runs_back[0].op = 'M';
    forged[3].first = "a run of no length", forged[3].second.runs_back.push_back(AlignmentRun{'=', 0});
    forged[4].first = "runs one column too long", forged[4].second.runs_back.push_back(AlignmentRun{'D', 1});
    forged[5].first = "a point one row up", --forged[5].second.i;
    forged.push_back({"a value one below the true one", real});
    --forged.back().second.v;
    for (const auto& [what, point] : forged) {
        journal.saved = point;
        journal.crash_at = -1;
        try {
            linear_traceback(a, b, sc, end, rows, TracebackLimits{4096, int64_t{1} << 20}, nullptr, nullptr, &journal);
            ADD_FAILURE() << what << ": walked";
        } catch (const Error& e) {
            EXPECT_EQ(std::string(e.what()).rfind("traceback journal: ", 0), 0u) << what << ": " << e.what();
        }
    }
}

}  // namespace
}  // namespace chromalign
