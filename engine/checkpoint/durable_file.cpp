//! @file write_durably: tmp, fsync, rename, directory fsync.
#include "engine/checkpoint/durable_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "engine/error.hpp"

namespace chromalign {

void write_durably(const std::string& path, const std::string& bytes) {
    const std::string tmp = path + ".tmp";
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw Error(tmp + ": cannot create: " + std::strerror(errno));
    bool ok = true;
    for (size_t at = 0; ok && at < bytes.size();) {
        const ssize_t done = ::write(fd, bytes.data() + at, bytes.size() - at);
        if (done < 0 && errno == EINTR) continue;
        ok = done > 0;
        if (ok) at += static_cast<size_t>(done);
    }
    ok = ok && ::fsync(fd) == 0;
    const std::string why = std::strerror(errno);
    if (::close(fd) != 0 || !ok) {
        ::unlink(tmp.c_str());
        throw Error(tmp + ": cannot write: " + why);
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const std::string reason = std::strerror(errno);
        ::unlink(tmp.c_str());
        throw Error(path + ": cannot replace: " + reason);
    }
    const size_t slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
    const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
}

}  // namespace chromalign
