//! @file Reads lists of records to compare: names files (--s0-record FILE), pairs files (--pairs).
#pragma once

#include <string>
#include <vector>

#include "io/fasta.hpp"

namespace chromalign::io {

/// One pair of records (or regions) to compare, as a line of a pairs file gives it.
struct SelectorPair {
    RecordSelector s0;  ///< the record of S0 (the query)
    RecordSelector s1;  ///< the record of S1 (the reference)
};

/// Reads a names file: one NAME or NAME:START-END a line, in the order given. Blank lines and
/// lines whose first non-blank byte is '#' are skipped; spaces and tabs around a name and a
/// trailing '\r' are trimmed. Throws InputError naming the file and line on a line of two words
/// (record names have no spaces), a malformed region or a selector that repeats an earlier
/// line; naming the file when it is not a regular file (checked before opening it, so that a
/// FIFO is refused at once instead of waiting for a writer), cannot be read or names nothing.
std::vector<RecordSelector> read_selector_file(const std::string& path);

/// Reads a pairs file: one pair a line, the S0 selector, a tab, the S1 selector (each NAME or
/// NAME:START-END). Blank and comment lines are skipped and lines trimmed as in
/// read_selector_file; a header line is not special. Throws InputError naming the file and line
/// on a line without exactly two tab-separated columns, a column of two words, a malformed
/// region or a pair that repeats an earlier line; and for the file itself as
/// read_selector_file does.
std::vector<SelectorPair> read_pairs_file(const std::string& path);

}  // namespace chromalign::io
