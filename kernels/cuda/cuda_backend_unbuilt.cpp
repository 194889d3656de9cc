//! @file The cuda backend's registry entry in a build without a CUDA compiler.
#include "engine/error.hpp"
#include "kernels/cuda/cuda_backend.hpp"

namespace chromalign {

BackendEntry cuda_backend_entry() {
    BackendEntry e;
    e.name = "cuda";
    e.summary = "not in this build (no CUDA compiler at build time)";
    e.automatic = true;
    e.devices = [] { return 0; };
    e.make = [](const BackendOptions&) -> std::unique_ptr<Backend> {
        throw Error("this build of chromalign has no CUDA backend (no CUDA compiler at build time)");
    };
    return e;
}

}  // namespace chromalign
