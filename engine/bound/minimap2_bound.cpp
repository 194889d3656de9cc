//! @file Minimap2Bound: the only code that calls minimap2.
#include "engine/bound/minimap2_bound.hpp"

#include <algorithm>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/bound/chain.hpp"
#include "engine/bound/minimap2_support.hpp"
#include "engine/checkpoint/checkpoint_file.hpp"
#include "engine/error.hpp"

namespace chromalign {
namespace {

/// Pieces of S1 mapped at once: small enough that every core gets some, large enough that a
/// piece holds many of minimap2's chains (a block cut at a piece's edge is joined again by
/// chain_blocks). A cancel (a stop) waits for the pieces being mapped: kMostPiece bases at most,
/// not a core's whole share of a chromosome.
constexpr int64_t kMinPiece = 200'000;
constexpr int64_t kMostPiece = 2'000'000;

/// A minimap2 alignment of piece [from, ...) of S1 against S0 as a path of the matrix. Its
/// CIGAR names S0 the reference: 'D' skips S0 bases (our 'I'), 'I' skips S1 bases (our 'D').
MatrixPath block_path(const mm_reg1_t& r, int64_t from) {
    MatrixPath path;
    path.s0_from = r.rs;
    path.s1_from = from + r.qs;
    for (uint32_t c = 0; c < r.p->n_cigar; ++c) {
        const uint32_t op = r.p->cigar[c] & 0xf, length = r.p->cigar[c] >> 4;
        if (op == 0 || op == 7 || op == 8)  // M, =, X
            path.add('M', length);
        else if (op == 1)
            path.add('D', length);
        else if (op == 2 || op == 3)
            path.add('I', length);
    }
    return path;
}

}  // namespace

struct Minimap2Bound::Index {
    int64_t length = 0;
    uint64_t fingerprint = 0;
    std::unique_ptr<Minimap2Index> minimap2;
};

Minimap2Bound::Minimap2Bound(int threads)
    : threads_(threads > 0 ? threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()))) {}

Minimap2Bound::~Minimap2Bound() = default;

BoundFound Minimap2Bound::find(const Sequence& s0, const Sequence& s1, const Scoring& scoring,
                               const std::atomic<bool>& cancel) {
    BoundFound found;
    if (s0.length() == 0 || s1.length() == 0) return found;
    if (s0.length() > INT32_MAX || s1.length() > INT32_MAX)  // minimap2's coordinates are 32-bit
        return found;
    require_memory_for_minimap2(s0.length() + s1.length(), threads_, "the bound pass");
    const uint64_t fingerprint = sequence_fingerprint(s0);
    if (!index_ || index_->length != s0.length() || index_->fingerprint != fingerprint) {
        index_.reset();
        auto index = std::make_unique<Index>();
        index->minimap2 = std::make_unique<Minimap2Index>(std::vector<const Sequence*>{&s0}, MM_F_CIGAR | MM_F_FOR_ONLY,
                                                          "the bound pass", &cancel);
        if (!index->minimap2->index()) return found;  // cancelled
        index->length = s0.length();
        index->fingerprint = fingerprint;
        index_ = std::move(index);
    }
    const int64_t n = s1.length();
    const int64_t piece = std::clamp<int64_t>((n + threads_ - 1) / threads_, kMinPiece, kMostPiece);
    const int64_t pieces = (n + piece - 1) / piece;
    std::vector<MatrixPath> blocks;
    std::mutex mutex;
    map_in_parallel(pieces, threads_, &cancel, "the bound pass", [&](int64_t k, mm_tbuf_t* buffer) {
        const int64_t from = k * piece, to = std::min(n, from + piece);
        std::vector<MatrixPath> mine;
        map_text(*index_->minimap2, minimap2_letters(s1, from, to), buffer, [&](const mm_reg1_t& r) {
            if (!r.rev && r.p) mine.push_back(block_path(r, from));
        });
        const std::lock_guard<std::mutex> lock(mutex);
        for (MatrixPath& b : mine) blocks.push_back(std::move(b));
    });
    if (cancel.load(std::memory_order_relaxed)) return found;
    found.blocks = static_cast<int64_t>(blocks.size());
    const MatrixPath chain = chain_blocks(std::move(blocks), s0, s1, scoring);
    for (const PathRun& r : chain.runs) found.path_columns += r.length;
    found.witness = best_stretch(chain, s0, s1, scoring);
    return found;
}

}  // namespace chromalign
