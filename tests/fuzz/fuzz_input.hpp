//! @file The fuzzers' input as a file: the readers take paths, as chromalign gives them.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

namespace chromalign::fuzz {

/// `data` written to a file of this process's own, rewritten for every input.
inline std::string as_file(const uint8_t* data, size_t size) {
    static const std::string path = "/tmp/chromalign-fuzz-" + std::to_string(getpid());
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) std::abort();
    if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
    std::fclose(f);
    return path;
}

}  // namespace chromalign::fuzz
