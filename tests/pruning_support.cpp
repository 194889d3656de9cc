//! @file Pruning cases and the exactness check shared by the cpu and cuda pruning tests.
#include "tests/pruning_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>

#include "engine/checkpoint/checkpoint_file.hpp"
#include "engine/error.hpp"
#include "engine/tiling/tile_executor.hpp"

#include "kernels/reference/reference.hpp"
#include "kernels/registry.hpp"
#include "tests/slab_support.hpp"
#include "tests/test_support.hpp"
#include "tools/mutate.hpp"

namespace chromalign::test {
namespace {

std::string repeat(const std::string& unit, int64_t times) {
    std::string out;
    for (int64_t k = 0; k < times; ++k) out += unit;
    return out;
}

}  // namespace

std::vector<PruningCase> pruning_cases(std::mt19937_64& rng, int64_t size) {
    std::vector<PruningCase> cases;
    const Scoring cudalign(1, -3, 5, 2);
    auto add = [&](const std::string& what, const std::string& a, const std::string& b, const Scoring& s) {
        cases.push_back({what, make_sequence("s0", a), make_sequence("s1", b), s});
    };
    for (int k = 0; k < 4; ++k) {
        auto [a, b] = mutated_pair(size / 2 + static_cast<int64_t>(rng() % static_cast<uint64_t>(size / 2)),
                                   size / 2 + static_cast<int64_t>(rng() % static_cast<uint64_t>(size / 2)), rng,
                                   k == 3 ? 0.01 : 0.0);
        cases.push_back({"mutated #" + std::to_string(k), a, b, cudalign});
    }
    gen::RelatedSpec related;
    related.max_long = size / 20 + 1;
    related.long_indel = 20.0 / static_cast<double>(size);
    for (int k = 0; k < 2; ++k) {
        const auto [a, b] = gen::related_pair(size, related, rng);
        add("related #" + std::to_string(k), a, b, cudalign);
    }
    {
        auto [a, b] = random_pair(size, size, rng);
        cases.push_back({"unrelated", a, b, cudalign});
    }
    // Ties: the whole of S0 aligns twice in S1 (two cells share the best score), S0 holds
    // tandem copies of a unit S1 repeats too (many tied diagonals), a periodic pair.
    const std::string x = gen::random_dna(size / 3, rng);
    add("S1 = S0 twice", x, x + x, cudalign);
    add("S0 = S1 twice", x + x, x, cudalign);
    const std::string unit = gen::random_dna(37, rng);
    add("tandem repeats", repeat(unit, size / 37), repeat(unit, size / 74) + gen::random_dna(50, rng) + repeat(unit, size / 74),
        cudalign);
    add("periodic", repeat("ACGTTGCA", size / 8), repeat("ACGTTGCA", size / 10), cudalign);
    // Every preset's scoring and the test matrices, on mutated pairs.
    std::vector<NamedScoring> scorings = matrix_scorings(rng);
    scorings.push_back({"hoxd70", hoxd70()});
    scorings.push_back({"blastn", Scoring(2, -3, 7, 2)});
    for (const NamedScoring& s : scorings) {
        auto [a, b] = mutated_pair(size / 2, size / 2, rng);
        cases.push_back({"mutated, " + s.name, a, b, s.scoring});
    }
    return cases;
}

std::vector<PruningCase> edge_cases(std::mt19937_64& rng, const std::vector<int64_t>& bands, int64_t wide) {
    std::vector<PruningCase> cases;
    for (const int64_t band : bands)
        for (const int64_t m : {int64_t{1}, band - 1, band, band + 1, 3 * band + 5})
            for (const int64_t n : {int64_t{1}, int64_t{63}, int64_t{64}, int64_t{65}, wide}) {
                auto [a, b] = mutated_pair(m, n, rng);
                cases.push_back({"edge " + std::to_string(m) + " x " + std::to_string(n), a, b, Scoring(1, -3, 5, 2)});
            }
    return cases;
}

BackendOptions grid(int alpha, int max_blocks, int slabs, int threads) {
    BackendOptions o;
    o.alpha = alpha;
    o.max_blocks = max_blocks;
    o.slabs = slabs;
    o.threads = threads;
    return o;
}

int64_t expect_pruning_exact(const std::string& backend, const std::vector<PruningCase>& cases,
                             const std::vector<BackendOptions>& grids) {
    int64_t pruned = 0;
    for (const PruningCase& c : cases) {
        const AlignmentEnd want = reference_align(c.s0, c.s1, c.scoring);
        for (const BackendOptions& grid : grids)
            for (const bool on : {true, false}) {
                BackendOptions o = grid;
                o.pruning = on;
                auto engine = make_backend(backend, o);
                const AlignmentEnd got = engine->align(c.s0, c.s1, c.scoring);
                EXPECT_EQ(got, want) << backend << ", " << c.what << ", pruning " << (on ? "on" : "off") << ", "
                                     << c.s0.length() << " x " << c.s1.length() << ", " << c.scoring.to_string()
                                     << ", grid " << engine->layout() << "\n got " << got.score << " (" << got.s0_end
                                     << ", " << got.s1_end << ") want " << want.score << " (" << want.s0_end << ", "
                                     << want.s1_end << "), seed " << seed() << "\n s0 " << preview(c.s0) << "\n s1 "
                                     << preview(c.s1);
                if (on) {
                    pruned += engine->cells_pruned();
                } else {
                    EXPECT_EQ(engine->cells_pruned(), 0) << "--no-pruning skipped cells";
                }
                if (::testing::Test::HasFailure()) return pruned;
            }
    }
    return pruned;
}

AlignmentEnd align_with_bound(const std::string& backend, BackendOptions grid, int32_t bound, const Sequence& s0,
                              const Sequence& s1, const Scoring& scoring, int64_t& pruned) {
    std::atomic<int32_t> value{bound};
    grid.lower_bound = &value;
    auto engine = make_backend(backend, grid);
    const AlignmentEnd got = engine->align(s0, s1, scoring);
    pruned = engine->cells_pruned();
    return got;
}

void expect_injected_bounds_exact(const std::string& backend, const std::vector<PruningCase>& cases,
                                  const std::vector<BackendOptions>& grids, std::mt19937_64& rng) {
    int64_t pruned_at_optimum = 0, pruned_from_zero = 0;
    for (const PruningCase& c : cases) {
        const AlignmentEnd want = reference_align(c.s0, c.s1, c.scoring);
        const int32_t below = want.score > 0 ? static_cast<int32_t>(rng() % static_cast<uint64_t>(want.score)) : 0;
        for (const BackendOptions& grid : grids)
            for (const int32_t bound : {0, below, std::max(want.score - 1, 0), want.score}) {
                int64_t pruned = 0;
                const AlignmentEnd got = align_with_bound(backend, grid, bound, c.s0, c.s1, c.scoring, pruned);
                ASSERT_EQ(got, want) << backend << ", " << c.what << ", bound " << bound << ", " << c.s0.length()
                                     << " x " << c.s1.length() << ", seed " << seed();
                if (bound == want.score) pruned_at_optimum += pruned;
                if (bound == 0) pruned_from_zero += pruned;
            }
    }
    std::printf("[ pruned   ] %lld cells from the optimum, %lld from zero\n", static_cast<long long>(pruned_at_optimum),
                static_cast<long long>(pruned_from_zero));
    EXPECT_GT(pruned_at_optimum, pruned_from_zero) << "a bound from the first row must prune more";
}

void expect_gain_table_exact(const std::string& backend, std::vector<PruningCase> cases,
                             const std::vector<BackendOptions>& grids, int64_t strip_rows, int64_t related,
                             std::mt19937_64& rng) {
    for (int k = 0; k < 3; ++k) {
        const auto [a, b] = gen::related_pair(related, gen::RelatedSpec{}, rng);
        cases.push_back({"related", make_sequence("s0", a), make_sequence("s1", b), Scoring(1, -3, 5, 2)});
    }
    int64_t with = 0, without = 0;
    const std::atomic<bool> cancel{false};
    for (const PruningCase& c : cases) {
        const AlignmentEnd want = reference_align(c.s0, c.s1, c.scoring);
        const auto table = GainTable::build(c.s0, c.s1, c.scoring, 2, cancel, strip_rows);
        const std::atomic<const GainView*> view{table ? &table->view() : nullptr};
        for (const BackendOptions& grid : grids)
            for (const int32_t from : {want.score, 0})
                for (const bool use : {true, false}) {
                    const std::atomic<int32_t> bound{from};
                    BackendOptions o = grid;
                    o.pruning = true;
                    o.lower_bound = &bound;
                    o.gain_table = use ? &view : nullptr;
                    auto engine = make_backend(backend, o);
                    const AlignmentEnd got = engine->align(c.s0, c.s1, c.scoring);
                    EXPECT_EQ(got, want) << backend << ", " << c.what << ", bound " << from << ", gain table "
                                         << (use && table ? "of " + std::to_string(table->k()) + "-mers" : "none")
                                         << ", " << c.s0.length() << " x " << c.s1.length() << ", "
                                         << c.scoring.to_string() << ", grid " << engine->layout() << "\n got "
                                         << got.score << " (" << got.s0_end << ", " << got.s1_end << ") want "
                                         << want.score << " (" << want.s0_end << ", " << want.s1_end << "), seed "
                                         << seed();
                    (use ? with : without) += engine->cells_pruned();
                    if (::testing::Test::HasFailure()) return;
                }
    }
    std::printf("[ pruned   ] %lld cells with gain tables, %lld without\n", static_cast<long long>(with),
                static_cast<long long>(without));
    EXPECT_GT(with, without) << "the tables never pruned more: the test proves little";
}

StopAndResume stop_then_resume(const std::string& first, BackendOptions first_options, const std::string& second,
                               BackendOptions second_options, const Sequence& s0, const Sequence& s1,
                               const Scoring& scoring, const std::string& path, int64_t stop_at) {
    StopAndResume out;
    first_options.checkpoint.path = path;
    first_options.checkpoint.every_seconds = 3600;
    first_options.checkpoint.restart = true;
    const auto run = [&](const BackendOptions& with) { return make_backend(first, with)->align(s0, s1, scoring); };
    out.stopped = stopped_at(stop_at, first_options, run);
    // Every piece of the stop checkpoint: F = -inf below row 0 only where a region was skipped.
    const std::filesystem::path file(path);
    for (const auto& entry : std::filesystem::directory_iterator(file.parent_path())) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(file.filename().string() + ".slab", 0) != 0) continue;
        const Checkpoint piece = read_checkpoint(entry.path().string());
        for (const int32_t f : piece.f) out.pruned_columns += f == kScoreNegInf;
        out.steps += static_cast<int64_t>(piece.steps.size());
        // Its columns from each step on lie at that step's row (the first ones at the piece's).
        for (size_t k = 0; k <= piece.steps.size(); ++k) {
            const int64_t from = k == 0 ? 0 : piece.steps[k - 1].col;
            const int64_t to = k < piece.steps.size() ? piece.steps[k].col : piece.n;
            out.cells_above += (k == 0 ? piece.row : piece.steps[k - 1].row) * (to - from);
        }
    }
    second_options.checkpoint.path = path;
    auto resumed = make_backend(second, second_options);
    out.result = resumed->align(s0, s1, scoring);
    out.cells_resumed = resumed->cells_resumed();
    return out;
}

}  // namespace chromalign::test
