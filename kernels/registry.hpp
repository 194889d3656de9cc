//! @file The backends of this build, looked up by name: what the CLI, the benchmark and tests ask.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/backend/backend.hpp"

namespace chromalign {

/// Every backend of the registry, in the order `auto` tries them.
const std::vector<BackendEntry>& backend_entries();

/// "auto" and every entry's name, for --help and option checks.
std::vector<std::string> backend_names();

/// "6 for cuda, 1 for cpu": each backend's default slab count, for --help.
std::string default_slabs_text();

/// The entry `name` stands for: "auto" resolves to the first automatic entry with a device.
/// Throws Error for an unknown name.
const BackendEntry& find_backend(const std::string& name);

/// Makes backend `name` (or the one "auto" resolves to). Throws Error for an unknown name or
/// a backend that cannot run here.
std::unique_ptr<Backend> make_backend(const std::string& name, const BackendOptions& options);

/// Devices of backend `name` present (0 when absent or not built); never throws for a known name.
int backend_devices(const std::string& name);

}  // namespace chromalign
