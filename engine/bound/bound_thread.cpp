//! @file BoundThread.
#include "engine/bound/bound_thread.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <new>
#include <string>
#include <system_error>

#include "engine/error.hpp"

namespace chromalign {

BoundThread::BoundThread(BoundSource* source, const Sequence& s0, const Sequence& s1, const Scoring& scoring,
                         int32_t known, std::function<void(int32_t)> on_found) {
    if (known > 0) {
        value_.store(known);
        report_.source = "checkpoint";
        report_.score = known;
        report_.in_time = true;
        settled_.store(true);
    }
    if (!source) {
        settled_.store(true);
        return;
    }
    if (known <= 0) report_.source = source->name();
    // The report is written by the threads and read only after join(). The table needs no
    // bound, and is quick: it comes on its own thread, before the pass's bound on a long pair.
    // A thread the system cannot start (a thread limit, or no memory for its stack) leaves
    // the run without the table or the bound, which only prunes less; thrown from here, it
    // would destroy the table's thread unjoined, which ends the process.
    try {
        table_thread_ = std::thread([this, &s0, &s1, &scoring] {
            const auto start = std::chrono::steady_clock::now();
            try {
                const int threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
                table_ = GainTable::build(s0, s1, scoring, threads, cancel_);
            } catch (const std::exception&) {  // no memory, or none for its threads
                table_.reset();  // only prunes less
            }
            if (!table_) return;
            report_.table_k = table_->k();
            report_.table_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            report_.table_band = table_->view().band_diagonals.d;
            const int64_t left = std::min(s0.length(), s1.length());
            if (left > 0)
                report_.table_gain = static_cast<double>(table_->view().bound(0, 0, 0, 0, left)) / static_cast<double>(left);
            table_view_.store(&table_->view(), std::memory_order_release);
        });
    } catch (const std::system_error&) {
    }
    if (known > 0) return;
    try {
        thread_ = std::thread([this, source, &s0, &s1, &scoring, on_found = std::move(on_found)] {
            const auto start = std::chrono::steady_clock::now();
            try {
                const BoundFound found = source->find(s0, s1, scoring, cancel_);
                report_.score = found.witness.score;
                report_.blocks = found.blocks;
                report_.path_columns = found.path_columns;
                report_.in_time = !cancel_.load();
                value_.store(found.witness.score);
                if (on_found && found.witness.score > 0) on_found(found.witness.score);
            } catch (const std::exception& e) {
                report_.failure = e.what();
            }
            settled_.store(true);
            report_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        });
    } catch (const std::system_error& e) {
        report_.failure = std::string("its thread could not start: ") + e.what();
        settled_.store(true);
    }
}

BoundThread::~BoundThread() {
    cancel_.store(true);
    if (thread_.joinable()) thread_.join();
    if (table_thread_.joinable()) table_thread_.join();
}

BoundReport BoundThread::finish(const AlignmentEnd& best, int32_t floor, const std::string& what) {
    cancel_.store(true);
    if (thread_.joinable()) thread_.join();
    if (table_thread_.joinable()) table_thread_.join();
    const int32_t bound = value_.load();
    if (bound > floor && best.score < bound)
        throw Error("the bound of " + what + " (" + std::to_string(bound) + ", from " + report_.source +
                    ") is above its optimum, " + std::to_string(best.score) +
                    ": the pruned answer is refused (run again with --bound none, and report this)");
    return report_;
}

}  // namespace chromalign
