//! @file usable_cores: the affinity mask on Linux, the online CPUs elsewhere.
#include "kernels/cpu/cores.hpp"

#include <algorithm>
#include <thread>

#ifdef __linux__
#include <sched.h>
#endif

namespace chromalign {

int usable_cores() {
#ifdef __linux__
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
#endif
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace chromalign
