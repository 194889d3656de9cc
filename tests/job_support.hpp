//! @file What the job tests share (tests/test_job.cpp on the cpu backend, test_genomes_gpu.cpp on
//! cuda): each strand's reference answer, a job run in this process, and records to stack.
#pragma once

#include <random>
#include <vector>

#include "engine/job/job.hpp"

namespace chromalign::test {

/// Each strand's answer from the reference alone, and the pair's by the job's rule.
struct Expected {
    AlignmentEnd forward, reverse;
    Strand strand = Strand::kForward;
    AlignmentEnd best;
};
Expected expected(const Sequence& s0, const Sequence& s1, const Scoring& scoring, const std::vector<Strand>& strands);

/// A job of one record pair, s0 against s1, on `strands`.
JobSpec one_pair(const Sequence& s0, const Sequence& s1, const Scoring& scoring, std::vector<Strand> strands);

/// Runs `spec` on `backend` in this process.
JobResult run_on(Backend& backend, const JobSpec& spec, JobOptions options = {});

/// S0 records of the sizes around a band of `rows` (1, rows - 1, rows, rows + 1, 2 rows + 3)
/// and random ones up to 3 rows: copies of pieces of two S1 records of 9000 bases, on either
/// strand, mutated, unrelated, and the two halves of one piece, which a stack would join into
/// one better alignment if a path crossed from one record into the next; every pair of them.
JobSpec stacked_spec(std::mt19937_64& rng, int64_t rows, const Scoring& scoring);

}  // namespace chromalign::test
