//! @file Table-driven tests of the FASTA reader: each case is file bytes, a selector and the
//! expected outcome.
#include <gtest/gtest.h>
#include <htslib/bgzf.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "engine/error.hpp"
#include "io/fasta.hpp"

#ifndef CHROMALIGN_SOURCE_DIR
#define CHROMALIGN_SOURCE_DIR "."
#endif

namespace chromalign::io {
namespace {

namespace fs = std::filesystem;

/// How a case's bytes reach the disk; the damaged forms model files cut short or corrupted.
enum class Form {
    kPlain,
    kGzip,
    kGzipTwoMembers,  ///< the bytes split into two concatenated gzip members, as `cat a.gz b.gz`
    kGzipCut,         ///< gzip cut in half
    kGzipTrailingGarbage,  ///< gzip followed by text that is not gzip
    kBgzf,
    kBgzfCut,    ///< BGZF cut in half
    kBgzfNoEof,  ///< BGZF cut at a block boundary: only the end-of-file marker is gone
    kMissing,    ///< no file at all
    kDirectory,  ///< a directory where the file should be
};

/// Either a sequence (bases as ACGTN, N standing for kBaseOther) with its record name and an
/// expected note substring (empty: no note), or an error substring.
struct Outcome {
    bool ok;
    std::string name;
    std::string bases;
    std::string text;
};

Outcome reads(const std::string& name, const std::string& bases, const std::string& note = "") {
    return {true, name, bases, note};
}

Outcome fails(const std::string& substring) { return {false, "", "", substring}; }

struct Case {
    const char* label;  ///< gtest name suffix: letters, digits and '_' only
    Form form;
    std::string bytes;  ///< decompressed file contents
    std::string selector;
    Outcome want;
};

/// Keeps gtest from dumping a Case as raw bytes when one fails.
void PrintTo(const Case& c, std::ostream* os) { *os << c.label; }

/// Deterministic pseudo-random ACGT, large enough to span several BGZF blocks.
std::string pseudo_random_bases(size_t n) {
    std::string bases(n, 'A');
    uint32_t state = 12345;
    for (auto& b : bases) {
        state = state * 1664525u + 1013904223u;
        b = "ACGT"[state >> 30];
    }
    return bases;
}

std::string wrap(const std::string& bases, size_t width) {
    std::string text;
    for (size_t i = 0; i < bases.size(); i += width) text += bases.substr(i, width) + "\n";
    return text;
}

const std::string kLong = pseudo_random_bases(200000);
const std::string kLongFasta = ">big\n" + wrap(kLong, 60);

std::string multi_record(int count) {
    std::string text;
    for (int i = 1; i <= count; ++i) text += ">r" + std::to_string(i) + "\nACGT\n";
    return text;
}

const std::vector<Case>& cases() {
    static const std::vector<Case> table = {
        // Well-formed input.
        {"plain_single", Form::kPlain, ">chr1\nACGT\n", "", reads("chr1", "ACGT")},
        {"header_description", Form::kPlain, ">chr1 Homo sapiens\tx\nACGT\n", "",
         reads("chr1", "ACGT")},
        {"multi_line", Form::kPlain, ">chr1\nACG\nTTA\nC\n", "", reads("chr1", "ACGTTAC")},
        {"soft_masked", Form::kPlain, ">chr1\nacgtACGTnNa\n", "", reads("chr1", "ACGTACGTNNA")},
        {"u_reads_as_t", Form::kPlain, ">rna\nACGUuu\n", "", reads("rna", "ACGTTT")},
        {"iupac_other", Form::kPlain, ">x\nNRYSWKMBDHVnryswkmbdhvA\n", "",
         reads("x", "NNNNNNNNNNNNNNNNNNNNNNA")},
        {"crlf", Form::kPlain, ">chr1 d\r\nAC\r\nGT\r\n", "", reads("chr1", "ACGT")},
        {"no_final_newline", Form::kPlain, ">chr1\nAC\nGT", "", reads("chr1", "ACGT")},
        {"blank_lines", Form::kPlain, "\n\n>chr1\n\nAC\n\r\n\nGT\n\n", "", reads("chr1", "ACGT")},
        {"long_single_line", Form::kPlain, ">big\n" + kLong + "\n", "", reads("big", kLong)},

        // Record selection.
        {"several_first_by_default", Form::kPlain, ">chr1\nAC\n>chr2\nGG\n>chr3\nTT\n", "",
         reads(
             "chr1", "AC",
             "holds 3 records; using the first, 'chr1' (choose one with --s0-record/--s1-record)")},
        {"several_rest_not_validated", Form::kPlain, ">chr1\nAC\n>chr2\n*12 junk\n>chr3\n", "",
         reads("chr1", "AC", "holds 3 records")},
        {"several_headers_still_checked", Form::kPlain, ">chr1\nAC\n>chr2\nGG\n>\nTT\n", "",
         fails("line 5: header line has an empty record name")},
        {"by_name_middle", Form::kPlain, ">chr1\nAC\n>chr2 desc\nGG\nCC\n>chr3\nTT\n", "chr2",
         reads("chr2", "GGCC")},
        {"by_name_last", Form::kPlain, ">chr1\nAC\n>chr2\nGG\n>chr3\nTT", "chr3",
         reads("chr3", "TT")},
        {"by_name_is_whole_word", Form::kPlain, ">chr10\nAC\n>chr1\nGG\n", "chr1",
         reads("chr1", "GG")},
        {"missing_name", Form::kPlain, ">chr1\nAC\n>chr2\nGG\n", "chrX",
         fails("no record named 'chrX'; the file holds 2 records: 'chr1', 'chr2'")},
        {"missing_name_many", Form::kPlain, multi_record(7), "chrX",
         fails("7 records: 'r1', 'r2', 'r3', 'r4', 'r5', ... (2 more)")},
        {"empty_not_selected", Form::kPlain, ">chr1\n>chr2\nACGT\n>chr3\n", "chr2",
         reads("chr2", "ACGT")},

        // Regions.
        {"region_across_lines", Form::kPlain, ">chr1\nAC\n>chr2\nACG\nTTA\nC\n", "chr2:2-6",
         reads("chr2", "CGTTA")},
        {"region_whole", Form::kPlain, ">chr1\nACG\nTTA\n", "chr1:1-6", reads("chr1", "ACGTTA")},
        {"region_one_base", Form::kPlain, ">chr1\nACG\nTTA\n", "chr1:4-4", reads("chr1", "T")},
        {"region_end_beyond", Form::kPlain, ">chr1\nACGT\nACGT\n", "chr1:3-10",
         fails("record 'chr1': region 3-10 extends beyond the record, which is 8 bases long")},
        {"region_start_beyond", Form::kPlain, ">chr1\nACGT\n", "chr1:9-10",
         fails("which is 4 bases long")},
        {"region_commas", Form::kPlain, kLongFasta, "big:1,000-1,002",
         reads("big", kLong.substr(999, 3))},
        {"region_validates_whole_record", Form::kPlain, ">chr1\nACGT\nAC*T\n", "chr1:1-2",
         fails("record 'chr1', line 3: invalid character '*'")},
        {"name_with_colon", Form::kPlain, ">HLA:1\nACGT\n", "HLA:1", reads("HLA:1", "ACGT")},
        {"name_with_colon_region", Form::kPlain, ">HLA:1\nACGT\n", "HLA:1:2-3",
         reads("HLA:1", "CG")},

        // Compression.
        {"gzip", Form::kGzip, kLongFasta, "", reads("big", kLong)},
        {"gzip_two_members", Form::kGzipTwoMembers, ">chr1\nAC\n>chr2\nACGTACGT\nTTTT\n", "chr2",
         reads("chr2", "ACGTACGTTTTT")},
        {"bgzf", Form::kBgzf, ">chr1\nACGT\n", "", reads("chr1", "ACGT")},
        {"bgzf_many_blocks", Form::kBgzf, kLongFasta, "", reads("big", kLong)},
        {"bgzf_region", Form::kBgzf, kLongFasta, "big:150001-150010",
         reads("big", kLong.substr(150000, 10))},
        {"gzip_truncated", Form::kGzipCut, kLongFasta, "", fails("record 'big', line ")},
        {"gzip_truncated_small", Form::kGzipCut, ">chr1\nACGTACGTAAAACCCCGGGGTTTT\n", "",
         fails("decompression failed")},
        {"gzip_trailing_garbage", Form::kGzipTrailingGarbage, ">chr1\nACGT\n", "",
         fails("decompression failed")},
        {"bgzf_truncated", Form::kBgzfCut, kLongFasta, "", fails("probably truncated")},
        {"bgzf_missing_eof_marker", Form::kBgzfNoEof, kLongFasta, "",
         fails("end-of-file marker is missing")},

        // Files that are not FASTA.
        {"empty_file", Form::kPlain, "", "", fails("empty file")},
        {"only_blank_lines", Form::kPlain, "\n\r\n\n", "", fails("only blank lines")},
        {"cr_only_line_ends", Form::kPlain, ">chr1 desc\rACGT\rACGT\r", "",
         fails("line 1: carriage return inside a line: the file ends its lines with CR alone")},
        {"no_header", Form::kPlain, "ACGT\n>chr1\nACGT\n", "",
         fails("line 1: no FASTA record (first non-empty line does not start with '>')")},
        {"no_header_after_blank", Form::kPlain, "\n\nACGT\n", "", fails("line 3: no FASTA record")},
        {"png_header", Form::kPlain, std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16), "",
         fails("line 1: no FASTA record")},
        {"binary_after_header", Form::kPlain, std::string(">x\n\x89PNG\r\n\x1a\n", 11), "",
         fails("record 'x', line 2: invalid character byte 0x89 at column 1")},
        {"missing_file", Form::kMissing, "", "", fails("cannot open: No such file or directory")},
        {"directory", Form::kDirectory, "", "", fails("cannot open: Is a directory")},

        // Malformed records.
        {"empty_selected_at_eof", Form::kPlain, ">chr1\n", "",
         fails("record 'chr1', line 1: empty sequence")},
        {"empty_selected_before_header", Form::kPlain, ">chr1\n\n>chr2\nACGT\n", "",
         fails("record 'chr1', line 1: empty sequence")},
        {"empty_selected_by_name", Form::kPlain, ">chr1\nAC\n>chr2\n>chr3\nACGT\n", "chr2",
         fails("record 'chr2', line 3: empty sequence")},
        {"empty_header_name", Form::kPlain, ">chr1\nAC\n> chr2\nGG\n", "chr2",
         fails("line 3: header line has an empty record name")},
        {"bare_gt", Form::kPlain, ">\nACGT\n", "",
         fails("line 1: header line has an empty record name")},
        {"digit", Form::kPlain, ">chr1\nACGT\nAC1GT\n", "",
         fails("record 'chr1', line 3: invalid character '1' (0x31) at column 3")},
        {"dash", Form::kPlain, ">chr1\nAC-GT\n", "",
         fails("line 2: invalid character '-' (0x2D) at column 3")},
        {"star", Form::kPlain, ">chr1\nACGT*\n", "",
         fails("line 2: invalid character '*' (0x2A) at column 5")},
        {"dot", Form::kPlain, ">chr1\n.ACGT\n", "",
         fails("line 2: invalid character '.' (0x2E) at column 1")},
        {"letter_x", Form::kPlain, ">chr1\nACGTX\n", "",
         fails("line 2: invalid character 'X' (0x58)")},
        {"letter_e", Form::kPlain, ">chr1\nACGTe\n", "",
         fails("line 2: invalid character 'e' (0x65)")},
        {"space", Form::kPlain, ">chr1\nAC GT\n", "",
         fails("line 2: invalid character a space (0x20) at column 3; spaces and tabs are not "
               "allowed")},
        {"tab", Form::kPlain, ">chr1\nACGT\t\n", "",
         fails("line 2: invalid character a tab (0x09) at column 5")},
        {"control_byte", Form::kPlain, ">chr1\nAC\x01GT\n", "",
         fails("line 2: invalid character byte 0x01 at column 3")},
        {"nul_byte", Form::kPlain, std::string(">chr1\nAC\0GT\n", 12), "",
         fails("line 2: invalid character byte 0x00 at column 3")},
        {"byte_ff", Form::kPlain, ">chr1\nACGT\xff\n", "",
         fails("line 2: invalid character byte 0xFF at column 5")},
        {"double_cr", Form::kPlain, ">chr1\nACGT\r\r\n", "",
         fails("line 2: invalid character byte 0x0D at column 5")},
        {"bad_byte_in_gzip", Form::kGzip, ">chr1\nACGT\nAC#T\n", "",
         fails("record 'chr1', line 3: invalid character '#'")},
    };
    return table;
}

void write_file(const fs::path& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    ASSERT_TRUE(out.good()) << path;
}

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

/// Appends one gzip member holding `bytes` to `path`.
void append_gzip(const fs::path& path, const std::string& bytes) {
    gzFile gz = gzopen(path.c_str(), "ab");
    ASSERT_NE(gz, nullptr);
    if (!bytes.empty()) {
        ASSERT_EQ(gzwrite(gz, bytes.data(), static_cast<unsigned>(bytes.size())),
                  static_cast<int>(bytes.size()));
    }
    ASSERT_EQ(gzclose(gz), Z_OK);
}

void write_bgzf(const fs::path& path, const std::string& bytes) {
    BGZF* fp = bgzf_open(path.c_str(), "w");
    ASSERT_NE(fp, nullptr);
    ASSERT_EQ(bgzf_write(fp, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
    ASSERT_EQ(bgzf_close(fp), 0);
}

void keep_prefix(const fs::path& path, size_t size) {
    write_file(path, read_file(path).substr(0, size));
}

/// Puts `c` on disk in a fresh directory and returns its path.
fs::path materialise(const Case& c, const fs::path& dir) {
    const fs::path path = dir / (std::string(c.label) + ".fa");
    constexpr size_t kBgzfEofMarkerSize = 28;
    switch (c.form) {
    case Form::kPlain: write_file(path, c.bytes); break;
    case Form::kGzip: append_gzip(path, c.bytes); break;
    case Form::kGzipTwoMembers:
        append_gzip(path, c.bytes.substr(0, c.bytes.size() / 2));
        append_gzip(path, c.bytes.substr(c.bytes.size() / 2));
        break;
    case Form::kGzipCut:
        append_gzip(path, c.bytes);
        keep_prefix(path, fs::file_size(path) / 2);
        break;
    case Form::kGzipTrailingGarbage:
        append_gzip(path, c.bytes);
        write_file(path, read_file(path) + "trailing garbage\n");
        break;
    case Form::kBgzf: write_bgzf(path, c.bytes); break;
    case Form::kBgzfCut:
        write_bgzf(path, c.bytes);
        keep_prefix(path, fs::file_size(path) / 2);
        break;
    case Form::kBgzfNoEof:
        write_bgzf(path, c.bytes);
        keep_prefix(path, fs::file_size(path) - kBgzfEofMarkerSize);
        break;
    case Form::kMissing: break;
    case Form::kDirectory: fs::create_directory(path); break;
    }
    return path;
}

std::string decode(const Sequence& seq) {
    std::string bases;
    for (uint8_t code : seq.codes) bases += "ACGTN"[code];
    return bases;
}

class FastaCase : public ::testing::TestWithParam<Case> {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() /
               ("chromalign_test_io_" + std::to_string(::getpid()) + "_" + GetParam().label);
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    fs::path dir_;
};

TEST_P(FastaCase, ReadsOrRejects) {
    const Case& c = GetParam();
    const fs::path path = materialise(c, dir_);
    ASSERT_FALSE(HasFatalFailure());
    std::vector<std::string> notes;
    if (c.want.ok) {
        const Sequence seq = read_fasta(path.string(), parse_selector(c.selector), &notes);
        EXPECT_EQ(seq.name, c.want.name);
        EXPECT_EQ(seq.source, path.string());
        EXPECT_EQ(decode(seq), c.want.bases);
        if (c.want.text.empty()) {
            EXPECT_TRUE(notes.empty()) << notes.front();
        } else {
            ASSERT_EQ(notes.size(), 1u);
            EXPECT_EQ(notes[0].rfind(path.string(), 0), 0u) << notes[0];
            EXPECT_NE(notes[0].find(c.want.text), std::string::npos) << notes[0];
        }
        return;
    }
    try {
        read_fasta(path.string(), parse_selector(c.selector), &notes);
        FAIL() << "read succeeded; expected an error containing: " << c.want.text;
    } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(c.want.text), std::string::npos) << what;
        EXPECT_EQ(what.rfind(path.string(), 0), 0u)
            << "message must start with the file name: " << what;
        EXPECT_EQ(what.find('\n'), std::string::npos) << "message must be one line: " << what;
    }
}

INSTANTIATE_TEST_SUITE_P(Table, FastaCase, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& param) {
                             return std::string(param.param.label);
                         });

