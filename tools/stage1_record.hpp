//! @file What stage 1 leaves in --traceback-dir for a later traceback (DIR/stage1.json): its
//! result, the comparison's identity and scoring, and where the sequences came from.
#pragma once

#include <optional>
#include <string>

#include "engine/backend/options.hpp"
#include "engine/result.hpp"
#include "engine/scoring/scoring.hpp"

namespace chromalign::cli {

struct Stage1Record {
    std::string s0_path, s0_record, s1_path, s1_record;  ///< absolute paths; records as --s0-record takes them
    RowsIdentity id;
    Scoring scoring;
    AlignmentEnd result;
};

/// DIR/stage1.json.
std::string stage1_record_path(const std::string& dir);

/// Writes the record (a temporary file, then a rename). Throws Error naming the file.
void write_stage1_record(const std::string& dir, const Stage1Record& record);

/// The record of DIR; none when the file is absent. Throws Error naming the file when it
/// cannot be read or does not hold a record.
std::optional<Stage1Record> read_stage1_record(const std::string& dir);

/// Whether two scorings give every pair of codes and every gap the same score.
bool same_scoring(const Scoring& a, const Scoring& b);

/// Whether the record is of this comparison: the same sequences (lengths and fingerprints)
/// under the same scoring.
inline bool same_comparison(const Stage1Record& r, const RowsIdentity& id, const Scoring& scoring) {
    return r.id.m == id.m && r.id.n == id.n && r.id.fingerprint0 == id.fingerprint0 &&
           r.id.fingerprint1 == id.fingerprint1 && same_scoring(r.scoring, scoring);
}

}  // namespace chromalign::cli
