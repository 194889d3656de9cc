//! @file Fuzzes the reader of special rows (--traceback-dir's .srow files) behind a valid
//! header: the CRC is made to fit, the comparison's identity and gap costs are taken from the
//! header, the piece made to cover its row, and the file cut or padded to the size the header
//! names, so that what lies behind the only checksum is explored. Any row is then read,
//! bounded or refused with an Error, never a crash, a sanitizer report or a hang.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "engine/error.hpp"
#include "engine/traceback/special_row_format.hpp"
#include "engine/traceback/special_rows.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace chromalign;
    SpecialRowHeader hd{};
    if (size < sizeof hd) return 0;
    std::memcpy(&hd, data, sizeof hd);
    // One piece that covers its row (a row is held only where its pieces tile 1 .. n), of a
    // small matrix (rows are read whole), under gap costs the scoring accepts.
    if (hd.m < 2 || hd.m > (int64_t{1} << 40) || hd.width < 1 || hd.width > (1 << 16) || hd.open < 1 ||
        hd.open > 100 || hd.ext < 1 || hd.ext > 100)
        return 0;
    hd.first = 1;
    hd.n = hd.width;
    hd.gap = std::min(hd.open, hd.ext);
    hd.substitution = 0;
    hd.crc = special_row_header_crc(hd);
    std::vector<char> file(data, data + size);
    std::memcpy(file.data(), &hd, sizeof hd);
    const int64_t blocks = hd.width / SpecialRows::kPeakColumns + 1;
    file.resize(sizeof hd + static_cast<size_t>(16 * blocks + kSpecialRowBytesPerColumn * hd.width), 0);
    static const std::string dir = "/tmp/chromalign-fuzz-rows-" + std::to_string(getpid());
    std::filesystem::create_directories(dir);
    {
        std::ofstream out(dir + "/row.srow", std::ios::binary | std::ios::trunc);
        out.write(file.data(), static_cast<std::streamsize>(file.size()));
    }
    const RowsIdentity id{hd.m, hd.n, hd.fingerprint0, hd.fingerprint1};
    const Scoring scoring(1, -3, hd.open, hd.ext);
    try {
        SpecialRows rows(dir, id, scoring);
        const int64_t gap = hd.gap, best = scoring.best_score();
        for (int64_t r = rows.row_above(id.m); r > 0; r = rows.row_above(r)) {
            rows.read(r, 1, id.n);
            // The sum TracebackTerms::bound makes of a window's edge term (window.hpp, whose
            // SIMD code is GCC's): it overflowed with a forged block bound.
            const int64_t k = rows.edge_term(r, id.n, gap);
            const volatile int64_t bound = k + (best + gap) * (id.m - r) - gap * id.n;
            (void)bound;
            rows.crossing_column(r, 1, CrossingBias{gap, (id.m - r) / 2, id.n});
            (void)rows.region_peaks();
        }
    } catch (const Error&) {
    }
    return 0;
}
