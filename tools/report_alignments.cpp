//! @file The alignments table and coverage of a run with --alignments K.
#include "tools/report_alignments.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

namespace chromalign::cli {
namespace {

/// One alignment as the report gives it: positions on the records' forward strands (on '-',
/// S1's start lies after its end, as in the rest of the report).
struct Row {
    int rank = 0;
    Strand strand = Strand::kForward;
    const Alignment* a = nullptr;
    int64_t s0_start = 0, s0_end = 0, s1_start = 0, s1_end = 0;
};

std::vector<Row> rows_of(const PairReport& p) {
    std::vector<Row> rows;
    auto add = [&](Strand strand, const Alignment& a) {
        rows.push_back({static_cast<int>(rows.size()) + 1, strand, &a, p.s0.in_record(a.s0_start), p.s0.in_record(a.s0_end),
                        p.s1.on_forward(a.s1_start, strand), p.s1.on_forward(a.s1_end, strand)});
    };
    if (p.alignment) add(p.strand, *p.alignment);
    if (p.others)
        for (const StrandAlignment& o : *p.others) add(o.strand, o.alignment);
    return rows;
}

using RecordKey = std::tuple<std::string, std::string, std::string>;  ///< path, name, region
RecordKey key_of(const SequenceInfo& s) { return {s.path, s.name, s.region}; }

/// Bases covered by a union of closed intervals.
int64_t union_length(std::vector<std::pair<int64_t, int64_t>> spans) {
    std::sort(spans.begin(), spans.end());
    int64_t total = 0, end = INT64_MIN;
    for (const auto& [from, to] : spans) {
        if (to <= end) continue;
        total += to - std::max(from, end + 1) + 1;
        end = to;
    }
    return total;
}

}  // namespace

bool lists_alignments(const RunReport& r) {
    return std::any_of(r.pairs.begin(), r.pairs.end(), [](const PairReport& p) { return p.others != nullptr; });
}

Coverage coverage(const RunReport& r) {
    std::map<RecordKey, std::pair<int64_t, std::vector<std::pair<int64_t, int64_t>>>> s0, s1;
    for (const PairReport& p : r.pairs) {
        auto& a = s0[key_of(p.s0)];
        auto& b = s1[key_of(p.s1)];
        a.first = p.s0.length;
        b.first = p.s1.length;
        for (const Row& row : rows_of(p)) {
            a.second.emplace_back(row.s0_start, row.s0_end);
            b.second.emplace_back(std::min(row.s1_start, row.s1_end), std::max(row.s1_start, row.s1_end));
        }
    }
    Coverage c;
    for (auto& [key, record] : s0) {
        c.s0_bases += record.first;
        c.s0_covered += union_length(std::move(record.second));
    }
    for (auto& [key, record] : s1) {
        c.s1_bases += record.first;
        c.s1_covered += union_length(std::move(record.second));
    }
    return c;
}

void alignments_text(std::ostringstream& out, const RunReport& r) {
    const Coverage c = coverage(r);
    int64_t count = 0;
    for (const PairReport& p : r.pairs) count += static_cast<int64_t>(rows_of(p).size());
    out << "\nalignments\t" << count << "\n"
        << "s0_covered\t" << c.s0_covered << " of " << c.s0_bases << " bases (" << fixed(100 * c.s0_share(), 2) << "%)\n"
        << "s1_covered\t" << c.s1_covered << " of " << c.s1_bases << " bases (" << fixed(100 * c.s1_share(), 2) << "%)\n"
        << "\nrank\tstrand\ts0\ts0_start\ts0_end\ts1\ts1_start\ts1_end\tscore\tlength\tidentity\n";
    for (const PairReport& p : r.pairs) {
        for (const Row& row : rows_of(p)) {
            const AlignmentStats s = alignment_stats(*row.a);
            out << row.rank << "\t" << strand_char(row.strand) << "\t" << record_label(p.s0) << "\t" << row.s0_start << "\t"
                << row.s0_end << "\t" << record_label(p.s1) << "\t" << row.s1_start << "\t" << row.s1_end << "\t"
                << row.a->score << "\t" << s.columns << "\t" << fixed(s.identity(), 6) << "\n";
        }
    }
}

nlohmann::ordered_json json_alignments(const PairReport& p) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const Row& row : rows_of(p)) {
        const AlignmentStats s = alignment_stats(*row.a);
        list.push_back({{"rank", row.rank},
                        {"strand", std::string(1, strand_char(row.strand))},
                        {"score", row.a->score},
                        {"s0_start", row.s0_start},
                        {"s0_end", row.s0_end},
                        {"s1_start", row.s1_start},
                        {"s1_end", row.s1_end},
                        {"length", s.columns},
                        {"identity", s.identity()}});
    }
    return list;
}

}  // namespace chromalign::cli
