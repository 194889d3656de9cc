//! @file Table-driven tests of the FASTA reader and the record lists: each case is file bytes,
//! selectors and the expected outcome.
#include <gtest/gtest.h>
#include <htslib/bgzf.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <csignal>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/error.hpp"
#include "io/fasta.hpp"
#include "io/record_lists.hpp"
#include "tests/test_support.hpp"

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
    test::write_text(path, test::read_text(path).substr(0, size));
}

/// Puts `bytes` on disk in `dir` in the given form and returns the file's path.
fs::path materialise(const char* label, Form form, const std::string& bytes, const fs::path& dir) {
    const fs::path path = dir / (std::string(label) + ".fa");
    constexpr size_t kBgzfEofMarkerSize = 28;
    switch (form) {
    case Form::kPlain: test::write_text(path, bytes); break;
    case Form::kGzip: append_gzip(path, bytes); break;
    case Form::kGzipTwoMembers:
        append_gzip(path, bytes.substr(0, bytes.size() / 2));
        append_gzip(path, bytes.substr(bytes.size() / 2));
        break;
    case Form::kGzipCut:
        append_gzip(path, bytes);
        keep_prefix(path, fs::file_size(path) / 2);
        break;
    case Form::kGzipTrailingGarbage:
        append_gzip(path, bytes);
        test::write_text(path, test::read_text(path) + "trailing garbage\n");
        break;
    case Form::kBgzf: write_bgzf(path, bytes); break;
    case Form::kBgzfCut:
        write_bgzf(path, bytes);
        keep_prefix(path, fs::file_size(path) / 2);
        break;
    case Form::kBgzfNoEof:
        write_bgzf(path, bytes);
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

/// A fresh directory for one test's files, removed when the test ends.
class ScratchDir {
public:
    explicit ScratchDir(const std::string& label)
        : path_(fs::temp_directory_path() /
                ("chromalign_test_io_" + std::to_string(::getpid()) + "_" + label)) {
        fs::remove_all(path_);
        fs::create_directories(path_);
    }
    ~ScratchDir() { fs::remove_all(path_); }
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;

    const fs::path& path() const { return path_; }

private:
    fs::path path_;
};

/// Expects `read` to throw an InputError of one line that starts with `path` and holds `text`.
void expect_input_error(const fs::path& path, const std::function<void()>& read,
                        const std::string& text) {
    try {
        read();
        ADD_FAILURE() << "read succeeded; expected an error containing: " << text;
    } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(text), std::string::npos) << what;
        EXPECT_EQ(what.rfind(path.string(), 0), 0u)
            << "message must start with the file name: " << what;
        EXPECT_EQ(what.find('\n'), std::string::npos) << "message must be one line: " << what;
    }
}

using FastaCase = ::testing::TestWithParam<Case>;

TEST_P(FastaCase, ReadsOrRejects) {
    const Case& c = GetParam();
    const ScratchDir dir(c.label);
    const fs::path path = materialise(c.label, c.form, c.bytes, dir.path());
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
    expect_input_error(
        path, [&] { read_fasta(path.string(), parse_selector(c.selector), &notes); }, c.want.text);
}

INSTANTIATE_TEST_SUITE_P(Table, FastaCase, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& param) {
                             return std::string(param.param.label);
                         });

/// Reads `file`'s bytes through a FIFO (as `cat file | chromalign -` does): a stream that cannot
/// be sought to its end, where the BGZF end-of-file marker must be checked as the last block.
Sequence read_through_fifo(const fs::path& file, const fs::path& dir) {
    const fs::path fifo = dir / "stream.fifo";
    if (::mkfifo(fifo.c_str(), 0600) != 0) throw std::runtime_error(std::strerror(errno));
    const std::string bytes = test::read_text(file);
    auto writer = std::async(std::launch::async, [&] {
        sigset_t pipe_signal;  // a reader that stops early makes the write fail, not the process
        sigemptyset(&pipe_signal);
        sigaddset(&pipe_signal, SIGPIPE);
        pthread_sigmask(SIG_BLOCK, &pipe_signal, nullptr);
        const int fd = ::open(fifo.c_str(), O_WRONLY);
        for (size_t done = 0; fd >= 0 && done < bytes.size();) {
            const ssize_t wrote = ::write(fd, bytes.data() + done, bytes.size() - done);
            if (wrote <= 0) break;
            done += static_cast<size_t>(wrote);
        }
        if (fd >= 0) ::close(fd);
    });
    try {
        Sequence seq = read_fasta(fifo.string(), {});
        writer.wait();
        return seq;
    } catch (...) {
        writer.wait();
        throw;
    }
}

