//! @file Choosing what a job writes, and in which order.
#include "tools/job_output.hpp"

#include <map>
#include <vector>

namespace chromalign::cli {

void write_job_alignments(const std::string& path, io::AlignmentFormat format, const JobSpec& spec,
                          const JobResult& result, int32_t min_score, int alignments,
                          const std::string& command_line) {
    std::vector<io::ReferenceInfo> references;
    for (const Sequence& s : spec.s1) references.push_back({s.name, s.record_length()});
    io::AlignmentWriter writer(path, format, references, command_line);
    std::vector<bool> has_primary(spec.s0.size(), false);
    std::map<size_t, Sequence> reversed;
    const Alignment none;
    for (const PairAnswer& a : result.answers) {  // best first: an S0 record's first is its best
        const RecordPair& p = spec.pairs[a.pair];
        if (a.best.score < min_score) continue;
        const bool primary = !has_primary[p.s0];
        has_primary[p.s0] = true;
        if (a.best.score == 0 && !primary) continue;  // nothing to say beyond the primary's "unmapped"
        auto compared = [&](Strand strand) -> const Sequence& {
            if (strand == Strand::kForward) return spec.s1[p.s1];
            auto it = reversed.find(p.s1);  // each S1 record's reverse complement made once
            if (it == reversed.end()) it = reversed.emplace(p.s1, reverse_complement(spec.s1[p.s1])).first;
            return it->second;
        };
        const Alignment& alignment = a.alignment ? *a.alignment : none;
        const int ranked = alignments > 1 ? 1 : 0;
        writer.write(io::AlignedPair{spec.s0[p.s0], compared(a.strand), alignment, command_line, a.strand, !primary, ranked});
        for (size_t k = 0; k < a.others.size(); ++k) {
            const StrandAlignment& other = a.others[k];
            writer.write(io::AlignedPair{spec.s0[p.s0], compared(other.strand), other.alignment, command_line,
                                         other.strand, true, static_cast<int>(k) + 2});
        }
    }
    writer.close();
}

}  // namespace chromalign::cli
