//! @file Stage 1 as one stream of bands (issue 40's scheduler): a warp takes band after band of
//! R = A * 32 rows from a counter and runs it across the matrix with stage 1's cell step, as the
//! edge pass does (edge_pass.cuh), but only where its cells can still reach the best score.
//!
//! Why. On external diagonals a tile of R x C starts once the tiles left of it and above it
//! have ended, so the tiles along a narrow live band form a chain of (m / R + n / C) tiles of
//! C + 32 steps each, and the GPU idles beside it (tools/BENCHMARKS.md). Here a band follows
//! the band above two chunks behind, column by column: the chain is about n steps plus two
//! chunks a band, and every warp of the device holds a band of the live region.
//!
//! Geometry. Lane t holds rows band * R + t * A + 1 .. + A and at step s computes the 0-based
//! column s - t. Chunk k is steps [32 k, 32 k + 32): the parallelogram P_k of lane t's columns
//! [32 k - t, 32 k + 32 - t). Its inputs are the row above at columns [32 k, 32 k + 32)
//! (lane 0's reads, "output chunk k" of the band above) and the lanes' state at the chunk's
//! start. Lane 31 writes the band's bottom row: at chunk k, columns [32 k - 31, 32 k].
//!
//! Pruning (engine/pruning/prune_rule.hpp). Each chunk is decided before it runs, as a region
//! with top-left corner (row0, 32 k - 31): live by gain alone, or max(0, inputs) + gain >= G.
//! A dead chunk runs nothing and hands on what a skipped region does, H = 0 and E = F = -inf:
//! its lanes restart from the zero state (H(top - 1, .) included: lane 0's is an input of the
//! dead chunk, below G by the rule). While the lanes' state is zero the band jumps to the next
//! chunk that can be live: one whose output chunk above was written, or live by gain alone.
//! Chunks jumped over are dead by the rule with all their inputs zero.
//!
//! The bottom rows (ring slots band & 1). Output chunk q of a band (columns [32 q, 32 q + 32))
//! is written by its chunks q and q + 1; where one of them is live, the other's part is
//! written as zeros, and stamps[slot][q] = band + 1 says the chunk holds this band's row. An
//! output chunk without the stamp is zero: the band above ran nothing there. progress[band]
//! counts the chunks decided (output chunk q is final once it is q + 2), kStreamDone at the end.
//! Ring reuse: band b writes slot b & 1 over band b - 2's row at output chunk q only while
//! running chunks q, q + 1, after waiting for band b - 1's progress >= q + 2, by which band
//! b - 1 has read band b - 2's output chunk q. (Band b - 1 may load output chunk q + 1 while
//! its progress is q, before chunk q's steps: band b writes none past q - 2 of it then.)
//! Units wait only for the band taken before them, which is running or done, so any number of
//! resident warps makes progress.
//!
//! Spans. A band publishes the lowest output chunk it may stamp once its first search has
//! ended, and the highest it stamped before kStreamDone. The band below checks no stamp
//! outside them, and ends at once past the highest where the plain gain leaves no chunk live;
//! it reads the lowest again until it is published (waiting for it chained the bands' first
//! searches: 8M x 8M mutated 8.9 s against 5.2 s). Where this stands against the tiles, and
//! why: tools/BENCHMARKS.md, "A stream of bands".
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/cuda/best_tracking.cuh"
#include "kernels/cuda/block_agent.cuh"

