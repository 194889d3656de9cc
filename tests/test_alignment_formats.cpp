//! @file The alignment writers: SAM, BAM and CRAM that samtools reads back, PAF, MAF and the block
//! view, all agreeing with the alignment; and the CLI's --traceback.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <iterator>

#include <algorithm>
#include <cctype>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

#include "engine/error.hpp"
#include "engine/alignment/alignment.hpp"
#include "io/alignment_formats.hpp"
#include "io/alignment_plot.hpp"
#include "io/fasta.hpp"
#include "engine/traceback/linear_traceback.hpp"
#include "engine/traceback/special_rows.hpp"
#include "kernels/reference/traceback.hpp"
#include "tests/resume_harness.hpp"
#include "tools/mutate.hpp"
#include "tools/report.hpp"
#include "engine/job/stage1_record.hpp"
#include "engine/job/traceback_journal.hpp"
#include "tests/test_support.hpp"

namespace chromalign {
namespace {

bool have_samtools() { return test::have_tool("samtools"); }

bool have_minimap2() { return test::have_tool("minimap2"); }

std::vector<std::string> fields(const std::string& line) { return test::split(line, '\t'); }

std::string without_gaps(const std::string& row) {
    std::string out;
    for (const char c : row)
        if (c != '-') out += c;
    return out;
}

struct Case {
    Sequence s0, s1;
    Alignment a;
};

/// A mutated pair with flanks, so the alignment starts and ends inside both sequences.
Case make_case(std::mt19937_64& rng) {
    auto [core0, core1] = test::mutated_pair(3000, 3000, rng, 0.01);
    auto [flank0, flank1] = test::random_pair(200, 300, rng);
    const std::string a = test::preview(flank0, 1000) + test::preview(core0, 5000) + test::preview(flank1, 1000);
    const std::string b = test::preview(flank1, 1000) + test::preview(core1, 5000);
    Case c{make_sequence("query", a), make_sequence("target", b), {}};
    c.a = reference_traceback(c.s0, c.s1, Scoring(1, -3, 5, 2));
    return c;
}

std::string file_text(const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// The whole of `s` as ACGTN text.
std::string text_of(const Sequence& s) { return test::preview(s, s.codes.size()); }

/// The reverse complement of ACGTN text.
std::string reverse_complement_text(const std::string& text) {
    return text_of(reverse_complement(make_sequence("", text)));
}

/// Bases from..to (1-based) of `record` as a region: what lies outside is its offset and bases_after.
Sequence region_of(const Sequence& record, int64_t from, int64_t to) {
    Sequence s = record;
    s.codes.assign(record.codes.begin() + (from - 1), record.codes.begin() + to);
    s.offset = from - 1;
    s.bases_after = record.length() - to;
    return s;
}

/// A CIGAR's operations in order ("3H10=" gives {'H', 3}, {'=', 10}).
std::vector<AlignmentRun> parse_cigar(const std::string& cigar) {
    std::vector<AlignmentRun> runs;
    std::stringstream in(cigar);
    int64_t length = 0;
    char op = 0;
    while (in >> length >> op) runs.push_back({op, length});
    return runs;
}

/// The "s" lines of a MAF text, split into words.
std::vector<std::vector<std::string>> maf_rows(const std::string& text) {
    std::stringstream maf(text);
    std::vector<std::vector<std::string>> rows;
    for (std::string line; std::getline(maf, line);)
        if (line.rfind("s ", 0) == 0) {
            std::stringstream words(line);
            std::vector<std::string> w;
            for (std::string x; words >> x;) w.push_back(x);
            rows.push_back(w);
        }
    return rows;
}

/// Aligns s0 against the reverse complement of s1 (each a record or a region of one; record0 and
/// record1 are the whole records' text) and checks what SAM, PAF, MAF and the view write
/// against S1's forward strand, with nothing but the records' text and the alignment's runs.
void check_reverse_strand(const Sequence& s0, const Sequence& s1, const std::string& record0,
                          const std::string& record1, const test::TempDir& dir) {
    const Sequence t = reverse_complement(s1);
    const Alignment a = reference_traceback(s0, t, Scoring(1, -3, 5, 2));
    ASSERT_FALSE(a.runs.empty());
    const io::AlignedPair pair{s0, t, a, "chromalign test", Strand::kReverse};
    // S0's aligned bases in its record, and S1's aligned interval on its forward strand (1-based).
    const int64_t first0 = s0.in_record(a.s0_start), last0 = s0.in_record(a.s0_end);
    const std::string aligned0 =
        record0.substr(static_cast<size_t>(first0 - 1), static_cast<size_t>(last0 - first0 + 1));
    const int64_t length1 = static_cast<int64_t>(record1.size());
    const int64_t first1 = length1 - t.in_record(a.s1_end) + 1, last1 = length1 - t.in_record(a.s1_start) + 1;
    EXPECT_EQ(first1, forward_position(t, Strand::kReverse, a.s1_end));
    const std::string aligned1_rc =
        text_of(t).substr(static_cast<size_t>(a.s1_start - 1), static_cast<size_t>(a.s1_end - a.s1_start + 1));
    ASSERT_EQ(record1.substr(static_cast<size_t>(first1 - 1), static_cast<size_t>(last1 - first1 + 1)),
              reverse_complement_text(aligned1_rc));
    Alignment along_forward = a;
    std::reverse(along_forward.runs.begin(), along_forward.runs.end());
    const AlignmentStats st = alignment_stats(a);
    const std::string nm = "NM:i:" + std::to_string(st.mismatches + st.gap_bases);

    // PAF: the query's interval on its record, the target's on S1's forward strand.
    const auto paf = fields(io::paf_line(pair));
    ASSERT_EQ(paf.size(), 15u);
    EXPECT_EQ(paf[2], std::to_string(first0 - 1));
    EXPECT_EQ(paf[3], std::to_string(last0));
    EXPECT_EQ(paf[4], "-");
    EXPECT_EQ(paf[6], std::to_string(record1.size()));
    EXPECT_EQ(paf[7], std::to_string(first1 - 1));
    EXPECT_EQ(paf[8], std::to_string(last1));
    EXPECT_EQ(paf[14], "cg:Z:" + along_forward.cigar() + "\n");

    // MAF: S1 forward with '+', S0's row the reverse complement of its aligned bases, '-'.
    const auto rows = maf_rows(io::maf_text(pair));
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0][2], std::to_string(first1 - 1));
    EXPECT_EQ(rows[0][4], "+");
    EXPECT_EQ(rows[0][5], std::to_string(record1.size()));
    EXPECT_EQ(without_gaps(rows[0][6]), record1.substr(static_cast<size_t>(first1 - 1), std::stoul(rows[0][3])));
    EXPECT_EQ(rows[1][2], std::to_string(static_cast<int64_t>(record0.size()) - last0)) << "on S0's reverse strand";
    EXPECT_EQ(rows[1][3], std::to_string(aligned0.size()));
    EXPECT_EQ(rows[1][4], "-");
    EXPECT_EQ(rows[1][5], std::to_string(record0.size()));
    EXPECT_EQ(reverse_complement_text(without_gaps(rows[1][6])), aligned0);
    ASSERT_EQ(rows[0][6].size(), rows[1][6].size());
    int64_t equal = 0, differ = 0;
    for (size_t k = 0; k < rows[0][6].size(); ++k) {
        const char x = rows[0][6][k], y = rows[1][6][k];
        if (x != '-' && y != '-') (x == y && x != 'N' ? equal : differ) += 1;
    }
    EXPECT_EQ(equal, st.matches);
    EXPECT_EQ(differ, st.mismatches);

