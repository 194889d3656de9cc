//! @file Writing and reading special rows.
#include "engine/traceback/special_rows.hpp"
#include "engine/traceback/special_row_format.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "engine/checkpoint/checkpoint_file.hpp"
#include "engine/error.hpp"
#include "engine/tiling/tile_executor.hpp"

namespace chromalign {

uint32_t special_row_substitution_key(const Scoring& sc) {
    uint32_t key = 2166136261u;  // FNV-1a over the 16 entries and `other`
    const auto mix = [&key](int32_t v) {
        for (int b = 0; b < 4; ++b) key = (key ^ ((static_cast<uint32_t>(v) >> (8 * b)) & 0xff)) * 16777619u;
    };
    for (const auto& row : sc.matrix)
        for (const int32_t v : row) mix(v);
    mix(sc.other);
    return key | 1u;
}

uint32_t special_row_header_crc(const SpecialRowHeader& h) {
    return static_cast<uint32_t>(crc32(0L, reinterpret_cast<const Bytef*>(&h), offsetof(SpecialRowHeader, crc)));
}

namespace {

constexpr int64_t kBlock = SpecialRows::kPeakColumns;
constexpr int32_t kMaxDelta = 65535;

/// Per block: the bound's int64 maximum, the row's int32 peak H and the region's.
constexpr int64_t kBlockBytes = 16;
constexpr int64_t kBlockBytesWithoutRegions = 12;

int64_t first_block(int64_t first) { return first / kBlock; }
int64_t block_count(int64_t first, int64_t width) { return (first + width - 1) / kBlock - first / kBlock + 1; }

/// Whether a piece's block values are ones stage 1 could have written for its row: with
/// 0 <= H <= most_score_at at every column, a block over columns [first, last] has its bound
/// max(0, H) + gap c in [gap first, top + gap last] and its peaks in [0, top]. Only the
/// header has a CRC, and these values enter 64-bit sums (TracebackTerms::bound).
bool block_values_fit(const SpecialRowHeader& hd, const std::vector<int64_t>& blocks, const std::vector<int32_t>& peaks,
                      const std::vector<int32_t>& region, int64_t best) {
    const int64_t last_col = hd.first + hd.width - 1;
    for (size_t b = 0; b < blocks.size(); ++b) {
        const int64_t block = first_block(hd.first) + static_cast<int64_t>(b);
        const int64_t first = std::max(hd.first, block * kBlock), last = std::min(last_col, (block + 1) * kBlock - 1);
        const int64_t top = most_score_at(hd.row, last, best);
        if (blocks[b] < hd.gap * first || blocks[b] > top + hd.gap * last || peaks[b] < 0 || peaks[b] > top ||
            region[b] < 0 || region[b] > most_score_at(hd.m, last, best))
            return false;
    }
    return true;
}

/// pread of exactly `size` bytes at `offset`.
void read_at(int fd, void* data, size_t size, int64_t offset, const std::string& path) {
    auto* p = static_cast<char*>(data);
    while (size > 0) {
        const ssize_t got = pread(fd, p, size, static_cast<off_t>(offset));
        if (got <= 0) throw Error(path + ": cannot read special row (" + (got < 0 ? std::strerror(errno) : "too short") + ")");
        p += got;
        size -= static_cast<size_t>(got);
        offset += got;
    }
}

}  // namespace

RowsIdentity rows_identity(const Sequence& s0, const Sequence& s1) {
    return RowsIdentity{s0.length(), s1.length(), sequence_fingerprint(s0), sequence_fingerprint(s1)};
}

int64_t special_row_spacing(int64_t m, int64_t n, int64_t budget_bytes, int64_t band_rows, int64_t min_spacing) {
    const int64_t per_row = kSpecialRowBytesPerColumn * n + static_cast<int64_t>(sizeof(SpecialRowHeader)) +
                            kBlockBytes * (n / kBlock + 2);
    const int64_t rows = budget_bytes / per_row;
    if (rows < 1 || band_rows < 1) return 0;
    const int64_t spacing = std::max<int64_t>({min_spacing, (m + rows) / (rows + 1), band_rows});
    return (spacing + band_rows - 1) / band_rows * band_rows;
}

SpecialRowWriter::SpecialRowWriter(std::string dir, const RowsIdentity& id, int64_t first_col, int64_t width,
                                   const Scoring& sc, std::function<void(const std::string&)> warn)
    : dir_(std::move(dir)), id_(id), first_(first_col), width_(width), open_(sc.gap_open), ext_(sc.gap_extend),
      gap_(std::min(sc.gap_open, sc.gap_extend)), substitution_(special_row_substitution_key(sc)),
      warn_(std::move(warn)) {
    if (int64_t{open_} - ext_ >= kMaxDelta) {
        failed_ = true;  // F could not be kept exactly in 16 bits
        if (warn_) warn_("warning: gap open - extend >= 65535: no special rows kept, the traceback starts from row 0");
    }
}

SpecialRowWriter::~SpecialRowWriter() {
    try {
        finish();
    } catch (...) {
    }
}

void SpecialRowWriter::finish() {
    if (pending_.valid()) pending_.get();
}

int64_t SpecialRowWriter::runs() const { return block_count(first_, width_); }

void SpecialRowWriter::write(int64_t row, std::vector<int32_t> h, std::vector<int32_t> f,
                             std::vector<int32_t> region_peaks) {
    if (failed_) return;
    if (static_cast<int64_t>(region_peaks.size()) != runs())
        throw Error("internal: a special row's region peaks do not match its columns");
    finish();
    pending_ = std::async(std::launch::async, [this, row, h = std::move(h), f = std::move(f),
                                               region = std::move(region_peaks)] {
        try {
            put(row, h, f, region);
        } catch (const Error& e) {
            failed_ = true;
            if (warn_) warn_(std::string("warning: ") + e.what() + "; no more special rows are kept (the traceback "
                             "will take longer, with the same answer)");
        }
    });
}

void SpecialRowWriter::put(int64_t row, const std::vector<int32_t>& h, const std::vector<int32_t>& f,
                           const std::vector<int32_t>& region) {
    SpecialRowHeader hd{};
    std::memcpy(hd.magic, kSpecialRowMagic, sizeof kSpecialRowMagic);
    hd.row = row;
    hd.m = id_.m;
    hd.n = id_.n;
    hd.fingerprint0 = id_.fingerprint0;
    hd.fingerprint1 = id_.fingerprint1;
    hd.first = first_;
    hd.width = width_;
    hd.open = open_;
    hd.ext = ext_;
    hd.gap = gap_;
    hd.substitution = substitution_;
    hd.blocks = block_count(first_, width_);
    hd.crc = special_row_header_crc(hd);
    std::vector<int64_t> blocks(static_cast<size_t>(hd.blocks), INT64_MIN);
    std::vector<int32_t> peaks(static_cast<size_t>(hd.blocks), 0);
    std::vector<uint16_t> delta(static_cast<size_t>(width_));
    for (int64_t k = 0; k < width_; ++k) {
        const int64_t c = first_ + k, hv = h[static_cast<size_t>(k)];
        int64_t& b = blocks[static_cast<size_t>(c / kBlock - first_block(first_))];
        b = std::max(b, edge_value(hv, c, gap_));
        int32_t& peak = peaks[static_cast<size_t>(c / kBlock - first_block(first_))];
        peak = std::max(peak, static_cast<int32_t>(hv));
        delta[static_cast<size_t>(k)] =
            static_cast<uint16_t>(std::clamp<int64_t>(hv - f[static_cast<size_t>(k)], 0, kMaxDelta));
    }
    const std::string name = "row" + std::to_string(row) + ".col" + std::to_string(first_) + "-" +
                             std::to_string(first_ + width_ - 1) + ".srow";
    const std::string path = dir_ + "/" + name, tmp = path + ".tmp";
    FILE* out = std::fopen(tmp.c_str(), "wb");
    if (!out) throw Error("cannot write special row " + tmp + ": " + std::strerror(errno));
    bool ok = std::fwrite(&hd, sizeof hd, 1, out) == 1 &&
              std::fwrite(blocks.data(), sizeof(int64_t), blocks.size(), out) == blocks.size() &&
              std::fwrite(peaks.data(), sizeof(int32_t), peaks.size(), out) == peaks.size() &&
              std::fwrite(region.data(), sizeof(int32_t), region.size(), out) == region.size() &&
              std::fwrite(h.data(), sizeof(int32_t), static_cast<size_t>(width_), out) == static_cast<size_t>(width_) &&
              std::fwrite(delta.data(), sizeof(uint16_t), delta.size(), out) == delta.size();
    const int err = errno;
    ok = std::fclose(out) == 0 && ok;
    if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::remove(tmp.c_str());
        throw Error("cannot write special row " + path + ": " + std::strerror(ok ? errno : err));
    }
}

