//! @file The layout of a special row file (special_rows.hpp): its header, the CRC that guards
//! it and the key of the substitution scores, shared by the writer, the reader and the fuzzer
//! that forges rows with valid CRCs (tests/fuzz/fuzz_special_rows.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/scoring/scoring.hpp"

namespace chromalign {

constexpr char kSpecialRowMagic[8] = {'C', 'A', 'S', 'R', 'O', 'W', '0', '3'};
/// Rows of chromalign 0.1.0 before the regions' peaks: read, with each row's own peaks for them.
constexpr char kSpecialRowMagicWithoutRegions[8] = {'C', 'A', 'S', 'R', 'O', 'W', '0', '2'};

/// What a row file begins with; then per block of SpecialRows::kPeakColumns columns the
/// int64 bound, the int32 peak H and (not in rows of 0.1.0) the int32 region peak; then H as
/// int32 and H - F as uint16 per column.
struct SpecialRowHeader {
    char magic[8];
    int64_t row, m, n, first, width;
    uint64_t fingerprint0, fingerprint1;
    int32_t open, ext, gap;
    uint32_t substitution;  ///< special_row_substitution_key; 0 in rows of 0.1.0 (not checked)
    int64_t blocks;
    uint32_t crc;  ///< of the bytes above
    uint32_t pad;
};
static_assert(sizeof(SpecialRowHeader) == 96, "the header is written as it is in memory");

/// The CRC-32 of the header's bytes before its crc field.
uint32_t special_row_header_crc(const SpecialRowHeader& h);

/// The substitution scores as a key, never 0: with the lengths, fingerprints and gap costs of
/// the header, everything that defines what a row holds.
uint32_t special_row_substitution_key(const Scoring& sc);

}  // namespace chromalign
