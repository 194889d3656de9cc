//! @file The cuda backend's registry entry in a build without a CUDA compiler.
#include "engine/error.hpp"
#include "kernels/cuda/cuda_backend.hpp"

namespace chromalign {

BackendEntry cuda_backend_entry() {
    return {"cuda", "not in this build (no CUDA compiler at build time)",
            /*automatic=*/true, /*default_slabs=*/1, [] { return 0; },
            [](const BackendOptions&) -> std::unique_ptr<Backend> {
                throw Error("this build of chromalign has no CUDA backend (no CUDA compiler at build time)");
            }};
}

}  // namespace chromalign
