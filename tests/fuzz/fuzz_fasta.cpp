//! @file Fuzzes the FASTA reader: any input is a sequence or an Error, never a crash, a
//! sanitizer report or a hang (libFuzzer's -timeout).
#include <cstdint>

#include "engine/error.hpp"
#include "io/fasta.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string path = chromalign::fuzz::as_file(data, size);
    for (const char* selector : {"", "seq2", "chr1:5-20"}) {
        try {
            const chromalign::Sequence s = chromalign::io::read_fasta(path, chromalign::io::parse_selector(selector));
            for (const uint8_t code : s.codes)
                if (code > chromalign::kBaseOther) __builtin_trap();  // every code is a BaseCode
        } catch (const chromalign::Error&) {
        }
    }
    return 0;
}
