//! @file Fuzzes the reader of a stage 1 record (--traceback-dir's stage1.json): any input is a
//! record whose fields a traceback can use, or an Error naming the file; never a crash, a
//! sanitizer report or a hang.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "engine/error.hpp"
#include "engine/job/stage1_record.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace chromalign;
    static const std::string dir = "/tmp/chromalign-fuzz-stage1-" + std::to_string(getpid());
    std::filesystem::create_directories(dir);
    {
        std::ofstream out(stage1_record_path(dir), std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    try {
        const auto record = read_stage1_record(dir);
        // What a traceback takes from it must hold: an end cell inside the matrix it names.
        if (record && record->result.score > 0 &&
            (record->result.s0_end < 1 || record->result.s0_end > record->id.m || record->result.s1_end < 1 ||
             record->result.s1_end > record->id.n))
            __builtin_trap();
    } catch (const Error&) {
    }
    return 0;
}
