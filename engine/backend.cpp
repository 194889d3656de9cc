//! @file Backend factory and the reference backend wrapper.
#include "engine/backend.hpp"

#include "engine/cpu_backend.hpp"
#include "engine/cuda_backend.hpp"
#include "engine/error.hpp"
#include "engine/reference.hpp"

namespace chromalign {
namespace {

class ReferenceBackend : public Backend {
public:
    std::string name() const override { return "reference"; }
    std::string device() const override { return "cpu (1 thread)"; }
    AlignmentEnd align(const Sequence& s0, const Sequence& s1, const Scoring& scoring) override {
        return reference_align(s0, s1, scoring);
    }
};

}  // namespace

bool cuda_available() { return cuda_backend_device_count() > 0; }

std::vector<std::string> backend_names() { return {"auto", "reference", "cpu", "cuda"}; }

std::unique_ptr<Backend> make_backend(const std::string& name, const BackendOptions& options) {
    if (name == "reference") return std::make_unique<ReferenceBackend>();
    if (name == "cpu") return make_cpu_backend(options);
    if (name == "cuda") return make_cuda_backend(options);
    if (name == "auto") return cuda_available() ? make_cuda_backend(options) : make_cpu_backend(options);
    throw Error("unknown backend '" + name + "' (choose auto, reference, cpu or cuda)");
}

}  // namespace chromalign
