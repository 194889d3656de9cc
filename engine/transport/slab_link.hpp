//! @file How the ranks of a column-slab run talk: edge stream, checkpoint acknowledgements, collectives.
#pragma once

#include <cstdint>
#include <vector>

namespace chromalign {

/// What a slab sends its right neighbour, in order: rows of its right edge column (the
/// neighbour's left edge), and the checkpoint protocol's control words (see Checkpointer),
/// alone in a message without rows or beside them.
struct EdgeMessage {
    int64_t row0 = 0;            ///< the rows carried are row0+1 .. row0+h.size() of the matrix
    int32_t best = 0;            ///< the best score the sender knew of (pruning on the right)
    int64_t request_seq = 0;     ///< > 0: checkpoint number seq is asked for (forwarded at once)
    bool request_stop = false;   ///< with request_seq: every slab stops once its piece is written
    int64_t captured_seq = 0;    ///< > 0: the sender's piece of checkpoint seq is at captured_row,
    int64_t captured_row = 0;    ///< and every row of its edge down to there has been sent
    std::vector<int32_t> h, e;   ///< H and E of those rows in the edge column
    /// From rank 0, forwarded: every slab has run its last diagonal and no checkpoint is being
    /// taken, so the slabs stop taking part in checkpoints (slab_run.cpp's serve).
    bool run_ended = false;
};
/// The acknowledgement a slab sends rank 0 once it has run its last diagonal.
constexpr int64_t kFinishedAck = -1;

/// One slab's end of the run: rank k of the run's slabs owns the k-th column slab; messages
/// flow from rank k to rank k+1 in row order, acknowledgements to rank 0. Implemented over
/// MPI (engine/mpi_link), and between the slab threads of one process (engine/local_link).
class SlabLink {
public:
    virtual ~SlabLink() = default;
    virtual int rank() const = 0;
    virtual int ranks() const = 0;

    /// Starts sending `m` to rank + 1 (the link keeps a copy); never blocks.
    virtual void send_edge(const EdgeMessage& m) = 0;
    /// The next message from rank - 1, if it has arrived; never blocks. May also answer false
    /// while the transport is busy with another thread's call: callers poll again.
    virtual bool poll_edge(EdgeMessage& m) = 0;

    /// Tells rank 0 that this rank's piece of checkpoint `seq` is on disk (kFinishedAck: that
    /// it has run its last diagonal); never blocks.
    virtual void send_ack(int64_t seq) = 0;
    /// Rank 0: an acknowledgement's seq, if one has arrived; never blocks (and, like poll_edge,
    /// may answer false while the transport is busy).
    virtual bool poll_ack(int64_t& seq) = 0;

    /// Collective: every rank's `values` (the same count on every rank), indexed by rank.
    virtual std::vector<std::vector<int64_t>> allgather(const std::vector<int64_t>& values) = 0;

    /// Waits until every message this rank sent has been delivered.
    virtual void flush() = 0;
};

}  // namespace chromalign
