//! @file ThreadLink: mailboxes and a generation-counted barrier under one mutex.
#include "tests/thread_link.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <exception>
#include <thread>

#include "engine/cuda_backend.hpp"
#include "engine/reference.hpp"
#include "engine/slab_run.hpp"
#include "tests/test_support.hpp"

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

AlignmentEnd slab_align(const std::string& backend, const Sequence& s0, const Sequence& s1, const Scoring& scoring,
                        int ranks, const BackendOptions& options) {
    std::vector<AlignmentEnd> results(static_cast<size_t>(ranks));
    run_ranks(ranks, [&](SlabLink& link) {
        BackendOptions mine = options;
        mine.device = link.rank() % std::max(1, cuda_backend_device_count());
        auto engine = make_backend(backend, mine);
        results[static_cast<size_t>(link.rank())] = run_slab(s0, s1, scoring, *engine->slab_engine(), link, mine);
    });
    for (const AlignmentEnd& r : results) EXPECT_EQ(r, results[0]) << "ranks disagree";
    return results[0];
}

void expect_slab_matches_reference(const std::string& backend, const Sequence& s0, const Sequence& s1,
                                   const Scoring& scoring, int ranks, const BackendOptions& o,
                                   const std::string& what) {
    const AlignmentEnd want = reference_align(s0, s1, scoring);
    const AlignmentEnd got = slab_align(backend, s0, s1, scoring, ranks, o);
    ASSERT_EQ(got, want) << what << ": " << backend << ", " << ranks << " ranks, m=" << s0.length()
                         << " n=" << s1.length() << " " << scoring.to_string() << " alpha=" << o.alpha
                         << " max_blocks=" << o.max_blocks << "\n got " << got.score << " (" << got.s0_end << ", "
                         << got.s1_end << ") want " << want.score << " (" << want.s0_end << ", " << want.s1_end
                         << ")\n s0 " << preview(s0) << "\n s1 " << preview(s1) << "\n seed " << seed();
}

}  // namespace chromalign::test
