//! @file parasail-bench: times parasail's striped 32-bit Smith-Waterman on two FASTA files, the
//! yardstick of the CPU backend (tools/parasail_compare.sh builds and runs it; parasail is a
//! benchmark-only dependency and no project target links it).
//!
//! Usage: parasail-bench S0.fa S1.fa MATCH MISMATCH GAP_OPEN GAP_EXTEND RUNS [dispatch|sse41|avx2]
//! Prints one line: function, score, 1-based end in S0 and S1, best seconds of RUNS, GCUPS.
#include <parasail.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

namespace {

/// The bases of the first record of a plain FASTA file, upper case.
std::string read_fasta(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::string line, bases;
    bool seen_header = false;
    while (std::getline(in, line)) {
        if (!line.empty() && line[0] == '>') {
            if (seen_header) break;
            seen_header = true;
            continue;
        }
        for (const char c : line)
            if (c > ' ') bases += static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c);
    }
    return bases;
}

using SwFunction = parasail_result_t* (*)(const char*, int, const char*, int, int, int, const parasail_matrix_t*);

}  // namespace

int main(int argc, char** argv) {
    if (argc < 8) {
        std::cerr << "usage: parasail-bench S0.fa S1.fa MATCH MISMATCH GAP_OPEN GAP_EXTEND RUNS "
                     "[dispatch|sse41|avx2]\n";
        return 2;
    }
    try {
        const std::string s0 = read_fasta(argv[1]), s1 = read_fasta(argv[2]);
        const int match = std::atoi(argv[3]), mismatch = std::atoi(argv[4]);
        const int open = std::atoi(argv[5]), extend = std::atoi(argv[6]), runs = std::atoi(argv[7]);
        const std::string isa = argc > 8 ? argv[8] : "dispatch";
        SwFunction sw = parasail_sw_striped_32;
        if (isa == "sse41") sw = parasail_sw_striped_sse41_128_32;
        else if (isa == "avx2") sw = parasail_sw_striped_avx2_256_32;
        else if (isa != "dispatch") throw std::runtime_error("unknown ISA " + isa);

        // chromalign's scoring: A/C/G/T match only themselves; N (and any other letter)
        // mismatches everything, itself included. parasail's gap of length k costs
        // open + (k-1) * extend, as chromalign's does.
        parasail_matrix_t* matrix = parasail_matrix_create("ACGTN", match, mismatch);
        parasail_matrix_set_value(matrix, 4, 4, mismatch);

        double best = 1e300;
        int score = 0, end0 = 0, end1 = 0;
        for (int r = 0; r < runs; ++r) {
            const auto start = std::chrono::steady_clock::now();
            parasail_result_t* result = sw(s0.data(), static_cast<int>(s0.size()), s1.data(),
                                           static_cast<int>(s1.size()), open, extend, matrix);
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            if (seconds < best) best = seconds;
            score = parasail_result_get_score(result);
            end0 = parasail_result_get_end_query(result) + 1;
            end1 = parasail_result_get_end_ref(result) + 1;
            parasail_result_free(result);
        }
        parasail_matrix_free(matrix);
        const double cells = static_cast<double>(s0.size()) * static_cast<double>(s1.size());
        std::printf("parasail_sw_striped_%s_32 %d %d %d %.3f %.2f\n", isa.c_str(), score, end0, end1, best,
                    cells / best / 1e9);
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "parasail-bench: " << e.what() << "\n";
        return 1;
    }
}
