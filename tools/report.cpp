//! @file Text, TSV and JSON renderings of a RunReport.
#include "tools/report.hpp"

#include <cstdio>
#include <sstream>

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

std::string text_report(const RunReport& r) {
    std::ostringstream out;
    out << "score\t" << r.result.score << "\n"
        << "s0_end\t" << r.result.s0_end << "\n"
        << "s1_end\t" << r.result.s1_end << "\n"
        << "s0\t" << r.s0.name << " (" << r.s0.length << " bp, " << r.s0.path << ")\n"
        << "s1\t" << r.s1.name << " (" << r.s1.length << " bp, " << r.s1.path << ")\n"
        << "scoring\t" << r.scoring.to_string() << "\n"
        << (r.matrix_file.empty() ? "" : "matrix_file\t" + r.matrix_file + "\n")
        << "cells\t" << r.cells() << "\n"
        << "seconds\t" << fixed(r.seconds, 3) << "\n"
        << "gcups\t" << fixed(r.gcups(), 2) << "\n"
        << "pruned\t" << fixed(r.pruned_fraction(), 4) << " (" << r.cells_pruned << " cells)\n"
        << "backend\t" << r.backend << "\n"
        << "device\t" << r.device << "\n";
    if (r.alignment) {
        const AlignmentStats s = alignment_stats(*r.alignment);
        out << "s0_start\t" << r.alignment->s0_start << "\n"
            << "s1_start\t" << r.alignment->s1_start << "\n"
            << "alignment_length\t" << s.columns << "\n"
            << "matches\t" << s.matches << "\n"
            << "mismatches\t" << s.mismatches << "\n"
            << "gap_opens\t" << s.gap_opens << "\n"
            << "gap_bases\t" << s.gap_bases << "\n"
            << "identity\t" << fixed(s.identity(), 6) << "\n";
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
        << r.result.score << "\t" << r.result.s0_end << "\t" << r.result.s1_end << "\t" << r.s0.name
        << "\t" << r.s1.name << "\t" << r.s0.length << "\t" << r.s1.length << "\t" << r.cells()
        << "\t" << fixed(r.seconds, 3) << "\t" << fixed(r.gcups(), 3) << "\t" << r.backend << "\t"
        << r.device << "\t"
        << (matrix ? matrix_rows(r.scoring, "", ",", "", ",") + "\t" + std::to_string(r.scoring.other)
                   : std::to_string(r.scoring.match()) + "\t" + std::to_string(r.scoring.mismatch()))
        << "\t" << r.scoring.gap_open << "\t" << r.scoring.gap_extend << "\n";
    return out.str();
}

/// The scoring object's substitution keys: match and mismatch, or the matrix (rows A, C, G, T),
/// other and, when it came from one, the file.
std::string json_substitution(const RunReport& r) {
    if (!shows_matrix(r))
        return "\"match\": " + std::to_string(r.scoring.match()) + ", \"mismatch\": " + std::to_string(r.scoring.mismatch());
    std::string text;
    if (!r.matrix_file.empty()) text += "\"matrix_file\": \"" + json_escape(r.matrix_file) + "\", ";
    return text + "\"matrix\": [" + matrix_rows(r.scoring, "[", ", ", "]", ", ") + "], \"other\": " +
           std::to_string(r.scoring.other);
}

std::string json_report(const RunReport& r) {
    std::ostringstream out;
    out << "{\n"
        << "  \"score\": " << r.result.score << ",\n"
        << "  \"s0_end\": " << r.result.s0_end << ",\n"
        << "  \"s1_end\": " << r.result.s1_end << ",\n"
        << "  \"s0_name\": \"" << json_escape(r.s0.name) << "\",\n"
        << "  \"s1_name\": \"" << json_escape(r.s1.name) << "\",\n"
        << "  \"s0_path\": \"" << json_escape(r.s0.path) << "\",\n"
        << "  \"s1_path\": \"" << json_escape(r.s1.path) << "\",\n"
        << "  \"s0_length\": " << r.s0.length << ",\n"
        << "  \"s1_length\": " << r.s1.length << ",\n"
        << "  \"cells\": " << r.cells() << ",\n"
        << "  \"seconds\": " << fixed(r.seconds, 6) << ",\n"
        << "  \"gcups\": " << fixed(r.gcups(), 6) << ",\n"
        << "  \"cells_pruned\": " << r.cells_pruned << ",\n"
        << "  \"pruned_fraction\": " << fixed(r.pruned_fraction(), 6) << ",\n"
        << "  \"backend\": \"" << json_escape(r.backend) << "\",\n"
        << "  \"device\": \"" << json_escape(r.device) << "\",\n"
        << "  \"device_bytes\": " << r.device_bytes << ",\n"
        << "  \"layout\": \"" << json_escape(r.layout) << "\",\n"
        << "  \"scoring\": {" << json_substitution(r) << ", \"gap_open\": " << r.scoring.gap_open
        << ", \"gap_extend\": " << r.scoring.gap_extend << "}";
    if (r.alignment) {
        const AlignmentStats s = alignment_stats(*r.alignment);
        out << ",\n  \"alignment\": {\"s0_start\": " << r.alignment->s0_start << ", \"s1_start\": "
            << r.alignment->s1_start << ", \"length\": " << s.columns << ", \"matches\": " << s.matches
            << ", \"mismatches\": " << s.mismatches << ", \"gap_opens\": " << s.gap_opens
            << ", \"gap_bases\": " << s.gap_bases << ", \"identity\": " << fixed(s.identity(), 6) << "}";
    }
    out << "\n}\n";
    return out.str();
}

}  // namespace

std::string json_escape(const std::string& text) {
    std::string out;
    for (unsigned char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

std::string format_report(const RunReport& report, Format format) {
    switch (format) {
    case Format::kTsv: return tsv_report(report);
    case Format::kJson: return json_report(report);
    case Format::kText: break;
    }
    return text_report(report);
}

}  // namespace chromalign::cli
