//! @file The portable lane type of the tile kernel: one int32 lane, plain C++ (any CPU).
#pragma once

#include <cstdint>

namespace chromalign::kernels::cpu {
namespace {

/// A "vector" of one lane: masks are -1 / 0 like SIMD compare results, shift_in just takes the
/// new top value, and the prologue and epilogue of the lane skew are empty (kLanes - 1 = 0 steps).
struct ScalarI32 {
    using Reg = int32_t;
    using Elem = int32_t;
    static constexpr int kLanes = 1;
    static constexpr bool kRelative = false;
    static constexpr int32_t kMin = INT32_MIN, kMax = INT32_MAX;
    static constexpr Elem kNeg = -(1 << 30);

    struct Substitution {
        Reg match, mismatch;  ///< open + match, open + mismatch
    };
    static Substitution make_substitution(int32_t diag_match, int32_t diag_mismatch) {
        return {diag_match, diag_mismatch};
    }
    static Reg substitute(const Substitution& s, Reg code, Reg window) {
        return code == window ? s.match : s.mismatch;
    }
    static Elem s0_element(int code) { return code; }
    static int32_t s1_element(int code) { return code < 4 ? code : 5; }

    /// pshufb on the lane's low byte (MatrixLookup's index lanes hold 0x80 in the others).
    using Table = const uint8_t*;
    static Table table(const uint8_t* bytes) { return bytes; }
    static Reg lookup(Table t, Reg index) { return index & 0x80 ? 0 : t[index & 15]; }
    static Reg bit_or(Reg a, Reg b) { return a | b; }
    static Reg shift_left(Reg v, int bits) { return v << bits; }

    static Reg set1(int32_t v) { return v; }
    static Reg loadu(const Elem* p) { return *p; }
    static void storeu(Elem* p, Reg v) { *p = v; }
    static Reg add(Reg a, Reg b) { return a + b; }
    static Reg sub(Reg a, Reg b) { return a - b; }
    static Reg subs(Reg a, Reg b) { return a - b; }
    static Reg max(Reg a, Reg b) { return a > b ? a : b; }
    static Reg eq(Reg a, Reg b) { return a == b ? -1 : 0; }
    static Reg gt(Reg a, Reg b) { return a > b ? -1 : 0; }
    static Reg select(Reg mask, Reg a, Reg b) { return mask ? a : b; }
    static bool any_gt(Reg a, Reg b) { return a > b; }
    static Reg lane_index() { return 0; }
    static Reg shift_in(Reg, Reg top) { return top; }
    static Reg reverse(Reg v) { return v; }
    static Reg load_rel(const int32_t* p, int32_t offset) { return *p - offset; }
    static void store_abs(int32_t* p, Reg v, int32_t offset) { *p = v + offset; }
};

}  // namespace
}  // namespace chromalign::kernels::cpu
