//! @file Seeded generators of random DNA and mutated copies, for tests and the benchmark.
#pragma once

#include <cstdint>
#include <random>
#include <string>

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

}  // namespace chromalign::gen
