//! @file FASTA reading through htslib's BGZF layer: record selection, validation and base encoding.
#include "io/fasta.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string_view>

#include <htslib/bgzf.h>
#include <htslib/hts.h>
#include <htslib/kstring.h>

#include "engine/error.hpp"

namespace chromalign::io {
namespace {

/// Table value for bytes that may not appear in a sequence line. It has a bit that no BaseCode
/// uses, so OR-ing the codes of a whole line tells in one pass whether any byte was invalid.
constexpr uint8_t kInvalid = 0x80;

/// Reservation ceiling: a file-size estimate is only a guess, and a whole-genome file must not
/// make every read reserve gigabytes.
constexpr int64_t kMaxReserve = int64_t{1} << 30;

/// Typical DNA gzip ratio, used to guess the decompressed size of a compressed file.
constexpr int64_t kCompressionRatioGuess = 4;

/// How many names a "no such record" message lists before summarising the rest.
constexpr size_t kNamesListed = 5;

constexpr std::array<uint8_t, 256> make_code_table() {
    std::array<uint8_t, 256> table{};
    for (auto& code : table) code = kInvalid;
    const auto set_both_cases = [&table](char upper, uint8_t code) {
        table[static_cast<uint8_t>(upper)] = code;
        table[static_cast<uint8_t>(upper - 'A' + 'a')] = code;
    };
    set_both_cases('A', kBaseA);
    set_both_cases('C', kBaseC);
    set_both_cases('G', kBaseG);
    set_both_cases('T', kBaseT);
    set_both_cases('U', kBaseT);
    for (char c : {'N', 'R', 'Y', 'S', 'W', 'K', 'M', 'B', 'D', 'H', 'V'})
        set_both_cases(c, kBaseOther);
    return table;
}

constexpr std::array<uint8_t, 256> kCodeTable = make_code_table();

/// OR of the table codes of `n` bytes; has kInvalid set when any byte is not a nucleotide code.
uint8_t check_span(const uint8_t* in, size_t n) {
    uint8_t acc = 0;
    for (size_t i = 0; i < n; ++i) acc |= kCodeTable[in[i]];
    return acc;
}

/// Writes the codes of `n` bytes to `out` and returns their OR, as check_span does.
uint8_t encode_span(const uint8_t* in, size_t n, uint8_t* out) {
    uint8_t acc = 0;
    for (size_t i = 0; i < n; ++i) {
        out[i] = kCodeTable[in[i]];
        acc |= out[i];
    }
    return acc;
}

/// Names a byte for a message: printable characters quoted, the rest as hex.
std::string describe_byte(uint8_t byte) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned>(byte));
    if (byte == ' ') return std::string("a space (") + hex + ")";
    if (byte == '\t') return std::string("a tab (") + hex + ")";
    if (byte > 0x20 && byte < 0x7F)
        return std::string("'") + static_cast<char>(byte) + "' (" + hex + ")";
    return std::string("byte ") + hex;
}

/// `line` is a piece of a line that starts at column `offset` + 1.
std::string invalid_byte_message(std::string_view line, int64_t offset) {
    const auto* bytes = reinterpret_cast<const uint8_t*>(line.data());
    size_t column = 0;
    while (column < line.size() && !(kCodeTable[bytes[column]] & kInvalid)) ++column;
    const uint8_t byte = bytes[column];
    std::string what = "invalid character " + describe_byte(byte) + " at column " +
                       std::to_string(offset + static_cast<int64_t>(column) + 1);
    if (byte == ' ' || byte == '\t')
        return what + "; spaces and tabs are not allowed inside sequence lines";
    return what + "; sequence lines may hold only nucleotide letters (ACGTU and IUPAC codes)";
}

bool is_name_end(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; }

std::string describe_bgzf_error(int errcode) {
    if (errcode & BGZF_ERR_CRC) return "checksum mismatch in compressed data (the file is corrupt)";
    if (errcode & BGZF_ERR_HEADER)
        return "invalid compressed block header (the file is corrupt or truncated)";
    if (errcode & BGZF_ERR_ZLIB)
        return "decompression failed (the gzip data is truncated, corrupt or followed by garbage)";
    if (errcode & BGZF_ERR_IO) return "read error (the compressed file is truncated or unreadable)";
    return "read error";
}

/// Parses a 1-based coordinate, commas allowed as samtools does. Returns -1 when malformed.
int64_t parse_coordinate(std::string_view text) {
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max() / 10 - 10;
    int64_t value = 0;
    bool any_digit = false;
    for (char c : text) {
        if (c == ',') continue;
        if (c < '0' || c > '9' || value > kMax) return -1;
        value = value * 10 + (c - '0');
        any_digit = true;
    }
    return any_digit ? value : -1;
}

