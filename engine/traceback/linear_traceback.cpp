//! @file The certified walk and the recursion over windows.
#include "engine/traceback/linear_traceback.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>

#include "engine/error.hpp"
#include "engine/orchestration/test_pace.hpp"
#include "engine/traceback/lookahead.hpp"

namespace chromalign {
namespace {

enum class State : uint8_t { kH, kE, kF };

/// Where the walk stands: cell (i, j) in `state`, whose true value is v.
struct WalkPoint {
    int64_t i = 0, j = 0;
    State state = State::kH;
    int64_t v = 0;
};

enum class Outcome {
    kStart,  ///< the alignment starts at the point (its first cell)
    kTop,    ///< the walk reached the top row of the rows it was given
    kWiden,  ///< a step could not be certified, or left the columns held: the walk stopped there
};

/// Runs of an alignment, last run first.
struct ReversedRuns {
    std::vector<AlignmentRun> runs;
    int64_t steps = 0;  ///< the columns of all runs
    void add(char op) {
        ++steps;
        if (!runs.empty() && runs.back().op == op)
            ++runs.back().length;
        else
            runs.push_back({op, 1});
    }
    void add(const AlignmentRun& r) {
        steps += r.length;
        if (!runs.empty() && runs.back().op == r.op)
            runs.back().length += r.length;
        else
            runs.push_back(r);
    }
    void append(const ReversedRuns& more) {
        for (const AlignmentRun& r : more.runs) add(r);
    }
    /// The runs of `more` after its first `skip` steps.
    void append_after(const std::vector<AlignmentRun>& more, int64_t skip) {
        for (AlignmentRun r : more) {
            const int64_t dropped = std::min(skip, r.length);
            skip -= dropped;
            r.length -= dropped;
            if (r.length > 0) add(r);
        }
    }
};

char state_char(State s) { return s == State::kH ? 'H' : s == State::kE ? 'E' : 'F'; }

TracebackPoint point_of(const WalkPoint& p, const ReversedRuns& runs) {
    return TracebackPoint{p.i, p.j, state_char(p.state), p.v, runs.runs};
}

/// Whether a saved walk (a journal's, which only a CRC guards) is one this traceback could
/// have made from `end`: its point in the rectangle, in a state, with a value of an optimal
/// alignment's prefix (0 <= v <= score: a lower one would make a later start better), and
/// its runs A/C/G/T pairs and gaps that lead from the point to the end cell exactly.
bool walk_fits(const TracebackPoint& p, const AlignmentEnd& end) {
    if (p.i < 1 || p.i > end.s0_end || p.j < 1 || p.j > end.s1_end || (p.state != 'H' && p.state != 'E' && p.state != 'F') ||
        p.v < 0 || p.v > end.score)
        return false;
    int64_t s0 = 0, s1 = 0;
    for (const AlignmentRun& r : p.runs_back) {
        if (r.length < 1 || r.length > end.s0_end + end.s1_end) return false;
        if (r.op == '=' || r.op == 'X' || r.op == 'I') s0 += r.length;
        if (r.op == '=' || r.op == 'X' || r.op == 'D') s1 += r.length;
        if (r.op != '=' && r.op != 'X' && r.op != 'I' && r.op != 'D') return false;
    }
    return s0 == end.s0_end - p.i && s1 == end.s1_end - p.j;
}

WalkPoint walk_point(const TracebackPoint& p) {
    return WalkPoint{p.i, p.j, p.state == 'H' ? State::kH : p.state == 'E' ? State::kE : State::kF, p.v};
}

/// What a widened window's bound keeps below the value the walk needs (Walker::walk_rows):
/// its later steps need less where they mismatch or open a gap.
constexpr int64_t kBoundMargin = 64;

/// Thrown by a walk whose stop was asked, at any depth of its windows; the outermost walk's
/// point, which only moves once a window is walked through, is where it stands.
struct StopAsked {};

class Walker {
public:
    /// `cancel` (if any): once set, the walk stops where it is, as if its window were too narrow.
    /// `stop` (if any): once set, the walk throws StopAsked before its next window.
    Walker(const Sequence& s0, const Sequence& s1, const Scoring& sc, const TracebackLimits& limits,
           WindowSweeper& sweeper, TracebackCounts& counts, const std::atomic<bool>* cancel = nullptr,
           const volatile std::sig_atomic_t* stop = nullptr)
        : s0_(s0), s1_(s1), t_(sc), limits_(limits), sweeper_(sweeper), counts_(counts), cancel_(cancel), stop_(stop) {}

