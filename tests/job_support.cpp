//! @file Helpers of the job tests.
#include "tests/job_support.hpp"

#include <algorithm>

#include "kernels/reference/reference.hpp"
#include "tests/test_support.hpp"

namespace chromalign::test {

Expected expected(const Sequence& s0, const Sequence& s1, const Scoring& scoring, const std::vector<Strand>& strands) {
    Expected e;
    e.forward = reference_align(s0, s1, scoring);
    e.reverse = reference_align(s0, reverse_complement(s1), scoring);
    const bool forward = std::count(strands.begin(), strands.end(), Strand::kForward) > 0;
    const bool reverse = std::count(strands.begin(), strands.end(), Strand::kReverse) > 0;
    // The forward strand wins a tie: the reverse one needs a higher score.
    e.strand = reverse && (!forward || e.reverse.score > e.forward.score) ? Strand::kReverse : Strand::kForward;
    e.best = e.strand == Strand::kForward ? e.forward : e.reverse;
    return e;
}

JobSpec one_pair(const Sequence& s0, const Sequence& s1, const Scoring& scoring, std::vector<Strand> strands) {
    JobSpec spec;
    spec.s0 = {s0};
    spec.s1 = {s1};
    spec.pairs = {RecordPair{0, 0}};
    spec.strands = std::move(strands);
    spec.scoring = scoring;
    return spec;
}

JobResult run_on(Backend& backend, const JobSpec& spec, JobOptions options) {
    const Stage1Runner stage1 = [&backend](const Sequence& s0, const Sequence& s1, const Scoring& scoring,
                                           const BackendOptions& run) {
        const AlignmentEnd best = backend.align_run(s0, s1, scoring, run);
        return Stage1Outcome{best, backend.cells_pruned(), backend.cells_resumed(), backend.record_bests()};
    };
    return run_job(spec, options, backend, stage1);
}

JobSpec stacked_spec(std::mt19937_64& rng, int64_t rows, const Scoring& scoring) {
    JobSpec spec;
    spec.scoring = scoring;
    for (int k = 0; k < 2; ++k) {
        Sequence t = random_pair(9000, 10, rng).first;
        t.name = "t" + std::to_string(k);
        spec.s1.push_back(t);
    }
    std::vector<int64_t> sizes = {1, rows - 1, rows, rows + 1, 2 * rows + 3};
    for (int k = 0; k < 8; ++k) sizes.push_back(2 + static_cast<int64_t>(rng() % (3 * rows)));
    const auto piece = [&](const Sequence& t, int64_t length) {
        const int64_t at = static_cast<int64_t>(rng() % static_cast<uint64_t>(t.length() - length));
        Sequence p = t;
        p.codes.assign(t.codes.begin() + at, t.codes.begin() + at + length);
        return p;
    };
    for (size_t k = 0; k < sizes.size(); ++k) {
        const int64_t length = std::min<int64_t>(sizes[k], 4000);
        Sequence r;
        switch (k % 4) {
        case 0: r = piece(spec.s1[k % 2], length); break;  // identical: ties along the piece
        case 1: r = random_pair(length, 1, rng).first; break;  // unrelated
        default:  // a copy of a piece with every 5th (or 7th) base changed, forward or reversed
            r = piece(spec.s1[k % 2], length);
            for (size_t i = 0; i < r.codes.size(); i += k % 4 == 2 ? 5 : 7)
                r.codes[i] = static_cast<uint8_t>((r.codes[i] + 1) % 4);
            if (k % 4 == 3) r = reverse_complement(r);
        }
        r.name = "r" + std::to_string(k);
        spec.s0.push_back(r);
    }
    // Two halves of one piece, one after the other: each scores its half alone.
    const Sequence whole = piece(spec.s1[0], rows + rows / 2);
    for (int h = 0; h < 2; ++h) {
        Sequence half = whole;
        half.codes.assign(whole.codes.begin() + (h ? rows : 0), h ? whole.codes.end() : whole.codes.begin() + rows);
        half.name = "half" + std::to_string(h);
        spec.s0.push_back(half);
    }
    for (size_t a = 0; a < spec.s0.size(); ++a)
        for (size_t b = 0; b < spec.s1.size(); ++b) spec.pairs.push_back({a, b});
    return spec;
}

}  // namespace chromalign::test