    // The view: S1's forward positions from the alignment's first column to its last.
    const std::string view = io::block_view(pair);
    EXPECT_EQ(view.rfind("S0 " + s0.name + ", S1 " + s1.name + ", strand -\n", 0), 0u) << view.substr(0, 200);
    EXPECT_NE(view.find("strand -, S0 " + std::to_string(first0) + "-" + std::to_string(last0) + ", S1 " +
                        std::to_string(last1) + "-" + std::to_string(first1) + ","),
              std::string::npos)
        << view.substr(0, 400);

    // SAM: FLAG 16, POS the leftmost forward position, and the columns rebuilt from POS, CIGAR
    // and SEQ against S1's forward strand call '=' and 'X' right.
    const std::string sam = dir.file("reverse.sam");
    io::write_alignment(sam, io::AlignmentFormat::kSam, pair);
    if (!have_samtools()) return;
    bool ok = false;
    const std::string view_out = test::command_output("samtools view " + sam + " 2>&1", ok);
    ASSERT_TRUE(ok) << view_out;
    const auto f = fields(view_out.substr(0, view_out.find('\n')));
    ASSERT_GE(f.size(), 11u) << view_out;
    EXPECT_EQ(f[1], "16");
    EXPECT_EQ(f[2], s1.name);
    EXPECT_EQ(f[3], std::to_string(first1));
    const std::string& seq = f[9];
    EXPECT_EQ(seq, reverse_complement_text(aligned0));
    std::vector<AlignmentRun> ops = parse_cigar(f[5]);
    ASSERT_FALSE(ops.empty());
    int64_t leading = 0, trailing = 0;
    if (ops.front().op == 'H') {
        leading = ops.front().length;
        ops.erase(ops.begin());
    }
    if (!ops.empty() && ops.back().op == 'H') {
        trailing = ops.back().length;
        ops.pop_back();
    }
    EXPECT_EQ(leading, static_cast<int64_t>(record0.size()) - last0) << "S0's bases after the alignment lead";
    EXPECT_EQ(trailing, first0 - 1);
    size_t r = static_cast<size_t>(first1 - 1), q = 0;
    int64_t wrong = 0;
    for (const AlignmentRun& op : ops)
        for (int64_t k = 0; k < op.length; ++k) {
            if (op.op == '=' || op.op == 'X') {
                const bool same = r < record1.size() && q < seq.size() && record1[r] == seq[q] && seq[q] != 'N';
                wrong += same != (op.op == '=');
            }
            if (op.op != 'D') ++q;
            if (op.op != 'I') ++r;
        }
    EXPECT_EQ(wrong, 0) << "columns called '=' or 'X' wrongly in " << f[5];
    EXPECT_EQ(q, seq.size());
    EXPECT_EQ(static_cast<int64_t>(r), last1);
    EXPECT_NE(view_out.find(nm), std::string::npos);
    // samtools recomputes NM from S1's record.
    io::write_fasta(dir.file("s1.fa"), make_sequence(s1.name, record1));
    const std::string calmd = test::command_output("samtools calmd " + sam + " " + dir.file("s1.fa") + " 2>/dev/null", ok);
    EXPECT_NE(calmd.find(nm), std::string::npos) << calmd.substr(0, 2000);
}

TEST(AlignmentFormats, TheReverseStrandIsWrittenAgainstS1Forward) {
    const uint64_t seed = test::seed() + 62;
    std::mt19937_64 rng(seed);
    test::TempDir dir;
    for (int k = 0; k < 3; ++k) {
        // Mutated: S1 is the reverse complement of the target S0 was mutated into, so S0 aligns
        // to rc(S1) with a high score; random: a short alignment anywhere.
        const Case c = make_case(rng);
        Sequence s1 = reverse_complement(c.s1);
        auto [r0, r1] =
            test::random_pair(300 + static_cast<int64_t>(rng() % 300), 200 + static_cast<int64_t>(rng() % 400), rng);
        for (const auto& [s0, target] : {std::make_pair(c.s0, s1), std::make_pair(r0, r1)}) {
            SCOPED_TRACE("seed " + std::to_string(seed) + ", case " + std::to_string(k) + ", " +
                         std::to_string(s0.length()) + " x " + std::to_string(target.length()));
            const std::string text0 = text_of(s0), text1 = text_of(target);
            check_reverse_strand(s0, target, text0, text1, dir);
            // Regions of both records: every position written is still one of the records.
            const auto cut = [&rng](const Sequence& s) {
                const int64_t from = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(s.length() / 4));
                const int64_t to = s.length() - static_cast<int64_t>(rng() % static_cast<uint64_t>(s.length() / 4));
                return region_of(s, from, to);
            };
            check_reverse_strand(cut(s0), cut(target), text0, text1, dir);
        }
    }
}

// minimap2 writes '-' alignments with the target on its forward strand and the CIGAR in the
// target's order; ours must read the same.
/// The alignment a reverse-strand PAF line `f` describes, read as minimap2 writes it: its cg:Z:
/// runs align the reverse complement of the query (as S0) with the target's forward strand (as
/// S1), I taking query bases and D target bases, from query bases [len - end, len - start).
Alignment reverse_paf_alignment(const std::vector<std::string>& f) {
    const auto cg = std::find_if(f.begin(), f.end(), [](const std::string& x) { return x.rfind("cg:Z:", 0) == 0; });
    if (cg == f.end()) throw std::runtime_error("no cg:Z: tag");
    Alignment a;
    const int64_t length = std::stoll(f[1]);
    a.s0_start = length - std::stoll(f[3]) + 1;
    a.s0_end = length - std::stoll(f[2]);
    a.s1_start = std::stoll(f[7]) + 1;
    a.s1_end = std::stoll(f[8]);
    a.runs = parse_cigar(cg->substr(5));
    return a;
}