    /// Children of about step x step cells are held whole; the rows kept fit their budget.
    SweepSteps steps(const WindowSpec& w) const {
        SweepSteps steps;
        steps.wanted = static_cast<int64_t>(std::sqrt(static_cast<double>(limits_.window_cells) / 2));
        steps.at_least = (w.rows() * (w.width() + 1) * 8 + limits_.kept_row_bytes - 1) / limits_.kept_row_bytes;
        return steps;
    }

    /// Walks back over the rows of `src` until the start, or the top row of `src`; with
    /// `ahead`, takes the windows it swept ahead where they hold the walk's (lookahead.hpp).
    /// Every step taken is certified, so a window the walk leaves keeps the steps it gave: the
    /// walk goes on from where it stopped, in a window twice as wide, or reaching left to where
    /// the path likely crosses the row above (CrossingBias: what a long gap needs, as its window
    /// must hold where it opens, or no step below it can be certified, and doubling would take
    /// many tries at every level of windows). `guided`: the first window of each row reaches
    /// that way too, within kGuessReach spans, as the lookahead's do (lookahead.hpp).
    /// `trail`: records where the walk stands between windows (WalkAhead::trail). `join`: a
    /// walk taken ahead through `src`, whose steps the walk takes as they are once it stands
    /// where that walk stood.
    Outcome walk_rows(RowSource& src, WalkPoint& p, ReversedRuns& out, Lookahead* ahead = nullptr,
                      TracebackJournal* journal = nullptr, bool guided = false,
                      std::vector<TrailPoint>* trail = nullptr, const WalkAhead* join = nullptr) {
        int64_t width = 0;  // of the window the walk just left by its side (0: none)
        size_t met = 0;     // join's trail points above the walk start here
        for (;;) {
            if (journal && journal->due()) journal->save(point_of(p, out));
            if (trail) trail->push_back({p.i, p.j, state_char(p.state), out.steps});
            if (join) {
                const std::vector<TrailPoint>& t = join->trail;
                while (met < t.size() && t[met].i > p.i) ++met;
                for (size_t k = met; k < t.size() && t[k].i == p.i; ++k) {
                    if (t[k].j != p.j || t[k].state != state_char(p.state)) continue;
                    // The same cell and state: the same true value, and the same walk from here.
                    ++counts_.joined;
                    out.append_after(join->exit.runs_back, t[k].steps);
                    p = walk_point(join->exit);
                    return join->start ? Outcome::kStart : Outcome::kTop;
                }
            }
            if (cancel_ && *cancel_) return Outcome::kWiden;
            test_pace();
            if (stop_ && *stop_ != 0) throw StopAsked{};
            if (p.i == src.top()) return Outcome::kTop;
            if (p.j < src.lo()) return Outcome::kWiden;
            const int64_t r = src.row_above(p.i), height = p.i - r;
            int64_t lo = std::max(src.lo(), p.j - std::max(window_span(height), 2 * width + 64));
            if ((guided || width > 0) && lo > src.lo()) {
                const int64_t from = width > 0 ? src.lo() : std::max(src.lo(), p.j - kGuessReach * window_span(height));
                const int64_t cross = src.crossing_column(r, from, CrossingBias{t_.ext, height, p.j});
                lo = std::max(src.lo(), std::min(lo, cross - (window_span(height) - height)));
            }
            if (width > 0 && lo > src.lo()) {
                // The window just left may have been too narrow for its bound rather than for
                // the path: a column left of it where H + e c is high (a rearrangement aligned
                // elsewhere) bounds the walk's cell above what it needs. Such columns must lie
                // inside, or doubling takes try after try: reach the leftmost whose edge value
                // keeps U(i - 1, j - 1) at or above p.v - M (window.hpp), with kBoundMargin to spare.
                const int64_t least = p.v - t_.best - (t_.best + t_.gap) * (p.i - 1 - r) + t_.gap * (p.j - 1) -
                                      kBoundMargin;
                lo = std::max(src.lo(), std::min(lo, src.edge_reach(r, lo - 1, least, t_.gap)));
            }
            WalkPoint q = p;
            ReversedRuns runs;
            Outcome o;
            int64_t walked = 0;  // the width of the window walked
            Lookahead::Window swept;
            if (ahead) swept = ahead->take(p.i, p.j, lo);
            const bool served = swept.rows != nullptr;
            if (served) {
                counts_.cells += swept.w.rows() * swept.w.width();
                counts_.swept_cells += swept.w.rows() * swept.w.width();
                ++counts_.ahead;
                const WalkAhead& taken = swept.walk;
                if (taken.taken && taken.entry.i == p.i && taken.entry.j == p.j && p.state == State::kH &&
                    taken.entry.v == p.v) {
                    ++counts_.walked_ahead;
                    counts_.add(taken.counts);
                    runs.append_after(taken.exit.runs_back, 0);
                    q = walk_point(taken.exit);
                    o = taken.start ? Outcome::kStart : Outcome::kTop;
                } else {
                    // Entered elsewhere: the walk joins the one taken ahead where they meet,
                    // most often within a few of its windows.
                    o = walk_rows(*swept.rows, q, runs, nullptr, nullptr, false, nullptr,
                                  taken.taken ? &taken : nullptr);
                }
                walked = p.j - swept.w.lo;
                ahead->retire(std::move(swept.rows));
            } else {
                o = solve(cut_window(src, t_, r, p.i, lo, p.j), src.read(r, lo, p.j), q, runs);
                walked = p.j - lo;
            }
            out.append(runs);
            p = q;
            if (o == Outcome::kStart) return o;
            if (o == Outcome::kTop) {
                width = 0;
                continue;
            }
            if (lo == src.lo() && !served) return Outcome::kWiden;
            ++counts_.widened;
            width = walked;
        }
    }

private:
    /// The walk from p (a cell of window w's rows below its top) until it leaves w's rows.
    Outcome solve(const WindowSpec& w, WindowRow top, WalkPoint& p, ReversedRuns& out) {
        const int64_t cols = w.width() + 1;
        counts_.cells += w.rows() * w.width();
        if (w.rows() <= 1 || w.rows() * cols <= limits_.window_cells) {
            ++counts_.windows;
            window_cells(s0_, s1_, t_, w, top, cells_);
            return walk_cells(w, cells_, p, out);
        }
        const auto start = std::chrono::steady_clock::now();
        const std::unique_ptr<RowSource> kept = sweeper_.sweep(w, std::move(top), steps(w));
        counts_.sweep_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        counts_.swept_cells += w.rows() * w.width();
        return walk_rows(*kept, p, out);
    }

