//! @file ReferenceBackend: reference_align behind the Backend interface.
#include "kernels/reference/reference_backend.hpp"

#include "kernels/reference/reference.hpp"

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

BackendEntry reference_backend_entry() {
    BackendEntry e;
    e.name = "reference";
    e.summary = "the textbook single-thread oracle every fast path is tested against";
    e.default_slabs = 0;  // not tiled: no slabs
    e.devices = [] { return 1; };
    e.make = [](const BackendOptions&) { return std::make_unique<ReferenceBackend>(); };
    return e;
}

}  // namespace chromalign
