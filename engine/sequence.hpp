//! @file An encoded DNA sequence as every backend receives it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace chromalign {

/// Base codes. A pair of A, C, G, T codes scores its matrix entry; kBaseOther (N and every other
/// IUPAC code) scores Scoring::other, the lowest entry, against everything, itself included.
enum BaseCode : uint8_t { kBaseA = 0, kBaseC = 1, kBaseG = 2, kBaseT = 3, kBaseOther = 4 };

/// Position p (1-based) of a region that starts after `offset` bases of its record, as a
/// position in the record; 0 (no position: a score of 0) stays 0.
inline int64_t record_position(int64_t p, int64_t offset) { return p > 0 ? p + offset : 0; }

struct Sequence {
    std::string name;            ///< record name (first word of the FASTA header)
    std::string source;          ///< file the record came from, for messages
    std::vector<uint8_t> codes;  ///< one BaseCode per position; position p is 1-based p+1
    /// A region of a longer record (--s0-record NAME:START-END): the record's bases before the
    /// region (START - 1) and after it. The engine works in the region's positions; what the
    /// user reads (the report, SAM, PAF, MAF) gives positions in the record.
    int64_t offset = 0;
    int64_t bases_after = 0;

    int64_t length() const { return static_cast<int64_t>(codes.size()); }
    int64_t record_length() const { return offset + length() + bases_after; }
    int64_t in_record(int64_t p) const { return record_position(p, offset); }
    /// "START-END" in the record where the sequence is only part of it, else empty.
    std::string region() const;
};

/// Encodes an ACGT/IUPAC string (tests and generators); every non-ACGT letter becomes kBaseOther.
Sequence make_sequence(const std::string& name, const std::string& bases);

}  // namespace chromalign
