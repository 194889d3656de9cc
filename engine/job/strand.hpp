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

/// The 1-based position in S1's record, on its forward strand, of position p (1-based) of
/// `compared`, the sequence as a comparison read it (S1 itself, or its reverse complement);
/// 0 stays 0 (no position).
inline int64_t forward_position(const Sequence& compared, Strand strand, int64_t p) {
    if (p <= 0) return 0;
    return strand == Strand::kForward ? compared.in_record(p) : compared.record_length() - compared.in_record(p) + 1;
}

}  // namespace chromalign