SpecialRows::SpecialRows(const std::string& dir, const RowsIdentity& id, const Scoring& sc)
    : n_(id.n), gap_(std::min(sc.gap_open, sc.gap_extend)), best_(sc.best_score()) {
    const int64_t n = id.n;
    const uint32_t substitution = special_row_substitution_key(sc);
    std::error_code ec;
    std::map<int64_t, Row> found;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        const std::string path = entry.path().string();
        if (entry.path().extension() != ".srow" || !entry.is_regular_file(ec)) continue;
        const int fd = open(path.c_str(), O_RDONLY);
        if (fd < 0) continue;
        SpecialRowHeader hd{};
        const bool read_ok = pread(fd, &hd, sizeof hd, 0) == static_cast<ssize_t>(sizeof hd);
        const bool regions = read_ok && std::memcmp(hd.magic, kSpecialRowMagic, sizeof kSpecialRowMagic) == 0;
        const int64_t block_bytes = regions ? kBlockBytes : kBlockBytesWithoutRegions;
        const bool magic =
            regions || std::memcmp(hd.magic, kSpecialRowMagicWithoutRegions, sizeof kSpecialRowMagic) == 0;
        // Columns first .. first + width - 1 within 1 .. n, tested so that no sum overflows.
        bool usable = read_ok && magic && hd.crc == special_row_header_crc(hd) &&
                      hd.m == id.m && hd.n == n && hd.fingerprint0 == id.fingerprint0 &&
                      hd.fingerprint1 == id.fingerprint1 && hd.open == sc.gap_open && hd.ext == sc.gap_extend &&
                      (hd.substitution == 0 || hd.substitution == substitution) &&
                      hd.gap == gap_ && hd.first >= 1 && hd.first <= n && hd.width >= 1 && hd.width <= n - hd.first + 1 &&
                      hd.row >= 1 && hd.row < id.m &&
                      hd.blocks == block_count(hd.first, hd.width) &&
                      static_cast<int64_t>(entry.file_size(ec)) ==
                          static_cast<int64_t>(sizeof hd) + block_bytes * hd.blocks + kSpecialRowBytesPerColumn * hd.width;
        std::vector<int64_t> blocks;
        std::vector<int32_t> peaks, region;
        if (usable) {
            blocks.resize(static_cast<size_t>(hd.blocks));
            peaks.resize(blocks.size());
            read_at(fd, blocks.data(), blocks.size() * 8, sizeof hd, path);
            read_at(fd, peaks.data(), peaks.size() * 4, static_cast<int64_t>(sizeof hd) + 8 * hd.blocks, path);
            region = peaks;
            if (regions)  // after the blocks as rows without regions have them
                read_at(fd, region.data(), region.size() * 4,
                        static_cast<int64_t>(sizeof hd) + kBlockBytesWithoutRegions * hd.blocks, path);
            usable = block_values_fit(hd, blocks, peaks, region, best_);  // else its row comes from another
        }
        if (usable) {
            Row& row = found[hd.row];
            row.pieces.push_back(Piece{path, hd.first, hd.width, static_cast<int64_t>(sizeof hd) + block_bytes * hd.blocks});
            row.blocks.resize(static_cast<size_t>(n / kBlock + 1), INT64_MIN);
            row.peaks.resize(row.blocks.size(), 0);
            row.region_peaks.resize(row.blocks.size(), 0);
            for (int64_t b = 0; b < hd.blocks; ++b) {
                const auto at = static_cast<size_t>(first_block(hd.first) + b);
                row.blocks[at] = std::max(row.blocks[at], blocks[static_cast<size_t>(b)]);
                row.peaks[at] = std::max(row.peaks[at], peaks[static_cast<size_t>(b)]);
                row.region_peaks[at] = std::max(row.region_peaks[at], region[static_cast<size_t>(b)]);
            }
        }
        close(fd);
    }
    for (auto& [r, row] : found) {  // only rows whose pieces tile 1 .. n
        std::sort(row.pieces.begin(), row.pieces.end(), [](const Piece& a, const Piece& b) { return a.first < b.first; });
        std::vector<Piece> tiling;  // the pieces that continue where the last one ended
        int64_t next = 1;
        for (const Piece& p : row.pieces)
            if (p.first == next) {
                tiling.push_back(p);
                next += p.width;
            }
        if (next != n + 1) continue;
        row.pieces = std::move(tiling);
        rows_.emplace(r, std::move(row));
    }
}

