//! @file CudaTileWaves: a wave of the K best search's tiles, a warp each.
#include "kernels/cuda/tile_waves.hpp"

#include <climits>
#include <cstdint>
#include <vector>

#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/edge_pass.hpp"

namespace chromalign::kernels {
namespace {

constexpr int kNeg = -(1 << 30);  // kNoGap
static_assert(kNeg == kNoGap, "the device's 'no gap' is the host's");

/// A tile as the kernel reads it: rows top + 1 .. top + rows, columns left + 1 .. left + cols.
struct WaveTile {
    long long top, left;
    long long in;    ///< its inputs in `in`: top H and F (cols + 1 each, the corner first), left H and E (rows each)
    long long out;   ///< its outputs in `out`: the rolling row's H and F (cols + 1 each; the bottom row
                     ///< at the end), right H and E (rows each)
    long long bars;  ///< its barred cells in `bars`: (row, column) in the tile, 1-based, row-major
    int rows, cols, bar_count, pad;
};

struct WaveBest {
    int score, row, col, pad;  ///< row and column in the tile, 1-based; score 0: none
};

struct WaveTerms {
    int table[5][5];
    int open, ext;
};

/// (s, r, c) wins over (s2, r2, c2) by the tie rule: a higher score, then the smaller row, column.
__device__ bool wins(int s, int r, int c, int s2, int r2, int c2) {
    if (s != s2) return s > s2;
    if (r != r2) return r < r2;
    return c < c2;
}

/// One tile per block of one warp, its rows in stripes of 32, one per lane, diagonal by
/// diagonal: at step t lane q computes column k = t - q of its row. Invariant before step t:
/// h, e, f hold the lane's H, E, F of step t - 1 (column k - 1), diag its H(i - 1, k - 1); lane
/// q - 1's values of step t - 1 are the cells above lane q's (shuffled up), and lane 0 takes
/// them from the rolling row, the row above the stripe, which the stripe's last lane overwrites
/// behind it. The rolling row and S1's codes come 32 columns at a time, a chunk ahead, so lane
/// 0 never waits on memory. Lanes left of their edge (k < 0), right of the tile or below it
/// compute values that only such lanes read.
__global__ void __launch_bounds__(32) tile_wave(const WaveTile* tiles, const uint8_t* s0, const uint8_t* s1,
                                                const int* in, int* out, const int2* bars, WaveTerms terms,
                                                WaveBest* bests) {
    const unsigned full = 0xffffffffu;
    const WaveTile t = tiles[blockIdx.x];
    const int lane = threadIdx.x, rows = t.rows, cols = t.cols;
    const int* top_h = in + t.in;
    const int* top_f = top_h + cols + 1;
    const int* left_h = top_f + cols + 1;
    const int* left_e = left_h + rows;
    int* row_h = out + t.out;
    int* row_f = row_h + cols + 1;
    int* right_h = row_f + cols + 1;
    int* right_e = right_h + rows;
    const int2* tb = bars + t.bars;
    for (int k = lane; k <= cols; k += 32) {
        row_h[k] = top_h[k];
        row_f[k] = top_f[k];
    }
    __syncwarp();
    int best_s = 0, best_r = 0, best_c = 0;
    for (int r0 = 0; r0 < rows; r0 += 32) {
        const int r = r0 + lane;
        const bool live = r < rows;
        const int last = min(32, rows - r0) - 1;
        const int a = live ? s0[t.top + r] : 4;
        const int sub0 = terms.table[a][0], sub1 = terms.table[a][1], sub2 = terms.table[a][2],
                  sub3 = terms.table[a][3], sub4 = terms.table[a][4];
        int lo = 0, hi = t.bar_count;  // the lane's first barred cell: row r + 1's
        while (lo < hi) {
            const int mid = (lo + hi) / 2;
            if (tb[mid].x < r + 1) lo = mid + 1; else hi = mid;
        }
        int bar = lo;
        int bar_col = live && bar < t.bar_count && tb[bar].x == r + 1 ? tb[bar].y : INT_MAX;
        int h = 0, e = kNeg, f = kNeg, diag = 0, code = 4;
        int next_h = lane <= cols ? row_h[lane] : 0, next_f = lane <= cols ? row_f[lane] : kNeg;
        int next_c = lane >= 1 && lane <= cols ? s1[t.left + lane - 1] : 4;
        int chunk_h = 0, chunk_f = 0, chunk_c = 4;
        for (int step = 0; step < cols + 32; ++step) {
            if ((step & 31) == 0) {
                chunk_h = next_h;
                chunk_f = next_f;
                chunk_c = next_c;
                const int at = step + 32 + lane;
                next_h = at <= cols ? row_h[at] : 0;
                next_f = at <= cols ? row_f[at] : kNeg;
                next_c = at <= cols ? s1[t.left + at - 1] : 4;
                __syncwarp();  // these loads come before the writes of later steps
            }
            const int k = step - lane;
            int up_h = __shfl_up_sync(full, h, 1), up_f = __shfl_up_sync(full, f, 1), up_c = __shfl_up_sync(full, code, 1);
            const int row_at_h = __shfl_sync(full, chunk_h, step & 31), row_at_f = __shfl_sync(full, chunk_f, step & 31),
                      code_at = __shfl_sync(full, chunk_c, step & 31);
            if (lane == 0) {
                up_h = row_at_h;
                up_f = row_at_f;
                up_c = code_at;
            }
            code = up_c;
            int hn, en, fn;
            if (k == 0) {
                hn = live ? left_h[r] : 0;
                en = live ? left_e[r] : kNeg;
                fn = kNeg;
            } else {
                en = max(e - terms.ext, h - terms.open);
                fn = max(up_f - terms.ext, up_h - terms.open);
                const int s = code == 0 ? sub0 : code == 1 ? sub1 : code == 2 ? sub2 : code == 3 ? sub3 : sub4;
                int d = diag + s;
                if (k == bar_col) {
                    d = kNeg;
                    ++bar;
                    bar_col = bar < t.bar_count && tb[bar].x == r + 1 ? tb[bar].y : INT_MAX;
                }
                hn = max(max(d, 0), max(en, fn));
            }
            diag = up_h;
            h = hn;
            e = en;
            f = fn;
            if (live && k >= 1 && k <= cols) {
                if (hn > best_s) {  // strictly: the lane's first cell keeps a tie
                    best_s = hn;
                    best_r = r + 1;
                    best_c = k;
                }
                if (k == cols) {
                    right_h[r] = hn;
                    right_e[r] = en;
                }
            }
            if (lane == last && k >= 0 && k <= cols) {
                row_h[k] = hn;
                row_f[k] = fn;
            }
        }
        __syncwarp();  // the stripe's last row is the next one's rolling row
    }
    for (int offset = 16; offset > 0; offset >>= 1) {
        const int s = __shfl_down_sync(full, best_s, offset), r = __shfl_down_sync(full, best_r, offset),
                  c = __shfl_down_sync(full, best_c, offset);
        if (s > 0 && wins(s, r, c, best_s, best_r, best_c)) {
            best_s = s;
            best_r = r;
            best_c = c;
        }
    }
    if (lane == 0) bests[blockIdx.x] = WaveBest{best_s, best_r, best_c, 0};
}

class CudaTileWaves : public TileWaves {
public:
    explicit CudaTileWaves(int device) : device_(device) {
        CUDA_CHECK(cudaSetDevice(device_));
        CUDA_CHECK(cudaFree(nullptr));  // the context now: a device that cannot be used says so here
    }

