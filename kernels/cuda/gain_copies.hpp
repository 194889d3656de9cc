//! @file One device copy of a gain table (engine/pruning/gain_table.hpp) per device and
//! process, which the executors of every slab share. Each used to copy its own: the 6 slabs of
//! a 16M x 16M pair held 6 copies of 117 MB, and more once slabs changed grids.
#pragma once

#include <cstdint>
#include <memory>

#include "engine/pruning/gain_table.hpp"

namespace chromalign::kernels {

/// The table of `view` (view.t in host memory) on `device`, its copy complete on return. While
/// a copy of the same build (view.id) lives on that device, it is returned again; a view of
/// id 0 gets a copy of its own. A holder synchronizes the streams that read the copy before it
/// lets go of it; the last one frees it. Throws Error when the device has no room for it.
std::shared_ptr<const int32_t> device_gain_table(int device, const GainView& view);

}  // namespace chromalign::kernels
