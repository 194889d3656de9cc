//! @file SlabLink over MPI, and the MPI session of a process started by mpirun or srun.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <vector>

#include "engine/orchestration/slab_group.hpp"
#include "engine/transport/slab_link.hpp"

namespace chromalign {

/// MPI_Init_thread (serialized: the slabs' threads call MPI one at a time, under MpiLink's
/// lock) and MPI_Finalize. A process not started by an MPI launcher never initialises MPI
/// (see launched_by_mpi).
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
    /// Whether the MPI library allows calls from several threads, one at a time.
    bool serialized() const { return serialized_; }

    /// Ends every rank of the job (after an error on this one); does not return.
    [[noreturn]] void abort(int code) const;

private:
    int rank_ = 0, ranks_ = 1, local_rank_ = 0;
    bool serialized_ = false;
};

/// Edges and acknowledgements as non-blocking point-to-point messages, the edges to slab k of
/// a process on a communicator of their own (mpi_link.cpp says why); the buffers of messages
/// in flight live here until MPI reports them sent.
/// With `group.slabs()` = S slabs per process, the run has S x P slabs and slab `local` of
/// process p is rank local x P + p, so neighbouring slabs are on different processes (the
/// GPUs share the ramps); messages carry their receiving slab's rank as the tag.
class MpiLink : public SlabLink {
public:
    MpiLink(const MpiSession& session, SlabGroup& group, int local);
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
    /// On edge channel `channel` (the receiving slab's local index), or MPI_COMM_WORLD for -1.
    void send(std::vector<int32_t> words, int to, int tag, int channel);
    void reap();  ///< frees the buffers of completed sends
    /// Receives the next message with `tag` from process `source` (or any) on `channel` (as
    /// send) into `words`; false when none has arrived. Throws when another slab of this
    /// process failed.
    bool poll(int source, int tag, int channel, std::vector<int32_t>& words);

    SlabGroup& group_;
    const int processes_, local_;
    int rank_, ranks_;
    std::list<std::unique_ptr<Pending>> pending_;
};

}  // namespace chromalign
