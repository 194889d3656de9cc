//! @file Genomes on the GPU: many records on both strands give the cpu backend's answers and
//! alignments; short records stacked give each its own optimum; real genomes report their
//! inverted blocks on the reverse strand, the chromosomes of two strains pair up as minimap2
//! pairs them, and an assembly's contigs land where nucmer places them.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "engine/job/strand.hpp"
#include "engine/orchestration/slab_run.hpp"
#include "io/fasta.hpp"
#include "kernels/registry.hpp"
#include "tests/job_support.hpp"
#include "tests/resume_harness.hpp"
#include "tests/test_support.hpp"

namespace chromalign {
namespace {

using test::split;

std::string file_text(const std::string& path, bool skip_header) {
    std::ifstream in(path);
    std::string text;
    for (std::string line; std::getline(in, line);)
        if (!skip_header || line.empty() || line[0] != '@') text += line + "\n";
    return text;
}

/// The TSV without its times (seconds, GCUPS) and device.
std::string answers(const std::string& tsv) {
    std::string out;
    for (const std::string& line : split(tsv, '\n')) {
        const auto f = split(line, '\t');
        for (size_t k = 0; k < f.size(); ++k)
            if (k != 8 && k != 9 && k != 10 && k != 11) out += f[k] + "\t";
        out += "\n";
    }
    return out;
}

TEST(GenomesGpu, StrandsRecordsAndAlignmentsAreTheCpuBackends) {
    if (!(backend_devices("cuda") > 0)) GTEST_SKIP() << "no CUDA device (or no CUDA build)";
    const test::ResumeHarness h(10, 10, test::seed());
    std::mt19937_64 rng(test::seed() + 701);
    std::ofstream s0(h.path("g0.fa")), s1(h.path("g1.fa"));
    const int64_t lengths[] = {300000, 120000, 40000};
    for (int k = 0; k < 3; ++k) {
        auto [a, b] = test::mutated_pair(lengths[k], lengths[k] + 5000, rng);
        s0 << ">q" << k << "\n" << test::preview(a, a.codes.size()) << "\n";
        if (k == 2) continue;  // q2 has no partner
        const Sequence t = k == 1 ? reverse_complement(b) : b;
        s1 << ">t" << k << "\n" << test::preview(t, t.codes.size()) << "\n";
    }
    s0.close();
    s1.close();
    const auto run = [&](const std::string& backend, const std::vector<std::string>& extra, const std::string& sam) {
        std::vector<std::string> args = {"-q", "-b", backend, "-f", "tsv", "--traceback", h.path(sam)};
        args.insert(args.end(), extra.begin(), extra.end());
        args.insert(args.end(), {h.path("g0.fa"), h.path("g1.fa")});
        return h.run_command(args);
    };
    const test::ChildRun cpu = run("cpu", {}, "cpu.sam");
    ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
    EXPECT_EQ(split(cpu.out, '\n').size(), 7u) << cpu.out;
    for (const std::vector<std::string>& extra :
         {std::vector<std::string>{}, {"--slabs", "8", "--no-pruning"}, {"--strand", "reverse"}}) {
        const test::ChildRun gpu = run("cuda", extra, "gpu.sam");
        ASSERT_EQ(gpu.exit_code, 0) << gpu.err;
        if (extra.size() == 2 && extra[0] == "--strand") {
            const test::ChildRun cpu_reverse = run("cpu", extra, "cpu-reverse.sam");
            EXPECT_EQ(answers(gpu.out), answers(cpu_reverse.out));
            EXPECT_EQ(file_text(h.path("gpu.sam"), true), file_text(h.path("cpu-reverse.sam"), true));
            continue;
        }
        EXPECT_EQ(answers(gpu.out), answers(cpu.out)) << gpu.out << cpu.out;
        EXPECT_EQ(file_text(h.path("gpu.sam"), true), file_text(h.path("cpu.sam"), true));
    }
}

TEST(GenomesGpu, StackedRecordsAreEachTheirOwnOptimum) {
    if (!(backend_devices("cuda") > 0)) GTEST_SKIP() << "no CUDA device (or no CUDA build)";
    std::mt19937_64 rng(test::seed() + 702);
    BackendOptions few;  // many slabs of few blocks: block 0's delegated cells of another record
    few.slabs = 3;
    few.max_blocks = 5;
    for (const auto& [name, scoring] : std::vector<std::pair<std::string, Scoring>>{
             {"default", Scoring{}}, {"hoxd70", test::hoxd70()}, {"tiny", test::matrix_scorings(rng)[2].scoring}})
        for (const BackendOptions& grid : {BackendOptions{}, few}) {
            const auto backend = make_backend("cuda", grid);
            SlabEngine* engine = backend->slab_engine();
            const int64_t rows = engine->slab_shape(1 << 16, 9000, scoring).rows_per_band;
            const JobSpec spec = test::stacked_spec(rng, rows, scoring);
            ASSERT_LT(2 * rows + 3, engine->stack_below(scoring)) << "the records must be stacked";
            JobOptions options;
            options.traceback = true;
            const JobResult got = test::run_on(*backend, spec, options);
            for (const PairAnswer& a : got.answers) {
                const RecordPair& p = spec.pairs[a.pair];
                const test::Expected want = test::expected(spec.s0[p.s0], spec.s1[p.s1], scoring, spec.strands);
                ASSERT_EQ(a.best, want.best) << name << ", slabs " << grid.slabs << ": " << spec.s0[p.s0].name << " ("
                                             << spec.s0[p.s0].length() << " bases) x " << spec.s1[p.s1].name;
                EXPECT_EQ(a.strand, want.strand) << name << ", " << spec.s0[p.s0].name;
                EXPECT_EQ(a.alignment.has_value(), a.best.score > 0);
            }
        }
}

// minimap2 -x asm5: ELS37 185,755-1,197,859 on G27 180,670-1,191,987, strand - (../shared/data/README.md).
TEST(GenomesGpu, HelicobacterInvertedBlockOnTheReverseStrand) {
    if (!(backend_devices("cuda") > 0)) GTEST_SKIP() << "no CUDA device (or no CUDA build)";
    const std::string f0 = test::shared_data("related/H_Pylori_ELS37.fasta.gz");
    const std::string f1 = test::shared_data("related/H_Pylori_G27.fasta.gz");
    if (f0.empty() || f1.empty()) GTEST_SKIP() << "../shared/data is absent";
    const test::ResumeHarness h(10, 10, test::seed());
    const test::ChildRun r = h.run_command({"-b", "cuda", "-f", "json", "--traceback", h.path("hp.paf"), f0, f1});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    std::printf("[ h.pylori ] score %d, strand %s, S0 %lld-%lld, S1 %lld-%lld, stage 1 %.2f s, traceback %.2f s\n",
                j.at("score").get<int>(), j.at("strand").get<std::string>().c_str(),
                j.at("alignment").at("s0_start").get<long long>(), j.at("s0_end").get<long long>(),
                j.at("alignment").at("s1_start").get<long long>(), j.at("s1_end").get<long long>(),
                j.at("seconds").get<double>(), j.at("alignment").at("traceback_seconds").get<double>());
    EXPECT_EQ(j.at("strand"), "-");
    EXPECT_NEAR(j.at("s0_end").get<double>(), 1197859, 1000);
    EXPECT_NEAR(j.at("s1_end").get<double>(), 180671, 1000);
    EXPECT_LT(j.at("alignment").at("s0_start").get<double>(), 400000) << "the block spans most of 1 Mbp";
    const auto paf = split(file_text(h.path("hp.paf"), false), '\t');
    ASSERT_GT(paf.size(), 8u);
    EXPECT_EQ(paf[4], "-");
}

// V. cholerae O395 against H1, two chromosomes each: the largest chromosomes pair up, and so do
// the smaller ones, each on the strand of minimap2's (-x asm5) longest alignment between them
// (a best local alignment is one such block: chromosome II has 465 kbp of them on + and 307 kbp on -).
TEST(GenomesGpu, CholeraeChromosomesPairUpOnMinimap2sStrands) {
    if (!(backend_devices("cuda") > 0)) GTEST_SKIP() << "no CUDA device (or no CUDA build)";
    const std::string f0 = test::shared_data("genomes/V_cholerae_O395.fasta.gz");
    const std::string f1 = test::shared_data("genomes/V_cholerae_H1.fasta.gz");
    if (f0.empty() || f1.empty()) GTEST_SKIP() << "../shared/data is absent";
    const test::ResumeHarness h(10, 10, test::seed());
    const test::ChildRun r = h.run_command({"-b", "cuda", "-f", "json", f0, f1});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j.at("pairs").size(), 4u);
    std::printf("[ cholerae ] whole job: stage 1 %.2f s, %.0f GCUPS, %.1f%% pruned\n", j.at("seconds").get<double>(),
                j.at("gcups").get<double>(), 100 * j.at("pruned_fraction").get<double>());
    std::map<std::string, std::pair<std::string, std::string>> best;  // S0 record: (S1 record, strand)
    for (const auto& p : j["pairs"]) {
        std::printf("[ cholerae ] %s x %s: %d on %s\n", p.at("s0_name").get<std::string>().c_str(),
                    p.at("s1_name").get<std::string>().c_str(), p.at("score").get<int>(),
                    p.at("strand").get<std::string>().c_str());
        if (!best.count(p.at("s0_name"))) best[p.at("s0_name")] = {p.at("s1_name"), p.at("strand")};
    }
    const std::vector<Sequence> o395 = io::read_fasta_records(f0, {}), h1 = io::read_fasta_records(f1, {});
    ASSERT_EQ(o395.size(), 2u);
    ASSERT_EQ(h1.size(), 2u);
    // Chromosome I is the larger in both.
    for (size_t k = 0; k < 2; ++k) EXPECT_EQ(best[o395[k].name].first, h1[k].name) << o395[k].name;
    bool ok = false;
    FILE* pipe = popen(("minimap2 -x asm5 " + f1 + " " + f0 + " 2>/dev/null").c_str(), "r");
    std::string paf;
    char buffer[4096];
    while (pipe && std::fgets(buffer, sizeof buffer, pipe)) paf += buffer;
    ok = pipe && pclose(pipe) == 0 && !paf.empty();
    if (!ok) GTEST_SKIP() << "minimap2 is not installed: strands not compared";
    std::map<std::pair<std::string, std::string>, int64_t> longest;  // (S0 record, strand) -> on its partner
    for (const std::string& line : split(paf, '\n')) {
        const auto f = split(line, '\t');
        if (f.size() < 12 || best[f[0]].first != f[5]) continue;
        int64_t& l = longest[{f[0], f[4]}];
        l = std::max<int64_t>(l, std::stoll(f[3]) - std::stoll(f[2]));
    }
    for (const Sequence& s : o395) {
        const std::string theirs = longest[{s.name, "+"}] >= longest[{s.name, "-"}] ? "+" : "-";
        std::printf("[ minimap2 ] %s: longest block %lld bases on +, %lld on -\n", s.name.c_str(),
                    static_cast<long long>(longest[{s.name, "+"}]), static_cast<long long>(longest[{s.name, "-"}]));
        EXPECT_EQ(best[s.name].second, theirs) << s.name;
    }
}

// The 1,407 contigs of an H1 assembly against the H1 chromosomes, both strands, as a user runs
// it: for every contig that nucmer places with >= 95% identity over >= 90% of its length, the
// contig's best alignment (its primary PAF line) lies on one of nucmer's records and strands
// for it and overlaps one of its intervals. The disagreements are listed with what each found.
TEST(GenomesGpu, CholeraeContigsLandWhereNucmerPlacesThem) {
    if (!(backend_devices("cuda") > 0)) GTEST_SKIP() << "no CUDA device (or no CUDA build)";
    const std::string contigs = test::shared_data("genomes/V_cholerae_H1_contigs.fasta.gz");
    const std::string h1 = test::shared_data("genomes/V_cholerae_H1.fasta.gz");
    const std::string coords = test::shared_data("genomes/V_cholerae_H1_contigs.nucmer.coords.gz");
    if (contigs.empty() || h1.empty() || coords.empty()) GTEST_SKIP() << "../shared/data is absent";
    const test::ResumeHarness h(10, 10, test::seed());
    const test::ChildRun r =
        h.run_command({"-b", "cuda", "-f", "tsv", "--traceback", h.path("contigs.paf"), contigs, h1});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::map<std::string, int64_t> length;
    for (const Sequence& s : io::read_fasta_records(contigs, {})) length[s.name] = s.length();
    // nucmer's placements: contig -> (H1 record, strand, start, end) with the asked identity and cover.
    const auto nucmer = test::nucmer_places(coords, length, 95);
    ASSERT_GT(nucmer.size(), 100u);
    std::map<std::string, std::vector<std::string>> ours;  // contig -> its primary PAF line's fields
    std::ifstream paf(h.path("contigs.paf"));
    for (std::string line; std::getline(paf, line);) {
        const auto f = split(line, '\t');
        if (f.size() > 8 && !ours.count(f[0])) ours[f[0]] = f;  // best first: the first is the primary
    }
    int agree = 0;
    std::string listed;
    for (const auto& [contig, places] : nucmer) {
        const auto it = ours.find(contig);
        bool found = false;
        for (const test::NucmerPlace& p : places)
            found = found || (it != ours.end() && it->second[5] == p.record && it->second[4][0] == p.strand &&
                              std::stoll(it->second[7]) < p.to && std::stoll(it->second[8]) >= p.from);
        agree += found;
        if (found) continue;
        listed += "  " + contig + " (" + std::to_string(length[contig]) + " bases): nucmer";
        for (const test::NucmerPlace& p : places)
            listed += " " + p.record + " " + p.strand + " " + std::to_string(p.from) + "-" + std::to_string(p.to);
        listed += "; chromalign " + (it == ours.end() ? std::string("none")
                                                      : it->second[5] + " " + it->second[4] + " " + it->second[7] + "-" +
                                                            it->second[8] + " " + it->second[12]) + "\n";
    }
    std::printf("[ contigs  ] %d of %zu contigs nucmer places agree; the others:\n%s", agree, nucmer.size(),
                listed.c_str());
    EXPECT_GE(agree * 100, static_cast<int>(nucmer.size()) * 95) << listed;
}

}  // namespace
}  // namespace chromalign
