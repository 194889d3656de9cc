//! @file The alignment writers: htslib for SAM, BAM and CRAM; plain text for PAF, MAF and the view.
#include "io/alignment_formats.hpp"

#include <htslib/sam.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <unordered_map>
#include <vector>

#include "engine/error.hpp"
#include "engine/version.hpp"

namespace chromalign::io {
namespace {

char letter(uint8_t code) { return "ACGTN"[code < 4 ? code : 4]; }

/// Reverse-complements text of A, C, G, T, N and '-' in place (N and '-' stay).
void reverse_complement_text(std::string& text) {
    std::reverse(text.begin(), text.end());
    for (char& c : text) c = c == 'A' ? 'T' : c == 'T' ? 'A' : c == 'C' ? 'G' : c == 'G' ? 'C' : c;
}

/// The aligned columns as text: S1's and S0's letters with '-' for gaps, in the order compared.
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

/// The alignment as SAM, PAF and MAF write it, along S1's forward strand: S1's interval in
/// forward positions of its record (s1_start <= s1_end), S0's in positions of its record, and
/// the runs in S1's forward order. On the reverse strand that is rc(S0's aligned bases) against
/// S1 forward, so the runs reverse and S0's bases are read from its end.
Alignment along_s1_forward(const AlignedPair& p) {
    const Alignment& a = p.alignment;
    Alignment f;
    f.score = a.score;
    f.s0_start = p.s0.in_record(a.s0_start);
    f.s0_end = p.s0.in_record(a.s0_end);
    const int64_t first = forward_position(p.s1, p.strand, a.s1_start);
    const int64_t last = forward_position(p.s1, p.strand, a.s1_end);
    f.s1_start = std::min(first, last);
    f.s1_end = std::max(first, last);
    f.runs = a.runs;
    if (p.strand == Strand::kReverse) std::reverse(f.runs.begin(), f.runs.end());
    return f;
}

int64_t edit_distance(const Alignment& a) {
    const AlignmentStats s = alignment_stats(a);
    return s.mismatches + s.gap_bases;
}

/// A SAM header value (@PG CL): a tab or a newline in an argument would end the field or the
/// line, and samtools then refuses the header, so control bytes are written escaped (\t, \n,
/// \r, else \xHH); printable ASCII and UTF-8 (a file name's) stay as they are.
std::string header_value(const std::string& text) {
    std::string out;
    for (const unsigned char c : text) {
        if (c >= ' ' && c <= '~') {
            out += static_cast<char>(c);
        } else if (c == '\t' || c == '\n' || c == '\r') {
            out += c == '\t' ? "\\t" : c == '\n' ? "\\n" : "\\r";
        } else if (c < 0x80) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02X", c);
            out += hex;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

std::string name_or(const Sequence& s, const char* fallback) { return s.name.empty() ? fallback : s.name; }

bool is_hts(AlignmentFormat format) {
    return format == AlignmentFormat::kSam || format == AlignmentFormat::kBam || format == AlignmentFormat::kCram;
}

/// One SAM record of the pair: mapped to reference `tid`, or unmapped when the alignment is
/// empty. Returns htslib's status (negative on failure).
int set_record(bam1_t* rec, const AlignedPair& p, int tid) {
    const Alignment& a = p.alignment;
    const std::string qname = name_or(p.s0, "S0");
    if (a.runs.empty())
        return bam_set1(rec, qname.size(), qname.c_str(), BAM_FUNMAP, -1, -1, 0, 0, nullptr, -1, -1, 0, 0, nullptr,
                        nullptr, 0);
    const Alignment f = along_s1_forward(p);
    const bool reverse = p.strand == Strand::kReverse;
    // Clips are of the record (a region's outside counts as unaligned), in S1's forward order:
    // on the reverse strand S0's bases after the alignment come first.
    const int64_t before = f.s0_start - 1, after = p.s0.record_length() - f.s0_end;
    std::vector<uint32_t> cigar;
    if ((reverse ? after : before) > 0) cigar.push_back(bam_cigar_gen(reverse ? after : before, BAM_CHARD_CLIP));
    for (const AlignmentRun& r : f.runs) {
        const int op = r.op == '=' ? BAM_CEQUAL : r.op == 'X' ? BAM_CDIFF : r.op == 'I' ? BAM_CINS : BAM_CDEL;
        cigar.push_back(bam_cigar_gen(r.length, op));
    }
    if ((reverse ? before : after) > 0) cigar.push_back(bam_cigar_gen(reverse ? before : after, BAM_CHARD_CLIP));
    std::string seq;
    for (int64_t i = a.s0_start; i <= a.s0_end; ++i) seq += letter(p.s0.codes[static_cast<size_t>(i - 1)]);
    if (reverse) reverse_complement_text(seq);
    const uint16_t flag = (reverse ? BAM_FREVERSE : 0) | (p.secondary ? BAM_FSECONDARY : 0);
    int set = bam_set1(rec, qname.size(), qname.c_str(), flag, tid, f.s1_start - 1, 255, cigar.size(), cigar.data(), -1,
                       -1, 0, seq.size(), seq.c_str(), nullptr, 32);
    if (set >= 0) set = bam_aux_update_int(rec, "AS", a.score);
    if (set >= 0) set = bam_aux_update_int(rec, "NM", edit_distance(a));
    if (set >= 0 && p.rank > 0) set = bam_aux_update_int(rec, "HI", p.rank);
    return set;
}

/// The "a score=" block of one alignment: S1's row on its forward strand, then S0's, '-' on
/// the reverse strand with its start on S0's reverse strand as MAF wants.
std::string maf_block(const AlignedPair& p) {
    const Alignment& a = p.alignment;
    if (a.runs.empty()) return {};
    Columns c = columns_of(p);
    if (p.strand == Strand::kReverse) {
        reverse_complement_text(c.s1);
        reverse_complement_text(c.s0);
    }
    const Alignment f = along_s1_forward(p);
    const int64_t s0_size = p.s0.record_length();
    const int64_t s0_start = p.strand == Strand::kForward ? f.s0_start - 1 : s0_size - f.s0_end;
    const std::string s1_name = name_or(p.s1, "S1"), s0_name = name_or(p.s0, "S0");
    const size_t width = std::max(s1_name.size(), s0_name.size());
    auto line = [&](const std::string& name, int64_t start, int64_t size, Strand strand, int64_t source_size,
                    const std::string& row) {
        return "s " + name + std::string(width - name.size(), ' ') + " " + std::to_string(start) + " " +
               std::to_string(size) + " " + strand_char(strand) + " " + std::to_string(source_size) + " " + row + "\n";
    };
    return "a score=" + std::to_string(a.score) + (p.rank > 0 ? " rank=" + std::to_string(p.rank) : "") + "\n" +
           line(s1_name, f.s1_start - 1, f.s1_end - f.s1_start + 1, Strand::kForward, p.s1.record_length(), c.s1) +
           line(s0_name, s0_start, f.s0_end - f.s0_start + 1, p.strand, s0_size, c.s0) + "\n";
}

const char kMafHeader[] = "##maf version=1 program=chromalign\n\n";

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
    std::string ext = dot == std::string::npos ? "" : path.substr(dot + 1);
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    // x.sam.gz would be the view, uncompressed, under a name that says otherwise.
    for (const char* packed : {"gz", "bgz", "bz2", "xz", "zst"})
        if (ext == packed)
            throw Error("--traceback " + path + ": alignments are not written compressed; name a .bam or .cram " +
                        "file, or pipe --traceback - into a compressor");
    for (const char* known : {"sam", "bam", "cram", "paf", "maf"})
        if (ext == known) return parse_alignment_format(ext);
    return AlignmentFormat::kView;
}

void require_query_name(const std::string& name, AlignmentFormat format) {
    constexpr size_t kMostQname = 254;  // the SAM spec's QNAME; BAM stores it with its NUL in a byte
    if (!is_hts(format) || name.size() <= kMostQname) return;
    throw Error("S0 record '" + name.substr(0, 40) + "...' has a name of " + std::to_string(name.size()) +
                " characters: SAM, BAM and CRAM take at most 254 (QNAME); rename it, or write PAF or MAF");
}

std::string paf_line(const AlignedPair& p) {
    const Alignment& a = p.alignment;
    if (a.runs.empty()) return {};
    const AlignmentStats s = alignment_stats(a);
    const Alignment f = along_s1_forward(p);
    return name_or(p.s0, "S0") + "\t" + std::to_string(p.s0.record_length()) + "\t" + std::to_string(f.s0_start - 1) +
           "\t" + std::to_string(f.s0_end) + "\t" + strand_char(p.strand) + "\t" + name_or(p.s1, "S1") + "\t" +
           std::to_string(p.s1.record_length()) + "\t" + std::to_string(f.s1_start - 1) + "\t" +
           std::to_string(f.s1_end) + "\t" + std::to_string(s.matches) + "\t" + std::to_string(s.columns) +
           "\t255\tAS:i:" + std::to_string(a.score) + "\tNM:i:" + std::to_string(edit_distance(a)) +
           "\tcg:Z:" + f.cigar() +
           (p.rank > 0 ? std::string("\ttp:A:") + (p.secondary ? 'S' : 'P') + "\tHI:i:" + std::to_string(p.rank) : "") + "\n";
}

std::string maf_text(const AlignedPair& p) { return kMafHeader + maf_block(p); }

std::string block_view(const AlignedPair& p) {
    const Alignment& a = p.alignment;
    const char strand = strand_char(p.strand);
    std::string text = (p.rank > 0 ? "alignment " + std::to_string(p.rank) + ": " : std::string()) + "S0 " +
                       name_or(p.s0, "S0") + ", S1 " + name_or(p.s1, "S1") + ", strand " + strand + "\n";
    if (a.runs.empty()) return text + "no alignment (score 0)\n\n";
    // S1's positions are of its forward strand, in the order of the columns: on the reverse
    // strand they decrease along the line, which shows S1's reverse complement (as BLAST does).
    const auto s1_at = [&p](int64_t j) { return forward_position(p.s1, p.strand, j); };
    const AlignmentStats s = alignment_stats(a);
    char head[256];
    std::snprintf(head, sizeof head,
                  "score %d, strand %c, S0 %lld-%lld, S1 %lld-%lld, %lld columns, %lld matches, %lld mismatches, "
                  "%lld gaps (%lld bases), identity %.2f%%\n\n",
                  a.score, strand, static_cast<long long>(p.s0.in_record(a.s0_start)),
                  static_cast<long long>(p.s0.in_record(a.s0_end)), static_cast<long long>(s1_at(a.s1_start)),
                  static_cast<long long>(s1_at(a.s1_end)), static_cast<long long>(s.columns),
                  static_cast<long long>(s.matches), static_cast<long long>(s.mismatches),
                  static_cast<long long>(s.gap_opens), static_cast<long long>(s.gap_bases), 100.0 * s.identity());
    text += head;
    const Columns c = columns_of(p);
    const int64_t widest = std::max({p.s0.in_record(a.s0_end), s1_at(a.s1_start), s1_at(a.s1_end)});
    const int digits = static_cast<int>(std::to_string(widest).size());
    int64_t i = a.s0_start, j = a.s1_start;  // the next base of each, as compared
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
        std::snprintf(line, sizeof line, "S1 %*lld ", digits, static_cast<long long>(s1_at(j)));
        text += line + r1 + " " + std::to_string(s1_at(j + n1 - 1)) + "\n";
        text += std::string(static_cast<size_t>(digits) + 4, ' ') + bars + "\n";
        std::snprintf(line, sizeof line, "S0 %*lld ", digits, static_cast<long long>(p.s0.in_record(i)));
        text += line + r0 + " " + std::to_string(p.s0.in_record(i + n0 - 1)) + "\n\n";
        i += n0;
        j += n1;
    }
    return text;
}

struct AlignmentWriter::Impl {
    std::string path;
    AlignmentFormat format;
    std::vector<ReferenceInfo> references;
    std::unordered_map<std::string, int> index;  ///< a reference's name to its SAM tid
    std::unique_ptr<samFile, int (*)(samFile*)> hts{nullptr, hts_close};
    std::unique_ptr<sam_hdr_t, void (*)(sam_hdr_t*)> header{nullptr, sam_hdr_destroy};
    std::ofstream file;
    std::ostream* text = nullptr;  ///< `file` or std::cout for PAF, MAF and the view
    bool closed = false;

