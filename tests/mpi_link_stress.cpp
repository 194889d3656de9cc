//! @file Run under mpirun by MpiCli.EdgesFlowPastALaggingSlab: every slab of every process
//! streams `messages` edges to its right neighbour as fast as it can, while the last slab of
//! the run takes its own slowly (a slab whose GPU is busier), then flushes. Exits 0 when every
//! slab received all its edges in order, intact. MpiLink once waited in MPI_Wait under its
//! lock in flush(), which deadlocked two processes flushing at once, and probed one
//! communicator, where the lagging slab's backlog slowed every other slab's receives.
//!   mpirun -np 2 chromalign_mpi_link_stress SLABS MESSAGES
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "engine/orchestration/slab_group.hpp"
#include "engine/transport/mpi_link.hpp"

using namespace chromalign;

int main(int argc, char** argv) {
    MpiSession session(&argc, &argv);
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s SLABS MESSAGES\n", argv[0]);
        return 2;
    }
    const int slabs = std::atoi(argv[1]), messages = std::atoi(argv[2]);
    constexpr int kRows = 512;  // an edge of the cuda backend's bands: past Open MPI's eager limit
    SlabGroup group(slabs);
    std::atomic<int> bad{0};
    run_in_group(group, [&](int local) {
        MpiLink link(session, group, local);
        const bool left = link.rank() > 0, right = link.rank() + 1 < link.ranks();
        const bool lagging = link.rank() + 1 == link.ranks();
        auto next_take = std::chrono::steady_clock::now();
        int sent = 0, got = 0;
        while ((right && sent < messages) || (left && got < messages)) {
            if (right && sent < messages) {
                EdgeMessage m;
                m.row0 = int64_t{sent} * kRows;
                m.h.assign(kRows, sent);
                m.e.assign(kRows, -sent);
                link.send_edge(m);
                ++sent;
            }
            EdgeMessage in;
            if (left && got < messages && (!lagging || std::chrono::steady_clock::now() >= next_take) &&
                link.poll_edge(in)) {
                if (in.row0 != int64_t{got} * kRows || in.h.size() != kRows || in.h.back() != got || in.e[0] != -got)
                    ++bad;
                ++got;
                next_take = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
            }
            std::this_thread::yield();
        }
        link.flush();
    });
    if (bad > 0) std::fprintf(stderr, "rank %d: %d edges out of order or damaged\n", session.rank(), bad.load());
    return bad > 0 ? 1 : 0;
}
