//! @file SlabLink between the slabs of one process (threads): a single-process run of several
//! slabs, and slab runs tested without an MPI launcher.
#pragma once

#include <deque>
#include <mutex>
#include <vector>

#include "engine/orchestration/slab_group.hpp"
#include "engine/transport/slab_link.hpp"

namespace chromalign {

/// The mailboxes of a group's LocalLinks: slab k of the group is rank k of the run.
class LocalLinkHub {
public:
    explicit LocalLinkHub(SlabGroup& group);

private:
    friend class LocalLink;
    SlabGroup& group_;
    std::mutex mutex_;
    std::vector<std::deque<EdgeMessage>> edges_;  ///< per receiving rank
    std::deque<int64_t> acks_;                    ///< to rank 0
};

class LocalLink : public SlabLink {
public:
    LocalLink(LocalLinkHub& hub, int rank) : hub_(hub), rank_(rank) {}
    int rank() const override { return rank_; }
    int ranks() const override { return hub_.group_.slabs(); }
    void send_edge(const EdgeMessage& m) override;
    bool poll_edge(EdgeMessage& m) override;
    void send_ack(int64_t seq) override;
    bool poll_ack(int64_t& seq) override;
    std::vector<std::vector<int64_t>> allgather(const std::vector<int64_t>& values) override;
    void flush() override {}

private:
    LocalLinkHub& hub_;
    int rank_;
};

}  // namespace chromalign
