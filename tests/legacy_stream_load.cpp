//! @file Transfers queued on the legacy stream (legacy_stream_load.hpp).
#include "tests/legacy_stream_load.hpp"

#include <cuda_runtime_api.h>

namespace chromalign::test {

LegacyStreamLoad::LegacyStreamLoad(size_t bytes) : bytes_(bytes), thread_([this] { run(); }) {}

LegacyStreamLoad::~LegacyStreamLoad() {
    stop_ = true;
    thread_.join();
}

void LegacyStreamLoad::run() {
    // A failed call ends the load; the test sees it in transfers().
    void* device = nullptr;
    void* host = nullptr;
    if (cudaMalloc(&device, bytes_) == cudaSuccess && cudaMallocHost(&host, bytes_) == cudaSuccess) {
        constexpr int kDeep = 8;  // transfers queued at once
        bool ok = true;
        while (ok && !stop_) {
            for (int k = 0; k < kDeep && ok; ++k)
                ok = cudaMemcpyAsync(host, device, bytes_, cudaMemcpyDeviceToHost, 0) == cudaSuccess;
            ok = ok && cudaStreamSynchronize(0) == cudaSuccess;
            if (ok) transfers_ += kDeep;
        }
    }
    cudaFreeHost(host);
    cudaFree(device);
}

}  // namespace chromalign::test
