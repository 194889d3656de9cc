//! @file Reads one record of a FASTA file (plain, gzip or BGZF) into an encoded Sequence.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/sequence.hpp"

namespace chromalign::io {

/// Which record to read and, optionally, which part of it.
/// Parsed from "NAME" or "NAME:START-END" (1-based, inclusive, as in samtools faidx).
/// An empty selector means the first record.
struct RecordSelector {
    std::string record;     ///< record name; empty selects the first record
    int64_t start = 0;      ///< 1-based first base; 0 when no region was given
    int64_t end = 0;        ///< 1-based last base, inclusive; 0 when no region was given

    bool has_region() const { return start > 0; }
};

/// Parses a selector. A name that itself contains ':' is only split at its last ':' when
/// the part after it has the form START-END. Throws Error on a malformed region.
RecordSelector parse_selector(const std::string& text);

/// Reads the selected record of `path` through htslib (plain, gzip and BGZF alike).
/// Letters are case-insensitive, U reads as T, other IUPAC codes become kBaseOther; CRLF
/// line ends are accepted. Throws InputError naming file, record and line for anything else
/// (bad characters, no record, empty sequence, missing record, truncated gzip, region out of
/// range). `notes`, when given, receives informational lines (e.g. "file holds 3 records;
/// using the first, 'chr1'").
Sequence read_fasta(const std::string& path, const RecordSelector& selector,
                    std::vector<std::string>* notes = nullptr);

/// Writes `s` as a one-record FASTA file (80 bases a line, kBaseOther as N), for generators
/// and tests. Throws Error when the file cannot be written.
void write_fasta(const std::string& path, const Sequence& s);

}  // namespace chromalign::io
