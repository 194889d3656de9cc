//! @file Reading a job's records and pairing them.
#include "tools/job_input.hpp"

#include <cstdio>
#include <map>

#include "engine/bound/mapped_pairs.hpp"
#include "engine/error.hpp"
#include "io/fasta.hpp"

namespace chromalign::cli {
namespace {

/// The distinct selectors of one side of the pairs, in the order they first appear, and where
/// each pair's lies among them.
std::vector<io::RecordSelector> distinct(const std::vector<io::SelectorPair>& pairs, bool s0,
                                         std::vector<size_t>& index) {
    std::vector<io::RecordSelector> out;
    std::map<std::string, size_t> seen;
    for (const io::SelectorPair& p : pairs) {
        const io::RecordSelector& r = s0 ? p.s0 : p.s1;
        const auto [it, fresh] = seen.emplace(io::selection_key(r), out.size());
        if (fresh) out.push_back(r);
        index.push_back(it->second);
    }
    return out;
}

std::string duration(double seconds) {
    char text[64];
    if (seconds < 120) std::snprintf(text, sizeof text, "%.0f s", seconds);
    else if (seconds < 7200) std::snprintf(text, sizeof text, "%.0f min", seconds / 60);
    else if (seconds < 172800) std::snprintf(text, sizeof text, "%.1f hours", seconds / 3600);
    else std::snprintf(text, sizeof text, "%.0f days", seconds / 86400);
    return text;
}

/// What --pairs mapped takes as a link: an alignment over this many bases of S0; and records
/// shorter than kMappedShortRecord are always compared (minimap2 maps few of them).
constexpr int64_t kMappedPairBases = 500;
constexpr int64_t kMappedShortRecord = 1000;

}  // namespace

JobSpec load_job(const Options& o, std::vector<std::string>* notes) {
    if (notes) notes->insert(notes->end(), o.notes.begin(), o.notes.end());
    JobSpec spec;
    spec.scoring = o.scoring;
    spec.strands = o.strands;
    if (!o.pairs.empty()) {
        std::vector<size_t> i0, i1;
        const auto s0 = distinct(o.pairs, true, i0), s1 = distinct(o.pairs, false, i1);
        spec.s0 = io::read_fasta_records(o.s0_path, s0, notes);
        spec.s1 = io::read_fasta_records(o.s1_path, s1, notes);
        for (size_t k = 0; k < o.pairs.size(); ++k) spec.pairs.push_back(RecordPair{i0[k], i1[k]});
        return spec;
    }
    spec.s0 = io::read_fasta_records(o.s0_path, o.s0_records, notes);
    spec.s1 = io::read_fasta_records(o.s1_path, o.s1_records, notes);
    if (o.pairs_mapped) {
        spec.pairs = mapped_pairs(spec.s0, spec.s1, kMappedPairBases, kMappedShortRecord);
        if (spec.pairs.empty()) throw Error("--pairs mapped: minimap2 links no record of S0 to one of S1");
        if (notes)
            notes->push_back("--pairs mapped: " + std::to_string(spec.pairs.size()) + " of " +
                             std::to_string(spec.s0.size() * spec.s1.size()) +
                             " record pairs are linked by minimap2 or hold a record under " + std::to_string(kMappedShortRecord) +
                             " bases; the others are not compared");
        return spec;
    }
    spec.pairs.reserve(spec.s0.size() * spec.s1.size());
    for (size_t a = 0; a < spec.s0.size(); ++a)
        for (size_t b = 0; b < spec.s1.size(); ++b) spec.pairs.push_back(RecordPair{a, b});
    return spec;
}

std::string job_plan(const JobSpec& spec, double nominal_gcups, int alignments) {
    char cells[64];
    std::snprintf(cells, sizeof cells, "%.3g", static_cast<double>(spec.cells()));
    std::string text = "job: " + std::to_string(spec.pairs.size()) + " record pair" +
                       (spec.pairs.size() == 1 ? "" : "s") + " (" + std::to_string(spec.s0.size()) + " S0 x " +
                       std::to_string(spec.s1.size()) + " S1 records), " +
                       (spec.strands.size() == 2 ? "both strands" : strand_name(spec.strands.front()) + " strand") +
                       ": " + std::to_string(spec.comparisons()) + " comparison" + (spec.comparisons() == 1 ? "" : "s") +
                       ", " + cells + " cells";
    if (alignments > 1)
        return text + "; each comparison's cells once (the ETA's), then its search for " + std::to_string(alignments) +
               " alignments";
    if (nominal_gcups > 0)
        text += "; about " + duration(static_cast<double>(spec.cells()) / (nominal_gcups * 1e9)) + " at " +
                std::to_string(static_cast<int64_t>(nominal_gcups)) +
                " GCUPS (this backend on large pairs; pruning makes related pairs faster, short records are slower)";
    return text;
}

}  // namespace chromalign::cli
