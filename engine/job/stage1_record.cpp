//! @file The stage-1 record as JSON (nlohmann-json).
#include "engine/job/stage1_record.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "engine/checkpoint/durable_file.hpp"
#include "engine/error.hpp"
#include "engine/job/job_files.hpp"
#include "engine/job/json_integer.hpp"

namespace chromalign {
namespace {

nlohmann::ordered_json scoring_json(const Scoring& scoring) {
    nlohmann::ordered_json matrix = nlohmann::ordered_json::array();
    for (uint8_t x = 0; x < 4; ++x) {
        nlohmann::ordered_json row = nlohmann::ordered_json::array();
        for (uint8_t y = 0; y < 4; ++y) row.push_back(scoring.score(x, y));
        matrix.push_back(row);
    }
    return {{"matrix ACGT", matrix},
            {"other", scoring.other},
            {"gap_open", scoring.gap_open},
            {"gap_extend", scoring.gap_extend}};
}

Scoring scoring_of(const nlohmann::json& j) {
    NucleotideMatrix matrix{};
    const auto& rows = j.at("matrix ACGT");
    for (size_t x = 0; x < 4; ++x)
        for (size_t y = 0; y < 4; ++y) matrix[x][y] = json_integer<int32_t>(rows.at(x).at(y));
    Scoring scoring = Scoring::from_matrix(matrix, json_integer<int32_t>(j.at("gap_open")),
                                           json_integer<int32_t>(j.at("gap_extend")));
    scoring.other = json_integer<int32_t>(j.at("other"));
    if (const std::string why = scoring.validate(); !why.empty()) throw Error("its scoring: " + why);
    return scoring;
}


/// A regular file's JSON; none when absent. Throws Error naming it otherwise.
std::optional<nlohmann::json> read_json(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return std::nullopt;
    if (!std::filesystem::is_regular_file(path, ec)) throw Error(path + " is not a regular file");
    std::ifstream in(path);
    if (!in) throw Error("cannot read " + path);
    try {
        return nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
        throw Error(path + ": not JSON (" + e.what() + ")");
    }
}

}  // namespace

std::string stage1_record_path(const std::string& dir) { return dir + "/stage1.json"; }

bool same_scoring(const Scoring& a, const Scoring& b) {
    if (a.gap_open != b.gap_open || a.gap_extend != b.gap_extend) return false;
    for (uint8_t x = 0; x < 5; ++x)
        for (uint8_t y = 0; y < 5; ++y)
            if (a.score(x, y) != b.score(x, y)) return false;
    return true;
}

void write_stage1_record(const std::string& dir, const Stage1Record& r) {
    nlohmann::ordered_json j;
    j["format"] = "chromalign stage 1 record, version 2";
    j["s0"] = {{"path", r.s0_path}, {"record", r.s0_record}, {"length", r.id.m}, {"fingerprint", r.id.fingerprint0}};
    j["s1"] = {{"path", r.s1_path}, {"record", r.s1_record}, {"length", r.id.n}, {"fingerprint", r.id.fingerprint1}};
    j["scoring"] = scoring_json(r.scoring);
    j["result"] = {{"score", r.result.score}, {"s0_end", r.result.s0_end}, {"s1_end", r.result.s1_end}};
    j["strand"] = strand_name(r.strand);
    j["floor"] = r.floor;
    write_durably(stage1_record_path(dir), j.dump(2) + "\n");
}

void write_job_record(const std::string& dir, const JobRecord& r) {
    nlohmann::ordered_json j;
    j["format"] = "chromalign job record, version 1";
    j["s0_path"] = r.s0_path;
    j["s1_path"] = r.s1_path;
    j["strands"] = nlohmann::ordered_json::array();
    for (const Strand s : r.strands) j["strands"].push_back(strand_name(s));
    j["pairs"] = r.pairs;
    j["scoring"] = scoring_json(r.scoring);
    write_durably(job_record_path(dir), j.dump(1) + "\n");
}

std::optional<JobRecord> read_job_record(const std::string& dir) {
    const std::string path = job_record_path(dir);
    const std::optional<nlohmann::json> j = read_json(path);
    if (!j) return std::nullopt;
    try {
        JobRecord r;
        r.s0_path = j->at("s0_path").get<std::string>();
        r.s1_path = j->at("s1_path").get<std::string>();
        for (const auto& s : j->at("strands")) r.strands.push_back(strand_named(s.get<std::string>()));
        r.pairs = j->at("pairs").get<std::vector<std::pair<std::string, std::string>>>();
        r.scoring = scoring_of(j->at("scoring"));
        if (r.pairs.empty() || r.strands.empty() || r.strands.size() > 2) throw Error("no pairs or strands");
        return r;
    } catch (const nlohmann::json::exception& e) {
        throw Error(path + ": not a job record (" + e.what() + ")");
    } catch (const Error& e) {
        throw Error(path + ": not a job record (" + e.what() + ")");
    }
}

std::optional<Stage1Record> read_stage1_record(const std::string& dir) {
    const std::string path = stage1_record_path(dir);
    const std::optional<nlohmann::json> j = read_json(path);
    if (!j) return std::nullopt;
    try {
        Stage1Record r;
        r.s0_path = j->at("s0").at("path").get<std::string>();
        r.s0_record = j->at("s0").at("record").get<std::string>();
        r.id.m = json_integer<int64_t>(j->at("s0").at("length"));
        r.id.fingerprint0 = json_integer<uint64_t>(j->at("s0").at("fingerprint"));
        r.s1_path = j->at("s1").at("path").get<std::string>();
        r.s1_record = j->at("s1").at("record").get<std::string>();
        r.id.n = json_integer<int64_t>(j->at("s1").at("length"));
        r.id.fingerprint1 = json_integer<uint64_t>(j->at("s1").at("fingerprint"));
        r.scoring = scoring_of(j->at("scoring"));
        r.result.score = json_integer<int32_t>(j->at("result").at("score"));
        r.result.s0_end = json_integer<int64_t>(j->at("result").at("s0_end"));
        r.result.s1_end = json_integer<int64_t>(j->at("result").at("s1_end"));
        // Version 1 compared the forward strand alone, from a floor of 0.
        r.strand = strand_named(j->value("strand", std::string("forward")));
        r.floor = j->contains("floor") ? json_integer<int32_t>(j->at("floor")) : 0;
        if (r.id.m < 1 || r.id.n < 1 || r.result.score < 0 || r.result.s0_end < 0 || r.result.s0_end > r.id.m ||
            r.result.s1_end < 0 || r.result.s1_end > r.id.n || r.floor < 0)
            throw Error("values out of range");
        // A score of 0 has no end cell (0, 0); a positive one ends in the matrix and is at most
        // what the shorter of the two prefixes could score.
        const AlignmentEnd& e = r.result;
        const bool none = e.score == 0 && e.s0_end == 0 && e.s1_end == 0;
        const bool cell = e.score > 0 && e.s0_end >= 1 && e.s1_end >= 1 &&
                          e.score <= most_score_at(e.s0_end, e.s1_end, r.scoring.best_score());
        if (!none && !cell)
            throw Error("a result no alignment has (score " + std::to_string(e.score) + " at " +
                        std::to_string(e.s0_end) + ", " + std::to_string(e.s1_end) + ")");
        return r;
    } catch (const nlohmann::json::exception& e) {
        throw Error(path + ": not a stage 1 record (" + e.what() + ")");
    } catch (const Error& e) {
        throw Error(path + ": not a stage 1 record (" + e.what() + ")");
    }
}

}  // namespace chromalign
