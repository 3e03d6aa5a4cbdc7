#include "report/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "report/html_escape.h"

namespace servesim::report {
namespace {

constexpr double kWidth = 590, kHeight = 320;
constexpr double kLeft = 70, kRight = 180, kTop = 30, kBottom = 45;  // margins
// Colour-blind-safe palette (Okabe & Ito's eight colours, first five).
constexpr const char* kColors[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00"};

struct Range {
  double lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity();
  void add(double v) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  bool empty() const { return !(lo <= hi); }
  void pad() {  // a flat series still gets a visible axis
    if (hi - lo <= 1e-12 * std::max(1.0, std::abs(hi))) {
      lo -= 0.5 * std::max(1.0, std::abs(lo) * 0.1);
      hi += 0.5 * std::max(1.0, std::abs(hi) * 0.1);
    }
  }
};

std::string coord(double v) { return fmt::format("{:.1f}", v); }

}  // namespace

Ticks nice_ticks(double lo, double hi, int max_ticks) {
  Ticks t;
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi)) {
    t.values = {lo};
    return t;
  }
  max_ticks = std::max(max_ticks, 1);
  // The smallest 1-2-5 step whose multiples cover [lo, hi] in at most max_ticks intervals.
  const double raw = (hi - lo) / max_ticks;
  double decade = std::pow(10.0, std::floor(std::log10(raw)));
  double step = decade;
  for (int guard = 0; guard < 8; ++guard) {
    for (const double m : {1.0, 2.0, 5.0}) {
      step = m * decade;
      const double first = std::floor(lo / step + 1e-9) * step, last = std::ceil(hi / step - 1e-9) * step;
      if ((last - first) / step <= max_ticks + 1e-9) {
        t.step = step;
        const auto n = static_cast<int>(std::llround((last - first) / step));
        for (int i = 0; i <= n; ++i) {
          const double v = first + i * step;
          t.values.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);  // no "-0"
        }
        t.decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9)));
        return t;
      }
    }
    decade *= 10;
  }
  t.values = {lo, hi};
  return t;
}

std::string tick_label(double value, const Ticks& ticks) {
  // Large round values print whole (20000, not 2e+04); tiny steps keep their decimals.
  if (std::abs(value) >= 1e6 || (ticks.decimals > 6 && value != 0)) return fmt::format("{:.3g}", value);
  return fmt::format("{:.{}f}", value, ticks.decimals);
}

Series cdf_series(std::string name, std::vector<double> values, size_t points) {
  Series s;
  s.name = std::move(name);
  values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return !std::isfinite(v); }),
               values.end());
  if (values.empty() || points < 2) return s;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  for (size_t k = 0; k < points; ++k) {
    const double p = static_cast<double>(k) / static_cast<double>(points - 1);
    // nearest rank: index round(p * (n - 1))
    const auto idx = static_cast<size_t>(std::llround(p * static_cast<double>(n - 1)));
    s.x.push_back(values[idx]);
    s.y.push_back(p);
  }
  return s;
}

std::string render_svg_chart(const Chart& chart) {
  Range xr, yr;
  for (const auto& s : chart.series)
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
      if (std::isfinite(s.x[i]) && std::isfinite(s.y[i])) {
        xr.add(s.x[i]);
        yr.add(s.y[i]);
      }
  std::string out = fmt::format(
      "<svg id=\"{}\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "viewBox=\"0 0 {} {}\" role=\"img\">\n<title>{}</title>\n"
      "<text x=\"{}\" y=\"18\" class=\"ctitle\">{}</text>\n",
      escape_html(chart.id), kWidth, kHeight, kWidth, kHeight, escape_html(chart.title), kLeft,
      escape_html(chart.title));
  const double pw = kWidth - kLeft - kRight, ph = kHeight - kTop - kBottom;
  if (xr.empty()) {
    out += fmt::format("<text x=\"{}\" y=\"{}\" class=\"nodata\">no data</text>\n</svg>\n", kLeft + pw / 3,
                       kTop + ph / 2);
    return out;
  }
  xr.pad();
  yr.pad();
  if (yr.lo > 0 && yr.lo < 0.3 * yr.hi) yr.lo = 0;  // start at zero when it is near
  // The axes run from tick to round tick (1-2-5 steps), so every gridline has a round label.
  const Ticks xt = nice_ticks(xr.lo, xr.hi), yt = nice_ticks(yr.lo, yr.hi);
  xr.lo = xt.values.front();
  xr.hi = xt.values.back();
  yr.lo = yt.values.front();
  yr.hi = yt.values.back();
  auto px = [&](double x) { return kLeft + (x - xr.lo) / (xr.hi - xr.lo) * pw; };
  auto py = [&](double y) { return kTop + ph - (y - yr.lo) / (yr.hi - yr.lo) * ph; };
  out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" class=\"plot\"/>\n", kLeft, kTop, pw, ph);
  for (const double fx : xt.values)
    out += fmt::format(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" class=\"grid\"/>"
        "<text x=\"{0}\" y=\"{3}\" class=\"tick\" text-anchor=\"middle\">{4}</text>\n",
        coord(px(fx)), kTop, kTop + ph, kTop + ph + 15, tick_label(fx, xt));
  for (const double fy : yt.values)
    out += fmt::format(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" class=\"grid\"/>"
        "<text x=\"{3}\" y=\"{4}\" class=\"tick\" text-anchor=\"end\">{5}</text>\n",
        kLeft, coord(py(fy)), kLeft + pw, kLeft - 5, coord(py(fy) + 4), tick_label(fy, yt));
  out += fmt::format("<text x=\"{}\" y=\"{}\" class=\"axis\" text-anchor=\"middle\">{}</text>\n", kLeft + pw / 2,
                     kHeight - 8, escape_html(chart.x_label));
  out += fmt::format(
      "<text x=\"14\" y=\"{0}\" class=\"axis\" text-anchor=\"middle\" transform=\"rotate(-90 14 {0})\">{1}</text>\n",
      kTop + ph / 2, escape_html(chart.y_label));
  for (size_t si = 0; si < chart.series.size(); ++si) {
    const auto& s = chart.series[si];
    const char* color = kColors[si % std::size(kColors)];
    std::string d, dots;
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) continue;
      d += fmt::format("{}{} {}", d.empty() ? "M" : " L", coord(px(s.x[i])), coord(py(s.y[i])));
      if (s.rings)
        dots += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"8\" fill=\"none\" stroke=\"{}\" stroke-width=\"2.5\"/>",
                            coord(px(s.x[i])), coord(py(s.y[i])), color);
      else if (s.markers)
        dots += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3.5\" fill=\"{}\"/>", coord(px(s.x[i])),
                            coord(py(s.y[i])), color);
    }
    if (s.line && !d.empty())
      out += fmt::format("<path class=\"series\" d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.8\"/>\n", d,
                         color);
    if (!dots.empty()) out += "<g class=\"series\">" + dots + "</g>\n";
    const double ly = kTop + 10 + 18.0 * static_cast<double>(si);
    out += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"4\" fill=\"{}\"/>"
        "<text x=\"{}\" y=\"{}\" class=\"legend\">{}</text>\n",
        kLeft + pw + 10, ly - 4, color, kLeft + pw + 28, ly + 1, escape_html(s.name));
  }
  out += "</svg>\n";
  return out;
}

}  // namespace servesim::report