    /// 1: the true value is `need` (the window's value is); 0: it is not (the window misses it,
    /// and so does every path the window leaves out); -1: the window cannot tell.
    int certain(const WindowSpec& w, int64_t i, int64_t j, int32_t value, int64_t need) const {
        if (value == need) return 1;
        if (i == w.top && w.top_exact) return 0;
        return t_.bound(w.k, i, j) < need ? 0 : -1;
    }

    /// The reference's walk (kernels/reference/traceback.hpp) over a window held whole.
    Outcome walk_cells(const WindowSpec& w, const WindowCells& c, WalkPoint& p, ReversedRuns& out) const {
        const auto at = [&](int64_t i, int64_t j) { return c.at(i - w.top, j - w.lo + 1); };
        for (;;) {
            if (p.i == w.top) return Outcome::kTop;
            if (p.j < w.lo) return Outcome::kWiden;
            const size_t here = at(p.i, p.j);
            if (p.state == State::kH) {
                const uint8_t x = s0_.codes[static_cast<size_t>(p.i - 1)], y = s1_.codes[static_cast<size_t>(p.j - 1)];
                const int64_t need = p.v - t_.table[std::min<uint8_t>(x, 4)][std::min<uint8_t>(y, 4)];
                const int diag = certain(w, p.i - 1, p.j - 1, c.h[at(p.i - 1, p.j - 1)], need);
                if (diag < 0) return Outcome::kWiden;
                if (diag == 1) {
                    out.add(x < kBaseOther && x == y ? '=' : 'X');
                    if (need == 0) return Outcome::kStart;  // H(i-1, j-1) = 0: the shortest start
                    --p.i;
                    --p.j;
                    p.v = need;
                    continue;
                }
                const int from_f = certain(w, p.i, p.j, c.f[here], p.v);
                if (from_f < 0) return Outcome::kWiden;
                if (from_f == 1) {
                    p.state = State::kF;
                    continue;
                }
                const int from_e = certain(w, p.i, p.j, c.e[here], p.v);
                if (from_e < 0) return Outcome::kWiden;
                if (from_e == 0)
                    throw Error("traceback: no move into cell " + std::to_string(p.i) + ", " + std::to_string(p.j) +
                                " with score " + std::to_string(p.v) +
                                ": the end cell and score traced from, or the rows, are not this comparison's");
                p.state = State::kE;
            } else if (p.state == State::kF) {
                const int opens = certain(w, p.i - 1, p.j, c.h[at(p.i - 1, p.j)], p.v + t_.open);
                if (opens < 0) return Outcome::kWiden;
                out.add('I');
                p.v += opens == 1 ? t_.open : t_.ext;
                p.state = opens == 1 ? State::kH : State::kF;
                --p.i;
            } else {
                const int opens = certain(w, p.i, p.j - 1, c.h[at(p.i, p.j - 1)], p.v + t_.open);
                if (opens < 0) return Outcome::kWiden;
                out.add('D');
                p.v += opens == 1 ? t_.open : t_.ext;
                p.state = opens == 1 ? State::kH : State::kE;
                --p.j;
            }
        }
    }

