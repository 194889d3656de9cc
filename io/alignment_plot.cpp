//! @file The SVG of --plot, written by hand: rectangles and one polyline.
#include "io/alignment_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "io/svg_path.hpp"

namespace chromalign::io {
namespace {

constexpr double kWidth = 800;           ///< pixels for S1
constexpr int64_t kMaxCells = 40000;     ///< map rectangles at most (the file stays a few MB)
constexpr int kMargin = 60;

/// The record's name, with the region compared (in forward positions) when it is not the whole record.
std::string label(const Sequence& s, Strand strand) {
    if (s.region().empty()) return svg_escaped(s.name);
    const int64_t first = forward_position(s, strand, 1), last = forward_position(s, strand, s.length());
    return svg_escaped(s.name) + ":" + std::to_string(std::min(first, last)) + "-" + std::to_string(std::max(first, last));
}

/// Regions where no H rose above 0: the blocks pruning skipped.
constexpr const char* kSkippedFill = "#d9d9d9";

/// White for 0 up to deep blue for the alignment's score.
std::string shade(double fraction) {
    fraction = std::clamp(fraction, 0.0, 1.0);
    char color[8];
    std::snprintf(color, sizeof color, "#%02x%02x%02x", static_cast<int>(255 - 215 * fraction),
                  static_cast<int>(255 - 155 * fraction), 255);
    return color;
}

}  // namespace

void write_alignment_plot(const std::string& path, const Sequence& s0, const Sequence& s1, const Alignment& a,
                          const ScoreMap& map, Strand strand) {
    const double m = static_cast<double>(std::max<int64_t>(s0.length(), 1)),
                 n = static_cast<double>(std::max<int64_t>(s1.length(), 1));
    const double scale = kWidth / n, height = std::clamp(m * scale, 100.0, 4 * kWidth), yscale = height / m;
    const bool reverse = strand == Strand::kReverse;
    // x of the line after `columns` columns of s1 as compared: S1 runs forward across the plot.
    const auto x_of = [&](double columns) { return (reverse ? n - columns : columns) * scale; };
    std::ostringstream svg;
    svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth + 2 * kMargin << "\" height=\""
        << height + 2 * kMargin << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
    svg << "<title>chromalign: " << svg_escaped(s0.name) << " x " << svg_escaped(s1.name) << ", score " << a.score << "</title>\n";
    svg << "<g transform=\"translate(" << kMargin << "," << kMargin << ")\">\n";
    svg << "<rect width=\"" << kWidth << "\" height=\"" << height << "\" fill=\"white\" stroke=\"#888\"/>\n";
    // The map: each kept row shades the rows from the one before it, its runs merged into bins.
    if (!map.rows.empty() && a.score > 0) {
        const int64_t runs = static_cast<int64_t>(map.rows.begin()->second.size());
        const int64_t per_row = std::max<int64_t>(1, kMaxCells / static_cast<int64_t>(map.rows.size()));
        const int64_t merge = std::max<int64_t>(1, (runs + per_row - 1) / per_row);
        int64_t above = 0;
        for (const auto& [row, peaks] : map.rows) {
            for (int64_t b = 0; b < static_cast<int64_t>(peaks.size()); b += merge) {
                int32_t best = 0;
                for (int64_t k = b; k < std::min<int64_t>(b + merge, static_cast<int64_t>(peaks.size())); ++k)
                    best = std::max(best, peaks[static_cast<size_t>(k)]);
                // Pruning leaves H at 0 in the blocks it skips; a region where stage 1 computed
                // cells has some H above 0 at the rows sampled, unless its bases never match.
                const bool skipped = best <= 0;
                const double x0 = x_of(static_cast<double>(b * map.columns));
                const double x1 = x_of(std::min(n, static_cast<double>((b + merge) * map.columns)));
                svg << "<rect x=\"" << std::min(x0, x1) << "\" y=\"" << static_cast<double>(above) * yscale
                    << "\" width=\"" << std::max(std::abs(x1 - x0), 0.1) << "\" height=\""
                    << std::max(static_cast<double>(row - above) * yscale, 0.1) << "\" fill=\""
                    << (skipped ? kSkippedFill : shade(static_cast<double>(best) / a.score)) << "\"/>\n";
            }
            above = row;
        }
    }
    // The path, a point each time it has moved half a pixel.
    if (!a.runs.empty()) {
        svg << "<polyline fill=\"none\" stroke=\"" << (reverse ? "#2ca02c" : "#d62728")
            << "\" stroke-width=\"1.5\" points=\""
            << path_points(a, x_of, [&](double rows) { return rows * yscale; });
        svg << "\"/>\n";
    }
    svg << "</g>\n";
    svg << "<text x=\"" << kMargin << "\" y=\"20\">" << label(s1, strand) << " (S1, " << s1.length()
        << " bp) across, forward strand; " << label(s0, Strand::kForward) << " (S0, " << s0.length()
        << " bp) down</text>\n";
    svg << "<text x=\"" << kMargin << "\" y=\"38\">alignment on the " << strand_name(strand) << " strand ("
        << strand_char(strand) << "): score " << a.score << ", S0 " << s0.in_record(a.s0_start) << "-"
        << s0.in_record(a.s0_end) << ", S1 " << forward_position(s1, strand, a.s1_start) << "-"
        << forward_position(s1, strand, a.s1_end)
        << (map.rows.empty() ? "" : "; blue: stage 1's best H in each region, grey: H 0 throughout (pruned)")
        << "</text>\n";
    svg << "</svg>\n";
    write_svg(path, svg.str());
}

}  // namespace chromalign::io
