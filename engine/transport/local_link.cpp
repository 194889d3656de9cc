//! @file LocalLink: mailboxes under one mutex; collectives through the SlabGroup.
#include "engine/transport/local_link.hpp"

namespace chromalign {

LocalLinkHub::LocalLinkHub(SlabGroup& group) : group_(group), edges_(static_cast<size_t>(group.slabs())) {}

void LocalLink::send_edge(const EdgeMessage& m) {
    std::lock_guard<std::mutex> lock(hub_.mutex_);
    hub_.edges_[static_cast<size_t>(rank_ + 1)].push_back(m);
}

bool LocalLink::poll_edge(EdgeMessage& m) {
    hub_.group_.check();
    std::lock_guard<std::mutex> lock(hub_.mutex_);
    auto& box = hub_.edges_[static_cast<size_t>(rank_)];
    if (box.empty()) return false;
    m = std::move(box.front());
    box.pop_front();
    return true;
}

void LocalLink::send_ack(int64_t seq) {
    std::lock_guard<std::mutex> lock(hub_.mutex_);
    hub_.acks_.push_back(seq);
}

bool LocalLink::poll_ack(int64_t& seq) {
    hub_.group_.check();
    std::lock_guard<std::mutex> lock(hub_.mutex_);
    if (hub_.acks_.empty()) return false;
    seq = hub_.acks_.front();
    hub_.acks_.pop_front();
    return true;
}

std::vector<std::vector<int64_t>> LocalLink::allgather(const std::vector<int64_t>& values) {
    return hub_.group_.gather(rank_, values, [](const SlabValues& all) { return all; });
}

}  // namespace chromalign