    void bind(const Sequence& s0, const Sequence& s1) override {
        CUDA_CHECK(cudaSetDevice(device_));
        upload(s0, s0_);
        upload(s1, s1_);
        bound0_ = &s0;
        bound1_ = &s1;
    }

    void run(const Sequence& s0, const Sequence& s1, const Scoring& scoring, std::vector<TileTask>& tasks,
             int) override {
        if (tasks.empty()) return;
        if (&s0 != bound0_ || &s1 != bound1_) throw Error("internal: tiles of sequences the GPU was not given");
        CUDA_CHECK(cudaSetDevice(device_));
        WaveTerms terms{};
        for (int a = 0; a < 5; ++a)
            for (int b = 0; b < 5; ++b) terms.table[a][b] = scoring.score(static_cast<uint8_t>(a), static_cast<uint8_t>(b));
        terms.open = scoring.gap_open;
        terms.ext = scoring.gap_extend;
        std::vector<WaveTile> tiles(tasks.size());
        in_.clear();
        bar_cells_.clear();
        long long out_size = 0;
        for (size_t k = 0; k < tasks.size(); ++k) {
            const TileTask& task = tasks[k];
            const int rows = static_cast<int>(task.rect.rows()), cols = static_cast<int>(task.rect.cols());
            tiles[k] = WaveTile{task.rect.top, task.rect.left, static_cast<long long>(in_.size()), out_size,
                                static_cast<long long>(bar_cells_.size()), rows, cols,
                                static_cast<int>(task.barred.size()), 0};
            in_.insert(in_.end(), task.edges.top_h, task.edges.top_h + cols + 1);
            in_.insert(in_.end(), task.edges.top_f, task.edges.top_f + cols + 1);
            in_.insert(in_.end(), task.edges.left_h, task.edges.left_h + rows);
            in_.insert(in_.end(), task.edges.left_e, task.edges.left_e + rows);
            for (const auto& [i, j] : task.barred)
                bar_cells_.push_back(int2{static_cast<int>(i - task.rect.top), static_cast<int>(j - task.rect.left)});
            out_size += 2 * (cols + 1) + 2 * rows;
        }
        WaveTile* d_tiles = tiles_.reserve(tiles.size());
        int* d_in = in_d_.reserve(in_.size());
        int* d_out = out_d_.reserve(static_cast<size_t>(out_size));
        int2* d_bars = bars_d_.reserve(std::max<size_t>(bar_cells_.size(), 1));
        WaveBest* d_bests = bests_d_.reserve(tasks.size());
        CUDA_CHECK(cudaMemcpy(d_tiles, tiles.data(), tiles.size() * sizeof(WaveTile), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(d_in, in_.data(), in_.size() * sizeof(int), cudaMemcpyHostToDevice));
        if (!bar_cells_.empty())
            CUDA_CHECK(cudaMemcpy(d_bars, bar_cells_.data(), bar_cells_.size() * sizeof(int2), cudaMemcpyHostToDevice));
        tile_wave<<<static_cast<unsigned>(tasks.size()), 32>>>(d_tiles, s0_.get(), s1_.get(), d_in, d_out, d_bars, terms,
                                                               d_bests);
        CUDA_CHECK(cudaGetLastError());
        out_.resize(static_cast<size_t>(out_size));
        std::vector<WaveBest> bests(tasks.size());
        CUDA_CHECK(cudaMemcpy(out_.data(), d_out, out_.size() * sizeof(int), cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(bests.data(), d_bests, bests.size() * sizeof(WaveBest), cudaMemcpyDeviceToHost));
        for (size_t k = 0; k < tasks.size(); ++k) {
            TileTask& task = tasks[k];
            const WaveTile& w = tiles[k];
            const int* o = out_.data() + w.out;
            const int* right = o + 2 * (w.cols + 1);
            if (task.sink.bottom_h) std::copy(o + 1, o + 1 + w.cols, task.sink.bottom_h);
            if (task.sink.bottom_f) std::copy(o + w.cols + 2, o + 2 * (w.cols + 1), task.sink.bottom_f);
            if (task.sink.right_h) std::copy(right, right + w.rows, task.sink.right_h);
            if (task.sink.right_e) std::copy(right + w.rows, right + 2 * w.rows, task.sink.right_e);
            task.best = bests[k].score > 0
                            ? AlignmentEnd{bests[k].score, task.rect.top + bests[k].row, task.rect.left + bests[k].col}
                            : AlignmentEnd{};
        }
    }

    bool whole_pass(const Sequence& s0, const Sequence& s1, const Scoring& scoring, WholePass& out) override {
        return cuda_whole_pass(device_, s0, s1, scoring, out);
    }

private:
    static void upload(const Sequence& s, DeviceBuffer<uint8_t>& buffer) {
        uint8_t* d = buffer.reserve(std::max<size_t>(s.codes.size(), 1));
        CUDA_CHECK(cudaMemcpy(d, s.codes.data(), s.codes.size(), cudaMemcpyHostToDevice));
    }

    int device_;
    DeviceBuffer<uint8_t> s0_, s1_;
    const Sequence* bound0_ = nullptr;  ///< what s0_ and s1_ hold
    const Sequence* bound1_ = nullptr;
    DeviceBuffer<WaveTile> tiles_;
    DeviceBuffer<int> in_d_, out_d_;
    DeviceBuffer<int2> bars_d_;
    DeviceBuffer<WaveBest> bests_d_;
    std::vector<int> in_, out_;
    std::vector<int2> bar_cells_;
};

}  // namespace

std::unique_ptr<TileWaves> make_cuda_tile_waves(int device) { return std::make_unique<CudaTileWaves>(device); }

}  // namespace chromalign::kernels
