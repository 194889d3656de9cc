//! @file GainTable: the seeded rows of each strip and band from S0 x S1's shared k-mers, then T.
#include "engine/pruning/gain_table.hpp"

#include <algorithm>
#include <climits>
#include <cmath>

#include "engine/kmers.hpp"
#include "engine/threads/for_each_worker.hpp"

namespace chromalign {
namespace {

constexpr int32_t kMinK = 6, kMaxK = 13;      ///< 4^13 buckets of S0's k-mers: 256 MiB of offsets
constexpr int64_t kMostHits = 600'000'000;    ///< shared k-mer pairs listed at most
constexpr uint64_t kFrequent = 256;            ///< pairs of one k-mer above which it is a repeat's
constexpr int64_t kMostStripsOrBands = 512;   ///< T's side, so that building it stays O(512^3)

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

/// The strips and bands for an m x n matrix: H rows, W >= H diagonals, W large enough that a
/// band's gap columns repay a strip's seeded rows (the file comment of gain_table.hpp).
Grid grid_for(int64_t m, int64_t n, const GainTerms& terms, int64_t strip_rows) {
    Grid g;
    g.h = strip_rows > 0 ? strip_rows : std::max<int64_t>(4096, (std::max(m, n) + kMostStripsOrBands - 1) / kMostStripsOrBands);
    g.w = std::max(g.h, (terms.credit_k * g.h + terms.lambda_k - 1) / terms.lambda_k);
    g.strips = (m + 1 + g.h - 1) / g.h;  // DP rows 0..m
    g.bands = (m + n + 1 + g.w - 1) / g.w;  // diagonals -m..n
    return g;
}

/// k for an m x n matrix: the smallest gain per row, rho plus what chance k-mer matches add
/// to the three bands a strip's gain counts (W k / 4^k seeded rows each), among the ks whose
/// chance matches stay within kMostHits.
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
                             static_cast<double>(terms->credit_k) * std::min(1.0, 3.0 * g.w * k * chance)) / k;
        if (best == 0 || rate < best_rate) best = k, best_rate = rate;
    }
    return best;
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
    t.credit_k = int64_t{a} * k - t.rho_k;
    t.lambda_k = std::min(e * k, o * k - t.credit_k * (k - 1));
    if (t.credit_k <= 0 || t.lambda_k <= 0) return std::nullopt;
    return t;
}

double GainTable::rate(int64_t m, int64_t n, const Scoring& scoring) {
    const int32_t k = pick_k(m, n, scoring, 0);
    const auto terms = k > 0 ? GainTerms::of(scoring, k) : std::nullopt;
    if (!terms || m < k || n < k) return 1.0;
    return static_cast<double>(terms->rho_k) / (static_cast<double>(k) * scoring.best_score());
}

