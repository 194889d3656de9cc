//! @file Choosing what a job writes, and in which order.
#include "tools/job_output.hpp"

#include <memory>
#include <vector>

namespace chromalign::cli {

void write_job_alignments(const std::string& path, io::AlignmentFormat format, const JobSpec& spec,
                          const JobResult& result, int32_t min_score, const std::string& command_line) {
    std::vector<io::ReferenceInfo> references;
    for (const Sequence& s : spec.s1) references.push_back({s.name, s.record_length()});
    io::AlignmentWriter writer(path, format, references, command_line);
    std::vector<bool> has_primary(spec.s0.size(), false);
    const Alignment none;
    for (const PairAnswer& a : result.answers) {  // best first: an S0 record's first is its best
        const RecordPair& p = spec.pairs[a.pair];
        if (a.best.score < min_score) continue;
        const bool primary = !has_primary[p.s0];
        has_primary[p.s0] = true;
        if (a.best.score == 0 && !primary) continue;  // nothing to say beyond the primary's "unmapped"
        const Sequence& forward = spec.s1[p.s1];
        std::unique_ptr<Sequence> reverse;
        if (a.strand == Strand::kReverse) reverse = std::make_unique<Sequence>(reverse_complement(forward));
        const Alignment& alignment = a.alignment ? *a.alignment : none;
        writer.write(io::AlignedPair{spec.s0[p.s0], reverse ? *reverse : forward, alignment, command_line, a.strand,
                                     !primary});
    }
    writer.close();
}

}  // namespace chromalign::cli
