//! @file EdgeGrid: tiles computed from the edges kept between them.
#include "engine/declump/edge_grid.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <deque>
#include <map>
#include <mutex>
#include <string>

#include "engine/declump/dependency_order.hpp"
#include "engine/declump/tile_lanes.hpp"
#include "engine/error.hpp"
#include "engine/threads/for_each_worker.hpp"

namespace chromalign {

EdgeGrid::EdgeGrid(const Sequence& s0, const Sequence& s1, const Scoring& scoring, const Rect& area,
                   int64_t tile_rows, int64_t tile_cols, std::vector<int32_t> top_h, std::vector<int32_t> top_f,
                   std::vector<int32_t> left_h, std::vector<int32_t> left_e, const GridWorkers& workers)
    : EdgeGrid(s0, s1, scoring, area, tile_rows, tile_cols, std::move(top_h), std::move(top_f), std::move(left_h),
               std::move(left_e), workers, true) {}

EdgeGrid::EdgeGrid(const Sequence& s0, const Sequence& s1, const Scoring& scoring, const Rect& area,
                   int64_t tile_rows, int64_t tile_cols, std::vector<int32_t> top_h, std::vector<int32_t> top_f,
                   std::vector<int32_t> left_h, std::vector<int32_t> left_e, const GridWorkers& workers, bool make_now)
    : s0_(s0), s1_(s1), scoring_(scoring), area_(area), tile_rows_(tile_rows), tile_cols_(tile_cols),
      bands_((area.rows() + tile_rows - 1) / tile_rows), tile_columns_((area.cols() + tile_cols - 1) / tile_cols),
      workers_(workers) {
    row_h_.resize(static_cast<size_t>(bands_));
    row_f_.resize(row_h_.size());
    col_h_.resize(static_cast<size_t>(tile_columns_));
    col_e_.resize(col_h_.size());
    best_.assign(static_cast<size_t>(bands_ * tile_columns_), AlignmentEnd{});
    unplaced_.assign(best_.size(), 0);
    block_top_.assign((best_.size() + kBestBlock - 1) / kBestBlock, 0);
    block_stale_.assign(block_top_.size(), 1);
    if (bands_ == 0 || tile_columns_ == 0) return;
    row_h_[0] = std::move(top_h);
    row_f_[0] = std::move(top_f);
    col_h_[0] = std::move(left_h);
    col_e_[0] = std::move(left_e);
    if (make_now) make_edges();
}

void EdgeGrid::make_edges(bool kept) {
    edges_made_ = true;
    if (kept) {  // each made as it is first fetched
        fetched_row_h_.resize(static_cast<size_t>(bands_));
        fetched_row_f_.resize(static_cast<size_t>(bands_));
        fetched_col_h_.resize(static_cast<size_t>(tile_columns_));
        fetched_col_e_.resize(static_cast<size_t>(tile_columns_));
        return;
    }
    const size_t width = static_cast<size_t>(area_.cols() + 1), height = static_cast<size_t>(area_.rows());
    // A genome's edges are gigabytes: their first touch on every thread, not on one.
    const int64_t words = bands_ * static_cast<int64_t>(width) + tile_columns_ * static_cast<int64_t>(height);
    const int threads = words >= (int64_t{1} << 26) ? std::max(1, workers_.threads) : 1;
    const auto fill = [&](int w) {
        for (int64_t b = 1 + w; b < bands_; b += threads) {
            row_h_[static_cast<size_t>(b)].assign(width, 0);
            row_f_[static_cast<size_t>(b)].assign(width, kNoGap);
            // Column area.left of every band's top row is the left edge's (its F is never read).
            row_h_[static_cast<size_t>(b)][0] = col_h_[0][static_cast<size_t>(b * tile_rows_ - 1)];
        }
        for (int64_t c = 1 + w; c < tile_columns_; c += threads) {
            col_h_[static_cast<size_t>(c)].assign(height, 0);
            col_e_[static_cast<size_t>(c)].assign(height, kNoGap);
        }
    };
    for_each_worker(threads, fill);
}

void EdgeGrid::make_row(size_t b) {
    if (fetched_row_h_[b]) return;
    const size_t width = static_cast<size_t>(area_.cols() + 1);
    fetched_row_h_[b].reset(new int32_t[width]);  // unwritten: see fetched_row_h_
    fetched_row_f_[b].reset(new int32_t[width]);
    // Column area.left is the left edge's (its F is never read).
    fetched_row_h_[b][0] = col_h_[0][b * static_cast<size_t>(tile_rows_) - 1];
    fetched_row_f_[b][0] = kNoGap;
}

void EdgeGrid::make_column(size_t c) {
    if (fetched_col_h_[c]) return;
    fetched_col_h_[c].reset(new int32_t[static_cast<size_t>(area_.rows())]);
    fetched_col_e_[c].reset(new int32_t[static_cast<size_t>(area_.rows())]);
}

int32_t* EdgeGrid::row_h(size_t b) const {
    return kept_ && b > 0 ? fetched_row_h_[b].get() : const_cast<int32_t*>(row_h_[b].data());
}
int32_t* EdgeGrid::row_f(size_t b) const {
    return kept_ && b > 0 ? fetched_row_f_[b].get() : const_cast<int32_t*>(row_f_[b].data());
}
int32_t* EdgeGrid::col_h(size_t c) const {
    return kept_ && c > 0 ? fetched_col_h_[c].get() : const_cast<int32_t*>(col_h_[c].data());
}
int32_t* EdgeGrid::col_e(size_t c) const {
    return kept_ && c > 0 ? fetched_col_e_[c].get() : const_cast<int32_t*>(col_e_[c].data());
}

EdgeGrid EdgeGrid::whole(const Sequence& s0, const Sequence& s1, const Scoring& scoring, int64_t tile_rows,
                         int64_t tile_cols, const GridWorkers& workers) {
    const int64_t m = s0.length(), n = s1.length();
    // The edges inside are made by compute(), beside the device's pass where there is one.
    return EdgeGrid(s0, s1, scoring, Rect{0, m, 0, n}, tile_rows, tile_cols, std::vector<int32_t>(static_cast<size_t>(n + 1), 0),
                    std::vector<int32_t>(static_cast<size_t>(n + 1), kNoGap), std::vector<int32_t>(static_cast<size_t>(m), 0),
                    std::vector<int32_t>(static_cast<size_t>(m), kNoGap), workers, false);
}

int64_t EdgeGrid::edge_bytes(int64_t m, int64_t n, int64_t side) {
    const int64_t bands = (m + side - 1) / side, columns = (n + side - 1) / side;
    return 8 * ((bands - 1) * (n + 1) + (columns - 1) * m);
}

Rect EdgeGrid::tile_rect(const Tile& t) const {
    const int64_t top = area_.top + t.first * tile_rows_, left = area_.left + t.second * tile_cols_;
    return Rect{top, std::min(top + tile_rows_, area_.bottom), left, std::min(left + tile_cols_, area_.right)};
}

EdgeGrid::Tile EdgeGrid::tile_of(int64_t i, int64_t j) const {
    return {(i - area_.top - 1) / tile_rows_, (j - area_.left - 1) / tile_cols_};
}

const int32_t* EdgeGrid::band_top_h(int64_t b) const {
    const size_t k = static_cast<size_t>(b);
    if (kept_ && b > 0) {
        // The whole row in one copy where any of it is stale: a traceback reads it all.
        const std::lock_guard<std::mutex> one(fetching_);
        const auto row = stale_.begin() + (b - 1) * tile_columns_;
        if (std::any_of(row, row + tile_columns_, [](uint8_t s) { return (s & 1) != 0; })) {
            const_cast<EdgeGrid&>(*this).make_row(k);  // see fetch_stale
            workers_.device->fetch_kept({KeptFetch{true, b, 0, area_.cols(), row_h(k) + 1, row_f(k) + 1}});
            std::for_each(row, row + tile_columns_, [](uint8_t& s) { s = static_cast<uint8_t>(s & ~1); });
        }
    }
    return row_h(k);
}

const int32_t* EdgeGrid::band_top_f(int64_t b) const {
    band_top_h(b);
    return row_f(static_cast<size_t>(b));
}

void EdgeGrid::fetch_stale(const Tile& t, std::vector<KeptFetch>& fetches) const {
    if (t.first < 0 || t.second < 0) return;  // the area's own edges never change
    uint8_t& stale = stale_[static_cast<size_t>(t.first * tile_columns_ + t.second)];
    if (stale == 0) return;
    const Rect r = tile_rect(t);
    const size_t b = static_cast<size_t>(t.first), c = static_cast<size_t>(t.second);
    const int64_t col0 = r.left - area_.left, row0 = r.top - area_.top;
    // While kept_, the host's edges are a copy of the device's that a read brings up to date.
    EdgeGrid& self = const_cast<EdgeGrid&>(*this);
    if (stale & 1) {
        self.make_row(b + 1);
        fetches.push_back(KeptFetch{true, t.first + 1, col0, r.cols(), row_h(b + 1) + col0 + 1, row_f(b + 1) + col0 + 1});
    }
    if (stale & 2) {
        self.make_column(c + 1);
        fetches.push_back(KeptFetch{false, t.second + 1, row0, r.rows(), col_h(c + 1) + row0, col_e(c + 1) + row0});
    }
    stale = 0;
}

void EdgeGrid::refresh(const Tile& t) const {
    if (!kept_) return;
    // Its top row over its columns, its corner (the last cell of the bottom row of the tile up
    // and left) and its left column.
    const std::lock_guard<std::mutex> one(fetching_);
    std::vector<KeptFetch> fetches;
    fetch_stale({t.first - 1, t.second}, fetches);
    fetch_stale({t.first - 1, t.second - 1}, fetches);
    fetch_stale({t.first, t.second - 1}, fetches);
    if (!fetches.empty()) workers_.device->fetch_kept(fetches);
}

TileEdges EdgeGrid::edges(const Tile& t) const {
    refresh(t);
    const Rect r = tile_rect(t);
    const size_t b = static_cast<size_t>(t.first), c = static_cast<size_t>(t.second);
    const size_t col0 = static_cast<size_t>(r.left - area_.left), row0 = static_cast<size_t>(r.top - area_.top);
    return TileEdges{row_h(b) + col0, row_f(b) + col0, col_h(c) + row0, col_e(c) + row0};
}

std::unique_ptr<EdgeGrid> EdgeGrid::part(const Tile& t, const Rect& r, int64_t split,
                                         const GridWorkers& workers) const {
    const TileEdges e = edges(t);
    const size_t rows = static_cast<size_t>(r.rows()), cols = static_cast<size_t>(r.cols());
    GridWorkers within = workers;
    within.on_cells = nullptr;  // a part's cells are a walk's, not a pass's
    // Parts of whole bands of the host's kernel, which computes them several times faster
    // than the lanes where they bar no pair (SimdTileWaves): fewer parts, never none.
    const int64_t band = std::max<int64_t>(1, workers.cpu->rows_at_speed(s0_, s1_, scoring_));
    const int64_t part_rows = std::min(r.rows(), ((r.rows() + split - 1) / split + band - 1) / band * band);
    return std::make_unique<EdgeGrid>(
        s0_, s1_, scoring_, r, part_rows, (r.cols() + split - 1) / split,
        std::vector<int32_t>(e.top_h, e.top_h + cols + 1), std::vector<int32_t>(e.top_f, e.top_f + cols + 1),
        std::vector<int32_t>(e.left_h, e.left_h + rows), std::vector<int32_t>(e.left_e, e.left_e + rows), within);
}

std::vector<TileTask> EdgeGrid::tasks_of(const std::vector<Tile>& tiles, const BarredPairs& barred,
                                        std::vector<std::vector<int32_t>>& out) const {
    std::vector<TileTask> tasks(tiles.size());
    for (size_t k = 0; k < tiles.size(); ++k) {
        const Rect r = tile_rect(tiles[k]);
        const size_t cols = static_cast<size_t>(r.cols()), rows = static_cast<size_t>(r.rows());
        out[k].resize(2 * cols + 2 * rows);
        int32_t* o = out[k].data();
        tasks[k] = TileTask{r, edges(tiles[k]), barred.in(r.top, r.bottom, r.left, r.right),
                            TileSink{o, o + cols, o + 2 * cols, o + 2 * cols + rows, nullptr}, {}};
    }
    return tasks;
}

std::vector<EdgeGrid::Changed> EdgeGrid::compute_wave(const std::vector<Tile>& tiles, const BarredPairs& barred) {
    if (workers_.stop && *workers_.stop != 0) search_interrupted(*workers_.stop);
    // Each tile's bottom row and right column go to buffers of their own: tiles of one
    // antidiagonal read edges that none of them writes, and the edges change after all ran.
    std::vector<std::vector<int32_t>> out(tiles.size());
    std::vector<TileTask> tasks = tasks_of(tiles, barred, out);
    int64_t wave_cells = 0;
    for (const TileTask& t : tasks) wave_cells += t.rect.rows() * t.rect.cols();
    cells_computed_ += wave_cells;
    TileWaves& waves = workers_.on_device(wave_cells) ? *workers_.device : *workers_.cpu;
    waves.run(s0_, s1_, scoring_, tasks, workers_.threads);
    std::vector<Changed> changed(tiles.size());
    for (size_t k = 0; k < tiles.size(); ++k) {
        const Tile& t = tiles[k];
        const Rect& r = tasks[k].rect;
        const TileSink& o = tasks[k].sink;
        const size_t b = static_cast<size_t>(t.first), c = static_cast<size_t>(t.second);
        const size_t cols = static_cast<size_t>(r.cols()), rows = static_cast<size_t>(r.rows());
        const size_t at = b * static_cast<size_t>(tile_columns_) + c;
        best_[at] = tasks[k].best;
        best_changed(at);
        unplaced_[at] = !tasks[k].cell_unknown ? 0 : tasks[k].peak_rows > 0 ? tasks[k].peak_rows : r.rows();
        if (t.first + 1 < bands_) {
            int32_t* h = row_h_[b + 1].data() + (r.left - area_.left) + 1;
            int32_t* f = row_f_[b + 1].data() + (r.left - area_.left) + 1;
            changed[k].bottom = !std::equal(o.bottom_h, o.bottom_h + cols, h) || !std::equal(o.bottom_f, o.bottom_f + cols, f);
            changed[k].corner = o.bottom_h[cols - 1] != h[cols - 1];
            std::copy(o.bottom_h, o.bottom_h + cols, h);
            std::copy(o.bottom_f, o.bottom_f + cols, f);
        }
        if (t.second + 1 < tile_columns_) {
            int32_t* h = col_h_[c + 1].data() + (r.top - area_.top);
            int32_t* e = col_e_[c + 1].data() + (r.top - area_.top);
            changed[k].right = !std::equal(o.right_h, o.right_h + rows, h) || !std::equal(o.right_e, o.right_e + rows, e);
            std::copy(o.right_h, o.right_h + rows, h);
            std::copy(o.right_e, o.right_e + rows, e);
        }
    }
    return changed;
}

std::unique_ptr<EdgeGrid::KeptWave> EdgeGrid::queue_kept(int64_t diagonal, const std::set<Tile>& tiles,
                                                         std::set<Tile> needed, const BarredPairs& barred) {
    if (workers_.stop && *workers_.stop != 0) search_interrupted(*workers_.stop);
    auto wave = std::make_unique<KeptWave>();
    wave->diagonal = diagonal;
    wave->tiles.assign(tiles.begin(), tiles.end());
    wave->needed = std::move(needed);
    wave->kept.resize(tiles.size());
    for (size_t k = 0; k < wave->tiles.size(); ++k) {
        const Rect r = tile_rect(wave->tiles[k]);
        wave->kept[k].band = wave->tiles[k].first;
        wave->kept[k].column = wave->tiles[k].second;
        wave->kept[k].barred = barred.in(r.top, r.bottom, r.left, r.right);
        cells_computed_ += r.rows() * r.cols();
    }
    workers_.device->queue_kept(scoring_, wave->kept);
    return wave;
}

void EdgeGrid::collect_kept(KeptWave& wave, const std::deque<std::unique_ptr<KeptWave>>& later,
                            std::map<int64_t, std::set<Tile>>& waves) {
    // Tile t, of antidiagonal wave.diagonal + ahead, is fed by a change: the wave queued for
    // that antidiagonal must compute it (the next one holds every tile right of and below
    // those that could change, and so on), else the antidiagonal is still to come.
    const auto feed = [&](const Tile& t, size_t ahead) {
        KeptWave* const w = later.size() >= ahead ? later[ahead - 1].get() : nullptr;
        if (w == nullptr && ahead == 2) {
            waves[wave.diagonal + 2].insert(t);
            return;
        }
        if (!w || !std::binary_search(w->tiles.begin(), w->tiles.end(), t))
            throw Error("internal: tile (" + std::to_string(t.first) + ", " + std::to_string(t.second) +
                        ") fed by a change but not computed after it");
        w->needed.insert(t);
    };
    const std::lock_guard<std::mutex> one(fetching_);
    for (size_t k = 0; k < wave.tiles.size(); ++k) {
        const Tile& t = wave.tiles[k];
        const KeptTile& kept = wave.kept[k];
        const size_t at = static_cast<size_t>(t.first * tile_columns_ + t.second);
        // The last band's bottom and the last column's right edge are kept nowhere.
        const Changed changed{kept.bottom && t.first + 1 < bands_, kept.corner && t.first + 1 < bands_,
                              kept.right && t.second + 1 < tile_columns_};
        if (!wave.needed.count(t)) {
            if (changed.bottom || changed.corner || changed.right || kept.peak != best_[at].score)
                throw Error("internal: tile (" + std::to_string(t.first) + ", " + std::to_string(t.second) +
                            ") changed when computed again from the edges it had");
            continue;
        }
        best_[at] = kept.peak > 0 ? AlignmentEnd{kept.peak, -1, -1} : AlignmentEnd{};
        best_changed(at);
        unplaced_[at] = kept.peak <= 0 ? 0 : kept.peak_rows > 0 ? kept.peak_rows : tile_rect(t).rows();
        stale_[at] |= static_cast<uint8_t>((changed.bottom ? 1 : 0) | (changed.right ? 2 : 0));
        if (changed.bottom) feed({t.first + 1, t.second}, 1);
        if (changed.right) feed({t.first, t.second + 1}, 1);
        if (changed.corner && t.second + 1 < tile_columns_) feed({t.first + 1, t.second + 1}, 2);
    }
}

int64_t EdgeGrid::recompute_kept(const BarredPairs& barred, std::map<int64_t, std::set<Tile>>& waves,
                                 std::set<Tile>* computed_all) {
    // The device computes the next antidiagonals while the host takes what the last one
    // changed, so that it never waits for the host (a wave's kernel takes about 0.7 ms, the
    // host 0.2 ms between them), and each of their tiles starts as soon as the tiles it reads
    // are far enough: a tile's first band once its left neighbour's first band has ended,
    // about 0.3 ms, and it waits for nothing else. Only the tiles of an antidiagonal that
    // could change feed the next: it holds every tile right of and below them. Those of the
    // oldest wave in flight are known (the ones it needs), those of a later one are the ones
    // it needs so far and those the wave before it could feed.
    std::deque<std::unique_ptr<KeptWave>> queued;  // on the device, not collected, consecutive antidiagonals
    // The tiles a change of t's edges feeds on the next antidiagonal, in the grid or not.
    const auto fed_by = [](const Tile& t) {
        return std::array<Tile, 2>{Tile{t.first + 1, t.second}, Tile{t.first, t.second + 1}};
    };
    int64_t tiles = 0;
    try {
        while (!queued.empty() || !waves.empty()) {
            if (queued.size() < static_cast<size_t>(TileWaves::kRunsInFlight)) {
                const int64_t d = queued.empty() ? waves.begin()->first : queued.back()->diagonal + 1;
                std::set<Tile> could;  // tiles of the last wave queued that could change
                for (const std::unique_ptr<KeptWave>& w : queued) {
                    std::set<Tile> fed = w->needed;
                    for (const Tile& t : could)
                        for (const Tile& n : fed_by(t))
                            if (std::binary_search(w->tiles.begin(), w->tiles.end(), n)) fed.insert(n);
                    could = std::move(fed);
                }
                std::set<Tile> needed;
                if (const auto it = waves.find(d); it != waves.end()) {
                    needed = std::move(it->second);
                    waves.erase(it);
                }
                std::set<Tile> computed = needed;
                for (const Tile& t : could)
                    for (const Tile& n : fed_by(t))
                        if (n.first < bands_ && n.second < tile_columns_) computed.insert(n);
                if (!computed.empty()) {
                    if (computed_all) computed_all->insert(computed.begin(), computed.end());
                    queued.push_back(queue_kept(d, computed, std::move(needed), barred));
                    tiles += static_cast<int64_t>(computed.size());
                    continue;
                }
                if (queued.empty()) continue;  // d had nothing after all
            }
            const std::unique_ptr<KeptWave> wave = std::move(queued.front());
            queued.pop_front();
            workers_.device->collect_kept(wave->kept);
            collect_kept(*wave, queued, waves);
        }
    } catch (...) {
        // A run still queued refers to its wave's tiles, which go with this frame: collected
        // first (the error that ended the search says more than theirs).
        for (const std::unique_ptr<KeptWave>& wave : queued) {
            try {
                workers_.device->collect_kept(wave->kept);
            } catch (...) {
            }
        }
        throw;
    }
    return tiles;
}

void EdgeGrid::compute(const BarredPairs& barred) {
    std::fill(block_stale_.begin(), block_stale_.end(), 1);  // its threads write best_ as they go
    if (!workers_.on_cells) {
        compute_all(barred, {});
        return;
    }
    // The end is told once: a report meanwhile (a device's last launch) may count every cell.
    const int64_t before = cells_computed_, total = area_.rows() * area_.cols();
    workers_.on_cells(0);
    compute_all(barred, [&](int64_t cells) {
        if (cells < total) workers_.on_cells(cells);
    });
    workers_.on_cells(cells_computed_ - before);
}

void EdgeGrid::compute_all(const BarredPairs& barred, const std::function<void(int64_t)>& meanwhile) {
    const bool whole_matrix = area_.top == 0 && area_.left == 0 && area_.bottom == s0_.length() && area_.right == s1_.length();
    if (whole_matrix && barred.empty() && workers_.device && bands_ > 0 && tile_columns_ > 0) {
        std::vector<int32_t> peaks;
        WholePass pass{tile_rows_, tile_cols_, &row_h_, &row_f_, &col_h_, &col_e_, &peaks, 0, 0, {}, workers_.stop,
                       meanwhile, workers_.on_queued};
        pass.keep = true;  // the device says, before meanwhile, whether it will
        if (!edges_made_) pass.meanwhile = [this, &pass] { make_edges(pass.keep); };
        if (workers_.device->whole_pass(s0_, s1_, scoring_, pass)) {
            if (!edges_made_) throw Error("internal: a whole pass gave no edges to keep");
            kept_ = workers_.device->kept();
            if (kept_ != pass.keep) throw Error("internal: a whole pass kept its edges other than it said");
            if (kept_) stale_.assign(best_.size(), 0);
            for (size_t k = 0; k < best_.size(); ++k) {
                const int64_t b = static_cast<int64_t>(k) / tile_columns_, c = static_cast<int64_t>(k) % tile_columns_;
                unplaced_[k] = peaks[k] > 0 ? std::min(tile_rows_, area_.rows() - b * tile_rows_) : 0;
                best_[k] = peaks[k] > 0 ? AlignmentEnd{peaks[k], -1, -1} : AlignmentEnd{};
                // Kept, every inner edge is the device's alone.
                if (kept_) stale_[k] = static_cast<uint8_t>((b + 1 < bands_ ? 1 : 0) | (c + 1 < tile_columns_ ? 2 : 0));
            }
            cells_computed_ += area_.rows() * area_.cols();
            return;
        }
    }
    if (!edges_made_) make_edges();
    if (!workers_.on_device(std::min(bands_, tile_columns_) * tile_rows_ * tile_cols_)) {  // the widest antidiagonal
        compute_on_threads(barred, meanwhile);
        return;
    }
    const int64_t before = cells_computed_;
    auto last = std::chrono::steady_clock::now();
    for (int64_t d = 0; d + 1 < bands_ + tile_columns_; ++d) {
        std::vector<Tile> wave;
        for (int64_t b = std::max<int64_t>(0, d - tile_columns_ + 1); b <= std::min(d, bands_ - 1); ++b) wave.emplace_back(b, d - b);
        compute_wave(wave, barred);
        if (meanwhile && std::chrono::steady_clock::now() - last >= std::chrono::seconds(1)) {
            last = std::chrono::steady_clock::now();
            meanwhile(cells_computed_ - before);
        }
    }
}

void EdgeGrid::compute_on_threads(const BarredPairs& barred, const std::function<void(int64_t)>& meanwhile) {
    // Progress from whichever thread finds a second passed and no other telling.
    std::atomic<int64_t> done{0};
    std::mutex telling;
    auto last = std::chrono::steady_clock::now();
    // Tile (b, c) writes band b + 1's top row over its own columns and column c + 1's left
    // column over its own rows, which only (b + 1, c), (b, c + 1) and (b + 1, c + 1) read,
    // after it; the tiles running at once write apart.
    run_in_dependency_order(bands_, tile_columns_, workers_.threads, [&](int64_t b, int64_t c) {
        if (workers_.stop && *workers_.stop != 0) search_interrupted(*workers_.stop);
        const Rect r = tile_rect({b, c});
        const size_t col0 = static_cast<size_t>(r.left - area_.left), row0 = static_cast<size_t>(r.top - area_.top);
        TileSink sink;
        if (b + 1 < bands_) {
            sink.bottom_h = row_h_[static_cast<size_t>(b + 1)].data() + col0 + 1;
            sink.bottom_f = row_f_[static_cast<size_t>(b + 1)].data() + col0 + 1;
        }
        if (c + 1 < tile_columns_) {
            sink.right_h = col_h_[static_cast<size_t>(c + 1)].data() + row0;
            sink.right_e = col_e_[static_cast<size_t>(c + 1)].data() + row0;
        }
        const size_t at = static_cast<size_t>(b * tile_columns_ + c);
        std::vector<TileTask> task{TileTask{r, edges({b, c}), barred.in(r.top, r.bottom, r.left, r.right), sink, {}}};
        workers_.cpu->run(s0_, s1_, scoring_, task, 1);  // each thread a tile: the kernel where it can
        best_[at] = task[0].best;
        unplaced_[at] = 0;
        const int64_t cells = done += r.rows() * r.cols();
        if (!meanwhile) return;
        const std::unique_lock<std::mutex> one(telling, std::try_to_lock);
        if (one && std::chrono::steady_clock::now() - last >= std::chrono::seconds(1)) {
            last = std::chrono::steady_clock::now();
            meanwhile(cells);
        }
    });
    cells_computed_ += area_.rows() * area_.cols();
}

int64_t EdgeGrid::recompute(const BarredPairs& barred, const std::set<Tile>& dirty, std::set<Tile>* computed) {
    std::map<int64_t, std::set<Tile>> waves;  // by antidiagonal: a tile feeds only later ones
    for (const Tile& t : dirty) waves[t.first + t.second].insert(t);
    if (kept_) return recompute_kept(barred, waves, computed);
    int64_t tiles = 0;
    while (!waves.empty()) {
        const std::vector<Tile> wave(waves.begin()->second.begin(), waves.begin()->second.end());
        waves.erase(waves.begin());
        if (computed) computed->insert(wave.begin(), wave.end());
        const std::vector<Changed> changed = compute_wave(wave, barred);
        tiles += static_cast<int64_t>(wave.size());
        for (size_t k = 0; k < wave.size(); ++k) {
            const Tile& t = wave[k];
            const int64_t d = t.first + t.second;
            if (changed[k].bottom) waves[d + 1].insert({t.first + 1, t.second});
            if (changed[k].right) waves[d + 1].insert({t.first, t.second + 1});
            if (changed[k].corner && t.second + 1 < tile_columns_) waves[d + 2].insert({t.first + 1, t.second + 1});
        }
    }
    return tiles;
}

void EdgeGrid::find_peaks(const std::vector<Tile>& tiles, const BarredPairs& barred) {
    std::vector<TileTask> tasks(tiles.size());
    for (size_t k = 0; k < tiles.size(); ++k)
        tasks[k] = peak_task(tiles[k], unplaced_[static_cast<size_t>(tiles[k].first * tile_columns_ + tiles[k].second)],
                             barred);
    workers_.cpu->run(s0_, s1_, scoring_, tasks, workers_.threads);
    for (size_t k = 0; k < tiles.size(); ++k) {
        const size_t at = static_cast<size_t>(tiles[k].first * tile_columns_ + tiles[k].second);
        if (tasks[k].best.score != best_[at].score)
            throw Error("internal: tile (" + std::to_string(tiles[k].first) + ", " + std::to_string(tiles[k].second) +
                        ") peaks at " + std::to_string(tasks[k].best.score) + ", its pass said " +
                        std::to_string(best_[at].score));
        best_[at] = tasks[k].best;
        unplaced_[at] = 0;
    }
}

void EdgeGrid::refresh_blocks() {
    for (size_t b = 0; b < block_top_.size(); ++b) {
        if (block_stale_[b] != 0) {
            block_top_[b] = 0;
            for (size_t k = b * kBestBlock; k < block_end(b); ++k) block_top_[b] = std::max(block_top_[b], best_[k].score);
            block_stale_[b] = 0;
        }
    }
}

AlignmentEnd EdgeGrid::best(const BarredPairs& barred) {
    refresh_blocks();
    const int32_t top = block_top_.empty() ? 0 : *std::max_element(block_top_.begin(), block_top_.end());
    if (top <= 0) return AlignmentEnd{};
    std::vector<size_t> tied;  // the tiles that reach it
    for (size_t b = 0; b < block_top_.size(); ++b)
        if (block_top_[b] == top)
            for (size_t k = b * kBestBlock; k < block_end(b); ++k)
                if (best_[k].score == top) tied.push_back(k);
    std::vector<Tile> unplaced;  // those without a cell yet
    for (const size_t k : tied)
        if (unplaced_[k] > 0)
            unplaced.emplace_back(static_cast<int64_t>(k) / tile_columns_, static_cast<int64_t>(k) % tile_columns_);
    if (!unplaced.empty()) find_peaks(unplaced, barred);
    AlignmentEnd best;
    for (const size_t k : tied)
        if (better_end(best_[k], best)) best = best_[k];
    return best;
}

std::vector<EdgeGrid::Lead> EdgeGrid::leads(size_t count, const std::function<bool(const Tile&)>& skip) {
    if (count == 0) return {};
    refresh_blocks();
    // Blocks highest first, until `count` tiles are held and no block left can beat them.
    std::vector<size_t> blocks(block_top_.size());
    for (size_t b = 0; b < blocks.size(); ++b) blocks[b] = b;
    std::sort(blocks.begin(), blocks.end(), [&](size_t a, size_t b) { return block_top_[a] > block_top_[b]; });
    const auto lower = [&](size_t a, size_t b) { return best_[a].score > best_[b].score; };  // a min-heap
    std::vector<size_t> held;
    for (const size_t b : blocks) {
        if (block_top_[b] <= 0 || (held.size() == count && block_top_[b] <= best_[held.front()].score)) break;
        for (size_t k = b * kBestBlock; k < block_end(b); ++k) {
            if (best_[k].score <= 0 || (held.size() == count && best_[k].score <= best_[held.front()].score)) continue;
            if (skip({static_cast<int64_t>(k) / tile_columns_, static_cast<int64_t>(k) % tile_columns_})) continue;
            if (held.size() == count) {
                std::pop_heap(held.begin(), held.end(), lower);
                held.pop_back();
            }
            held.push_back(k);
            std::push_heap(held.begin(), held.end(), lower);
        }
    }
    std::sort_heap(held.begin(), held.end(), lower);
    std::vector<Lead> out;
    for (const size_t k : held)
        out.push_back(Lead{{static_cast<int64_t>(k) / tile_columns_, static_cast<int64_t>(k) % tile_columns_},
                           best_[k],
                           unplaced_[k]});
    return out;
}

TileTask EdgeGrid::peak_task(const Tile& t, int64_t rows, const BarredPairs& barred) const {
    // The tile's rows down to its first cell's, and only the cell wanted (no edges out).
    Rect r = tile_rect(t);
    r.bottom = r.top + rows;
    return TileTask{r, edges(t), barred.in(r.top, r.bottom, r.left, r.right), TileSink{}, {}};
}

AlignmentEnd EdgeGrid::place(const Lead& lead, const BarredPairs& barred) const {
    if (lead.rows <= 0) return lead.end;
    std::vector<TileTask> task{peak_task(lead.tile, lead.rows, barred)};
    workers_.cpu->run(s0_, s1_, scoring_, task, 1);
    return task[0].best;
}

}  // namespace chromalign
