//! @file Sequences as minimap2 reads them: letters, every other code as N.
#pragma once

#include <algorithm>
#include <string>

#include "engine/sequence.hpp"

namespace chromalign {

/// Positions [from, to) of `s` as A, C, G, T and N.
inline std::string minimap2_letters(const Sequence& s, int64_t from, int64_t to) {
    static const char kLetters[] = {'A', 'C', 'G', 'T', 'N'};
    std::string text(static_cast<size_t>(to - from), 'N');
    for (int64_t p = from; p < to; ++p)
        text[static_cast<size_t>(p - from)] = kLetters[std::min<uint8_t>(s.codes[static_cast<size_t>(p)], 4)];
    return text;
}

}  // namespace chromalign
