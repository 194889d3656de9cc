//! @file Seeded generators of random DNA and mutated copies, for tests and the benchmark.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <utility>

namespace chromalign::gen {

/// How a copy differs from its source. Rates are per source base.
struct MutationSpec {
    double substitution = 0.05;  ///< chance a base is replaced by a different base
    double indel = 0.005;        ///< chance an insertion or a deletion starts at a base
    int max_indel = 8;           ///< indel lengths are uniform in [1, max_indel]
};

/// Uniform random A/C/G/T string; `other_rate` of the positions become 'N'.
std::string random_dna(int64_t length, std::mt19937_64& rng, double other_rate = 0.0);

/// A copy of `source` with substitutions and short indels drawn from `spec`.
std::string mutate(const std::string& source, const MutationSpec& spec, std::mt19937_64& rng);

/// How two related chromosomes differ from their common ancestor.
struct RelatedSpec {
    MutationSpec point{0.02, 0.002, 8};  ///< substitutions and short indels, in each descendant
    double long_indel = 2e-6;            ///< chance a long insertion or deletion starts at a base
    int64_t max_long = 20000;            ///< long indel lengths are uniform in [1, max_long]
    int rearrangements = 4;              ///< segments of the second descendant moved or inverted
};

/// Two descendants of one random ancestor of `length` bases, each cut or padded to `length`:
/// point mutations and long indels in both, and in the second a few segments (1% to 3% of the
/// length) moved elsewhere or reverse-complemented in place, as whole-genome pairs have.
std::pair<std::string, std::string> related_pair(int64_t length, const RelatedSpec& spec, std::mt19937_64& rng);

}  // namespace chromalign::gen
