//! @file chromalign-bench: median GCUPS of each backend on generated mutated pairs or FASTA files.
#include <boost/program_options.hpp>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <random>
#include <sstream>

#include "kernels/registry.hpp"
#include "engine/bound/bound_thread.hpp"
#include "engine/bound/minimap2_bound.hpp"
#include "engine/error.hpp"
#include "io/fasta.hpp"
#include "tools/mutate.hpp"

namespace po = boost::program_options;
using namespace chromalign;

namespace {

struct BenchOptions {
    std::vector<int64_t> sizes;          ///< square pairs to generate
    std::string s0_path, s1_path;        ///< or two FASTA files
    std::vector<std::string> backends;
    int runs = 3;
    uint64_t seed = 1;
    Scoring scoring;
    BackendOptions backend_options;
    std::string write_prefix;            ///< write the generated pair as FASTA and stop
    double checkpoint_every = 0;         ///< > 0: time runs with checkpoints at this interval
    std::string pair = "mutated";        ///< what generate_pair makes (see --pair)
    std::string bound = "minimap2";      ///< --bound, as chromalign's: the pass is timed with the run
    std::string scheduler = "tiles";     ///< --scheduler: tiles or stream (BackendOptions::band_stream)
};

std::vector<std::string> split(const std::string& text) {
    std::vector<std::string> parts;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty()) parts.push_back(item);
    return parts;
}

/// "8M" -> 8,000,000; "500k" -> 500,000; plain numbers as they are.
int64_t parse_size(const std::string& text) {
    size_t used = 0;
    const double value = std::stod(text, &used);
    const std::string unit = text.substr(used);
    const double scale = unit == "k" || unit == "K" ? 1e3 : unit == "M" ? 1e6 : unit == "G" ? 1e9 : 1;
    if (!unit.empty() && scale == 1) throw Error("bad size '" + text + "' (use e.g. 500k, 8M)");
    return static_cast<int64_t>(value * scale);
}

/// A generated pair of length n: `mutated` (random S0, S1 a copy with 5% substitutions and
/// 0.5% short indels), `random` (two unrelated sequences) or `related` (gen::related_pair).
std::pair<Sequence, Sequence> generate_pair(const std::string& kind, int64_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::string a, b;
    if (kind == "mutated") {
        a = gen::random_dna(n, rng);
        b = gen::mutate(a, gen::MutationSpec{}, rng);
        b.resize(static_cast<size_t>(n), 'A');
    } else if (kind == "random") {
        a = gen::random_dna(n, rng);
        b = gen::random_dna(n, rng);
    } else if (kind == "related") {
        std::tie(a, b) = gen::related_pair(n, gen::RelatedSpec{}, rng);
    } else {
        throw Error("--pair must be mutated, random or related (got '" + kind + "')");
    }
    return {make_sequence("bench_s0", a), make_sequence("bench_s1", b)};
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t k = v.size() / 2;
    return v.size() % 2 ? v[k] : (v[k - 1] + v[k]) / 2;
}