TEST(FastaStream, ABgzfStreamCutAtABlockBoundaryIsRefused) {
    // On disk the missing marker is found by seeking to the end; a stream was read to its cut
    // and the record came back short, exit 0 (16208 of 20000 bases in the finding).
    const ScratchDir dir("bgzf_stream");
    const fs::path whole = materialise("whole", Form::kBgzf, kLongFasta, dir.path());
    const fs::path cut = materialise("cut", Form::kBgzfNoEof, kLongFasta, dir.path());
    ASSERT_FALSE(HasFatalFailure());
    EXPECT_EQ(decode(read_through_fifo(whole, dir.path())), kLong);
    fs::remove(dir.path() / "stream.fifo");
    expect_input_error(dir.path() / "stream.fifo", [&] { read_through_fifo(cut, dir.path()); },
                       "record 'big', line 3336: the BGZF end-of-file marker is missing");
}

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
        {"{seq:abc-def}", "seq:abc-def", 0, 0, ""},
        {"{x:1-2}", "x:1-2", 0, 0, ""},
        {"{x:1-2}:3-4", "x:1-2", 3, 4, ""},
        {"{x}:3-4", "x", 3, 4, ""},
        {"{x", "", 0, 0, "closing '}'"},
        {"{}", "", 0, 0, "closing '}'"},
        {"{x}y", "", 0, 0, "after {NAME}"},
        {"{x}:3-x", "", 0, 0, "must be two whole numbers"},
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
        test::write_text(dir / "long.fa", ">long\n" + bases + end + bases.substr(0, 1048575) + end + ">next\nAC" + end);
        const Sequence seq = read_fasta((dir / "long.fa").string(), RecordSelector{}, nullptr);
        ASSERT_EQ(seq.length(), 2500000 + 1048575) << "line end " << (end.size() == 2 ? "CRLF" : "LF");
        EXPECT_EQ(seq.codes, make_sequence("x", bases + bases.substr(0, 1048575)).codes);
    }
    test::write_text(dir / "tail.fa", ">tail\n" + bases);  // one line, no newline at all
    EXPECT_EQ(read_fasta((dir / "tail.fa").string(), RecordSelector{}, nullptr).length(), 2500000);
    std::string bad = bases;
    bad[2000000] = '*';
    test::write_text(dir / "bad.fa", ">bad\n" + bad + "\n");
    try {
        read_fasta((dir / "bad.fa").string(), RecordSelector{}, nullptr);
        ADD_FAILURE() << "an invalid character was accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("line 2: invalid character '*' (0x2A) at column 2000001"), std::string::npos)
            << e.what();
    }
    test::write_text(dir / "header.fa", ">" + bases + "\nACGT\n");
    try {
        read_fasta((dir / "header.fa").string(), RecordSelector{}, nullptr);
        ADD_FAILURE() << "a header of 2.5 MB was accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("header line longer than"), std::string::npos) << e.what();
    }
    fs::remove_all(dir);
}

// --- Many records: read_fasta_records ------------------------------------------------------

/// How a test writes a part read: "NAME=BASES", or "NAME:START-END=BASES" for part of a record.
std::string describe(const Sequence& part) {
    const std::string region = part.region();
    return part.name + (region.empty() ? "" : ":" + region) + "=" + decode(part);
}

/// `count` records of 1 to 100 bases, 60 a line, and the parts read_fasta_records makes of them.
struct ManyRecords {
    std::string bytes;
    std::vector<std::string> parts;
};

ManyRecords many_records(int count) {
    ManyRecords many;
    const std::string bases = pseudo_random_bases(100 * static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) {
        const std::string name = "seq" + std::to_string(i);
        const std::string record = bases.substr(100 * static_cast<size_t>(i), 1 + i % 100);
        many.bytes += ">" + name + " description\n" + wrap(record, 60);
        many.parts.push_back(name + "=" + record);
    }
    return many;
}

/// Spans several BGZF blocks of 64 KiB.
const ManyRecords kMany = many_records(3000);

/// A file, selectors, and either the parts read (described as describe() does) or an error
/// substring (error non-empty).
struct RecordsCase {
    const char* label;  ///< gtest name suffix: letters, digits and '_' only
    Form form;
    std::string bytes;
    std::vector<std::string> selectors;
    std::vector<std::string> parts;
    std::string error;
};

