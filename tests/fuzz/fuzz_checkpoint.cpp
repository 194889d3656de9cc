//! @file Fuzzes the checkpoint reader: any input is a checkpoint or an Error, never a crash, a
//! sanitizer report, a hang or an allocation beyond the file's size.
#include <cstdint>

#include "engine/checkpoint/checkpoint_file.hpp"
#include "engine/error.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string path = chromalign::fuzz::as_file(data, size);
    try {
        const chromalign::Checkpoint c = chromalign::read_checkpoint(path);
        // What is read must be what the file holds: two rows of n values at most.
        if (static_cast<size_t>(c.n) * 8 > size || c.h.size() != static_cast<size_t>(c.n) || c.f.size() != c.h.size())
            __builtin_trap();
    } catch (const chromalign::Error&) {
    }
    return 0;
}
