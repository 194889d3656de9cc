//! @file Checkpoint file format: round trip, and every damaged or foreign file refused with its own message.
#include <gtest/gtest.h>
#include <cstring>
#include <functional>
#include <climits>
#include <sys/stat.h>

#include <unistd.h>
#include <zlib.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

#include "engine/checkpoint/checkpoint_file.hpp"
#include "engine/tiling/tile_executor.hpp"
#include "engine/error.hpp"
#include "tests/test_support.hpp"

namespace chromalign {
namespace {

class CheckpointFile : public ::testing::Test {
protected:
    void SetUp() override {
        char tmpl[] = "/tmp/chromalign-ckpt-XXXXXX";
        ASSERT_NE(mkdtemp(tmpl), nullptr);
        dir_ = tmpl;
        path_ = dir_ + "/run.ckpt";
        std::mt19937_64 rng(test::seed());
        std::tie(s0_, s1_) = test::mutated_pair(5000, 3000, rng);
        c_.m = s0_.length();
        c_.n = s1_.length();
        c_.fingerprint0 = sequence_fingerprint(s0_);
        c_.fingerprint1 = sequence_fingerprint(s1_);
        c_.scoring = Scoring{};
        c_.row = 1234;
        // What a DP row can hold (see read_checkpoint): 0 <= H <= the best score, -1 <= F <= H
        // (F >= -gap_open for every scoring these tests use).
        c_.best = AlignmentEnd{1000, 1300, 1200};
        for (int64_t j = 0; j < c_.n; ++j) {
            c_.h.push_back(static_cast<int32_t>(rng() % 1001));  // within row * best too
            c_.f.push_back(static_cast<int32_t>(rng() % (c_.h.back() + 2)) - 1);
        }
    }
    void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }

    std::vector<char> bytes() const {
        std::ifstream in(path_, std::ios::binary);
        return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    }
    void put(const std::vector<char>& b) const {
        std::ofstream(path_, std::ios::binary | std::ios::trunc).write(b.data(), static_cast<std::streamsize>(b.size()));
    }
    std::string read_error() const {
        try {
            read_checkpoint(path_);
        } catch (const Error& e) {
            return e.what();
        }
        return "(no error)";
    }