void PrintTo(const RecordsCase& c, std::ostream* os) { *os << c.label; }

const std::string kThree = ">a\nAC\n>b desc\nGGTA\nCC\n\n>c\nn\n";

const std::vector<RecordsCase>& records_cases() {
    static const std::vector<RecordsCase> table = {
        // Every record, in file order.
        {"all_plain", Form::kPlain, kThree, {}, {"a=AC", "b=GGTACC", "c=N"}, ""},
        {"all_crlf", Form::kPlain, ">a\r\nAC\r\n>b\r\nGG\r\nT\r\n", {}, {"a=AC", "b=GGT"}, ""},
        {"all_gzip", Form::kGzip, kMany.bytes, {}, kMany.parts, ""},
        {"all_gzip_two_members", Form::kGzipTwoMembers, kMany.bytes, {}, kMany.parts, ""},
        {"all_bgzf", Form::kBgzf, kMany.bytes, {}, kMany.parts, ""},
        {"one_record", Form::kPlain, ">a\nAC\n", {}, {"a=AC"}, ""},

        // Records named, in the order given, with regions.
        {"named_in_given_order", Form::kPlain, kThree, {"c", "a"}, {"c=N", "a=AC"}, ""},
        {"named_regions", Form::kPlain, kThree, {"b:2-5", "a", "b:1-6", "b", "b:6-6"},
         {"b:2-5=GTAC", "a=AC", "b=GGTACC", "b=GGTACC", "b:6-6=C"}, ""},
        {"named_bgzf", Form::kBgzf, kMany.bytes, {"seq2999:2-99", "seq0", "seq1500"},
         {"seq2999:2-99=" + kMany.parts[2999].substr(9, 98), kMany.parts[0],
          kMany.parts[1500]},
         ""},
        {"named_gzip", Form::kGzip, kMany.bytes, {"seq7", "seq3"},
         {kMany.parts[7], kMany.parts[3]}, ""},
        {"unselected_not_checked", Form::kPlain, ">a\nAC\n>b\nG*G\n", {"a"}, {"a=AC"}, ""},

        // Selections.
        {"same_selector_twice", Form::kPlain, kThree, {"a", "b", "a"}, {},
         "'a' is selected twice (selections 1 and 3)"},
        {"same_region_twice", Form::kPlain, kThree, {"b:1-2", "a", "b:1-2"}, {},
         "'b:1-2' is selected twice (selections 1 and 3)"},
        {"missing_name", Form::kPlain, kThree, {"a", "zz"}, {},
         "no record named 'zz'; the file holds 3 records: 'a', 'b', 'c'"},
        {"missing_names", Form::kPlain, kThree, {"x", "a", "y", "z", "y:1-2"}, {},
         "no record named 'x'; the file holds 3 records: 'a', 'b', 'c'; 2 other names selected "
         "are missing too"},
        {"missing_name_many", Form::kPlain, multi_record(7), {"chrX"}, {},
         "7 records: 'r1', 'r2', 'r3', 'r4', 'r5', ... (2 more)"},
        {"region_beyond", Form::kPlain, kThree, {"a", "b:3-9"}, {},
         "record 'b': region 3-9 extends beyond the record, which is 6 bases long"},

        // Malformed files, whatever is selected.
        {"duplicate_names", Form::kPlain, ">a\nAC\n>b\nGG\n\n>a\nTT\n", {}, {},
         "record 'a' at line 6 has the name of the record at line 1"},
        {"duplicate_names_unselected", Form::kPlain, ">a\nAC\n>b\nGG\n>a\nTT\n", {"b"}, {},
         "record 'a' at line 5 has the name of the record at line 1"},
        {"empty_among_many", Form::kPlain, ">a\nAC\n>b\n>c\nGG\n", {}, {},
         "record 'b', line 3: empty sequence"},
        {"empty_unselected", Form::kPlain, ">a\nAC\n>b\n\n>c\nGG\n", {"c", "a"}, {},
         "record 'b', line 3: empty sequence (the header is followed by another header or the "
         "end of the file); every record must hold a sequence, selected or not"},
        {"empty_last_unselected", Form::kPlain, ">a\nAC\n>b\n\n", {"a"}, {},
         "record 'b', line 3: empty sequence"},
        {"bad_character", Form::kPlain, ">a\nAC\n>b\nGG\nG*G\n", {}, {},
         "record 'b', line 5: invalid character '*' (0x2A) at column 2"},
        {"bad_character_outside_region", Form::kPlain, ">a\nAC\n>b\nGG\nG*G\n", {"b:1-1"}, {},
         "record 'b', line 5: invalid character '*'"},
        {"empty_header_name", Form::kPlain, ">a\nAC\n>\nGG\n", {"a"}, {},
         "line 3: header line has an empty record name"},
        {"not_fasta", Form::kPlain, "ACGT\n", {}, {}, "line 1: no FASTA record"},
        {"gzip_truncated", Form::kGzipCut, kMany.bytes, {}, {}, "decompression failed"},
        {"bgzf_missing_eof_marker", Form::kBgzfNoEof, kMany.bytes, {"seq1"}, {},
         "end-of-file marker is missing"},
        {"missing_file", Form::kMissing, "", {}, {}, "cannot open: No such file or directory"},
    };
    return table;
}

