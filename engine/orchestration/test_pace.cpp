#include "engine/orchestration/test_pace.hpp"

#include <chrono>
#include <cstdlib>
#include <thread>

namespace chromalign {

void test_pace() {
    static const long pace_us = [] {
        const char* env = std::getenv("CHROMALIGN_TEST_PACE_US");
        return env ? std::atol(env) : 0L;
    }();
    if (pace_us > 0) std::this_thread::sleep_for(std::chrono::microseconds(pace_us));
}

}  // namespace chromalign
