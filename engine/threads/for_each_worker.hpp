//! @file One call's work split over threads started for it: the passes that run once per
//! search, launch or walk (edges made, tiles of a wave, pinned copies spread). Stage 1's
//! batches, one per external diagonal, use a persistent pool instead (kernels/cpu/worker_pool).
#pragma once

#include <functional>

namespace chromalign {

/// Calls body(w) once for every w in [0, workers) (at least w = 0) and returns when every call
/// has returned: w = 0 on the calling thread, the others on threads started for this call.
/// Where the system cannot start a thread (a thread or memory limit), the calling thread makes
/// the calls of that thread and those after it, after its own: slower, the same result, never
/// an abort. The first exception a call throws is rethrown once every call has returned.
void for_each_worker(int workers, const std::function<void(int worker)>& body);

}  // namespace chromalign
