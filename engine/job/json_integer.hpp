//! @file json_integer: an integer field of a record chromalign reads back (stage1.json,
//! job.json, FILE.job), refused unless it is one.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "engine/error.hpp"

namespace chromalign {

/// `v` as T when it is an integer within T's range. nlohmann's get<T>() converts a float, or a
/// value beyond T, with undefined behaviour (found by tests/fuzz/fuzz_stage1.cpp); such a
/// file is damaged or forged, and says so.
template <typename T>
T json_integer(const nlohmann::json& v) {
    static_assert(std::is_integral<T>::value, "an integer type");
    using Limits = std::numeric_limits<T>;
    if (v.is_number_unsigned()) {
        const uint64_t x = v.get<uint64_t>();
        if (x <= static_cast<uint64_t>(Limits::max())) return static_cast<T>(x);
    } else if (v.is_number_integer()) {
        const int64_t x = v.get<int64_t>();
        const bool fits = std::is_signed<T>::value
                              ? x >= static_cast<int64_t>(Limits::min()) && x <= static_cast<int64_t>(Limits::max())
                              : x >= 0 && static_cast<uint64_t>(x) <= static_cast<uint64_t>(Limits::max());
        if (fits) return static_cast<T>(x);
    }
    throw Error("not an integer of its field's range: " + v.dump().substr(0, 40));
}

}  // namespace chromalign
