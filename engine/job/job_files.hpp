//! @file Where a job keeps what belongs to each comparison: its checkpoint pieces, its special
//! rows and stage 1 record, and the job's own state. The first pair's forward strand keeps the
//! names a one-pair run has always used, so that checkpoints and --traceback-dir directories of
//! earlier releases are taken up.
#pragma once

#include <cstddef>
#include <string>

#include "engine/job/strand.hpp"

namespace chromalign {

/// The base name of comparison (pair, strand)'s checkpoint pieces: the job's FILE itself for
/// pair 0 forward, FILE.pair<pair + 1>.<forward|reverse> for the others.
std::string comparison_checkpoint(const std::string& file, size_t pair, Strand strand);

/// The directory of comparison (pair, strand)'s special rows and stage 1 record under DIR:
/// DIR itself for pair 0 forward, DIR/pair<pair + 1>.<forward|reverse> for the others.
std::string comparison_rows_dir(const std::string& dir, size_t pair, Strand strand);

/// The job's state beside its checkpoint FILE: FILE.job (engine/job/job_state.hpp).
inline std::string job_state_path(const std::string& file) { return file + ".job"; }

/// The job's own record in --traceback-dir DIR, for `chromalign traceback DIR`: DIR/job.json.
inline std::string job_record_path(const std::string& dir) { return dir + "/job.json"; }

}  // namespace chromalign