using FastaRecordsCase = ::testing::TestWithParam<RecordsCase>;

TEST_P(FastaRecordsCase, ReadsOrRejects) {
    const RecordsCase& c = GetParam();
    const ScratchDir dir(c.label);
    const fs::path path = materialise(c.label, c.form, c.bytes, dir.path());
    ASSERT_FALSE(HasFatalFailure());
    std::vector<RecordSelector> selectors;
    for (const std::string& text : c.selectors) selectors.push_back(parse_selector(text));
    if (!c.error.empty()) {
        expect_input_error(path, [&] { read_fasta_records(path.string(), selectors); }, c.error);
        return;
    }
    std::vector<std::string> parts;
    for (const Sequence& part : read_fasta_records(path.string(), selectors)) {
        EXPECT_EQ(part.source, path.string());
        parts.push_back(describe(part));
    }
    EXPECT_EQ(parts, c.parts);
}

INSTANTIATE_TEST_SUITE_P(Table, FastaRecordsCase, ::testing::ValuesIn(records_cases()),
                         [](const ::testing::TestParamInfo<RecordsCase>& param) {
                             return std::string(param.param.label);
                         });

TEST(FastaRecords, NotesAndHandBuiltSelectors) {
    const ScratchDir dir("records_notes");
    const fs::path path = materialise("three", Form::kPlain, kThree, dir.path());
    std::vector<std::string> notes;
    read_fasta_records(path.string(), {}, &notes);
    EXPECT_TRUE(notes.empty()) << notes.front();
    read_fasta_records(path.string(), {parse_selector("c"), parse_selector("c:1-1")}, &notes);
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_EQ(notes[0], path.string() + " holds 3 records; using 1 of them");

    // A name that looks like a region, read whole, is not the same selector as that region;
    // braces tell which is meant, and the text alone is ambiguous where the file holds both
    // (samtools refuses it too; it read the region of x before).
    const fs::path colon = materialise("colon", Form::kPlain, ">x:1-2\nACGT\n>x\nGG\n", dir.path());
    RecordSelector whole;
    whole.record = "x:1-2";
    const auto parts = read_fasta_records(colon.string(), {whole, parse_selector("{x}:1-2")});
    ASSERT_EQ(parts.size(), 2u);
    EXPECT_EQ(describe(parts[0]), "x:1-2=ACGT");
    EXPECT_EQ(describe(parts[1]), "x=GG");
    EXPECT_EQ(describe(read_fasta(colon.string(), parse_selector("{x:1-2}"))), "x:1-2=ACGT");
    expect_input_error(colon, [&] { read_fasta_records(colon.string(), {parse_selector("x:1-2")}); },
                       "'x:1-2' is both a record and a region of record 'x': write {x:1-2} for the record");
    expect_input_error(colon, [&] { read_fasta(colon.string(), parse_selector("x:1-2")); }, "is both a record");
    // Where only the whole name is a record, it is that record (a FASTA of samtools faidx
    // regions names its records so); where only x is, the region of x.
    const fs::path faidx = materialise("faidx", Form::kPlain, ">x:1-2\nACGT\n>y\nGG\n", dir.path());
    EXPECT_EQ(describe(read_fasta_records(faidx.string(), {parse_selector("x:1-2")}).front()), "x:1-2=ACGT");
    EXPECT_EQ(describe(read_fasta(faidx.string(), parse_selector("x:1-2"))), "x:1-2=ACGT");
    EXPECT_EQ(describe(read_fasta(faidx.string(), parse_selector("y:2-2"))), "y:2-2=G");
    EXPECT_EQ(describe_selector(whole), "{x:1-2}") << "a whole name that reads as a region is braced";

    expect_input_error(
        path, [&] { read_fasta_records(path.string(), {parse_selector("a"), RecordSelector{}}); },
        "selection 2 has no record name");
    RecordSelector reversed;
    reversed.record = "b";
    reversed.start = 5;
    reversed.end = 2;
    EXPECT_THROW(read_fasta_records(path.string(), {reversed}), Error);
}

