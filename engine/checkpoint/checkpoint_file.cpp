//! @file Checkpoint file format: atomic write (tmp + fsync + rename + dir fsync) and verified read.
#include "engine/checkpoint/checkpoint_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <utility>

#include "engine/error.hpp"
#include "engine/tiling/tile_executor.hpp"
#include "engine/version.hpp"

namespace chromalign {
namespace {

constexpr char kMagic[8] = {'C', 'H', 'R', 'A', 'L', 'N', 'C', 'K'};
constexpr size_t kVersionField = 16;

/// Little-endian field writer over a byte buffer (x86-64 and aarch64 are both little-endian;
/// a big-endian host would need byte swaps here and in Reader).
class Writer {
public:
    template <typename T>
    void put(T value) {
        const auto* p = reinterpret_cast<const char*>(&value);
        bytes.insert(bytes.end(), p, p + sizeof value);
    }
    void put_bytes(const void* data, size_t size) {
        const auto* p = static_cast<const char*>(data);
        bytes.insert(bytes.end(), p, p + size);
    }
    std::vector<char> bytes;
};

class Reader {
public:
    Reader(const std::vector<char>& bytes, const std::string& path) : bytes_(bytes), path_(path) {}
    template <typename T>
    T get() {
        T value;
        get_bytes(&value, sizeof value);
        return value;
    }
    void get_bytes(void* out, size_t size) {
        if (size > bytes_.size() - pos_)
            throw Error(path_ + ": checkpoint is truncated (" + std::to_string(bytes_.size()) + " bytes)");
        if (size == 0) return;  // `out` may be null then (an empty array's data()), which memcpy must not get
        std::memcpy(out, bytes_.data() + pos_, size);
        pos_ += size;
    }
    size_t position() const { return pos_; }

private:
    const std::vector<char>& bytes_;
    const std::string& path_;
    size_t pos_ = 0;
};

std::string errno_text() { return std::strerror(errno); }

/// Writes all of `bytes` to fd; false on any failure (errno set).
bool write_all(int fd, const char* data, size_t size) {
    while (size > 0) {
        const ssize_t done = ::write(fd, data, size);
        if (done < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        data += done;
        size -= static_cast<size_t>(done);
    }
    return true;
}

/// Crash tests (tests/test_resume.cpp), SQLite's way: with CHROMALIGN_CRASH_POINT naming a
/// point of a checkpoint write (opened, half, written, renamed, synced) and CHROMALIGN_CRASH_WRITE its
/// number in this process (1, 2, ...), the process ends there with _exit(86), as a kill would.
/// Unset (always, outside those tests), nothing happens.
class CrashPoints {
public:
    CrashPoints() {
        const char* point = std::getenv("CHROMALIGN_CRASH_POINT");
        const char* write = std::getenv("CHROMALIGN_CRASH_WRITE");
        if (point && write) {
            point_ = point;
            write_ = std::atoi(write);
        }
    }
    void next_write() {
        if (!point_.empty()) ++writes_;
    }
    void at(const char* point) const {
        if (writes_ == write_ && point_ == point) _exit(86);
    }

private:
    std::string point_;
    int write_ = 0;
    std::atomic<int> writes_{0};  ///< a process writes its checkpoints one at a time
};

CrashPoints& crash_points() {
    static CrashPoints points;
    return points;
}

std::string directory_of(const std::string& path) {
    const size_t slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

uint64_t sequence_fingerprint(const Sequence& s) {
    uint64_t hash = 1469598103934665603ull;
    for (uint8_t c : s.codes) hash = (hash ^ c) * 1099511628211ull;
    return (hash ^ static_cast<uint64_t>(s.length())) * 1099511628211ull;
}

void write_checkpoint(const std::string& path, const Checkpoint& c) {
    Writer w;
    w.put_bytes(kMagic, sizeof kMagic);
    w.put<uint32_t>(kCheckpointFormatVersion);
    char version[kVersionField] = {};
    std::strncpy(version, kVersion, kVersionField - 1);
    w.put_bytes(version, sizeof version);
    w.put<int64_t>(c.m);
    w.put<int64_t>(c.n);
    w.put<uint64_t>(c.fingerprint0);
    w.put<uint64_t>(c.fingerprint1);
    for (const auto& row : c.scoring.matrix)
        for (const int32_t v : row) w.put<int32_t>(v);
    w.put<int32_t>(c.scoring.other);
    w.put<int32_t>(c.scoring.gap_open);
    w.put<int32_t>(c.scoring.gap_extend);
    w.put<int64_t>(c.row);
    w.put<int32_t>(c.best.score);
    w.put<int64_t>(c.best.s0_end);
    w.put<int64_t>(c.best.s1_end);
    w.put<int64_t>(c.seq);
    w.put<int32_t>(c.left_corner);
    w.put<int64_t>(static_cast<int64_t>(c.left_h.size()));
    w.put<int64_t>(static_cast<int64_t>(c.steps.size()));
    for (const StairStep& step : c.steps) {
        w.put<int64_t>(step.col);
        w.put<int64_t>(step.row);
        w.put<int32_t>(step.corner);
    }
    // The arrays go from where they lie straight to the file (hundreds of MB at 100M columns,
    // which one buffer would copy twice over), the CRC taken as they go.
    std::vector<std::pair<const char*, size_t>> parts{{w.bytes.data(), w.bytes.size()}};
    const auto add = [&parts](const std::vector<int32_t>& v) {
        if (!v.empty()) parts.emplace_back(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(int32_t));
    };
    add(c.h);
    add(c.f);
    add(c.left_h);
    add(c.left_e);
    for (const StairStep& step : c.steps) {
        add(step.h);
        add(step.e);
    }
    uLong crc = crc32(0L, Z_NULL, 0);
    size_t total = 0;
    for (const auto& [data, size] : parts) {
        crc = crc32_z(crc, reinterpret_cast<const Bytef*>(data), size);
        total += size;
    }
    const uint32_t crc_field = static_cast<uint32_t>(crc);
    parts.emplace_back(reinterpret_cast<const char*>(&crc_field), sizeof crc_field);
    total += sizeof crc_field;

    const std::string tmp = path + ".tmp";
    CrashPoints& crash = crash_points();
    crash.next_write();
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw Error(tmp + ": cannot create checkpoint: " + errno_text());
    crash.at("opened");
    bool written = true;
    size_t at = 0;
    const size_t half = total / 2;
    for (const auto& [data, size] : parts) {
        size_t first = 0;
        if (at < half && at + size >= half) {  // the crash point "half" lies in this part
            first = half - at;
            written = written && write_all(fd, data, first);
            crash.at("half");
        }
        written = written && write_all(fd, data + first, size - first);
        at += size;
    }
    crash.at("written");
    written = written && ::fsync(fd) == 0;
    const std::string why = written ? "" : errno_text();
    if (::close(fd) != 0 || !written) {
        ::unlink(tmp.c_str());
        throw Error(tmp + ": cannot write checkpoint: " + (why.empty() ? errno_text() : why));
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const std::string reason = errno_text();
        ::unlink(tmp.c_str());
        throw Error(path + ": cannot replace checkpoint: " + reason);
    }
    crash.at("renamed");
    // The rename is durable only once the directory entry is on disk.
    const int dir = ::open(directory_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
        ::fsync(dir);
        ::close(dir);
    }
    crash.at("synced");
}

namespace {

/// Bytes of the header (everything before the H array) of a checkpoint of `format`.
size_t header_bytes(uint32_t format) {
    const size_t scoring = format == 1 ? 4 * sizeof(int32_t) : (16 + 3) * sizeof(int32_t);
    const size_t staircase = format >= 3 ? 2 * sizeof(int64_t) + sizeof(int32_t) : 0;
    const size_t steps = format >= 4 ? sizeof(int64_t) : 0;
    return sizeof kMagic + sizeof(uint32_t) + kVersionField + 4 * sizeof(int64_t) + scoring +
           sizeof(int64_t) + sizeof(int32_t) + 2 * sizeof(int64_t) + staircase + steps;
}

/// Bytes of one step's column, row and corner.
constexpr size_t kStepBytes = 2 * sizeof(int64_t) + sizeof(int32_t);

/// What a row of a DP matrix under `c.scoring` cannot hold, or empty: H(row, j) lies in
/// [0, kMaxBestScore]; F(row, j) = max(F(row-1, j) - ext, H(row-1, j) - open) >= -open for
/// row >= 1 and F <= H, except in a column pruning skipped, which holds H = 0, F = -inf
/// (engine/pruning/prune_rule.hpp); the best cell found so far scored at least every H of the
/// row, lies in rows 1..m, and is (0, 0) exactly when its score is 0.
std::string implausible(const Checkpoint& c) {
    if (const std::string why = c.scoring.validate(); !why.empty()) return "its scoring is invalid (" + why + ")";
    if (c.best.score < 0 || c.best.score > kMaxBestScore) return "its best score is out of range";
    if ((c.best.score == 0) != (c.best.s0_end == 0 && c.best.s1_end == 0)) return "its best cell does not fit its score";
    // A piece's columns are its slab's, its best cell's of the whole matrix, whose width the
    // piece does not hold: the caller checks that column (Checkpointer::take_best).
    if (c.best.score > 0 && (c.best.s0_end < 1 || c.best.s0_end > c.m || c.best.s1_end < 1))
        return "its best cell lies outside the matrix";
    // No cell scores above most_score_at; on row i, none above i * best.
    const int64_t most = c.scoring.best_score();
    if (c.best.score > most_score_at(c.best.s0_end, c.best.s1_end, most))
        return "its best score is more than its cell can hold";
    for (size_t j = 0; j < c.h.size(); ++j) {
        if (c.h[j] < 0 || c.h[j] > c.best.score || c.h[j] > c.row * most)
            return "H of column " + std::to_string(j + 1) + " is out of range";
        const bool pruned = c.f[j] == kScoreNegInf && c.h[j] == 0;
        if (!pruned && (c.f[j] < -c.scoring.gap_open || c.f[j] > c.h[j]))
            return "F of column " + std::to_string(j + 1) + " is out of range";
    }
    // The left neighbour's column: H(i, c0 - 1) in [0, i * most] (its cells are the
    // neighbour's, whose best this piece does not hold); E(i, c0 - 1) is at least -open and
    // at most H, or -inf where pruning skipped the cell.
    if (c.left_corner < 0 || c.left_corner > c.row * most) return "its left corner is out of range";
    for (size_t i = 0; i < c.left_h.size(); ++i) {
        const int64_t row = c.row + 1 + static_cast<int64_t>(i);
        if (c.left_h[i] < 0 || c.left_h[i] > row * most)
            return "H of left row " + std::to_string(row) + " is out of range";
        if (c.left_e[i] != kScoreNegInf && (c.left_e[i] < -c.scoring.gap_open || c.left_e[i] > c.left_h[i]))
            return "E of left row " + std::to_string(row) + " is out of range";
    }
    // Each step's column is this piece's own: within its best too.
    for (const StairStep& s : c.steps) {
        const std::string where = " of the step at column " + std::to_string(s.col + 1);
        if (s.corner < 0 || s.corner > c.best.score) return "the corner" + where + " is out of range";
        for (size_t i = 0; i < s.h.size(); ++i)
            if (s.h[i] < 0 || s.h[i] > c.best.score ||
                (s.e[i] != kScoreNegInf && (s.e[i] < -c.scoring.gap_open || s.e[i] > s.h[i])))
                return "row " + std::to_string(s.row + 1 + static_cast<int64_t>(i)) + where + " is out of range";
    }
    return {};
}

}  // namespace

Checkpoint read_checkpoint(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw Error(path + ": cannot open checkpoint: " + errno_text());
    if (!S_ISREG(st.st_mode)) throw Error(path + ": not a regular file, so not a checkpoint");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(path + ": cannot open checkpoint: " + errno_text());
    // The header first: the arrays' size it implies is checked against the file's before
    // anything that size is read or allocated.
    std::vector<char> bytes(std::min<size_t>(static_cast<size_t>(st.st_size), header_bytes(kCheckpointFormatVersion)));
    in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    Reader r(bytes, path);
    char magic[sizeof kMagic];
    r.get_bytes(magic, sizeof magic);
    if (std::memcmp(magic, kMagic, sizeof magic) != 0)
        throw Error(path + ": not a chromalign checkpoint (bad magic)");
    const auto format = r.get<uint32_t>();
    if (format < 1 || format > kCheckpointFormatVersion)
        throw Error(path + ": checkpoint format version " + std::to_string(format) +
                    ", this program reads versions 1 to " + std::to_string(kCheckpointFormatVersion));
    char version[kVersionField];
    r.get_bytes(version, sizeof version);
    Checkpoint c;
    c.m = r.get<int64_t>();
    c.n = r.get<int64_t>();
    c.fingerprint0 = r.get<uint64_t>();
    c.fingerprint1 = r.get<uint64_t>();
    if (format == 1) {  // match, mismatch, gap_open, gap_extend
        const auto match = r.get<int32_t>(), mismatch = r.get<int32_t>();
        const auto gap_open = r.get<int32_t>(), gap_extend = r.get<int32_t>();
        c.scoring = Scoring(match, mismatch, gap_open, gap_extend);
    } else {
        for (auto& row : c.scoring.matrix)
            for (int32_t& v : row) v = r.get<int32_t>();
        c.scoring.other = r.get<int32_t>();
        c.scoring.gap_open = r.get<int32_t>();
        c.scoring.gap_extend = r.get<int32_t>();
    }
    c.row = r.get<int64_t>();
    c.best.score = r.get<int32_t>();
    c.best.s0_end = r.get<int64_t>();
    c.best.s1_end = r.get<int64_t>();
    int64_t left_rows = 0, steps = 0;
    if (format >= 3) {
        c.seq = r.get<int64_t>();
        c.left_corner = r.get<int32_t>();
        left_rows = r.get<int64_t>();
    }
    if (format >= 4) steps = r.get<int64_t>();
    const size_t header = r.position();
    // n, the left rows and the steps bounded first, so that the sizes below cannot overflow.
    // A piece may be at row 0: a slab that had not begun when its checkpoint was taken.
    const int64_t max_n = static_cast<int64_t>((std::numeric_limits<size_t>::max() / 4 - header) / (2 * sizeof(int32_t)));
    const int64_t min_row = format >= 3 && c.seq > 0 ? 0 : 1;
    if (c.n < 1 || c.m < 1 || c.row < min_row || c.row >= c.m || c.n > max_n || c.seq < 0 || left_rows < 0 ||
        left_rows > c.m - c.row || left_rows > max_n || steps < 0 || steps >= c.n ||
        (steps > 0 && c.seq == 0) || static_cast<uint64_t>(steps) > static_cast<uint64_t>(st.st_size) / kStepBytes)
        throw Error(path + ": checkpoint header is corrupt (lengths or row out of range, or steps)");
    // The steps' columns and rows, which say how many rows each step's arrays hold.
    const size_t step_table = static_cast<size_t>(steps) * kStepBytes;
    if (static_cast<size_t>(st.st_size) >= header + step_table) {
        bytes.resize(header + step_table);
        in.seekg(static_cast<std::streamoff>(header));
        in.read(bytes.data() + header, static_cast<std::streamsize>(step_table));
    }
    c.steps.resize(static_cast<size_t>(steps));
    int64_t above = c.row, previous_col = 0, step_rows = 0;
    for (StairStep& step : c.steps) {
        step.col = r.get<int64_t>();
        step.row = r.get<int64_t>();
        step.corner = r.get<int32_t>();
        if (step.col <= previous_col || step.col >= c.n || step.row < 0 || step.row > above)
            throw Error(path + ": checkpoint header is corrupt (a step at column " + std::to_string(step.col) +
                        ", row " + std::to_string(step.row) + ")");
        step_rows += above - step.row;  // at most row in all
        previous_col = step.col;
        above = step.row;
    }
    const size_t row_bytes = static_cast<size_t>(c.n) * sizeof(int32_t);
    const size_t left_bytes = static_cast<size_t>(left_rows) * sizeof(int32_t);
    const size_t step_bytes = static_cast<size_t>(step_rows) * sizeof(int32_t);
    const size_t expected =
        header + step_table + 2 * row_bytes + 2 * left_bytes + 2 * step_bytes + sizeof(uint32_t);
    if (static_cast<size_t>(st.st_size) != expected)
        throw Error(path + ": checkpoint is truncated or has trailing bytes (" + std::to_string(st.st_size) +
                    " bytes, expected " + std::to_string(expected) + ")");
    // The arrays go from the file straight into their vectors (2 GB at 250M columns, which a
    // buffer of the whole file would hold twice over), the CRC taken as they come.
    const size_t arrays = header + step_table;
    uLong crc = crc32_z(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(bytes.data()), arrays);
    in.clear();
    in.seekg(static_cast<std::streamoff>(arrays));  // a format-1 header is shorter than the bytes read
    const auto read_exactly = [&in, &path](void* out, size_t size) {
        if (!in.read(static_cast<char*>(out), static_cast<std::streamsize>(size)))
            throw Error(path + ": cannot read checkpoint: " + errno_text());
    };
    const auto get_array = [&](std::vector<int32_t>& v, int64_t count) {
        v.resize(static_cast<size_t>(count));
        if (v.empty()) return;  // crc32_z of a null buffer (an empty vector's data()) restarts the CRC
        read_exactly(v.data(), v.size() * sizeof(int32_t));
        crc = crc32_z(crc, reinterpret_cast<const Bytef*>(v.data()), v.size() * sizeof(int32_t));
    };
    get_array(c.h, c.n);
    get_array(c.f, c.n);
    get_array(c.left_h, left_rows);
    get_array(c.left_e, left_rows);
    above = c.row;
    for (StairStep& step : c.steps) {
        get_array(step.h, above - step.row);
        get_array(step.e, above - step.row);
        above = step.row;
    }
    uint32_t stored_crc = 0;
    read_exactly(&stored_crc, sizeof stored_crc);
    if (stored_crc != static_cast<uint32_t>(crc)) throw Error(path + ": checkpoint is corrupt (CRC32 mismatch)");
    // A CRC catches accidents, not a wrong or hand-edited file: what no DP row can hold is
    // refused before any of it is computed from.
    if (const std::string why = implausible(c); !why.empty())
        throw Error(path + ": checkpoint cannot be right (" + why + ")");
    return c;
}

bool file_exists(const std::string& path) {
    struct stat st{};
    return stat(path.c_str(), &st) == 0;
}

std::string checkpoint_mismatch(const Checkpoint& c, const Sequence& s0, const Sequence& s1,
                                const Scoring& scoring) {
    if (c.m != s0.length() || c.n != s1.length())
        return "it is for sequences of " + std::to_string(c.m) + " x " + std::to_string(c.n) +
               " bases, this run compares " + std::to_string(s0.length()) + " x " + std::to_string(s1.length());
    if (c.fingerprint0 != sequence_fingerprint(s0)) return "it is for another S0 (content differs)";
    if (c.fingerprint1 != sequence_fingerprint(s1)) return "it is for another S1 (content differs)";
    if (c.scoring != scoring)
        return "it was made with scoring " + c.scoring.to_string() + ", this run uses " + scoring.to_string();
    return {};
}

}  // namespace chromalign
