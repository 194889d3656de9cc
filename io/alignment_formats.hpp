//! @file An alignment as SAM/BAM/CRAM (through htslib), PAF, MAF and a readable block view.
//! S1 is the reference (target) and S0 the query everywhere, as in the CIGAR's letters.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "engine/alignment/alignment.hpp"
#include "engine/job/strand.hpp"
#include "engine/sequence.hpp"

namespace chromalign::io {

/// What every format needs: the pair, the alignment, and the command line for headers.
/// `s1` is S1 as the comparison read it: the record itself on the forward strand, its
/// reverse_complement() on the reverse one, and the alignment's coordinates are of s0 and
/// that `s1`. Every format writes S1's positions on its forward strand, in its own convention.
struct AlignedPair {
    const Sequence& s0;
    const Sequence& s1;
    const Alignment& alignment;
    std::string command_line;  ///< the SAM header's @PG CL
    Strand strand = Strand::kForward;
    bool secondary = false;    ///< SAM: FLAG 0x100 (another alignment of this S0 record is primary)
    /// k >= 1: the pair's alignment k of the K best (--alignments), written as SAM's and PAF's
    /// HI:i:k with PAF's tp:A:P or tp:A:S (minimap2's primary and secondary) and MAF's "rank=k";
    /// 0: the job asked for one alignment per pair, written without them.
    int rank = 0;
};

/// An S1 record as the SAM header lists it (@SQ SN, LN) and MAF's source size.
struct ReferenceInfo {
    std::string name;
    int64_t length = 0;  ///< the whole record's length
};

enum class AlignmentFormat { kSam, kBam, kCram, kPaf, kMaf, kView };

/// "sam", "bam", "cram", "paf", "maf", "view"; throws Error for anything else.
AlignmentFormat parse_alignment_format(const std::string& name);
/// The format a file name's extension names (.sam .bam .cram .paf .maf, any case), else kView;
/// throws Error for a compressor's (.gz, ...), which would hold the view uncompressed.
AlignmentFormat alignment_format_of(const std::string& path);

/// Throws Error, naming the record, when `format` is SAM, BAM or CRAM and S0's record `name`
/// cannot be a QNAME (at most 254 characters): asked before stage 1, not after it.
void require_query_name(const std::string& name, AlignmentFormat format);

/// Many alignments in one file, in the order written: one SAM/BAM/CRAM (a header listing every
/// reference, then a record per alignment), PAF lines, MAF blocks or view sections.
class AlignmentWriter {
public:
    /// Opens `path` ("-": standard output); SAM-like formats write their header at once: @HD,
    /// an @SQ per reference in the order given, @PG with `command_line`. Throws Error naming the file.
    AlignmentWriter(const std::string& path, AlignmentFormat format, const std::vector<ReferenceInfo>& references,
                    const std::string& command_line);
    ~AlignmentWriter();
    AlignmentWriter(const AlignmentWriter&) = delete;
    AlignmentWriter& operator=(const AlignmentWriter&) = delete;
    /// Writes one alignment; its s1 must be one of the references. Throws Error naming the file.
    void write(const AlignedPair& pair);
    /// Finishes the file (BGZF end, flush); throws Error naming it when that fails.
    void close();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// Writes the alignment to `path` ("-": standard output). SAM-like formats go through htslib:
/// @HD, @SQ of S1, @PG; one record of S0 with the unaligned ends hard-clipped, SEQ the aligned
/// bases (other codes as N), QUAL *, tags AS (score) and NM (mismatches and gap bases); an
/// empty alignment is one unmapped record. Throws Error naming the file on any failure.
void write_alignment(const std::string& path, AlignmentFormat format, const AlignedPair& pair);

/// One PAF line: 0-based half-open coordinates, residue matches, block length, MAPQ 255,
/// then AS:i, NM:i and cg:Z: (the CIGAR). Empty for an empty alignment.
std::string paf_line(const AlignedPair& pair);
/// A MAF file: header, then one block ("a score=...", S1's then S0's "s" line).
std::string maf_text(const AlignedPair& pair);
/// The alignment 60 columns a line: S1, a line of | (match) . (mismatch) and blanks, S0, with
/// the 1-based positions of each line's first and last base in the margins.
std::string block_view(const AlignedPair& pair);

}  // namespace chromalign::io
