//! @file Shared by the cpu and GPU tests of the traceback's engine sweeps.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "engine/backend/backend.hpp"
#include "engine/sequence.hpp"
#include "engine/traceback/window.hpp"

namespace chromalign::test {

/// A backend by name with 2 threads (the cpu engine the traceback tests sweep windows on).
std::unique_ptr<Backend> small_backend(const std::string& name);

/// `pairs` random and mutated pairs of 1.5k to 4k bases, traced back from row 0 with windows
/// of at most 4096 cells, so that the engine of backend `backend` sweeps many windows, some
/// nested: each alignment must equal the reference's byte for byte.
void expect_engine_sweeps_exact(const std::string& backend, int pairs, uint64_t seed);

/// Row `row` of s0 x s1 over columns 0 .. n: the row-by-row sweep from row 0.
WindowRow true_row(const Sequence& s0, const Sequence& s1, const TracebackTerms& t, int64_t row);

/// Windows cut from inside mutated pairs (a true top row, a corner H(top, lo - 1) that is not
/// 0) swept on `backend`'s engine: every kept row must equal the row-by-row sweep's, and so
/// must its edge terms and crossings. Widths 1, T - 1, 2T, 2T + 1, 511 to 513 and random; heights
/// 2R, 2R + 1, 3R - 1 and random (R: the engine's rows per window band); four scorings; the
/// rows of every band kept, or of every k-th.
void expect_kept_rows_exact(const std::string& backend, uint64_t seed);

/// Stage 1 on `backend` with special rows kept, on 1 and 3 slabs, without pruning and with:
/// each kept row's region peaks (SpecialRows::region_peaks) must be the largest H of the
/// sampled band bottoms (region_peak_band) since the kept row above, per 4096 columns, as the
/// row-by-row sweep has them;
/// with pruning, at most that (a skipped tile leaves H = 0).
/// cooperative_limit: BackendOptions' (cuda: launches of more blocks split in two).
void expect_region_peaks_exact(const std::string& backend, uint64_t seed, int32_t cooperative_limit = 0);

}  // namespace chromalign::test
