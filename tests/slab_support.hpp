//! @file Slab runs in tests: ranks as threads of one process (LocalLink), without an MPI launcher.
#pragma once

#include <string>

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

}  // namespace chromalign::test
