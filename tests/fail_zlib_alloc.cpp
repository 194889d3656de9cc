// Preloaded (LD_PRELOAD) into a CLI run by a test: zlib's allocations of 32 KiB or more fail,
// as they would under a memory limit, while the rest of the process allocates as usual. The
// first is inflate's window, allocated on the first read of a gzip file, so the run gets past
// opening its inputs and runs out of memory in the middle of decompressing one.
#include <dlfcn.h>

#include <cerrno>
#include <cstddef>
#include <cstring>

extern "C" void* __libc_malloc(size_t size);  // glibc's own, beneath this interposer

namespace {
constexpr size_t kInflateWindow = size_t{1} << 15;

bool called_from_zlib(const void* caller) {
    Dl_info info;
    return dladdr(caller, &info) != 0 && info.dli_fname != nullptr && std::strstr(info.dli_fname, "libz.so") != nullptr;
}
}  // namespace

extern "C" void* malloc(size_t size) {
    if (size >= kInflateWindow && called_from_zlib(__builtin_return_address(0))) {
        errno = ENOMEM;
        return nullptr;
    }
    return __libc_malloc(size);
}
