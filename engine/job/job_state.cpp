//! @file The job state as JSON (nlohmann-json), written durably.
#include "engine/job/job_state.hpp"

#include <cstdio>
#include <fstream>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "engine/checkpoint/checkpoint_file.hpp"
#include "engine/checkpoint/durable_file.hpp"
#include "engine/error.hpp"
#include "engine/job/job_files.hpp"
#include "engine/job/json_integer.hpp"

namespace chromalign {
namespace {

constexpr const char* kFormat = "chromalign job state, version 1";

uint64_t mix(uint64_t hash, uint64_t value) {
    for (int b = 0; b < 8; ++b) hash = (hash ^ ((value >> (8 * b)) & 0xff)) * 1099511628211ull;
    return hash;
}

/// "12=1X3I" back into runs; throws Error on anything else.
std::vector<AlignmentRun> parse_cigar(const std::string& text) {
    std::vector<AlignmentRun> runs;
    int64_t length = 0;
    for (const char c : text) {
        if (c >= '0' && c <= '9' && length < (int64_t{1} << 50)) {
            length = length * 10 + (c - '0');
        } else if ((c == '=' || c == 'X' || c == 'I' || c == 'D') && length > 0) {
            runs.push_back(AlignmentRun{c, length});
            length = 0;
        } else {
            throw Error("malformed CIGAR");
        }
    }
    if (length != 0) throw Error("malformed CIGAR");
    return runs;
}

/// An alignment's fields as the state file holds them (the job rescores it before use).
Alignment alignment_of(const nlohmann::json& a) {
    Alignment x;
    x.score = json_integer<int32_t>(a.at("score"));
    x.s0_start = json_integer<int64_t>(a.at("s0_start"));
    x.s0_end = json_integer<int64_t>(a.at("s0_end"));
    x.s1_start = json_integer<int64_t>(a.at("s1_start"));
    x.s1_end = json_integer<int64_t>(a.at("s1_end"));
    x.runs = parse_cigar(a.at("cigar").get<std::string>());
    return x;
}

nlohmann::ordered_json json_of(const Alignment& a) {
    return {{"score", a.score},
            {"s0_start", a.s0_start},
            {"s0_end", a.s0_end},
            {"s1_start", a.s1_start},
            {"s1_end", a.s1_end},
            {"cigar", a.runs.empty() ? std::string() : a.cigar()}};
}


}  // namespace

uint64_t job_fingerprint(const JobSpec& spec) {
    uint64_t hash = 1469598103934665603ull;
    for (uint8_t x = 0; x < 5; ++x)
        for (uint8_t y = 0; y < 5; ++y) hash = mix(hash, static_cast<uint64_t>(spec.scoring.score(x, y)));
    hash = mix(hash, static_cast<uint64_t>(spec.scoring.gap_open));
    hash = mix(hash, static_cast<uint64_t>(spec.scoring.gap_extend));
    for (const Strand s : spec.strands) hash = mix(hash, static_cast<uint64_t>(s));
    std::vector<uint64_t> f0(spec.s0.size()), f1(spec.s1.size());  // each record hashed once
    for (size_t k = 0; k < f0.size(); ++k) f0[k] = sequence_fingerprint(spec.s0[k]);
    for (size_t k = 0; k < f1.size(); ++k) f1[k] = sequence_fingerprint(spec.s1[k]);
    for (const RecordPair& p : spec.pairs) {
        hash = mix(hash, f0[p.s0]);
        hash = mix(hash, static_cast<uint64_t>(spec.s0[p.s0].offset));
        hash = mix(hash, f1[p.s1]);
        hash = mix(hash, static_cast<uint64_t>(spec.s1[p.s1].offset));
    }
    return hash;
}

JobState::JobState(const std::string& checkpoint, uint64_t fingerprint, const JobSpec& spec, bool restart,
                   bool writer, bool strict, std::function<void(const std::string&)> warn)
    : path_(job_state_path(checkpoint)), fingerprint_(fingerprint), writer_(writer), strict_(strict),
      warn_(std::move(warn)) {
    if (writer_) {
        lock_ = std::make_unique<CheckpointLock>(checkpoint);
        // What stops the lock stops every checkpoint write too: found now rather than at the first.
        if (!lock_->problem().empty() && strict_) throw Error(lock_->problem());
        if (!lock_->problem().empty() && warn_)
            warn_("warning: " + lock_->problem() + "; nothing keeps another run off this checkpoint");
    }
    struct stat st{};
    if (restart || ::stat(path_.c_str(), &st) != 0) return;
    const std::string refuse = path_ + ": ";
    const std::string hint = "; it is left untouched (use --restart to discard it)";
    if (!S_ISREG(st.st_mode)) throw Error(refuse + "not a regular file" + hint);
    std::ifstream in(path_);
    try {
        const nlohmann::json j = nlohmann::json::parse(in);
        if (j.at("format").get<std::string>() != kFormat) throw Error("an unknown format");
        if (j.at("job").get<std::string>() != std::to_string(fingerprint_))
            throw Error("the state of another job (other sequences, records, pairs, strands or scoring)");
        for (const auto& d : j.at("done")) {
            DoneComparison c;
            c.pair = json_integer<size_t>(d.at("pair"));
            c.strand = strand_named(d.at("strand").get<std::string>());
            c.best = AlignmentEnd{json_integer<int32_t>(d.at("score")), json_integer<int64_t>(d.at("s0_end")),
                                  json_integer<int64_t>(d.at("s1_end"))};
            c.floor = json_integer<int32_t>(d.at("floor"));
            c.cells_pruned = json_integer<int64_t>(d.at("cells_pruned"));
            if (c.pair >= spec.pairs.size()) throw Error("a pair out of range");
            const int64_t m = spec.s0[spec.pairs[c.pair].s0].length(), n = spec.s1[spec.pairs[c.pair].s1].length();
            const bool none = c.best.score == 0 && c.best.s0_end == 0 && c.best.s1_end == 0;
            const bool cell = c.best.score > 0 && c.best.s0_end >= 1 && c.best.s0_end <= m && c.best.s1_end >= 1 &&
                              c.best.s1_end <= n &&
                              c.best.score <= most_score_at(c.best.s0_end, c.best.s1_end, spec.scoring.best_score());
            if ((!none && !cell) || c.floor < 0 || c.cells_pruned < 0 || c.cells_pruned > m * n)
                throw Error("an answer out of range for pair " + std::to_string(c.pair + 1));
            done_[{c.pair, c.strand}] = c;
        }
        for (const auto& a : j.at("alignments")) {
            DoneTraceback t;
            t.pair = json_integer<size_t>(a.at("pair"));
            t.strand = strand_named(a.at("strand").get<std::string>());
            t.alignment = alignment_of(a);
            if (t.pair >= spec.pairs.size()) throw Error("a pair out of range");
            traced_[t.pair] = std::move(t);  // the job rescores it against the sequences before use
        }
        for (const auto& x : j.value("searches", nlohmann::json::array())) {
            DoneSearch d;
            d.pair = json_integer<size_t>(x.at("pair"));
            d.strand = strand_named(x.at("strand").get<std::string>());
            d.count = json_integer<int>(x.at("count"));
            d.min_score = json_integer<int32_t>(x.at("min_score"));
            d.ended = x.at("ended").get<bool>();
            d.outranked = x.value("outranked", false);  // absent from states written before it was
            if (d.outranked && !d.ended) throw Error("a search outranked but not ended for pair " + std::to_string(d.pair + 1));
            for (const auto& a : x.at("found")) d.found.push_back(alignment_of(a));
            if (d.pair >= spec.pairs.size()) throw Error("a pair out of range");
            if (d.count < 1 || d.min_score < 0 || static_cast<int64_t>(d.found.size()) > d.count)
                throw Error("a search out of range for pair " + std::to_string(d.pair + 1));
            searches_[{d.pair, d.strand}] = std::move(d);  // the job rescores each before use
        }
        for (const auto& b : j.value("bounds", nlohmann::json::array())) {
            const size_t pair = json_integer<size_t>(b.at("pair"));
            const Strand strand = strand_named(b.at("strand").get<std::string>());
            const int32_t score = json_integer<int32_t>(b.at("score"));
            if (pair >= spec.pairs.size()) throw Error("a pair out of range");
            const int64_t m = spec.s0[spec.pairs[pair].s0].length(), n = spec.s1[spec.pairs[pair].s1].length();
            if (score <= 0 || score > most_score_at(m, n, spec.scoring.best_score()))
                throw Error("a bound out of range for pair " + std::to_string(pair + 1));
            bounds_[{pair, strand}] = score;
        }
    } catch (const nlohmann::json::exception& e) {
        throw Error(refuse + "not a job state (" + e.what() + ")" + hint);
    } catch (const Error& e) {
        throw Error(refuse + "holds " + e.what() + hint);
    }
}

JobState::~JobState() = default;

std::optional<DoneComparison> JobState::done(size_t pair, Strand strand) const {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto it = done_.find({pair, strand});
    return it == done_.end() ? std::nullopt : std::optional<DoneComparison>(it->second);
}

size_t JobState::done_count() const {
    size_t n = done_.size();
    for (const auto& [comparison, s] : searches_) n += s.ended && !done_.count(comparison);
    return n;
}

std::optional<DoneSearch> JobState::search(size_t pair, Strand strand) const {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto it = searches_.find({pair, strand});
    return it == searches_.end() ? std::nullopt : std::optional<DoneSearch>(it->second);
}

void JobState::add(const DoneSearch& s, double every_seconds) {
    const std::lock_guard<std::mutex> lock(mutex_);
    searches_[{s.pair, s.strand}] = s;
    unsaved_ = true;
    save_if_due(every_seconds);
}

std::optional<Alignment> JobState::traced(size_t pair) const {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto it = traced_.find(pair);
    return it == traced_.end() ? std::nullopt : std::optional<Alignment>(it->second.alignment);
}

void JobState::add(const DoneComparison& d, double every_seconds) {
    const std::lock_guard<std::mutex> lock(mutex_);
    done_[{d.pair, d.strand}] = d;
    bounds_.erase({d.pair, d.strand});
    unsaved_ = true;
    save_if_due(every_seconds);
}

void JobState::add(const DoneTraceback& t, double every_seconds) {
    const std::lock_guard<std::mutex> lock(mutex_);
    traced_[t.pair] = t;
    unsaved_ = true;
    save_if_due(every_seconds);
}

void JobState::add_bound(size_t pair, Strand strand, int32_t score) {
    const std::lock_guard<std::mutex> lock(mutex_);
    bounds_[{pair, strand}] = score;
    unsaved_ = true;
    save_locked();
}

int32_t JobState::bound(size_t pair, Strand strand) const {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto it = bounds_.find({pair, strand});
    return it == bounds_.end() ? 0 : it->second;
}

void JobState::save_if_due(double every_seconds) {
    const auto now = std::chrono::steady_clock::now();
    if (std::chrono::duration<double>(now - saved_).count() >= every_seconds) save_locked();
}

void JobState::finish() {
    if (writer_) std::remove(path_.c_str());
}

void JobState::save() {
    const std::lock_guard<std::mutex> lock(mutex_);
    save_locked();
}

void JobState::save_locked() {
    if (!writer_ || !unsaved_) return;
    nlohmann::ordered_json j;
    j["format"] = kFormat;
    j["job"] = std::to_string(fingerprint_);
    j["done"] = nlohmann::ordered_json::array();
    for (const auto& [key, d] : done_)
        j["done"].push_back({{"pair", d.pair},
                             {"strand", strand_name(d.strand)},
                             {"score", d.best.score},
                             {"s0_end", d.best.s0_end},
                             {"s1_end", d.best.s1_end},
                             {"floor", d.floor},
                             {"cells_pruned", d.cells_pruned}});
    j["alignments"] = nlohmann::ordered_json::array();
    for (const auto& [key, t] : traced_) {
        nlohmann::ordered_json a = {{"pair", t.pair}, {"strand", strand_name(t.strand)}};
        a.update(json_of(t.alignment));
        j["alignments"].push_back(std::move(a));
    }
    j["searches"] = nlohmann::ordered_json::array();
    for (const auto& [key, d] : searches_) {
        nlohmann::ordered_json found = nlohmann::ordered_json::array();
        for (const Alignment& a : d.found) found.push_back(json_of(a));
        j["searches"].push_back({{"pair", d.pair},
                                 {"strand", strand_name(d.strand)},
                                 {"count", d.count},
                                 {"min_score", d.min_score},
                                 {"ended", d.ended},
                                 {"outranked", d.outranked},
                                 {"found", std::move(found)}});
    }
    j["bounds"] = nlohmann::ordered_json::array();
    for (const auto& [key, score] : bounds_)
        j["bounds"].push_back({{"pair", key.first}, {"strand", strand_name(key.second)}, {"score", score}});
    try {
        write_durably(path_, j.dump(1) + "\n");
    } catch (const Error& e) {
        if (strict_) throw;
        if (!warned_ && warn_) warn_(std::string("warning: ") + e.what() + "; the job goes on, and a rerun redoes " +
                                     "the comparisons finished since the last state written");
        warned_ = true;
        return;
    }
    unsaved_ = false;
    saved_ = std::chrono::steady_clock::now();
}

}  // namespace chromalign
