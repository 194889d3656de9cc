//! @file slab_align: every rank a thread with a backend of its own, over LocalLinks.
#include "tests/slab_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <random>

#include "engine/checkpoint/checkpoint_file.hpp"
#include "engine/checkpoint/pieces.hpp"
#include "engine/error.hpp"
#include "engine/tiling/tile_executor.hpp"

#include "kernels/registry.hpp"
#include "engine/transport/local_link.hpp"
#include "kernels/reference/reference.hpp"
#include "engine/orchestration/slab_run.hpp"
#include "tests/test_support.hpp"

namespace chromalign::test {

AlignmentEnd slab_align(const std::string& backend, const Sequence& s0, const Sequence& s1, const Scoring& scoring,
                        int ranks, const BackendOptions& options) {
    std::vector<AlignmentEnd> results(static_cast<size_t>(ranks));
    SlabGroup group(ranks);
    LocalLinkHub hub(group);
    const auto note = one_note_at_a_time(options.on_note);
    run_in_group(group, [&](int rank) {
        BackendOptions mine = options;
        mine.on_note = note;
        mine.device = rank % std::max(1, backend_devices("cuda"));
        mine.slabs = 1;  // one slab per backend: the ranks stand for processes
        auto engine = make_backend(backend, mine);
        LocalLink link(hub, rank);
        results[static_cast<size_t>(rank)] = run_slab(s0, s1, scoring, *engine->slab_engine(), link, mine).best;
    });
    for (const AlignmentEnd& r : results) EXPECT_EQ(r, results[0]) << "ranks disagree";
    return results[0];
}

void expect_slab_matches_reference(const std::string& backend, const Sequence& s0, const Sequence& s1,
                                   const Scoring& scoring, int ranks, const BackendOptions& o,
                                   const std::string& what) {
    const AlignmentEnd want = reference_align(s0, s1, scoring);
    const AlignmentEnd got = slab_align(backend, s0, s1, scoring, ranks, o);
    ASSERT_EQ(got, want) << what << ": " << backend << ", " << ranks << " ranks, m=" << s0.length()
                         << " n=" << s1.length() << " " << scoring.to_string() << " alpha=" << o.alpha
                         << " max_blocks=" << o.max_blocks << "\n got " << got.score << " (" << got.s0_end << ", "
                         << got.s1_end << ") want " << want.score << " (" << want.s0_end << ", " << want.s1_end
                         << ")\n s0 " << preview(s0) << "\n s1 " << preview(s1) << "\n seed " << seed();
}

std::vector<int64_t> piece_rows(const std::string& path, int ranks) {
    std::vector<int64_t> rows;
    for (int k = 0; k < ranks; ++k) {
        Checkpoint latest;
        for (int slot = 0; slot < 2; ++slot) {
            const std::string name = piece_name(path, k, ranks, slot);
            if (!file_exists(name)) continue;
            Checkpoint c = read_checkpoint(name);
            if (c.seq > latest.seq) latest = std::move(c);
        }
        rows.push_back(latest.row);
    }
    return rows;
}

void expect_pieces_exact(const Sequence& s0, const Sequence& s1, const Scoring& sc, const std::string& path, int ranks,
                         bool pruned) {
    // Each piece read as the file says: its columns from each step on (the first from 0) at
    // that step's row, and the column left of them from that row down to the step before's.
    struct Part {
        int slab = 0;
        int64_t col0 = 0, n = 0, row = 0;
        const int32_t *h = nullptr, *f = nullptr;
        int32_t corner = 0;
        const std::vector<int32_t>*left_h = nullptr, *left_e = nullptr;
    };
    std::vector<Checkpoint> pieces;
    std::vector<Part> parts;
    int64_t c = 0;
    for (int k = 0; k < ranks; ++k) {
        Checkpoint latest;
        for (int slot = 0; slot < 2; ++slot) {
            if (!file_exists(piece_name(path, k, ranks, slot))) continue;
            Checkpoint p = read_checkpoint(piece_name(path, k, ranks, slot));
            if (p.seq > latest.seq) latest = std::move(p);
        }
        pieces.push_back(std::move(latest));
    }
    for (int k = 0; k < ranks; ++k) {
        const Checkpoint& p = pieces[static_cast<size_t>(k)];
        parts.push_back(Part{k, c, p.steps.empty() ? p.n : p.steps[0].col, p.row, p.h.data(), p.f.data(),
                             p.left_corner, &p.left_h, &p.left_e});
        for (size_t s = 0; s < p.steps.size(); ++s) {
            const StairStep& step = p.steps[s];
            const int64_t to = s + 1 < p.steps.size() ? p.steps[s + 1].col : p.n;
            EXPECT_EQ(static_cast<int64_t>(step.h.size()), (s == 0 ? p.row : p.steps[s - 1].row) - step.row);
            parts.push_back(Part{k, c + step.col, to - step.col, step.row, p.h.data() + step.col,
                                 p.f.data() + step.col, step.corner, &step.h, &step.e});
        }
        c += p.n;
    }
    const int64_t m = s0.length(), n = s1.length();
    constexpr int64_t kNeg = int64_t{1} << 40;
    std::vector<int64_t> h(n + 1, 0), f(n + 1, -kNeg), e_row(n + 1, -kNeg);
    int mismatches = 0;
    const auto check = [&](bool ok, const std::string& what) {
        if (!ok && ++mismatches <= 5) ADD_FAILURE() << what;
    };
    for (int64_t i = 0; i <= m; ++i) {
        if (i > 0) {
            int64_t diag = 0, left_h = 0, e = -kNeg;  // H(i-1, j-1), H(i, j-1), E(i, j)
            for (int64_t j = 1; j <= n; ++j) {
                e = std::max(e - sc.gap_extend, left_h - sc.gap_open);
                f[j] = std::max(f[j] - sc.gap_extend, h[j] - sc.gap_open);
                const int64_t up = h[j];
                h[j] = std::max({int64_t{0}, e, f[j], diag + sc.score(s0.codes[i - 1], s1.codes[j - 1])});
                e_row[j] = e;
                diag = up;
                left_h = h[j];
            }
        }
        for (const Part& p : parts) {
            const int64_t col = p.col0;  // the left edge column, 1-based: col0
            const std::string where = "slab " + std::to_string(p.slab) + " part at column " + std::to_string(col + 1);
            if (i == p.row) {
                for (int64_t j = 0; j < p.n; ++j) {
                    if (i == 0) continue;
                    const int64_t want_h = h[col + 1 + j], want_f = f[col + 1 + j];
                    check(pruned ? p.h[j] <= want_h && p.f[j] <= want_f : p.h[j] == want_h && p.f[j] == want_f,
                          where + ": row " + std::to_string(i) + " column " + std::to_string(col + 1 + j));
                }
                if (col > 0)
                    check(pruned ? p.corner <= h[col] : p.corner == h[col], where + ": corner at row " + std::to_string(i));
            }
            const int64_t r = i - p.row - 1;
            if (col > 0 && r >= 0 && r < static_cast<int64_t>(p.left_h->size()))
                check(pruned ? (*p.left_h)[r] <= h[col] && (*p.left_e)[r] <= e_row[col]
                             : (*p.left_h)[r] == h[col] && (*p.left_e)[r] == e_row[col],
                      where + ": left edge row " + std::to_string(i));
        }
    }
    EXPECT_EQ(mismatches, 0);
    std::printf("[ pieces   ] %zu parts (slabs and their steps) checked cell by cell\n", parts.size());
}

AlignmentEnd counting_diagonals(BackendOptions options, const std::function<AlignmentEnd(const BackendOptions&)>& run,
                                int64_t& diagonals) {
    std::atomic<int64_t> count{0};
    options.on_diagonal = [&count](int rank, int64_t d) {
        if (rank == 0) count.store(d + 1, std::memory_order_relaxed);
    };
    const AlignmentEnd got = run(options);
    diagonals = count.load();
    return got;
}

namespace {

/// Runs `run` with `options`, whose stop flag `hook` raises; true when the run stopped.
bool stopped_when(BackendOptions options, const std::function<AlignmentEnd(const BackendOptions&)>& run,
                  const std::function<bool(int rank, int64_t d)>& hook) {
    static volatile std::sig_atomic_t stop = 0;
    stop = 0;
    options.checkpoint.stop = &stop;
    options.on_diagonal = [&hook](int rank, int64_t d) {
        if (hook(rank, d)) stop = SIGTERM;
    };
    try {
        run(options);
    } catch (const Interrupted&) {
        return true;
    }
    return false;
}

}  // namespace

bool stopped_at(int64_t at, BackendOptions options, const std::function<AlignmentEnd(const BackendOptions&)>& run) {
    return stopped_when(std::move(options), run, [at](int rank, int64_t d) { return rank == 0 && d == at; });
}

bool stopped_after(int64_t count, BackendOptions options, const std::function<AlignmentEnd(const BackendOptions&)>& run) {
    int64_t seen = 0;
    return stopped_when(std::move(options), run, [&seen, count](int rank, int64_t) { return rank == 0 && ++seen == count; });
}

std::vector<int64_t> expect_staircases_resume_exactly(const std::string& backend, const Sequence& s0,
                                                      const Sequence& s1, const Scoring& scoring,
                                                      const BackendOptions& options, const AlignmentEnd& want,
                                                      uint64_t seed, const std::vector<double>& fractions) {
    std::mt19937_64 rng(seed);
    TempDir dir;
    BackendOptions o = options;
    o.checkpoint.path = dir.file("stair.ckpt");
    o.checkpoint.every_seconds = 1e9;
    const auto run = [&](const BackendOptions& with) { return slab_align(backend, s0, s1, scoring, 3, with); };
    int64_t diagonals = 0;
    EXPECT_EQ(counting_diagonals(o, run, diagonals), want);
    int staircases = 0;
    std::vector<int64_t> stops;
    bool checked[2] = {false, false};  // a staircase without pruning, and one with
    for (int trial = 0; trial < 8; ++trial) {
        BackendOptions stopping = o;
        stopping.pruning = trial % 2 == 1;
        const int64_t at =
            fractions.empty() ? static_cast<int64_t>(rng() % static_cast<uint64_t>(std::max<int64_t>(1, diagonals * 3 / 4)))
                              : static_cast<int64_t>(fractions.at(static_cast<size_t>(trial)) * static_cast<double>(diagonals));
        const bool stopped = stopped_at(at, stopping, run);
        EXPECT_TRUE(stopped) << "a stop at diagonal " << at << " of " << diagonals << " was not taken";
        if (!stopped) continue;
        const std::vector<int64_t> rows = piece_rows(o.checkpoint.path, 3);
        const bool stair = rows[0] != rows[1] || rows[1] != rows[2];
        if (stair && !checked[trial % 2]) {
            checked[trial % 2] = true;
            expect_pieces_exact(s0, s1, scoring, o.checkpoint.path, 3, stopping.pruning);
        }
        staircases += stair;
        stops.push_back(*std::max_element(rows.begin(), rows.end()));
        const int again[] = {3, 2, 4, 1};
        const int ranks = again[trial % 4];
        std::printf("[ stop     ] diagonal %lld: rows %lld %lld %lld; resumed with %d slab(s)\n",
                    static_cast<long long>(at),
                    static_cast<long long>(rows[0]), static_cast<long long>(rows[1]), static_cast<long long>(rows[2]),
                    ranks);
        std::fflush(stdout);  // a hang in the resume below still shows which stop it was
        std::vector<std::string> notes;
        BackendOptions resumed = o;
        resumed.on_note = [&](const std::string& text) { notes.push_back(text); };
        const AlignmentEnd got =
            ranks == 1 ? make_backend(backend, resumed)->align(s0, s1, scoring)
                       : slab_align(backend, s0, s1, scoring, ranks, resumed);
        EXPECT_EQ(got, want) << "stopped at rows " << rows[0] << " " << rows[1] << " " << rows[2] << ", resumed with "
                             << ranks << ", seed " << seed;
        EXPECT_FALSE(notes.empty());
        if (!notes.empty()) {
            EXPECT_NE(notes[0].find(ranks == 3 ? "resuming from" : "resuming from the pieces of 3 slabs"), std::string::npos)
                << notes[0];
        }
    }
    EXPECT_GE(staircases, 2) << "stops left pieces at one row only: the staircase went untested";
    return stops;
}

}  // namespace chromalign::test
