//! @file AVX-512 (F + BW) lane types of the tile kernel: 32 x int16 (relative scores) and 16 x int32.
//! Included only by tile_kernel_avx512.cpp (compiled with -mavx512f -mavx512bw); internal linkage.
//! Compares give k-masks here; the kernel's interface wants vector masks (all ones per lane),
//! which only the prologue and the epilogue use, so they are widened there.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace chromalign::kernels::cpu {
namespace {

struct Avx512Common {
    using Reg = __m512i;
    using Table = __m512i;  ///< 16 bytes for lookup, in all four quarters (vpshufb works per quarter)
    static Reg loadu(const void* p) { return _mm512_loadu_si512(p); }
    static void storeu(void* p, Reg v) { _mm512_storeu_si512(p, v); }
    static Reg bit_or(Reg a, Reg b) { return _mm512_or_si512(a, b); }
    static Table table(const uint8_t* bytes) {
        return _mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes)));
    }
    static Reg lookup(Table t, Reg index) { return _mm512_shuffle_epi8(t, index); }
};

struct Avx512I16 : Avx512Common {
    using Elem = int16_t;
    static constexpr int kLanes = 32;
    static constexpr bool kRelative = true;
    static constexpr int32_t kMin = -32768, kMax = 32767;
    static constexpr Elem kNeg = -32768;

    /// Table-lookup substitution, as Avx2I16's; vpshufb works per 128-bit quarter, so the
    /// table is in all four.
    struct Substitution {
        Reg table;
    };
    static Substitution make_substitution(int32_t diag_match, int32_t diag_mismatch) {
        alignas(64) int16_t t[32];
        for (int i = 0; i < 32; ++i) t[i] = static_cast<int16_t>(i % 8 == 0 ? diag_match : diag_mismatch);
        return {_mm512_load_si512(t)};
    }
    static Reg substitute(const Substitution& s, Reg code, Reg window) {
        return _mm512_shuffle_epi8(s.table, _mm512_xor_si512(code, window));
    }
    static Elem s0_element(int code) { return static_cast<Elem>(2 * code * 0x0101); }
    static int32_t s1_element(int code) {
        const int b = code < 4 ? code : 5;
        return 2 * b + ((2 * b + 1) << 8);
    }

    static Reg set1(int32_t v) { return _mm512_set1_epi16(static_cast<int16_t>(v)); }
    static Reg loadu(const Elem* p) { return Avx512Common::loadu(p); }
    static void storeu(Elem* p, Reg v) { Avx512Common::storeu(p, v); }
    static Reg add(Reg a, Reg b) { return _mm512_add_epi16(a, b); }
    static Reg sub(Reg a, Reg b) { return _mm512_sub_epi16(a, b); }
    static Reg subs(Reg a, Reg b) { return _mm512_subs_epi16(a, b); }
    static Reg max(Reg a, Reg b) { return _mm512_max_epi16(a, b); }
    static Reg eq(Reg a, Reg b) { return _mm512_maskz_mov_epi16(_mm512_cmpeq_epi16_mask(a, b), _mm512_set1_epi16(-1)); }
    static Reg gt(Reg a, Reg b) { return _mm512_maskz_mov_epi16(_mm512_cmpgt_epi16_mask(a, b), _mm512_set1_epi16(-1)); }
    static Reg select(Reg mask, Reg a, Reg b) { return _mm512_mask_blend_epi16(_mm512_test_epi16_mask(mask, mask), b, a); }
    static bool any_gt(Reg a, Reg b) { return _mm512_cmpgt_epi16_mask(a, b) != 0; }
    static Reg lane_index() { return index(0, 1); }
    /// [top[31], v[0], ..., v[30]]: index 63 is top's last lane.
    static Reg shift_in(Reg v, Reg top) {
        return _mm512_permutex2var_epi16(v, _mm512_mask_set1_epi16(index(-1, 1), 1, 63), top);
    }
    static Reg reverse(Reg v) { return _mm512_permutexvar_epi16(index(31, -1), v); }
    static Reg load_rel(const int32_t* p, int32_t offset) {
        const __m512i off = _mm512_set1_epi32(offset);
        const __m256i lo = _mm512_cvtsepi32_epi16(_mm512_sub_epi32(_mm512_loadu_si512(p), off));
        const __m256i hi = _mm512_cvtsepi32_epi16(_mm512_sub_epi32(_mm512_loadu_si512(p + 16), off));
        return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
    }
    static void store_abs(int32_t* p, Reg v, int32_t offset) {
        const __m512i off = _mm512_set1_epi32(offset);
        _mm512_storeu_si512(p, _mm512_add_epi32(_mm512_cvtepi16_epi32(_mm512_castsi512_si256(v)), off));
        _mm512_storeu_si512(p + 16, _mm512_add_epi32(_mm512_cvtepi16_epi32(_mm512_extracti64x4_epi64(v, 1)), off));
    }

private:
    /// Lane i holds first + i * step.
    static Reg index(int first, int step) {
        alignas(64) int16_t t[32];
        for (int i = 0; i < 32; ++i) t[i] = static_cast<int16_t>(first + i * step);
        return _mm512_load_si512(t);
    }
};

