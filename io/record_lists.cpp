//! @file Names files and pairs files: lists of record selectors, one entry a line, checked by line.
#include "io/record_lists.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <string_view>
#include <unordered_map>

#include "engine/error.hpp"

namespace chromalign::io {
namespace {

/// What may surround an entry or a column, and what may not stand inside a record name.
constexpr std::string_view kBlanks = " \t";
constexpr std::string_view kWhitespace = " \t\r\v\f";

std::string_view trim(std::string_view text) {
    const size_t first = text.find_first_not_of(kBlanks);
    if (first == std::string_view::npos) return {};
    return text.substr(first, text.find_last_not_of(kBlanks) - first + 1);
}

[[noreturn]] void fail_line(const std::string& path, int64_t line, const std::string& what) {
    throw InputError(path + ", line " + std::to_string(line) + ": " + what);
}

/// Words for a file that is not regular, for the message that refuses it.
const char* describe_kind(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
    return "a special file";
}

/// Calls `entry(text, line)` for each line of `path` that is neither blank nor a comment,
/// trimmed. The file's kind is checked before it is opened: opening a FIFO would block until
/// something writes to it. `what` names the entries ("record names") in messages. A file
/// without any is refused: an empty list would otherwise select every record.
void for_each_entry(const std::string& path, const char* what,
                    const std::function<void(std::string_view, int64_t)>& entry) {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0)
        throw InputError(path + ": cannot open: " + std::strerror(errno));
    if (!S_ISREG(st.st_mode))
        throw InputError(path + ": cannot read " + what + " from " + describe_kind(st.st_mode) +
                         "; give a regular file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot open: " + std::strerror(errno));
    std::string text;
    int64_t line = 0;
    int64_t entries = 0;
    while (std::getline(in, text)) {
        ++line;
        if (!text.empty() && text.back() == '\r') text.pop_back();
        const std::string_view trimmed = trim(text);
        if (trimmed.empty() || trimmed[0] == '#') continue;
        ++entries;
        entry(trimmed, line);
    }
    if (in.bad()) throw InputError(path + ": read error after line " + std::to_string(line));
    if (entries == 0)
        throw InputError(path + ": no " + what + " (the file holds only blank lines and comments)");
}

/// Parses the selector `text`, a column of line `line`: never empty, as lines are trimmed.
RecordSelector parse_column(const std::string& path, int64_t line, std::string_view text) {
    if (text.find_first_of(kWhitespace) != std::string_view::npos)
        fail_line(path, line, "'" + std::string(text) +
                                  "' is more than one word; record names have no spaces");
    try {
        return parse_selector(std::string(text));
    } catch (const Error& e) {
        fail_line(path, line, e.what());
    }
}

/// Remembers the line of each entry, so that a repeated one is refused with both lines.
class RepeatCheck {
public:
    explicit RepeatCheck(const std::string& path) : path_(path) {}

    /// Throws when `key` was seen before; `shown` is the entry as the message gives it.
    void check(const std::string& key, const std::string& shown, int64_t line) {
        const auto [earlier, added] = lines_.emplace(key, line);
        if (!added)
            fail_line(path_, line, shown + " repeats line " + std::to_string(earlier->second));
    }

private:
    const std::string& path_;
    std::unordered_map<std::string, int64_t> lines_;
};

}  // namespace

std::vector<RecordSelector> read_selector_file(const std::string& path) {
    std::vector<RecordSelector> selectors;
    RepeatCheck repeats(path);
    for_each_entry(path, "record names", [&](std::string_view text, int64_t line) {
        const RecordSelector& s = selectors.emplace_back(parse_column(path, line, text));
        repeats.check(selection_key(s), "'" + describe_selector(s) + "'", line);
    });
    return selectors;
}

std::vector<SelectorPair> read_pairs_file(const std::string& path) {
    std::vector<SelectorPair> pairs;
    RepeatCheck repeats(path);
    for_each_entry(path, "record pairs", [&](std::string_view text, int64_t line) {
        const auto columns = 1 + std::count(text.begin(), text.end(), '\t');
        if (columns != 2)
            fail_line(path, line,
                      "expected 2 tab-separated columns (S0 record, S1 record), found " +
                          std::to_string(columns));
        const size_t tab = text.find('\t');
        const SelectorPair& pair =
            pairs.emplace_back(SelectorPair{parse_column(path, line, trim(text.substr(0, tab))),
                                            parse_column(path, line, trim(text.substr(tab + 1)))});
        // Names hold no tab (parse_column refuses whitespace), so the joined keys are unambiguous.
        const std::string shown =
            "the pair '" + describe_selector(pair.s0) + "', '" + describe_selector(pair.s1) + "'";
        repeats.check(selection_key(pair.s0) + "\t" + selection_key(pair.s1), shown, line);
    });
    return pairs;
}

}  // namespace chromalign::io
