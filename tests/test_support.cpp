//! @file Test helpers: printed seeds, shared data lookup, random and mutated pairs.
#include "tests/test_support.hpp"

#include <sys/stat.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <system_error>

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

TempDir::TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "chromalign_test_XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
}

TempDir::~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
}

}  // namespace chromalign::test
