//! @file ReferenceBackend: reference_align behind the Backend interface.
#include "kernels/reference/reference_backend.hpp"

#include "kernels/reference/reference.hpp"

namespace chromalign {
namespace {

class ReferenceBackend : public Backend {
public:
    std::string name() const override { return "reference"; }
    std::string device() const override { return "cpu (1 thread)"; }
    double nominal_gcups() const override { return 0.2; }  // README, Backends
    AlignmentEnd align(const Sequence& s0, const Sequence& s1, const Scoring& scoring) override {
        return reference_align(s0, s1, scoring);
    }
};

}  // namespace

BackendEntry reference_backend_entry() {
    return {"reference", "the textbook single-thread oracle every fast path is tested against",
            /*automatic=*/false, /*default_slabs=*/0, [] { return 1; },
            [](const BackendOptions&) -> std::unique_ptr<Backend> { return std::make_unique<ReferenceBackend>(); }};
}

}  // namespace chromalign
