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
  bool rings = false;    // points as large open rings, to mark points of another series (a knee)
};

struct Chart {
  std::string id;  // the svg element's id, for the browser test
  std::string title, x_label, y_label;
  std::vector<Series> series;
};

// One <svg> with axes, ticks at round values (1-2-5 steps, about 5 per axis, the axis
// widened to the enclosing ticks), a legend and one <path> per series. Non-finite
// points are skipped; a chart without any point says "no data".
std::string render_svg_chart(const Chart& chart);

// Ticks for an axis over [lo, hi]: a step of 1, 2 or 5 times a power of ten that gives
// at most `max_ticks` intervals, and the multiples of it from the first at or below lo
// to the first at or above hi (so the axis is widened to them). The labels are printed
// with as many decimals as the step needs (0.25 -> "0.25", 20 -> "20").
struct Ticks {
  double step = 1;
  std::vector<double> values;  // increasing; first <= lo, last >= hi
  int decimals = 0;            // for the labels
};
Ticks nice_ticks(double lo, double hi, int max_ticks = 5);
std::string tick_label(double value, const Ticks& ticks);

// The empirical CDF of `values` at `points` evenly spaced probabilities 0, 1/(points-1),
// ..., 1: x = the value at that quantile (nearest rank on the sorted values), y = the
// probability. At most `points` pairs, however many values: a 1M-row requests.csv
// draws as 200 points.
Series cdf_series(std::string name, std::vector<double> values, size_t points = 200);

}  // namespace servesim::report