void bench_pair(const BenchOptions& o, const Sequence& s0, const Sequence& s1) {
    const double cells = static_cast<double>(s0.length()) * static_cast<double>(s1.length());
    for (const std::string& name : o.backends) {
        BackendOptions options = o.backend_options;
        if (o.checkpoint_every > 0) {
            options.checkpoint.path = "/tmp/chromalign-bench-" + std::to_string(::getpid()) + ".ckpt";
            options.checkpoint.every_seconds = o.checkpoint_every;
            options.checkpoint.restart = true;  // every timed run starts from scratch
        }
        auto backend = make_backend(name, options);
        std::vector<double> seconds, bound_seconds, table_seconds;
        int32_t table_k = 0;
        double table_gain = 0;
        AlignmentEnd first;
        int64_t pruned = 0;
        int32_t bound_score = 0;
        for (int r = 0; r < o.runs; ++r) {
            // A fresh pass each run (no index kept from the last): the whole cost is timed.
            std::unique_ptr<Minimap2Bound> pass;
            if (o.bound == "minimap2" && options.pruning) pass = std::make_unique<Minimap2Bound>();
            const auto start = std::chrono::steady_clock::now();
            BoundThread bound(pass.get(), s0, s1, o.scoring, 0);
            BackendOptions run = options;
            bound.lend_to(run);
            const AlignmentEnd result = backend->align_run(s0, s1, o.scoring, run);
            const BoundReport report = bound.finish(result, 0, "the benchmark pair");
            seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
            bound_seconds.push_back(report.seconds);
            bound_score = report.score;
            table_k = report.table_k;
            table_gain = report.table_gain;
            table_seconds.push_back(report.table_seconds);
            if (r == 0) first = result;
            pruned = backend->cells_pruned();
            if (result != first) throw Error(name + ": runs of the same pair disagree");
        }
        const double med = median(seconds);
        const std::string label = name + (o.checkpoint_every > 0 ? "+ckpt" : "") + (bound_score > 0 ? "+bound" : "");
        std::printf("%-10s %12lld %12lld %5d %10.3f %10.2f %7.4f %10.1f %8d %11lld %11lld  %s | %s\n", label.c_str(),
                    static_cast<long long>(s0.length()), static_cast<long long>(s1.length()), o.runs, med,
                    cells / med / 1e9, static_cast<double>(pruned) / cells, backend->device_bytes() / 1048576.0,
                    first.score,
                    static_cast<long long>(first.s0_end), static_cast<long long>(first.s1_end),
                    backend->layout().c_str(), backend->device().c_str());
        if (bound_score > 0)
            std::printf("%-10s bound %d (%.4f of the score), its pass %.3f s (median)\n", "", bound_score,
                        static_cast<double>(bound_score) / std::max(first.score, 1), median(bound_seconds));
        if (table_k > 0)
            std::printf("%-10s gain table of %d-mers, %.3f s beside the pass (median); from (0, 0) it gains %.4f a "
                        "column of min(m, n), the score %.4f\n",
                        "", table_k, median(table_seconds), table_gain,
                        static_cast<double>(first.score) / static_cast<double>(std::min(s0.length(), s1.length())));
        std::fflush(stdout);
    }
}

