//! @file Textbook Gotoh (1982) local alignment with linear memory, row by row.
#include "kernels/reference/reference.hpp"

#include <algorithm>
#include <vector>

namespace chromalign {

AlignmentEnd reference_align(const Sequence& s0, const Sequence& s1, const Scoring& sc) {
    const int64_t m = s0.length(), n = s1.length();
    sc.check_no_overflow(m, n);
    // Scores are summed in 64 bits here so the oracle itself can never overflow.
    const int64_t kNegInf = INT64_MIN / 4;
    std::vector<int64_t> h_prev(n + 1, 0), h_cur(n + 1, 0), f(n + 1, kNegInf);
    int64_t best = 0;
    AlignmentEnd result;
    for (int64_t i = 1; i <= m; ++i) {
        const uint8_t a = s0.codes[i - 1];
        int64_t e = kNegInf;  // E(i, j): gap along S1, entering from the left
        h_cur[0] = 0;
        for (int64_t j = 1; j <= n; ++j) {
            const uint8_t b = s1.codes[j - 1];
            e = std::max(e - sc.gap_extend, h_cur[j - 1] - sc.gap_open);
            f[j] = std::max(f[j] - sc.gap_extend, h_prev[j] - sc.gap_open);
            const int64_t diag = h_prev[j - 1] + sc.score(a, b);
            const int64_t h = std::max({int64_t{0}, diag, e, f[j]});
            h_cur[j] = h;
            if (h > best) {  // strict: the first cell in row-major order keeps a tie
                best = h;
                result = AlignmentEnd{static_cast<int32_t>(h), i, j};
            }
        }
        std::swap(h_prev, h_cur);
    }
    return result;
}

}  // namespace chromalign
