//! @file What stage 1 leaves in --traceback-dir for a later traceback: the job's record
//! (DIR/job.json: the files, record pairs, strands and scoring), and each comparison's, in its
//! own directory (stage1.json: its result, identity, strand and scoring, and where the sequences came from).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/backend/options.hpp"
#include "engine/job/strand.hpp"
#include "engine/result.hpp"
#include "engine/scoring/scoring.hpp"

namespace chromalign {

struct Stage1Record {
    std::string s0_path, s0_record, s1_path, s1_record;  ///< absolute paths; records as --s0-record takes them
    RowsIdentity id;        ///< of S0 and S1 as compared (S1's reverse complement on the reverse strand)
    Scoring scoring;
    AlignmentEnd result;    ///< in the coordinates compared
    Strand strand = Strand::kForward;
    int32_t floor = 0;      ///< BackendOptions::prune_floor of the run (a record of version 1: 0)
};

/// DIR/stage1.json.
std::string stage1_record_path(const std::string& dir);

/// Writes the record (a temporary file, then a rename). Throws Error naming the file.
void write_stage1_record(const std::string& dir, const Stage1Record& record);

/// The record of DIR; none when the file is absent. Throws Error naming the file when it
/// cannot be read or does not hold a record.
std::optional<Stage1Record> read_stage1_record(const std::string& dir);

/// What `chromalign traceback DIR` needs to run the job again from its stage 1 records.
struct JobRecord {
    std::string s0_path, s1_path;  ///< absolute paths
    std::vector<std::pair<std::string, std::string>> pairs;  ///< records as --pairs names them
    std::vector<Strand> strands;
    Scoring scoring;
};

/// Writes DIR/job.json (a temporary file, then a rename). Throws Error naming the file.
void write_job_record(const std::string& dir, const JobRecord& record);

/// DIR's job record; none when the file is absent (a directory of a release before jobs holds
/// a stage1.json alone). Throws Error naming the file when it cannot be read.
std::optional<JobRecord> read_job_record(const std::string& dir);

/// Whether two scorings give every pair of codes and every gap the same score.
bool same_scoring(const Scoring& a, const Scoring& b);

/// Whether the record is of this comparison: the same sequences as compared (lengths and
/// fingerprints) and strand, under the same scoring (its floor is the caller's to judge).
inline bool same_comparison(const Stage1Record& r, const RowsIdentity& id, const Scoring& scoring, Strand strand) {
    return r.id.m == id.m && r.id.n == id.n && r.id.fingerprint0 == id.fingerprint0 &&
           r.id.fingerprint1 == id.fingerprint1 && same_scoring(r.scoring, scoring) && r.strand == strand;
}

}  // namespace chromalign
