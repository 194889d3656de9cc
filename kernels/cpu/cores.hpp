//! @file The cores this process may run on.
#pragma once

namespace chromalign {

/// CPUs in the calling thread's affinity mask, which is what taskset, `srun --cpus-per-task`
/// or an MPI launcher's binding leave the process (Open MPI binds a rank to one core by
/// default when it starts two or fewer); every online CPU where the mask is unknown. At least 1.
int usable_cores();

}  // namespace chromalign
