//! @file Exception types thrown by library code; only tools/ turns them into messages and exit codes.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace chromalign {

/// Any failure the user can act on (bad option value, missing device, I/O failure).
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Malformed or unreadable sequence input. what() already names file, record and line.
class InputError : public Error {
public:
    using Error::Error;
};

}  // namespace chromalign
