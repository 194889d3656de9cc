//! @file A slab that starts on narrow block columns and changes to wide ones part way down
//! (slab_run.cpp's change_grid()): forced at chosen rows on the cpu engine, against the
//! reference oracle and its traceback.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/error.hpp"
#include "engine/orchestration/slab_run.hpp"
#include "engine/traceback/linear_traceback.hpp"
#include "engine/traceback/special_rows.hpp"
#include "kernels/reference/reference.hpp"
#include "kernels/reference/traceback.hpp"
#include "kernels/registry.hpp"
#include "tests/slab_support.hpp"
#include "tests/test_support.hpp"

namespace chromalign {
namespace {

const Scoring kScorings[] = {{1, -3, 5, 2}, {2, -3, 7, 2}, {1, -1, 2, 2}, {5, -4, 10, 1}};

struct Stage1 {
    AlignmentEnd best;
    int changed = 0;  ///< slabs that said they changed grids
    std::string notes;
    int64_t pruned = 0;
};

/// Options for `slabs` cpu slabs of `blocks` block columns (slab_shape's), whose pipeline
/// notes go to r (which slabs changed grids, and to what).
BackendOptions slab_options(int slabs, int blocks, Stage1& r) {
    BackendOptions o;
    o.threads = 2;
    o.alpha = 4;  // 4 rows a lane (bands of 64 rows with AVX2): enough bands in a small matrix
    o.slabs = slabs;
    o.max_blocks = blocks;
    o.on_note = [&r](const std::string& line) {
        r.changed += test::count_of(line, "changed to");
        r.notes += line + "\n";
    };
    return o;
}

/// Stage 1 on `slabs` cpu slabs (2 or more: one slab runs without slab_run), each starting on 4
/// times its `blocks` block columns and asked to change to `blocks` below row `row`.
Stage1 run(const Sequence& s0, const Sequence& s1, const Scoring& sc, int slabs, int blocks, int64_t row,
           bool pruning, const std::string& rows_dir = "") {
    Stage1 r;
    BackendOptions o = slab_options(slabs, blocks, r);
    o.pruning = pruning;
    o.narrow_test_blocks = 4 * blocks;
    o.narrow_test_row = row;
    if (!rows_dir.empty()) {
        o.special_rows.dir = rows_dir;
        o.special_rows.budget_bytes = int64_t{1} << 30;
    }
    const auto backend = make_backend("cpu", o);
    r.best = backend->align(s0, s1, sc);
    r.pruned = backend->cells_pruned();
    return r;
}

TEST(NarrowGrid, SlabsThatChangeGridsGiveTheReferencesBestCell) {
    const uint64_t seed = test::seed();
    std::mt19937_64 rng(seed);
    int changed = 0, cases = 0, at_top = 0;
    for (int k = 0; k < 24; ++k) {
        const Scoring& sc = kScorings[k % 4];
        const int64_t m = 1500 + static_cast<int64_t>(rng() % 4000), n = 600 + static_cast<int64_t>(rng() % 4000);
        auto [s0, s1] = k % 3 == 0 ? test::random_pair(m, n, rng) : test::mutated_pair(m, n, rng);
        const int slabs = 2 + static_cast<int>(rng() % 2);
        const int blocks = 1 + static_cast<int>(rng() % 3);
        // Bands left to change; or -1: before the first band (the pass ended before it began).
        const int64_t row = k % 6 == 5 ? -1 : static_cast<int64_t>(rng() % static_cast<uint64_t>(m / 2));
        const bool pruning = k % 4 != 1;
        const AlignmentEnd want = reference_align(s0, s1, sc);
        const Stage1 got = run(s0, s1, sc, slabs, blocks, row, pruning);
        const std::string what = std::to_string(m) + " x " + std::to_string(n) + ", " + std::to_string(slabs) +
                                 " slabs of " + std::to_string(blocks) + " blocks, below row " + std::to_string(row) +
                                 ", " + sc.to_string() + (pruning ? "" : ", no pruning") + ", seed " +
                                 std::to_string(seed);
        ASSERT_EQ(got.best, want) << what << "\n got " << got.best.score << " (" << got.best.s0_end << ", "
                                  << got.best.s1_end << ") want " << want.score << " (" << want.s0_end << ", "
                                  << want.s1_end << ")";
        EXPECT_GE(got.pruned, 0) << what;
        EXPECT_LT(got.pruned, m * n) << what;
        if (!pruning) {
            EXPECT_EQ(got.pruned, 0) << what << ": a grid left behind counted cells it never ran";
        }
        if (row < 0) {  // slabs whose block columns cut_slabs kept a multiple of 4
            EXPECT_EQ(got.changed, test::count_of(got.notes, "below row 0;") + test::count_of(got.notes, "below row 0\n"))
                << what << ": slabs change before their first band\n" << got.notes;
            at_top += got.changed;
        }
        changed += got.changed;
        cases += got.changed > 0;
    }
    // Slabs change where cut_slabs kept their block columns a multiple of 4 and enough bands are left.
    EXPECT_GE(cases, 6) << "too few runs changed grids to test it (" << changed << " slabs in all), seed " << seed;
    EXPECT_GE(at_top, 1) << "no slab changed before its first band, seed " << seed;
}

/// The cpu engine as the cuda one sizes grids: slabs start on `narrow` block columns while a
/// bound pass runs and change to `changed` (SlabEngine::changed_blocks), not to slab_shape()'s.
class NarrowingEngine : public SlabEngine {
public:
    NarrowingEngine(SlabEngine& cpu, int32_t narrow, int32_t changed) : cpu_(cpu), narrow_(narrow), changed_(changed) {}
    int slabs_per_process() const override { return cpu_.slabs_per_process(); }
    SlabShape slab_shape(int64_t m, int64_t width, const Scoring& scoring) override {
        return cpu_.slab_shape(m, width, scoring);
    }
    std::unique_ptr<TileExecutor> slab_executor(const Sequence& s0, const Sequence& slab, const Scoring& scoring,
                                                int64_t first_row, const TopRow& top, SlabEdges edges, int32_t blocks,
                                                const PruneRule& prune) override {
        return cpu_.slab_executor(s0, slab, scoring, first_row, top, edges, blocks, prune);
    }
    int32_t narrow_blocks(const Scoring&) override { return narrow_; }
    int32_t changed_blocks(const Scoring&) override { return changed_; }

private:
    SlabEngine& cpu_;
    int32_t narrow_, changed_;
};

TEST(NarrowGrid, SlabsChangeToTheEnginesChangedGrid) {
    // With a bound of 0 the whole matrix stays live, so slabs that start narrow change grids
    // at once: to the engine's changed_blocks (cuda: 4 shares of the resident blocks, where its
    // slab_shape has 2), having started on a multiple of it. The best cell is the reference's.
    const uint64_t seed = test::seed();
    std::mt19937_64 rng(seed + 3);
    int changed = 0;
    for (int k = 0; k < 8; ++k) {
        const Scoring& sc = kScorings[k % 4];
        const int64_t m = 3000 + static_cast<int64_t>(rng() % 3000), n = 3000 + static_cast<int64_t>(rng() % 3000);
        auto [s0, s1] = test::mutated_pair(m, n, rng);
        const int slabs = 2 + k % 2;
        const int blocks = 1 + static_cast<int>(rng() % 2);
        Stage1 r;
        BackendOptions o = slab_options(slabs, blocks, r);
        std::atomic<int32_t> bound{0};
        o.lower_bound = &bound;
        const auto cpu = make_backend("cpu", o);
        NarrowingEngine engine(*cpu->slab_engine(), 6 * blocks, 2 * blocks);
        const AlignmentEnd got = run_local_slabs(s0, s1, sc, engine, slabs, o).best;
        const AlignmentEnd want = reference_align(s0, s1, sc);
        const std::string what = std::to_string(m) + " x " + std::to_string(n) + ", " + std::to_string(slabs) +
                                 " slabs, " + sc.to_string() + ", seed " + std::to_string(seed);
        ASSERT_EQ(got, want) << what << "\n got " << got.score << " (" << got.s0_end << ", " << got.s1_end
                             << ") want " << want.score << " (" << want.s0_end << ", " << want.s1_end << ")";
        const int to_changed = test::count_of(r.notes, "changed to " + std::to_string(2 * blocks) + " block columns");
        EXPECT_EQ(to_changed, r.changed) << what << "\n" << r.notes;
        changed += to_changed;
    }
    EXPECT_GE(changed, 4) << "too few slabs changed grids to test it, seed " << seed;
}

TEST(NarrowGrid, SpecialRowsOfARunThatChangedGridsTraceTheReferencesAlignment) {
    // Special rows are kept by both grids: the traceback walks across the row the slabs
    // changed at, and must give the reference's alignment exactly.
    const uint64_t seed = test::seed();
    std::mt19937_64 rng(seed + 1);
    int changed = 0;
    for (int k = 0; k < 12; ++k) {
        const Scoring& sc = kScorings[k % 4];
        const int64_t m = 3000 + static_cast<int64_t>(rng() % 3000), n = 2000 + static_cast<int64_t>(rng() % 3000);
        auto [s0, s1] = test::mutated_pair(m, n, rng);
        const Alignment want = reference_traceback(s0, s1, sc);
        test::TempDir dir;
        const int slabs = 2 + k % 2;
        const Stage1 got = run(s0, s1, sc, slabs, 2, m / 4 + static_cast<int64_t>(rng() % (m / 2)), true, dir.path());
        const std::string what = std::to_string(m) + " x " + std::to_string(n) + ", " + std::to_string(slabs) +
                                 " slabs, " + sc.to_string() + ", seed " + std::to_string(seed);
        ASSERT_EQ(got.best, (AlignmentEnd{want.score, want.s0_end, want.s1_end})) << what;
        SpecialRows rows(dir.path(), rows_identity(s0, s1), sc);
        const Alignment traced = linear_traceback(s0, s1, sc, got.best, rows);
        EXPECT_EQ(traced.s0_start, want.s0_start) << what;
        EXPECT_EQ(traced.s1_start, want.s1_start) << what;
        EXPECT_EQ(traced.cigar(), want.cigar()) << what;
        changed += got.changed;
    }
    EXPECT_GE(changed, 4) << "too few slabs changed grids to test it, seed " << seed;
}

/// The checkpoint tests' slabs: 3 block columns on one thread each, starting on 12 and
/// changing below row 6000.
BackendOptions checkpointed() {
    BackendOptions o;
    o.threads = 1;
    o.alpha = 4;
    o.max_blocks = 3;
    o.narrow_test_blocks = 12;
    o.narrow_test_row = 6000;
    return o;
}

TEST(NarrowGrid, StopsOnEitherGridResumeExactly) {
    // With checkpoints, a stop leaves each slab's piece on the grid it had then: the narrow one,
    // or the wide one below the row it changed at. 3 slabs resume from their own pieces (a
    // slab on the wide grid stays there, one on the narrow grid may still change), 2, 4 and one
    // process from the levelled row. The slabs change a quarter of the way down: a stop at
    // under 30% of the wide grid's diagonals, counted from the narrow grid's first, comes
    // before, one at over 45% on the wide grid.
    const uint64_t seed = test::seed();
    std::mt19937_64 rng(seed + 3);
    auto [s0, s1] = test::mutated_pair(24000, 9000, rng, 0.02);
    const Scoring& sc = kScorings[rng() % 4];
    const BackendOptions o = checkpointed();
    const std::vector<int64_t> stops = test::expect_staircases_resume_exactly(
        "cpu", s0, s1, sc, o, reference_align(s0, s1, sc), rng(), {0.05, 0.5, 0.12, 0.62, 0.2, 0.75, 0.28, 0.9});
    const auto below = std::count_if(stops.begin(), stops.end(), [](int64_t row) { return row > 6000; });
    EXPECT_EQ(below, 4) << "stops after the change, seed " << seed;
}

TEST(NarrowGrid, RowStopsOnEitherGridResumeExactly) {
    // The same with checkpoints of rows, as cuda takes them (CudaSlab's twin: 24 block columns
    // changing to 6 below row 20000): standing rows (standing_rows.hpp), which a grid change
    // keeps. A stop takes the latest row complete, so a left slab may stop above the band its
    // right neighbour waits for: that one must not wait for the edge (it hung 1 run in 3).
    const uint64_t seed = test::seed();
    std::mt19937_64 rng(seed + 6);
    auto [s0, s1] = test::mutated_pair(60000, 30000, rng, 0.02);
    const Scoring& sc = kScorings[rng() % 4];
    BackendOptions o = checkpointed();
    o.max_blocks = 6;
    o.narrow_test_blocks = 24;
    o.narrow_test_row = 20000;
    o.test_row_checkpoints = true;
    const std::vector<int64_t> stops = test::expect_staircases_resume_exactly(
        "cpu", s0, s1, sc, o, reference_align(s0, s1, sc), rng(), {0.05, 0.62, 0.15, 0.52, 0.25, 0.8, 0.4, 0.9});
    const auto below = std::count_if(stops.begin(), stops.end(), [](int64_t row) { return row > 20000; });
    EXPECT_GE(below, 3) << "stops after the change, seed " << seed;
}

TEST(NarrowGrid, APieceOfSlabsCutForANarrowStartIsRefusedSayingWhy) {
    // Slabs that start narrow are cut for the narrow count: a resume whose slabs start wide
    // (no bound pass, say) cuts them otherwise, and must refuse the pieces, saying why.
    const uint64_t seed = test::seed();
    std::mt19937_64 rng(seed + 4);
    auto [s0, s1] = test::mutated_pair(12000, 9000, rng, 0.02);
    test::TempDir dir;
    BackendOptions o = checkpointed();
    o.checkpoint.path = dir.file("cut.ckpt");
    o.checkpoint.every_seconds = 1e9;
    const auto run = [&](const BackendOptions& with) { return test::slab_align("cpu", s0, s1, kScorings[0], 3, with); };
    ASSERT_TRUE(test::stopped_at(20, o, run)) << "seed " << seed;
    BackendOptions wide = o;
    wide.narrow_test_blocks = 0;
    try {
        run(wide);
        FAIL() << "pieces of another cut were resumed, seed " << seed;
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("its slab holds"), std::string::npos) << e.what();
    }
    EXPECT_EQ(run(o), reference_align(s0, s1, kScorings[0])) << "the pieces resume with the options that took them";
}

TEST(NarrowGrid, RowCheckpointsOfAStopDuringTheChangeNeedNoEdgeNeverSent) {
    // A slab that leaves a grid runs its last block up to its block 0, and then takes a while
    // to start the new one (a GPU allocates it): its right neighbour catches up and waits for
    // the edge of the new grid's first band. A stop asked for then must not wait for it (it
    // takes a standing row). Checkpoints of rows, as cuda takes them; stops at
    // rank 0's diagonals through the old grid's last B + 1, each resumed to the reference.
    const uint64_t seed = test::seed();
    std::mt19937_64 rng(seed + 5);
    const Scoring& sc = kScorings[0];
    auto [s0, s1] = test::mutated_pair(24000, 9000, rng, 0.02);
    test::TempDir dir;
    BackendOptions o = checkpointed();
    o.test_row_checkpoints = true;
    o.narrow_test_pause_ms = 200;
    o.checkpoint.path = dir.file("rows.ckpt");
    o.checkpoint.every_seconds = 1e9;
    const int64_t rows = make_backend("cpu", o)->slab_engine()->slab_shape(24000, 3000, sc).rows_per_band;
    const int64_t last_band = o.narrow_test_row / rows;  // the first whose bottom is past the row
    const AlignmentEnd want = reference_align(s0, s1, sc);
    for (const int ranks : {2, 3}) {
        const auto run = [&](const BackendOptions& with) { return test::slab_align("cpu", s0, s1, sc, ranks, with); };
        for (int64_t at = last_band + 2; at <= last_band + o.narrow_test_blocks; at += 5) {
            BackendOptions stopping = o;
            stopping.checkpoint.restart = true;
            ASSERT_TRUE(test::stopped_at(at, stopping, run)) << ranks << " slabs, diagonal " << at << ", seed " << seed;
            const std::vector<int64_t> at_rows = test::piece_rows(o.checkpoint.path, ranks);
            // At the new grid's first band, slab 0 takes the latest row it had complete (a
            // standing row, engine/checkpoint/standing_rows.hpp): the old grid's.
            EXPECT_LE(at_rows[0], o.narrow_test_row / rows * rows + rows) << "slab 0's piece, diagonal " << at;
            EXPECT_EQ(run(o), want) << ranks << " slabs, stopped at diagonal " << at << ", seed " << seed;
        }
    }
}

TEST(NarrowGrid, TheCornerLeftOfTheNewGridCarriesThePath) {
    // The alignment crosses slab 1's left edge exactly at the row its slab changes grids at: its
    // cell (row, c0 - 1) is the corner of the new grid's top row, and the next diagonal step is
    // the new grid's first cell. A corner left at 0 cuts the alignment in two there.
    const uint64_t seed = test::seed();
    std::mt19937_64 rng(seed + 2);
    const Scoring& sc = kScorings[0];
    const int64_t m = 4000, n = 3000;  // slabs of 8 block columns at first, at least 64 wide
    BackendOptions probe;
    probe.threads = 2;
    probe.alpha = 4;
    probe.max_blocks = 2;
    SlabShape shape = make_backend("cpu", probe)->slab_engine()->slab_shape(m, n / 2 + 200, sc);
    ASSERT_EQ(shape.blocks, 2);
    shape.blocks = 8;  // the grid the slabs start on
    const int64_t c0 = cut_slabs(n, {shape, shape})[1].c0, row = 5 * shape.rows_per_band;
    const int64_t shift = c0 - 1 - row;  // the path runs through (i, i + shift), and (row, c0 - 1)
    ASSERT_GT(shift, 0);
    const Sequence s0 = test::random_pair(m, 1, rng).first;
    Sequence s1 = test::random_pair(shift, 1, rng).first;
    s1.codes.insert(s1.codes.end(), s0.codes.begin(), s0.codes.begin() + (n - shift));
    const AlignmentEnd want = reference_align(s0, s1, sc);
    ASSERT_GT(want.score, row) << "the alignment must cross row " << row << ", seed " << seed;
    const Stage1 got = run(s0, s1, sc, 2, 2, row - 1, true);
    const std::string said = "slab 1: first edge";  // then its figures, and where it changed
    const std::string where = "changed to 2 block columns below row " + std::to_string(row);
    EXPECT_NE(got.notes.find(where, got.notes.find(said)), std::string::npos) << got.notes << "seed " << seed;
    EXPECT_EQ(got.best, want) << "got " << got.best.score << " want " << want.score << ", seed " << seed;
}

}  // namespace
}  // namespace chromalign
