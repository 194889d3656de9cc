//! @file minimap2's mapping on every core.
#include "engine/bound/minimap2_support.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/error.hpp"
#include "engine/threads/for_each_worker.hpp"

namespace chromalign {

std::string minimap2_letters(const Sequence& s, int64_t from, int64_t to) {
    static const char kLetters[] = {'A', 'C', 'G', 'T', 'N'};
    std::string text(static_cast<size_t>(to - from), 'N');
    for (int64_t p = from; p < to; ++p)
        text[static_cast<size_t>(p - from)] = kLetters[std::min<uint8_t>(s.codes[static_cast<size_t>(p)], 4)];
    return text;
}

namespace {

/// What minimap2 may need, from the bound pass at 250M x 250M (5.1 GB for 500M bases, both
/// FASTA files read included) and a malloc arena (64 MiB reserved) and stack per thread.
constexpr int64_t kBytesPerBase = 12;
constexpr int64_t kBytesPerThread = int64_t{80} << 20;
constexpr int64_t kMarginBytes = int64_t{64} << 20;

/// Bytes this process may still map under `resource` (RLIMIT_AS or RLIMIT_DATA), of which
/// `used_field` of /proc/self/statm is in use; INT64_MAX when unlimited. statm is read into
/// the stack: a stream's buffer can fail to come under the very limit this measures, and
/// unread it counts as nothing used (the limit itself is then what is left).
int64_t bytes_left(int resource, int used_field) {
    rlimit limit{};
    if (getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return INT64_MAX;
    const int64_t cap = static_cast<int64_t>(std::min<rlim_t>(limit.rlim_cur, INT64_MAX));
    char text[256] = {};
    const int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return cap;
    const ssize_t got = read(fd, text, sizeof text - 1);
    close(fd);
    if (got <= 0) return cap;
    const char* at = text;
    int64_t pages = -1;
    for (int field = 0; field <= used_field; ++field) {
        char* end = nullptr;
        pages = std::strtoll(at, &end, 10);
        if (end == at) return cap;
        at = end;
    }
    return std::max<int64_t>(0, cap - pages * sysconf(_SC_PAGESIZE));
}

/// An index's build, owned jointly by its thread and whoever waits for it: the thread keeps
/// what it reads, so a waiter may leave (abandon it) and the thread frees the index itself.
struct IndexBuild {
    std::vector<std::string> texts, names;
    mm_idxopt_t iopt{};
    std::mutex mutex;
    std::condition_variable built;
    bool done = false, abandoned = false;
    mm_idx_t* index = nullptr;
};

mm_idx_t* index_texts(const IndexBuild& b) {
    std::vector<const char*> seqs, names;
    for (size_t k = 0; k < b.texts.size(); ++k) {
        seqs.push_back(b.texts[k].c_str());
        names.push_back(b.names[k].c_str());
    }
    return mm_idx_str(b.iopt.w, b.iopt.k, b.iopt.flag & MM_I_HPC, b.iopt.bucket_bits, static_cast<int>(seqs.size()),
                      seqs.data(), names.data());
}

/// index_texts(*b) on a detached thread, waited for until it is done or `cancel` is set
/// (then null). minimap2's mm_idx_str cannot be interrupted; a stop must not wait for it.
mm_idx_t* index_unless_cancelled(const std::shared_ptr<IndexBuild>& b, const std::atomic<bool>& cancel) {
    std::thread([b] {
        mm_idx_t* index = index_texts(*b);
        const std::lock_guard<std::mutex> lock(b->mutex);
        if (b->abandoned) {
            mm_idx_destroy(index);
            return;
        }
        b->index = index;
        b->done = true;
        b->built.notify_all();
    }).detach();
    std::unique_lock<std::mutex> lock(b->mutex);
    while (!b->done) {
        if (cancel.load(std::memory_order_relaxed)) {
            b->abandoned = true;
            return nullptr;
        }
        b->built.wait_for(lock, std::chrono::milliseconds(20));
    }
    return b->index;
}

}  // namespace

void require_memory_for_minimap2(int64_t bases, int threads, const std::string& what) {
    const int64_t need = kBytesPerBase * bases + kBytesPerThread * (std::max(threads, 1) + 1) + kMarginBytes;
    // statm: size (every mapping) for RLIMIT_AS, data (data and stack) for RLIMIT_DATA.
    const int64_t left = std::min(bytes_left(RLIMIT_AS, 0), bytes_left(RLIMIT_DATA, 5));
    if (left >= need) return;
    throw Error(what + ": minimap2 may need about " + std::to_string(need >> 20) + " MiB, and the memory limit " +
                "(ulimit -v or -d) leaves " + std::to_string(left >> 20) +
                " MiB: not run, as minimap2 does not survive running out of memory");
}

Minimap2Index::Minimap2Index(const std::vector<const Sequence*>& records, int64_t flags, const std::string& what,
                             const std::atomic<bool>* cancel) {
    mm_verbose = 1;  // errors only: its progress lines are not ours to print
    const auto build = std::make_shared<IndexBuild>();
    // Defaults first: a preset only changes some of them.
    if (mm_set_opt(nullptr, &build->iopt, &options_) != 0 || mm_set_opt("asm20", &build->iopt, &options_) != 0)
        throw Error("internal: minimap2 has no preset asm20");
    for (const Sequence* s : records) {
        if (s->length() > INT32_MAX) throw Error(what + ": record " + s->name + " is too long for minimap2");
        build->texts.push_back(minimap2_letters(*s, 0, s->length()));
        build->names.push_back(s->name);
    }
    if (!cancel) {
        index_ = index_texts(*build);
    } else {
        index_ = index_unless_cancelled(build, *cancel);
        if (!index_ && cancel->load(std::memory_order_relaxed)) return;
    }
    if (!index_) throw Error(what + ": minimap2 could not index S0");
    mm_mapopt_update(&options_, index_);
    options_.flag |= flags;
}

Minimap2Index::~Minimap2Index() { mm_idx_destroy(index_); }

void map_in_parallel(int64_t items, int threads, const std::atomic<bool>* cancel, const std::string& what,
                     const std::function<void(int64_t k, mm_tbuf_t* buffer)>& map_item) {
    std::atomic<int64_t> next{0};
    std::mutex mutex;
    std::string failure;
    const auto worker = [&] {
        mm_tbuf_t* buffer = mm_tbuf_init();
        try {  // a worker thread must not throw (out of memory, say)
            for (int64_t k; !(cancel && cancel->load(std::memory_order_relaxed)) && (k = next.fetch_add(1)) < items;)
                map_item(k, buffer);
        } catch (const std::exception& e) {
            const std::lock_guard<std::mutex> lock(mutex);
            failure = e.what();
        }
        mm_tbuf_destroy(buffer);
    };
    for_each_worker(static_cast<int>(std::min<int64_t>(threads, items)), [&](int) { worker(); });
    if (!failure.empty()) throw Error(what + ": minimap2's pass failed: " + failure);
}

void map_text(const Minimap2Index& index, const std::string& text, mm_tbuf_t* buffer,
              const std::function<void(const mm_reg1_t& r)>& take) {
    int count = 0;
    mm_reg1_t* regs =
        mm_map(index.index(), static_cast<int>(text.size()), text.c_str(), &count, buffer, &index.options(), "s1");
    try {
        for (int r = 0; r < count; ++r) take(regs[r]);
    } catch (...) {
        for (int r = 0; r < count; ++r) std::free(regs[r].p);
        std::free(regs);
        throw;
    }
    for (int r = 0; r < count; ++r) std::free(regs[r].p);
    std::free(regs);
}

}  // namespace chromalign
