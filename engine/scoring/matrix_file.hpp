//! @file Substitution matrix files in the NCBI / LASTZ text format (a 4x4 nucleotide matrix).
#pragma once

#include <string>

#include "engine/scoring/scoring.hpp"

namespace chromalign {

/// Parses a matrix file's text; `path` only names it in messages. The format:
///   # comments, anywhere after '#'; blank lines
///        A     C     G     T         a header row of column letters (single characters)
///   A   91  -114   -31  -123         one row per letter: the letter, then a score per column
///   ...
/// Rows are S0 bases, columns S1 bases (LASTZ: target, query); letters are case-insensitive.
/// Rows without a letter (BLASTZ files) take the header's letters in order. The A, C, G and T
/// rows and columns are required; rows and columns of other letters (N, IUPAC codes, X, U, *)
/// must be well formed and are ignored: pairs with any code but A, C, G, T score the lowest
/// entry of the 4x4 matrix (see Scoring). Settings lines (LASTZ's "key = value") are refused:
/// gap costs come from --gap-open and --gap-extend.
/// Throws Error "PATH, line N: what" (or "PATH: what" for what no line holds).
NucleotideMatrix parse_matrix(const std::string& text, const std::string& path);

/// Reads and parses the matrix file at `path`; throws Error naming it and the line.
NucleotideMatrix read_matrix_file(const std::string& path);

}  // namespace chromalign
