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
    // cuda keeps rows at least 65536 apart: 4 rows here. With 8 slabs of one block per SM
    // (B = 33) each slab writes a piece of each; with the default grid S1 is too short for 8
    // slabs, one slab of B = 1584 captures all 4 rows at once (811k rows a capture); 3M of
    // disk keeps one row, and the GPU sweeps the two windows of 150k rows, one ahead.
    struct Variant {
        std::vector<std::string> args;
        size_t pieces;  ///< special row pieces expected at least
    };
    const std::vector<Variant> variants = {
        {{"--slabs", "8", "--blocks-per-sm", "1", "--traceback-dir", h.path("rows8")}, 32},
        {{"--slabs", "8", "--blocks-per-sm", "1", "--no-pruning", "--traceback-dir", h.path("rows8np")}, 32},
        {{"--traceback-dir", h.path("rows")}, 4},
        {{"--traceback-disk", "3M", "--traceback-dir", h.path("rows3M")}, 1},
    };
    for (const Variant& v : variants) {
        std::vector<std::string> args = {"-q", "-b", "cuda", "--traceback", h.path("gpu.sam")};
        args.insert(args.end(), v.args.begin(), v.args.end());
        const test::ChildRun r = h.run(args);
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_EQ(sam_records(h.path("gpu.sam")), expected) << v.args.back();
        size_t pieces = 0;
        for (const auto& e : std::filesystem::directory_iterator(v.args.back()))
            pieces += e.path().extension() == ".srow";
        EXPECT_GE(pieces, v.pieces) << "special row pieces written in " << v.args.back();
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
