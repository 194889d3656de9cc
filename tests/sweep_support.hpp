//! @file Shared by the cpu and GPU tests of the traceback's engine sweeps.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "engine/backend/backend.hpp"

namespace chromalign::test {

/// A backend by name with 2 threads (the cpu engine the traceback tests sweep windows on).
std::unique_ptr<Backend> small_backend(const std::string& name);

/// `pairs` random and mutated pairs of 1.5k to 4k bases, traced back from row 0 with windows
/// of at most 4096 cells, so that the engine of backend `backend` sweeps many windows, some
/// nested: each alignment must equal the reference's byte for byte.
void expect_engine_sweeps_exact(const std::string& backend, int pairs, uint64_t seed);

}  // namespace chromalign::test
