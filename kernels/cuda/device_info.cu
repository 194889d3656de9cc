//! @file Device discovery for the engine: count, name, memory, compute capability.
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/tile_runner.hpp"

namespace chromalign::kernels {

int cuda_device_count() {
    int count = 0;
    // No driver or no device both mean "no CUDA here": the caller falls back to the CPU.
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();  // clear the sticky error so later calls are not confused
        return 0;
    }
    return count;
}

CudaDeviceInfo cuda_device_info(int device) {
    const int count = cuda_device_count();
    if (device < 0 || device >= count)
        throw Error("CUDA device " + std::to_string(device) + " does not exist (" +
                    std::to_string(count) + " device(s) found)");
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    CudaDeviceInfo info;
    info.name = prop.name;
    info.multiprocessors = prop.multiProcessorCount;
    info.total_memory = prop.totalGlobalMem;
    info.compute_major = prop.major;
    info.compute_minor = prop.minor;
    CUDA_CHECK(cudaSetDevice(device));
    size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    info.free_memory = free_bytes;
    return info;
}

}  // namespace chromalign::kernels
