//! @file Checkpoints written by release 0.1.0 (format 1: a flat file, or slab pieces) resume to
//! the uninterrupted answer. The files in tests/data/format1 were made by that release's
//! chromalign (commit c13e25a, cpu backend, 1 thread, scalar kernel), stopped with SIGINT:
//!   chromalign -b cpu -t 1 --checkpoint flat.ckpt s0.fa.gz s1.fa.gz              (row 21088)
//!   chromalign -b cpu -t 1 --slabs 2 --checkpoint pieces.ckpt s0.fa.gz s1.fa.gz  (row 22288)
//! s0 is 60 kbp of random DNA, s1 a mutated copy of its bases 20001..40000 (best alignment
//! 16074 ending at (40000, 20131), across both saved rows).
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "engine/checkpoint/checkpoint_file.hpp"
#include "io/fasta.hpp"
#include "kernels/registry.hpp"
#include "tests/test_support.hpp"

namespace chromalign {
namespace {

const std::string kData = std::string(CHROMALIGN_SOURCE_DIR) + "/tests/data/format1/";
const AlignmentEnd kAnswer{16074, 40000, 20131};

/// Unpacks tests/data/format1/NAME.gz into `to`.
void gunzip(const std::string& name, const std::string& to) {
    gzFile in = gzopen((kData + name + ".gz").c_str(), "rb");
    ASSERT_NE(in, nullptr) << kData << name << ".gz";
    std::ofstream out(to, std::ios::binary);
    char buf[65536];
    int got = 0;
    while ((got = gzread(in, buf, sizeof buf)) > 0) out.write(buf, got);
    gzclose(in);
    ASSERT_EQ(got, 0) << "cannot unpack " << name;
}

class Format1 : public ::testing::Test {
protected:
    void SetUp() override {
        s0_ = io::read_fasta(kData + "s0.fa.gz", {});
        s1_ = io::read_fasta(kData + "s1.fa.gz", {});
    }

    /// Runs the cpu backend with `slabs` slabs on the checkpoint at PATH; returns its notes.
    std::string resume(const std::string& path, int slabs) {
        BackendOptions o;
        o.threads = 1;
        o.slabs = slabs;
        o.checkpoint.path = path;
        std::string notes;
        o.on_note = [&notes](const std::string& text) { notes += text + "\n"; };
        EXPECT_EQ(make_backend("cpu", o)->align(s0_, s1_, Scoring{}), kAnswer) << notes;
        return notes;
    }

    test::TempDir dir_;
    Sequence s0_, s1_;
};

TEST_F(Format1, TheFilesAreFormat1AndHoldTheirRows) {
    gunzip("flat.ckpt", dir_.file("flat.ckpt"));
    gunzip("pieces.ckpt.slab0of2.1", dir_.file("piece"));
    const Checkpoint flat = read_checkpoint(dir_.file("flat.ckpt"));
    EXPECT_EQ(flat.row, 21088);
    EXPECT_EQ(flat.n, s1_.length());
    EXPECT_EQ(read_checkpoint(dir_.file("piece")).row, 22288);
    EXPECT_EQ(make_backend("cpu", BackendOptions{})->align(s0_, s1_, Scoring{}), kAnswer);
}

TEST_F(Format1, AFlatCheckpointResumesOnOneSlabOrSeveral) {
    for (const int slabs : {1, 3}) {
        const std::string ck = dir_.file("flat" + std::to_string(slabs) + ".ckpt");
        gunzip("flat.ckpt", ck);
        const std::string notes = resume(ck, slabs);
        EXPECT_NE(notes.find("resuming from the flat checkpoint " + ck + " at row 21088"), std::string::npos) << notes;
        EXPECT_FALSE(file_exists(ck)) << "a finished run removes the flat file it resumed from";
    }
}

TEST_F(Format1, SlabPiecesResumeOnOneSlab) {
    const std::string ck = dir_.file("pieces.ckpt");
    for (int k = 0; k < 2; ++k) gunzip("pieces.ckpt.slab" + std::to_string(k) + "of2.1", ck + ".slab" + std::to_string(k) + "of2.1");
    const std::string notes = resume(ck, 1);
    EXPECT_NE(notes.find("resuming from the pieces of 2 slabs at " + ck + " at row 22288"), std::string::npos) << notes;
    EXPECT_FALSE(file_exists(ck + ".slab0of2.1") || file_exists(ck + ".slab1of2.1")) << "removed at the end";
}

TEST_F(Format1, SlabPiecesResumeOnTheirOwnSlabCount) {
    // The same cut of S1 needs the same tile plan: the release's scalar kernel, one thread.
    setenv("CHROMALIGN_CPU_ISA", "scalar", 1);
    const std::string ck = dir_.file("pieces.ckpt");
    for (int k = 0; k < 2; ++k) gunzip("pieces.ckpt.slab" + std::to_string(k) + "of2.1", ck + ".slab" + std::to_string(k) + "of2.1");
    const std::string notes = resume(ck, 2);
    unsetenv("CHROMALIGN_CPU_ISA");
    EXPECT_NE(notes.find("resuming from " + ck + " (2 slabs) at row 22288"), std::string::npos) << notes;
}

}  // namespace
}  // namespace chromalign
