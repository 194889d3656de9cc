//! @file The lock that keeps two runs off one checkpoint: PATH.lock, held for the whole run.
#pragma once

#include <string>

namespace chromalign {

/// An fcntl write lock on PATH.lock, which holds "PID HOST" of its holder. The kernel drops the
/// lock when its process dies (kill -9 included), so no lock outlives its run: one left behind
/// is free and is taken over. fcntl locks reach across NFS (lockd), unlike flock.
class CheckpointLock {
public:
    /// Takes the lock. Throws Error naming the holder's PID and host when another process holds
    /// it. When the lock file cannot be made (a directory that cannot be written, say) or the
    /// file system has no locks (ENOLCK), the lock guards nothing and `problem()` says why.
    explicit CheckpointLock(const std::string& checkpoint_path);
    /// Releases the lock and removes the lock file.
    ~CheckpointLock();
    CheckpointLock(const CheckpointLock&) = delete;
    CheckpointLock& operator=(const CheckpointLock&) = delete;

    const std::string& problem() const { return problem_; }  ///< empty when the lock is held
    static std::string lock_path(const std::string& checkpoint_path) { return checkpoint_path + ".lock"; }

private:
    std::string path_;
    int fd_ = -1;
    std::string problem_;
};

}  // namespace chromalign
