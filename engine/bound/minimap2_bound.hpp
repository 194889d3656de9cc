//! @file The bound pass of `--bound minimap2`: minimap2's library (preset asm20, which maps pairs up to about 20% divergence) maps S1 onto
//! S0, forward strand only (the reverse strand is a comparison of its own, whose S1 is already
//! reverse-complemented). S1 is cut into pieces that the machine's cores map at once; the
//! blocks are chained (engine/bound/chain.hpp) and the chain's best stretch, scored exactly
//! under the run's scoring, is the bound. The index of the last S0 is kept: a job's strands
//! and pairs come back to it.
#pragma once

#include <cstdint>
#include <memory>

#include "engine/bound/bound_source.hpp"

namespace chromalign {

class Minimap2Bound : public BoundSource {
public:
    /// `threads`: cores to map with (0: every core of the machine).
    explicit Minimap2Bound(int threads = 0);
    ~Minimap2Bound() override;
    std::string name() const override { return "minimap2"; }
    BoundFound find(const Sequence& s0, const Sequence& s1, const Scoring& scoring,
                    const std::atomic<bool>& cancel) override;

private:
    struct Index;
    int threads_;
    std::unique_ptr<Index> index_;
};

}  // namespace chromalign
