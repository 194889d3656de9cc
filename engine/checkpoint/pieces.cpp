//! @file Names, discovery, assembly and removal of column-slab checkpoint pieces.
#include "engine/checkpoint/pieces.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "engine/error.hpp"
#include "engine/result.hpp"

namespace chromalign {
namespace {

std::string dir_of(const std::string& path) {
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

std::string base_of(const std::string& path) {
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string slab_suffix(int rank, int ranks) {
    return ".slab" + std::to_string(rank) + "of" + std::to_string(ranks);
}

std::string piece_name(const std::string& path, int rank, int ranks, int slot) {
    return path + slab_suffix(rank, ranks) + "." + std::to_string(slot);
}

std::vector<int> other_rank_counts(const std::string& path, int ranks) {
    std::vector<int> found;
    DIR* dir = opendir(dir_of(path).c_str());
    if (!dir) return found;
    const std::string prefix = base_of(path) + ".slab";
    while (const dirent* entry = readdir(dir)) {
        const std::string name = entry->d_name;
        const size_t of = name.find("of", prefix.size());
        if (name.compare(0, prefix.size(), prefix) != 0 || of == std::string::npos) continue;
        const int q = std::atoi(name.c_str() + of + 2);
        if (q > 0 && q != ranks && std::find(found.begin(), found.end(), q) == found.end()) found.push_back(q);
    }
    closedir(dir);
    return found;
}

std::vector<Checkpoint> read_pieces(const std::string& path, int q, int slot, const Sequence& s0, const Sequence& s1,
                                    const Scoring& scoring) {
    std::vector<Checkpoint> pieces;
    int64_t c = 0;
    for (int k = 0; k < q; ++k) {
        const std::string name = piece_name(path, k, q, slot);
        Checkpoint piece = read_checkpoint(name);
        if (piece.n > s1.length() - c) throw Error(name + ": piece is wider than what is left of S1");
        Sequence columns;
        columns.codes.assign(s1.codes.begin() + c, s1.codes.begin() + c + piece.n);
        if (const std::string why = checkpoint_mismatch(piece, s0, columns, scoring); !why.empty())
            throw Error(name + ": " + why);
        if (k > 0 && piece.seq != pieces[0].seq) throw Error(name + ": piece of another checkpoint");
        if (piece.seq == 0 && k > 0 && piece.row != pieces[0].row) throw Error(name + ": piece of another row");
        c += piece.n;
        pieces.push_back(std::move(piece));
    }
    if (c != s1.length()) throw Error(path + ": the pieces of " + std::to_string(q) + " slabs do not cover S1");
    return pieces;
}

Checkpoint flat_of(const std::vector<Checkpoint>& pieces, const Sequence& s1) {
    Checkpoint whole;
    const Checkpoint& first = pieces.front();
    whole.m = first.m;
    whole.fingerprint0 = first.fingerprint0;
    whole.scoring = first.scoring;
    whole.row = first.row;
    whole.n = s1.length();
    whole.fingerprint1 = sequence_fingerprint(s1);
    for (const Checkpoint& piece : pieces)
        if (better_end(piece.best, whole.best)) whole.best = piece.best;
    return whole;
}

std::vector<Checkpoint> split_steps(std::vector<Checkpoint> pieces) {
    std::vector<Checkpoint> parts;
    for (Checkpoint& piece : pieces) {
        // The arrays out first: each part starts from a copy of what is left, the identity.
        std::vector<StairStep> steps;
        std::vector<int32_t> h, f, left_h, left_e;
        steps.swap(piece.steps);
        h.swap(piece.h);
        f.swap(piece.f);
        left_h.swap(piece.left_h);
        left_e.swap(piece.left_e);
        for (size_t k = 0; k <= steps.size(); ++k) {
            const int64_t from = k == 0 ? 0 : steps[k - 1].col, to = k < steps.size() ? steps[k].col : piece.n;
            Checkpoint part = piece;
            if (k == 0) {
                part.left_h = std::move(left_h);
                part.left_e = std::move(left_e);
            } else {
                StairStep& step = steps[k - 1];
                part.row = step.row;
                part.left_corner = step.corner;
                part.left_h = std::move(step.h);
                part.left_e = std::move(step.e);
            }
            part.n = to - from;
            part.h.assign(h.begin() + from, h.begin() + to);
            part.f.assign(f.begin() + from, f.begin() + to);
            parts.push_back(std::move(part));
        }
    }
    return parts;
}

Checkpoint join_pieces(const std::vector<Checkpoint>& pieces, const Sequence& s1) {
    Checkpoint whole = flat_of(pieces, s1);
    for (const Checkpoint& piece : pieces) {
        if (piece.row != whole.row || !piece.steps.empty()) throw Error("internal: pieces at different rows joined");
        whole.h.insert(whole.h.end(), piece.h.begin(), piece.h.end());
        whole.f.insert(whole.f.end(), piece.f.begin(), piece.f.end());
    }
    return whole;
}

int other_rank_count(const std::string& path, int ranks) {
    const std::vector<int> others = other_rank_counts(path, ranks);
    if (others.size() > 1)
        throw Error(path + ": checkpoint pieces of runs with " + std::to_string(others[0]) + " and " +
                    std::to_string(others[1]) + " slabs lie there; remove the stale ones, or use --restart");
    return others.empty() ? 0 : others[0];
}

LatestPieces latest_pieces(const std::string& path, int q, const Sequence& s0, const Sequence& s1,
                           const Scoring& scoring) {
    LatestPieces latest;
    for (int slot = 0; slot < 2; ++slot) {
        if (!file_exists(piece_name(path, 0, q, slot))) continue;
        latest.any = true;
        try {
            std::vector<Checkpoint> pieces = read_pieces(path, q, slot, s0, s1, scoring);
            const auto key = [](const std::vector<Checkpoint>& p) { return std::make_pair(p[0].seq, p[0].row); };
            if (latest.pieces.empty() || key(pieces) > key(latest.pieces)) latest.pieces = std::move(pieces);
        } catch (const Error& e) {
            latest.problems.push_back(e.what());
        }
    }
    return latest;
}

void remove_pieces(const std::string& path, int q) {
    for (int k = 0; k < q; ++k)
        for (int slot = 0; slot < 2; ++slot) ::unlink(piece_name(path, k, q, slot).c_str());
}

std::string remove_spent_files(const std::string& path, int keep) {
    ::unlink(path.c_str());
    for (const int q : other_rank_counts(path, keep)) remove_pieces(path, q);
    return "an earlier run with checkpoint " + path + " had finished; removed the files it left";
}

std::string completion_marker(const std::string& path) { return path + ".complete"; }

void write_completion_marker(const std::string& path) {
    const std::string name = completion_marker(path);
    const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || ::fsync(fd) != 0) {
        if (fd >= 0) ::close(fd);
        throw Error(name + ": cannot write the completion marker");
    }
    ::close(fd);
}

}  // namespace chromalign
