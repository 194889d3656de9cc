//! @file write_svg, svg_escaped and path_points.
#include "io/svg_path.hpp"

#include <cmath>
#include <fstream>
#include <sstream>

#include "engine/error.hpp"

namespace chromalign::io {

void write_svg(const std::string& path, const std::string& svg) {
    std::ofstream out(path);
    out << svg;
    out.close();
    if (!out) throw Error("cannot write the plot to '" + path + "'");
}

std::string svg_escaped(const std::string& text) {
    std::string out;
    for (const char c : text) {
        if (c == '<') out += "&lt;";
        else if (c == '>') out += "&gt;";
        else if (c == '&') out += "&amp;";
        else if (c == '"') out += "&quot;";
        else out += c;
    }
    return out;
}

std::string path_points(const Alignment& a, const std::function<double(double)>& x_of,
                        const std::function<double(double)>& y_of) {
    std::ostringstream points;
    int64_t i = a.s0_start - 1, j = a.s1_start - 1;  // the cell before the first
    double last_x = -1, last_y = -1;
    const auto point = [&](bool always) {
        const double x = x_of(static_cast<double>(j)), y = y_of(static_cast<double>(i));
        if (!always && std::abs(x - last_x) < 0.5 && std::abs(y - last_y) < 0.5) return;
        points << x << "," << y << " ";
        last_x = x;
        last_y = y;
    };
    point(true);
    for (const AlignmentRun& r : a.runs) {
        if (r.op != 'D') i += r.length;
        if (r.op != 'I') j += r.length;
        point(false);
    }
    point(true);
    return points.str();
}

}  // namespace chromalign::io
