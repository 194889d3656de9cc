//! @file Choosing what a job writes, and in which order.
#include "tools/job_output.hpp"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace chromalign::cli {

void write_job_alignments(const std::string& path, io::AlignmentFormat format, const JobSpec& spec,
                          const JobResult& result, int32_t min_score, int alignments,
                          const std::string& command_line) {
    // Regions of one record are one reference, and one read: a read has one primary line, and
    // its HI values count its lines over every pair it is in.
    std::vector<io::ReferenceInfo> references;
    std::set<std::string> listed;
    for (const Sequence& s : spec.s1)
        if (listed.insert(s.name).second) references.push_back({s.name, s.record_length()});
    io::AlignmentWriter writer(path, format, references, command_line);
    std::map<std::string, int> lines;  // by S0 record name: lines written (the primary first)
    std::map<size_t, Sequence> reversed;
    const Alignment none;
    for (const PairAnswer& a : result.answers) {  // best first: an S0 record's first is its best
        const RecordPair& p = spec.pairs[a.pair];
        if (a.best.score < min_score) continue;
        int& written = lines[spec.s0[p.s0].name];
        const bool primary = written == 0;
        if (a.best.score == 0 && !primary) continue;  // nothing to say beyond the primary's "unmapped"
        auto compared = [&](Strand strand) -> const Sequence& {
            if (strand == Strand::kForward) return spec.s1[p.s1];
            auto it = reversed.find(p.s1);  // each S1 record's reverse complement made once
            if (it == reversed.end()) it = reversed.emplace(p.s1, reverse_complement(spec.s1[p.s1])).first;
            return it->second;
        };
        const Alignment& alignment = a.alignment ? *a.alignment : none;
        const auto rank = [&] { return alignments > 1 ? written : 0; };  // HI:i, 1 up, once counted
        ++written;
        writer.write(io::AlignedPair{spec.s0[p.s0], compared(a.strand), alignment, command_line, a.strand, !primary, rank()});
        for (const StrandAlignment& other : a.others) {
            ++written;
            writer.write(io::AlignedPair{spec.s0[p.s0], compared(other.strand), other.alignment, command_line,
                                         other.strand, true, rank()});
        }
    }
    writer.close();
}

}  // namespace chromalign::cli
