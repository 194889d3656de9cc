//! @file The K best alignments of one record pair over the strands compared: each strand is a
//! matrix of its own (declump.hpp), and the pair's alignments are the best of all of them.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "engine/declump/declump.hpp"
#include "engine/job/strand.hpp"

namespace chromalign {

struct StrandAlignment {
    Strand strand = Strand::kForward;
    Alignment alignment;
};

/// Tiles whose edges take at most about `bytes` (8 bytes per column of a kept row and per row
/// of a kept column), square, of a multiple of 512 (a device's whole pass needs 128).
DeclumpOptions tiles_within(int64_t m, int64_t n, int64_t bytes);

/// The tiles of `--alignments-memory auto`: of side kAutoTileSide, or the least larger side
/// (tiles_within) whose edges stay within `most` bytes. That side was the fastest on the GPU
/// and among the fastest on the cpu backend: H. pylori's search (both strands, 100
/// alignments, an H200) took 7.3 s with tiles of 3072, 9.9 s with 5120 and 27.1 s with 1024;
/// its first 200 kbp on the cpu backend (2 cores, runs taking turns) 6.41-6.72 s with 1536,
/// 6.61-6.70 s with 3072 and 6.86-7.04 s with 4096, and 12.9-13.6 s with 512.
constexpr int64_t kAutoTileSide = 3072;
/// A pair shorter than this many tiles of kAutoTileSide (196 kbp) takes tiles of about that
/// share of its longer sequence, in 512s (at least 512): a tile is what each alignment computes
/// again at the least, and a pair of one tile computes all of it again each time. On the cpu
/// backend (2 cores, both strands): a 3 kbp pair's 2000 alignments took 38.1 s with tiles of
/// 3072 and 1.6 s with 512; H. pylori's first 20 kbp, 300 alignments, 2.41 s with 3072, 0.85 s
/// with 1024 and 0.66 s with 512; its first 100 kbp, 2048 and 3072 alike (8.8-10.5 s).
constexpr int64_t kAutoTilesAcross = 64;
DeclumpOptions auto_tiles(int64_t m, int64_t n, int64_t most);

/// One strand's search as the pair's search sees it.
struct StrandSearch {
    Strand strand = Strand::kForward;
    const Sequence* s1 = nullptr;  ///< S1 as that strand reads it
    /// Its alignments found already: `done` (the search ended) or taken up (DeclumpResume::known).
    std::vector<Alignment> known;
    bool done = false;
    const Alignment* traced = nullptr;  ///< DeclumpResume::traced
    /// Its own device's waves (DeclumpOptions::device otherwise): strands searched at once
    /// each need theirs.
    TileWaves* device = nullptr;
    TileWaves* host = nullptr;  ///< its own host's waves (DeclumpOptions::host otherwise)
};

/// At most `count` alignments of s0 against each strand's S1, each at least max(min_score, 1),
/// merged best first: a higher score first, then the earlier strand of `strands`, then each
/// strand's own order (its tie rule). So the first is the one stage 1 and the traceback of the
/// pair give. A strand's search stops at its first alignment that `count` alignments the
/// strands found so far rank before (the others', as a higher score or an earlier strand's
/// equal one, and its own): it and every later one would be cut from the merged list. With
/// options.strands_at_once the strands are searched on threads of their own, their first
/// passes one after another: the list is the same, and a strand may trace further than it
/// needs where the others have yet to find what outranks it. The callbacks are called one at
/// a time, from the searches' threads. `found(strand, alignments)` hears of each new one with
/// the strand's alignments so far (DeclumpResume::found). Once every strand ended,
/// `ended(strand, alignments, outranked)` hears of each one searched: its alignments in the
/// merged list (a prefix of its search, the same however its threads ran), `outranked` when
/// the strand has more of at least min_score that rank below them. `passing(strand, cells)`
/// hears of the cells each strand's first pass has computed so far
/// (DeclumpOptions::on_first_pass). Adds what was computed to `counts` (a first pass's
/// seconds without its wait for the turn). `bests`, if given,
/// gets per strand its matrix's best cell as stage 1 finds it where its search ran (not one
/// taken up as done).
std::vector<StrandAlignment> pair_alignments(
    const Sequence& s0, const std::vector<StrandSearch>& strands, const Scoring& scoring, int count, int32_t min_score,
    const DeclumpOptions& options, DeclumpCounts& counts,
    const std::function<void(Strand, const std::vector<Alignment>&)>& found = {},
    const std::function<void(Strand, const std::vector<Alignment>&, bool outranked)>& ended = {},
    const std::function<void(Strand, int64_t cells)>& passing = {},
    std::vector<std::optional<AlignmentEnd>>* bests = nullptr);

}  // namespace chromalign
