//! @file MpiSession and MpiLink: the only code that calls MPI.
#include "engine/transport/mpi_link.hpp"

#include <mpi.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "engine/error.hpp"

namespace chromalign {
namespace {

constexpr int kAckTag = 1;
/// An edge's tag: this plus the rank of the slab that receives it.
constexpr int kEdgeTagBase = 2;
/// Messages are int32 words (an edge is 8 bytes per row). Edge header: row0 (2 words), request
/// seq (2 words), request stop, captured seq (2 words), captured row (2 words), rows, best score.
constexpr size_t kHeader = 11;

void put64(std::vector<int32_t>& words, int64_t v) {
    words.push_back(static_cast<int32_t>(static_cast<uint64_t>(v) & 0xffffffffu));
    words.push_back(static_cast<int32_t>(static_cast<uint64_t>(v) >> 32));
}

int64_t get64(const int32_t* w) {
    return static_cast<int64_t>(static_cast<uint64_t>(static_cast<uint32_t>(w[0])) |
                                static_cast<uint64_t>(static_cast<uint32_t>(w[1])) << 32);
}

/// Every MPI call of the process holds this (MPI_THREAD_SERIALIZED).
std::mutex g_mpi;
/// Threads waiting for g_mpi to make a call that cannot wait (a send, a collective). Polls step
/// aside while there is one, and never queue for the lock: up to a dozen slab threads per
/// process poll in a loop, and a send (slab 0's above all, which paces the whole pipeline)
/// should not wait behind them.
std::atomic<int> g_waiting{0};

/// g_mpi for a call that must happen now.
class MpiLock {
public:
    MpiLock() {
        ++g_waiting;
        lock_ = std::unique_lock<std::mutex>(g_mpi);
        --g_waiting;
    }

private:
    std::unique_lock<std::mutex> lock_;
};

/// Edge channels: communicator k carries the edges that slab k of each process receives
/// (MPI_Comm_dup'ed from MPI_COMM_WORLD, in index order on every process). MPI matches a
/// receive against the messages waiting from its source on its communicator only, so the
/// backlog of a slab that lags (its left neighbour runs ahead) never lengthens the other
/// slabs' searches: on one communicator, every probe of every slab walked past it.
std::mutex g_channels_mutex;
std::vector<MPI_Comm> g_channels;

/// Edge channel `channel`, or MPI_COMM_WORLD for -1 (acknowledgements).
MPI_Comm channel_comm(int channel) { return channel < 0 ? MPI_COMM_WORLD : g_channels[static_cast<size_t>(channel)]; }

void check(int status, const char* what) {
    if (status != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING];
        int length = 0;
        MPI_Error_string(status, text, &length);
        throw Error(std::string("MPI: ") + what + " failed: " + std::string(text, static_cast<size_t>(length)));
    }
}

}  // namespace

struct MpiLink::Pending {
    std::vector<int32_t> words;
    MPI_Request request = MPI_REQUEST_NULL;
};

bool MpiSession::launched_by_mpi() {
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK", "MPI_LOCALNRANKS"})
        if (std::getenv(name)) return true;
    return false;
}

MpiSession::MpiSession(int* argc, char*** argv) {
    int provided = 0;
    check(MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided), "MPI_Init_thread");
    serialized_ = provided >= MPI_THREAD_SERIALIZED;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &ranks_), "MPI_Comm_size");
    MPI_Comm node;
    check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
    check(MPI_Comm_rank(node, &local_rank_), "MPI_Comm_rank");
    MPI_Comm_free(&node);
}

MpiSession::~MpiSession() {
    for (MPI_Comm& c : g_channels) MPI_Comm_free(&c);
    g_channels.clear();
    MPI_Finalize();
}

void MpiSession::abort(int code) const {
    MPI_Abort(MPI_COMM_WORLD, code);
    std::exit(code);
}

MpiLink::MpiLink(const MpiSession& session, SlabGroup& group, int local)
    : group_(group), processes_(session.ranks()), local_(local),
      rank_(local * session.ranks() + session.rank()), ranks_(group.slabs() * session.ranks()) {
    if (group.slabs() > 1 && !session.serialized())
        throw Error("this MPI library does not allow calls from several threads: run one slab per rank (--slabs 1)");
    // The first link of each process makes every channel, so that all processes make them
    // in the same order whatever order their slabs' threads come in.
    const std::lock_guard<std::mutex> made(g_channels_mutex);
    while (g_channels.size() < static_cast<size_t>(group.slabs())) {
        const MpiLock lock;
        MPI_Comm c = MPI_COMM_NULL;
        check(MPI_Comm_dup(MPI_COMM_WORLD, &c), "MPI_Comm_dup");
        g_channels.push_back(c);
    }
}

MpiLink::~MpiLink() {
    const MpiLock lock;
    // After an exception the peers may never receive: cancel rather than wait.
    for (auto& p : pending_) {
        MPI_Cancel(&p->request);
        MPI_Request_free(&p->request);
    }
}

void MpiLink::send(std::vector<int32_t> words, int to, int tag, int channel) {
    const MpiLock lock;
    auto p = std::make_unique<Pending>();
    p->words = std::move(words);
    check(MPI_Isend(p->words.data(), static_cast<int>(p->words.size()), MPI_INT32_T, to, tag, channel_comm(channel),
                    &p->request),
          "MPI_Isend");
    pending_.push_back(std::move(p));
    reap();
}

