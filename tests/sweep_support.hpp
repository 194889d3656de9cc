//! @file Shared by the cpu and GPU tests of the traceback's engine sweeps.
#pragma once

#include <cstdint>
#include <string>

namespace chromalign::test {

/// `pairs` random and mutated pairs of 1.5k to 4k bases, traced back from row 0 with windows
/// of at most 4096 cells, so that the engine of backend `backend` sweeps many windows, some
/// nested: each alignment must equal the reference's byte for byte.
void expect_engine_sweeps_exact(const std::string& backend, int pairs, uint64_t seed);

}  // namespace chromalign::test
