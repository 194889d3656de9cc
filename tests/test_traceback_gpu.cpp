//! @file The traceback from special rows the CUDA backend kept (eight slabs, pruning on and
//! off, few rows, none) writes the alignment the cpu backend writes, byte for byte; windows
//! swept on the GPU give the reference's alignment.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "kernels/registry.hpp"
#include "tests/resume_harness.hpp"
#include "tests/sweep_support.hpp"
#include "tests/test_support.hpp"

namespace chromalign {
namespace {

/// The SAM file's records, without its header (whose @PG line holds the command line).
std::string sam_records(const std::string& path) {
    std::ifstream in(path);
    std::string records;
    for (std::string line; std::getline(in, line);)
        if (!line.empty() && line[0] != '@') records += line + "\n";
    return records;
}

TEST(TracebackGpu, SameAlignmentFromCudaRows) {
    if (!(backend_devices("cuda") > 0)) GTEST_SKIP() << "no CUDA device (or no CUDA build)";
    test::ResumeHarness h(300000, 290000, test::seed() + 90);
    const test::ChildRun want = h.run({"-q", "-b", "cpu", "--traceback", h.path("cpu.sam")});
    ASSERT_EQ(want.exit_code, 0) << want.err;
    const std::string expected = sam_records(h.path("cpu.sam"));
    ASSERT_FALSE(expected.empty());
    const std::vector<std::vector<std::string>> variants = {
        // One block per SM makes B = 33 per slab, so a row's captures overlap those of the
        // next ones (a row every 1024 rows). S1 is long enough for 8 slabs of 33 blocks of
        // 1024 columns. With 20M of disk, 11 rows: windows of 27k rows that the GPU sweeps.
        {"--slabs", "8", "--blocks-per-sm", "1", "--traceback-dir", h.path("rows8")},
        {"--slabs", "8", "--blocks-per-sm", "1", "--no-pruning", "--traceback-dir", h.path("rows8np")},
        {"--traceback-disk", "20M", "--traceback-dir", h.path("rows20M")},
    };
    for (const auto& v : variants) {
        std::vector<std::string> args = {"-q", "-b", "cuda", "--traceback", h.path("gpu.sam")};
        args.insert(args.end(), v.begin(), v.end());
        const test::ChildRun r = h.run(args);
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_EQ(sam_records(h.path("gpu.sam")), expected) << v.back();
        size_t pieces = 0;
        for (const auto& e : std::filesystem::directory_iterator(v.back())) pieces += e.path().extension() == ".srow";
        // 8 slabs write a piece of each row: at least 5 rows' pieces (S1 is too short for 8
        // slabs of the default grid, so the 20M run has one slab and about 11 rows).
        EXPECT_GE(pieces, v[0] == "--slabs" ? 40u : 8u) << "special row pieces written in " << v.back();
    }
    // No rows at all: the GPU sweeps the whole matrix, then windows of it, keeping rows.
    const test::ChildRun r = h.run({"-q", "-b", "cuda", "--traceback", h.path("gpu0.sam"), "--traceback-disk", "0"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(sam_records(h.path("gpu0.sam")), expected) << "from no special rows";
}

TEST(TracebackGpu, CudaSweepsGiveTheReferenceAlignment) {
    if (!(backend_devices("cuda") > 0)) GTEST_SKIP() << "no CUDA device (or no CUDA build)";
    test::expect_engine_sweeps_exact("cuda", 8, test::seed() + 91);
}

}  // namespace
}  // namespace chromalign
