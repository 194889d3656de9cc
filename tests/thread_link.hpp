//! @file SlabLink between threads of one process: slab runs tested without an MPI launcher.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <vector>

#include "engine/backend.hpp"
#include "engine/slab_link.hpp"

namespace chromalign::test {

/// The shared mailboxes and barrier of `ranks` ThreadLinks.
class ThreadLinkHub {
public:
    explicit ThreadLinkHub(int ranks);
    int ranks() const { return ranks_; }

private:
    friend class ThreadLink;
    int ranks_;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<std::deque<EdgeMessage>> edges_;  ///< per receiving rank
    std::deque<int64_t> acks_;                    ///< to rank 0
    std::vector<std::vector<int64_t>> gathered_;  ///< allgather in progress
    int arrived_ = 0;
    int64_t generation_ = 0;
    std::vector<std::vector<int64_t>> last_;      ///< result of the last completed allgather
};

class ThreadLink : public SlabLink {
public:
    ThreadLink(ThreadLinkHub& hub, int rank) : hub_(hub), rank_(rank) {}
    int rank() const override { return rank_; }
    int ranks() const override { return hub_.ranks(); }
    void send_edge(const EdgeMessage& m) override;
    bool poll_edge(EdgeMessage& m) override;
    void send_ack(int64_t seq) override;
    bool poll_ack(int64_t& seq) override;
    std::vector<std::vector<int64_t>> allgather(const std::vector<int64_t>& values) override;
    void flush() override {}

private:
    ThreadLinkHub& hub_;
    int rank_;
};

/// Runs body(link) on `ranks` threads, one per rank; rethrows the first exception, after
/// all threads ended. A throwing rank can leave the others waiting; tests only throw together.
void run_ranks(int ranks, const std::function<void(SlabLink&)>& body);

/// A column-slab run of `ranks` threads, each with its own `backend` ("cpu" or "cuda") of
/// `options`, rank k on CUDA device k modulo the devices. Every rank must return the same
/// best cell (checked), which is returned.
AlignmentEnd slab_align(const std::string& backend, const Sequence& s0, const Sequence& s1, const Scoring& scoring,
                        int ranks, const BackendOptions& options);

/// Asserts that slab_align gives the reference's answer; `what` names the case.
void expect_slab_matches_reference(const std::string& backend, const Sequence& s0, const Sequence& s1,
                                   const Scoring& scoring, int ranks, const BackendOptions& options,
                                   const std::string& what);

}  // namespace chromalign::test
