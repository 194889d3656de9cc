//! @file device_gain_table: the copies of gain tables that executors share.
#include "kernels/cuda/gain_copies.hpp"

#include <cuda_runtime.h>

#include <map>
#include <mutex>
#include <utility>

#include "kernels/cuda/cuda_check.hpp"

namespace chromalign::kernels {
namespace {

/// Device memory of one copy, allocated and freed in the order of a stream of its own: a
/// plain cudaFree would wait for the whole device, where other slabs' kernels still run.
struct Copy {
    int device = 0;
    cudaStream_t stream = nullptr;
    int32_t* data = nullptr;

    ~Copy() {
        // A destructor reports nothing: errors here leave memory in the device's pool at worst.
        int current = 0;
        cudaGetDevice(&current);
        cudaSetDevice(device);
        if (data) cudaFreeAsync(data, stream);
        if (stream) cudaStreamDestroy(stream);  // returns at once; released once the free is done
        cudaSetDevice(current);
    }
};

}  // namespace

std::shared_ptr<const int32_t> device_gain_table(int device, const GainView& view) {
    static std::mutex mutex;
    // Never destroyed: executors may outlive statics. Entries of freed copies are dropped as
    // new ones come.
    static auto* copies = new std::map<std::pair<int, uint64_t>, std::weak_ptr<const int32_t>>;
    std::lock_guard<std::mutex> lock(mutex);
    const std::pair<int, uint64_t> key{device, view.id};
    if (view.id != 0)
        if (const auto it = copies->find(key); it != copies->end())
            if (std::shared_ptr<const int32_t> live = it->second.lock()) return live;

    int current = 0;
    CUDA_CHECK(cudaGetDevice(&current));
    CUDA_CHECK(cudaSetDevice(device));
    auto copy = std::make_shared<Copy>();
    copy->device = device;
    const size_t bytes = static_cast<size_t>(view.strips * view.bands) * sizeof(int32_t);
    CUDA_CHECK(cudaStreamCreateWithFlags(&copy->stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMallocAsync(&copy->data, bytes, copy->stream));
    // From pageable memory; complete before any executor's kernel can read it.
    CUDA_CHECK(cudaMemcpyAsync(copy->data, view.t, bytes, cudaMemcpyHostToDevice, copy->stream));
    CUDA_CHECK(cudaStreamSynchronize(copy->stream));
    CUDA_CHECK(cudaSetDevice(current));
    std::shared_ptr<const int32_t> table(copy, copy->data);  // aliases the Copy that owns it

    for (auto it = copies->begin(); it != copies->end();) it = it->second.expired() ? copies->erase(it) : std::next(it);
    if (view.id != 0) (*copies)[key] = table;
    return table;
}

}  // namespace chromalign::kernels
