//! @file Choosing what a job writes, and in which order.
#include "tools/job_output.hpp"

#include <map>
#include <vector>

namespace chromalign::cli {

void write_job_alignments(const std::string& path, io::AlignmentFormat format, const JobSpec& spec,
                          const JobResult& result, int32_t min_score, const std::string& command_line) {
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
        const Sequence* s1 = &spec.s1[p.s1];
        if (a.strand == Strand::kReverse) {  // each S1 record's reverse complement made once
            auto it = reversed.find(p.s1);
            if (it == reversed.end()) it = reversed.emplace(p.s1, reverse_complement(*s1)).first;
            s1 = &it->second;
        }
        const Alignment& alignment = a.alignment ? *a.alignment : none;
        writer.write(io::AlignedPair{spec.s0[p.s0], *s1, alignment, command_line, a.strand, !primary});
    }
    writer.close();
}

}  // namespace chromalign::cli