int64_t SpecialRows::row_above(int64_t i) const {
    const auto it = rows_.lower_bound(i);
    return it == rows_.begin() ? 0 : std::prev(it)->first;
}

void SpecialRows::read_h(int64_t i, int64_t from, int64_t to, int32_t* h, int32_t* f) const {
    for (const Piece& p : rows_.at(i).pieces) {
        const int64_t a = std::max(from, p.first), b = std::min(to, p.first + p.width - 1);
        if (a > b) continue;
        const int fd = open(p.path.c_str(), O_RDONLY);
        if (fd < 0) throw Error(p.path + ": cannot open special row: " + std::strerror(errno));
        const int64_t count = b - a + 1, h_at = p.data_at;
        try {
            read_at(fd, h + (a - from), static_cast<size_t>(count) * 4, h_at + 4 * (a - p.first), p.path);
            for (int64_t c = a; c <= b; ++c)  // only the header has a CRC
                if (h[c - from] < 0 || h[c - from] > most_score_at(i, c, best_))
                    throw Error(p.path + ": special row " + std::to_string(i) + " is damaged: H " +
                                std::to_string(h[c - from]) + " at column " + std::to_string(c) +
                                " (remove the directory to start over)");
            if (f) {
                std::vector<uint16_t> d(static_cast<size_t>(count));
                read_at(fd, d.data(), d.size() * 2, h_at + 4 * p.width + 2 * (a - p.first), p.path);
                for (int64_t k = 0; k < count; ++k) f[a - from + k] = h[a - from + k] - d[static_cast<size_t>(k)];
            }
        } catch (...) {
            close(fd);
            throw;
        }
        close(fd);
    }
}

