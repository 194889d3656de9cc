//! @file The stage-1 record as JSON (nlohmann-json).
#include "tools/stage1_record.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "engine/error.hpp"

namespace chromalign::cli {

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
    j["format"] = "chromalign stage 1 record, version 1";
    j["s0"] = {{"path", r.s0_path}, {"record", r.s0_record}, {"length", r.id.m}, {"fingerprint", r.id.fingerprint0}};
    j["s1"] = {{"path", r.s1_path}, {"record", r.s1_record}, {"length", r.id.n}, {"fingerprint", r.id.fingerprint1}};
    nlohmann::ordered_json matrix = nlohmann::ordered_json::array();
    for (uint8_t x = 0; x < 4; ++x) {
        nlohmann::ordered_json row = nlohmann::ordered_json::array();
        for (uint8_t y = 0; y < 4; ++y) row.push_back(r.scoring.score(x, y));
        matrix.push_back(row);
    }
    j["scoring"] = {{"matrix ACGT", matrix},
                    {"other", r.scoring.other},
                    {"gap_open", r.scoring.gap_open},
                    {"gap_extend", r.scoring.gap_extend}};
    j["result"] = {{"score", r.result.score}, {"s0_end", r.result.s0_end}, {"s1_end", r.result.s1_end}};
    const std::string path = stage1_record_path(dir), tmp = path + ".tmp";
    {
        std::ofstream out(tmp);
        out << j.dump(2) << "\n";
        out.close();
        if (!out) throw Error("cannot write " + tmp);
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) throw Error("cannot write " + path);
}

std::optional<Stage1Record> read_stage1_record(const std::string& dir) {
    const std::string path = stage1_record_path(dir);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return std::nullopt;
    if (!std::filesystem::is_regular_file(path, ec)) throw Error(path + " is not a regular file");
    std::ifstream in(path);
    if (!in) throw Error("cannot read " + path);
    try {
        const nlohmann::json j = nlohmann::json::parse(in);
        Stage1Record r;
        r.s0_path = j.at("s0").at("path").get<std::string>();
        r.s0_record = j.at("s0").at("record").get<std::string>();
        r.id.m = j.at("s0").at("length").get<int64_t>();
        r.id.fingerprint0 = j.at("s0").at("fingerprint").get<uint64_t>();
        r.s1_path = j.at("s1").at("path").get<std::string>();
        r.s1_record = j.at("s1").at("record").get<std::string>();
        r.id.n = j.at("s1").at("length").get<int64_t>();
        r.id.fingerprint1 = j.at("s1").at("fingerprint").get<uint64_t>();
        NucleotideMatrix matrix{};
        const auto& rows = j.at("scoring").at("matrix ACGT");
        for (size_t x = 0; x < 4; ++x)
            for (size_t y = 0; y < 4; ++y) matrix[x][y] = rows.at(x).at(y).get<int32_t>();
        r.scoring = Scoring::from_matrix(matrix, j.at("scoring").at("gap_open").get<int32_t>(),
                                         j.at("scoring").at("gap_extend").get<int32_t>());
        r.scoring.other = j.at("scoring").at("other").get<int32_t>();
        if (const std::string why = r.scoring.validate(); !why.empty()) throw Error("its scoring: " + why);
        r.result.score = j.at("result").at("score").get<int32_t>();
        r.result.s0_end = j.at("result").at("s0_end").get<int64_t>();
        r.result.s1_end = j.at("result").at("s1_end").get<int64_t>();
        if (r.id.m < 1 || r.id.n < 1 || r.result.score < 0 || r.result.s0_end < 0 || r.result.s0_end > r.id.m ||
            r.result.s1_end < 0 || r.result.s1_end > r.id.n)
            throw Error("values out of range");
        return r;
    } catch (const nlohmann::json::exception& e) {
        throw Error(path + ": not a stage 1 record (" + e.what() + ")");
    } catch (const Error& e) {
        throw Error(path + ": not a stage 1 record (" + e.what() + ")");
    }
}

}  // namespace chromalign::cli
