//! @file Text, TSV and JSON renderings of a RunReport.
#include "tools/report.hpp"

#include "tools/report_alignments.hpp"

#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>

namespace chromalign::cli {

std::string fixed(double value, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, value);
    return buf;
}

std::string record_label(const SequenceInfo& s) { return s.region.empty() ? s.name : s.name + ":" + s.region; }

namespace {

/// Whether the scoring is shown as a matrix: a --matrix file, or scores that are not match/mismatch.
bool shows_matrix(const RunReport& r) { return !r.matrix_file.empty() || !r.scoring.is_match_mismatch(); }

/// The matrix's rows A, C, G, T, each its four scores, joined as `open row sep row close`.
std::string matrix_rows(const Scoring& s, const char* open, const char* sep, const char* close, const char* row_sep) {
    std::string text;
    for (int a = 0; a < 4; ++a) {
        text += (a ? row_sep : "") + std::string(open);
        for (int b = 0; b < 4; ++b) text += (b ? sep : "") + std::to_string(s.matrix[a][b]);
        text += close;
    }
    return text;
}

/// "a (8 bp, a.fa)", or with a region "a:3-10 (8 bp of 12, a.fa)".
std::string sequence_line(const SequenceInfo& s) {
    if (s.region.empty()) return s.name + " (" + std::to_string(s.length) + " bp, " + s.path + ")";
    return s.name + ":" + s.region + " (" + std::to_string(s.length) + " bp of " + std::to_string(s.record_length) +
           ", " + s.path + ")";
}


std::string strands_text(const std::vector<Strand>& strands) {
    if (strands.size() == 2) return "both";
    return strands.empty() ? "" : strand_name(strands.front());
}

/// Where a pair's best alignment ends and, traced back, starts, in the report's convention.
struct Positions {
    int64_t s0_end = 0, s1_end = 0, s0_start = 0, s1_start = 0;
};

Positions positions(const PairReport& p) {
    Positions at{p.s0.in_record(p.result.s0_end), p.s1.on_forward(p.result.s1_end, p.strand), 0, 0};
    if (p.alignment) {
        at.s0_start = p.s0.in_record(p.alignment->s0_start);
        at.s1_start = p.s1.on_forward(p.alignment->s1_start, p.strand);
    }
    return at;
}

/// The job's own lines: cells, time, rate, pruning, backend, device.
void job_lines(std::ostringstream& out, const RunReport& r) {
    out << "cells\t" << r.cells() << "\n"
        << "cells_this_run\t" << r.cells_this_run() << "\n"
        << "seconds\t" << fixed(r.seconds, 3) << "\n"
        << "gcups\t" << fixed(r.gcups(), 2) << "\n"
        << "pruned\t" << fixed(r.pruned_fraction(), 4) << " (" << r.cells_pruned() << " cells)\n"
        << "backend\t" << r.backend << "\n"
        << "device\t" << r.device << "\n";
}

std::string one_pair_text(const RunReport& r) {
    const PairReport& p = r.pairs.front();
    const Positions at = positions(p);
    std::ostringstream out;
    out << "score\t" << p.result.score << "\n"
        << "s0_end\t" << at.s0_end << "\n"
        << "s1_end\t" << at.s1_end << "\n"
        << "strand\t" << strand_char(p.strand) << "\n"
        << "s0\t" << sequence_line(p.s0) << "\n"
        << "s1\t" << sequence_line(p.s1) << "\n"
        << "strands\t" << strands_text(r.strands) << "\n"
        << "scoring\t" << r.scoring.to_string() << "\n"
        << (r.matrix_file.empty() ? "" : "matrix_file\t" + r.matrix_file + "\n");
    job_lines(out, r);
    if (p.alignment) {
        const AlignmentStats s = alignment_stats(*p.alignment);
        out << "s0_start\t" << at.s0_start << "\n"
            << "s1_start\t" << at.s1_start << "\n"
            << "alignment_length\t" << s.columns << "\n"
            << "matches\t" << s.matches << "\n"
            << "mismatches\t" << s.mismatches << "\n"
            << "gap_opens\t" << s.gap_opens << "\n"
            << "gap_bases\t" << s.gap_bases << "\n"
            << "identity\t" << fixed(s.identity(), 6) << "\n"
            << "traceback_seconds\t" << fixed(p.traceback_seconds, 3) << " (from " << p.special_rows
            << " special rows; " << p.traceback.cells << " cells recomputed, " << p.traceback.swept_cells
            << " of them in sweeps taking " << fixed(p.traceback.sweep_seconds, 3) << " s and "
            << p.traceback.ahead << " windows swept ahead, " << p.traceback.walked_ahead
            << " of them walked ahead and " << p.traceback.joined << " joined)\n";
    }
    if (lists_alignments(r)) alignments_text(out, r);
    return out.str();
}

/// Whether any pair was traced: then the tables gain the alignment's columns.
bool any_traced(const RunReport& r) {
    for (const PairReport& p : r.pairs)
        if (p.alignment) return true;
    return false;
}

/// A table row's alignment columns (start cells, length, identity; "-" for a pair not traced).
void alignment_columns(std::ostringstream& out, const PairReport& p, const Positions& at) {
    if (!p.alignment) {
        out << "\t-\t-\t-\t-";
        return;
    }
    const AlignmentStats s = alignment_stats(*p.alignment);
    out << "\t" << at.s0_start << "\t" << at.s1_start << "\t" << s.columns << "\t" << fixed(s.identity(), 6);
}

/// Several pairs: the job's lines, then a table of the pairs, best first.
std::string pairs_text(const RunReport& r) {
    std::ostringstream out;
    out << "pairs\t" << r.pairs.size() << " (of " << r.s0_records << " S0 and " << r.s1_records << " S1 records)\n"
        << "strands\t" << strands_text(r.strands) << "\n"
        << "scoring\t" << r.scoring.to_string() << "\n"
        << (r.matrix_file.empty() ? "" : "matrix_file\t" + r.matrix_file + "\n");
    job_lines(out, r);
    const bool traced = any_traced(r);
    out << "\nrank\tscore\tstrand\ts0\ts0_end\ts1\ts1_end"
        << (traced ? "\ts0_start\ts1_start\tlength\tidentity" : "") << "\n";
    for (size_t k = 0; k < r.pairs.size(); ++k) {
        const PairReport& p = r.pairs[k];
        const Positions at = positions(p);
        out << k + 1 << "\t" << p.result.score << "\t" << strand_char(p.strand) << "\t" << record_label(p.s0) << "\t"
            << at.s0_end << "\t" << record_label(p.s1) << "\t" << at.s1_end;
        if (traced) alignment_columns(out, p, at);
        out << "\n";
    }
    if (lists_alignments(r)) alignments_text(out, r);
    return out.str();
}

std::string tsv_report(const RunReport& r) {
    std::ostringstream out;
    // A matrix replaces the match and mismatch columns by its 16 scores (rows A, C, G, T) and other.
    const bool matrix = shows_matrix(r);
    // Then each record's region ("-": the whole record; lengths are the region's, positions the
    // record's), and with a traceback the alignment's start, length and identity, as text gives.
    const bool traced = any_traced(r);
    out << "score\ts0_end\ts1_end\ts0_name\ts1_name\ts0_length\ts1_length\tcells\tseconds\tgcups\t"
           "backend\tdevice\t"
        << (matrix ? "matrix\tother" : "match\tmismatch") << "\tgap_open\tgap_extend\tstrand\ts0_region\ts1_region"
        << (traced ? "\ts0_start\ts1_start\tlength\tidentity" : "") << "\n";
    const auto region = [](const SequenceInfo& s) { return s.region.empty() ? std::string("-") : s.region; };
    const std::string scoring =
        (matrix ? matrix_rows(r.scoring, "", ",", "", ",") + "\t" + std::to_string(r.scoring.other)
                : std::to_string(r.scoring.match()) + "\t" + std::to_string(r.scoring.mismatch())) +
        "\t" + std::to_string(r.scoring.gap_open) + "\t" + std::to_string(r.scoring.gap_extend);
    for (const PairReport& p : r.pairs) {
        const Positions at = positions(p);
        out << p.result.score << "\t" << at.s0_end << "\t" << at.s1_end << "\t" << p.s0.name << "\t" << p.s1.name << "\t"
            << p.s0.length << "\t" << p.s1.length << "\t" << p.cells << "\t" << fixed(p.seconds, 3) << "\t"
            << fixed(p.gcups(), 3) << "\t" << r.backend << "\t" << r.device << "\t" << scoring << "\t"
            << strand_char(p.strand) << "\t" << region(p.s0) << "\t" << region(p.s1);
        if (traced) alignment_columns(out, p, at);
        out << "\n";
    }
    return out.str();
}

/// The scoring object: match and mismatch, or the matrix (rows A, C, G, T), other and, when it
/// came from one, the file; then the gap costs.
nlohmann::ordered_json json_scoring(const RunReport& r) {
    nlohmann::ordered_json s;
    if (!shows_matrix(r)) {
        s["match"] = r.scoring.match();
        s["mismatch"] = r.scoring.mismatch();
    } else {
        if (!r.matrix_file.empty()) s["matrix_file"] = r.matrix_file;
        s["matrix"] = r.scoring.matrix;
        s["other"] = r.scoring.other;
    }
    s["gap_open"] = r.scoring.gap_open;
    s["gap_extend"] = r.scoring.gap_extend;
    return s;
}

/// A pair's fields: its answer, its records, its cells and time, and its alignment.
void json_pair(nlohmann::ordered_json& j, const PairReport& p) {
    const Positions at = positions(p);
    j["score"] = p.result.score;
    j["s0_end"] = at.s0_end;
    j["s1_end"] = at.s1_end;
    j["strand"] = std::string(1, strand_char(p.strand));
    j["s0_name"] = p.s0.name;
    j["s1_name"] = p.s1.name;
    if (!p.s0.region.empty()) j["s0_region"] = p.s0.region;
    if (!p.s1.region.empty()) j["s1_region"] = p.s1.region;
    j["s0_path"] = p.s0.path;
    j["s1_path"] = p.s1.path;
    j["s0_length"] = p.s0.length;
    j["s1_length"] = p.s1.length;
    if (!p.bound.source.empty()) {
        j["bound"] = p.bound.score;
        j["bound_source"] = p.bound.source;
        j["bound_seconds"] = p.bound.seconds;
        j["bound_in_time"] = p.bound.in_time;
        j["bound_blocks"] = p.bound.blocks;
        j["bound_path_columns"] = p.bound.path_columns;
        if (!p.bound.failure.empty()) j["bound_failure"] = p.bound.failure;
        if (p.bound.table_k > 0) {  // the gain table built beside the pass (gain_table.hpp)
            j["gain_table_k"] = p.bound.table_k;
            j["gain_table_seconds"] = p.bound.table_seconds;
            j["gain_table_per_column"] = p.bound.table_gain;
            j["gain_table_band_diagonals"] = p.bound.table_band;
        }
    }
    if (!p.alignment) return;
    const AlignmentStats s = alignment_stats(*p.alignment);
    j["alignment"] = {{"s0_start", at.s0_start},
                      {"s1_start", at.s1_start},
                      {"length", s.columns},
                      {"matches", s.matches},
                      {"mismatches", s.mismatches},
                      {"gap_opens", s.gap_opens},
                      {"gap_bases", s.gap_bases},
                      {"identity", s.identity()},
                      {"traceback_seconds", p.traceback_seconds},
                      {"special_rows", p.special_rows},
                      {"traceback_cells", p.traceback.cells},
                      {"traceback_swept_cells", p.traceback.swept_cells},
                      {"traceback_sweep_seconds", p.traceback.sweep_seconds},
                      {"traceback_windows_ahead", p.traceback.ahead},
                      {"traceback_walked_ahead", p.traceback.walked_ahead},
                      {"traceback_joined", p.traceback.joined}};
    if (p.others) {
        j["alignments"] = json_alignments(p);
        j["declump_seconds"] = p.declump_seconds;
        j["declump_first_cells"] = p.declump.first_cells;
        j["declump_recomputed_cells"] = p.declump.recomputed_cells;
        j["declump_first_seconds"] = p.declump.first_seconds;
        j["declump_walk_seconds"] = p.declump.walk_seconds;
        j["declump_recompute_seconds"] = p.declump.recompute_seconds;
    }
}

std::string json_report(const RunReport& r) {
    nlohmann::ordered_json j;
    if (!r.pairs.empty()) json_pair(j, r.pairs.front());  // the best pair, at the top as for one pair
    j["cells"] = r.cells();
    j["cells_this_run"] = r.cells_this_run();
    j["seconds"] = r.seconds;
    j["gcups"] = r.gcups();
    j["cells_pruned"] = r.cells_pruned();
    j["pruned_fraction"] = r.pruned_fraction();
    j["backend"] = r.backend;
    j["device"] = r.device;
    j["device_bytes"] = r.device_bytes;
    j["layout"] = r.layout;
    j["scoring"] = json_scoring(r);
    j["strands"] = strands_text(r.strands);
    if (lists_alignments(r)) {
        const Coverage c = coverage(r);
        j["s0_covered"] = c.s0_covered;
        j["s0_covered_share"] = c.s0_share();
        j["s1_covered"] = c.s1_covered;
        j["s1_covered_share"] = c.s1_share();
    }
    j["pairs"] = nlohmann::ordered_json::array();
    for (const PairReport& p : r.pairs) {
        nlohmann::ordered_json pair;
        json_pair(pair, p);
        pair["cells"] = p.cells;
        pair["cells_pruned"] = p.cells_pruned;
        pair["seconds"] = p.seconds;
        pair["gcups"] = p.gcups();
        j["pairs"].push_back(std::move(pair));
    }
    // Names and paths are bytes, not always UTF-8: invalid sequences become U+FFFD.
    return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace

int64_t RunReport::cells() const {
    int64_t total = 0;
    for (const PairReport& p : pairs) total += p.cells;
    return total;
}

int64_t RunReport::cells_pruned() const {
    int64_t total = 0;
    for (const PairReport& p : pairs) total += p.cells_pruned;
    return total;
}

int64_t RunReport::cells_this_run() const {
    int64_t total = 0;
    for (const PairReport& p : pairs) total += p.cells_this_run();
    return total;
}

double RunReport::pruned_fraction() const {
    return cells() > 0 ? static_cast<double>(cells_pruned()) / static_cast<double>(cells()) : 0;
}

std::string format_report(const RunReport& report, Format format) {
    switch (format) {
    case Format::kTsv: return tsv_report(report);
    case Format::kJson: return json_report(report);
    case Format::kText: break;
    }
    return report.pairs.size() == 1 ? one_pair_text(report) : pairs_text(report);
}

}  // namespace chromalign::cli