namespace chromalign::kernels::cuda {

constexpr int kStreamChunk = kWarp;  ///< steps of a chunk: one output chunk of columns
constexpr int32_t kStreamDone = 0x7fffffff;

/// What a chunk reads at its steps, staged before them.
struct StreamStage {
    int2 bus[kStreamChunk];                ///< lane 0's (H, F) from the row above at step 32 k + u
    uint8_t s1[kStreamChunk + kWarp];      ///< [u - t + 31]: lane t's S1 code at step 32 k + u
};

/// The gain table as the host shares it while the stream runs (ready, then the view).
struct StreamGain {
    int32_t ready;
    GainView view;
};

struct StreamArgs {
    PhaseArgs p;               ///< s0, s1 (32 codes of slack either side), terms, diag_table, prune
    int64_t m, n, bands;
    int32_t chunks;            ///< kmax: chunks of a band, ceil((n + 31) / 32)
    int2* ring;                ///< 2 rows of n: (H, F) of a band's bottom row
    uint32_t* stamps;          ///< 2 rows of `chunks`
    int32_t* progress;         ///< per band, zeroed
    /// Per band, -1 until published: [2 b] the lowest output chunk band b may stamp (kmax:
    /// none), set once its first chunk is known; [2 b + 1] the highest it stamped (-1: none),
    /// set before its progress says kStreamDone. The band below skips the chunks outside.
    int32_t* span;
    unsigned long long* next_band;
    BestCell* best;            ///< per band, zeroed
    int32_t* best_score;       ///< G found: the largest H any band flushed (atomicMax)
    const int32_t* bound;      ///< a lower bound of the optimum from outside (the host raises it)
    const StreamGain* gain;    ///< the gain table, once ready
    unsigned long long* computed;  ///< real cells computed
    /// Per band, or null (kStreamTraceWords words a band): %globaltimer at its start and end,
    /// its first and last live chunk, its live chunks, when its first live chunk's steps began,
    /// and when each of the kStreamTraceChunks chunks from its first live one ended (0: jumped
    /// over). Where a band's chain goes: waiting for the band above, or running its chunks.
    long long* trace;
};

/// How long a band sleeps between polls while the band above is still searching for its first
/// live chunk: such a band is two bands or more from the live ones, and its polls (a search of
/// 32 chunks each) took issue slots and L2 trips from the live warps beside it, up to 1800 of
/// them on the 8M mutated pair: 3.164 and 3.139 s -> 3.008 and 3.064 s (tools/BENCHMARKS.md).
constexpr unsigned kStreamParkedNapNs = 8000;

constexpr int kStreamTraceChunks = 24;
constexpr int kStreamTraceWords = 6 + kStreamTraceChunks;

__device__ __forceinline__ long long stream_clock() {
    long long ns;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
    return ns;
}

/// The G a decision and the tracking gate take: the best flushed and the bound, the larger,
/// as loaded (a caller that loads G ahead takes the max only where it needs it, so nothing
/// waits on the loads before).
struct StreamG {
    int32_t found, bound;
    __device__ __forceinline__ int32_t value() const { return max(found, bound); }
};
__device__ __forceinline__ StreamG stream_g_loads(const StreamArgs& a) {
    return StreamG{*reinterpret_cast<const volatile int32_t*>(a.best_score),
                   *reinterpret_cast<const volatile int32_t*>(a.bound)};
}
__device__ __forceinline__ int32_t stream_g(const StreamArgs& a) { return stream_g_loads(a).value(); }

/// Max over the warp.
__device__ __forceinline__ int32_t stream_warp_max(int32_t v) {
#pragma unroll
    for (int o = kWarp / 2; o > 0; o /= 2) v = max(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

/// Fresh rows: H = 0, E = F = -inf, H above = 0 (the matrix's left edge, or a dead chunk's outputs).
template <int A>
__device__ __forceinline__ void stream_zero(Lane<A>& L, int32_t open) {
#pragma unroll
    for (int r = 0; r < A; ++r) {
        L.ho[r] = -open;
        L.e[r] = kNegInf;
    }
    L.hdiag_o = -open;
    L.fbot = kNegInf;
}

/// The 32 steps of a live chunk k. kInterior: every lane's columns are in the matrix (no
/// test per step), else lanes outside [0, n) idle. Invariant: L holds lane t's rows at column
/// 32 k - t - 1 on entry, at 32 k - t + 31 on exit (as far as the matrix goes).
template <int A, Substitution kSub, bool kInterior>
__device__ __forceinline__ void stream_steps(Lane<A>& L, const StreamArgs& a, const StreamStage& stage, int k,
                                             int32_t threshold_o, int2* out, const int32_t* table) {
    const int t = threadIdx.x;
    const int32_t open = a.p.terms.open;
    const int n = static_cast<int>(a.n);
#pragma unroll 8
    for (int u = 0; u < kStreamChunk; ++u) {
        const int col = 32 * k + u - t;
        int32_t up_o = __shfl_up_sync(0xffffffffu, L.ho[A - 1], 1);
        int32_t up_f = __shfl_up_sync(0xffffffffu, L.fbot, 1);
        if (t == 0) {
            up_o = stage.bus[u].x - open;
            up_f = stage.bus[u].y;
        }
        const bool active = kInterior || static_cast<unsigned>(col) < static_cast<unsigned>(n);
        if (active) {
            step<A, kSub>(L, up_o, up_f, stage.s1[u - t + kWarp - 1], a.p, table);
            if (t == kWarp - 1) out[col] = make_int2(L.ho[A - 1] + open, L.fbot);
        }
        track_if_needed(L, col, threshold_o, open, active);
    }
}

/// One band. Invariant before chunk k: L holds lane t's rows at column 32 k - t - 1 (the zero
/// state when `live_state` is false), L.best/tag its rows' bests so far (tag: the column),
/// prev_live whether chunk k - 1 ran, progress[band] = k (or less: owed, or before a jump's release).
template <int A, Substitution kSub>
__device__ void stream_band(const StreamArgs& a, int64_t band, const PruneRule& rule, const int32_t* table,
                            StreamStage& stage) {
    constexpr int R = A * kWarp;
    const int t = threadIdx.x;
    const int32_t open = a.p.terms.open;
    const int64_t row0 = band * R;
    const int64_t first_row = row0 + t * A;
    const int valid = static_cast<int>(min(max(a.m - first_row, int64_t{0}), int64_t{A}));
    const int n = static_cast<int>(a.n);
    const int kmax = a.chunks;
    const int2* const in = a.ring + ((band + 1) & 1) * a.n;
    int2* const out = a.ring + (band & 1) * a.n;
    const uint32_t* const in_stamp = a.stamps + ((band + 1) & 1) * static_cast<int64_t>(kmax);
    uint32_t* const out_stamp = a.stamps + (band & 1) * static_cast<int64_t>(kmax);
    const uint32_t above_tag = static_cast<uint32_t>(band);  // band - 1 + 1
    const int32_t* const above_progress = band > 0 ? a.progress + band - 1 : nullptr;

    Lane<A> L;
    stream_zero(L, open);
    clear_best(L);
    load_codes<A, kSub>(L, a.p, a.p.s0 + first_row);
    int64_t computed = 0;

    // Chunks of the row above that are final: output chunk q once q < settled().
    // An acquire load: the stamps and the row read after it are those written before the
    // release of that progress (release_flag).
    const auto settled = [&]() -> int {
        if (band == 0) return kmax;
        int32_t p;
        asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(p) : "l"(above_progress) : "memory");
        return p == kStreamDone ? kmax : max(p - 1, 0);
    };
    const auto stamped = [&](int q) { return band > 0 && __ldcg(in_stamp + q) == above_tag; };
    // Live by gain alone; the plain gain first, which needs no table.
    const auto fresh = [&](int q, int32_t g) {
        const int64_t col0 = max(int64_t{32} * q - (kWarp - 1), int64_t{0});
        const int64_t left = min(a.m - row0, a.n - col0);
        if (rule.on && (left > 0 ? left : 0) * rule.best_score < g) return false;
        return rule.live_by_gain(row0, col0, g);
    };

    // Chunks live by the plain gain lie below qf(g): min(m - row0, n - col0) * best >= g.
    const auto fresh_end = [&](int32_t g) -> int {
        if (!rule.on || g <= 0) return kmax;
        const int64_t need = (g + rule.best_score - 1) / rule.best_score;
        if (a.m - row0 < need || a.n < need) return 0;
        return static_cast<int>(min(int64_t{kmax}, (a.n - need + kWarp - 1) / 32 + 1));
    };
    // The band above's span: nothing of its row is stamped outside [above_lo, above_hi]. Its
    // lo comes once its first search ended, read again until then (0 meanwhile): waiting for
    // it made the bands' first searches one chain.
    int above_lo = band > 0 ? -1 : 0, above_hi = kmax;
    const auto lo_above = [&]() -> int {
        if (above_lo < 0) above_lo = *reinterpret_cast<const volatile int32_t*>(a.span + 2 * (band - 1));
        return max(above_lo, 0);
    };
    bool live_state = false, prev_live = false, lo_published = false;
    int hi_stamped = -1;
    int k = 0;
    // Output chunks q < seen of the row above are final (an acquire load saw it), so a chunk
    // whose row above was final long ago waits on no load of the progress.
    int seen = band > 0 ? 0 : kmax;
    // Chunk `ahead`'s inputs as loaded (-1: none): its S1 codes, its row above and that row's
    // stamp, and G, each kept as loaded (an operation on it would wait for the load). A live
    // chunk loads chunk k + 1's before its steps where that chunk's row above is final already,
    // so a band whose band above is ahead spends its chunks' trips to L2 while the steps run,
    // not before them; a chunk without them loads its own as it stages.
    int ahead = -1;
    uint8_t ahead_s1[2] = {0, 0};
    int2 ahead_bus = make_int2(0, kNegInf);
    uint32_t ahead_tag = 0;
    StreamG ahead_g{0, 0};
    const auto load_s1 = [&](int q) {  // lane t's codes for stage.s1[t] and [t + 32]
        ahead_s1[0] = a.p.s1[32 * q + t - (kWarp - 1)];
        ahead_s1[1] = t < kWarp - 1 ? a.p.s1[32 * q + t + 1] : 0;
    };
    // Only once output chunk q above is final, in program order after the acquire that saw it.
    const auto load_above = [&](int q) {
        const int col = 32 * q + t;
        ahead_bus = make_int2(0, kNegInf);
        if (col < n) ahead_bus = __ldcg(in + col);
        if (band > 0) ahead_tag = __ldcg(in_stamp + q);
        ahead = q;
    };
    const long long started = a.trace ? stream_clock() : 0;
    int first_live = -1, last_live = -1, live_chunks = 0;
    // progress[band] = k is owed: a chunk's release waits until the next chunk has staged and
    // decided, by when the chunk's row has reached L2 and the fence waits on nothing; it is
    // paid before any wait, so a band below waits at most that long for it.
    bool owed = false;
    const auto pay = [&] {
        if (owed) release_flag(a.progress + band, k);
        owed = false;
    };
    // The table's cells the last decision read (the band's strip, the bands of its diagonals).
    GainMemo memo;
    while (k < kmax) {
        int32_t g = ahead == k ? ahead_g.value() : stream_g(a);
        if (!live_state) {
            pay();
            // The next chunk from k that can be live, a window of 32 chunks at a time. A band
            // never jumps past a chunk of the row above that is not final yet (it may still be
            // written); the chunks passed are released as decided (dead, nothing written).
            int c = k;
            while (c < kmax) {
                const int qf = fresh_end(g);
                const int end = settled();
                seen = max(seen, end);
                if (band > 0 && end >= kmax && above_hi == kmax) above_hi = __ldcg(a.span + 2 * (band - 1) + 1);
                const int lo = band > 0 ? lo_above() : 0;
                if (c >= qf) {  // only a stamp can make a chunk live
                    if (band == 0 || c > above_hi) {
                        c = kmax;
                        break;
                    }
                    if (c < lo) c = lo;
                }
                const int q = c + t;
                const bool cand = q < kmax && ((q < end && q >= lo && stamped(q)) || (q < qf && fresh(q, g)));
                const unsigned hit = __ballot_sync(0xffffffffu, cand);
                if (hit && c + __ffs(hit) - 1 <= end) {  // every chunk before it final, none live
                    c += __ffs(hit) - 1;
                    break;
                }
                const int passed = end >= kmax || c + kWarp <= lo ? c + kWarp : min(c + kWarp, end);
                if (passed > c) {
                    c = passed;
                    release_flag(a.progress + band, min(c, kmax));
                } else {
                    if (above_lo < 0) __nanosleep(kStreamParkedNapNs);
                    g = stream_g(a);  // chunk c is not final: wait for the band above
                }
            }
            if (!lo_published) {
                if (t == 0) *reinterpret_cast<volatile int32_t*>(a.span + 2 * band) = c >= kmax ? kmax : max(c - 1, 0);
                lo_published = true;
            }
            if (c >= kmax) break;
            k = c;
            release_flag(a.progress + band, k);
        }
        // Stage chunk k's S1 codes, then its row above once final (loaded beside its stamp, not
        // after it: one trip to L2 a chunk less).
        if (ahead != k) {
            load_s1(k);
            if (seen < k + 1) pay();
            while (seen < k + 1) seen = settled();
            load_above(k);
        }
        stage.s1[t] = ahead_s1[0];
        if (t < kWarp - 1) stage.s1[t + kWarp] = ahead_s1[1];
        const bool top_live = band > 0 && k >= lo_above() && ahead_tag == above_tag;
        stage.bus[t] = top_live && 32 * k + t < n ? ahead_bus : make_int2(0, kNegInf);
        __syncwarp();
        const int64_t col0 = max(int64_t{32} * k - (kWarp - 1), int64_t{0});
        const int64_t gain = rule.on ? rule.gain(row0, col0, memo) : 0;
        bool live = rule.live_by(gain, g);
        if (!live) {  // dead_by falls as its input grows: live iff some lane's inputs keep it so
            int32_t in_max = max(L.hdiag_o + open, stage.bus[t].x);
#pragma unroll
            for (int r = 0; r < A; ++r) in_max = max(in_max, L.ho[r] + open);
            live = __any_sync(0xffffffffu, !rule.dead_by(in_max, gain, g));
        }
        pay();
        // Chunk k + 1's loads, issued before this chunk's steps and used after them: only where
        // its row above is final already.
        ahead = -1;
        if (live && k + 1 < kmax && seen > k + 1) {
            load_s1(k + 1);
            load_above(k + 1);
            ahead_g = stream_g_loads(a);
        }
        if (live) {
            const long long began = a.trace && first_live < 0 ? stream_clock() : 0;
            if (!prev_live && t == kWarp - 1 && k > 0 && 32 * k - 32 < n) out[32 * k - 32] = make_int2(0, kNegInf);
            const int32_t threshold_o = max(g, 1) - open;
            if (32 * k >= kWarp - 1 && 32 * k + kStreamChunk <= n) {
                stream_steps<A, kSub, true>(L, a, stage, k, threshold_o, out, table);
                computed += int64_t{kStreamChunk} * valid;
            } else {
                stream_steps<A, kSub, false>(L, a, stage, k, threshold_o, out, table);
                const int lo = max(32 * k - t, 0), hi = min(32 * k - t + kStreamChunk, n);
                if (hi > lo) computed += int64_t{hi - lo} * valid;
            }
            live_state = true;
            if (first_live < 0) {
                first_live = k;
                if (a.trace && t == 0) a.trace[band * kStreamTraceWords + 5] = began;
            }
            last_live = k;
            ++live_chunks;
            if ((k & 31) == 31) {  // G from this band's rows every 32 chunks, not only at its end
                int32_t b = L.best[0];
#pragma unroll
                for (int r = 1; r < A; ++r) b = max(b, L.best[r]);
                b = stream_warp_max(valid > 0 ? b : 0);
                if (t == 0 && b > g) atomicMax(a.best_score, b);
            }
        } else {
            if (prev_live && t == kWarp - 1)
                for (int col = max(32 * k - 31, 0); col <= 32 * k && col < n; ++col) out[col] = make_int2(0, kNegInf);
            stream_zero(L, open);
            live_state = false;
        }
        __syncwarp();  // the stage is refilled next chunk
        if (a.trace && t == 0 && first_live >= 0 && k - first_live < kStreamTraceChunks)
            a.trace[band * kStreamTraceWords + 6 + k - first_live] = stream_clock();
        // The stamp before the progress that makes it final (release_flag's fence, paid next
        // chunk, orders both after the chunk's row).
        if (k > 0 && (prev_live || live)) {
            if (t == 0) out_stamp[k - 1] = static_cast<uint32_t>(band + 1);
            hi_stamped = k - 1;
        }
        prev_live = live;
        ++k;
        owed = true;
    }
    // The last chunk ran: its output chunk has no chunk after it.
    if (prev_live) {
        if (t == 0) out_stamp[kmax - 1] = static_cast<uint32_t>(band + 1);
        hi_stamped = kmax - 1;
    }
    if (t == 0) {
        if (!lo_published) a.span[2 * band] = kmax;
        a.span[2 * band + 1] = hi_stamped;
    }
    release_flag(a.progress + band, kStreamDone);
    if (a.trace && t == 0) {
        long long* w = a.trace + band * kStreamTraceWords;
        w[0] = started;
        w[1] = stream_clock();
        w[2] = first_live;
        w[3] = last_live;
        w[4] = live_chunks;
    }

    // Rows past the matrix (the last band's padding) never hold the best: each is below a
    // real cell it comes from.
    BestCell mine{0, 0, 0, 0};
    if (valid > 0) flush_rows(L, mine, static_cast<int32_t>(first_row), 0);
    publish_best(mine, a.best + band, a.best_score);
#pragma unroll
    for (int o = kWarp / 2; o > 0; o /= 2) computed += __shfl_xor_sync(0xffffffffu, computed, o);
    if (t == 0 && computed > 0) atomicAdd(a.computed, static_cast<unsigned long long>(computed));
}

/// Bands are taken in order by whichever warp is free; each waits only for the band above.
template <int A, Substitution kSub>
__global__ void __launch_bounds__(kWarp) band_stream(const StreamArgs a) {
    __shared__ StreamStage stage;
    // The rule in shared memory, not registers: its table's terms would hold some 40 of them
    // across every chunk's steps for a decision a chunk (a PruneRule is trivially copyable).
    __shared__ alignas(PruneRule) int32_t rule_words[sizeof(PruneRule) / 4];
    PruneRule& rule = *reinterpret_cast<PruneRule*>(rule_words);
    const int t = threadIdx.x;
    const int32_t* const table = copy_block_table<kSub>(a.p);
    static_assert(std::is_trivially_copyable_v<PruneRule> && sizeof(PruneRule) % 4 == 0);
    if (t == 0) rule = a.p.prune;
    __syncwarp();
    bool have_table = rule.table.t != nullptr;
    for (;;) {
        unsigned long long band = 0;
        if (t == 0) band = atomicAdd(a.next_band, 1ull);
        band = __shfl_sync(0xffffffffu, band, 0);
        if (band >= static_cast<unsigned long long>(a.bands)) return;
        // Lane 0's reading for all: the lanes share the rule, and copy it together.
        int32_t ready = 0;
        if (t == 0 && !have_table && rule.on) ready = *reinterpret_cast<const volatile int32_t*>(&a.gain->ready);
        if (__shfl_sync(0xffffffffu, ready, 0)) {
            asm volatile("fence.acq_rel.gpu;" ::: "memory");
            const int32_t* src = reinterpret_cast<const int32_t*>(&a.gain->view);
            int32_t* dst = reinterpret_cast<int32_t*>(&rule.table);
            for (int w = t; w < static_cast<int>(sizeof(GainView) / 4); w += kWarp) dst[w] = __ldcg(src + w);
            __syncwarp();
            have_table = true;
        }
        stream_band<A, kSub>(a, static_cast<int64_t>(band), rule, table, stage);
    }
}

}  // namespace chromalign::kernels::cuda
