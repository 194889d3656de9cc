//! @file The reference backend: the textbook oracle behind the Backend interface.
#pragma once

#include "engine/backend/backend.hpp"

namespace chromalign {

/// Registry entry of the reference backend (one thread, any size; never picked by `auto`).
BackendEntry reference_backend_entry();

}  // namespace chromalign
