//! @file What both SVG plots (alignment_plot, genome_plot) do the same way: escaped text, an
//! alignment's path as polyline points, the file written.
#pragma once

#include <functional>
#include <string>

#include "engine/alignment/alignment.hpp"

namespace chromalign::io {

/// Writes the plot `svg` to `path`; throws Error naming the file when that fails.
void write_svg(const std::string& path, const std::string& svg);

/// `text` with <, >, & and " as XML entities.
std::string svg_escaped(const std::string& text);

/// The points of `a`'s path, "x,y x,y ...": a point where it starts, after each run that moved it
/// half a pixel or more, and where it ends; x_of(columns) and y_of(rows) place the point after
/// that many columns of S1 and rows of S0 as compared.
std::string path_points(const Alignment& a, const std::function<double(double)>& x_of,
                        const std::function<double(double)>& y_of);

}  // namespace chromalign::io