TEST(DescribeSelector, KeyTellsRegionsFromNames) {
    EXPECT_EQ(describe_selector(parse_selector("chr1")), "chr1");
    EXPECT_EQ(describe_selector(parse_selector("chr1:1,000-2,000")), "chr1:1000-2000");
    EXPECT_EQ(selection_key(parse_selector("chr1:1,000-2,000")),
              selection_key(parse_selector("chr1:1000-2000")));
    RecordSelector whole;
    whole.record = "x:1-2";
    EXPECT_NE(selection_key(whole), selection_key(parse_selector("x:1-2")));
}

/// Bytes resident in this process now.
int64_t resident_bytes() {
    std::ifstream statm("/proc/self/statm");
    int64_t size = 0, resident = 0;
    statm >> size >> resident;
    return resident * ::sysconf(_SC_PAGESIZE);
}

TEST(FastaRecords, AMillionTinyRecordsInLinearTimeAndMemory) {
    constexpr int kRecords = 1000000;
    const ScratchDir dir("records_million");
    const fs::path path = dir.path() / "million.fa";
    {
        std::string bytes;
        for (int i = 0; i < kRecords; ++i) bytes += ">r" + std::to_string(i) + "\nACGT\n";
        test::write_text(path, bytes);
    }
    // Seconds of this process's CPU, not of the wall: another test suite beside this one on a
    // 2-core machine once made 1 s of reading take 25 s of wall time.
    const auto cpu_seconds = [] {
        timespec t{};
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
        return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
    };
    const int64_t resident_before = resident_bytes();
    double start = cpu_seconds();
    std::vector<Sequence> all = read_fasta_records(path.string(), {});
    const double all_seconds = cpu_seconds() - start;
    const double resident_mb = static_cast<double>(resident_bytes() - resident_before) / 1e6;
    ASSERT_EQ(all.size(), static_cast<size_t>(kRecords));
    EXPECT_EQ(describe(all[kRecords - 1]), "r999999=ACGT");
    for (const Sequence& s : all) ASSERT_EQ(s.codes.capacity(), 4u) << s.name;
    all = {};

    // Ten thousand names, last first: one pass, whatever their order.
    std::vector<RecordSelector> selectors;
    for (int i = kRecords - 1; i >= 0; i -= 100)
        selectors.push_back(parse_selector("r" + std::to_string(i)));
    start = cpu_seconds();
    const std::vector<Sequence> named = read_fasta_records(path.string(), selectors);
    const double named_seconds = cpu_seconds() - start;
    ASSERT_EQ(named.size(), selectors.size());
    EXPECT_EQ(named.front().name, "r999999");
    EXPECT_EQ(named.back().name, "r99");

    start = cpu_seconds();
    EXPECT_EQ(read_fasta(path.string(), parse_selector("r999999"), nullptr).length(), 4);
    const double one_seconds = cpu_seconds() - start;

    std::printf("1e6 records (%.1f MB): all %.2f CPU s, %.0f MB resident; 1e4 named %.2f CPU s; "
                "the last by read_fasta %.2f CPU s\n",
                static_cast<double>(fs::file_size(path)) / 1e6, all_seconds, resident_mb,
                named_seconds, one_seconds);
    // Quadratic work or a per-record reservation would take minutes and gigabytes.
    EXPECT_LT(all_seconds, 10.0);
    EXPECT_LT(named_seconds, 10.0);
    EXPECT_LT(resident_mb, 1000.0);
}

// --- Names files and pairs files --------------------------------------------------------------

/// A names or pairs file's bytes and either what it lists ("S0 S1" for a pair) or an error
/// substring (error non-empty).
struct ListCase {
    const char* bytes;
    std::vector<std::string> entries;
    std::string error;
};

/// Runs `read` on each case's bytes written to a file and compares what `show` makes of it.
template <class Read, class Show>
void check_list_cases(const char* label, const std::vector<ListCase>& table, Read read, Show show) {
    const ScratchDir dir(label);
    const fs::path path = dir.path() / "list.txt";
    for (const ListCase& c : table) {
        SCOPED_TRACE(c.bytes);
        test::write_text(path, c.bytes);
        if (!c.error.empty()) {
            expect_input_error(path, [&] { read(path.string()); }, c.error);
            continue;
        }
        std::vector<std::string> entries;
        for (const auto& entry : read(path.string())) entries.push_back(show(entry));
        EXPECT_EQ(entries, c.entries);
    }
}

