//! @file Sequence's region, and helpers to build Sequence values from plain strings.
#include "engine/sequence.hpp"

namespace chromalign {

std::string Sequence::region() const {
    if (length() == record_length()) return {};
    return std::to_string(offset + 1) + "-" + std::to_string(offset + length());
}

Sequence make_sequence(const std::string& name, const std::string& bases) {
    Sequence s;
    s.name = name;
    s.source = "<memory>";
    s.codes.reserve(bases.size());
    for (char c : bases) {
        switch (c) {
        case 'A': case 'a': s.codes.push_back(kBaseA); break;
        case 'C': case 'c': s.codes.push_back(kBaseC); break;
        case 'G': case 'g': s.codes.push_back(kBaseG); break;
        case 'T': case 't': case 'U': case 'u': s.codes.push_back(kBaseT); break;
        default: s.codes.push_back(kBaseOther); break;
        }
    }
    return s;
}

}  // namespace chromalign