    std::string where() const { return path == "-" ? "standard output" : "'" + path + "'"; }

    void open_hts(const std::string& command_line) {
        const char* mode = format == AlignmentFormat::kBam ? "wb" : format == AlignmentFormat::kCram ? "wc" : "w";
        hts.reset(sam_open(path.c_str(), mode));
        if (!hts) throw Error("cannot write " + where());
        // CRAM codes a read against its reference, which htslib would otherwise make from the
        // reads themselves, and that fails once a reference's positions go back (several S0
        // records, --alignments): written without one, each read keeps its own bases.
        if (format == AlignmentFormat::kCram && hts_set_opt(hts.get(), CRAM_OPT_NO_REF, 1) != 0)
            throw Error("cannot write " + where() + " as CRAM without a reference");
        header.reset(sam_hdr_init());
        bool ok = header && sam_hdr_add_line(header.get(), "HD", "VN", "1.6", "SO", "unsorted", nullptr) >= 0;
        for (const ReferenceInfo& r : references) {
            const std::string length = std::to_string(r.length);
            ok = ok && sam_hdr_add_line(header.get(), "SQ", "SN", r.name.c_str(), "LN", length.c_str(), nullptr) >= 0;
        }
        ok = ok &&
             sam_hdr_add_pg(header.get(), "chromalign", "VN", kVersion, "CL", header_value(command_line).c_str(),
                            nullptr) >= 0 &&
             sam_hdr_write(hts.get(), header.get()) >= 0;
        if (!ok) throw Error("cannot write the SAM header to " + where());
    }

