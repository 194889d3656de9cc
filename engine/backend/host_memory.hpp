//! @file The host's memory, as a default's measure: what this process may hold at most.
#pragma once

#include <cstdint>

namespace chromalign {

/// The host's physical memory, or the memory limit of the control group this process runs in
/// where that is lower (a container's, a batch job's); 0 where neither can be read.
int64_t host_memory_bytes();

}  // namespace chromalign
