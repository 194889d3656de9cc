//! @file Slab runs in tests: ranks as threads of one process (LocalLink), without an MPI launcher.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/backend/backend.hpp"

namespace chromalign::test {

/// A column-slab run of `ranks` threads, each with its own `backend` ("cpu" or "cuda") of
/// `options`, rank k on CUDA device k modulo the devices. Every rank must return the same
/// best cell (checked), which is returned.
AlignmentEnd slab_align(const std::string& backend, const Sequence& s0, const Sequence& s1, const Scoring& scoring,
                        int ranks, const BackendOptions& options);

/// Asserts that slab_align gives the reference's answer; `what` names the case.
void expect_slab_matches_reference(const std::string& backend, const Sequence& s0, const Sequence& s1,
                                   const Scoring& scoring, int ranks, const BackendOptions& options,
                                   const std::string& what);

/// The row of each rank's latest checkpoint piece of a run of `ranks` slabs at `path`.
std::vector<int64_t> piece_rows(const std::string& path, int ranks);

/// Runs `run` with `options` and returns its answer; `diagonals` gets how many external
/// diagonals rank 0 enqueued (BackendOptions::on_diagonal), for stopped_at.
AlignmentEnd counting_diagonals(BackendOptions options, const std::function<AlignmentEnd(const BackendOptions&)>& run,
                                int64_t& diagonals);

/// Runs `run` with `options`, raising its stop flag as SIGTERM would once rank 0 has enqueued
/// diagonal `at` (a point of the run, not of the clock): true when the run stopped.
bool stopped_at(int64_t at, BackendOptions options, const std::function<AlignmentEnd(const BackendOptions&)>& run);
/// The same once rank 0 has enqueued `count` diagonals of this run, whatever their numbers (a
/// resumed run's first is not 0); false when the run ended before it took the stop.
bool stopped_after(int64_t count, BackendOptions options, const std::function<AlignmentEnd(const BackendOptions&)>& run);

/// Checks every rank's latest piece at `path` against a row-by-row Gotoh written out here: H
/// and F of its row over its columns, and H and E of the left edge rows it kept, with the
/// corner above them. Equal, or with `pruned` (a run that pruned) no higher: pruning leaves
/// lower bounds in and beside the cells it skipped.
void expect_pieces_exact(const Sequence& s0, const Sequence& s1, const Scoring& scoring, const std::string& path,
                         int ranks, bool pruned);

/// Each slab checkpoints its own row, so a stop mid-run leaves a staircase of pieces. Stops
/// runs of 3 slabs of `backend` at random moments (from `seed`; a thread raises the stop
/// flag) and resumes each with 3 slabs, which resume each from its row with the left edge
/// rows its piece kept, or with 2, 4 or one process, which level the staircase first: every
/// resume must give `want`. Every other stop is of a run with pruning; the first staircase of
/// each kind is checked cell by cell (expect_pieces_exact); at least two must occur. With
/// `fractions`, stop k comes at fractions[k] of the diagonals of rank 0's last grid instead
/// (8 of them). Returns the largest row of each stop's pieces.
std::vector<int64_t> expect_staircases_resume_exactly(const std::string& backend, const Sequence& s0,
                                                      const Sequence& s1, const Scoring& scoring,
                                                      const BackendOptions& options, const AlignmentEnd& want,
                                                      uint64_t seed, const std::vector<double>& fractions = {});

}  // namespace chromalign::test
