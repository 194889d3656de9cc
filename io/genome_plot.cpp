//! @file The SVG of the genome dot plot, written by hand: axes, record boundaries, polylines.
#include "io/genome_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "io/svg_path.hpp"

namespace chromalign::io {
namespace {

constexpr double kWidth = 800;  ///< pixels for all of S1
constexpr int kLeft = 110, kTop = 140, kRight = 40, kBottom = 60;  ///< room for ticks and names
constexpr const char* kForwardColour = "#d62728";
constexpr const char* kReverseColour = "#1f77b4";

/// A record's name as drawn: its region when not the whole record, cut to 24 characters.
std::string name_of(const Sequence& s) {
    std::string name = s.region().empty() ? s.name : s.name + ":" + s.region();
    if (name.size() > 24) name = name.substr(0, 23) + "~";
    return svg_escaped(name);
}

/// 1, 2 or 5 times a power of ten: about `target` ticks over `total` bases.
double tick_step(double total, double target) {
    const double raw = std::max(total / target, 1.0), power = std::pow(10.0, std::floor(std::log10(raw)));
    for (const double f : {1.0, 2.0, 5.0})
        if (f * power >= raw) return f * power;
    return 10 * power;
}

/// Where each record starts along an axis, and the axis's total.
std::vector<double> offsets(const std::vector<Sequence>& records, double& total) {
    std::vector<double> at;
    total = 0;
    for (const Sequence& s : records) {
        at.push_back(total);
        total += static_cast<double>(std::max<int64_t>(s.length(), 1));
    }
    return at;
}

}  // namespace

std::string axis_label(double bases, double step) {
    char text[32];
    if (bases == 0) return "0";
    if (step >= 1e6) std::snprintf(text, sizeof text, "%g Mbp", bases / 1e6);
    else if (step >= 1e3) std::snprintf(text, sizeof text, "%g kbp", bases / 1e3);
    else std::snprintf(text, sizeof text, "%g bp", bases);
    return text;
}

void write_genome_plot(const std::string& path, const std::vector<Sequence>& s0, const std::vector<Sequence>& s1,
                       const std::vector<PlottedAlignment>& alignments) {
    double m = 0, n = 0;
    const std::vector<double> down = offsets(s0, m), across = offsets(s1, n);
    const double scale = kWidth / n, height = std::clamp(m * scale, 200.0, 4 * kWidth), yscale = height / m;
    std::ostringstream svg;
    svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kLeft + kWidth + kRight << "\" height=\""
        << kTop + height + kBottom << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
    svg << "<title>chromalign: " << alignments.size() << " alignments</title>\n";
    svg << "<g transform=\"translate(" << kLeft << "," << kTop << ")\">\n";
    svg << "<rect width=\"" << kWidth << "\" height=\"" << height << "\" fill=\"white\" stroke=\"#444\"/>\n";
    // Ticks: S1's along the bottom, S0's along the left, in positions of the genome laid out.
    const double step1 = tick_step(n, 8), step0 = tick_step(m, 8 * height / kWidth + 2);
    for (double t = 0; t <= n; t += step1)
        svg << "<line x1=\"" << t * scale << "\" y1=\"" << height << "\" x2=\"" << t * scale << "\" y2=\"" << height + 5
            << "\" stroke=\"#444\"/><text x=\"" << t * scale << "\" y=\"" << height + 18
            << "\" text-anchor=\"middle\">" << axis_label(t, step1) << "</text>\n";
    for (double t = 0; t <= m; t += step0)
        svg << "<line x1=\"-5\" y1=\"" << t * yscale << "\" x2=\"0\" y2=\"" << t * yscale
            << "\" stroke=\"#444\"/><text x=\"-8\" y=\"" << t * yscale + 4 << "\" text-anchor=\"end\">"
            << axis_label(t, step0) << "</text>\n";
    // Record boundaries, and each record's name beside its span.
    for (size_t r = 0; r < s1.size(); ++r) {
        const double x = across[r] * scale, w = static_cast<double>(std::max<int64_t>(s1[r].length(), 1)) * scale;
        if (r > 0)
            svg << "<line x1=\"" << x << "\" y1=\"0\" x2=\"" << x << "\" y2=\"" << height
                << "\" stroke=\"#999\" stroke-dasharray=\"4,3\"/>\n";
        if (w >= 12)
            svg << "<text transform=\"translate(" << x + w / 2 << ",-6) rotate(-45)\">" << name_of(s1[r]) << "</text>\n";
    }
    for (size_t r = 0; r < s0.size(); ++r) {
        const double y = down[r] * yscale, h = static_cast<double>(std::max<int64_t>(s0[r].length(), 1)) * yscale;
        if (r > 0)
            svg << "<line x1=\"0\" y1=\"" << y << "\" x2=\"" << kWidth << "\" y2=\"" << y
                << "\" stroke=\"#999\" stroke-dasharray=\"4,3\"/>\n";
        if (h >= 12)
            svg << "<text transform=\"translate(-60," << y + h / 2 << ") rotate(-90)\" text-anchor=\"middle\">"
                << name_of(s0[r]) << "</text>\n";
    }
    // Each alignment's path, a point each time it has moved half a pixel; the worst drawn first.
    std::vector<const PlottedAlignment*> order;
    for (const PlottedAlignment& p : alignments)
        if (p.alignment && !p.alignment->runs.empty()) order.push_back(&p);
    std::stable_sort(order.begin(), order.end(), [](const PlottedAlignment* a, const PlottedAlignment* b) {
        return a->alignment->score < b->alignment->score;
    });
    for (const PlottedAlignment* p : order) {
        const Alignment& a = *p->alignment;
        const bool reverse = p->strand == Strand::kReverse;
        const double length1 = static_cast<double>(s1[p->s1].length());
        const auto x_of = [&](double columns) { return (across[p->s1] + (reverse ? length1 - columns : columns)) * scale; };
        const auto y_of = [&](double rows) { return (down[p->s0] + rows) * yscale; };
        svg << "<polyline fill=\"none\" stroke=\"" << (reverse ? kReverseColour : kForwardColour)
            << "\" stroke-width=\"1.5\" points=\"" << path_points(a, x_of, y_of);
        svg << "\"><title>alignment " << p->rank << " of " << name_of(s0[p->s0]) << " x " << name_of(s1[p->s1])
            << ", strand " << strand_char(p->strand) << ": score " << a.score << ", S0 " << s0[p->s0].in_record(a.s0_start)
            << "-" << s0[p->s0].in_record(a.s0_end) << ", S1 " << forward_position(s1[p->s1], p->strand, a.s1_start)
            << "-" << forward_position(s1[p->s1], p->strand, a.s1_end) << "</title></polyline>\n";
    }
    svg << "</g>\n";
    const auto records = [](size_t count) { return std::to_string(count) + (count == 1 ? " record, " : " records, "); };
    svg << "<text x=\"" << kLeft << "\" y=\"18\" font-size=\"12\">" << alignments.size()
        << " alignments; S1 across (" << records(s1.size()) << static_cast<int64_t>(n) << " bp), S0 down ("
        << records(s0.size()) << static_cast<int64_t>(m) << " bp); <tspan fill=\"" << kForwardColour
        << "\">forward</tspan>, <tspan fill=\"" << kReverseColour << "\">reverse</tspan> strand</text>\n";
    svg << "</svg>\n";
    write_svg(path, svg.str());
}

}  // namespace chromalign::io
