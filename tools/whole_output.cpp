//! @file write_whole.
#include "tools/whole_output.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "engine/error.hpp"

namespace chromalign::cli {

void write_whole(const std::string& path, const std::function<void(const std::string& target)>& write) {
    struct stat st{};
    if (path == "-" || (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))) {
        write(path);
        return;
    }
    const std::string temporary = path + ".chromalign-" + std::to_string(::getpid()) + ".tmp";
    try {
        write(temporary);
    } catch (const Error& e) {
        std::remove(temporary.c_str());
        std::string message = e.what();
        for (size_t at; (at = message.find(temporary)) != std::string::npos;) message.replace(at, temporary.size(), path);
        throw Error(message);
    } catch (...) {
        std::remove(temporary.c_str());
        throw;
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
        const std::string reason = std::strerror(errno);
        std::remove(temporary.c_str());
        throw Error("cannot write '" + path + "': " + reason);
    }
}

}  // namespace chromalign::cli