TEST(AlignmentFormats, TheReverseStrandIsWrittenAsMinimap2Does) {
    if (!have_minimap2()) GTEST_SKIP() << "minimap2 is not installed";
    std::mt19937_64 rng(test::seed() + 63);
    // 17 kbp keeps the 15 kbp x 17 kbp matrix within reference_traceback's cells.
    const Sequence s1 = make_sequence("target", gen::random_dna(17000, rng));
    const std::string piece = gen::mutate(text_of(s1).substr(1000, 15000), gen::MutationSpec{0.03, 0.0, 1}, rng);
    const Sequence s0 = make_sequence("query", reverse_complement_text(piece));
    test::TempDir dir;
    io::write_fasta(dir.file("s1.fa"), s1);
    io::write_fasta(dir.file("s0.fa"), s0);
    bool ok = false;
    const std::string out =
        test::command_output("minimap2 -c --eqx " + dir.file("s1.fa") + " " + dir.file("s0.fa") + " 2>/dev/null", ok);
    ASSERT_TRUE(ok) << out;
    const auto theirs = fields(out.substr(0, out.find('\n')));
    ASSERT_GE(theirs.size(), 12u) << out;
    // minimap2's scoring (-x map-ont: 2, -4, gaps 4 + 2k up to its long-gap cost).
    const Scoring scoring(2, -4, 6, 2);
    const Alignment a = reference_traceback(s0, reverse_complement(s1), scoring);
    const auto ours = fields(io::paf_line(io::AlignedPair{s0, reverse_complement(s1), a, "", Strand::kReverse}));
    ASSERT_EQ(ours.size(), 15u);
    EXPECT_EQ(theirs[4], "-");
    EXPECT_EQ(ours[4], "-");
    for (const size_t k : {2, 3, 7, 8})
        EXPECT_NEAR(std::stoll(ours[k]), std::stoll(theirs[k]), 5) << "PAF column " << k + 1 << "\n" << out;
    // Both lines read the same way must be alignments of the same two strands, = and X where
    // the bases say so: minimap2's proves the reading right, ours then follows its convention
    // (a CIGAR left in S0's order, or I and D swapped, would not re-score). Co-optimal
    // alignments may place a gap differently, so the CIGARs are compared by score: ours is
    // the optimum, and minimap2's (banded, with its long-gap cost) can be no better.
    const Sequence query_rc = reverse_complement(s0);
    try {
        EXPECT_EQ(rescore(reverse_paf_alignment(ours), query_rc, s1, scoring), a.score) << ours[14];
        const int64_t theirs_score = rescore(reverse_paf_alignment(theirs), query_rc, s1, scoring);
        EXPECT_LE(theirs_score, a.score) << out;
        std::printf("[ minimap2 ] its cg:Z: re-scores to %lld, ours %d%s\n", static_cast<long long>(theirs_score),
                    a.score, reverse_paf_alignment(ours).runs == reverse_paf_alignment(theirs).runs ? " (identical)" : "");
    } catch (const Error& e) {
        ADD_FAILURE() << e.what() << "\n ours " << io::paf_line(io::AlignedPair{s0, reverse_complement(s1), a, "",
                                                                              Strand::kReverse})
                      << " theirs " << out;
    }
}

TEST(AlignmentFormats, OneWriterTakesManyAlignments) {
    std::mt19937_64 rng(test::seed() + 64);
    const Case c = make_case(rng);
    // A second reference, "other", whose reverse strand holds the same alignment.
    Sequence other = reverse_complement(c.s1);
    other.name = "other";
    const Sequence other_rc = reverse_complement(other);
    const Alignment reverse = reference_traceback(c.s0, other_rc, Scoring(1, -3, 5, 2)), none;
    ASSERT_FALSE(reverse.runs.empty());
    const std::vector<io::ReferenceInfo> references = {{"target", c.s1.record_length()},
                                                       {"other", other.record_length()}};
    const auto write_all = [&](const std::string& path) {
        io::AlignmentWriter writer(path, io::alignment_format_of(path), references, "chromalign test");
        writer.write({c.s0, c.s1, c.a, ""});
        writer.write({c.s0, other_rc, reverse, "", Strand::kReverse});
        writer.write({c.s0, c.s1, c.a, "", Strand::kForward, true});
        writer.write({c.s0, c.s1, none, ""});
        const Sequence stranger = make_sequence("stranger", "ACGT");
        EXPECT_THROW(writer.write({c.s0, stranger, c.a, ""}), Error) << "a record not in the header";
        writer.close();
    };
    test::TempDir dir;
    for (const char* name : {"many.paf", "many.maf", "many.txt"}) write_all(dir.file(name));
    const std::string paf = file_text(dir.file("many.paf"));
    std::istringstream paf_lines(paf);
    std::string strands;
    for (std::string line; std::getline(paf_lines, line);) strands += fields(line).at(4);
    EXPECT_EQ(strands, "+-+") << paf;
    const std::string maf = file_text(dir.file("many.maf"));
    EXPECT_EQ(maf.rfind("##maf", 0), 0u);
    EXPECT_EQ(maf.find("##maf", 1), std::string::npos) << "one header";
    EXPECT_EQ(maf_rows(maf).size(), 6u) << "three blocks of two rows";
    const std::string view = file_text(dir.file("many.txt"));
    EXPECT_NE(view.find("S0 query, S1 other, strand -\nscore "), std::string::npos) << view.substr(0, 400);
    EXPECT_NE(view.find("S0 query, S1 target, strand +\nno alignment (score 0)\n"), std::string::npos);
    EXPECT_THROW(io::AlignmentWriter("/nonexistent/dir/x.sam", io::AlignmentFormat::kSam, references, ""), Error);
    if (!have_samtools()) GTEST_SKIP() << "samtools is not installed";
    for (const char* name : {"many.sam", "many.bam"}) {
        const std::string path = dir.file(name);
        write_all(path);
        bool ok = false;
        const std::string sam = test::command_output("samtools view -h " + path + " 2>&1", ok);
        ASSERT_TRUE(ok) << sam;
        EXPECT_NE(sam.find("@SQ\tSN:target\tLN:" + std::to_string(c.s1.record_length()) + "\n@SQ\tSN:other\tLN:" +
                           std::to_string(other.record_length()) + "\n"),
                  std::string::npos)
            << sam.substr(0, 400);
        std::istringstream lines(sam);
        std::string flags, rnames;
        for (std::string line; std::getline(lines, line);)
            if (line[0] != '@') {
                const auto f = fields(line);
                flags += f.at(1) + " ";
                rnames += f.at(2) + " ";
            }
        EXPECT_EQ(flags, "0 16 256 4 ");
        EXPECT_EQ(rnames, "target other target * ");
        const std::string flagstat = test::command_output("samtools flagstat " + path + " 2>&1", ok);
        ASSERT_TRUE(ok) << flagstat;
        for (const char* line : {"4 + 0 in total", "1 + 0 secondary", "3 + 0 mapped ("})
            EXPECT_NE(flagstat.find(line), std::string::npos) << line << " in\n" << flagstat;
    }
}

