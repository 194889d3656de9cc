//! @file Special rows: the rows of H and F that stage 1 keeps on disk for the traceback.
//!
//! Each slab writes its columns of a kept row to DIR/row<R>.col<first>-<last>.srow: a header
//! (row, columns, the comparison's lengths and fingerprints, its gap costs, a CRC), block maxima (below), H as int32,
//! and F as the uint16 H - F. F only matters below where H - F <= open - extend (a lower F
//! loses to H - open), so H - F saturates at 65535 and stays exact for every later row. Per
//! block of 4096 columns: the maximum of max(0, H) + e c, which lets the traceback bound a
//! window's missing paths (window.hpp) without reading the row; the row's largest H, which
//! bounds where it crosses (crossing_column); and the region's: the largest H stage 1 left on
//! the bottom row of every 16th band since the kept row above, and of the last
//! (TileExecutor::track_region_peaks), which draws the plot's score map. A file lands by rename: a row is whole or absent.
#pragma once

#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <string>
#include <vector>

#include "engine/backend/options.hpp"
#include "engine/scoring/scoring.hpp"
#include "engine/sequence.hpp"
#include "engine/traceback/row_source.hpp"

namespace chromalign {

/// Bytes a kept row takes per column on disk.
constexpr int64_t kSpecialRowBytesPerColumn = 6;

/// Rows between two kept rows for an m x n matrix within `budget_bytes`, at least
/// `min_spacing` (SlabEngine::special_row_spacing, what the engine's speed and the disk allow)
/// and a multiple of `band_rows` (the rows of the bands a capture spans); 0 when not even one
/// row fits.
int64_t special_row_spacing(int64_t m, int64_t n, int64_t budget_bytes, int64_t band_rows, int64_t min_spacing);

/// The identity of the comparison of s0 and s1 (RowsIdentity, engine/backend/options.hpp).
RowsIdentity rows_identity(const Sequence& s0, const Sequence& s1);

/// One slab's writer: its columns first_col .. first_col + width - 1 (1-based) of each row.
class SpecialRowWriter {
public:
    SpecialRowWriter(std::string dir, const RowsIdentity& id, int64_t first_col, int64_t width, const Scoring& scoring,
                     std::function<void(const std::string&)> warn);
    ~SpecialRowWriter();
    /// Writes `row` in the background (after the previous write), with the peaks of the region
    /// that ends there (runs() of them). A failure warns once and stops this writer: the
    /// traceback then works from the rows that landed.
    void write(int64_t row, std::vector<int32_t> h, std::vector<int32_t> f, std::vector<int32_t> region_peaks);
    /// The blocks of SpecialRows::kPeakColumns columns this writer's columns touch.
    int64_t runs() const;
    void finish();  ///< waits for the last write

private:
    void put(int64_t row, const std::vector<int32_t>& h, const std::vector<int32_t>& f,
             const std::vector<int32_t>& region);
    std::string dir_;
    RowsIdentity id_;
    int64_t first_, width_;
    int32_t open_, ext_, gap_;
    uint32_t substitution_;  ///< the scoring's substitution scores as a key (special_rows.cpp)
    std::function<void(const std::string&)> warn_;
    std::future<void> pending_;
    bool failed_ = false;
};

/// The rows of DIR whose pieces cover columns 1 .. n, written for this comparison under
/// `scoring` (others are ignored), with row 0.
class SpecialRows : public RowSource {
public:
    SpecialRows(const std::string& dir, const RowsIdentity& id, const Scoring& scoring);

    static constexpr int64_t kPeakColumns = 4096;
    int64_t count() const { return static_cast<int64_t>(rows_.size()); }  ///< rows held, not counting 0
    /// For each row held, at b, the largest H stage 1 reached in columns [b kPeakColumns,
    /// (b + 1) kPeakColumns) of the rows since the row held above (the sampled band bottoms,
    /// region_peak_band; rows of older versions: that row's own).
    std::map<int64_t, std::vector<int32_t>> region_peaks() const;
    int64_t lo() const override { return 1; }
    int64_t k() const override { return kNoMissedPaths; }
    int64_t top() const override { return 0; }
    int64_t row_above(int64_t i) const override;
    bool row_exact(int64_t) const override { return true; }
    WindowRow read(int64_t row, int64_t from, int64_t to) override;
    int64_t edge_term(int64_t row, int64_t to, int64_t gap) override;
    /// From the blocks' peaks: a block is read only where its peak H plus the most its
    /// columns' bias can be still beats the best column read so far.
    int64_t crossing_column(int64_t row, int64_t from, const CrossingBias& bias) override;

private:
    struct Piece {
        std::string path;
        int64_t first = 0, width = 0;
        int64_t data_at = 0;  ///< where H starts in the file
    };
    struct Row {
        std::vector<Piece> pieces;    ///< by first column
        std::vector<int64_t> blocks;  ///< max of max(0, H) + e c per 4096 columns, over all pieces
        std::vector<int32_t> peaks;   ///< max of H per 4096 columns
        std::vector<int32_t> region_peaks;  ///< see region_peaks()
    };
    /// H (and F, unless null) of row i over columns [from, to]; throws Error where H is not
    /// one stage 1 could have written.
    void read_h(int64_t i, int64_t from, int64_t to, int32_t* h, int32_t* f) const;
    int64_t n_;
    int32_t gap_;
    int64_t best_;  ///< the best substitution score: H <= min(i, c) * best_
    std::map<int64_t, Row> rows_;
};

}  // namespace chromalign
