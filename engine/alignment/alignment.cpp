//! @file Alignment: CIGAR text, statistics and rescoring.
#include "engine/alignment/alignment.hpp"

#include "engine/error.hpp"

namespace chromalign {

std::string Alignment::cigar() const {
    if (runs.empty()) return "*";
    std::string text;
    for (const AlignmentRun& r : runs) text += std::to_string(r.length) + r.op;
    return text;
}

AlignmentStats alignment_stats(const Alignment& a) {
    AlignmentStats s;
    for (const AlignmentRun& r : a.runs) {
        s.columns += r.length;
        if (r.op == '=') s.matches += r.length;
        if (r.op == 'X') s.mismatches += r.length;
        if (r.op == 'I' || r.op == 'D') {
            ++s.gap_opens;
            s.gap_bases += r.length;
        }
    }
    return s;
}

int64_t rescore(const Alignment& a, const Sequence& s0, const Sequence& s1, const Scoring& scoring) {
    if (a.runs.empty()) {
        if (a.s0_start || a.s0_end || a.s1_start || a.s1_end) throw Error("an empty alignment has coordinates");
        return 0;
    }
    if (a.s0_start < 1 || a.s1_start < 1 || a.s0_end > s0.length() || a.s1_end > s1.length())
        throw Error("the alignment leaves the sequences");
    int64_t i = a.s0_start, j = a.s1_start, score = 0;  // the next bases of S0 and S1
    for (const AlignmentRun& r : a.runs) {
        if (r.length < 1) throw Error("an alignment run of length " + std::to_string(r.length));
        switch (r.op) {
        case '=':
        case 'X':
            if (i + r.length - 1 > a.s0_end || j + r.length - 1 > a.s1_end) throw Error("a run passes the alignment's end");
            for (int64_t k = 0; k < r.length; ++k, ++i, ++j) {
                const uint8_t x = s0.codes[static_cast<size_t>(i - 1)], y = s1.codes[static_cast<size_t>(j - 1)];
                if ((x < kBaseOther && x == y) != (r.op == '='))
                    throw Error("column " + std::to_string(i) + ", " + std::to_string(j) + " is not a " + r.op);
                score += scoring.score(x, y);
            }
            break;
        case 'I':
            i += r.length;
            score -= scoring.gap_run_cost(r.length);
            break;
        case 'D':
            j += r.length;
            score -= scoring.gap_run_cost(r.length);
            break;
        default:
            throw Error(std::string("an alignment run of unknown kind '") + r.op + "'");
        }
    }
    if (i != a.s0_end + 1 || j != a.s1_end + 1) throw Error("the runs do not end at the alignment's end");
    return score;
}

}  // namespace chromalign
