//! @file host_memory_bytes: sysconf's pages, then cgroup v2's memory.max (or v1's limit).
#include "engine/backend/host_memory.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>

namespace chromalign {
namespace {

/// A limit file's number of bytes; 0 for "max", an absent file or anything else.
int64_t limit_in(const char* path) {
    std::ifstream in(path);
    std::string text;
    if (!(in >> text) || text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return 0;
    try {
        return static_cast<int64_t>(std::stoull(text));
    } catch (...) {
        return 0;  // beyond 64 bits: no limit worth the name
    }
}

}  // namespace

int64_t host_memory_bytes() {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    int64_t bytes = pages > 0 && page > 0 ? static_cast<int64_t>(pages) * page : 0;
    for (const char* path : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
        const int64_t limit = limit_in(path);
        if (limit > 0) bytes = bytes > 0 ? std::min(bytes, limit) : limit;
    }
    return bytes;
}

}  // namespace chromalign
