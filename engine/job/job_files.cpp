//! @file The names of a job's files.
#include "engine/job/job_files.hpp"

namespace chromalign {
namespace {

bool first_forward(size_t pair, Strand strand) { return pair == 0 && strand == Strand::kForward; }

std::string suffix(size_t pair, Strand strand) { return "pair" + std::to_string(pair + 1) + "." + strand_name(strand); }

}  // namespace

std::string comparison_checkpoint(const std::string& file, size_t pair, Strand strand) {
    return first_forward(pair, strand) ? file : file + "." + suffix(pair, strand);
}

std::string comparison_rows_dir(const std::string& dir, size_t pair, Strand strand) {
    return first_forward(pair, strand) ? dir : dir + "/" + suffix(pair, strand);
}

}  // namespace chromalign
