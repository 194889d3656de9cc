//! @file The alignment writers: htslib for SAM, BAM and CRAM; plain text for PAF, MAF and the view.
#include "io/alignment_formats.hpp"

#include <htslib/sam.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <vector>

#include "engine/error.hpp"
#include "engine/version.hpp"

namespace chromalign::io {
namespace {

char letter(uint8_t code) { return "ACGTN"[code < 4 ? code : 4]; }

/// The aligned columns as text: S1's and S0's letters with '-' for gaps.
struct Columns {
    std::string s1, s0;
};

Columns columns_of(const AlignedPair& p) {
    Columns c;
    int64_t i = p.alignment.s0_start, j = p.alignment.s1_start;
    for (const AlignmentRun& r : p.alignment.runs)
        for (int64_t k = 0; k < r.length; ++k) {
            const bool in_s0 = r.op != 'D', in_s1 = r.op != 'I';
            c.s0 += in_s0 ? letter(p.s0.codes[static_cast<size_t>(i++ - 1)]) : '-';
            c.s1 += in_s1 ? letter(p.s1.codes[static_cast<size_t>(j++ - 1)]) : '-';
        }
    return c;
}

int64_t edit_distance(const Alignment& a) {
    const AlignmentStats s = alignment_stats(a);
    return s.mismatches + s.gap_bases;
}

std::string name_or(const Sequence& s, const char* fallback) { return s.name.empty() ? fallback : s.name; }

void write_hts(const std::string& path, AlignmentFormat format, const AlignedPair& p) {
    const char* mode = format == AlignmentFormat::kBam ? "wb" : format == AlignmentFormat::kCram ? "wc" : "w";
    std::unique_ptr<samFile, int (*)(samFile*)> out(sam_open(path.c_str(), mode), hts_close);
    if (!out) throw Error("cannot write '" + path + "'");
    std::unique_ptr<sam_hdr_t, void (*)(sam_hdr_t*)> hdr(sam_hdr_init(), sam_hdr_destroy);
    const std::string s1_name = name_or(p.s1, "S1"), s1_length = std::to_string(p.s1.record_length());
    if (!hdr || sam_hdr_add_line(hdr.get(), "HD", "VN", "1.6", "SO", "unsorted", nullptr) < 0 ||
        sam_hdr_add_line(hdr.get(), "SQ", "SN", s1_name.c_str(), "LN", s1_length.c_str(), nullptr) < 0 ||
        sam_hdr_add_pg(hdr.get(), "chromalign", "VN", kVersion, "CL", p.command_line.c_str(), nullptr) < 0 ||
        sam_hdr_write(out.get(), hdr.get()) < 0)
        throw Error("cannot write the SAM header to '" + path + "'");
    const Alignment& a = p.alignment;
    const std::string qname = name_or(p.s0, "S0");
    std::unique_ptr<bam1_t, void (*)(bam1_t*)> rec(bam_init1(), bam_destroy1);
    int set = 0;
    if (a.runs.empty()) {
        set = bam_set1(rec.get(), qname.size(), qname.c_str(), BAM_FUNMAP, -1, -1, 0, 0, nullptr, -1, -1, 0, 0, nullptr,
                       nullptr, 0);
    } else {
        std::vector<uint32_t> cigar;
        // Positions and clips are of the records: a region's outside counts as unaligned.
        const int64_t first = p.s0.in_record(a.s0_start), last = p.s0.in_record(a.s0_end);
        if (first > 1) cigar.push_back(bam_cigar_gen(first - 1, BAM_CHARD_CLIP));
        for (const AlignmentRun& r : a.runs) {
            const int op = r.op == '=' ? BAM_CEQUAL : r.op == 'X' ? BAM_CDIFF : r.op == 'I' ? BAM_CINS : BAM_CDEL;
            cigar.push_back(bam_cigar_gen(r.length, op));
        }
        if (last < p.s0.record_length()) cigar.push_back(bam_cigar_gen(p.s0.record_length() - last, BAM_CHARD_CLIP));
        std::string seq;
        for (int64_t i = a.s0_start; i <= a.s0_end; ++i) seq += letter(p.s0.codes[static_cast<size_t>(i - 1)]);
        set = bam_set1(rec.get(), qname.size(), qname.c_str(), 0, 0, p.s1.in_record(a.s1_start) - 1, 255, cigar.size(),
                       cigar.data(), -1, -1, 0, seq.size(), seq.c_str(), nullptr, 32);
        if (set >= 0) set = bam_aux_update_int(rec.get(), "AS", a.score);
        if (set >= 0) set = bam_aux_update_int(rec.get(), "NM", edit_distance(a));
    }
    if (set < 0 || sam_write1(out.get(), hdr.get(), rec.get()) < 0) throw Error("cannot write the alignment to '" + path + "'");
    if (hts_close(out.release()) < 0) throw Error("cannot finish '" + path + "'");
}

}  // namespace

AlignmentFormat parse_alignment_format(const std::string& name) {
    if (name == "sam") return AlignmentFormat::kSam;
    if (name == "bam") return AlignmentFormat::kBam;
    if (name == "cram") return AlignmentFormat::kCram;
    if (name == "paf") return AlignmentFormat::kPaf;
    if (name == "maf") return AlignmentFormat::kMaf;
    if (name == "view") return AlignmentFormat::kView;
    throw Error("--alignment-format must be sam, bam, cram, paf, maf or view (got '" + name + "')");
}

AlignmentFormat alignment_format_of(const std::string& path) {
    const size_t dot = path.rfind('.');
    const std::string ext = dot == std::string::npos ? "" : path.substr(dot + 1);
    for (const char* known : {"sam", "bam", "cram", "paf", "maf"})
        if (ext == known) return parse_alignment_format(ext);
    return AlignmentFormat::kView;
}

std::string paf_line(const AlignedPair& p) {
    const Alignment& a = p.alignment;
    if (a.runs.empty()) return {};
    const AlignmentStats s = alignment_stats(a);
    return name_or(p.s0, "S0") + "\t" + std::to_string(p.s0.record_length()) + "\t" +
           std::to_string(p.s0.in_record(a.s0_start) - 1) + "\t" + std::to_string(p.s0.in_record(a.s0_end)) + "\t+\t" +
           name_or(p.s1, "S1") + "\t" + std::to_string(p.s1.record_length()) + "\t" +
           std::to_string(p.s1.in_record(a.s1_start) - 1) + "\t" + std::to_string(p.s1.in_record(a.s1_end)) + "\t" +
           std::to_string(s.matches) + "\t" + std::to_string(s.columns) + "\t255\tAS:i:" + std::to_string(a.score) + "\tNM:i:" +
           std::to_string(edit_distance(a)) + "\tcg:Z:" + a.cigar() + "\n";
}

std::string maf_text(const AlignedPair& p) {
    std::string text = "##maf version=1 program=chromalign\n";
    const Alignment& a = p.alignment;
    if (a.runs.empty()) return text;
    const Columns c = columns_of(p);
    const std::string s1_name = name_or(p.s1, "S1"), s0_name = name_or(p.s0, "S0");
    const size_t width = std::max(s1_name.size(), s0_name.size());
    auto line = [&](const std::string& name, const Sequence& s, int64_t start, int64_t end, const std::string& row) {
        return "s " + name + std::string(width - name.size(), ' ') + " " + std::to_string(s.in_record(start) - 1) +
               " " + std::to_string(end - start + 1) + " + " + std::to_string(s.record_length()) + " " + row + "\n";
    };
    return text + "\na score=" + std::to_string(a.score) + "\n" + line(s1_name, p.s1, a.s1_start, a.s1_end, c.s1) +
           line(s0_name, p.s0, a.s0_start, a.s0_end, c.s0) + "\n";
}

std::string block_view(const AlignedPair& p) {
    const Alignment& a = p.alignment;
    if (a.runs.empty()) return "no alignment (score 0)\n";
    const AlignmentStats s = alignment_stats(a);
    char head[256];
    std::snprintf(head, sizeof head,
                  "score %d, S0 %lld-%lld, S1 %lld-%lld, %lld columns, %lld matches, %lld mismatches, "
                  "%lld gaps (%lld bases), identity %.2f%%\n\n",
                  a.score, static_cast<long long>(p.s0.in_record(a.s0_start)),
                  static_cast<long long>(p.s0.in_record(a.s0_end)), static_cast<long long>(p.s1.in_record(a.s1_start)),
                  static_cast<long long>(p.s1.in_record(a.s1_end)), static_cast<long long>(s.columns),
                  static_cast<long long>(s.matches), static_cast<long long>(s.mismatches),
                  static_cast<long long>(s.gap_opens), static_cast<long long>(s.gap_bases), 100.0 * s.identity());
    std::string text = head;
    const Columns c = columns_of(p);
    const int digits =
        static_cast<int>(std::to_string(std::max(p.s0.in_record(a.s0_end), p.s1.in_record(a.s1_end))).size());
    int64_t i = p.s0.in_record(a.s0_start), j = p.s1.in_record(a.s1_start);  // the next base of each, in its record
    for (size_t from = 0; from < c.s0.size(); from += 60) {
        const std::string r1 = c.s1.substr(from, 60), r0 = c.s0.substr(from, 60);
        std::string bars;
        int64_t n1 = 0, n0 = 0;
        for (size_t k = 0; k < r0.size(); ++k) {
            n1 += r1[k] != '-';
            n0 += r0[k] != '-';
            bars += r0[k] == '-' || r1[k] == '-' ? ' ' : r0[k] == r1[k] && r0[k] != 'N' ? '|' : '.';
        }
        char line[128];
        std::snprintf(line, sizeof line, "S1 %*lld ", digits, static_cast<long long>(j));
        text += line + r1 + " " + std::to_string(j + n1 - 1) + "\n";
        text += std::string(static_cast<size_t>(digits) + 4, ' ') + bars + "\n";
        std::snprintf(line, sizeof line, "S0 %*lld ", digits, static_cast<long long>(i));
        text += line + r0 + " " + std::to_string(i + n0 - 1) + "\n\n";
        i += n0;
        j += n1;
    }
    return text;
}

void write_alignment(const std::string& path, AlignmentFormat format, const AlignedPair& pair) {
    if (format == AlignmentFormat::kSam || format == AlignmentFormat::kBam || format == AlignmentFormat::kCram)
        return write_hts(path, format, pair);
    const std::string text = format == AlignmentFormat::kPaf ? paf_line(pair)
                             : format == AlignmentFormat::kMaf ? maf_text(pair)
                                                                : block_view(pair);
    if (path == "-") {
        std::cout << text << std::flush;
        if (!std::cout) throw Error("cannot write the alignment to standard output");
        return;
    }
    std::ofstream out(path);
    out << text;
    out.close();
    if (!out) throw Error("cannot write the alignment to '" + path + "'");
}

}  // namespace chromalign::io
