//! @file Lookup over the backends that kernels/CMakeLists.txt lists (CHROMALIGN_BACKENDS).
#include "kernels/registry.hpp"

#include "engine/error.hpp"

namespace chromalign {

// NAME_backend_entry() of every listed backend.
#include "kernels/backend_declarations.inc"

const std::vector<BackendEntry>& backend_entries() {
    static const std::vector<BackendEntry> entries = {
#include "kernels/backend_entries.inc"
    };
    return entries;
}

std::vector<std::string> backend_names() {
    std::vector<std::string> names{"auto"};
    for (const BackendEntry& e : backend_entries()) names.push_back(e.name);
    return names;
}

std::string default_slabs_text() {
    std::string text;
    for (const BackendEntry& e : backend_entries())
        if (e.default_slabs > 0) text += (text.empty() ? "" : ", ") + std::to_string(e.default_slabs) + " for " + e.name;
    return text;
}

const BackendEntry& find_backend(const std::string& name) {
    const auto& entries = backend_entries();
    if (name == "auto") {
        for (const BackendEntry& e : entries)
            if (e.automatic && e.devices() > 0) return e;
        throw Error("no backend can run here");
    }
    for (const BackendEntry& e : entries)
        if (e.name == name) return e;
    std::string known;
    for (const std::string& n : backend_names()) known += (known.empty() ? "" : ", ") + n;
    throw Error("unknown backend '" + name + "' (choose " + known + ")");
}

std::unique_ptr<Backend> make_backend(const std::string& name, const BackendOptions& options) {
    return find_backend(name).make(options);
}

int backend_devices(const std::string& name) { return find_backend(name).devices(); }

}  // namespace chromalign
