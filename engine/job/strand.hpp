//! @file Strands: S0 against S1 as given (forward) or against S1's reverse complement
//! (reverse), and how a position of the strand compared maps back to S1 as given.
#pragma once

#include <cstdint>
#include <string>

#include "engine/sequence.hpp"

namespace chromalign {

/// Which strand of S1 a comparison reads; S0 is always read as given (it is the query).
enum class Strand : uint8_t { kForward = 0, kReverse = 1 };

/// '+' or '-', as SAM, PAF and MAF write a strand.
inline char strand_char(Strand s) { return s == Strand::kForward ? '+' : '-'; }
/// "forward" or "reverse", as --strand takes them.
std::string strand_name(Strand s);
/// The strand strand_name() names; throws Error for anything else.
Strand strand_named(const std::string& name);

/// The reverse complement of `s`: bases reversed, A<->T and C<->G swapped, other codes kept.
/// A region stays the same region read from the other end: its bases before (offset) and
/// after swap, so record_length() and region() are those of the other strand's record.
Sequence reverse_complement(const Sequence& s);

/// The 1-based forward position in its record of position p (1-based) of the reverse
/// complement of a region of `length` bases that lies after `offset` bases of the record's
/// forward strand; 0 stays 0 (no position).
inline int64_t forward_of_reverse(int64_t p, int64_t offset, int64_t length) {
    return p > 0 ? offset + length - p + 1 : 0;
}

/// The 1-based position in S1's record, on its forward strand, of position p (1-based) of
/// `compared`, the sequence as a comparison read it (S1 itself, or its reverse complement,
/// whose bases_after are the forward strand's offset); 0 stays 0 (no position).
inline int64_t forward_position(const Sequence& compared, Strand strand, int64_t p) {
    return strand == Strand::kForward ? compared.in_record(p) : forward_of_reverse(p, compared.bases_after, compared.length());
}

}  // namespace chromalign