struct Avx512I32 : Avx512Common {
    using Elem = int32_t;
    static constexpr int kLanes = 16;
    static constexpr bool kRelative = false;
    static constexpr int32_t kMin = INT32_MIN, kMax = INT32_MAX;
    static constexpr Elem kNeg = -(1 << 30);

    struct Substitution {
        Reg match, mismatch;  ///< open + match, open + mismatch
    };
    static Substitution make_substitution(int32_t diag_match, int32_t diag_mismatch) {
        return {_mm512_set1_epi32(diag_match), _mm512_set1_epi32(diag_mismatch)};
    }
    static Reg substitute(const Substitution& s, Reg code, Reg window) {
        return _mm512_mask_blend_epi32(_mm512_cmpeq_epi32_mask(code, window), s.mismatch, s.match);
    }
    static Elem s0_element(int code) { return code; }
    static int32_t s1_element(int code) { return code < 4 ? code : 5; }

    static Reg set1(int32_t v) { return _mm512_set1_epi32(v); }
    static Reg loadu(const Elem* p) { return Avx512Common::loadu(p); }
    static void storeu(Elem* p, Reg v) { Avx512Common::storeu(p, v); }
    static Reg add(Reg a, Reg b) { return _mm512_add_epi32(a, b); }
    static Reg sub(Reg a, Reg b) { return _mm512_sub_epi32(a, b); }
    static Reg subs(Reg a, Reg b) { return _mm512_sub_epi32(a, b); }
    static Reg max(Reg a, Reg b) { return _mm512_max_epi32(a, b); }
    static Reg eq(Reg a, Reg b) { return _mm512_maskz_mov_epi32(_mm512_cmpeq_epi32_mask(a, b), _mm512_set1_epi32(-1)); }
    static Reg gt(Reg a, Reg b) { return _mm512_maskz_mov_epi32(_mm512_cmpgt_epi32_mask(a, b), _mm512_set1_epi32(-1)); }
    static Reg select(Reg mask, Reg a, Reg b) { return _mm512_mask_blend_epi32(_mm512_test_epi32_mask(mask, mask), b, a); }
    static bool any_gt(Reg a, Reg b) { return _mm512_cmpgt_epi32_mask(a, b) != 0; }
    static Reg lane_index() { return _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15); }
    static Reg shift_left(Reg v, int bits) { return _mm512_slli_epi32(v, static_cast<unsigned>(bits)); }
    /// [top[15], v[0], ..., v[14]].
    static Reg shift_in(Reg v, Reg top) { return _mm512_alignr_epi32(v, top, 15); }
    static Reg reverse(Reg v) {
        return _mm512_permutexvar_epi32(_mm512_setr_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0), v);
    }
    static Reg load_rel(const int32_t* p, int32_t offset) {
        return _mm512_sub_epi32(_mm512_loadu_si512(p), _mm512_set1_epi32(offset));
    }
    static void store_abs(int32_t* p, Reg v, int32_t offset) {
        _mm512_storeu_si512(p, _mm512_add_epi32(v, _mm512_set1_epi32(offset)));
    }
};

}  // namespace
}  // namespace chromalign::kernels::cpu
