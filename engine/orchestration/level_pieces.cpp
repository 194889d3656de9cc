//! @file level_pieces: each slab of a staircase computed down to its highest row, left to right.
#include "engine/orchestration/level_pieces.hpp"

#include <algorithm>
#include <thread>

#include "engine/checkpoint/pieces.hpp"
#include "engine/error.hpp"
#include "engine/orchestration/left_column.hpp"
#include "engine/tiling/tile_grid.hpp"

namespace chromalign {
namespace {

/// Block columns for a slab of `width` columns: as many as the engine wants, and, but for the
/// last slab (which sends no right edge), exactly width / blocks columns each, so that the
/// grid's last column is the slab's.
int32_t level_blocks(const SlabShape& shape, int64_t width, bool last) {
    const int64_t most = std::clamp<int64_t>(width / shape.min_block_cols, 1, std::max(1, shape.blocks));
    for (int64_t b = most; b > 1; --b)
        if (last || width % (b * kColumnQuantum) == 0) return static_cast<int32_t>(b);
    return 1;
}

}  // namespace

Checkpoint level_pieces(const std::vector<Checkpoint>& slabs, const Sequence& s0, const Sequence& s1,
                        const Scoring& scoring, SlabEngine& engine) {
    const std::string count = std::to_string(slabs.size()) + (slabs.size() == 1 ? " slab" : " slabs");
    const std::string which = "the checkpoint pieces of " + count;
    const std::vector<Checkpoint> pieces = split_steps(slabs);  // each step is levelled as a slab
    const int q = static_cast<int>(pieces.size());
    int64_t top = 0;
    for (const Checkpoint& p : pieces) top = std::max(top, p.row);
    Checkpoint whole = flat_of(pieces, s1);
    whole.row = top;

    int64_t c0 = 0, prev_row = 0;
    std::vector<int32_t> prev_h, prev_e;  // the previous slab's right edge, rows prev_row+1 .. top
    for (int k = 0; k < q; ++k) {
        const Checkpoint& p = pieces[static_cast<size_t>(k)];
        const bool last = k + 1 == q;
        LeftColumn left;
        left.reset(p.row, p.left_corner, p.left_h, p.left_e);
        if (k > 0 && left.end() < std::min(prev_row, top))
            throw Error(which + " do not fit together (slab " + std::to_string(k) + " lacks rows " +
                        std::to_string(left.end() + 1) + " to " + std::to_string(prev_row) + " of its left edge)");
        if (k > 0) left.append(prev_row, prev_h, prev_e);
        if (p.row == top) {  // already there: its right neighbour kept the rows it needs
            whole.h.insert(whole.h.end(), p.h.begin(), p.h.end());
            whole.f.insert(whole.f.end(), p.f.begin(), p.f.end());
            prev_row = top;
            prev_h.clear();
            prev_e.clear();
            c0 += p.n;
            continue;
        }
        Sequence columns;
        columns.codes.assign(s1.codes.begin() + c0, s1.codes.begin() + c0 + p.n);
        const SlabShape shape = engine.slab_shape(s0.length(), p.n, scoring);
        TopRow start;
        if (p.row > 0) start.h = p.h, start.f = p.f;
        start.corner = k > 0 ? p.left_corner : 0;
        const auto ex = engine.slab_executor(s0, columns, scoring, p.row, start, SlabEdges{k > 0, !last},
                                             level_blocks(shape, p.n, last), PruneRule{});
        const TileGrid& g = ex->grid();
        const int64_t R = g.rows_per_band();
        if ((top - p.row) % R != 0)
            throw Error(which + " lie at rows that bands of " + std::to_string(R) + " rows do not join (" +
                        std::to_string(p.row) + " and " + std::to_string(top) + "); resume them with " +
                        count + ", or with the --alpha and backend that wrote them");
        const int64_t bands = (top - p.row) / R;  // band bands-1 ends at row top
        std::vector<int32_t> h(static_cast<size_t>(p.n)), f(h.size());
        std::vector<int32_t> out_h(static_cast<size_t>(top - p.row)), out_e(out_h.size());
        std::vector<int32_t> edge_h(static_cast<size_t>(R)), edge_e(edge_h.size());
        const std::vector<int32_t> zero(edge_h.size(), 0), neg(edge_h.size(), kScoreNegInf);
        int64_t next_right = 0;
        const auto drain = [&](int64_t upto) {
            while (next_right <= upto && ex->done(next_right)) {
                const int64_t b = ex->right_edge_band(next_right++);
                if (!last && b >= 0 && b < bands)
                    ex->read_right_edge(b, out_h.data() + b * R, out_e.data() + b * R);
            }
        };
        const int64_t final_diagonal = bands - 1 + g.blocks;  // completes band bands-1's bottom row
        ex->limit_bands(bands - 1);
        for (int64_t d = 0; d <= final_diagonal; ++d) {
            while (!ex->done(d - kMaxDiagonalsInFlight)) std::this_thread::yield();
            drain(d - 1);
            if (k > 0 && d < g.bands) {
                if (d < bands) {
                    const int32_t corner = left.copy(p.row + d * R, R, edge_h.data(), edge_e.data());
                    ex->set_left_edge(d, edge_h.data(), edge_e.data(), corner);
                } else {  // rows past `top`: only finish the diagonals of the row wanted
                    ex->set_left_edge(d, zero.data(), neg.data(), 0);
                }
            }
            ex->enqueue_diagonal(d);
            if (d >= bands - 1) ex->capture_band_bottom(bands - 1, d, h.data(), f.data());
        }
        ex->synchronize();
        drain(final_diagonal);
        // Cells past `top` were computed from fresh edges: never above their true scores.
        whole.best = better_of(whole.best, offset_end(ex->best(), p.row, c0));
        whole.h.insert(whole.h.end(), h.begin(), h.end());
        whole.f.insert(whole.f.end(), f.begin(), f.end());
        prev_row = p.row;
        prev_h = std::move(out_h);
        prev_e = std::move(out_e);
        c0 += p.n;
    }
    return whole;
}

}  // namespace chromalign