std::unique_ptr<GainTable> GainTable::build(const Sequence& s0, const Sequence& s1, const Scoring& scoring,
                                            int workers, const std::atomic<bool>& cancel, int64_t strip_rows, int32_t k) {
    const int64_t m = s0.length(), n = s1.length();
    workers = std::max(1, workers);
    if (k == 0) k = pick_k(m, n, scoring, strip_rows);
    const auto terms = k > 0 ? GainTerms::of(scoring, k) : std::nullopt;
    if (!terms || m < k || n < k || k > kMaxK) return nullptr;
    const Grid g = grid_for(m, n, *terms, strip_rows);

    // S0's k-mers by value: counts, then their positions in order (a counting sort).
    const size_t buckets = size_t{1} << (2 * k);
    std::vector<uint32_t> start(buckets + 1, 0);
    for_each_kmer(s0.codes, k, 0, m - k + 1, [&](int64_t, uint64_t x) { ++start[x + 1]; });
    for (size_t x = 0; x < buckets; ++x) start[x + 1] += start[x];
    std::vector<uint32_t> at(start.begin(), start.end() - 1), where(start[buckets]);
    for_each_kmer(s0.codes, k, 0, m - k + 1, [&](int64_t i, uint64_t x) { where[at[x]++] = static_cast<uint32_t>(i); });
    at = {};
    // Repeats make the pairs of equal k-mers quadratic. A k-mer with more than kFrequent pairs
    // is not listed: the rows of its S0 occurrences count as seeded in every band of their
    // strips (`every`), an upper count that costs one pass.
    std::vector<uint32_t> in_s1(buckets, 0);
    for_each_kmer(s1.codes, k, 0, n - k + 1, [&](int64_t, uint64_t x) { ++in_s1[x]; });
    const auto frequent = [&](uint64_t x) { return uint64_t{start[x + 1] - start[x]} * in_s1[x] > kFrequent; };
    std::vector<int64_t> every(static_cast<size_t>(g.strips), 0);
    int64_t pairs = 0;
    for (uint64_t x = 0; x < buckets; ++x)
        if (!frequent(x)) pairs += int64_t{start[x + 1] - start[x]} * in_s1[x];
    if (pairs > kMostHits || cancel.load(std::memory_order_relaxed)) return nullptr;
    for_each_kmer(s0.codes, k, 0, m - k + 1, [&](int64_t i, uint64_t x) {
        if (!frequent(x)) return;
        const int64_t first = (i + 1) / g.h, last = (i + k) / g.h;
        every[static_cast<size_t>(first)] += k;
        if (last != first) every[static_cast<size_t>(last)] += k;
    });

    // cnt(s, band): each shared k-mer at (i, j) counts its first row; the last k-mer of a run
    // of equal bases also its other k - 1 rows, in the strips of its first and last rows.
    // Every seeded cell of a run is so counted in its own strip: an upper count of seeded rows.
    const size_t cells = static_cast<size_t>(g.strips * g.bands);
    std::vector<std::vector<int64_t>> counts(static_cast<size_t>(workers));
    const auto same = [&](int64_t i, int64_t j) {
        const uint8_t x = s0.codes[static_cast<size_t>(i)], y = s1.codes[static_cast<size_t>(j)];
        return x == y && x <= kBaseT;
    };
    const int64_t kmers = n - k + 1;
    for_each_worker(workers, [&](int w) {
        std::vector<int64_t>& cnt = counts[static_cast<size_t>(w)];
        cnt.assign(cells, 0);
        for_each_kmer(s1.codes, k, kmers * w / workers, kmers * (w + 1) / workers, [&](int64_t j, uint64_t x) {
            if (frequent(x)) return;
            for (uint32_t p = start[x]; p < start[x + 1]; ++p) {
                // A DP cell (i + 1, j + 1) holds the pair s0[i], s1[j]: its diagonal j - i.
                const int64_t i = where[p], band = (j - i + m) / g.w;
                const int64_t first = (i + 1) / g.h, last = (i + k) / g.h;
                ++cnt[static_cast<size_t>(first * g.bands + band)];
                if (i + k == m || j + k == n || !same(i + k, j + k)) {
                    cnt[static_cast<size_t>(first * g.bands + band)] += k - 1;
                    if (last != first) cnt[static_cast<size_t>(last * g.bands + band)] += k - 1;
                }
            }
        });
    });
    if (cancel.load(std::memory_order_relaxed)) return nullptr;
    for (int w = 1; w < workers; ++w)
        for (size_t c = 0; c < cells; ++c) counts[0][c] += counts[static_cast<size_t>(w)][c];
    const std::vector<int64_t>& cnt = counts[0];

    // T from the last strip up. Band sums over [lo, hi] from prefix sums.
    std::vector<int64_t> next(static_cast<size_t>(g.bands), 0), here(next.size()), prefix(next.size() + 1);
    auto table = std::unique_ptr<GainTable>(new GainTable());
    table->t_.assign(cells, 0);
    for (int64_t s = g.strips - 1; s >= 0; --s) {
        prefix[0] = 0;
        for (int64_t b = 0; b < g.bands; ++b) prefix[static_cast<size_t>(b + 1)] = prefix[static_cast<size_t>(b)] + cnt[static_cast<size_t>(s * g.bands + b)];
        for_each_worker(workers, [&](int w) {
            for (int64_t b = w; b < g.bands; b += workers) {
                int64_t best = 0;
                for (int64_t c = 0; c < g.bands; ++c) {
                    const int64_t lo = std::max<int64_t>(0, std::min(b, c) - 1), hi = std::min(g.bands - 1, std::max(b, c) + 1);
                    const int64_t rows = std::min(g.h, prefix[static_cast<size_t>(hi + 1)] - prefix[static_cast<size_t>(lo)] +
                                                           every[static_cast<size_t>(s)]);
                    const int64_t shift = std::abs(b - c) * g.w;
                    best = std::max(best, terms->credit_k * rows - terms->lambda_k * shift + next[static_cast<size_t>(c)]);
                }
                here[static_cast<size_t>(b)] = best;
            }
        });
        for (int64_t b = 0; b < g.bands; ++b) {
            const int64_t v = (here[static_cast<size_t>(b)] + k - 1) / k;
            table->t_[static_cast<size_t>(s * g.bands + b)] = static_cast<int32_t>(std::min<int64_t>(v, INT32_MAX));
        }
        std::swap(here, next);
        if (cancel.load(std::memory_order_relaxed)) return nullptr;
    }
    GainView& v = table->view_;
    v.t = table->t_.data();
    v.strip_rows = g.h;
    v.band_diagonals = g.w;
    v.strips = g.strips;
    v.bands = g.bands;
    v.diagonal_origin = m;
    v.rho_k = terms->rho_k;
    v.k = k;
    // The last run's (a - rho)(k - 1), and the path's first change of band, which may cost
    // only W / 2 gap columns where T charged W.
    v.tail = (terms->credit_k * (k - 1) + k - 1) / k + (terms->lambda_k * g.w + 2 * k - 1) / (2 * k);
    return table;
}

}  // namespace chromalign