    std::string dir_, path_;
    Sequence s0_, s1_;
    Checkpoint c_;
};

TEST_F(CheckpointFile, RoundTripKeepsEveryField) {
    write_checkpoint(path_, c_);
    const Checkpoint r = read_checkpoint(path_);
    EXPECT_EQ(r.m, c_.m);
    EXPECT_EQ(r.n, c_.n);
    EXPECT_EQ(r.fingerprint0, c_.fingerprint0);
    EXPECT_EQ(r.fingerprint1, c_.fingerprint1);
    EXPECT_EQ(r.scoring.to_string(), c_.scoring.to_string());
    EXPECT_EQ(r.row, c_.row);
    EXPECT_EQ(r.best, c_.best);
    EXPECT_EQ(r.h, c_.h);
    EXPECT_EQ(r.f, c_.f);
    EXPECT_EQ(r.seq, 0);
    EXPECT_TRUE(r.left_h.empty());
    EXPECT_EQ(checkpoint_mismatch(r, s0_, s1_, Scoring{}), "");
    EXPECT_NE(access((path_ + ".tmp").c_str(), F_OK), 0) << "temporary file left behind";
}

TEST_F(CheckpointFile, RoundTripKeepsASlabsPieceAtItsOwnRow) {
    // A slab's piece: its checkpoint number, its left neighbour's column below its row, and a
    // row of 0 (a slab that had begun no band), which only a piece may have.
    Checkpoint piece = c_;
    piece.seq = 7;
    piece.left_corner = 3;
    piece.left_h = {4, 0, 6};
    piece.left_e = {-5, kScoreNegInf, 2};
    write_checkpoint(path_, piece);
    Checkpoint r = read_checkpoint(path_);
    EXPECT_EQ(r.seq, 7);
    EXPECT_EQ(r.left_corner, 3);
    EXPECT_EQ(r.left_h, piece.left_h);
    EXPECT_EQ(r.left_e, piece.left_e);
    EXPECT_EQ(r.h, piece.h);
    piece.row = 0;  // H is 0 on row 0, and at most i * best below it
    piece.left_corner = 0;
    piece.left_h = {1, 0, 3};
    std::fill(piece.h.begin(), piece.h.end(), 0);
    std::fill(piece.f.begin(), piece.f.end(), kScoreNegInf);
    write_checkpoint(path_, piece);
    EXPECT_EQ(read_checkpoint(path_).row, 0);
    piece.seq = 0;  // a flat checkpoint at row 0 is no checkpoint
    write_checkpoint(path_, piece);
    EXPECT_NE(read_error().find("row out of range"), std::string::npos) << read_error();
}

TEST_F(CheckpointFile, RoundTripKeepsAWavefrontsSteps) {
    // A wavefront piece (format 4): from column 300 on the row is 1234 - 16, from 700 on
    // 1234 - 32, each step with the rows of the column left of it in between.
    Checkpoint piece = c_;
    piece.seq = 3;
    for (const int64_t col : {300, 700}) {
        StairStep step;
        step.col = col;
        step.row = piece.low_row() - 16;
        step.corner = 11;
        for (int i = 0; i < 16; ++i) {
            step.h.push_back(20 + i);
            step.e.push_back(i % 3 == 0 ? kScoreNegInf : 10 + i);
        }
        piece.steps.push_back(step);
    }
    write_checkpoint(path_, piece);
    const Checkpoint r = read_checkpoint(path_);
    ASSERT_EQ(r.steps.size(), 2u);
    EXPECT_EQ(r.low_row(), 1234 - 32);
    for (size_t k = 0; k < 2; ++k) {
        EXPECT_EQ(r.steps[k].col, piece.steps[k].col);
        EXPECT_EQ(r.steps[k].row, piece.steps[k].row);
        EXPECT_EQ(r.steps[k].corner, 11);
        EXPECT_EQ(r.steps[k].h, piece.steps[k].h);
        EXPECT_EQ(r.steps[k].e, piece.steps[k].e);
    }
    EXPECT_EQ(r.h, piece.h);
    EXPECT_EQ(r.f, piece.f);

    // What no wavefront can be: a step below the one before, columns out of order, a value
    // out of range; and steps in a flat file (seq 0). Each written with a right CRC.
    const auto refused = [&](Checkpoint bad, const std::string& why) {
        write_checkpoint(path_, bad);
        EXPECT_NE(read_error().find(why), std::string::npos) << read_error();
    };
    Checkpoint lower = piece;
    lower.steps[1].row = lower.steps[0].row + 1;
    lower.steps[1].h.clear();
    lower.steps[1].e.clear();
    refused(lower, "a step at column 700");
    Checkpoint order = piece;
    order.steps[1].col = 300;
    refused(order, "a step at column 300");
    Checkpoint value = piece;
    value.steps[1].e[5] = value.steps[1].h[5] + 1;  // E <= H
    refused(value, "of the step at column 701 is out of range");
    Checkpoint corner = piece;
    corner.steps[0].corner = -1;
    refused(corner, "the corner of the step at column 301");
    // Above the piece's best: a step's column is the piece's own (issue 42's 100000).
    Checkpoint above = piece;
    above.steps[0].h[3] = piece.best.score + 1;
    refused(above, "of the step at column 301 is out of range");
    above = piece;
    above.steps[1].corner = piece.best.score + 1;
    refused(above, "the corner of the step at column 701");
    Checkpoint flat = piece;
    flat.seq = 0;
    refused(flat, "header is corrupt");
}

TEST_F(CheckpointFile, TruncationAtAnyOffsetIsRefused) {
    write_checkpoint(path_, c_);
    const std::vector<char> whole = bytes();
    std::mt19937_64 rng(test::seed());
    std::vector<size_t> cuts = {0, 4, 8, 11, 40, 100, whole.size() / 2, whole.size() - 5, whole.size() - 1};
    for (int i = 0; i < 5; ++i) cuts.push_back(rng() % whole.size());
    for (const size_t cut : cuts) {
        put(std::vector<char>(whole.begin(), whole.begin() + static_cast<long>(cut)));
        const std::string why = read_error();
        EXPECT_TRUE(why.find("truncated") != std::string::npos || why.find("bad magic") != std::string::npos)
            << "cut at " << cut << ": " << why;
    }
}

TEST_F(CheckpointFile, AnyFlippedBitIsRefused) {
    write_checkpoint(path_, c_);
    const std::vector<char> whole = bytes();
    std::mt19937_64 rng(test::seed() + 1);
    for (int i = 0; i < 20; ++i) {
        std::vector<char> b = whole;
        const size_t at = 8 + 4 + 16 + rng() % (whole.size() - 28);  // past magic, version fields
        b[at] = static_cast<char>(b[at] ^ (1 << (rng() % 8)));
        put(b);
        const std::string why = read_error();
        EXPECT_TRUE(why.find("CRC32") != std::string::npos || why.find("corrupt") != std::string::npos ||
                    why.find("truncated") != std::string::npos)
            << "bit flipped at byte " << at << ": " << why;
    }
}

/// Files whose CRC is right but whose contents no run can have written: each is refused, with
/// the path and the reason, before anything is computed from it.
TEST_F(CheckpointFile, ForgedContentsWithARightCrcAreRefused) {
    struct Forgery {
        std::string what;
        std::function<void(Checkpoint&)> forge;
    };
    const std::vector<Forgery> forgeries = {
        {"its best cell lies outside the matrix", [](Checkpoint& c) { c.best.s0_end = c.m + 1; }},
        {"its best cell lies outside the matrix", [](Checkpoint& c) { c.best.s1_end = -3; }},
        {"its best score is out of range", [](Checkpoint& c) { c.best.score = -5; }},
        {"its best cell does not fit its score", [](Checkpoint& c) { c.best = AlignmentEnd{0, 7, 9}; }},
        {"H of column 3 is out of range", [](Checkpoint& c) { c.h[2] = c.best.score + 1; }},
        {"H of column 1 is out of range", [](Checkpoint& c) { c.h[0] = -1; }},
        {"F of column 2 is out of range", [](Checkpoint& c) { c.f[1] = INT32_MIN; }},
        {"F of column 2 is out of range", [](Checkpoint& c) { c.f[1] = c.h[1] + 1; }},
        {"its scoring is invalid (gap-open must be a positive cost (got -2))",
         [](Checkpoint& c) { c.scoring.gap_open = -2; }},
        {"its left corner is out of range", [](Checkpoint& c) { c.left_corner = -1; }},
        // Issue 42's: a best score no cell could reach (150000 at (10, 10)), and H, E or a
        // corner of the left column or of a step above what the piece's best or its row allow
        // (a step value of 100000 came back as the answer 99997).
        {"its best score is more than its cell can hold", [](Checkpoint& c) { c.best = AlignmentEnd{150000, 10, 10}; }},
        {"its left corner is out of range", [](Checkpoint& c) { c.left_corner = static_cast<int32_t>(c.row + 1); }},
        {"H of left row " + std::to_string(c_.row + 1) + " is out of range",
         [](Checkpoint& c) { c.left_h = {static_cast<int32_t>(c.row + 2)}, c.left_e = {0}; }},
        {"H of left row " + std::to_string(c_.row + 2) + " is out of range",
         [](Checkpoint& c) { c.left_h = {1, kMaxBestScore + 1}, c.left_e = {0, 0}; }},
        {"E of left row " + std::to_string(c_.row + 1) + " is out of range",
         [](Checkpoint& c) { c.left_h = {1}, c.left_e = {2}; }},
        {"E of left row " + std::to_string(c_.row + 1) + " is out of range",
         [](Checkpoint& c) { c.left_h = {1}, c.left_e = {INT32_MIN}; }},
    };
    for (const Forgery& f : forgeries) {
        Checkpoint forged = c_;
        f.forge(forged);
        write_checkpoint(path_, forged);
        EXPECT_EQ(read_error(), path_ + ": checkpoint cannot be right (" + f.what + ")");
    }
}

TEST_F(CheckpointFile, SpecialFilesAreRefusedAtOnce) {
    const std::string fifo = dir_ + "/fifo";
    ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
    for (const std::string& path : {fifo, dir_, std::string("/dev/zero")}) {
        try {
            read_checkpoint(path);  // a FIFO would block and /dev/zero never end if they were read
            ADD_FAILURE() << path << " was read";
        } catch (const Error& e) {
            EXPECT_EQ(std::string(e.what()), path + ": not a regular file, so not a checkpoint");
        }
    }
}

TEST_F(CheckpointFile, AHugeClaimedWidthIsRefusedBeforeAnythingIsAllocated) {
    // A header that says 2^60 columns in a file of a few kB: the size check comes first (and
    // cannot overflow), so no array of that size is ever asked for.
    write_checkpoint(path_, c_);
    std::vector<char> b = bytes();
    const int64_t huge = int64_t{1} << 60;
    std::memcpy(b.data() + 8 + 4 + 16 + 8, &huge, sizeof huge);  // n follows magic, format, version, m
    put(b);
    EXPECT_NE(read_error().find("checkpoint header is corrupt"), std::string::npos) << read_error();
}

TEST_F(CheckpointFile, ForeignFilesAreRefusedWithTheirOwnMessage) {
    put(std::vector<char>(100, 'x'));
    EXPECT_NE(read_error().find("not a chromalign checkpoint"), std::string::npos);
    write_checkpoint(path_, c_);
    std::vector<char> b = bytes();
    b[8] = 9;  // format version
    put(b);
    EXPECT_NE(read_error().find("format version 9"), std::string::npos);
}

TEST_F(CheckpointFile, MismatchNamesWhatDiffers) {
    std::mt19937_64 rng(test::seed() + 2);
    const auto [other0, other1] = test::mutated_pair(5000, 3000, rng);
    EXPECT_NE(checkpoint_mismatch(c_, other0, s1_, Scoring{}).find("another S0"), std::string::npos);
    EXPECT_NE(checkpoint_mismatch(c_, s0_, other1, Scoring{}).find("another S1"), std::string::npos);
    EXPECT_NE(checkpoint_mismatch(c_, s1_, s0_, Scoring{}).find("sequences of 5000 x 3000"), std::string::npos);
    EXPECT_NE(checkpoint_mismatch(c_, s0_, s1_, Scoring{2, -3, 7, 2}).find("scoring"), std::string::npos);
}

TEST_F(CheckpointFile, RoundTripKeepsAMatrix) {
    std::mt19937_64 rng(test::seed() + 3);
    for (const test::NamedScoring& ns : test::matrix_scorings(rng)) {
        c_.scoring = ns.scoring;
        write_checkpoint(path_, c_);
        const Checkpoint r = read_checkpoint(path_);
        EXPECT_EQ(r.scoring, ns.scoring) << ns.name;
        EXPECT_EQ(r.scoring.other, ns.scoring.other) << ns.name;
        EXPECT_EQ(r.h, c_.h) << ns.name;
        EXPECT_EQ(r.best, c_.best) << ns.name;
        EXPECT_EQ(checkpoint_mismatch(r, s0_, s1_, ns.scoring), "") << ns.name;
        EXPECT_NE(checkpoint_mismatch(r, s0_, s1_, Scoring{}).find("made with scoring " + ns.scoring.to_string()),
                  std::string::npos)
            << ns.name;
    }
    // A matrix that differs in one entry, or in its gaps, is another scoring.
    c_.scoring = test::hoxd70();
    write_checkpoint(path_, c_);
    Scoring other = test::hoxd70();
    other.matrix[3][2] -= 1;
    EXPECT_NE(checkpoint_mismatch(read_checkpoint(path_), s0_, s1_, other).find("T:-123,-31,-115,91"), std::string::npos);
    EXPECT_NE(checkpoint_mismatch(read_checkpoint(path_), s0_, s1_, Scoring::from_matrix(other.matrix, 400, 30)),
              "");
}

/// A checkpoint as format 1 wrote it (scoring: match, mismatch, gap_open, gap_extend).
std::vector<char> format1_bytes(const Checkpoint& c, int32_t match, int32_t mismatch, int32_t open, int32_t extend) {
    std::vector<char> b;
    auto put = [&b](const auto& v) { b.insert(b.end(), reinterpret_cast<const char*>(&v), reinterpret_cast<const char*>(&v) + sizeof v); };
    b.insert(b.end(), {'C', 'H', 'R', 'A', 'L', 'N', 'C', 'K'});
    put(uint32_t{1});
    const char version[16] = "0.1.0";
    b.insert(b.end(), version, version + sizeof version);
    for (const int64_t v : {c.m, c.n}) put(v);
    for (const uint64_t v : {c.fingerprint0, c.fingerprint1}) put(v);
    for (const int32_t v : {match, mismatch, open, extend}) put(v);
    put(c.row);
    put(c.best.score);
    put(c.best.s0_end);
    put(c.best.s1_end);
    for (const int32_t v : c.h) put(v);
    for (const int32_t v : c.f) put(v);
    put(static_cast<uint32_t>(crc32(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(b.data()), static_cast<uInt>(b.size()))));
    return b;
}

TEST_F(CheckpointFile, FormatOneIsReadAsItWas) {
    put(format1_bytes(c_, 1, -3, 5, 2));
    const Checkpoint r = read_checkpoint(path_);
    EXPECT_EQ(r.scoring, Scoring{});
    EXPECT_EQ(r.scoring.to_string(), "match=1 mismatch=-3 gap_open=5 gap_extend=2");
    EXPECT_EQ(r.row, c_.row);
    EXPECT_EQ(r.best, c_.best);
    EXPECT_EQ(r.h, c_.h);
    EXPECT_EQ(r.f, c_.f);
    EXPECT_EQ(checkpoint_mismatch(r, s0_, s1_, Scoring{}), "");
    EXPECT_NE(checkpoint_mismatch(r, s0_, s1_, Scoring{2, -3, 7, 2}).find("scoring"), std::string::npos);
    put(format1_bytes(c_, 2, -3, 7, 2));
    EXPECT_EQ(checkpoint_mismatch(read_checkpoint(path_), s0_, s1_, Scoring{2, -3, 7, 2}), "");
    // Damage is refused as in format 2.
    std::vector<char> b = format1_bytes(c_, 1, -3, 5, 2);
    b[70] = static_cast<char>(b[70] ^ 4);
    put(b);
    EXPECT_NE(read_error().find("CRC32"), std::string::npos) << read_error();
}

TEST_F(CheckpointFile, FailedWriteKeepsThePreviousCheckpoint) {
    write_checkpoint(path_, c_);
    Checkpoint bigger = c_;
    bigger.row = 4000;
    std::string why;
    {
        const test::FileSizeLimit limit(1000);  // below the checkpoint's size: a full disk
        try {
            write_checkpoint(path_, bigger);
        } catch (const Error& e) {
            why = e.what();
        }
    }
    EXPECT_NE(why.find("cannot write checkpoint"), std::string::npos) << why;
    const Checkpoint kept = read_checkpoint(path_);
    EXPECT_EQ(kept.row, 1234);
    EXPECT_NE(access((path_ + ".tmp").c_str(), F_OK), 0) << "temporary file left behind";
}

}  // namespace
}  // namespace chromalign
