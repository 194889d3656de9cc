//! @file Reverse complements of encoded sequences.
#include "engine/job/strand.hpp"

#include <algorithm>

#include "engine/error.hpp"

namespace chromalign {

std::string strand_name(Strand s) { return s == Strand::kForward ? "forward" : "reverse"; }

Strand strand_named(const std::string& name) {
    if (name == "forward") return Strand::kForward;
    if (name == "reverse") return Strand::kReverse;
    throw Error("strand '" + name + "' (forward or reverse)");
}

Sequence reverse_complement(const Sequence& s) {
    Sequence rc;
    rc.name = s.name;
    rc.source = s.source;
    rc.offset = s.bases_after;
    rc.bases_after = s.offset;
    rc.codes.resize(s.codes.size());
    // A, C, G, T are 0..3, so a base's complement is 3 - code; kBaseOther stays itself.
    std::transform(s.codes.rbegin(), s.codes.rend(), rc.codes.begin(),
                   [](uint8_t c) { return c < kBaseOther ? static_cast<uint8_t>(kBaseT - c) : c; });
    return rc;
}

}  // namespace chromalign