    void open_text() {
        if (path == "-") {
            text = &std::cout;
        } else {
            file.open(path);
            if (!file) throw Error("cannot write " + where());
            text = &file;
        }
        if (format == AlignmentFormat::kMaf) *text << kMafHeader;
    }

    /// The SAM tid of the pair's S1 record; throws Error when the header does not list it as it is.
    int reference_of(const AlignedPair& p) const {
        const std::string name = name_or(p.s1, "S1");
        const auto found = index.find(name);
        if (found == index.end())
            throw Error("S1 record '" + name + "' is not among the references of " + where());
        const int64_t listed = references[static_cast<size_t>(found->second)].length;
        if (listed != p.s1.record_length())
            throw Error("S1 record '" + name + "' has " + std::to_string(p.s1.record_length()) + " bases, but " +
                        where() + " lists " + std::to_string(listed));
        return found->second;
    }
};

AlignmentWriter::AlignmentWriter(const std::string& path, AlignmentFormat format,
                                 const std::vector<ReferenceInfo>& references, const std::string& command_line)
    : impl_(std::make_unique<Impl>()) {
    impl_->path = path;
    impl_->format = format;
    impl_->references = references;
    for (size_t k = 0; k < references.size(); ++k)
        if (!impl_->index.emplace(references[k].name, static_cast<int>(k)).second)
            throw Error("reference '" + references[k].name + "' is listed twice for " + impl_->where());
    if (is_hts(format))
        impl_->open_hts(command_line);
    else
        impl_->open_text();
}

// A writer dropped without close() (an exception on the way) still releases its file;
// close() is where failures are reported.
AlignmentWriter::~AlignmentWriter() = default;

void AlignmentWriter::write(const AlignedPair& pair) {
    Impl& w = *impl_;
    if (w.closed) throw Error("writing to " + w.where() + " after it was closed");
    const int tid = w.reference_of(pair);
    if (is_hts(w.format)) {
        std::unique_ptr<bam1_t, void (*)(bam1_t*)> rec(bam_init1(), bam_destroy1);
        if (!rec || set_record(rec.get(), pair, tid) < 0 || sam_write1(w.hts.get(), w.header.get(), rec.get()) < 0)
            throw Error("cannot write the alignment to " + w.where());
        return;
    }
    *w.text << (w.format == AlignmentFormat::kPaf   ? paf_line(pair)
                : w.format == AlignmentFormat::kMaf ? maf_block(pair)
                                                    : block_view(pair));
    if (!*w.text) throw Error("cannot write the alignment to " + w.where());
}

void AlignmentWriter::close() {
    Impl& w = *impl_;
    if (w.closed) return;
    w.closed = true;
    if (w.hts) {
        if (hts_close(w.hts.release()) < 0) throw Error("cannot finish " + w.where());
        return;
    }
    w.text->flush();
    if (w.text == &w.file) w.file.close();
    if (!*w.text) throw Error("cannot finish " + w.where());
}

void write_alignment(const std::string& path, AlignmentFormat format, const AlignedPair& pair) {
    AlignmentWriter writer(path, format, {ReferenceInfo{name_or(pair.s1, "S1"), pair.s1.record_length()}},
                           pair.command_line);
    writer.write(pair);
    writer.close();
}

}  // namespace chromalign::io
