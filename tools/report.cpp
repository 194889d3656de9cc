//! @file Text, TSV and JSON renderings of a RunReport.
#include "tools/report.hpp"

#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>

namespace chromalign::cli {
namespace {

std::string fixed(double value, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, value);
    return buf;
}

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

std::string text_report(const RunReport& r) {
    std::ostringstream out;
    out << "score\t" << r.result.score << "\n"
        << "s0_end\t" << r.s0.in_record(r.result.s0_end) << "\n"
        << "s1_end\t" << r.s1.in_record(r.result.s1_end) << "\n"
        << "s0\t" << sequence_line(r.s0) << "\n"
        << "s1\t" << sequence_line(r.s1) << "\n"
        << "scoring\t" << r.scoring.to_string() << "\n"
        << (r.matrix_file.empty() ? "" : "matrix_file\t" + r.matrix_file + "\n")
        << "cells\t" << r.cells() << "\n"
        << "cells_this_run\t" << r.cells_this_run() << "\n"
        << "seconds\t" << fixed(r.seconds, 3) << "\n"
        << "gcups\t" << fixed(r.gcups(), 2) << "\n"
        << "pruned\t" << fixed(r.pruned_fraction(), 4) << " (" << r.cells_pruned << " cells)\n"
        << "backend\t" << r.backend << "\n"
        << "device\t" << r.device << "\n";
    if (r.alignment) {
        const AlignmentStats s = alignment_stats(*r.alignment);
        out << "s0_start\t" << r.s0.in_record(r.alignment->s0_start) << "\n"
            << "s1_start\t" << r.s1.in_record(r.alignment->s1_start) << "\n"
            << "alignment_length\t" << s.columns << "\n"
            << "matches\t" << s.matches << "\n"
            << "mismatches\t" << s.mismatches << "\n"
            << "gap_opens\t" << s.gap_opens << "\n"
            << "gap_bases\t" << s.gap_bases << "\n"
            << "identity\t" << fixed(s.identity(), 6) << "\n"
            << "traceback_seconds\t" << fixed(r.traceback_seconds, 3) << " (from " << r.special_rows
            << " special rows; " << r.traceback_cells << " cells recomputed, " << r.traceback_swept_cells
            << " of them in sweeps taking " << fixed(r.traceback_sweep_seconds, 3) << " s and "
            << r.traceback_windows_ahead << " windows swept ahead, " << r.traceback_walked_ahead
            << " of them walked ahead and " << r.traceback_joined << " joined)\n";
    }
    return out.str();
}

std::string tsv_report(const RunReport& r) {
    std::ostringstream out;
    // A matrix replaces the match and mismatch columns by its 16 scores (rows A, C, G, T) and other.
    const bool matrix = shows_matrix(r);
    out << "score\ts0_end\ts1_end\ts0_name\ts1_name\ts0_length\ts1_length\tcells\tseconds\tgcups\t"
           "backend\tdevice\t"
        << (matrix ? "matrix\tother" : "match\tmismatch") << "\tgap_open\tgap_extend\n"
        << r.result.score << "\t" << r.s0.in_record(r.result.s0_end) << "\t" << r.s1.in_record(r.result.s1_end)
        << "\t" << r.s0.name
        << "\t" << r.s1.name << "\t" << r.s0.length << "\t" << r.s1.length << "\t" << r.cells()
        << "\t" << fixed(r.seconds, 3) << "\t" << fixed(r.gcups(), 3) << "\t" << r.backend << "\t"
        << r.device << "\t"
        << (matrix ? matrix_rows(r.scoring, "", ",", "", ",") + "\t" + std::to_string(r.scoring.other)
                   : std::to_string(r.scoring.match()) + "\t" + std::to_string(r.scoring.mismatch()))
        << "\t" << r.scoring.gap_open << "\t" << r.scoring.gap_extend << "\n";
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

std::string json_report(const RunReport& r) {
    nlohmann::ordered_json j;
    j["score"] = r.result.score;
    j["s0_end"] = r.s0.in_record(r.result.s0_end);
    j["s1_end"] = r.s1.in_record(r.result.s1_end);
    j["s0_name"] = r.s0.name;
    j["s1_name"] = r.s1.name;
    if (!r.s0.region.empty()) j["s0_region"] = r.s0.region;
    if (!r.s1.region.empty()) j["s1_region"] = r.s1.region;
    j["s0_path"] = r.s0.path;
    j["s1_path"] = r.s1.path;
    j["s0_length"] = r.s0.length;
    j["s1_length"] = r.s1.length;
    j["cells"] = r.cells();
    j["cells_this_run"] = r.cells_this_run();
    j["seconds"] = r.seconds;
    j["gcups"] = r.gcups();
    j["cells_pruned"] = r.cells_pruned;
    j["pruned_fraction"] = r.pruned_fraction();
    j["backend"] = r.backend;
    j["device"] = r.device;
    j["device_bytes"] = r.device_bytes;
    j["layout"] = r.layout;
    j["scoring"] = json_scoring(r);
    if (r.alignment) {
        const AlignmentStats s = alignment_stats(*r.alignment);
        j["alignment"] = {{"s0_start", r.s0.in_record(r.alignment->s0_start)},
                          {"s1_start", r.s1.in_record(r.alignment->s1_start)},
                          {"length", s.columns},   {"matches", s.matches},
                          {"mismatches", s.mismatches}, {"gap_opens", s.gap_opens},
                          {"gap_bases", s.gap_bases},   {"identity", s.identity()},
                          {"traceback_seconds", r.traceback_seconds}, {"special_rows", r.special_rows},
                          {"traceback_cells", r.traceback_cells}, {"traceback_swept_cells", r.traceback_swept_cells},
                          {"traceback_sweep_seconds", r.traceback_sweep_seconds},
                          {"traceback_windows_ahead", r.traceback_windows_ahead},
                          {"traceback_walked_ahead", r.traceback_walked_ahead},
                          {"traceback_joined", r.traceback_joined}};
    }
    // Names and paths are bytes, not always UTF-8: invalid sequences become U+FFFD.
    return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace

std::string format_report(const RunReport& report, Format format) {
    switch (format) {
    case Format::kTsv: return tsv_report(report);
    case Format::kJson: return json_report(report);
    case Format::kText: break;
    }
    return text_report(report);
}

}  // namespace chromalign::cli
