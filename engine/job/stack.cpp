//! @file Building a stack of records.
#include "engine/job/stack.hpp"

namespace chromalign {

Stack make_stack(const std::vector<const Sequence*>& records, int64_t band_rows) {
    Stack stack;
    int64_t rows = 0;
    for (const Sequence* r : records) rows += (r->length() + band_rows - 1) / band_rows * band_rows;
    stack.s0.name = "stack";
    stack.s0.source = records.empty() ? std::string() : records.front()->source;
    stack.s0.codes.reserve(static_cast<size_t>(rows));
    for (const Sequence* r : records) {
        stack.first_rows.push_back(stack.s0.length());
        stack.s0.codes.insert(stack.s0.codes.end(), r->codes.begin(), r->codes.end());
        const int64_t pad = (band_rows - r->length() % band_rows) % band_rows;
        stack.s0.codes.insert(stack.s0.codes.end(), static_cast<size_t>(pad), kBaseOther);
    }
    return stack;
}

}  // namespace chromalign
