//! @file On-disk checkpoints: one flat DP row (H, F per column) plus the best cell so far.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/result.hpp"
#include "engine/scoring/scoring.hpp"
#include "engine/sequence.hpp"
#include "engine/tiling/tile_executor.hpp"

namespace chromalign {

/// What a run needs to continue below row `row`: H and F of DP row `row` (1-based; rows
/// 1..row are done), and the best cell found so far. A flat row does not depend on the grid
/// or the backend that produced it, so any backend can resume from any checkpoint.
struct Checkpoint {
    int64_t m = 0, n = 0;            ///< lengths of S0 and S1
    uint64_t fingerprint0 = 0;       ///< content fingerprints (see sequence_fingerprint)
    uint64_t fingerprint1 = 0;
    Scoring scoring;
    int64_t row = 0;                 ///< DP row saved below; rows 1..row are finished
    AlignmentEnd best;               ///< best cell in rows computed so far (may go beyond row)
    /// H(row, 1..n) and F(row, 1..n); a column that pruning skipped holds H = 0, F = -inf
    /// (kScoreNegInf; a computed F is at least -gap_open): lower bounds, which resume exactly
    /// and which a traceback must not take for the values there.
    std::vector<int32_t> h, f;
    /// A slab's piece (format 3): the number of the checkpoint it belongs to (0 in a flat
    /// file and in older formats), and its left neighbour's column from this row down: H in
    /// that column at `row` (0 for the first slab), then H and E of rows row+1 .. row+L.
    /// Slabs checkpoint each at its own row (engine/checkpoint/checkpointer.hpp); a slab
    /// below its left neighbour keeps the rows in between, which the neighbour will not send
    /// again after a resume.
    int64_t seq = 0;
    int32_t left_corner = 0;
    std::vector<int32_t> left_h, left_e;
    /// A wavefront piece (format 4, the cpu backend; TileExecutor::take_wavefront): from each
    /// step's column on, H and F are of the step's row, above `row` (rows 1-based, columns
    /// 0-based in the piece), with the rows of the column left of it in between. `row` is then
    /// the highest row, that of the piece's first columns. Empty: every column is at `row`.
    std::vector<StairStep> steps;
    /// The lowest row of the piece: its last step's, else `row`.
    int64_t low_row() const { return steps.empty() ? row : steps.back().row; }
};

/// 64-bit FNV-1a over the codes and the length: names the content, not the file.
uint64_t sequence_fingerprint(const Sequence& s);

/// Format 4: "CHRALNCK" magic, format version, program version, lengths, fingerprints, the
/// scoring (the 4x4 matrix row by row, other, gap_open, gap_extend), row, best cell, seq,
/// left corner, L, the number of steps S, each step's column, row and corner, the H then F
/// arrays, the left column's H then E (L each), each step's H then E (its rows; all
/// little-endian int32), and a CRC32 (zlib) of everything before it. Format 3 has no steps
/// (neither S nor what follows from it); format 2 ends after the best cell's fields with H
/// and F. Written to PATH.tmp, fsync'd, renamed over PATH, and the directory
/// fsync'd: at every instant PATH holds a complete checkpoint (the old or the new one).
/// Throws Error on any I/O failure (a full disk, a file size limit), leaving PATH as it was.
void write_checkpoint(const std::string& path, const Checkpoint& checkpoint);

/// Reads and verifies a checkpoint of format 4, 3, 2, or 1 (whose scoring is match, mismatch,
/// gap_open, gap_extend). Throws Error naming the problem: not a checkpoint,
/// another format version, truncated, CRC mismatch.
Checkpoint read_checkpoint(const std::string& path);

/// Whether something exists at `path` (a checkpoint, a piece, a stale .tmp).
bool file_exists(const std::string& path);

/// Empty when `c` belongs to this comparison, else the reason it does not (other sequence,
/// other scoring, other lengths).
std::string checkpoint_mismatch(const Checkpoint& c, const Sequence& s0, const Sequence& s1,
                                const Scoring& scoring);

constexpr uint32_t kCheckpointFormatVersion = 4;  ///< the one written

}  // namespace chromalign
