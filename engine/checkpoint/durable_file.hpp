//! @file Small files that must survive a kill: written whole or not at all.
#pragma once

#include <string>

namespace chromalign {

/// Writes `bytes` to PATH.tmp, fsyncs it, renames it over PATH and fsyncs the directory: PATH
/// holds the old or the new content at every instant. Throws Error naming the file (and
/// removes PATH.tmp) on any failure.
void write_durably(const std::string& path, const std::string& bytes);

}  // namespace chromalign
