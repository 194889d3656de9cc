//! @file GPU tests: the CUDA backend against the reference oracle and the paper's published results.
#include <gtest/gtest.h>

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "engine/orchestration/slab_run.hpp"
#include "kernels/registry.hpp"
#include "kernels/reference/reference.hpp"
#include "tests/test_support.hpp"

namespace chromalign {
namespace {

#define SKIP_WITHOUT_GPU()                                             \
    if (!(backend_devices("cuda") > 0)) GTEST_SKIP() << "no CUDA device (or no CUDA build)"

const Scoring kScorings[] = {
    {1, -3, 5, 2},   // cudalign
    {2, -3, 7, 2},   // blastn in our convention
    {1, -1, 2, 2},
    {5, -4, 10, 1},
    {1, -2, 1, 1},
    {200, -150, 300, 40},  // too large for the kernels' byte mode: the generic path
};
constexpr int kNumScorings = sizeof(kScorings) / sizeof(kScorings[0]);

struct Case {
    Sequence s0, s1;
    Scoring scoring;
    BackendOptions options;
    std::string what;
};

void expect_same_as_reference(const Case& c) {
    const AlignmentEnd want = reference_align(c.s0, c.s1, c.scoring);
    auto backend = make_backend("cuda", c.options);
    const AlignmentEnd got = backend->align(c.s0, c.s1, c.scoring);
    ASSERT_EQ(got, want) << c.what << " m=" << c.s0.length() << " n=" << c.s1.length() << " "
                         << c.scoring.to_string() << " alpha=" << c.options.alpha
                         << " max_blocks=" << c.options.max_blocks << " grid " << backend->layout()
                         << "\n got " << got.score << " (" << got.s0_end << ", " << got.s1_end << ")"
                         << " want " << want.score << " (" << want.s0_end << ", " << want.s1_end << ")"
                         << "\n s0 " << test::preview(c.s0) << "\n s1 " << test::preview(c.s1)
                         << "\n seed " << test::seed();
}

BackendOptions grid_options(int alpha, int max_blocks) {
    BackendOptions o;
    o.alpha = alpha;
    o.max_blocks = max_blocks;
    return o;
}

TEST(CudaBackend, RandomAndMutatedPairsMatchReference) {
    SKIP_WITHOUT_GPU();
    std::mt19937_64 rng(test::seed());
    const int alphas[] = {4, 8, 16};
    const int max_blocks[] = {1, 2, 3, 5, 16, 0};
    for (int i = 0; i < 300; ++i) {
        const int64_t m = 1 + rng() % (i < 150 ? 300 : 3000);
        const int64_t n = 1 + rng() % (i < 150 ? 300 : 3000);
        const bool mutated = i % 3 != 0;
        auto [s0, s1] = mutated ? test::mutated_pair(m, n, rng, (i % 7 == 0) ? 0.02 : 0.0)
                                : test::random_pair(m, n, rng);
        Case c{std::move(s0), std::move(s1), kScorings[rng() % kNumScorings],
               grid_options(alphas[rng() % 3], max_blocks[rng() % 6]),
               mutated ? "mutated pair #" + std::to_string(i) : "random pair #" + std::to_string(i)};
        expect_same_as_reference(c);
        if (HasFatalFailure()) return;
    }
}

TEST(CudaBackend, EdgeSizesMatchReference) {
    SKIP_WITHOUT_GPU();
    std::mt19937_64 rng(test::seed() + 1);
    for (const int alpha : {4, 8, 16}) {
        const int64_t band = 32 * alpha;  // rows per band: the tile height
        const std::vector<int64_t> sizes = {1, 2, 31, 32, 33, 63, 64, 65, band - 1, band, band + 1,
                                            2 * band + 1, 777};
        for (const int64_t m : sizes)
            for (const int64_t n : sizes) {
                auto [s0, s1] = test::mutated_pair(m, n, rng);
                Case c{std::move(s0), std::move(s1), kScorings[0], grid_options(alpha, 3), "edge sizes"};
                expect_same_as_reference(c);
                if (HasFatalFailure()) return;
            }
    }
}

TEST(CudaBackend, ThinWideAndManyBandsMatchReference) {
    SKIP_WITHOUT_GPU();
    std::mt19937_64 rng(test::seed() + 2);
    const std::pair<int64_t, int64_t> shapes[] = {{20000, 50}, {50, 20000}, {30000, 700},
                                                  {700, 30000}, {12345, 6789}, {1, 5000}, {5000, 1}};
    for (const auto& [m, n] : shapes)
        for (const int max_blocks : {1, 2, 7, 0}) {
            auto [s0, s1] = test::mutated_pair(m, n, rng, 0.01);
            Case c{std::move(s0), std::move(s1), kScorings[rng() % kNumScorings], grid_options(8, max_blocks),
                   "thin/wide"};
            expect_same_as_reference(c);
            if (HasFatalFailure()) return;
        }
}

TEST(CudaBackend, EveryScoringOnLargerMutatedPairs) {
    SKIP_WITHOUT_GPU();
    std::mt19937_64 rng(test::seed() + 3);
    for (const Scoring& scoring : kScorings) {
        auto [s0, s1] = test::mutated_pair(20000 + rng() % 1000, 20000 + rng() % 1000, rng, 0.001);
        Case c{std::move(s0), std::move(s1), scoring, BackendOptions{}, "default grid"};
        expect_same_as_reference(c);
        if (HasFatalFailure()) return;
    }
}

TEST(CudaBackend, IdenticalSequencesAndNoMatch) {
    SKIP_WITHOUT_GPU();
    std::mt19937_64 rng(test::seed() + 4);
    const Sequence a = test::mutated_pair(5000, 1, rng).first;
    auto backend = make_backend("cuda", BackendOptions{});
    EXPECT_EQ(backend->align(a, a, kScorings[0]), (AlignmentEnd{5000, 5000, 5000}));
    const Sequence n = make_sequence("n", std::string(3000, 'N'));
    EXPECT_EQ(backend->align(n, n, kScorings[0]), (AlignmentEnd{0, 0, 0}));
}

TEST(CudaBackend, CapturesOfOneBandEachGetItsRow) {
    // A checkpoint's, a special row's and a standing row's capture (StandingRows) may fall on
    // one band: every caller's arrays get the row, one that joined a diagonal late too. With
    // the diagonal kernel keeping the columns, and with 9 other bands captured at once, more
    // than its slots, so that the pieces go by the copy kernel.
    SKIP_WITHOUT_GPU();
    std::mt19937_64 rng(test::seed() + 5);
    const Scoring& sc = kScorings[rng() % kNumScorings];
    auto [s0, s1] = test::mutated_pair(6000, 3000 + rng() % 500, rng, 0.01);
    auto backend = make_backend("cuda", grid_options(4, 6));
    SlabEngine* engine = backend->slab_engine();
    const int32_t blocks = engine->slab_shape(s0.length(), s1.length(), sc).blocks;
    const size_t n = static_cast<size_t>(s1.length());
    for (const int others : {0, 9}) {
        auto ex = engine->slab_executor(s0, s1, sc, 0, TopRow{}, SlabEdges{}, blocks, PruneRule{});
        const TileGrid& g = ex->grid();
        const int64_t band = others + 2;
        ASSERT_LT((band + 1) * g.rows_per_band(), s0.length());
        std::vector<test::DpRow> rows(3 + static_cast<size_t>(others), test::DpRow{std::vector<int32_t>(n, -7), std::vector<int32_t>(n, -7)});
        const auto capture = [&](size_t k, int64_t b, int64_t d) {
            if (d >= b && d <= b + g.blocks) ex->capture_band_bottom(b, d, rows[k].h.data(), rows[k].f.data());
        };
        for (int64_t d = 0; d < g.diagonals(); ++d) {
            ex->enqueue_diagonal(d);
            for (int k = 0; k < others; ++k) capture(3 + static_cast<size_t>(k), k, d);
            capture(0, band, d);
            if (d > band) capture(1, band, d);  // joins a diagonal late
            capture(2, band, d);
        }
        ex->synchronize();
        const test::DpRow want = test::dp_row(s0, s1, sc, (band + 1) * g.rows_per_band());
        for (size_t k = 0; k < rows.size(); ++k) {
            const int64_t b = k < 3 ? band : static_cast<int64_t>(k) - 3;
            const test::DpRow other = k < 3 ? want : test::dp_row(s0, s1, sc, (b + 1) * g.rows_per_band());
            EXPECT_EQ(rows[k].h, other.h) << "capture " << k << " of band " << b << ", " << others << " others, " << g.describe();
            EXPECT_EQ(rows[k].f, other.f) << "capture " << k << " of band " << b << ", " << others << " others";
        }
    }
}

TEST(CudaBackendMatrix, RandomAndMutatedPairsMatchReference) {
    // Every test matrix: the table kernels (HOXD70 and the rest), and the byte kernels for the
    // matrix of match/mismatch shape.
    SKIP_WITHOUT_GPU();
    std::mt19937_64 rng(test::seed() + 10);
    const int alphas[] = {4, 8, 16};
    const int max_blocks[] = {1, 2, 3, 5, 16, 0};
    for (const test::NamedScoring& ns : test::matrix_scorings(rng))
        for (int i = 0; i < 40; ++i) {
            const int64_t m = 1 + rng() % (i < 20 ? 300 : 3000);
            const int64_t n = 1 + rng() % (i < 20 ? 300 : 3000);
            const bool mutated = i % 4 != 0;
            auto [s0, s1] = mutated ? test::mutated_pair(m, n, rng, i % 3 == 0 ? 0.02 : 0.0)
                                    : test::random_pair(m, n, rng);
            Case c{std::move(s0), std::move(s1), ns.scoring, grid_options(alphas[rng() % 3], max_blocks[rng() % 6]),
                   ns.name + (mutated ? ", mutated pair #" : ", random pair #") + std::to_string(i)};
            expect_same_as_reference(c);
            if (HasFatalFailure()) return;
        }
}

TEST(CudaBackendMatrix, EdgeSizesMatchReference) {
    SKIP_WITHOUT_GPU();
    std::mt19937_64 rng(test::seed() + 11);
    const std::vector<test::NamedScoring> matrices = test::matrix_scorings(rng);
    size_t k = 0;
    for (const int alpha : {4, 8, 16}) {
        const int64_t band = 32 * alpha;
        const std::vector<int64_t> sizes = {1, 31, 32, 33, 64, 65, band - 1, band, band + 1, 2 * band + 1};
        for (const int64_t m : sizes)
            for (const int64_t n : sizes) {
                const test::NamedScoring& ns = matrices[k++ % matrices.size()];
                auto [s0, s1] = test::mutated_pair(m, n, rng, 0.01);
                Case c{std::move(s0), std::move(s1), ns.scoring, grid_options(alpha, 3), ns.name + ", edge sizes"};
                expect_same_as_reference(c);
                if (HasFatalFailure()) return;
            }
    }
}

TEST(CudaBackendMatrix, FullGridOfTheTableKernels) {
    // Wide enough that the default grid launches every block the table kernels keep resident
    // (their occupancy is queried for them, not for the byte kernels), on large scores.
    SKIP_WITHOUT_GPU();
    std::mt19937_64 rng(test::seed() + 12);
    for (const Scoring& scoring : {test::hoxd70(), test::matrix_scorings(rng).back().scoring}) {
        auto [s0, s1] = test::mutated_pair(3000, 150000, rng, 0.001);
        Case c{std::move(s0), std::move(s1), scoring, BackendOptions{}, "default grid, 150k columns"};
        expect_same_as_reference(c);
        if (HasFatalFailure()) return;
    }
}

/// DiagonalTrace::kBlockSample: every this many diagonals, the trace lists the blocks.
constexpr long long kTraceBlockSample = 256;

TEST(CudaBackend, DiagonalTraceHasOneOrderedLinePerDiagonal) {
    SKIP_WITHOUT_GPU();
    std::mt19937_64 rng(test::seed() + 5);
    // Tall and thin: more diagonals than the trace's ring of stamps holds (it reads them as they age).
    const auto [s0, s1] = test::mutated_pair(530000, 300, rng);
    char dir[] = "/tmp/chromalign-trace-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    const std::string prefix = std::string(dir) + "/t";
    setenv("CHROMALIGN_TRACE_DIAGONALS", prefix.c_str(), 1);
    const AlignmentEnd got = make_backend("cuda", grid_options(16, 2))->align(s0, s1, kScorings[0]);
    unsetenv("CHROMALIGN_TRACE_DIAGONALS");
    EXPECT_EQ(got, reference_align(s0, s1, kScorings[0])) << "seed " << test::seed();

    // PREFIX.<pid>.<k>.tsv, k counting this process's runners, and PREFIX.<pid>.<k>.blocks.tsv:
    // the two files in the directory.
    std::vector<std::string> files;
    if (DIR* listing = opendir(dir)) {
        while (const dirent* entry = readdir(listing))
            if (entry->d_name[0] != '.') files.push_back(std::string(dir) + "/" + entry->d_name);
        closedir(listing);
    }
    std::sort(files.begin(), files.end());  // "t.<pid>.0.blocks.tsv" < "t.<pid>.0.tsv"
    ASSERT_EQ(files.size(), 2u);
    const std::string path = files[1], blocks_path = files[0];
    EXPECT_EQ(blocks_path, path.substr(0, path.size() - 4) + ".blocks.tsv");
    const std::string pid = "/t." + std::to_string(static_cast<long long>(getpid())) + ".";
    EXPECT_NE(path.find(pid), std::string::npos) << path;
    std::ifstream in(path);
    ASSERT_TRUE(in) << path;
    std::string header, columns, key;
    std::getline(in, header);
    std::getline(in, columns);
    EXPECT_EQ(columns, "diagonal\tstart_ms\tend_ms\tlast_start_ms\tlast_short_ms\tmedian_end_ms\tblocks");
    long long bands = 0, blocks = 0;
    std::istringstream words(header);
    while (words >> key) {
        if (key == "bands") words >> bands;
        if (key == "blocks") words >> blocks;
    }
    EXPECT_EQ(bands, 1036);  // ceil(530000 / 512)
    EXPECT_GE(blocks, 1);
    EXPECT_LE(blocks, 2);    // max_blocks
    // Every block of a diagonal runs between its first start and its last end, and a stream
    // runs its diagonals one after the other.
    long long d = 0, expected = 0;
    double start = 0, end = 0, last_start = 0, last_short = 0, median_end = 0, previous_end = 0;
    long long ran = 0;
    std::map<long long, std::pair<double, double>> spans;  // diagonal -> (first start, last end)
    while (in >> d >> start >> end >> last_start >> last_short >> median_end >> ran) {
        EXPECT_EQ(d, expected++);
        EXPECT_GE(ran, 1) << "diagonal " << d;  // no pruning here: every diagonal runs a block
        EXPECT_LE(ran, blocks) << "diagonal " << d;
        spans[d] = {start, end};
        EXPECT_GE(start, previous_end) << "diagonal " << d;
        EXPECT_GE(last_start, start) << "diagonal " << d;
        EXPECT_GE(last_short, last_start) << "diagonal " << d;
        EXPECT_GE(end, last_short) << "diagonal " << d;
        EXPECT_GE(end, median_end) << "diagonal " << d;
        EXPECT_GE(median_end, start) << "diagonal " << d;
        previous_end = end;
    }
    EXPECT_EQ(expected, bands + blocks) << "one line per external diagonal";
    EXPECT_GT(expected, 1024) << "more diagonals than DiagonalTrace's ring holds";

    // Every 256th diagonal block by block; its blocks span exactly its line above.
    std::ifstream blocks_in(blocks_path);
    std::getline(blocks_in, columns);
    EXPECT_EQ(columns, "diagonal\tblock\tstart_ms\tshort_end_ms\tend_ms");
    long long b = 0;
    double short_end = 0;
    std::map<long long, std::pair<double, double>> sampled;
    while (blocks_in >> d >> b >> start >> short_end >> end) {
        EXPECT_EQ(d % kTraceBlockSample, 0) << d;
        EXPECT_GE(b, 0);
        EXPECT_LT(b, blocks);
        EXPECT_LE(start, short_end) << "diagonal " << d << " block " << b;
        EXPECT_LE(short_end, end) << "diagonal " << d << " block " << b;
        auto [it, fresh] = sampled.try_emplace(d, start, end);
        it->second = {std::min(it->second.first, start), std::max(it->second.second, end)};
    }
    EXPECT_EQ(sampled.size(), static_cast<size_t>((expected - 1) / kTraceBlockSample + 1));
    for (const auto& [diagonal, span] : sampled) {
        EXPECT_NEAR(span.first, spans[diagonal].first, 1e-4) << "diagonal " << diagonal;
        EXPECT_NEAR(span.second, spans[diagonal].second, 1e-4) << "diagonal " << diagonal;
    }
    std::remove(blocks_path.c_str());
    std::remove(path.c_str());
    rmdir(dir);
}

struct PaperPair {
    const char* s0;
    const char* s1;
    AlignmentEnd expected;  // end 0 when only the score is known
};

void check_paper_pair(const PaperPair& p) {
    Sequence s0, s1;
    if (!test::load_shared_pair("paper", p.s0, p.s1, s0, s1)) GTEST_SKIP() << "../shared/data/paper is absent";
    auto backend = make_backend("cuda", BackendOptions{});
    const AlignmentEnd got = backend->align(s0, s1, kScorings[0]);
    std::printf("[ result   ] %s x %s: score %d end (%lld, %lld), grid %s\n", p.s0, p.s1, got.score,
                static_cast<long long>(got.s0_end), static_cast<long long>(got.s1_end),
                backend->layout().c_str());
    EXPECT_EQ(got.score, p.expected.score);
    if (p.expected.s0_end > 0) {
        EXPECT_EQ(got.s0_end, p.expected.s0_end);
        EXPECT_EQ(got.s1_end, p.expected.s1_end);
    }
}

TEST(CudaBackendPaper, Hiv10k) { SKIP_WITHOUT_GPU(); check_paper_pair({"AF133821.1", "AY352275.1", {5091, 9418, 9114}}); }
TEST(CudaBackendPaper, Mito57k) { SKIP_WITHOUT_GPU(); check_paper_pair({"AF494279.1", "NC_001715.1", {52, 41352, 33438}}); }
TEST(CudaBackendPaper, Herpes162k) { SKIP_WITHOUT_GPU(); check_paper_pair({"NC_000898.1", "NC_007605.1", {18, 41058, 44353}}); }
TEST(CudaBackendPaper, Plasmid543k) { SKIP_WITHOUT_GPU(); check_paper_pair({"NC_003064.2", "NC_000914.1", {48, 455134, 308558}}); }
TEST(CudaBackendPaper, Chlamydia1M) { SKIP_WITHOUT_GPU(); check_paper_pair({"CP000051.1", "AE002160.2", {88353, 722725, 1072950}}); }
TEST(CudaBackendPaper, Corynebacterium3M) { SKIP_WITHOUT_GPU(); check_paper_pair({"BA000035.2", "BX927147.1", {4226, 0, 0}}); }

}  // namespace
}  // namespace chromalign