void MpiLink::reap() {
    // A link's sends go to one slab, which takes them in order: they complete in about that
    // order, so the first one not done ends the sweep. A sweep over all of them would cost as
    // many calls as the receiver lags behind, on every poll of every slab of the process.
    while (!pending_.empty()) {
        int done = 0;
        check(MPI_Test(&pending_.front()->request, &done, MPI_STATUS_IGNORE), "MPI_Test");
        if (!done) return;
        pending_.pop_front();
    }
}

void MpiLink::send_edge(const EdgeMessage& m) {
    std::vector<int32_t> words;
    words.reserve(kHeader + 2 * m.h.size());
    put64(words, m.row0);
    put64(words, m.request_seq);
    words.push_back((m.request_stop ? 1 : 0) | (m.run_ended ? 2 : 0));
    put64(words, m.captured_seq);
    put64(words, m.captured_row);
    words.push_back(static_cast<int32_t>(m.h.size()));
    words.push_back(m.best);
    words.insert(words.end(), m.h.begin(), m.h.end());
    words.insert(words.end(), m.e.begin(), m.e.end());
    send(std::move(words), (rank_ + 1) % processes_, kEdgeTagBase + rank_ + 1, (rank_ + 1) / processes_);
}

bool MpiLink::poll(int source, int tag, int channel, std::vector<int32_t>& words) {
    group_.check();
    // Nothing arrived, as far as this caller knows, when another thread has the lock or wants it.
    if (g_waiting.load() > 0) return false;
    std::unique_lock<std::mutex> lock(g_mpi, std::try_to_lock);
    if (!lock.owns_lock()) return false;
    reap();
    int flag = 0, count = 0;
    MPI_Status status;
    MPI_Comm comm = channel_comm(channel);
    check(MPI_Iprobe(source, tag, comm, &flag, &status), "MPI_Iprobe");
    if (!flag) return false;
    check(MPI_Get_count(&status, MPI_INT32_T, &count), "MPI_Get_count");
    words.resize(static_cast<size_t>(count));
    check(MPI_Recv(words.data(), count, MPI_INT32_T, status.MPI_SOURCE, tag, comm, MPI_STATUS_IGNORE), "MPI_Recv");
    return true;
}

bool MpiLink::poll_edge(EdgeMessage& m) {
    std::vector<int32_t> words;
    if (!poll((rank_ - 1 + processes_) % processes_, kEdgeTagBase + rank_, local_, words)) return false;
    const size_t rows = words.size() >= kHeader ? static_cast<size_t>(words[9]) : 0;
    if (words.size() != kHeader + 2 * rows) throw Error("MPI: malformed edge message from the left neighbour");
    m.row0 = get64(&words[0]);
    m.request_seq = get64(&words[2]);
    m.request_stop = (words[4] & 1) != 0;
    m.run_ended = (words[4] & 2) != 0;
    m.captured_seq = get64(&words[5]);
    m.captured_row = get64(&words[7]);
    m.best = words[10];
    m.h.assign(words.begin() + kHeader, words.begin() + kHeader + rows);
    m.e.assign(words.begin() + kHeader + rows, words.end());
    return true;
}

void MpiLink::send_ack(int64_t seq) {
    std::vector<int32_t> words;
    put64(words, seq);
    send(std::move(words), 0, kAckTag, -1);
}

bool MpiLink::poll_ack(int64_t& seq) {
    std::vector<int32_t> words;
    if (!poll(MPI_ANY_SOURCE, kAckTag, -1, words)) return false;
    if (words.size() != 2) throw Error("MPI: malformed checkpoint acknowledgement");
    seq = get64(words.data());
    return true;
}

std::vector<std::vector<int64_t>> MpiLink::allgather(const std::vector<int64_t>& values) {
    const int processes = processes_;
    return group_.gather(local_, values, [processes](const SlabValues& mine) {
        // One MPI_Allgather per process, of its slabs' values in local order; slab `local` of
        // process p is rank local * P + p.
        const size_t width = mine.front().size(), slabs = mine.size();
        std::vector<int64_t> sent, all(width * slabs * static_cast<size_t>(processes));
        for (const auto& v : mine) sent.insert(sent.end(), v.begin(), v.end());
        const int count = static_cast<int>(sent.size());
        {
            const MpiLock lock;
            check(MPI_Allgather(sent.data(), count, MPI_INT64_T, all.data(), count, MPI_INT64_T, MPI_COMM_WORLD),
                  "MPI_Allgather");
        }
        SlabValues out(slabs * static_cast<size_t>(processes));
        for (size_t p = 0; p < static_cast<size_t>(processes); ++p)
            for (size_t local = 0; local < slabs; ++local) {
                const auto first = all.begin() + static_cast<std::ptrdiff_t>((p * slabs + local) * width);
                out[local * static_cast<size_t>(processes) + p].assign(first, first + static_cast<std::ptrdiff_t>(width));
            }
        return out;
    });
}

void MpiLink::flush() {
    // Never waits holding the lock: a send completes once its receiver takes it, and that slab
    // may first need messages that the other slabs of this process receive through the same
    // lock (an MPI_Wait under it stalled both processes of a 2-rank run until the receiver
    // caught up, and could deadlock two processes flushing at once).
    for (;;) {
        {
            const MpiLock lock;
            reap();
            if (pending_.empty()) return;
        }
        group_.check();
        std::this_thread::sleep_for(std::chrono::microseconds(100));  // the pollers' turn
    }
}

}  // namespace chromalign
