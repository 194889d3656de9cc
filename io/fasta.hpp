//! @file Reads records of a FASTA file (plain, gzip or BGZF) into encoded Sequences.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/sequence.hpp"

namespace chromalign::io {

/// Which record to read and, optionally, which part of it.
/// Parsed from "NAME" or "NAME:START-END" (1-based, inclusive, as in samtools faidx), or with
/// the name in braces, "{NAME}" or "{NAME}:START-END", for a name that holds ':'.
/// An empty selector means the first record.
struct RecordSelector {
    std::string record;     ///< record name; empty selects the first record
    int64_t start = 0;      ///< 1-based first base; 0 when no region was given
    int64_t end = 0;        ///< 1-based last base, inclusive; 0 when no region was given
    /// The whole text, when parse_selector split it into `record` and a region: a record of
    /// that whole name is meant instead where the file holds one (a FASTA of samtools faidx
    /// regions names its records "chr1:1000-2000"); a file holding both is an ambiguity the
    /// reader refuses, as samtools does. Empty: `record` is the name.
    std::string whole;

    bool has_region() const { return start > 0; }
};

/// Parses a selector. A name that itself contains ':' is split at its last ':' when the part
/// after it has the form START-END (the reader then takes the whole text as a name where the
/// file holds such a record); a name that is not to be split goes in braces. Throws Error on
/// a malformed region.
RecordSelector parse_selector(const std::string& text);

/// The text parse_selector reads as `selector`: "NAME", "NAME:START-END", or "{NAME}" for a
/// whole record whose name would be split.
std::string describe_selector(const RecordSelector& selector);

/// A string that two selectors share exactly when they select the same bases, for hash maps
/// (describe_selector is not one: a selector built by hand may name a record "x:1-2" whole).
std::string selection_key(const RecordSelector& selector);

/// Reads the selected record of `path` through htslib (plain, gzip and BGZF alike).
/// Letters are case-insensitive, U reads as T, other IUPAC codes become kBaseOther; CRLF
/// line ends are accepted. Throws InputError naming file, record and line for anything else
/// (bad characters, no record, empty sequence, missing record, truncated gzip, region out of
/// range). `notes`, when given, receives informational lines (e.g. "file holds 3 records;
/// using the first, 'chr1'").
Sequence read_fasta(const std::string& path, const RecordSelector& selector,
                    std::vector<std::string>* notes = nullptr);

/// Reads many records of `path` in one pass, encoded and validated as read_fasta does. Without
/// selectors: every record, in file order. With selectors (none of them empty): the part each
/// selects, in the order given; a record may be selected more than once with different regions.
/// Records not selected are not encoded, nor are their bytes checked. Time and memory are
/// linear in the file's size, whatever the number of records or selectors. Throws InputError
/// naming the file (and the record and line where there is one) when: the same selector is
/// given twice or has no name; two records share a name; any record, selected or not, is
/// empty; a selected record is missing, holds a bad character or is shorter than its region;
/// or the file is unreadable, truncated or not FASTA. Throws Error on a region whose END is
/// before its START. `notes`, when given and selectors are, receives how many of the file's
/// records were selected.
std::vector<Sequence> read_fasta_records(const std::string& path,
                                         const std::vector<RecordSelector>& selectors,
                                         std::vector<std::string>* notes = nullptr);

/// Writes `s` as a one-record FASTA file (80 bases a line, kBaseOther as N), for generators
/// and tests. Throws Error when the file cannot be written.
void write_fasta(const std::string& path, const Sequence& s);

}  // namespace chromalign::io
