//! @file A job's alignments in one SAM/BAM/CRAM, PAF, MAF or view file.
#pragma once

#include <string>

#include "engine/job/job.hpp"
#include "io/alignment_formats.hpp"

namespace chromalign::cli {

/// Writes the alignment of every pair scoring at least `min_score`, best first, with every S1
/// record of the job in the SAM header. Per S0 record its best pair's alignment is primary and
/// the others are secondary (SAM allows one primary line per query); an S0 record whose best
/// pair scores 0 gets one unmapped SAM record (with min_score 0). With `alignments` > 1
/// (--alignments), each pair's others follow it, secondary, and every alignment carries its
/// rank in the pair (io::AlignedPair::rank). Throws Error naming the file.
void write_job_alignments(const std::string& path, io::AlignmentFormat format, const JobSpec& spec,
                          const JobResult& result, int32_t min_score, int alignments, const std::string& command_line);

}  // namespace chromalign::cli