TEST(AlignmentFormats, SamAndBamAreReadBySamtools) {
    if (!have_samtools()) GTEST_SKIP() << "samtools is not installed";
    std::mt19937_64 rng(test::seed() + 50);
    const Case c = make_case(rng);
    ASSERT_GT(c.a.s0_start, 1);
    test::TempDir dir;
    for (const char* ext : {"sam", "bam"}) {
        const std::string path = dir.file(std::string("out.") + ext);
        io::write_alignment(path, io::alignment_format_of(path), io::AlignedPair{c.s0, c.s1, c.a, "chromalign test"});
        bool ok = false;
        const std::string flagstat = test::command_output("samtools flagstat " + path + " 2>&1", ok);
        ASSERT_TRUE(ok) << flagstat;
        EXPECT_NE(flagstat.find("1 + 0 mapped"), std::string::npos) << flagstat;
        const std::string view = test::command_output("samtools view " + path + " 2>&1", ok);
        ASSERT_TRUE(ok) << view;
        const auto f = fields(view.substr(0, view.find('\n')));
        ASSERT_GE(f.size(), 11u) << view;
        EXPECT_EQ(f[0], "query");
        EXPECT_EQ(f[2], "target");
        EXPECT_EQ(f[3], std::to_string(c.a.s1_start));
        std::string cigar = std::to_string(c.a.s0_start - 1) + "H" + c.a.cigar();
        if (c.a.s0_end < c.s0.length()) cigar += std::to_string(c.s0.length() - c.a.s0_end) + "H";
        EXPECT_EQ(f[5], cigar);
        EXPECT_EQ(static_cast<int64_t>(f[9].size()), c.a.s0_end - c.a.s0_start + 1);
        EXPECT_NE(view.find("AS:i:" + std::to_string(c.a.score)), std::string::npos);
        const AlignmentStats s = alignment_stats(c.a);
        EXPECT_NE(view.find("NM:i:" + std::to_string(s.mismatches + s.gap_bases)), std::string::npos);
        // samtools recomputes NM and MD from the reference: they must agree with ours.
        std::ofstream(dir.file("ref.fa")) << ">target\n" << test::preview(c.s1, 100000) << "\n";
        const std::string calmd = test::command_output("samtools calmd " + path + " " + dir.file("ref.fa") + " 2>/dev/null", ok);
        EXPECT_NE(calmd.find("NM:i:" + std::to_string(s.mismatches + s.gap_bases)), std::string::npos) << calmd;
    }
    // An empty alignment is one unmapped record.
    const Alignment none;
    io::write_alignment(dir.file("none.sam"), io::AlignmentFormat::kSam, io::AlignedPair{c.s0, c.s1, none, "x"});
    bool ok = false;
    const std::string flagstat = test::command_output("samtools flagstat " + dir.file("none.sam"), ok);
    EXPECT_TRUE(ok);
    EXPECT_NE(flagstat.find("0 + 0 mapped"), std::string::npos) << flagstat;
}

/// `cigar` with its =/X runs as M, as CRAM gives them back.
std::string cigar_with_m(const std::string& cigar) {
    std::string out;
    int64_t m = 0, number = 0;
    for (const char c : cigar) {
        if (std::isdigit(static_cast<unsigned char>(c))) {
            number = number * 10 + (c - '0');
            continue;
        }
        if (c == '=' || c == 'X' || c == 'M') {
            m += number;
        } else {
            if (m > 0) out += std::to_string(m) + "M";
            m = 0;
            out += std::to_string(number) + c;
        }
        number = 0;
    }
    return m > 0 ? out + std::to_string(m) + "M" : out;
}

TEST(AlignmentFormats, CramNeedsNoReferenceAndKeepsEveryRecord) {
    // Two S0 records on one S1 record, the second earlier on it: htslib could not make a
    // reference out of such reads, and a CRAM file was lost with the run's other outputs.
    if (!have_samtools()) GTEST_SKIP() << "samtools is not installed";
    std::mt19937_64 rng(test::seed() + 51);
    const Case c = make_case(rng);
    const Sequence early = make_sequence("early", text_of(c.s1).substr(0, 120));
    const Alignment e = reference_traceback(early, c.s1, Scoring(1, -3, 5, 2));
    ASSERT_GT(c.a.s1_start, e.s1_start) << "seed " << test::seed();
    test::TempDir dir;
    for (const char* ext : {"sam", "cram"}) {
        const std::string path = dir.file(std::string("two.") + ext);
        io::AlignmentWriter writer(path, io::alignment_format_of(path), {{"target", c.s1.record_length()}}, "test");
        writer.write({c.s0, c.s1, c.a, ""});
        writer.write({early, c.s1, e, ""});
        ASSERT_NO_THROW(writer.close()) << ext << ", seed " << test::seed();
    }
    bool ok = false;
    const std::string sam = test::command_output("samtools view " + dir.file("two.sam") + " 2>&1", ok);
    ASSERT_TRUE(ok) << sam;
    const std::string cram = test::command_output("samtools view " + dir.file("two.cram") + " 2>&1", ok);
    ASSERT_TRUE(ok) << cram;
    std::istringstream sam_lines(sam), cram_lines(cram);
    int records = 0;
    for (std::string a, b; std::getline(sam_lines, a) && std::getline(cram_lines, b); ++records) {
        const auto f = fields(a), g = fields(b);
        ASSERT_GE(g.size(), 11u) << b;
        for (const size_t k : {0, 1, 2, 3, 9}) EXPECT_EQ(g[k], f[k]) << "field " << k + 1 << " of\n" << a << "\n" << b;
        EXPECT_EQ(g[5], cigar_with_m(f[5]));
    }
    EXPECT_EQ(records, 2) << cram;
}

TEST(AlignmentFormats, PafMafAndViewAgreeWithTheAlignment) {
    std::mt19937_64 rng(test::seed() + 51);
    const Case c = make_case(rng);
    const io::AlignedPair pair{c.s0, c.s1, c.a, ""};
    const AlignmentStats s = alignment_stats(c.a);
    const auto paf = fields(io::paf_line(pair));
    ASSERT_EQ(paf.size(), 15u);
    EXPECT_EQ(paf[1], std::to_string(c.s0.length()));
    EXPECT_EQ(paf[2], std::to_string(c.a.s0_start - 1));
    EXPECT_EQ(paf[3], std::to_string(c.a.s0_end));
    EXPECT_EQ(paf[7], std::to_string(c.a.s1_start - 1));
    EXPECT_EQ(paf[8], std::to_string(c.a.s1_end));
    EXPECT_EQ(paf[9], std::to_string(s.matches));
    EXPECT_EQ(paf[10], std::to_string(s.columns));
    EXPECT_EQ(paf[14], "cg:Z:" + c.a.cigar() + "\n");

    const auto rows = maf_rows(io::maf_text(pair));
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0][6].size(), rows[1][6].size()) << "the rows of a block are as long";
    EXPECT_EQ(static_cast<int64_t>(rows[0][6].size()), s.columns);
    const std::string s1 = test::preview(c.s1, 100000), s0 = test::preview(c.s0, 100000);
    EXPECT_EQ(without_gaps(rows[0][6]), s1.substr(static_cast<size_t>(c.a.s1_start - 1), std::stoul(rows[0][3])));
    EXPECT_EQ(without_gaps(rows[1][6]), s0.substr(static_cast<size_t>(c.a.s0_start - 1), std::stoul(rows[1][3])));

    const std::string view = io::block_view(pair);
    EXPECT_NE(view.find(" " + std::to_string(c.a.s1_end) + "\n"), std::string::npos) << "S1's end in the margin";
    EXPECT_NE(view.find(" " + std::to_string(c.a.s0_end) + "\n"), std::string::npos) << "S0's end in the margin";
    EXPECT_EQ(io::alignment_format_of("x.paf"), io::AlignmentFormat::kPaf);
    EXPECT_EQ(io::alignment_format_of("x.txt"), io::AlignmentFormat::kView);
    EXPECT_EQ(io::alignment_format_of("x.SAM"), io::AlignmentFormat::kSam);
    EXPECT_EQ(io::alignment_format_of("dir.v2/x.Paf"), io::AlignmentFormat::kPaf);
    EXPECT_THROW(io::alignment_format_of("x.sam.gz"), Error);
    EXPECT_THROW(io::alignment_format_of("x.paf.BGZ"), Error);
    EXPECT_THROW(io::parse_alignment_format("gff"), Error);
}

