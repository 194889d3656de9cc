//! @file AVX2 lane types of the tile kernel: 16 x int16 (relative scores) and 8 x int32.
//! Included only by tile_kernel_avx2.cpp (compiled with -mavx2); internal linkage throughout.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace chromalign::kernels::cpu {
namespace {

struct Avx2Common {
    using Reg = __m256i;
    using Table = __m256i;  ///< 16 bytes for lookup, in both halves (vpshufb works per half)
    static Reg select(Reg mask, Reg a, Reg b) { return _mm256_blendv_epi8(b, a, mask); }
    static Reg bit_or(Reg a, Reg b) { return _mm256_or_si256(a, b); }
    static Table table(const uint8_t* bytes) {
        return _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes)));
    }
    static Reg lookup(Table t, Reg index) { return _mm256_shuffle_epi8(t, index); }
    /// The low 128-bit half of the result is the high half of `top`, the high half is the low
    /// half of `v`: what a per-half alignr needs to move lanes across the halves by one.
    static Reg carry_halves(Reg v, Reg top) { return _mm256_permute2x128_si256(v, top, 0x03); }
};

struct Avx2I16 : Avx2Common {
    using Elem = int16_t;
    static constexpr int kLanes = 16;
    static constexpr bool kRelative = true;
    static constexpr int32_t kMin = -32768, kMax = 32767;
    static constexpr Elem kNeg = -32768;

    /// Table-lookup substitution, as Sse41I16's; vpshufb works per 128-bit half, so the table
    /// is in both halves.
    struct Substitution {
        Reg table;
    };
    static Substitution make_substitution(int32_t diag_match, int32_t diag_mismatch) {
        const short m = static_cast<short>(diag_match), x = static_cast<short>(diag_mismatch);
        return {_mm256_setr_epi16(m, x, x, x, x, x, x, x, m, x, x, x, x, x, x, x)};
    }
    static Reg substitute(const Substitution& s, Reg code, Reg window) {
        return _mm256_shuffle_epi8(s.table, _mm256_xor_si256(code, window));
    }
    static Elem s0_element(int code) { return static_cast<Elem>(2 * code * 0x0101); }
    static int32_t s1_element(int code) {
        const int b = code < 4 ? code : 5;
        return 2 * b + ((2 * b + 1) << 8);
    }

    static Reg set1(int32_t v) { return _mm256_set1_epi16(static_cast<int16_t>(v)); }
    static Reg loadu(const Elem* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
    static void storeu(Elem* p, Reg v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
    static Reg add(Reg a, Reg b) { return _mm256_add_epi16(a, b); }
    static Reg sub(Reg a, Reg b) { return _mm256_sub_epi16(a, b); }
    static Reg subs(Reg a, Reg b) { return _mm256_subs_epi16(a, b); }
    static Reg max(Reg a, Reg b) { return _mm256_max_epi16(a, b); }
    static Reg eq(Reg a, Reg b) { return _mm256_cmpeq_epi16(a, b); }
    static Reg gt(Reg a, Reg b) { return _mm256_cmpgt_epi16(a, b); }
    static bool any_gt(Reg a, Reg b) { return _mm256_movemask_epi8(_mm256_cmpgt_epi16(a, b)) != 0; }
    static Reg lane_index() {
        return _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    }
    /// [top[15], v[0], ..., v[14]].
    static Reg shift_in(Reg v, Reg top) { return _mm256_alignr_epi8(v, carry_halves(v, top), 14); }
    static Reg reverse(Reg v) {
        const __m256i in_half = _mm256_setr_epi8(14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1,
                                                 14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1);
        return _mm256_shuffle_epi8(_mm256_permute4x64_epi64(v, 0x4E), in_half);
    }
    static Reg load_rel(const int32_t* p, int32_t offset) {
        const __m256i off = _mm256_set1_epi32(offset);
        const __m256i lo = _mm256_sub_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)), off);
        const __m256i hi = _mm256_sub_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 8)), off);
        // packs works per 128-bit half: [lo0-3 hi0-3 | lo4-7 hi4-7]; put the quarters in order.
        return _mm256_permute4x64_epi64(_mm256_packs_epi32(lo, hi), 0xD8);
    }
    static void store_abs(int32_t* p, Reg v, int32_t offset) {
        const __m256i off = _mm256_set1_epi32(offset);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(p),
                            _mm256_add_epi32(_mm256_cvtepi16_epi32(_mm256_castsi256_si128(v)), off));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(p + 8),
                            _mm256_add_epi32(_mm256_cvtepi16_epi32(_mm256_extracti128_si256(v, 1)), off));
    }
};

struct Avx2I32 : Avx2Common {
    using Elem = int32_t;
    static constexpr int kLanes = 8;
    static constexpr bool kRelative = false;
    static constexpr int32_t kMin = INT32_MIN, kMax = INT32_MAX;
    static constexpr Elem kNeg = -(1 << 30);

    struct Substitution {
        Reg match, mismatch;  ///< open + match, open + mismatch
    };
    static Substitution make_substitution(int32_t diag_match, int32_t diag_mismatch) {
        return {_mm256_set1_epi32(diag_match), _mm256_set1_epi32(diag_mismatch)};
    }
    static Reg substitute(const Substitution& s, Reg code, Reg window) {
        return select(_mm256_cmpeq_epi32(code, window), s.match, s.mismatch);
    }
    static Elem s0_element(int code) { return code; }
    static int32_t s1_element(int code) { return code < 4 ? code : 5; }

    static Reg set1(int32_t v) { return _mm256_set1_epi32(v); }
    static Reg loadu(const Elem* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
    static void storeu(Elem* p, Reg v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
    static Reg add(Reg a, Reg b) { return _mm256_add_epi32(a, b); }
    static Reg sub(Reg a, Reg b) { return _mm256_sub_epi32(a, b); }
    static Reg subs(Reg a, Reg b) { return _mm256_sub_epi32(a, b); }
    static Reg max(Reg a, Reg b) { return _mm256_max_epi32(a, b); }
    static Reg eq(Reg a, Reg b) { return _mm256_cmpeq_epi32(a, b); }
    static Reg gt(Reg a, Reg b) { return _mm256_cmpgt_epi32(a, b); }
    static bool any_gt(Reg a, Reg b) { return _mm256_movemask_epi8(_mm256_cmpgt_epi32(a, b)) != 0; }
    static Reg lane_index() { return _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7); }
    static Reg shift_left(Reg v, int bits) { return _mm256_slli_epi32(v, bits); }
    /// [top[7], v[0], ..., v[6]].
    static Reg shift_in(Reg v, Reg top) { return _mm256_alignr_epi8(v, carry_halves(v, top), 12); }
    static Reg reverse(Reg v) { return _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0)); }
    static Reg load_rel(const int32_t* p, int32_t offset) {
        return _mm256_sub_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)), _mm256_set1_epi32(offset));
    }
    static void store_abs(int32_t* p, Reg v, int32_t offset) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm256_add_epi32(v, _mm256_set1_epi32(offset)));
    }
};

}  // namespace
}  // namespace chromalign::kernels::cpu
