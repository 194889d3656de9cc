//! @file ThreadLink: mailboxes and a generation-counted barrier under one mutex.
#include "tests/thread_link.hpp"

#include <exception>
#include <thread>

namespace chromalign::test {

ThreadLinkHub::ThreadLinkHub(int ranks) : ranks_(ranks), edges_(static_cast<size_t>(ranks)), gathered_(static_cast<size_t>(ranks)) {}

void ThreadLink::send_edge(const EdgeMessage& m) {
    std::lock_guard<std::mutex> lock(hub_.mutex_);
    hub_.edges_[static_cast<size_t>(rank_ + 1)].push_back(m);
}

bool ThreadLink::poll_edge(EdgeMessage& m) {
    std::lock_guard<std::mutex> lock(hub_.mutex_);
    auto& box = hub_.edges_[static_cast<size_t>(rank_)];
    if (box.empty()) return false;
    m = std::move(box.front());
    box.pop_front();
    return true;
}

void ThreadLink::send_ack(int64_t seq) {
    std::lock_guard<std::mutex> lock(hub_.mutex_);
    hub_.acks_.push_back(seq);
}

bool ThreadLink::poll_ack(int64_t& seq) {
    std::lock_guard<std::mutex> lock(hub_.mutex_);
    if (hub_.acks_.empty()) return false;
    seq = hub_.acks_.front();
    hub_.acks_.pop_front();
    return true;
}

std::vector<std::vector<int64_t>> ThreadLink::allgather(const std::vector<int64_t>& values) {
    std::unique_lock<std::mutex> lock(hub_.mutex_);
    const int64_t generation = hub_.generation_;
    hub_.gathered_[static_cast<size_t>(rank_)] = values;
    if (++hub_.arrived_ == hub_.ranks_) {
        hub_.last_ = hub_.gathered_;
        hub_.arrived_ = 0;
        ++hub_.generation_;
        hub_.changed_.notify_all();
    } else {
        hub_.changed_.wait(lock, [&] { return hub_.generation_ != generation; });
    }
    return hub_.last_;
}

void run_ranks(int ranks, const std::function<void(SlabLink&)>& body) {
    ThreadLinkHub hub(ranks);
    std::vector<std::exception_ptr> errors(static_cast<size_t>(ranks));
    std::vector<std::thread> threads;
    for (int k = 0; k < ranks; ++k)
        threads.emplace_back([&, k] {
            ThreadLink link(hub, k);
            try {
                body(link);
            } catch (...) {
                errors[static_cast<size_t>(k)] = std::current_exception();
            }
        });
    for (auto& t : threads) t.join();
    for (auto& e : errors)
        if (e) std::rethrow_exception(e);
}

}  // namespace chromalign::test
