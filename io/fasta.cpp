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
#include <unordered_map>

#include <htslib/bgzf.h>
#include <htslib/hts.h>
#include <htslib/kstring.h>

#include "engine/error.hpp"

namespace chromalign::io {
namespace {

/// A record name as messages quote it: in full up to 80 bytes, else its first 60 and its
/// length (a 50 MB name must not become a 50 MB message).
std::string quoted(const std::string& name) {
    if (name.size() <= 80) return "'" + name + "'";
    return "'" + name.substr(0, 60) + "...' (a name of " + std::to_string(name.size()) + " bytes)";
}

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

/// The positions [first, last] of a record that a selector keeps; last may pass the record's end.
struct Span {
    int64_t first;
    int64_t last;
};

Span span_of(const RecordSelector& selector) {
    if (selector.has_region()) return {selector.start, selector.end};
    return {1, std::numeric_limits<int64_t>::max()};
}

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

constexpr const char* kMissingMarker =
    "the BGZF end-of-file marker is missing, so the file is probably truncated (if it is complete, "
    "recompress it with bgzip)";

bool is_name_end(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; }

/// `read_errno` is errno after the failed read, cleared before it: zlib reports running out of
/// memory (inflate's window is allocated on the first read) as a failed inflate, which htslib
/// files under BGZF_ERR_ZLIB beside corrupt data; only the allocation's ENOMEM tells them apart.
std::string describe_bgzf_error(int errcode, int read_errno) {
    if ((errcode & BGZF_ERR_ZLIB) && read_errno == ENOMEM)
        return "out of memory while decompressing (the file may well be sound; free memory or raise "
               "the memory limit)";
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
        // Every htslib failure becomes an InputError with file and line; htslib's own log lines
        // ("[E::inflate_gzip_block] ...") would only repeat it less clearly.
        hts_set_log_level(HTS_LOG_OFF);
        errno = 0;
        fp_ = bgzf_open(path.c_str(), "r");
        if (fp_ == nullptr)
            throw InputError(
                path + ": cannot open: " + (errno != 0 ? std::strerror(errno) : "unreadable file"));
        // A BGZF file cut at a block boundary decompresses cleanly; only its missing
        // end-of-file marker tells that the sequence would come back shorter. A stream (a
        // pipe, a FIFO, standard input) cannot be sought to its end: there the last block read
        // must be that marker (refill).
        if (bgzf_compression(fp_) == bgzf) {
            const int marker = bgzf_check_EOF(fp_);
            if (marker == 0) {
                close();
                throw InputError(path + ": " + kMissingMarker);
            }
            marker_at_end_ = marker != 1;
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

    /// Passes over the current record's sequence lines without encoding or checking them, up to
    /// the next header (parsed) or the end of the file. Returns whether any line held a byte.
    bool skip_record() {
        bool any = false;
        while (next_sequence_piece()) any = true;
        return any;
    }

    /// Validates the current record's sequence lines (its header just parsed) and appends the
    /// codes of its positions in `span` to `codes`. Returns the record's length; throws when it
    /// is empty. Leaves the scanner on the next header (parsed), or at end of file.
    int64_t encode_record(Span span, std::vector<uint8_t>& codes) {
        const std::string name = record_;  // the next header replaces record_ before the check
        const int64_t header_line = header_line_;
        int64_t length = 0;
        while (next_sequence_piece()) {
            append_line(span, length, codes);
            length += static_cast<int64_t>(line_.size());
        }
        if (length == 0) fail_empty(name, header_line, "");
        return length;
    }

    /// Throws the error of a record `name`, whose header is at `header_line`, that holds no
    /// sequence; `more` ends the message.
    [[noreturn]] void fail_empty(const std::string& name, int64_t header_line,
                                 const std::string& more) const {
        throw InputError(path_ + ": record " + quoted(name) + ", line " + std::to_string(header_line) +
                         ": empty sequence (the header is followed by another header or the "
                         "end of the file)" + more);
    }

    /// Guess of the decompressed size, to reserve a codes vector once for the whole file.
    int64_t reserve_estimate() const {
        struct stat st {};
        if (stat(path_.c_str(), &st) != 0) return 0;
        const int64_t ratio = bgzf_compression(fp_) == no_compression ? 1 : kCompressionRatioGuess;
        return std::min(static_cast<int64_t>(st.st_size) * ratio, kMaxReserve);
    }

    const std::string& path() const { return path_; }

    /// Name of the record whose header was parsed last.
    const std::string& record() const { return record_; }

    /// Line number of that header.
    int64_t header_line() const { return header_line_; }

    /// True when the line just read is a header, false once the end of the file was reached.
    bool at_header() const { return at_header_; }

private:
    /// Whether the piece just read is a whole line without any byte.
    bool blank_line() const { return line_.empty() && !continues_; }

    /// Reads the next piece of the current record's sequence into line_, passing over blank
    /// lines. Returns false at the next header, which it parses, or at the end of the file.
    bool next_sequence_piece() {
        while (next_piece()) {
            if (!starts_line_) return true;
            if (blank_line()) continue;
            if (line_[0] != '>') return true;
            parse_header();
            return false;
        }
        return false;
    }

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
            errno = 0;
            const ssize_t got = bgzf_read(fp_, buffer_.data() + end_, want);
            if (got < 0 || fp_->errcode != 0) {
                read_error_ = describe_bgzf_error(fp_->errcode, errno);
                eof_ = true;
                return;
            }
            if (got == 0) {
                eof_ = true;
                if (marker_at_end_ && !fp_->last_block_eof) read_error_ = kMissingMarker;
            }
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
        header_line_ = line_no_;
        at_header_ = true;
    }

    /// Validates the whole line and appends the codes of its positions within `span`; the line
    /// holds positions done+1 .. done+size.
    void append_line(Span span, int64_t done, std::vector<uint8_t>& codes) {
        const auto* bytes = reinterpret_cast<const uint8_t*>(line_.data());
        const auto size = static_cast<int64_t>(line_.size());
        const int64_t keep_from = std::clamp(span.first - 1 - done, int64_t{0}, size);
        const int64_t keep_to = std::clamp(span.last - done, keep_from, size);
        const size_t old_size = codes.size();
        codes.resize(old_size + static_cast<size_t>(keep_to - keep_from));
        const uint8_t seen =
            check_span(bytes, static_cast<size_t>(keep_from)) |
            encode_span(bytes + keep_from, static_cast<size_t>(keep_to - keep_from),
                        codes.data() + old_size) |
            check_span(bytes + keep_to, static_cast<size_t>(size - keep_to));
        if (seen & kInvalid) fail(invalid_byte_message(line_, offset_));
    }

    [[noreturn]] void fail(const std::string& what) const {
        if (record_.empty()) fail_file(what);
        throw InputError(path_ + ": record " + quoted(record_) + ", line " + std::to_string(line_no_) +
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
    bool marker_at_end_ = false;  ///< a BGZF stream: its last block must be the end-of-file marker
    std::string read_error_;  ///< why reading stopped early, if it did
    std::string_view line_;   ///< current piece of the current line, a view into buffer_
    bool starts_line_ = false;  ///< line_ is the first piece of its line
    bool continues_ = false;  ///< the line goes on after line_
    int64_t offset_ = 0;      ///< bytes of the line before line_
    int64_t line_no_ = 0;     ///< 1-based number of line_'s line; 0 before the first line
    std::string record_;      ///< name from the last header parsed; empty before the first
    int64_t header_line_ = 0;  ///< line of that header
    bool at_header_ = false;  ///< line_ is the header that set record_
};

std::string missing_record_message(const std::string& path, const std::string& wanted,
                                   const std::vector<std::string>& listed, int64_t total) {
    std::string text = path + ": no record named " + quoted(wanted) +
                       (wanted.find(':') != std::string::npos ? " (a region is NAME:START-END in whole numbers)" : "") +
                       "; the file holds " +
                       std::to_string(total) + (total == 1 ? " record: " : " records: ");
    for (size_t i = 0; i < listed.size(); ++i) text += (i ? ", " : "") + quoted(listed[i]);
    if (total > static_cast<int64_t>(listed.size()))
        text += ", ... (" + std::to_string(total - static_cast<int64_t>(listed.size())) + " more)";
    return text;
}

/// Advances `in` to the header of the record named `wanted`; throws listing names when absent.
void seek_record(FastaScanner& in, const std::string& wanted) {
    std::vector<std::string> listed;
    int64_t total = 0;
    while (in.record() != wanted) {
        ++total;
        if (listed.size() < kNamesListed) listed.push_back(in.record());
        in.skip_record();
        if (!in.at_header())
            throw InputError(missing_record_message(in.path(), wanted, listed, total));
    }
}

/// Throws Error on a region whose END is before its START: a hand-built selector bypasses
/// parse_selector's checks, and its span would have a negative size.
void check_region(const RecordSelector& selector) {
    if (selector.has_region() && selector.end < selector.start)
        throw Error("region " + std::to_string(selector.start) + "-" +
                    std::to_string(selector.end) + ": END is before START");
}

/// Checks `selector`'s region against the `length` of the record `seq` holds part of, and
/// notes where in the record that part lies.
void place_region(const std::string& path, const RecordSelector& selector, int64_t length,
                  Sequence& seq) {
    if (!selector.has_region()) return;
    if (selector.end > length)
        throw InputError(path + ": record " + quoted(seq.name) + ": region " +
                         std::to_string(selector.start) + "-" + std::to_string(selector.end) +
                         " extends beyond the record, which is " + std::to_string(length) +
                         " bases long");
    seq.offset = selector.start - 1;
    seq.bases_after = length - selector.end;
}

/// Reads the current record of `in` as `selector` selects it, reserving its codes once from the
/// file's size: right for the one record read of a file, quadratic in memory for many.
Sequence read_one(FastaScanner& in, const RecordSelector& selector) {
    Sequence seq;
    seq.name = in.record();
    seq.source = in.path();
    const Span span = span_of(selector);
    const int64_t reserve = std::min(span.last - span.first + 1, in.reserve_estimate());
    seq.codes.reserve(static_cast<size_t>(reserve));
    place_region(in.path(), selector, in.encode_record(span, seq.codes), seq);
    return seq;
}

/// The part `selector` selects of record `name`, `length` bases long, whose positions from
/// `cover.first` on are in `codes`; its codes are a copy of just that part, so no record keeps
/// the spare capacity of a vector grown for a longer one.
Sequence cut_part(const std::string& path, const std::string& name, const RecordSelector& selector,
                  int64_t length, Span cover, const std::vector<uint8_t>& codes) {
    Sequence seq;
    seq.name = name;
    seq.source = path;
    place_region(path, selector, length, seq);
    const Span span = span_of(selector);
    const auto from = codes.begin() + (span.first - cover.first);
    seq.codes.assign(from, from + (std::min(span.last, length) - span.first + 1));
    return seq;
}

/// Indices into a selector list, by record name.
using SelectorIndex = std::unordered_map<std::string, std::vector<size_t>>;

/// Indexes `selectors` by name; throws on one without a name or a reversed region, or one given
/// twice.
SelectorIndex index_selectors(const std::string& path,
                              const std::vector<RecordSelector>& selectors) {
    SelectorIndex wanted;
    std::unordered_map<std::string, size_t> given;  // selection_key -> index
    for (size_t i = 0; i < selectors.size(); ++i) {
        const RecordSelector& selector = selectors[i];
        check_region(selector);
        if (selector.record.empty())
            throw InputError(path + ": selection " + std::to_string(i + 1) + " has no record name");
        const auto [earlier, added] = given.emplace(selection_key(selector), i);
        if (!added)
            throw InputError(path + ": '" + describe_selector(selector) +
                             "' is selected twice (selections " +
                             std::to_string(earlier->second + 1) + " and " +
                             std::to_string(i + 1) + ")");
        wanted[selector.record].push_back(i);
    }
    return wanted;
}

/// The span that covers the spans of `selectors[i]` for every i in `parts`.
Span cover_of(const std::vector<RecordSelector>& selectors, const std::vector<size_t>& parts) {
    Span cover = span_of(selectors[parts.front()]);
    for (size_t i : parts) {
        cover.first = std::min(cover.first, span_of(selectors[i]).first);
        cover.last = std::max(cover.last, span_of(selectors[i]).last);
    }
    return cover;
}

/// Throws the missing-record error of the first selector, in the order given, whose record the
/// file lacks (a part never read has no name); `listed` and `total` describe the file.
void check_all_found(const std::string& path, const std::vector<RecordSelector>& selectors,
                     const SelectorIndex& wanted, const std::vector<Sequence>& parts,
                     const std::vector<std::string>& listed, int64_t total) {
    size_t first_missing = selectors.size();
    int64_t names_missing = 0;
    for (const auto& entry : wanted) {
        if (!parts[entry.second.front()].name.empty()) continue;
        ++names_missing;
        first_missing = std::min(first_missing, entry.second.front());
    }
    if (names_missing == 0) return;
    std::string text = missing_record_message(path, selectors[first_missing].record, listed, total);
    if (names_missing == 2) text += "; 1 other name selected is missing too";
    if (names_missing > 2)
        text += "; " + std::to_string(names_missing - 1) + " other names selected are missing too";
    throw InputError(text);
}

/// START-END of a region (commas allowed), checked; `text` is the whole selector, for messages.
void parse_region(std::string_view range, const std::string& text, RecordSelector& selector) {
    const size_t dash = range.find('-');
    selector.start = dash == std::string_view::npos ? -1 : parse_coordinate(range.substr(0, dash));
    selector.end = dash == std::string_view::npos ? -1 : parse_coordinate(range.substr(dash + 1));
    if (selector.start < 0 || selector.end < 0)
        throw Error("region '" + text +
                    "': START-END must be two whole numbers, as in chr1:1000-2000 (a record name holding ':' "
                    "goes in braces: {NAME} or {NAME}:START-END)");
    if (selector.start < 1)
        throw Error("region '" + text + "': START must be at least 1 (positions are 1-based)");
    if (selector.end < selector.start) throw Error("region '" + text + "': END is before START");
}

}  // namespace

RecordSelector parse_selector(const std::string& text) {
    RecordSelector selector;
    selector.record = text;
    if (!text.empty() && text.front() == '{') {  // {NAME} or {NAME}:START-END, as htslib reads them
        const size_t close = text.find('}');
        if (close == std::string::npos || close == 1)
            throw Error("region '" + text + "': a name in braces needs its closing '}' and a name");
        selector.record = text.substr(1, close - 1);
        const std::string_view rest = std::string_view(text).substr(close + 1);
        if (rest.empty()) return selector;
        if (rest.front() != ':')
            throw Error("region '" + text + "': after {NAME} comes nothing or :START-END");
        parse_region(rest.substr(1), text, selector);
        return selector;
    }
    const size_t colon = text.rfind(':');
    if (colon == std::string::npos) return selector;
    const std::string_view range = std::string_view(text).substr(colon + 1);
    // Only a START-END suffix makes a region, so names such as "HLA:1" stay whole; a name
    // such as "seq:abc-def" is written in braces.
    if (range.find('-') == std::string_view::npos) return selector;
    if (colon == 0) throw Error("region '" + text + "' has no record name before ':'");
    selector.record = text.substr(0, colon);
    parse_region(range, text, selector);
    selector.whole = text;
    return selector;
}

std::string describe_selector(const RecordSelector& selector) {
    if (selector.has_region())
        return selector.record + ":" + std::to_string(selector.start) + "-" + std::to_string(selector.end);
    // A whole record whose name would be read as a region of another (or refused as one).
    bool splits = false;
    if (selector.record.rfind(':') != std::string::npos) try {
            splits = parse_selector(selector.record).has_region();
        } catch (const Error&) {
            splits = true;
        }
    return splits || (!selector.record.empty() && selector.record.front() == '{') ? "{" + selector.record + "}"
                                                                                 : selector.record;
}

std::string selection_key(const RecordSelector& selector) {
    // The numbers come first, so the key's first ':' is never one of the name's.
    const Span span = selector.has_region() ? span_of(selector) : Span{0, 0};
    return std::to_string(span.first) + "-" + std::to_string(span.last) + ":" + selector.record;
}

Sequence read_fasta(const std::string& path, const RecordSelector& selector,
                    std::vector<std::string>* notes) {
    check_region(selector);
    // A region that may be a record's whole name is resolved against every name.
    if (!selector.whole.empty()) return std::move(read_fasta_records(path, {selector}).front());
    FastaScanner in(path);
    in.read_first_header();
    if (!selector.record.empty()) {
        seek_record(in, selector.record);
        return read_one(in, selector);
    }
    Sequence seq = read_one(in, selector);
    // read_one stopped on the next header, if any: count the rest without encoding them.
    int64_t records = 1;
    while (in.at_header()) {
        ++records;
        in.skip_record();
    }
    if (records > 1 && notes != nullptr)
        notes->push_back(path + " holds " + std::to_string(records) +
                         " records; using the first, '" + seq.name +
                         "' (choose one with --s0-record/--s1-record)");
    return seq;
}

std::vector<Sequence> read_fasta_records(const std::string& path,
                                         const std::vector<RecordSelector>& selectors,
                                         std::vector<std::string>* notes) {
    const SelectorIndex wanted = index_selectors(path, selectors);
    SelectorIndex alternatives;  // whole names of selectors split into regions (RecordSelector::whole)
    for (size_t i = 0; i < selectors.size(); ++i)
        if (!selectors[i].whole.empty()) alternatives[selectors[i].whole].push_back(i);
    std::vector<Sequence> whole_records(selectors.size());  // by selector: its whole name's record
    FastaScanner in(path);
    in.read_first_header();
    std::vector<Sequence> parts(selectors.size());
    std::unordered_map<std::string, int64_t> header_lines;  // by name, to find a repeated one
    std::vector<std::string> listed;  // the first names, for a missing-record message
    std::vector<uint8_t> codes;  // one record's codes; its capacity serves the next record
    const Span whole = span_of(RecordSelector{});
    do {
        const int64_t header_line = in.header_line();
        const auto [entry, added] = header_lines.emplace(in.record(), header_line);
        const std::string& name = entry->first;  // a key stays put while the map grows
        if (!added)
            throw InputError(path + ": record " + quoted(name) + " at line " +
                             std::to_string(header_line) + " has the name of the record at line " +
                             std::to_string(entry->second) + " (record names must be unique)");
        if (listed.size() < kNamesListed) listed.push_back(name);
        const auto selected = wanted.find(name);
        const auto alternative = alternatives.find(name);
        codes.clear();
        if (selectors.empty()) {
            const int64_t length = in.encode_record(whole, codes);
            parts.push_back(cut_part(path, name, RecordSelector{}, length, whole, codes));
        } else if (selected != wanted.end() || alternative != alternatives.end()) {
            const Span cover = alternative != alternatives.end() ? whole : cover_of(selectors, selected->second);
            const int64_t length = in.encode_record(cover, codes);
            if (selected != wanted.end())
                for (size_t i : selected->second)
                    parts[i] = cut_part(path, name, selectors[i], length, cover, codes);
            if (alternative != alternatives.end())
                for (size_t i : alternative->second)
                    whole_records[i] = cut_part(path, name, RecordSelector{name}, length, cover, codes);
        } else if (!in.skip_record()) {
            in.fail_empty(name, header_line,
                          "; every record must hold a sequence, selected or not");
        }
    } while (in.at_header());
    // "x:1-100" is the record of that name where the file holds one, unless it holds x too.
    for (size_t i = 0; i < selectors.size(); ++i) {
        if (whole_records[i].name.empty()) continue;
        if (!parts[i].name.empty())
            throw InputError(path + ": '" + selectors[i].whole + "' is both a record and a region of record " +
                             quoted(selectors[i].record) + ": write {" + selectors[i].whole + "} for the record, {" +
                             selectors[i].record + "}:" + std::to_string(selectors[i].start) + "-" +
                             std::to_string(selectors[i].end) + " for the region");
        parts[i] = std::move(whole_records[i]);
    }
    const auto total = static_cast<int64_t>(header_lines.size());
    check_all_found(path, selectors, wanted, parts, listed, total);
    // Said only where records are left out: selecting them all needs no word.
    if (!selectors.empty() && notes != nullptr && static_cast<int64_t>(wanted.size()) < total)
        notes->push_back(path + " holds " + std::to_string(total) +
                         (total == 1 ? " record" : " records") + "; using " +
                         std::to_string(wanted.size()) + " of them");
    return parts;
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
