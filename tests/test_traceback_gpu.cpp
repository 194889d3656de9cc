//! @file The traceback after a CUDA stage 1 (one slab and eight, pruning on and off) writes the
//! alignment the cpu backend writes, byte for byte. At this size the cuda engine keeps no
//! special rows (one capture at a time puts them (B + 1) R rows apart); the traceback from
//! kept rows is tested on the cpu backend (test_alignment_formats.cpp).
#include <gtest/gtest.h>

#include <fstream>

#include "kernels/registry.hpp"
#include "tests/resume_harness.hpp"
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
    test::ResumeHarness h(60000, 58000, test::seed() + 90);
    const test::ChildRun want = h.run({"-q", "-b", "cpu", "--traceback", h.path("cpu.sam"), "--traceback-disk", "0"});
    ASSERT_EQ(want.exit_code, 0) << want.err;
    const std::string expected = sam_records(h.path("cpu.sam"));
    ASSERT_FALSE(expected.empty());
    const std::vector<std::vector<std::string>> variants = {
        {"--slabs", "1", "--traceback-dir", h.path("rows1")},
        {"--slabs", "8", "--traceback-dir", h.path("rows8")},
        {"--slabs", "8", "--no-pruning", "--traceback-dir", h.path("rows8np")},
    };
    for (const auto& v : variants) {
        std::vector<std::string> args = {"-q", "-b", "cuda", "--traceback", h.path("gpu.sam")};
        args.insert(args.end(), v.begin(), v.end());
        const test::ChildRun r = h.run(args);
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_EQ(sam_records(h.path("gpu.sam")), expected) << v[1] << " slabs";
    }
}

}  // namespace
}  // namespace chromalign