/// A selector and either its parse or an Error substring (error non-empty).
struct SelectorCase {
    const char* text;
    std::string record;
    int64_t start;
    int64_t end;
    std::string error;
};

TEST(ParseSelector, Table) {
    const std::vector<SelectorCase> table = {
        {"", "", 0, 0, ""},
        {"chr1", "chr1", 0, 0, ""},
        {"chr1:100-200", "chr1", 100, 200, ""},
        {"chr1:1,000-2,000", "chr1", 1000, 2000, ""},
        {"chr1:5-5", "chr1", 5, 5, ""},
        {"HLA:1", "HLA:1", 0, 0, ""},
        {"HLA-A*01:01", "HLA-A*01:01", 0, 0, ""},
        {"HLA:1:3-4", "HLA:1", 3, 4, ""},
        {"chr1:0-5", "", 0, 0, "START must be at least 1"},
        {"chr1:5-3", "", 0, 0, "END is before START"},
        {"chr1:x-y", "", 0, 0, "must be two whole numbers"},
        {"chr1:5-", "", 0, 0, "must be two whole numbers"},
        {"chr1:-5", "", 0, 0, "must be two whole numbers"},
        {"chr1:1-2-3", "", 0, 0, "must be two whole numbers"},
        {"chr1:,-5", "", 0, 0, "must be two whole numbers"},
        {"chr1:1-99999999999999999999", "", 0, 0, "must be two whole numbers"},
        {":1-5", "", 0, 0, "no record name"},
    };
    for (const SelectorCase& c : table) {
        SCOPED_TRACE(c.text);
        if (c.error.empty()) {
            const RecordSelector s = parse_selector(c.text);
            EXPECT_EQ(s.record, c.record);
            EXPECT_EQ(s.start, c.start);
            EXPECT_EQ(s.end, c.end);
            EXPECT_EQ(s.has_region(), c.start > 0);
            continue;
        }
        try {
            parse_selector(c.text);
            ADD_FAILURE() << "parsed; expected an error containing: " << c.error;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(c.error), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find(c.text), std::string::npos) << e.what();
        }
    }
}