/// One pass over a FASTA file, line by line. It knows the current line number and the record
/// the lines belong to, so every error it raises names file, record and line. Lines come in
/// pieces of at most kPiece bytes, so a long line (a chromosome on one line, or a file with no
/// newline at all) is never held whole: a piece is read, checked and encoded, then dropped.
class FastaScanner {
public:
    /// Opens `path`; throws InputError when it cannot be opened or is a BGZF file cut short.
    explicit FastaScanner(const std::string& path) : path_(path) {
        errno = 0;
        fp_ = bgzf_open(path.c_str(), "r");
        if (fp_ == nullptr)
            throw InputError(
                path + ": cannot open: " + (errno != 0 ? std::strerror(errno) : "unreadable file"));
        // A BGZF file cut at a block boundary decompresses cleanly; only its missing
        // end-of-file marker tells that the sequence would come back shorter.
        if (bgzf_compression(fp_) == bgzf && bgzf_check_EOF(fp_) == 0) {
            close();
            throw InputError(path +
                             ": the BGZF end-of-file marker is missing, so the file is probably "
                             "truncated (if it is complete, recompress it with bgzip)");
        }
    }

    ~FastaScanner() { close(); }
    FastaScanner(const FastaScanner&) = delete;
    FastaScanner& operator=(const FastaScanner&) = delete;

    /// Skips leading blank lines and parses the first header. Throws when there is none.
    void read_first_header() {
        while (next_piece()) {
            if (!starts_line_ || blank_line()) continue;
            if (line_[0] != '>')
                fail_file("no FASTA record (first non-empty line does not start with '>')");
            parse_header();
            return;
        }
        throw InputError(path_ + (line_no_ == 0
                                      ? ": empty file (no FASTA record)"
                                      : ": no FASTA record (the file holds only blank lines)"));
    }

    /// Reads lines up to the next header without encoding them. Returns false at end of file.
    bool skip_to_next_header() {
        while (next_piece()) {
            if (starts_line_ && !line_.empty() && line_[0] == '>') {
                parse_header();
                return true;
            }
        }
        return false;
    }

    /// Encodes the sequence of the current record (its header just parsed), keeping only the
    /// positions inside `selector`'s region when it has one. Leaves the scanner on the next
    /// header, or at end of file.
    Sequence read_sequence(const RecordSelector& selector) {
        Sequence seq;
        seq.name = record_;
        seq.source = path_;
        const int64_t header_line = line_no_;
        const int64_t first = selector.has_region() ? selector.start : 1;
        const int64_t last =
            selector.has_region() ? selector.end : std::numeric_limits<int64_t>::max();
        seq.codes.reserve(static_cast<size_t>(std::min(last - first + 1, reserve_estimate())));
        int64_t length = 0;
        while (next_piece()) {
            if (starts_line_ && blank_line()) continue;
            if (starts_line_ && line_[0] == '>') {
                parse_header();
                break;
            }
            append_line(first, last, length, seq.codes);
            length += static_cast<int64_t>(line_.size());
        }
        if (length == 0)
            throw InputError(path_ + ": record '" + seq.name + "', line " +
                             std::to_string(header_line) +
                             ": empty sequence (the header is followed by another header or the "
                             "end of the file)");
        if (selector.has_region() && selector.end > length)
            throw InputError(path_ + ": record '" + seq.name + "': region " +
                             std::to_string(selector.start) + "-" + std::to_string(selector.end) +
                             " extends beyond the record, which is " + std::to_string(length) +
                             " bases long");
        if (selector.has_region()) {
            seq.offset = selector.start - 1;
            seq.bases_after = length - selector.end;
        }
        return seq;
    }

    /// Name of the record whose header was parsed last.
    const std::string& record() const { return record_; }

    /// True when the line just read is a header, false once the end of the file was reached.
    bool at_header() const { return at_header_; }

private:
    /// Whether the piece just read is a whole line without any byte.
    bool blank_line() const { return line_.empty() && !continues_; }

    /// Reads the next piece of the current line, or the first of the next line, into line_:
    /// up to the newline, without it and without one '\r' before it, or kPiece bytes of a line
    /// that goes on. Returns false at a clean end of file; throws when reading fails.
    bool next_piece() {
        offset_ = continues_ ? offset_ + static_cast<int64_t>(line_.size()) : 0;
        starts_line_ = !continues_;
        at_header_ = false;
        if (end_ - begin_ < kPiece) refill();
        if (begin_ == end_ && !continues_) {
            if (read_error_.empty()) return false;
            ++line_no_;  // where the bytes ran out: the error is reported there, with its record
            fail(read_error_);
        }
        if (starts_line_) ++line_no_;
        const char* data = buffer_.data();
        const char* newline = static_cast<const char*>(std::memchr(data + begin_, '\n', end_ - begin_));
        size_t stop = newline ? static_cast<size_t>(newline - data) : end_;
        continues_ = newline == nullptr && !(eof_ && end_ - begin_ <= kPiece);
        if (continues_) {
            stop = std::min(stop, begin_ + kPiece);
            if (stop > begin_ && data[stop - 1] == '\r') --stop;  // it may come before the newline
        }
        size_t length = stop - begin_;
        if (!continues_ && length > 0 && data[begin_ + length - 1] == '\r') --length;
        line_ = std::string_view(data + begin_, length);
        begin_ = newline && !continues_ ? stop + 1 : stop;
        return true;
    }

