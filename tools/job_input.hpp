//! @file The job a command line asks for: its records read from the two files, and its pairs.
#pragma once

#include <string>
#include <vector>

#include "engine/job/job.hpp"
#include "tools/cli_options.hpp"

namespace chromalign::cli {

/// Reads the records the options select (every record, those named, or those --pairs names,
/// each file read once) and pairs them: every S0 record with every S1 record, S0 by S0, or
/// the pairs listed in their order. Throws InputError naming the file, record and line.
JobSpec load_job(const Options& o, std::vector<std::string>* notes);

/// What the job will take, said before it starts: pairs, comparisons, cells, and an estimate
/// at the backend's nominal rate (0: none given), or with a search for `alignments` > 1 (whose
/// first passes run at another rate, and whose time depends on what it finds) what it does.
std::string job_plan(const JobSpec& spec, double nominal_gcups, int alignments = 1);

}  // namespace chromalign::cli
