//! @file The journal file: a fixed header, the runs, a CRC of both.
#include "engine/job/traceback_journal.hpp"

#include <zlib.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "engine/error.hpp"

namespace chromalign {
namespace {

constexpr char kMagic[8] = {'C', 'A', 'T', 'B', 'J', 'N', '0', '1'};

struct Header {
    char magic[8];
    int64_t m, n;
    uint64_t fingerprint0, fingerprint1;
    int32_t open, ext, score, state;
    int64_t s0_end, s1_end, i, j, v, runs;
};

struct Run {
    int64_t length;
    int64_t op;
};

uint32_t crc_of(const Header& h, const std::vector<Run>& runs) {
    uLong crc = crc32(0L, reinterpret_cast<const Bytef*>(&h), sizeof h);
    return static_cast<uint32_t>(
        crc32(crc, reinterpret_cast<const Bytef*>(runs.data()), static_cast<uInt>(runs.size() * sizeof(Run))));
}

}  // namespace

FileJournal::FileJournal(std::string dir, const RowsIdentity& id, const Scoring& scoring, const AlignmentEnd& end,
                         double every_seconds)
    : path_(dir + "/traceback.journal"), id_(id), open_(scoring.gap_open), ext_(scoring.gap_extend), end_(end),
      every_(every_seconds), last_(std::chrono::steady_clock::now()) {}

bool FileJournal::load(TracebackPoint& p) {
    // The kind first: opening a FIFO would wait for a writer.
    std::error_code ec;
    const auto status = std::filesystem::status(path_, ec);
    if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
        throw Error(path_ + " is not a regular file; remove it (a traceback journal is one)");
    std::ifstream in(path_, std::ios::binary);
    if (!in) return false;
    Header h{};
    if (!in.read(reinterpret_cast<char*>(&h), sizeof h)) return false;
    const bool ours = std::memcmp(h.magic, kMagic, sizeof kMagic) == 0 && h.m == id_.m && h.n == id_.n &&
                      h.fingerprint0 == id_.fingerprint0 && h.fingerprint1 == id_.fingerprint1 && h.open == open_ &&
                      h.ext == ext_ && h.score == end_.score && h.s0_end == end_.s0_end && h.s1_end == end_.s1_end &&
                      h.runs >= 0 && h.runs <= h.m + h.n;
    if (!ours) return false;
    std::vector<Run> runs(static_cast<size_t>(h.runs));
    uint32_t crc = 0;
    if (!in.read(reinterpret_cast<char*>(runs.data()), static_cast<std::streamsize>(runs.size() * sizeof(Run))) ||
        !in.read(reinterpret_cast<char*>(&crc), sizeof crc) || crc != crc_of(h, runs))
        return false;
    p.i = h.i;
    p.j = h.j;
    p.state = static_cast<char>(h.state);
    p.v = h.v;
    p.runs_back.clear();
    for (const Run& r : runs) p.runs_back.push_back(AlignmentRun{static_cast<char>(r.op), r.length});
    return true;
}

bool FileJournal::due() {
    const auto now = std::chrono::steady_clock::now();
    if (std::chrono::duration<double>(now - last_).count() < every_) return false;
    last_ = now;
    return true;
}

void FileJournal::save(const TracebackPoint& p) {
    Header h{};
    std::memcpy(h.magic, kMagic, sizeof kMagic);
    h.m = id_.m;
    h.n = id_.n;
    h.fingerprint0 = id_.fingerprint0;
    h.fingerprint1 = id_.fingerprint1;
    h.open = open_;
    h.ext = ext_;
    h.score = end_.score;
    h.state = p.state;
    h.s0_end = end_.s0_end;
    h.s1_end = end_.s1_end;
    h.i = p.i;
    h.j = p.j;
    h.v = p.v;
    h.runs = static_cast<int64_t>(p.runs_back.size());
    std::vector<Run> runs;
    runs.reserve(p.runs_back.size());
    for (const AlignmentRun& r : p.runs_back) runs.push_back(Run{r.length, r.op});
    const uint32_t crc = crc_of(h, runs);
    const std::string tmp = path_ + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(&h), sizeof h);
        out.write(reinterpret_cast<const char*>(runs.data()), static_cast<std::streamsize>(runs.size() * sizeof(Run)));
        out.write(reinterpret_cast<const char*>(&crc), sizeof crc);
        out.close();
        // A journal that cannot be written costs a rerun its head start, not the answer.
        if (!out) {
            std::remove(tmp.c_str());
            return;
        }
    }
    std::rename(tmp.c_str(), path_.c_str());
}

void FileJournal::finish() { std::remove(path_.c_str()); }

}  // namespace chromalign
