//! @file write_whole.
#include "tools/whole_output.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <cstdlib>

#include "engine/error.hpp"

namespace chromalign::cli {

void write_whole(const std::string& given, const std::function<void(const std::string& target)>& write) {
    struct stat st{};
    if (given == "-" || (::stat(given.c_str(), &st) == 0 && !S_ISREG(st.st_mode))) {
        write(given);
        return;
    }
    // Through a symbolic link, the file it names is replaced, not the link: a rename over
    // the link would leave the file as it was and turn the link into a copy (as root, over
    // /dev/stdout -> /proc/self/fd/1, the system's). A dangling link is written through.
    std::string path = given;
    if (::lstat(given.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
        char* resolved = ::realpath(given.c_str(), nullptr);
        if (resolved == nullptr) {
            write(given);
            return;
        }
        path = resolved;
        std::free(resolved);
    }
    const std::string temporary = path + ".chromalign-" + std::to_string(::getpid()) + ".tmp";
    try {
        write(temporary);
    } catch (const Error& e) {
        std::remove(temporary.c_str());
        std::string message = e.what();
        for (size_t at; (at = message.find(temporary)) != std::string::npos;) message.replace(at, temporary.size(), given);
        throw Error(message);
    } catch (...) {
        std::remove(temporary.c_str());
        throw;
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
        const std::string reason = std::strerror(errno);
        std::remove(temporary.c_str());
        throw Error("cannot write '" + given + "': " + reason);
    }
}

}  // namespace chromalign::cli