TEST(BundledExample, DeformedWingVirus) {
    const std::string path = std::string(CHROMALIGN_SOURCE_DIR) +
                             "/data/example/NC_004830.2_deformed_wing_virus.fasta.gz";
    std::vector<std::string> notes;
    const Sequence seq = read_fasta(path, RecordSelector{}, &notes);
    EXPECT_EQ(seq.name.rfind("gi|71480055|ref|NC_004830.2|", 0), 0u) << seq.name;
    EXPECT_EQ(seq.length(), 10140);
    int64_t other = 0;
    for (uint8_t code : seq.codes) other += code == kBaseOther;
    EXPECT_EQ(other, 69);
    EXPECT_TRUE(notes.empty());
}

TEST(FastaLongLines, LinesLongerThanAPieceReadWholeAndErrorsNameTheirColumn) {
    // The reader holds 1 MiB of a line at a time: lines of 2.5 MB cross pieces, with LF and
    // CRLF ends, a CR falling on a piece boundary, and no final newline.
    const std::string bases = pseudo_random_bases(2500000);
    const fs::path dir = fs::temp_directory_path() / ("chromalign_long_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    for (const std::string& end : {std::string("\n"), std::string("\r\n")}) {
        write_file(dir / "long.fa", ">long\n" + bases + end + bases.substr(0, 1048575) + end + ">next\nAC" + end);
        const Sequence seq = read_fasta((dir / "long.fa").string(), RecordSelector{}, nullptr);
        ASSERT_EQ(seq.length(), 2500000 + 1048575) << "line end " << (end.size() == 2 ? "CRLF" : "LF");
        EXPECT_EQ(seq.codes, make_sequence("x", bases + bases.substr(0, 1048575)).codes);
    }
    write_file(dir / "tail.fa", ">tail\n" + bases);  // one line, no newline at all
    EXPECT_EQ(read_fasta((dir / "tail.fa").string(), RecordSelector{}, nullptr).length(), 2500000);
    std::string bad = bases;
    bad[2000000] = '*';
    write_file(dir / "bad.fa", ">bad\n" + bad + "\n");
    try {
        read_fasta((dir / "bad.fa").string(), RecordSelector{}, nullptr);
        ADD_FAILURE() << "an invalid character was accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("line 2: invalid character '*' (0x2A) at column 2000001"), std::string::npos)
            << e.what();
    }
    write_file(dir / "header.fa", ">" + bases + "\nACGT\n");
    try {
        read_fasta((dir / "header.fa").string(), RecordSelector{}, nullptr);
        ADD_FAILURE() << "a header of 2.5 MB was accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("header line longer than"), std::string::npos) << e.what();
    }
    fs::remove_all(dir);
}

}  // namespace
}  // namespace chromalign::io