BenchOptions parse(int argc, char** argv) {
    BenchOptions o;
    std::string sizes = "1M", backends = "auto";
    po::options_description d("chromalign-bench options");
    d.add_options()("help,h", "show this help")
        ("sizes", po::value<std::string>(&sizes)->default_value(sizes), "comma-separated square sizes to generate (k, M suffixes)")
        ("s0", po::value<std::string>(&o.s0_path), "benchmark this FASTA file as S0 instead of generating")
        ("s1", po::value<std::string>(&o.s1_path), "... and this one as S1")
        ("backends", po::value<std::string>(&backends)->default_value(backends), "comma-separated backends")
        ("runs", po::value<int>(&o.runs)->default_value(o.runs), "timed runs per backend (median reported)")
        ("seed", po::value<uint64_t>(&o.seed)->default_value(o.seed), "generator seed")
        ("device", po::value<int>(&o.backend_options.device)->default_value(0), "CUDA device")
        ("threads", po::value<int>(&o.backend_options.threads)->default_value(0), "CPU threads (0: every core this process may use, shared among its slabs)")
        ("alpha", po::value<int>(&o.backend_options.alpha)->default_value(0), "rows per GPU thread or CPU lane (0: auto)")
        ("blocks-per-sm", po::value<int>(&o.backend_options.blocks_per_sm)->default_value(0), "GPU blocks per multiprocessor (0: auto)")
        ("oversubscription", po::value<int>(&o.backend_options.slab_oversubscription)->default_value(0),
         "GPU block columns of a slab that starts wide, and of the grid a narrow one changes to, in shares of the resident blocks that the slabs divide (0: auto, 2 and 4; at most the slab count)")
        ("narrow-shares", po::value<int>(&o.backend_options.narrow_shares)->default_value(0),
         "GPU block columns of a narrow slab, in times the resident blocks (0: auto)")
        ("cooperative-limit", po::value<int>(&o.backend_options.cooperative_limit)->default_value(0),
         "GPU launches of more blocks split in two kernels (0: those larger than the GPU holds)")
        ("slabs", po::value<int>(&o.backend_options.slabs)->default_value(0),
         ("column slabs run at once, a thread each (0: " + default_slabs_text() + ")").c_str())
        ("pair", po::value<std::string>(&o.pair)->default_value(o.pair), "generated pairs: mutated (a copy with 5% substitutions, 0.5% short indels), random (unrelated) or related (two descendants of one ancestor, with long indels and rearrangements)")
        ("no-pruning", po::bool_switch()->notifier([&o](bool off) { o.backend_options.pruning = !off; }), "compute every cell")
        ("scheduler", po::value<std::string>(&o.scheduler)->default_value(o.scheduler),
         "cuda: tiles (external diagonals of tiles, as chromalign runs) or stream (one stream of bands, experimental)")
        ("no-narrow-grid", po::bool_switch()->notifier([&o](bool off) { o.backend_options.narrow_grid = !off; }),
         "run every slab on its default block columns, not narrow ones while the bound pass runs (to measure what those gain)")
        ("bound", po::value<std::string>(&o.bound)->default_value(o.bound), "lower bound pruning starts from, as chromalign's --bound: minimap2 (its pass timed with each run) or none")
        ("checkpoint-every", po::value<double>(&o.checkpoint_every)->default_value(0), "seconds between checkpoints during timed runs (0: none); to measure their cost")
        ("write-fasta", po::value<std::string>(&o.write_prefix), "write the generated pair of the first size to PREFIX_s0.fa and PREFIX_s1.fa, then exit");
    po::variables_map vm;
    po::store(po::parse_command_line(argc, argv, d), vm);
    po::notify(vm);
    if (vm.count("help")) {
        std::cout << d;
        std::exit(0);
    }
    for (const auto& s : split(sizes)) o.sizes.push_back(parse_size(s));
    o.backends = split(backends);
    if (o.runs < 1) throw Error("--runs must be at least 1");
    if (o.bound != "minimap2" && o.bound != "none") throw Error("--bound must be minimap2 or none");
    if (o.scheduler != "tiles" && o.scheduler != "stream") throw Error("--scheduler must be tiles or stream");
    o.backend_options.band_stream = o.scheduler == "stream";
    if (o.backend_options.threads < 0) throw Error("--threads must be >= 0");
    if (o.backend_options.slab_oversubscription < 0) throw Error("--oversubscription must be >= 0");
    if (o.backend_options.narrow_shares < 0) throw Error("--narrow-shares must be >= 0");
    if (o.backend_options.cooperative_limit < 0) throw Error("--cooperative-limit must be >= 0");
    if (o.s0_path.empty() != o.s1_path.empty()) throw Error("--s0 and --s1 go together");
    return o;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const BenchOptions o = parse(argc, argv);
        if (!o.write_prefix.empty()) {
            const auto [s0, s1] = generate_pair(o.pair, o.sizes.at(0), o.seed);
            io::write_fasta(o.write_prefix + "_s0.fa", s0);
            io::write_fasta(o.write_prefix + "_s1.fa", s1);
            return 0;
        }
        std::printf("%-10s %12s %12s %5s %10s %10s %7s %10s %8s %11s %11s  %s\n", "backend", "m", "n", "runs",
                    "median_s", "GCUPS", "pruned", "dev_MiB", "score", "s0_end", "s1_end", "grid | device");
        if (!o.s0_path.empty()) {
            bench_pair(o, io::read_fasta(o.s0_path, {}), io::read_fasta(o.s1_path, {}));
            return 0;
        }
        for (const int64_t n : o.sizes) {
            const auto [s0, s1] = generate_pair(o.pair, n, o.seed);
            bench_pair(o, s0, s1);
        }
        return 0;
    } catch (const po::error& e) {
        std::cerr << "chromalign-bench: " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "chromalign-bench: " << e.what() << "\n";
        return 1;
    }
}