TEST(RecordLists, SelectorFile) {
    const std::vector<ListCase> table = {
        {"chr1\nchr2:5-10\n", {"chr1", "chr2:5-10"}, ""},
        {"# names\n\n  chr1  \r\n\tchr2:1,000-2,000\t\r\n   # indented comment\n\r\nchr3",
         {"chr1", "chr2:1000-2000", "chr3"}, ""},
        {"chr1\nchr1:1-5\nchr1:6-9\n", {"chr1", "chr1:1-5", "chr1:6-9"}, ""},
        {"chr1\n\nchr2 chr3\n", {}, "list.txt, line 3: 'chr2 chr3' is more than one word"},
        {"chr1\nchr2\tdescription\n", {}, "line 2: 'chr2\tdescription' is more than one word"},
        {"#\nchr1:5-3\n", {}, "line 2: region 'chr1:5-3': END is before START"},
        {"chr1:x-9\n", {}, "line 1: region 'chr1:x-9': START-END must be two whole numbers"},
        {"chr1\nchr2\n\nchr1\n", {}, "line 4: 'chr1' repeats line 1"},
        {"chr1:1000-2000\nchr1:1,000-2,000\n", {}, "line 2: 'chr1:1000-2000' repeats line 1"},
        {"", {}, "no record names (the file holds only blank lines and comments)"},
        {"# only\n  \n", {}, "no record names"},
    };
    check_list_cases("selector_file", table, read_selector_file, describe_selector);
}

TEST(RecordLists, PairsFile) {
    const auto show = [](const SelectorPair& p) {
        return describe_selector(p.s0) + " " + describe_selector(p.s1);
    };
    const std::vector<ListCase> table = {
        {"a\tb\n# comment\n\na:1-5\tb:2-3\r\nb\ta\n", {"a b", "a:1-5 b:2-3", "b a"}, ""},
        {"  a \t b  \n", {"a b"}, ""},
        {"s0\ts1\na\tb\n", {"s0 s1", "a b"}, ""},  // a header is only a pair of names
        {"a\tb\nab\n", {}, "list.txt, line 2: expected 2 tab-separated columns (S0 record, S1 "
                           "record), found 1"},
        {"a b\n", {}, "line 1: expected 2 tab-separated columns"},
        {"a\tb\n\na\tb\tc\n", {}, "line 3: expected 2 tab-separated columns (S0 record, S1 "
                                  "record), found 3"},
        {"a\t\tb\n", {}, "line 1: expected 2 tab-separated columns"},
        {"a\tb:9-1\n", {}, "line 1: region 'b:9-1': END is before START"},
        {"a x\tb\n", {}, "line 1: 'a x' is more than one word"},
        {"a\tb\nb\ta\na\tb\n", {}, "line 3: the pair 'a', 'b' repeats line 1"},
        {"#\n", {}, "no record pairs"},
    };
    check_list_cases("pairs_file", table, read_pairs_file, show);
}

TEST(RecordLists, RefusesWhatIsNotARegularFile) {
    const ScratchDir dir("list_kinds");
    const fs::path fifo = dir.path() / "names.fifo";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
    for (const auto& read : std::vector<std::function<void(const std::string&)>>{
             [](const std::string& p) { read_selector_file(p); },
             [](const std::string& p) { read_pairs_file(p); }}) {
        auto done = std::async(std::launch::async, [&] {
            expect_input_error(fifo, [&] { read(fifo.string()); }, "a FIFO (named pipe)");
        });
        if (done.wait_for(std::chrono::seconds(5)) == std::future_status::timeout) {
            // Opening the FIFO blocked: a writer that comes and goes lets the reader go on.
            const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
            if (fd >= 0) ::close(fd);
            ADD_FAILURE() << "reading a FIFO waited for a writer";
        }
        done.get();
    }
    expect_input_error(dir.path(), [&] { read_selector_file(dir.path().string()); },
                       "cannot read record names from a directory; give a regular file");
    const fs::path absent = dir.path() / "absent";
    expect_input_error(absent, [&] { read_pairs_file(absent.string()); },
                       "cannot open: No such file or directory");
}

}  // namespace
}  // namespace chromalign::io