    /// Moves the unread bytes to the front and reads until kPiece bytes are unread. A read
    /// error ends the bytes; next_piece reports it once the bytes before it are used up.
    void refill() {
        if (eof_) return;
        std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
        end_ -= begin_;
        begin_ = 0;
        while (!eof_ && end_ < kPiece) {
            // Small reads: a failing bgzf_read loses what it decompressed in that call, and the
            // bytes before a corrupt spot should still be parsed, so the error names its record.
            const size_t want = std::min(buffer_.size() - end_, kRead);
            const ssize_t got = bgzf_read(fp_, buffer_.data() + end_, want);
            if (got < 0 || fp_->errcode != 0) {
                read_error_ = describe_bgzf_error(fp_->errcode);
                eof_ = true;
                return;
            }
            if (got == 0) eof_ = true;
            end_ += static_cast<size_t>(got);
        }
    }

    void parse_header() {
        if (continues_) fail_file("header line longer than " + std::to_string(kPiece) + " bytes");
        // A carriage return left inside a header means CR-only line ends (classic Mac OS): the
        // whole file is one "line", which would make a record name (and messages) of all of it.
        if (line_.find('\r') != std::string_view::npos)
            fail_file("carriage return inside a line: the file ends its lines with CR alone (classic Mac OS); "
                      "convert them to newlines, e.g. with tr '\\r' '\\n'");
        const size_t end =
            std::find_if(line_.begin() + 1, line_.end(), is_name_end) - line_.begin();
        if (end == 1) fail_file("header line has an empty record name");
        record_.assign(line_.data() + 1, end - 1);
        at_header_ = true;
    }

    /// Validates the whole line and appends the codes of its positions within [first, last];
    /// the line holds positions done+1 .. done+size.
    void append_line(int64_t first, int64_t last, int64_t done, std::vector<uint8_t>& codes) {
        const auto* bytes = reinterpret_cast<const uint8_t*>(line_.data());
        const auto size = static_cast<int64_t>(line_.size());
        const int64_t keep_from = std::clamp(first - 1 - done, int64_t{0}, size);
        const int64_t keep_to = std::clamp(last - done, keep_from, size);
        const size_t old_size = codes.size();
        codes.resize(old_size + static_cast<size_t>(keep_to - keep_from));
        const uint8_t seen =
            check_span(bytes, static_cast<size_t>(keep_from)) |
            encode_span(bytes + keep_from, static_cast<size_t>(keep_to - keep_from),
                        codes.data() + old_size) |
            check_span(bytes + keep_to, static_cast<size_t>(size - keep_to));
        if (seen & kInvalid) fail(invalid_byte_message(line_, offset_));
    }

    /// Guess of the decompressed size, to reserve the codes vector once for the common case.
    int64_t reserve_estimate() const {
        struct stat st {};
        if (stat(path_.c_str(), &st) != 0) return 0;
        const int64_t ratio = bgzf_compression(fp_) == no_compression ? 1 : kCompressionRatioGuess;
        return std::min(static_cast<int64_t>(st.st_size) * ratio, kMaxReserve);
    }

    [[noreturn]] void fail(const std::string& what) const {
        if (record_.empty()) fail_file(what);
        throw InputError(path_ + ": record '" + record_ + "', line " + std::to_string(line_no_) +
                         ": " + what);
    }

    [[noreturn]] void fail_file(const std::string& what) const {
        throw InputError(path_ + ", line " + std::to_string(line_no_) + ": " + what);
    }

    void close() {
        if (fp_ != nullptr) bgzf_close(fp_);
        fp_ = nullptr;
    }

    static constexpr size_t kPiece = size_t{1} << 20;  ///< longest piece of a line held at once
    static constexpr size_t kRead = size_t{1} << 16;   ///< bytes asked of one bgzf_read

