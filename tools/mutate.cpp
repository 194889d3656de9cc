//! @file Seeded generators of random DNA and mutated copies, for tests and the benchmark.
#include "tools/mutate.hpp"

#include <algorithm>

#include "engine/error.hpp"

namespace chromalign::gen {
namespace {

constexpr char kBases[] = "ACGT";

// The draws below map raw engine output by hand instead of using std::*_distribution, whose
// algorithms differ between standard libraries: a seed must give the same data everywhere.

/// True with probability p (53 random bits compared against p).
bool chance(double p, std::mt19937_64& rng) {
    return static_cast<double>(rng() >> 11) * 0x1.0p-53 < p;
}

/// Uniform in [0, n); the modulo bias is below 2^-58 for the small n used here.
uint64_t below(uint64_t n, std::mt19937_64& rng) { return rng() % n; }

char random_base(std::mt19937_64& rng) { return kBases[below(4, rng)]; }

/// Index of an A/C/G/T letter in kBases, or -1 for any other code.
int base_index(char c) {
    switch (c) {
    case 'A': case 'a': return 0;
    case 'C': case 'c': return 1;
    case 'G': case 'g': return 2;
    case 'T': case 't': return 3;
    default: return -1;
    }
}

/// A base that differs from c: one of the other three, or any of the four when c is not ACGT.
char different_base(char c, std::mt19937_64& rng) {
    const int index = base_index(c);
    if (index < 0) return random_base(rng);
    return kBases[(index + 1 + below(3, rng)) % 4];
}

void check_rate(double rate, const char* what) {
    if (!(rate >= 0.0 && rate <= 1.0))  // also rejects NaN
        throw Error(std::string(what) + " must lie in [0, 1] (got " + std::to_string(rate) + ")");
}

}  // namespace

std::string random_dna(int64_t length, std::mt19937_64& rng, double other_rate) {
    if (length < 0) throw Error("random_dna: negative length " + std::to_string(length));
    check_rate(other_rate, "random_dna: other_rate");
    std::string out(static_cast<size_t>(length), 'N');
    for (char& c : out) {
        // Skip the extra draw when there is no N content, halving the cost of plain DNA.
        const bool other = other_rate > 0.0 && chance(other_rate, rng);
        if (!other) c = random_base(rng);
    }
    return out;
}

std::string mutate(const std::string& source, const MutationSpec& spec, std::mt19937_64& rng) {
    check_rate(spec.substitution, "mutate: substitution rate");
    check_rate(spec.indel, "mutate: indel rate");
    if (spec.max_indel < 1)
        throw Error("mutate: max_indel must be at least 1 (got " + std::to_string(spec.max_indel) +
                    ")");
    const size_t n = source.size();
    std::string out;
    // Expected growth is indel/2 * (max_indel+1)/2 per base; reserve that plus slack once.
    out.reserve(n + static_cast<size_t>(static_cast<double>(n) * spec.indel * spec.max_indel) +
                static_cast<size_t>(spec.max_indel));
    size_t i = 0;
    while (i < n) {
        if (chance(spec.indel, rng)) {
            const size_t len = 1 + below(static_cast<uint64_t>(spec.max_indel), rng);
            if (below(2, rng) == 0) {
                for (size_t k = 0; k < len; ++k) out.push_back(random_base(rng));
            } else {
                i = std::min(n, i + len);  // delete source[i, i+len)
                continue;
            }
        }
        const char c = source[i++];
        out.push_back(chance(spec.substitution, rng) ? different_base(c, rng) : c);
    }
    return out;
}

namespace {

/// Inserts random bases or deletes a stretch, each starting at a base with chance `rate`.
std::string long_indels(const std::string& source, double rate, int64_t max_len, std::mt19937_64& rng) {
    std::string out;
    out.reserve(source.size());
    for (size_t i = 0; i < source.size();) {
        if (chance(rate, rng)) {
            const size_t len = 1 + below(static_cast<uint64_t>(max_len), rng);
            if (below(2, rng) == 0) {
                for (size_t k = 0; k < len; ++k) out.push_back(random_base(rng));
            } else {
                i += len;
                continue;
            }
        }
        out.push_back(source[i++]);
    }
    return out;
}

char complement(char c) {
    const int index = base_index(c);
    return index < 0 ? c : kBases[3 - index];
}

/// Moves a segment elsewhere, or reverse-complements it where it is.
void rearrange(std::string& s, std::mt19937_64& rng) {
    const size_t n = s.size();
    if (n < 100) return;
    const size_t len = n / 100 + below(n / 50, rng);  // 1% to 3% of the length
    const size_t from = below(n - len, rng);
    std::string segment = s.substr(from, len);
    if (below(2, rng) == 0) {
        std::reverse(segment.begin(), segment.end());
        for (char& c : segment) c = complement(c);
        s.replace(from, len, segment);
    } else {
        s.erase(from, len);
        s.insert(below(s.size() + 1, rng), segment);
    }
}

}  // namespace

std::pair<std::string, std::string> related_pair(int64_t length, const RelatedSpec& spec, std::mt19937_64& rng) {
    if (length < 0) throw Error("related_pair: negative length " + std::to_string(length));
    check_rate(spec.long_indel, "related_pair: long indel rate");
    if (spec.max_long < 1) throw Error("related_pair: max_long must be at least 1");
    const std::string ancestor = random_dna(length, rng);
    std::string a = long_indels(mutate(ancestor, spec.point, rng), spec.long_indel, spec.max_long, rng);
    std::string b = long_indels(mutate(ancestor, spec.point, rng), spec.long_indel, spec.max_long, rng);
    for (int k = 0; k < spec.rearrangements; ++k) rearrange(b, rng);
    a.resize(static_cast<size_t>(length), 'A');
    b.resize(static_cast<size_t>(length), 'A');
    return {a, b};
}

}  // namespace chromalign::gen