namespace chromalign {
namespace {

/// Real, highly similar bacterial chromosomes with no published answer: every backend must agree.
void check_related_pair(const char* a, const char* b) {
    Sequence s0, s1;
    if (!test::load_shared_pair("related", a, b, s0, s1)) GTEST_SKIP() << "../shared/data/related is absent";
    const AlignmentEnd gpu = make_backend("cuda", BackendOptions{})->align(s0, s1, Scoring{});
    const AlignmentEnd cpu = make_backend("cpu", BackendOptions{})->align(s0, s1, Scoring{});
    std::printf("[ result   ] %s x %s: cuda %d (%lld, %lld), cpu %d (%lld, %lld)\n", a, b, gpu.score,
                static_cast<long long>(gpu.s0_end), static_cast<long long>(gpu.s1_end), cpu.score,
                static_cast<long long>(cpu.s0_end), static_cast<long long>(cpu.s1_end));
    EXPECT_EQ(gpu, cpu);
}

TEST(CudaBackendRelated, HelicobacterPylori) { SKIP_WITHOUT_GPU(); check_related_pair("H_Pylori_ELS37", "H_Pylori_G27"); }
TEST(CudaBackendRelated, StaphylococcusAureus) { SKIP_WITHOUT_GPU(); check_related_pair("S_Aureus_COL", "S_Aureus_N315"); }

}  // namespace
}  // namespace chromalign
