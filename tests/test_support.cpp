//! @file Test helpers: printed seeds, shared data lookup, random and mutated pairs.
#include "tests/test_support.hpp"

#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/stat.h>

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "engine/tiling/tile_executor.hpp"
#include "io/fasta.hpp"
#include "tools/mutate.hpp"

namespace chromalign::test {

uint64_t seed() {
    static const uint64_t value = [] {
        const char* env = std::getenv("CHROMALIGN_TEST_SEED");
        uint64_t s = 0;
        if (env != nullptr) {
            char* end = nullptr;
            s = std::strtoull(env, &end, 0);  // decimal or 0x hex
            if (*env == '\0' || *end != '\0')
                throw std::invalid_argument(std::string("CHROMALIGN_TEST_SEED is not a number: ") + env);
        } else {
            std::random_device device;
            s = (uint64_t{device()} << 32) | device();
        }
        std::printf("[ seed     ] CHROMALIGN_TEST_SEED=%llu%s\n", static_cast<unsigned long long>(s),
                    env != nullptr ? " (from the environment)" : " (random)");
        std::fflush(stdout);
        return s;
    }();
    return value;
}

std::string shared_data(const std::string& relative) {
    // The GPU machine gets a copy of the data beside the binaries, named by this variable.
    const char* env = std::getenv("CHROMALIGN_SHARED_DATA");
    const std::string root = env && *env ? env : CHROMALIGN_SHARED_DATA;
    const std::string path = root + "/" + relative;
    struct stat st{};
    return stat(path.c_str(), &st) == 0 ? path : std::string();
}

bool load_shared_pair(const std::string& dir, const std::string& a, const std::string& b, Sequence& s0,
                      Sequence& s1) {
    const std::string f0 = shared_data(dir + "/" + a + ".fasta.gz");
    const std::string f1 = shared_data(dir + "/" + b + ".fasta.gz");
    if (f0.empty() || f1.empty()) return false;
    s0 = io::read_fasta(f0, {});
    s1 = io::read_fasta(f1, {});
    return true;
}

std::pair<Sequence, Sequence> mutated_pair(int64_t m, int64_t n, std::mt19937_64& rng,
                                           double other_rate) {
    const int64_t longest = m > n ? m : n;
    std::string source = gen::random_dna(longest, rng, other_rate);
    std::string copy = gen::mutate(source, gen::MutationSpec{}, rng);
    while (static_cast<int64_t>(copy.size()) < n) copy += gen::random_dna(n - copy.size(), rng);
    source.resize(m);
    copy.resize(n);
    return {make_sequence("s0", source), make_sequence("s1", copy)};
}

std::pair<Sequence, Sequence> random_pair(int64_t m, int64_t n, std::mt19937_64& rng) {
    return {make_sequence("s0", gen::random_dna(m, rng)), make_sequence("s1", gen::random_dna(n, rng))};
}

std::string preview(const Sequence& s, size_t max_chars) {
    static const char kLetters[] = "ACGTN";
    std::string out;
    for (size_t i = 0; i < s.codes.size() && i < max_chars; ++i) out += kLetters[s.codes[i] < 5 ? s.codes[i] : 4];
    if (s.codes.size() > max_chars) out += "...";
    return out;
}

Scoring hoxd70() {
    return Scoring::from_matrix({{{91, -114, -31, -123}, {-114, 100, -125, -31}, {-31, -125, 100, -114},
                                  {-123, -31, -114, 91}}},
                                430, 30);
}

namespace {

/// A random asymmetric matrix: diagonal in [1, top], the rest in [-top, top / 2] with one entry
/// at -top (so the lowest is -top), gaps up to `gap`.
Scoring random_matrix(int32_t top, int32_t gap, std::mt19937_64& rng) {
    const auto draw = [&rng](int32_t lo, int32_t hi) { return lo + static_cast<int32_t>(rng() % (hi - lo + 1)); };
    NucleotideMatrix m{};
    for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b) m[a][b] = a == b ? draw(1, top) : draw(-top, top / 2);
    const int low = 1 + static_cast<int>(rng() % 3);  // an off-diagonal entry of row 0
    m[0][low] = -top;
    m[1][1] = top;  // one diagonal entry at the top, so the span of the scores is 2 * top
    return Scoring::from_matrix(m, draw(1, gap), draw(1, gap / 3 + 1));
}

}  // namespace

std::vector<NamedScoring> matrix_scorings(std::mt19937_64& rng) {
    return {
        {"hoxd70", hoxd70()},
        {"human_chimp_v2", Scoring::from_matrix({{{90, -330, -236, -356}, {-330, 100, -318, -236},
                                                  {-236, -318, 100, -330}, {-356, -236, -330, 90}}},
                                                750, 150)},
        {"tiny", Scoring::from_matrix({{{3, -2, -1, -3}, {-2, 4, -3, -1}, {-1, -3, 2, -2}, {-3, -1, -2, 3}}}, 5, 2)},
        {"match_mismatch_shape",
         Scoring::from_matrix({{{2, -3, -3, -3}, {-3, 2, -3, -3}, {-3, -3, 2, -3}, {-3, -3, -3, 2}}}, 7, 2)},
        {"small", random_matrix(5, 8, rng)},
        {"big", random_matrix(400, 900, rng)},
        {"huge", random_matrix(40000, 60000, rng)},
    };
}

