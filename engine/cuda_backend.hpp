//! @file The CUDA backend: walks the external diagonals of the tile grid on one GPU.
#pragma once

#include <memory>

#include "engine/backend.hpp"

namespace chromalign {

/// Throws Error when this build has no CUDA support or the device does not exist.
std::unique_ptr<Backend> make_cuda_backend(const BackendOptions& options);

/// Number of CUDA devices usable by this build (0 without CUDA support).
int cuda_backend_device_count();

}  // namespace chromalign