WindowRow SpecialRows::read(int64_t row, int64_t from, int64_t to) {
    WindowRow r = first_row(from, to);
    r.row = row;
    if (row == 0) return r;
    const int64_t first = std::max<int64_t>(from - 1, 1);  // column 0 is the matrix's edge
    read_h(row, first, to, r.h.data() + (first - (from - 1)), r.f.data() + (first - (from - 1)));
    return r;
}

int64_t SpecialRows::edge_term(int64_t row, int64_t to, int64_t gap) {
    if (gap != gap_) throw Error("internal: special rows were bounded with another gap cost");
    if (row == 0) return edge_value(0, to, gap);
    const Row& r = rows_.at(row);
    int64_t best = 0;  // column 0
    const int64_t partial = to / kBlock;  // the block holding `to`, read column by column
    for (int64_t b = 0; b < partial; ++b) best = std::max(best, r.blocks[static_cast<size_t>(b)]);
    const int64_t from = std::max<int64_t>(1, partial * kBlock);
    if (from <= to) {
        std::vector<int32_t> h(static_cast<size_t>(to - from + 1));
        read_h(row, from, to, h.data(), nullptr);
        for (int64_t c = from; c <= to; ++c) best = std::max(best, edge_value(h[static_cast<size_t>(c - from)], c, gap));
    }
    return best;
}

int64_t SpecialRows::crossing_column(int64_t row, int64_t from, const CrossingBias& bias) {
    const int64_t to = bias.j;
    if (row == 0) return RowSource::crossing_column(row, from, bias);  // H = 0: the bias decides
    const Row& r = rows_.at(row);
    // Each block's columns in [from, to], with the most they can score: the block's peak H
    // plus their largest bias. Blocks are read from the most promising on, until none can win.
    struct Candidate {
        int64_t bound, first, last;
    };
    std::vector<Candidate> blocks;
    for (int64_t b = from / kBlock; b <= to / kBlock; ++b) {
        const int64_t first = std::max(from, b * kBlock), last = std::min(to, (b + 1) * kBlock - 1);
        blocks.push_back({r.peaks[static_cast<size_t>(b)] + bias.most(first, last), first, last});
    }
    std::sort(blocks.begin(), blocks.end(), [](const Candidate& x, const Candidate& y) {
        return x.bound != y.bound ? x.bound > y.bound : x.last > y.last;
    });
    int64_t best_col = -1, best = 0;
    std::vector<int32_t> h;
    for (const Candidate& b : blocks) {
        // A block can still win with a larger value, or an equal one further right.
        if (best_col >= 0 && (b.bound < best || (b.bound == best && b.last < best_col))) continue;
        h.resize(static_cast<size_t>(b.last - b.first + 1));
        read_h(row, b.first, b.last, h.data(), nullptr);
        const int64_t c = best_crossing(h.data(), b.first, b.last, bias);
        const int64_t v = h[static_cast<size_t>(c - b.first)] + bias.at(c);
        if (best_col < 0 || v > best || (v == best && c > best_col)) {
            best = v;
            best_col = c;
        }
    }
    return best_col;
}

std::map<int64_t, std::vector<int32_t>> SpecialRows::region_peaks() const {
    std::map<int64_t, std::vector<int32_t>> out;
    for (const auto& [r, row] : rows_) out.emplace(r, row.region_peaks);
    return out;
}

}  // namespace chromalign
