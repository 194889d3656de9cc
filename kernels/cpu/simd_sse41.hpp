//! @file SSE4.1 lane types of the tile kernel: 8 x int16 (relative scores) and 4 x int32.
//! Included only by tile_kernel_sse41.cpp (compiled with -msse4.1) and tile_kernel_avx.cpp (with
//! -mavx: the same lanes in VEX encoding). Everything here has internal linkage, so the linker
//! can never pick one ISA's copy of a function for another translation unit.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace chromalign::kernels::cpu {
namespace {

/// Operations shared by both widths; `Derived` supplies the element-width specific ones.
struct Sse41Common {
    using Reg = __m128i;
    using Table = __m128i;  ///< 16 bytes for lookup (MatrixLookup)
    static Reg select(Reg mask, Reg a, Reg b) { return _mm_blendv_epi8(b, a, mask); }
    static Reg bit_or(Reg a, Reg b) { return _mm_or_si128(a, b); }
    static Table table(const uint8_t* bytes) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes)); }
    /// pshufb: byte i is table[index byte i & 15], or 0 where that byte has bit 7 set.
    static Reg lookup(Table t, Reg index) { return _mm_shuffle_epi8(t, index); }
};

struct Sse41I16 : Sse41Common {
    using Elem = int16_t;
    static constexpr int kLanes = 8;
    static constexpr bool kRelative = true;  ///< scores relative to the tile corner, saturated
    static constexpr int32_t kMin = -32768, kMax = 32767;
    static constexpr Elem kNeg = -32768;     ///< minus infinity: saturating subtraction keeps it

    /// Substitution by table lookup. S0 lanes hold 2a in both bytes and S1 lanes 2b and 2b+1,
    /// so their xor holds 2v and 2v+1 with v = a ^ b, which is 0 exactly for a match (S0's
    /// other is 4, S1's 5), and pshufb reads 16-bit entry v of the table: open + match at 0,
    /// open + mismatch elsewhere. Two single-uop instructions where compare-and-blend needs a
    /// blend of up to three.
    struct Substitution {
        Reg table;
    };
    static Substitution make_substitution(int32_t diag_match, int32_t diag_mismatch) {
        const short m = static_cast<short>(diag_match), x = static_cast<short>(diag_mismatch);
        return {_mm_setr_epi16(m, x, x, x, x, x, x, x)};
    }
    static Reg substitute(const Substitution& s, Reg code, Reg window) {
        return _mm_shuffle_epi8(s.table, _mm_xor_si128(code, window));
    }
    static Elem s0_element(int code) { return static_cast<Elem>(2 * code * 0x0101); }
    static int32_t s1_element(int code) {
        const int b = code < 4 ? code : 5;
        return 2 * b + ((2 * b + 1) << 8);
    }

    static Reg set1(int32_t v) { return _mm_set1_epi16(static_cast<int16_t>(v)); }
    static Reg loadu(const Elem* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
    static void storeu(Elem* p, Reg v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v); }
    static Reg add(Reg a, Reg b) { return _mm_add_epi16(a, b); }
    static Reg sub(Reg a, Reg b) { return _mm_sub_epi16(a, b); }
    static Reg subs(Reg a, Reg b) { return _mm_subs_epi16(a, b); }
    static Reg max(Reg a, Reg b) { return _mm_max_epi16(a, b); }
    static Reg eq(Reg a, Reg b) { return _mm_cmpeq_epi16(a, b); }
    static Reg gt(Reg a, Reg b) { return _mm_cmpgt_epi16(a, b); }
    static bool any_gt(Reg a, Reg b) { return _mm_movemask_epi8(_mm_cmpgt_epi16(a, b)) != 0; }
    static Reg lane_index() { return _mm_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7); }
    /// [top[7], v[0], ..., v[6]]: lane k takes lane k-1, lane 0 takes the top of `top`.
    static Reg shift_in(Reg v, Reg top) { return _mm_alignr_epi8(v, top, 14); }
    static Reg reverse(Reg v) {
        return _mm_shuffle_epi8(v, _mm_setr_epi8(14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1));
    }
    /// Lanes p[k] - offset, saturated to int16.
    static Reg load_rel(const int32_t* p, int32_t offset) {
        const __m128i off = _mm_set1_epi32(offset);
        const __m128i lo = _mm_sub_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), off);
        const __m128i hi = _mm_sub_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 4)), off);
        return _mm_packs_epi32(lo, hi);
    }
    /// p[k] = lane k + offset.
    static void store_abs(int32_t* p, Reg v, int32_t offset) {
        const __m128i off = _mm_set1_epi32(offset);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm_add_epi32(_mm_cvtepi16_epi32(v), off));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(p + 4),
                         _mm_add_epi32(_mm_cvtepi16_epi32(_mm_srli_si128(v, 8)), off));
    }
};

struct Sse41I32 : Sse41Common {
    using Elem = int32_t;
    static constexpr int kLanes = 4;
    static constexpr bool kRelative = false;  ///< absolute scores; -2^30 is far from overflow
    static constexpr int32_t kMin = INT32_MIN, kMax = INT32_MAX;
    static constexpr Elem kNeg = -(1 << 30);

    struct Substitution {
        Reg match, mismatch;  ///< open + match, open + mismatch
    };
    static Substitution make_substitution(int32_t diag_match, int32_t diag_mismatch) {
        return {_mm_set1_epi32(diag_match), _mm_set1_epi32(diag_mismatch)};
    }
    static Reg substitute(const Substitution& s, Reg code, Reg window) {
        return select(_mm_cmpeq_epi32(code, window), s.match, s.mismatch);
    }
    static Elem s0_element(int code) { return code; }
    static int32_t s1_element(int code) { return code < 4 ? code : 5; }

    static Reg set1(int32_t v) { return _mm_set1_epi32(v); }
    static Reg loadu(const Elem* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
    static void storeu(Elem* p, Reg v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v); }
    static Reg add(Reg a, Reg b) { return _mm_add_epi32(a, b); }
    static Reg sub(Reg a, Reg b) { return _mm_sub_epi32(a, b); }
    static Reg subs(Reg a, Reg b) { return _mm_sub_epi32(a, b); }
    static Reg max(Reg a, Reg b) { return _mm_max_epi32(a, b); }
    static Reg eq(Reg a, Reg b) { return _mm_cmpeq_epi32(a, b); }
    static Reg gt(Reg a, Reg b) { return _mm_cmpgt_epi32(a, b); }
    static bool any_gt(Reg a, Reg b) { return _mm_movemask_epi8(_mm_cmpgt_epi32(a, b)) != 0; }
    static Reg lane_index() { return _mm_setr_epi32(0, 1, 2, 3); }
    static Reg shift_left(Reg v, int bits) { return _mm_slli_epi32(v, bits); }
    static Reg shift_in(Reg v, Reg top) { return _mm_alignr_epi8(v, top, 12); }
    static Reg reverse(Reg v) { return _mm_shuffle_epi32(v, 0x1B); }
    static Reg load_rel(const int32_t* p, int32_t offset) {
        return _mm_sub_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), _mm_set1_epi32(offset));
    }
    static void store_abs(int32_t* p, Reg v, int32_t offset) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm_add_epi32(v, _mm_set1_epi32(offset)));
    }
};

}  // namespace
}  // namespace chromalign::kernels::cpu
