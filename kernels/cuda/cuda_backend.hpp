//! @file The CUDA backend: walks the external diagonals of the tile grid on one GPU.
#pragma once

#include "engine/backend/backend.hpp"

namespace chromalign {

/// Registry entry of the cuda backend. Its devices() counts the usable CUDA devices (0 in a
/// build without CUDA, whose make() throws Error saying so).
BackendEntry cuda_backend_entry();

}  // namespace chromalign