TEST(AlignmentFormats, CliWritesTheAlignmentAndReportsIt) {
    test::ResumeHarness h(2000, 2000, test::seed() + 52);
    const test::ChildRun r = h.run({"-q", "-b", "cpu", "--traceback", h.path("out.paf")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::ifstream paf(h.path("out.paf"));
    std::string line;
    ASSERT_TRUE(std::getline(paf, line));
    const auto f = fields(line);
    ASSERT_EQ(f.size(), 15u);
    const AlignmentEnd end = test::ResumeHarness::parse_tsv(r.out);
    EXPECT_EQ(f[3], std::to_string(end.s0_end));
    EXPECT_EQ(f[8], std::to_string(end.s1_end));
    EXPECT_EQ(f[12], "AS:i:" + std::to_string(end.score));
    const test::ChildRun sam = h.run({"-q", "-b", "cpu", "--traceback", h.path("out.sam")});
    ASSERT_EQ(sam.exit_code, 0) << sam.err;
    // The report gains the alignment's figures.
    std::mt19937_64 rng(test::seed() + 53);
    const Case c = make_case(rng);
    cli::RunReport report;
    report.pairs.emplace_back().alignment = &c.a;
    const std::string json = cli::format_report(report, cli::Format::kJson);
    const AlignmentStats st = alignment_stats(c.a);
    for (const std::string& kv : {"\"s0_start\": " + std::to_string(c.a.s0_start), "\"length\": " + std::to_string(st.columns),
                                  "\"matches\": " + std::to_string(st.matches), "\"gap_bases\": " + std::to_string(st.gap_bases)})
        EXPECT_NE(json.find(kv), std::string::npos) << kv << " in\n" << json;
    EXPECT_NE(json.find("\"identity\": "), std::string::npos);
    const test::ChildRun usage = h.run({"-q", "--alignment-format", "sam"});
    EXPECT_EQ(usage.exit_code, 2) << usage.err;
    const test::ChildRun bad = h.run({"-q", "--traceback", h.path("x"), "--alignment-format", "gff"});
    EXPECT_EQ(bad.exit_code, 2) << bad.err;
}

size_t special_row_files(const std::string& dir) {
    size_t count = 0;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) count += e.path().extension() == ".srow";
    return count;
}

// The traceback from stage 1's special rows (one slab or several, each writing its piece)
// and from row 0 alone writes the same alignment as the reference backend's full recompute.
TEST(AlignmentFormats, CliTracebackIsTheSameFromAnyRowsAndBackend) {
    test::ResumeHarness h(7000, 6500, test::seed() + 54);
    const test::ChildRun want = h.run({"-q", "-b", "reference", "--traceback", h.path("ref.paf")});
    ASSERT_EQ(want.exit_code, 0) << want.err;
    const std::string expected = file_text(h.path("ref.paf"));
    ASSERT_FALSE(expected.empty());
    const std::vector<std::vector<std::string>> variants = {
        {"-b", "cpu", "--traceback-dir", h.path("rows1")},
        {"-b", "cpu", "--slabs", "3", "--traceback-dir", h.path("rows3")},
        {"-b", "cpu", "--slabs", "2", "--no-pruning", "--traceback-dir", h.path("rows3")},  // stage 1 done there
        {"-b", "cpu", "--traceback-disk", "0"},
        {"-b", "cpu", "--traceback-disk", "200K"},
    };
    for (const auto& v : variants) {
        std::vector<std::string> args = {"-q", "--traceback", h.path("out.paf")};
        args.insert(args.end(), v.begin(), v.end());
        const test::ChildRun r = h.run(args);
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_EQ(file_text(h.path("out.paf")), expected) << v[v.size() - 1];
    }
    EXPECT_GE(special_row_files(h.path("rows1")), 5u) << "7000 rows keep one row per 1024 or so";
    EXPECT_GE(special_row_files(h.path("rows3")), 15u) << "three slabs write a piece each";
    // Rows of another comparison in the directory are ignored, never used.
    test::ResumeHarness other(7000, 6500, test::seed() + 55);
    const test::ChildRun r = other.run({"-q", "-b", "cpu", "--traceback", other.path("o.paf"), "--traceback-dir", h.path("rows1")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const test::ChildRun o = other.run({"-q", "-b", "reference", "--traceback", other.path("oref.paf")});
    EXPECT_EQ(file_text(other.path("o.paf")), file_text(other.path("oref.paf")));
    const test::ChildRun bad_size = h.run({"-q", "--traceback", h.path("x.paf"), "--traceback-disk", "8Q"});
    EXPECT_EQ(bad_size.exit_code, 2) << bad_size.err;
}

// A region (--s0-record NAME:START-END) is compared alone, but every position the user reads is
// one of its record: regions around the whole pair's best alignment give that alignment,
// written byte for byte as from the whole records, and the same report.
TEST(AlignmentFormats, ARegionGivesPositionsInItsRecord) {
    std::mt19937_64 rng(test::seed() + 58);
    const Case c = make_case(rng);
    test::ResumeHarness h(1, 1, test::seed() + 58);
    io::write_fasta(h.path("q.fa"), c.s0);
    io::write_fasta(h.path("t.fa"), c.s1);
    const auto run = [&h](const std::string& out, std::vector<std::string> more) {
        std::vector<std::string> args = {"-q", "-b", "cpu", "-f", "tsv", "--traceback", h.path(out)};
        args.insert(args.end(), more.begin(), more.end());
        args.push_back(h.path("q.fa"));
        args.push_back(h.path("t.fa"));
        const test::ChildRun r = h.run_command(args);
        EXPECT_EQ(r.exit_code, 0) << r.err;
        return r;
    };
    const test::ChildRun whole = run("whole.paf", {});
    run("whole.sam", {});
    ASSERT_EQ(c.a.s0_start > 1 && c.a.s1_start > 1 && c.a.s0_end < c.s0.length(), true) << "the case has flanks";
    for (int k = 0; k < 3; ++k) {
        // Each region holds the alignment, with 0 or more bases of flank on each side.
        const auto region = [&rng](const Sequence& s, int64_t start, int64_t end) {
            const int64_t from = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(start));
            const int64_t to = end + static_cast<int64_t>(rng() % static_cast<uint64_t>(s.length() - end + 1));
            return s.name + ":" + std::to_string(from) + "-" + std::to_string(to);
        };
        const std::string r0 = region(c.s0, c.a.s0_start, c.a.s0_end), r1 = region(c.s1, c.a.s1_start, c.a.s1_end);
        const test::ChildRun part = run("part.paf", {"--s0-record", r0, "--s1-record", r1});
        EXPECT_EQ(test::ResumeHarness::parse_tsv(part.out), test::ResumeHarness::parse_tsv(whole.out))
            << r0 << " " << r1;
        EXPECT_EQ(file_text(h.path("part.paf")), file_text(h.path("whole.paf"))) << r0 << " " << r1;
        run("part.sam", {"--s0-record", r0, "--s1-record", r1});
        EXPECT_EQ(test::lines_without(file_text(h.path("part.sam")), "@PG"),
                  test::lines_without(file_text(h.path("whole.sam")), "@PG"))
            << r0 << " " << r1;
    }
    // The view and the text report name the region and give record positions.
    const std::string r0 = c.s0.name + ":2-" + std::to_string(c.s0.length() - 1);
    const test::ChildRun text = h.run_command({"-b", "cpu", "-q", "--s0-record", r0, "--traceback", h.path("v.txt"),
                                               h.path("q.fa"), h.path("t.fa")});
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_NE(text.out.find("s0\t" + r0 + " (" + std::to_string(c.s0.length() - 2) + " bp of " +
                            std::to_string(c.s0.length())),
              std::string::npos)
        << text.out;
    EXPECT_NE(text.out.find("s0_start\t" + std::to_string(c.a.s0_start) + "\n"), std::string::npos) << text.out;
    const std::string view = file_text(h.path("v.txt"));
    EXPECT_NE(view.find(", S0 " + std::to_string(c.a.s0_start) + "-" + std::to_string(c.a.s0_end) + ","),
              std::string::npos)
        << view;
}

// With the alignment on standard output (--traceback -), the result goes to standard error, so
// that a pipe gets a SAM samtools reads; -o - as well is refused.
TEST(AlignmentFormats, AnAlignmentOnStandardOutputKeepsItToItself) {
    test::ResumeHarness h(3000, 3000, test::seed() + 59);
    const test::ChildRun sam = h.run({"-q", "-b", "cpu", "--traceback", "-", "--alignment-format", "sam"});
    ASSERT_EQ(sam.exit_code, 0) << sam.err;
    EXPECT_EQ(sam.out.compare(0, 4, "@HD\t"), 0) << sam.out;
    EXPECT_EQ(sam.out.find("score\t"), std::string::npos) << "the result went to standard output:\n" << sam.out;
    EXPECT_NO_THROW(test::ResumeHarness::parse_tsv(sam.err)) << sam.err;
    if (have_samtools()) {
        std::ofstream(h.path("piped.sam")) << sam.out;
        bool ok = false;
        const std::string count = test::command_output("samtools view -c " + h.path("piped.sam") + " 2>&1", ok);
        EXPECT_TRUE(ok) << count;
        EXPECT_EQ(count, "1\n");
    }
    const test::ChildRun both = h.run({"-q", "--traceback", "-", "-o", "-"});
    EXPECT_EQ(both.exit_code, 2) << both.err;
    EXPECT_NE(both.err.find("both write to standard output"), std::string::npos) << both.err;
    const test::ChildRun to_file = h.run({"-q", "-b", "cpu", "--traceback", "-", "-o", h.path("result.tsv")});
    ASSERT_EQ(to_file.exit_code, 0) << to_file.err;
    EXPECT_EQ(test::ResumeHarness::parse_tsv(file_text(h.path("result.tsv"))), test::ResumeHarness::parse_tsv(sam.err));
}

/// The numbers of a polyline's points attribute, as x, y pairs.
std::vector<std::pair<double, double>> polyline_points(const std::string& svg) {
    const size_t at = svg.find("points=\"");
    std::vector<std::pair<double, double>> points;
    if (at == std::string::npos) return points;
    std::istringstream in(svg.substr(at + 8, svg.find('"', at + 8) - at - 8));
    double x = 0, y = 0;
    char comma = 0;
    while (in >> x >> comma >> y) points.emplace_back(x, y);
    return points;
}

TEST(AlignmentFormats, PlotDrawsThePathOverTheScoreMap) {
    const Sequence s0 = make_sequence("s0 <x&y>", std::string(1000, 'A')), s1 = make_sequence("s1", std::string(2000, 'A'));
    Alignment a;
    a.score = 500;
    a.s0_start = 101;
    a.s0_end = 900;
    a.s1_start = 201;
    a.s1_end = 1100;
    a.runs = {{'=', 300}, {'D', 100}, {'=', 500}};
    io::ScoreMap map;
    map.columns = 512;
    map.rows[400] = {0, 120, 480, 0};
    map.rows[800] = {0, 0, 250, 500};
    const std::string path = testing::TempDir() + "/plot.svg";
    io::write_alignment_plot(path, s0, s1, a, map);
    const std::string svg = file_text(path);
    ASSERT_EQ(svg.rfind("<svg", 0), 0u);
    EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
    EXPECT_NE(svg.find("s0 &lt;x&amp;y&gt;"), std::string::npos) << "names are escaped";
    size_t rects = 0;
    for (size_t at = svg.find("<rect"); at != std::string::npos; at = svg.find("<rect", at + 1)) ++rects;
    EXPECT_EQ(rects, 1u + 8u) << "the frame and one rectangle per run";
    EXPECT_EQ(test::count_of(svg, "fill=\"#d9d9d9\""), 4) << "the runs whose H stayed 0 are grey";
    // 800 pixels for 2000 columns: from the cell before the start to the end, through the gap.
    const auto points = polyline_points(svg);
    ASSERT_GE(points.size(), 4u);
    EXPECT_DOUBLE_EQ(points.front().first, 200 * 0.4);
    EXPECT_DOUBLE_EQ(points.front().second, 100 * 0.4);
    EXPECT_DOUBLE_EQ(points.back().first, 1100 * 0.4);
    EXPECT_DOUBLE_EQ(points.back().second, 900 * 0.4);
    EXPECT_THROW(io::write_alignment_plot("/nonexistent/dir/p.svg", s0, s1, a, map), Error);
    // On the reverse strand S1 still runs forward across: the path and the map are mirrored.
    io::write_alignment_plot(path, s0, s1, a, map, Strand::kReverse);
    const std::string mirrored = file_text(path);
    const auto back = polyline_points(mirrored);
    ASSERT_GE(back.size(), 4u);
    EXPECT_DOUBLE_EQ(back.front().first, (2000 - 200) * 0.4);
    EXPECT_DOUBLE_EQ(back.front().second, 100 * 0.4);
    EXPECT_DOUBLE_EQ(back.back().first, (2000 - 1100) * 0.4);
    EXPECT_NE(mirrored.find("<rect x=\"390.4\""), std::string::npos)
        << "run 1 (columns 512-1023) drawn at x = 2000 - 1024";
    EXPECT_NE(mirrored.find("reverse strand"), std::string::npos);
    EXPECT_NE(mirrored.find("S1 1800-901"), std::string::npos) << "S1's forward positions";
    const auto stroke = [](const std::string& text) { return text.substr(text.find("<polyline"), 40); };
    EXPECT_NE(stroke(mirrored), stroke(svg)) << "another colour";
}

TEST(AlignmentFormats, RowsThatCannotBeWrittenCostTimeNotTheAnswer) {
    // 16 KiB a file: the report and the PAF fit, no special row (about 39 KB) does. Writing
    // one fails as on a full disk: a warning, then the traceback from the rows that landed.
    test::ResumeHarness h(7000, 6500, test::seed() + 58);
    const test::ChildRun want = h.run({"-q", "-b", "reference", "--traceback", h.path("ref.paf")});
    ASSERT_EQ(want.exit_code, 0) << want.err;
    const test::ChildRun r =
        h.run_limited("ulimit -f 16", {"-b", "cpu", "--traceback", h.path("out.paf"), "--traceback-dir", h.path("rows")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("no more special rows are kept"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("tracing back from 0 special rows"), std::string::npos) << r.err;
    EXPECT_EQ(file_text(h.path("out.paf")), file_text(h.path("ref.paf")));
}

/// Forwards to a journal that writes every save; throws at save number `crash_at`, as a kill
/// in the middle of the traceback would end it.
class CrashingJournal : public TracebackJournal {
public:
    CrashingJournal(FileJournal& file, int crash_at) : file_(file), crash_at_(crash_at) {}
    bool load(TracebackPoint& p) override { return file_.load(p); }
    bool due() override { return file_.due(); }
    void save(const TracebackPoint& p) override {
        file_.save(p);
        if (++saves_ == crash_at_) throw std::runtime_error("killed");
    }

private:
    FileJournal& file_;
    int crash_at_, saves_ = 0;
};

TEST(AlignmentFormats, AnInterruptedTracebackIsTakenUp) {
    test::ResumeHarness h(7000, 6500, test::seed() + 59);
    const test::ChildRun want = h.run({"-q", "-b", "reference", "--traceback", h.path("ref.paf")});
    ASSERT_EQ(want.exit_code, 0) << want.err;
    const test::ChildRun stage1 = h.run({"-q", "-b", "cpu", "--traceback-dir", h.path("run")});
    ASSERT_EQ(stage1.exit_code, 0) << stage1.err;
    // The traceback of that run, ended after a few windows with its journal written.
    const auto record = read_stage1_record(h.path("run"));
    ASSERT_TRUE(record.has_value());
    const Sequence s0 = io::read_fasta(h.path("a.fa"), {}), s1 = io::read_fasta(h.path("b.fa"), {});
    SpecialRows rows(h.path("run"), rows_identity(s0, s1), record->scoring);
    ASSERT_GE(rows.count(), 5);
    FileJournal file(h.path("run"), rows_identity(s0, s1), record->scoring, record->result, 0);
    CrashingJournal crashing(file, 3);
    EXPECT_THROW(linear_traceback(s0, s1, record->scoring, record->result, rows, {}, nullptr, nullptr, &crashing),
                 std::runtime_error);
    TracebackPoint saved;
    ASSERT_TRUE(file.load(saved));
    EXPECT_FALSE(saved.runs_back.empty());
    // The CLI takes it up, writes the reference's alignment, and removes the journal.
    const test::ChildRun later = h.run_command({"traceback", h.path("run"), "--traceback", h.path("later.paf")});
    ASSERT_EQ(later.exit_code, 0) << later.err;
    EXPECT_NE(later.err.find("taking up the traceback at row " + std::to_string(saved.i)), std::string::npos)
        << later.err;
    EXPECT_EQ(file_text(h.path("later.paf")), file_text(h.path("ref.paf")));
    EXPECT_FALSE(std::filesystem::exists(file.path()));
    // A journal of another traceback, or a damaged one, is not taken up.
    FileJournal other(h.path("run"), rows_identity(s0, s1), record->scoring,
                           AlignmentEnd{record->result.score, record->result.s0_end - 1, record->result.s1_end}, 0);
    other.save(saved);
    EXPECT_FALSE(file.load(saved));
    file.save(saved);
    {
        std::fstream damage(file.path(), std::ios::in | std::ios::out | std::ios::binary);
        damage.seekp(100);
        damage.put('\x7f');
    }
    EXPECT_FALSE(file.load(saved));
}

TEST(AlignmentFormats, ATracebackKilledNineTimesGivesTheSameAlignment) {
    // A 200k pair with 4 special rows: the traceback sweeps windows of about 40k rows on one
    // thread, a second or more, saving its walk every 0.1 s. Each run is killed (SIGKILL) at a
    // random moment after it wrote the journal; the next takes it up, and the last one's PAF
    // equals that of a traceback never interrupted.
    std::mt19937_64 rng(test::seed() + 61);
    test::ResumeHarness h(200000, 195000, test::seed() + 61);
    const test::ChildRun stage1 =
        h.run({"-q", "-b", "cpu", "--traceback-dir", h.path("run"), "--traceback-disk", "4800K"});
    ASSERT_EQ(stage1.exit_code, 0) << stage1.err;
    const std::vector<std::string> traceback = {"traceback", h.path("run"), "-b", "cpu", "--threads", "1",
                                                "--checkpoint-every", "0.1s", "--traceback"};
    const auto run = [&](const std::string& paf, int kill_after_ms) {
        std::vector<std::string> args = traceback;
        args.push_back(h.path(paf));
        return h.run_command(args, kill_after_ms, SIGKILL, kill_after_ms >= 0 ? h.path("run/traceback.journal") : "");
    };
    const test::ChildRun whole = run("whole.paf", -1);
    ASSERT_EQ(whole.exit_code, 0) << whole.err;
    int killed = 0, taken_up = 0;
    for (int k = 0; k < 3; ++k) {
        const int after_ms = static_cast<int>(rng() % 400);
        const test::ChildRun r = run("killed.paf", after_ms);
        taken_up += r.err.find("taking up the traceback") != std::string::npos;
        std::printf("[ kill -9  ] %d ms after a journal save: exit %d%s\n", after_ms, r.exit_code,
                    r.err.find("taking up") != std::string::npos ? " (had taken up a journal)" : "");
        if (r.exit_code == 0) {
            EXPECT_EQ(file_text(h.path("killed.paf")), file_text(h.path("whole.paf")));
            continue;
        }
        ASSERT_EQ(r.exit_code, 128 + SIGKILL) << r.err;
        killed += std::filesystem::exists(h.path("run/traceback.journal"));
    }
    const test::ChildRun last = run("killed.paf", -1);
    ASSERT_EQ(last.exit_code, 0) << last.err;
    taken_up += last.err.find("taking up the traceback") != std::string::npos;
    EXPECT_EQ(file_text(h.path("killed.paf")), file_text(h.path("whole.paf")));
    EXPECT_GE(killed, 1) << "no run was killed mid-way: nothing was tested";
    EXPECT_GE(taken_up, killed) << "a run after a kill did not take up the journal";
    EXPECT_FALSE(std::filesystem::exists(h.path("run/traceback.journal"))) << "a finished traceback keeps its journal";
}

TEST(AlignmentFormats, ThePlotShowsWherePruningSkippedBlocks) {
    // Pruning leaves H at 0 where it skipped: grey regions, far from the alignment; without
    // pruning every region computed some H above 0, and none is grey.
    test::ResumeHarness h(30000, 30000, test::seed() + 57);
    for (const bool pruning : {true, false}) {
        std::vector<std::string> args = {"-q", "-b", "cpu", "--traceback", h.path("a.paf"), "--plot", h.path("p.svg")};
        if (!pruning) args.push_back("--no-pruning");
        const test::ChildRun r = h.run(args);
        ASSERT_EQ(r.exit_code, 0) << r.err;
        const std::string svg = file_text(h.path("p.svg"));
        const int grey = test::count_of(svg, "fill=\"#d9d9d9\""), blue = test::count_of(svg, "fill=\"#");
        std::printf("[ plot     ] %s: %d of %d regions grey\n", pruning ? "pruned" : "not pruned", grey, blue);
        if (pruning)
            EXPECT_GT(grey, 0) << "no region drawn as skipped";
        else
            EXPECT_EQ(grey, 0) << "a region drawn as skipped where nothing was";
        EXPECT_GT(blue, grey) << "no region with a score";
    }
}

TEST(AlignmentFormats, TracebackLaterFromAStage1Directory) {
    test::ResumeHarness h(7000, 6500, test::seed() + 56);
    const test::ChildRun want = h.run({"-q", "-b", "reference", "--traceback", h.path("ref.paf")});
    ASSERT_EQ(want.exit_code, 0) << want.err;
    // Stage 1 alone keeps its rows and its record; the traceback comes later, on another backend.
    const test::ChildRun stage1 = h.run({"-q", "-b", "cpu", "--slabs", "2", "--traceback-dir", h.path("run")});
    ASSERT_EQ(stage1.exit_code, 0) << stage1.err;
    EXPECT_TRUE(std::filesystem::exists(h.path("run/stage1.json")));
    EXPECT_GE(special_row_files(h.path("run")), 10u);
    const test::ChildRun later = h.run_command({"traceback", h.path("run"), "--traceback", h.path("later.paf"), "-b",
                                                "cpu", "-f", "json", "--plot", h.path("later.svg")});
    ASSERT_EQ(later.exit_code, 0) << later.err;
    const std::string svg = file_text(h.path("later.svg"));
    EXPECT_NE(svg.find("<polyline"), std::string::npos);
    EXPECT_NE(svg.find("fill=\"#"), std::string::npos) << "no score map from the special rows";
    const test::ChildRun plot_alone = h.run({"-q", "--plot", h.path("p.svg")});
    EXPECT_EQ(plot_alone.exit_code, 2) << "--plot needs --traceback";
    EXPECT_EQ(file_text(h.path("later.paf")), file_text(h.path("ref.paf")));
    EXPECT_NE(later.err.find("stage 1's result from"), std::string::npos) << later.err;
    EXPECT_EQ(nlohmann::json::parse(later.out).at("cells_this_run").get<int64_t>(), 0) << "stage 1 ran again";
    // The sequences named on the command line (files that moved) are checked against the record.
    test::ResumeHarness other(7000, 6500, test::seed() + 57);
    const test::ChildRun moved = h.run_command({"traceback", h.path("run"), "--traceback", h.path("x.paf"),
                                                other.path("a.fa"), other.path("b.fa")});
    EXPECT_EQ(moved.exit_code, 1) << moved.err;
    EXPECT_NE(moved.err.find("stage1.json is of another comparison"), std::string::npos) << moved.err;
    // A directory without a record, a scoring that is not the record's, no output file.
    const test::ChildRun none = h.run_command({"traceback", h.path("nothing"), "--traceback", h.path("x.paf")});
    EXPECT_EQ(none.exit_code, 2) << none.err;
    EXPECT_NE(none.err.find("no stage 1 record"), std::string::npos) << none.err;
    const test::ChildRun scoring =
        h.run_command({"traceback", h.path("run"), "--traceback", h.path("x.paf"), "--preset", "blastn"});
    EXPECT_EQ(scoring.exit_code, 2) << scoring.err;
    const test::ChildRun strand =
        h.run_command({"traceback", h.path("run"), "--traceback", h.path("x.paf"), "--strand", "reverse"});
    EXPECT_EQ(strand.exit_code, 2) << strand.err;
    EXPECT_NE(strand.err.find("takes its strands from"), std::string::npos) << strand.err;
    const test::ChildRun no_file = h.run_command({"traceback", h.path("run")});
    EXPECT_EQ(no_file.exit_code, 2) << no_file.err;
    // A run with --traceback on a directory of another comparison runs stage 1 itself.
    const test::ChildRun rerun = other.run({"-q", "-b", "cpu", "--traceback", other.path("o.paf"),
                                            "--traceback-dir", h.path("run")});
    ASSERT_EQ(rerun.exit_code, 0) << rerun.err;
    const test::ChildRun oref = other.run({"-q", "-b", "reference", "--traceback", other.path("oref.paf")});
    EXPECT_EQ(file_text(other.path("o.paf")), file_text(other.path("oref.paf")));
}

TEST(AlignmentFormats, RecordsNamedLikeRegionsAreTracedBackFromTheirJob) {
    // Records of samtools faidx regions ("x:101-700") and odd names ("seq:abc-def"): a job of
    // every record wrote their selectors as text, which the traceback read as regions of
    // records "x" and "seq" (or refused), so a saved stage 1 could not be traced back.
    test::ResumeHarness h(10, 10, test::seed() + 58);
    std::mt19937_64 rng(test::seed() + 58);
    const std::string target = gen::random_dna(3000, rng);
    test::write_text(h.path("q.fa"), ">x:101-700\n" + target.substr(100, 600) + "\n>seq:abc-def\n" +
                                         target.substr(1500, 800) + "\n");
    test::write_text(h.path("t.fa"), ">t\n" + target + "\n");
    const test::ChildRun want = h.run_command({"-q", "-b", "reference", "--traceback", h.path("ref.paf"),
                                               h.path("q.fa"), h.path("t.fa")});
    ASSERT_EQ(want.exit_code, 0) << want.err;
    const test::ChildRun stage1 = h.run_command({"-q", "-b", "cpu", "--traceback-dir", h.path("run"), h.path("q.fa"),
                                                 h.path("t.fa")});
    ASSERT_EQ(stage1.exit_code, 0) << stage1.err;
    const test::ChildRun later = h.run_command({"traceback", h.path("run"), "-q", "-b", "cpu", "--traceback",
                                                h.path("later.paf")});
    ASSERT_EQ(later.exit_code, 0) << later.err;
    EXPECT_EQ(file_text(h.path("later.paf")), file_text(h.path("ref.paf")));
    // Each selected by its name: whole where the text is a record's name, in braces otherwise.
    const test::ChildRun named = h.run_command({"-q", "-b", "cpu", "--traceback", h.path("named.paf"), "--s0-record",
                                                "x:101-700", "--s0-record", "{seq:abc-def}", h.path("q.fa"),
                                                h.path("t.fa")});
    ASSERT_EQ(named.exit_code, 0) << named.err;
    EXPECT_EQ(file_text(h.path("named.paf")), file_text(h.path("ref.paf")));
}

}  // namespace
}  // namespace chromalign
