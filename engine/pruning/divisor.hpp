//! @file Quotients by a divisor fixed when a gain table is built, without a 64-bit division.
//! A GPU has no integer divide instruction: each 64-bit `/` is an emulated call of some 70
//! dependent instructions, and the gain table's bound (gain_table.hpp) took four of them a
//! decision, most of what the stream of bands spent deciding a chunk of 32 columns.
#pragma once

#include <cstdint>

#include "engine/host_device.hpp"

namespace chromalign {

struct Divisor {
    int64_t d = 1;
    double inv = 1.0;  ///< 1 / d, rounded to nearest

    static Divisor of(int64_t d) { return Divisor{d, 1.0 / static_cast<double>(d)}; }

    /// floor(x / d) for 0 <= x < 2^50, d >= 1. x and inv are each within 2^-53 of their true
    /// values, so x * inv is within (x / d) 2^-51 < 1/2 of x / d and its truncation q within one
    /// of the quotient; r = x - q d then says which way: r < 0 when q is one too many, r >= d
    /// when one too few.
    CHROMALIGN_HOST_DEVICE int64_t div(int64_t x) const {
        int64_t q = static_cast<int64_t>(static_cast<double>(x) * inv);
        const int64_t r = x - q * d;
        if (r < 0) {
            --q;
        } else if (r >= d) {
            ++q;
        }
        return q;
    }
};

}  // namespace chromalign
