#include "uncertainty/residual_csv.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

#include "util/error.h"
#include "util/paths.h"
#include "util/text.h"

namespace servesim::bands {

namespace {

const std::vector<std::string> kColumns = {"experiment", "source",  "calibrated", "family",   "framework", "load",
                                           "uncovered",  "metric",  "measured",   "predicted"};
const std::vector<std::string> kMetrics = {"ttft_mean", "ttft_p90", "ttft_p99", "tpot_mean",
                                           "e2e_mean",  "e2e_p90",  "e2e_p99"};

double positive(const std::string& text, const std::string& where) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v) || !(v > 0))
    throw Error(fmt::format("{}: '{}' is not a number > 0", where, text));
  return v;
}

}  // namespace

ResidualCsv read_residual_csv(const std::string& path) {
  const std::vector<std::string> lines = split(read_text_file(path), '\n');
  ResidualCsv out;
  bool header = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string line = lines[i];
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (trim(line).empty()) continue;
    const std::string at = fmt::format("{}:{}", path, i + 1);
    const std::vector<std::string> cells = split(line, ',');
    if (!header) {
      if (cells != kColumns)
        throw Error(fmt::format("{}: expected the header '{}'", at, fmt::join(kColumns, ",")));
      header = true;
      continue;
    }
    if (cells.size() != kColumns.size())
      throw Error(fmt::format("{}: {} fields, expected {} ({})", at, cells.size(), kColumns.size(),
                              fmt::join(kColumns, ",")));
    ++out.rows;
    auto where = [&](std::size_t col) { return fmt::format("{} ({})", at, kColumns[col]); };
    if (cells[2] != "0" && cells[2] != "1") throw Error(fmt::format("{}: expected 0 or 1", where(2)));
    if (cells[5] != "low" && cells[5] != "high") throw Error(fmt::format("{}: expected low or high", where(5)));
    bool known = false;
    for (const auto& m : kMetrics) known = known || m == cells[7];
    if (!known)
      throw Error(fmt::format("{}: '{}' is not a band metric ({})", where(7), cells[7], fmt::join(kMetrics, ", ")));
    for (std::size_t c : {0, 1, 3, 4})
      if (trim(cells[c]).empty()) throw Error(fmt::format("{}: empty", where(c)));
    const double measured = positive(cells[8], where(8)), predicted = positive(cells[9], where(9));
    if (!trim(cells[6]).empty()) {
      ++out.uncovered;
      continue;
    }
    Residual r;
    r.experiment = cells[0];
    r.source = cells[1];
    r.key = BandKey{cells[2] == "1", cells[3], cells[4], cells[5], {}};
    r.metric = cells[7];
    r.value = std::log(measured / predicted);
    out.residuals.push_back(std::move(r));
  }
  if (!header) throw Error(fmt::format("{}: empty (expected the header '{}')", path, fmt::join(kColumns, ",")));
  return out;
}

}  // namespace servesim::bands