TempDir::TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "chromalign_test_XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
}

TempDir::~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
}

FileSizeLimit::FileSizeLimit(uint64_t bytes) {
    std::signal(SIGXFSZ, SIG_IGN);
    rlimit limit{};
    if (getrlimit(RLIMIT_FSIZE, &limit) != 0) throw std::runtime_error("getrlimit(RLIMIT_FSIZE) failed");
    old_cur_ = limit.rlim_cur;
    limit.rlim_cur = bytes;
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0) throw std::runtime_error("setrlimit(RLIMIT_FSIZE) failed");
}

FileSizeLimit::~FileSizeLimit() {
    rlimit limit{};
    getrlimit(RLIMIT_FSIZE, &limit);
    limit.rlim_cur = old_cur_;  // back to the old soft limit, within the hard one
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0) ADD_FAILURE() << "the file size limit could not be lifted";
}

std::vector<std::string> split(const std::string& text, char separator) {
    std::vector<std::string> parts;
    std::istringstream in(text);
    for (std::string part; std::getline(in, part, separator);) parts.push_back(part);
    return parts;
}

int count_of(const std::string& text, const std::string& part) {
    int n = 0;
    for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
    return n;
}

std::string sam_records(const std::string& path) {
    std::ifstream in(path);
    std::string records;
    for (std::string line; std::getline(in, line);)
        if (!line.empty() && line[0] != '@') records += line + "\n";
    return records;
}

std::string lines_without(const std::string& text, const std::string& skip) {
    std::istringstream in(text);
    std::string out;
    for (std::string line; std::getline(in, line);)
        if (line.compare(0, skip.size(), skip) != 0) out += line + "\n";
    return out;
}

std::string command_output(const std::string& command, bool& ok) {
    std::string out;
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) {
        ok = false;
        return out;
    }
    char buffer[4096];
    while (size_t got = fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, got);
    ok = pclose(pipe) == 0;
    return out;
}

bool have_tool(const std::string& tool) {
    bool ok = false;
    command_output(tool + " --version > /dev/null 2>&1", ok);
    return ok;
}

uint64_t mapped_bytes() {
    std::ifstream statm("/proc/self/statm");
    uint64_t pages = 0;
    statm >> pages;
    return pages * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

std::map<std::string, std::vector<NucmerPlace>> nucmer_places(const std::string& coords_gz,
                                                             const std::map<std::string, int64_t>& length,
                                                             double identity) {
    std::map<std::string, std::vector<NucmerPlace>> places;
    FILE* pipe = popen(("zcat " + coords_gz).c_str(), "r");
    if (!pipe) throw std::runtime_error("cannot read " + coords_gz);
    char buffer[4096];
    while (std::fgets(buffer, sizeof buffer, pipe)) {
        std::stringstream line(buffer);
        int64_t s1 = 0, e1 = 0, s2 = 0, e2 = 0, len1 = 0, len2 = 0;
        double idy = 0;
        std::string bar, record, contig;
        if (!(line >> s1 >> e1 >> bar >> s2 >> e2 >> bar >> len1 >> len2 >> bar >> idy >> bar >> record >> contig))
            continue;
        const auto it = length.find(contig);
        if (idy >= identity && it != length.end() && len2 * 10 >= it->second * 9)
            places[contig].push_back({record, s2 <= e2 ? '+' : '-', std::min(s1, e1), std::max(s1, e1)});
    }
    pclose(pipe);
    return places;
}

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

void write_text(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    ASSERT_TRUE(out.good()) << "cannot write " << path;
}

void write_records(const std::string& path, const std::vector<Sequence>& records) {
    std::ofstream out(path);
    for (const Sequence& s : records) out << ">" << s.name << "\n" << preview(s, s.codes.size()) << "\n";
    ASSERT_TRUE(out.good()) << path;
}

DpRow dp_row(const Sequence& s0, const Sequence& s1, const Scoring& sc, int64_t row) {
    const int64_t n = s1.length();
    DpRow r{std::vector<int32_t>(n + 1, 0), std::vector<int32_t>(n + 1, kScoreNegInf)};
    for (int64_t i = 1; i <= row; ++i) {
        std::vector<int32_t> h(n + 1, 0);
        int32_t e = kScoreNegInf;
        for (int64_t j = 1; j <= n; ++j) {
            e = std::max(e - sc.gap_extend, h[j - 1] - sc.gap_open);
            r.f[j] = std::max(r.f[j] - sc.gap_extend, r.h[j] - sc.gap_open);
            h[j] = std::max({0, r.h[j - 1] + sc.score(s0.codes[i - 1], s1.codes[j - 1]), e, r.f[j]});
        }
        r.h.swap(h);
    }
    r.h.erase(r.h.begin());
    r.f.erase(r.f.begin());
    return r;
}

}  // namespace chromalign::test
