//! @file expected_whole_pass: Gotoh's three matrices in full, then sampled at the tiles' edges.
#include "tests/whole_pass_support.hpp"

#include <algorithm>
#include <stdexcept>

namespace chromalign::test {

PassVectors::PassVectors(int64_t m, int64_t n, int64_t tile_rows, int64_t tile_cols) {
    const int64_t bands = (m + tile_rows - 1) / tile_rows, columns = (n + tile_cols - 1) / tile_cols;
    row_h.assign(static_cast<size_t>(bands), std::vector<int32_t>(static_cast<size_t>(n + 1), 0));
    row_f.assign(static_cast<size_t>(bands), std::vector<int32_t>(static_cast<size_t>(n + 1), kNoGap));
    col_h.assign(static_cast<size_t>(columns), std::vector<int32_t>(static_cast<size_t>(m), 0));
    col_e.assign(static_cast<size_t>(columns), std::vector<int32_t>(static_cast<size_t>(m), kNoGap));
    pass.tile_rows = tile_rows;
    pass.tile_cols = tile_cols;
    pass.row_h = &row_h;
    pass.row_f = &row_f;
    pass.col_h = &col_h;
    pass.col_e = &col_e;
    pass.peaks = &peaks;
}

void expected_whole_pass(const Sequence& s0, const Sequence& s1, const Scoring& scoring, WholePass& out) {
    if (out.meanwhile) out.meanwhile();  // as a device's pass runs it, before its edges come home
    const int64_t m = s0.length(), n = s1.length(), w = n + 1;
    if (out.on_cells) {  // as a device tells after each launch, its last one counting every cell
        out.on_cells(m * n / 2);
        out.on_cells(m * n);
    }
    std::vector<int32_t> h(static_cast<size_t>((m + 1) * w), 0), e(h.size(), kNoGap), f(h.size(), kNoGap);
    const auto at = [w](int64_t i, int64_t j) { return static_cast<size_t>(i * w + j); };
    for (int64_t i = 1; i <= m; ++i)
        for (int64_t j = 1; j <= n; ++j) {
            e[at(i, j)] = std::max(e[at(i, j - 1)] - scoring.gap_extend, h[at(i, j - 1)] - scoring.gap_open);
            f[at(i, j)] = std::max(f[at(i - 1, j)] - scoring.gap_extend, h[at(i - 1, j)] - scoring.gap_open);
            const int32_t diag = h[at(i - 1, j - 1)] + scoring.score(s0.codes[static_cast<size_t>(i - 1)],
                                                                      s1.codes[static_cast<size_t>(j - 1)]);
            h[at(i, j)] = std::max({0, diag, e[at(i, j)], f[at(i, j)]});
        }
    const int64_t tr = out.tile_rows, tc = out.tile_cols;
    const int64_t bands = (m + tr - 1) / tr, columns = (n + tc - 1) / tc;
    for (int64_t b = 1; b < bands; ++b)
        for (int64_t j = 1; j <= n; ++j) {
            (*out.row_h)[static_cast<size_t>(b)][static_cast<size_t>(j)] = h[at(b * tr, j)];
            (*out.row_f)[static_cast<size_t>(b)][static_cast<size_t>(j)] = f[at(b * tr, j)];
        }
    for (int64_t c = 1; c < columns; ++c)
        for (int64_t i = 1; i <= m; ++i) {
            (*out.col_h)[static_cast<size_t>(c)][static_cast<size_t>(i - 1)] = h[at(i, c * tc)];
            (*out.col_e)[static_cast<size_t>(c)][static_cast<size_t>(i - 1)] = e[at(i, c * tc)];
        }
    out.peaks->assign(static_cast<size_t>(bands * columns), 0);
    for (int64_t i = 1; i <= m; ++i)
        for (int64_t j = 1; j <= n; ++j) {
            int32_t& peak = (*out.peaks)[static_cast<size_t>((i - 1) / tr * columns + (j - 1) / tc)];
            peak = std::max(peak, h[at(i, j)]);
        }
}

void FullMatrixWaves::bind(const Sequence&, const Sequence&) { kept_.reset(); }

bool FullMatrixWaves::whole_pass(const Sequence& s0, const Sequence& s1, const Scoring& scoring, WholePass& out) {
    ++passes;
    kept_.reset();
    out.keep = keeps && out.keep;  // said before meanwhile, as a device says it
    if (!out.keep) {
        expected_whole_pass(s0, s1, scoring, out);
        return true;
    }
    // A device that keeps them writes none into the grid's vectors, which the grid leaves
    // unmade until it fetches them: the pass fills vectors of its own.
    PassVectors own(s0.length(), s1.length(), out.tile_rows, out.tile_cols);
    own.pass.meanwhile = out.meanwhile;
    own.pass.on_cells = out.on_cells;
    expected_whole_pass(s0, s1, scoring, own.pass);
    *out.peaks = std::move(own.peaks);
    kept_.reset(new Kept{&s0, &s1, out.tile_rows, out.tile_cols, std::move(own.row_h), std::move(own.row_f),
                         std::move(own.col_h), std::move(own.col_e)});
    return true;
}

void FullMatrixWaves::run_kept(const Scoring& scoring, std::vector<KeptTile>& tiles) {
    if (!kept_) throw std::logic_error("run_kept with nothing kept");
    Kept& k = *kept_;
    const int64_t m = k.s0->length(), n = k.s1->length();
    std::vector<TileTask> tasks(tiles.size());
    std::vector<std::vector<int32_t>> out(tiles.size());
    for (size_t x = 0; x < tiles.size(); ++x) {
        const size_t b = static_cast<size_t>(tiles[x].band), c = static_cast<size_t>(tiles[x].column);
        const Rect r{tiles[x].band * k.tile_rows, std::min(m, (tiles[x].band + 1) * k.tile_rows),
                     tiles[x].column * k.tile_cols, std::min(n, (tiles[x].column + 1) * k.tile_cols)};
        const size_t rows = static_cast<size_t>(r.rows()), cols = static_cast<size_t>(r.cols());
        out[x].resize(2 * cols + 2 * rows);
        int32_t* o = out[x].data();
        const size_t col0 = static_cast<size_t>(r.left), row0 = static_cast<size_t>(r.top);
        tasks[x] = TileTask{r,
                            TileEdges{k.row_h[b].data() + col0, k.row_f[b].data() + col0, k.col_h[c].data() + row0,
                                      k.col_e[c].data() + row0},
                            tiles[x].barred, TileSink{o, o + cols, o + 2 * cols, o + 2 * cols + rows, nullptr}, {}};
    }
    run(*k.s0, *k.s1, scoring, tasks, 2);
    for (size_t x = 0; x < tiles.size(); ++x) {  // written after all ran: they read apart
        KeptTile& t = tiles[x];
        const TileSink& o = tasks[x].sink;
        const size_t b = static_cast<size_t>(t.band), c = static_cast<size_t>(t.column);
        const int64_t rows = tasks[x].rect.rows(), cols = tasks[x].rect.cols();
        if (b + 1 < k.row_h.size()) {
            int32_t* h = k.row_h[b + 1].data() + tasks[x].rect.left + 1;
            int32_t* f = k.row_f[b + 1].data() + tasks[x].rect.left + 1;
            t.bottom = !std::equal(o.bottom_h, o.bottom_h + cols, h) || !std::equal(o.bottom_f, o.bottom_f + cols, f);
            t.corner = o.bottom_h[cols - 1] != h[cols - 1];
            std::copy(o.bottom_h, o.bottom_h + cols, h);
            std::copy(o.bottom_f, o.bottom_f + cols, f);
        }
        if (c + 1 < k.col_h.size()) {
            int32_t* h = k.col_h[c + 1].data() + tasks[x].rect.top;
            int32_t* e = k.col_e[c + 1].data() + tasks[x].rect.top;
            t.right = !std::equal(o.right_h, o.right_h + rows, h) || !std::equal(o.right_e, o.right_e + rows, e);
            std::copy(o.right_h, o.right_h + rows, h);
            std::copy(o.right_e, o.right_e + rows, e);
        }
        t.peak = std::max(0, tasks[x].best.score);
        // As a device's lanes of 8 rows tell it: down to the end of the first cell's lane.
        if (t.peak > 0) t.peak_rows = std::min(rows, ((tasks[x].best.s0_end - tasks[x].rect.top - 1) / 8 + 1) * 8);
        ++kept_tiles;
    }
}

void FullMatrixWaves::fetch_kept(const std::vector<KeptFetch>& fetches) {
    if (!kept_) throw std::logic_error("fetch_kept with nothing kept");
    for (const KeptFetch& x : fetches) {
        ++fetched;
        const size_t i = static_cast<size_t>(x.index);
        // A row's index 0 is column 0; a column's index 0 is row 1.
        const int32_t* h = x.row ? kept_->row_h[i].data() + x.from + 1 : kept_->col_h[i].data() + x.from;
        const int32_t* g = x.row ? kept_->row_f[i].data() + x.from + 1 : kept_->col_e[i].data() + x.from;
        std::copy(h, h + x.count, x.h);
        std::copy(g, g + x.count, x.g);
    }
}

}  // namespace chromalign::test
