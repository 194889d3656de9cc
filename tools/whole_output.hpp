//! @file Outputs that are whole or absent: written under a temporary name beside the file and
//! renamed over it once complete, so that a full disk or a failed write never leaves a partial
//! file that looks like a result.
#pragma once

#include <functional>
#include <string>

namespace chromalign::cli {

/// Calls write(target) with a temporary name beside `path`, then renames it to `path`; when
/// write throws, removes it and rethrows with `path` named in the message in its place. "-",
/// and a path that exists but is not a regular file (/dev/null, a FIFO), are written directly;
/// a symbolic link is followed, so the file it names is replaced and the link stays.
void write_whole(const std::string& path, const std::function<void(const std::string& target)>& write);

}  // namespace chromalign::cli