    std::string path_;
    BGZF* fp_ = nullptr;
    std::vector<char> buffer_ = std::vector<char>(2 * kPiece);  ///< bytes read, [begin_, end_) unread
    size_t begin_ = 0, end_ = 0;
    bool eof_ = false;        ///< the file has no more bytes than buffer_ holds
    std::string read_error_;  ///< why reading stopped early, if it did
    std::string_view line_;   ///< current piece of the current line, a view into buffer_
    bool starts_line_ = false;  ///< line_ is the first piece of its line
    bool continues_ = false;  ///< the line goes on after line_
    int64_t offset_ = 0;      ///< bytes of the line before line_
    int64_t line_no_ = 0;     ///< 1-based number of line_'s line; 0 before the first line
    std::string record_;      ///< name from the last header parsed; empty before the first
    bool at_header_ = false;  ///< line_ is the header that set record_
};

std::string missing_record_message(const std::string& path, const std::string& wanted,
                                   const std::vector<std::string>& listed, int64_t total) {
    std::string text = path + ": no record named '" + wanted + "'; the file holds " +
                       std::to_string(total) + (total == 1 ? " record: " : " records: ");
    for (size_t i = 0; i < listed.size(); ++i) text += (i ? ", '" : "'") + listed[i] + "'";
    if (total > static_cast<int64_t>(listed.size()))
        text += ", ... (" + std::to_string(total - static_cast<int64_t>(listed.size())) + " more)";
    return text;
}

/// Advances `in` to the header of the record named `wanted`; throws listing names when absent.
void seek_record(FastaScanner& in, const std::string& path, const std::string& wanted) {
    std::vector<std::string> listed;
    int64_t total = 0;
    while (in.record() != wanted) {
        ++total;
        if (listed.size() < kNamesListed) listed.push_back(in.record());
        if (!in.skip_to_next_header())
            throw InputError(missing_record_message(path, wanted, listed, total));
    }
}

}  // namespace

RecordSelector parse_selector(const std::string& text) {
    RecordSelector selector;
    selector.record = text;
    const size_t colon = text.rfind(':');
    if (colon == std::string::npos) return selector;
    const std::string_view range = std::string_view(text).substr(colon + 1);
    const size_t dash = range.find('-');
    // Only a START-END suffix makes a region, so names such as "HLA:1" stay whole.
    if (dash == std::string_view::npos) return selector;
    if (colon == 0) throw Error("region '" + text + "' has no record name before ':'");
    selector.record = text.substr(0, colon);
    selector.start = parse_coordinate(range.substr(0, dash));
    selector.end = parse_coordinate(range.substr(dash + 1));
    if (selector.start < 0 || selector.end < 0)
        throw Error("region '" + text +
                    "': START-END must be two whole numbers, as in chr1:1000-2000");
    if (selector.start < 1)
        throw Error("region '" + text + "': START must be at least 1 (positions are 1-based)");
    if (selector.end < selector.start) throw Error("region '" + text + "': END is before START");
    return selector;
}

Sequence read_fasta(const std::string& path, const RecordSelector& selector,
                    std::vector<std::string>* notes) {
    // A hand-built selector bypasses parse_selector's checks; a reversed region would make
    // read_sequence reserve a negative size.
    if (selector.has_region() && selector.end < selector.start)
        throw Error("region " + std::to_string(selector.start) + "-" +
                    std::to_string(selector.end) + ": END is before START");
    // Every htslib failure becomes an InputError with file and line; htslib's own log lines
    // ("[E::inflate_gzip_block] ...") would only repeat it less clearly.
    hts_set_log_level(HTS_LOG_OFF);
    FastaScanner in(path);
    in.read_first_header();
    if (!selector.record.empty()) {
        seek_record(in, path, selector.record);
        return in.read_sequence(selector);
    }
    Sequence seq = in.read_sequence(selector);
    // read_sequence stopped on the next header, if any: count the rest without encoding them.
    int64_t records = 1;
    if (in.at_header()) {
        ++records;
        while (in.skip_to_next_header()) ++records;
    }
    if (records > 1 && notes != nullptr)
        notes->push_back(path + " holds " + std::to_string(records) +
                         " records; using the first, '" + seq.name +
                         "' (choose one with --s0-record/--s1-record)");
    return seq;
}

void write_fasta(const std::string& path, const Sequence& s) {
    static const char kLetters[] = "ACGTN";
    constexpr int64_t kLine = 80;
    std::FILE* out = std::fopen(path.c_str(), "w");
    if (!out) throw Error(path + ": cannot create: " + std::strerror(errno));
    std::string line;
    bool ok = std::fprintf(out, ">%s\n", s.name.c_str()) > 0;
    for (int64_t i = 0; i < s.length() && ok; i += kLine) {
        line.clear();
        for (int64_t j = i; j < std::min(i + kLine, s.length()); ++j) line += kLetters[s.codes[j] < 4 ? s.codes[j] : 4];
        line += '\n';
        ok = std::fwrite(line.data(), 1, line.size(), out) == line.size();
    }
    if (std::fclose(out) != 0 || !ok) throw Error(path + ": cannot write: " + std::strerror(errno));
}

}  // namespace chromalign::io
