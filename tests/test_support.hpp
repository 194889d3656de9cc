//! @file Helpers shared by the test programs: seeds, shared data paths, random pairs.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "engine/scoring/scoring.hpp"
#include "engine/sequence.hpp"

namespace chromalign::test {

/// The seed of this test program: $CHROMALIGN_TEST_SEED if set, else random. Printed once.
uint64_t seed();

/// Path of a file under ../shared/data ($CHROMALIGN_SHARED_DATA if set), or "" when absent.
std::string shared_data(const std::string& relative);

/// Reads `dir`/A.fasta.gz and `dir`/B.fasta.gz from ../shared/data into s0 and s1; false (and
/// nothing read) when they are absent, so the caller can GTEST_SKIP.
bool load_shared_pair(const std::string& dir, const std::string& a, const std::string& b, Sequence& s0,
                      Sequence& s1);

/// A random source of length m and a mutated copy of length about n, encoded.
/// `other_rate` of the source positions are N. Mutated pairs have high scores, unlike
/// independent random ones, so they exercise the high-score path.
std::pair<Sequence, Sequence> mutated_pair(int64_t m, int64_t n, std::mt19937_64& rng,
                                           double other_rate = 0.0);

/// Two independent random sequences.
std::pair<Sequence, Sequence> random_pair(int64_t m, int64_t n, std::mt19937_64& rng);

/// A scratch directory made with mkdtemp, removed with everything in it on destruction.
class TempDir {
public:
    TempDir();  ///< throws std::runtime_error when mkdtemp fails
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    const std::filesystem::path& path() const { return path_; }
    std::string file(const std::string& name) const { return (path_ / name).string(); }

private:
    std::filesystem::path path_;
};

/// While it lives, this process's writes beyond `bytes` fail as on a full disk (RLIMIT_FSIZE,
/// with SIGXFSZ ignored so that the write reports it). Throws std::runtime_error when the
/// limit cannot be set.
class FileSizeLimit {
public:
    explicit FileSizeLimit(uint64_t bytes);
    ~FileSizeLimit();
    FileSizeLimit(const FileSizeLimit&) = delete;
    FileSizeLimit& operator=(const FileSizeLimit&) = delete;

private:
    uint64_t old_cur_ = 0;
};

/// A scoring with a name for failure messages.
struct NamedScoring {
    std::string name;
    Scoring scoring;
};

/// LASTZ's HOXD70 with its gaps in our convention (430, 30), as configs/hoxd70.cfg.
Scoring hoxd70();

/// The substitution matrices every backend is tested with, each reaching another path:
/// hoxd70 and UCSC's human_chimp.v2 (750, 150); "tiny", a fixed asymmetric matrix of small
/// scores; "match_mismatch_shape", a matrix of match/mismatch shape (the equality paths, GPU
/// byte mode); and random asymmetric ones drawn from `rng`: "small" (fits 16-bit CPU lanes),
/// "big" (two CPU table planes) and "huge" (three).
std::vector<NamedScoring> matrix_scorings(std::mt19937_64& rng);

/// The parts of `text` between `separator`s (a TSV line's fields, a file's lines).
std::vector<std::string> split(const std::string& text, char separator);

/// How many times `part` occurs in `text` (overlapping occurrences too).
int count_of(const std::string& text, const std::string& part);

/// A SAM file's records, without its header (whose @PG line holds the command line).
std::string sam_records(const std::string& path);
/// The lines of `text` but those starting with `skip` (a SAM's @PG, which holds the command).
std::string lines_without(const std::string& text, const std::string& skip);

/// The whole of a file (empty when it cannot be read).
std::string read_text(const std::string& path);
/// Writes `text` as the whole of `path` (binary); a failed write fails the test.
void write_text(const std::string& path, const std::string& text);
/// Writes `records` as one FASTA file of a line each; a failed write fails the test.
void write_records(const std::string& path, const std::vector<Sequence>& records);

/// Standard output of a shell command, and in `ok` whether it exited 0.
std::string command_output(const std::string& command, bool& ok);

/// Whether `tool --version` runs (samtools, minimap2: tests that need one skip without it).
bool have_tool(const std::string& tool);

/// The address space this process maps now, in bytes (/proc/self/statm counts pages): a
/// limit a little above it leaves room for few thread stacks.
uint64_t mapped_bytes();

/// Where nucmer places a contig: on `record`, on `strand`, over [from, to] of it.
struct NucmerPlace {
    std::string record;
    char strand = '+';
    int64_t from = 0, to = 0;
};

/// nucmer's placements in a gzipped show-coords file, contig -> places, of the contigs in
/// `length` (contig -> its length) with at least `identity` percent over at least 90% of it.
std::map<std::string, std::vector<NucmerPlace>> nucmer_places(const std::string& coords_gz,
                                                             const std::map<std::string, int64_t>& length,
                                                             double identity);

/// H and F of DP row `row` (1-based; 0 is the zero row), by a textbook full DP.
struct DpRow {
    std::vector<int32_t> h, f;
};
DpRow dp_row(const Sequence& s0, const Sequence& s1, const Scoring& sc, int64_t row);

/// Decodes a Sequence to ACGTN for failure messages (long ones are cut).
std::string preview(const Sequence& s, size_t max_chars = 120);

}  // namespace chromalign::test