    const Sequence& s0_;
    const Sequence& s1_;
    const TracebackTerms t_;
    const TracebackLimits limits_;
    WindowSweeper& sweeper_;
    TracebackCounts& counts_;
    WindowCells cells_;  ///< the window held whole, reused
    const std::atomic<bool>* const cancel_;
    const volatile std::sig_atomic_t* const stop_;
};

/// The walk from `entry` through the rows of a window swept ahead, until it leaves them, by
/// a Walker of its own: it runs in the thread that swept the window (lookahead.hpp). A
/// window too narrow for it leaves it untaken (the walk widens its own), and so does a drop:
/// a guessed entry off the path may lead the walk into long detours nobody waits for.
WalkAhead walk_ahead(const Sequence& s0, const Sequence& s1, const Scoring& scoring, const TracebackLimits& limits,
                     WindowSweeper& sweeper, RowSource& src, const TracebackPoint& entry,
                     const std::atomic<bool>& dropped) {
    WalkAhead a;
    a.entry = entry;
    Walker walker(s0, s1, scoring, limits, sweeper, a.counts, &dropped);
    WalkPoint p = walk_point(entry);
    ReversedRuns runs;
    const Outcome o = walker.walk_rows(src, p, runs, nullptr, nullptr, false, &a.trail);
    if (o == Outcome::kWiden) return a;
    a.taken = true;
    a.start = o == Outcome::kStart;
    a.exit = point_of(p, runs);
    return a;
}

}  // namespace

Alignment linear_traceback(const Sequence& s0, const Sequence& s1, const Scoring& scoring, const AlignmentEnd& end,
                           RowSource& rows, const TracebackLimits& limits, TracebackCounts* counts,
                           WindowSweeper* sweeper, TracebackJournal* journal, const volatile std::sig_atomic_t* stop) {
    Alignment a;
    if (end.score <= 0) return a;
    if (end.s0_end < 1 || end.s0_end > s0.length() || end.s1_end < 1 || end.s1_end > s1.length())
        throw Error("traceback: end cell " + std::to_string(end.s0_end) + ", " + std::to_string(end.s1_end) +
                    " is outside the matrix");
    TracebackCounts ignored;
    CpuSweeper cpu(s0, s1, scoring);
    WindowSweeper& sweep = sweeper ? *sweeper : cpu;
    Walker walker(s0, s1, scoring, limits, sweep, counts ? *counts : ignored, nullptr, stop);
    WalkPoint p{end.s0_end, end.s1_end, State::kH, end.score};
    ReversedRuns runs;
    bool resumed = false;  // from a journal: a walk that leads nowhere is blamed on it
    if (TracebackPoint saved; journal && journal->load(saved)) {
        resumed = true;
        if (!walk_fits(saved, end))
            throw Error("traceback journal: its walk, saved at " + std::to_string(saved.i) + ", " +
                        std::to_string(saved.j) + ", is not one of this alignment (remove it to walk from the end)");
        p = walk_point(saved);
        runs.append_after(saved.runs_back, 0);
    }
    // Windows swept ahead are worth it where sweeps are (windows too large to hold whole).
    std::unique_ptr<Lookahead> ahead;
    const TracebackTerms terms(scoring);
    const int64_t height = end.s0_end - rows.row_above(end.s0_end);
    if (sweep.lookahead() > 0 && height * window_span(height) > limits.window_cells)
        ahead = std::make_unique<Lookahead>(rows, terms, sweep.lookahead(),
                                            [&](const WindowSpec& w, WindowRow top, const TracebackPoint& entry,
                                                const std::atomic<bool>& dropped) {
                                                Lookahead::Swept s;
                                                SweepSteps steps = walker.steps(w);
                                                steps.cancel = &dropped;
                                                s.rows = sweep.sweep(w, std::move(top), steps);
                                                if (!s.rows) return s;
                                                if (entry.v > 0)
                                                    s.walk = walk_ahead(s0, s1, scoring, limits, sweep, *s.rows, entry,
                                                                        dropped);
                                                return s;
                                            },
                                            // A journal's point lies elsewhere: the walk sweeps its own window.
                                            resumed ? std::nullopt : std::optional<TracebackPoint>(point_of(p, {})));
    Outcome outcome = Outcome::kTop;
    try {
        outcome = walker.walk_rows(rows, p, runs, ahead.get(), journal, true);
    } catch (const StopAsked&) {
        const int signal = *stop;
        if (journal) journal->save(point_of(p, runs));
        throw Interrupted(signal, "interrupted by signal " + std::to_string(signal) + " during the traceback, at row " +
                                      std::to_string(p.i) + (journal ? " (saved)" : "") +
                                      ": run the same command again to resume");
    } catch (const Error& e) {
        if (!resumed) throw;
        throw Error(std::string("traceback journal: the walk it saved leads nowhere (") + e.what() +
                    "); remove it to walk from the end");
    }
    if (outcome != Outcome::kStart)
        throw Error(resumed ? "traceback journal: the walk it saved finds no start; remove it to walk from the end"
                            : "internal: the traceback found no start above row " + std::to_string(p.i));
    a.score = end.score;
    a.s0_start = p.i;
    a.s1_start = p.j;
    a.s0_end = end.s0_end;
    a.s1_end = end.s1_end;
    a.runs.assign(runs.runs.rbegin(), runs.runs.rend());
    return a;
}

}  // namespace chromalign
