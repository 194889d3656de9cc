//! @file CheckpointLock: fcntl lock on PATH.lock with its holder's PID and host inside.
#include "engine/checkpoint/lock.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "engine/error.hpp"

namespace chromalign {
namespace {

std::string host_name() {
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) != 0) return "unknown host";
    return name;
}

/// The "PID HOST" the holder wrote, for the message (empty when unreadable).
std::string holder_of(int fd) {
    char text[300] = {};
    const ssize_t got = pread(fd, text, sizeof text - 1, 0);
    if (got <= 0) return {};
    std::string s(text, static_cast<size_t>(got));
    while (!s.empty() && (s.back() == '\n' || s.back() == '\0')) s.pop_back();
    const size_t space = s.find(' ');
    if (space == std::string::npos) return {};
    return "process " + s.substr(0, space) + " on " + s.substr(space + 1);
}

bool lock_whole_file(int fd, int& error) {
    struct flock request {};
    request.l_type = F_WRLCK;
    request.l_whence = SEEK_SET;
    if (fcntl(fd, F_SETLK, &request) == 0) return true;
    error = errno;
    return false;
}

/// Whether fd is still the file at `path`: another run may have removed it (releasing its
/// lock) between our open and our lock, and then made a new one that it locks.
bool still_linked(int fd, const std::string& path) {
    struct stat by_fd {}, by_path {};
    return fstat(fd, &by_fd) == 0 && stat(path.c_str(), &by_path) == 0 && by_fd.st_ino == by_path.st_ino &&
           by_fd.st_dev == by_path.st_dev;
}

}  // namespace

CheckpointLock::CheckpointLock(const std::string& checkpoint_path) : path_(lock_path(checkpoint_path)) {
    for (;;) {
        const int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0) {
            problem_ = path_ + ": cannot create checkpoint lock: " + std::strerror(errno);
            return;
        }
        int error = 0;
        if (!lock_whole_file(fd, error)) {
            if (error == ENOLCK || error == EOPNOTSUPP) {
                problem_ = path_ + ": this file system has no locks (" + std::strerror(error) + ")";
                ::close(fd);
                return;
            }
            const std::string holder = holder_of(fd);
            ::close(fd);
            throw Error(checkpoint_path + ": in use by " + (holder.empty() ? "another run" : holder) +
                        " (lock " + path_ + "); wait for it to end, or stop it");
        }
        if (!still_linked(fd, path_)) {
            ::close(fd);
            continue;
        }
        const std::string me = std::to_string(getpid()) + " " + host_name() + "\n";
        if (ftruncate(fd, 0) != 0 || pwrite(fd, me.data(), me.size(), 0) != static_cast<ssize_t>(me.size())) {
            const std::string why = std::strerror(errno);
            ::unlink(path_.c_str());
            ::close(fd);
            throw Error(path_ + ": cannot write the checkpoint lock: " + why);
        }
        fd_ = fd;
        return;
    }
}

CheckpointLock::~CheckpointLock() {
    if (fd_ < 0) return;
    ::unlink(path_.c_str());  // while still locked: a run waiting on this inode sees it unlinked
    ::close(fd_);
}

}  // namespace chromalign
