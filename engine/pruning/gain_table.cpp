//! @file GainTable: the rows of each strip and band where S0 x S1 share a k-mer, then T.
#include "engine/pruning/gain_table.hpp"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <utility>
#include <vector>

#include "engine/kmers.hpp"
#include "engine/threads/for_each_worker.hpp"

namespace chromalign {
namespace {

constexpr int32_t kMinK = 6, kMaxK = 14;      ///< 4^14 buckets of S1's k-mers: 1 GiB of offsets (at 250M)
constexpr int64_t kMostHits = 600'000'000;    ///< shared k-mer pairs listed at most
constexpr double kFrequent = 256;              ///< pairs of one k-mer above which it is a repeat's
constexpr int64_t kMostStrips = 2048;         ///< strips at most, before the cells' cap
constexpr int64_t kLeastStripRows = 1024;
constexpr int64_t kMostCells = int64_t{1} << 25;  ///< T's cells at most: 128 MiB
constexpr int64_t kMostIndexWords = int64_t{1} << 25;  ///< the workers' bucket counts at most: 128 MiB

/// The largest identity score (a) and the largest other entry (b) of the matrix.
std::pair<int32_t, int32_t> identity_and_other(const Scoring& scoring) {
    int32_t a = INT32_MIN, b = scoring.other;
    for (int x = 0; x < 4; ++x)
        for (int y = 0; y < 4; ++y) (x == y ? a : b) = std::max(x == y ? a : b, scoring.matrix[x][y]);
    return {a, b};
}

struct Grid {
    int64_t h = 0, w = 0, strips = 0, bands = 0;
};

/// The strips and bands for an m x n matrix: H rows, and W diagonals, as few as let a band's
/// gap columns repay a strip's k-mer rows (the file comment of gain_table.hpp): the narrower
/// the bands, the fewer chance matches a path's gain counts. H doubles until T fits its cap.
Grid grid_for(int64_t m, int64_t n, const GainTerms& terms, int64_t strip_rows) {
    Grid g;
    g.h = strip_rows > 0 ? strip_rows : std::max(kLeastStripRows, (std::max(m, n) + kMostStrips - 1) / kMostStrips);
    for (;;) {
        g.w = std::max<int64_t>(2, (terms.credit_k * g.h + terms.lambda_k - 1) / terms.lambda_k);
        g.strips = (m + 1 + g.h - 1) / g.h;  // DP rows 0..m
        g.bands = (m + n + 1 + g.w - 1) / g.w;  // diagonals -m..n
        if (strip_rows > 0 || g.strips * g.bands <= kMostCells) return g;
        g.h *= 2;
    }
}

/// The pairs above which a k-mer is a repeat's: 16 times what chance gives one k-mer, (m / 4^k)
/// occurrences in S0 times (n / 4^k) in S1, and at least kFrequent.
double frequent_pairs(int64_t m, int64_t n, int32_t k) {
    return std::max(kFrequent, 16.0 * static_cast<double>(m) * static_cast<double>(n) * std::ldexp(1.0, -4 * k));
}

/// k for an m x n matrix: the smallest gain per row, rho plus what chance k-mer matches add
/// to the three bands a strip's gain counts (W / 4^k rows each), among the ks whose chance
/// matches stay within kMostHits.
int32_t pick_k(int64_t m, int64_t n, const Scoring& scoring, int64_t strip_rows) {
    int32_t best = 0;
    double best_rate = 0;
    for (int32_t k = kMinK; k <= kMaxK; ++k) {
        const auto terms = GainTerms::of(scoring, k);
        if (!terms) continue;
        const double chance = std::ldexp(1.0, -2 * k);
        if (static_cast<double>(m) * static_cast<double>(n) * chance > kMostHits / 2) continue;
        const Grid g = grid_for(m, n, *terms, strip_rows);
        const double rate = (static_cast<double>(terms->rho_k) +
                             static_cast<double>(terms->credit_k) * std::min(1.0, 3.0 * g.w * chance)) / k;
        if (best == 0 || rate < best_rate) best = k, best_rate = rate;
    }
    return best;
}

/// T from the last strip up (the recurrence of gain_table.hpp), in units of 1/k, from the
/// k-mer rows cnt(s, band) and each strip's rows counted in every band; stored rounded up to
/// whole units. A move of two bands or more is charged the strip's rows in all bands, an upper
/// count, so that the largest such move is one sweep each way (a distance transform of T(s + 1)
/// under lambda W per band) and a strip costs O(bands), not O(bands^2).
bool fill_table(const Grid& g, const GainTerms& terms, const std::vector<uint32_t>& cnt, const std::vector<int64_t>& every,
                std::vector<int32_t>& t, const std::atomic<bool>& cancel) {
    const int64_t bands = g.bands;
    const int64_t step = terms.lambda_k * g.w;
    // Arrays over bands -2 .. bands + 2 (index b + 2): a band outside the matrix has no k-mer
    // rows and no T, so every candidate reads them with no test of its own.
    constexpr int64_t kNone = INT64_MIN / 4;  // no path: below every sum it meets
    const size_t span = static_cast<size_t>(bands + 5);
    std::vector<int64_t> next(span, kNone), here(span, kNone), prefix(span + 1, 0), left(span, kNone), right(span, kNone);
    for (int64_t b = 0; b < bands; ++b) next[static_cast<size_t>(b + 2)] = 0;
    int64_t* const lf = left.data() + 2;
    int64_t* const rt = right.data() + 2;
    int64_t* const pf = prefix.data() + 3;  // pf[b]: k-mer rows of the bands before b
    for (int64_t s = g.strips - 1; s >= 0; --s) {
        const int64_t* const nx = next.data() + 2;  // T(s + 1)
        int64_t* const hr = here.data() + 2;        // T(s)
        const uint32_t* c = cnt.data() + s * bands;
        for (int64_t b = 0; b < bands; ++b) pf[b + 1] = pf[b] + c[b];
        pf[bands + 1] = pf[bands + 2] = pf[bands];
        const int64_t e = every[static_cast<size_t>(s)];
        // K-mer rows over bands [lo, hi], capped at H: what a strip's path can count there.
        const auto rows = [&](int64_t lo, int64_t hi) { return std::min(g.h, pf[hi + 1] - pf[lo] + e); };
        const int64_t all = terms.credit_k * rows(0, bands - 1);
        // left[b] = max over c <= b of T(s + 1, c) - lambda W (b - c); right[b] the same for c >= b.
        for (int64_t b = 0; b < bands; ++b) lf[b] = std::max(nx[b], lf[b - 1] - step);
        for (int64_t b = bands - 1; b >= 0; --b) rt[b] = std::max(nx[b], rt[b + 1] - step);
        int32_t* const row = t.data() + s * bands;
        for (int64_t b = 0; b < bands; ++b) {
            // Stay in band b, or move one band either way (its rows over both bands and their
            // neighbours), or move two bands or more, charged the whole strip's rows.
            int64_t best = std::max<int64_t>(0, terms.credit_k * rows(b - 1, b + 1) + nx[b]);
            best = std::max(best, terms.credit_k * rows(b - 2, b + 1) - step + nx[b - 1]);
            best = std::max(best, terms.credit_k * rows(b - 1, b + 2) - step + nx[b + 1]);
            best = std::max(best, all + lf[b - 2] - 2 * step);
            best = std::max(best, all + rt[b + 2] - 2 * step);
            hr[b] = best;
            row[b] = static_cast<int32_t>(std::min<int64_t>((best + terms.k - 1) / terms.k, INT32_MAX));
        }
        std::swap(here, next);
        if (cancel.load(std::memory_order_relaxed)) return false;
    }
    return true;
}

}  // namespace

std::optional<GainTerms> GainTerms::of(const Scoring& scoring, int32_t k) {
    const auto [a, b] = identity_and_other(scoring);
    if (k < 2 || a <= 0 || b >= 0) return std::nullopt;
    const int64_t o = scoring.gap_open, e = std::min(scoring.gap_extend, scoring.gap_open);
    GainTerms t;
    t.k = k;
    // rho k = a (k - 1) + b, raised where gaps are too cheap: lambda must stay positive.
    t.rho_k = int64_t{a} * (k - 1) + b;
    // And raised to 0: then rho D <= rho min(m - i, n - j) for every D (a higher rho keeps
    // every inequality of the argument).
    t.rho_k = std::max<int64_t>(t.rho_k, 0);
    // lambda k = o k - (a k - rho k)(k - 1) > 0  <=>  rho k > a k - o k / (k - 1).
    const int64_t least = int64_t{a} * k - (o * k + (k - 2)) / (k - 1) + 1;
    if (o * k - (int64_t{a} * k - t.rho_k) * (k - 1) <= 0) t.rho_k = std::max(t.rho_k, least);
    t.a = a;
    t.b = b;
    t.credit_k = int64_t{a} * k - t.rho_k;
    t.lambda_k = std::min(e * k, o * k - t.credit_k * (k - 1));
    if (t.credit_k <= 0 || t.lambda_k <= 0) return std::nullopt;
    return t;
}

int32_t GainTable::k_for(int64_t m, int64_t n, const Scoring& scoring) { return pick_k(m, n, scoring, 0); }

std::unique_ptr<GainTable> GainTable::build(const Sequence& s0, const Sequence& s1, const Scoring& scoring,
                                            int workers, const std::atomic<bool>& cancel, int64_t strip_rows, int32_t k) {
    const int64_t m = s0.length(), n = s1.length();
    workers = std::max(1, workers);
    if (k == 0) k = pick_k(m, n, scoring, strip_rows);
    const auto terms = k > 0 ? GainTerms::of(scoring, k) : std::nullopt;
    if (!terms || m < k || n < k || k > kMaxK) return nullptr;
    const Grid g = grid_for(m, n, *terms, strip_rows);

    // S1's k-mers by value: counts, then their positions in order (a counting sort). Workers
    // take consecutive stretches of S1, each with counts of its own, as many as keep those
    // within kMostIndexWords; placed from their offsets, the positions come out in order.
    const size_t buckets = size_t{1} << (2 * k);
    const int indexers = static_cast<int>(std::clamp<int64_t>(kMostIndexWords / static_cast<int64_t>(buckets), 1, workers));
    const auto stretch = [&](int w, int64_t total) {
        return std::pair<int64_t, int64_t>{total * w / indexers, total * (w + 1) / indexers};
    };
    std::vector<std::vector<uint32_t>> at(static_cast<size_t>(indexers));
    // at[w][x]: how often k-mer x starts in worker w's stretch of `s`. Allocated here, not by
    // the workers, whose threads would each take a malloc arena.
    const auto count_stretches = [&](const Sequence& s) {
        for (std::vector<uint32_t>& mine : at) mine.assign(buckets, 0);
        for_each_worker(indexers, [&](int w) {
            const auto [lo, hi] = stretch(w, s.length() - k + 1);
            std::vector<uint32_t>& mine = at[static_cast<size_t>(w)];
            for_each_kmer_until(s.codes, k, lo, hi, cancel, [&](int64_t, uint64_t x) { ++mine[x]; });
        });
        return !cancel.load(std::memory_order_relaxed);
    };
    if (!count_stretches(s1)) return nullptr;
    std::vector<uint32_t> start(buckets + 1, 0);
    for (size_t x = 0; x < buckets; ++x) {  // start[x], and each worker's first slot in bucket x
        uint32_t next = start[x];
        for (std::vector<uint32_t>& mine : at) next += std::exchange(mine[x], next);
        start[x + 1] = next;
    }
    std::vector<uint32_t> where(start[buckets]);
    for_each_worker(indexers, [&](int w) {
        const auto [lo, hi] = stretch(w, n - k + 1);
        std::vector<uint32_t>& mine = at[static_cast<size_t>(w)];
        for_each_kmer_until(s1.codes, k, lo, hi, cancel,
                            [&](int64_t j, uint64_t x) { where[mine[x]++] = static_cast<uint32_t>(j); });
    });
    if (cancel.load(std::memory_order_relaxed)) return nullptr;
    // Repeats make the pairs of equal k-mers quadratic. A k-mer with many more pairs than
    // chance gives is not listed: the rows of its S0 occurrences count in every band of their
    // strips (`every`, counted with the listed ones below), an upper count.
    if (!count_stretches(s0)) return nullptr;
    std::vector<uint32_t> in_s0 = std::move(at[0]);
    for (size_t w = 1; w < at.size(); ++w)
        for (size_t x = 0; x < buckets; ++x) in_s0[x] += at[w][x];
    at = {};
    const double most = frequent_pairs(m, n, k);
    const auto frequent = [&](uint64_t x) { return static_cast<double>(start[x + 1] - start[x]) * in_s0[x] > most; };
    std::vector<int64_t> every(static_cast<size_t>(g.strips), 0);
    int64_t pairs = 0;
    for (uint64_t x = 0; x < buckets; ++x)
        if (!frequent(x)) pairs += int64_t{start[x + 1] - start[x]} * in_s0[x];
    if (pairs > kMostHits || cancel.load(std::memory_order_relaxed)) return nullptr;

    // cnt(s, band): the rows of strip s holding a shared k-mer's first cell in the band (a
    // k-mer at (i, j) starts at DP cell (i + 1, j + 1)): each k-mer counts its row, an upper
    // count. A repeat's k-mer at i adds its row to `every` instead. Each worker owns a range of
    // strips and writes only there; a count stops at H, all a strip's gain reads (min(H, ...)).
    const size_t cells = static_cast<size_t>(g.strips * g.bands);
    std::vector<uint32_t> cnt(cells, 0);
    for_each_worker(workers, [&](int w) {
        const int64_t lo = g.strips * w / workers, hi = g.strips * (w + 1) / workers;
        // The k-mers whose row i + 1 is in strips [lo, hi).
        const int64_t first_i = std::max<int64_t>(0, lo * g.h - 1), last_i = std::min(m - k + 1, hi * g.h - 1);
        const auto count_at = [&](int64_t i, uint64_t x) {
            if (cancel.load(std::memory_order_relaxed)) return;
            const int64_t strip = (i + 1) / g.h;
            if (frequent(x)) {
                ++every[static_cast<size_t>(strip)];
                return;
            }
            uint32_t* const row = cnt.data() + strip * g.bands;
            for (uint32_t p = start[x]; p < start[x + 1]; ++p) {
                // A DP cell (i + 1, j + 1) holds the pair s0[i], s1[j]: its diagonal j - i.
                uint32_t& c = row[(where[p] - i + m) / g.w];
                c = c < g.h ? c + 1 : c;
            }
        };
        // Each k-mer reads its bucket's bounds and S0 count, then its run of S1 positions,
        // all at random: the k-mers are counted kAhead behind the scan, which asks for the
        // first two kAhead ahead and for the run half way (8M mutated: 30% less time here).
        constexpr int64_t kAhead = 16;
        struct Pending {
            int64_t i;
            uint64_t x;
        } ring[kAhead];
        int64_t seen = 0;
        for_each_kmer_until(s0.codes, k, first_i, last_i, cancel, [&](int64_t i, uint64_t x) {
            __builtin_prefetch(&start[x]);
            __builtin_prefetch(&in_s0[x]);
            if (seen >= kAhead / 2) __builtin_prefetch(&where[start[ring[(seen - kAhead / 2) % kAhead].x]]);
            if (seen >= kAhead) count_at(ring[seen % kAhead].i, ring[seen % kAhead].x);
            ring[seen % kAhead] = Pending{i, x};
            ++seen;
        });
        for (int64_t c = std::max<int64_t>(0, seen - kAhead); c < seen; ++c) count_at(ring[c % kAhead].i, ring[c % kAhead].x);
    });
    if (cancel.load(std::memory_order_relaxed)) return nullptr;

    auto table = std::unique_ptr<GainTable>(new GainTable());
    table->t_.assign(cells, 0);
    if (!fill_table(g, *terms, cnt, every, table->t_, cancel)) return nullptr;
    GainView& v = table->view_;
    v.t = table->t_.data();
    v.strip_rows = Divisor::of(g.h);
    v.band_diagonals = Divisor::of(g.w);
    v.strips = g.strips;
    v.bands = g.bands;
    v.diagonal_origin = m;
    v.rho_k = terms->rho_k;
    v.k = Divisor::of(k);
    // The last run's (a - rho)(k - 1), and the path's first change of band, which may cost
    // only W / 2 gap columns where T charged W.
    v.tail = (terms->credit_k * (k - 1) + k - 1) / k + (terms->lambda_k * g.w + 2 * k - 1) / (2 * k);
    static std::atomic<uint64_t> builds{0};
    v.id = ++builds;
    return table;
}

}  // namespace chromalign
