#pragma once
// Charts drawn on the server side as inline SVG: the report page needs no script
// library and no network to show them.
#include <string>
#include <vector>

namespace servesim::report {

struct Series {
  std::string name;
  std::vector<double> x, y;
  bool markers = false;  // points as dots (a scatter) besides or instead of the line
  bool line = true;
};

struct Chart {
  std::string id;  // the svg element's id, for the browser test
  std::string title, x_label, y_label;
  std::vector<Series> series;
};

// One <svg> with axes, 5 ticks per axis, a legend and one <path> per series.
// Non-finite points are skipped; a chart without any point says "no data".
std::string render_svg_chart(const Chart& chart);

// The empirical CDF of `values` at `points` evenly spaced probabilities 0, 1/(points-1),
// ..., 1: x = the value at that quantile (nearest rank on the sorted values), y = the
// probability. At most `points` pairs, however many values: a 1M-row requests.csv
// draws as 200 points.
Series cdf_series(std::string name, std::vector<double> values, size_t points = 200);

}  // namespace servesim::report
