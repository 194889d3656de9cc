//! @file SlabLink over MPI, and the MPI session of a process started by mpirun or srun.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <vector>

#include "engine/slab_link.hpp"

namespace chromalign {

/// MPI_Init_thread (funneled: only the main thread calls MPI) and MPI_Finalize. A process
/// not started by an MPI launcher never initialises MPI (see launched_by_mpi).
class MpiSession {
public:
    MpiSession(int* argc, char*** argv);
    ~MpiSession();
    MpiSession(const MpiSession&) = delete;
    MpiSession& operator=(const MpiSession&) = delete;

    /// Whether mpirun, mpiexec or srun started this process (their environment variables).
    static bool launched_by_mpi();

    int rank() const { return rank_; }
    int ranks() const { return ranks_; }
    int local_rank() const { return local_rank_; }  ///< rank among the ranks of this node

    /// Ends every rank of the job (after an error on this one); does not return.
    [[noreturn]] void abort(int code) const;

private:
    int rank_ = 0, ranks_ = 1, local_rank_ = 0;
};

/// Edges and acknowledgements as non-blocking point-to-point messages on MPI_COMM_WORLD;
/// the buffers of messages in flight live here until MPI reports them sent.
class MpiLink : public SlabLink {
public:
    explicit MpiLink(const MpiSession& session);
    ~MpiLink() override;

    int rank() const override { return rank_; }
    int ranks() const override { return ranks_; }
    void send_edge(const EdgeMessage& m) override;
    bool poll_edge(EdgeMessage& m) override;
    void send_ack(int64_t seq) override;
    bool poll_ack(int64_t& seq) override;
    std::vector<std::vector<int64_t>> allgather(const std::vector<int64_t>& values) override;
    void flush() override;

private:
    struct Pending;
    void send(std::vector<int32_t> words, int to, int tag);
    void reap();  ///< frees the buffers of completed sends

    int rank_, ranks_;
    std::list<std::unique_ptr<Pending>> pending_;
};

}  // namespace chromalign
