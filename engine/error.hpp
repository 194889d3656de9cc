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

/// The echo of a failure elsewhere: another rank's or another slab's, whose own Error says
/// why. A process whose slabs are threads reports the first failure that is not an echo.
class PeerFailed : public Error {
public:
    using Error::Error;
};

/// A run stopped by SIGINT or SIGTERM after writing its checkpoint; tools exit 128 + signal.
class Interrupted : public Error {
public:
    Interrupted(int signal_number, const std::string& what) : Error(what), signal_(signal_number) {}
    int signal_number() const { return signal_; }

private:
    int signal_;
};

}  // namespace chromalign
