//! @file Work that keeps CUDA's legacy default stream busy, for the GPU tests: a runner whose
//! own stream does not wait for that stream must not put anything its kernels need there.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>

namespace chromalign::test {

/// From construction to destruction, a thread queues device-to-host transfers of `bytes` on
/// the legacy stream, several deep, so that whatever else goes there waits milliseconds.
class LegacyStreamLoad {
public:
    explicit LegacyStreamLoad(size_t bytes);
    ~LegacyStreamLoad();
    int64_t transfers() const { return transfers_; }

private:
    void run();
    const size_t bytes_;
    std::atomic<bool> stop_{false};
    std::atomic<int64_t> transfers_{0};
    std::thread thread_;
};

}  // namespace chromalign::test
