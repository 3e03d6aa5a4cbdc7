// The validation report's static-batch calibration section: one table row per data set
// and metric from `servesim calibrate static --json` output (validate-report --calibration).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "cli/validate_commands.h"
#include "util/text.h"

namespace servesim::cli {

namespace {

std::string value_text(const nlohmann::json& p) {
  const double v = p.value("value", 0.0);
  const std::string unit = p.value("unit", "");
  const std::string num = std::fabs(v) >= 100 ? fmt::format("{:.0f}", v) : fmt::format("{:.3g}", v);
  return unit.empty() ? num : num + " " + unit;
}

}  // namespace

void static_calibration_tables(std::string& md, const std::vector<nlohmann::json>& docs) {
  md += "## Static-batch calibration (`servesim calibrate static`, held-out rows)\n\n"
        "Each data set fitted on its own (frameworks differ in CPU overheads). Median |error| of the held-out rows "
        "before (catalog defaults) and after the fit; how the rows were split is in each line. Fitted values are "
        "not carried into the tables above.\n\n"
        "| data set | GPU | fitted | metric | n fitted / held out | held-out before | held-out after | bias after |\n"
        "|---|---|---|---|---:|---:|---:|---:|\n";
  for (const auto& d : docs) {
    std::vector<std::string> params;
    for (const auto& [name, p] : d.at("parameters").items()) params.push_back(name + " " + value_text(p));
    bool first = true;
    for (const auto& g : d.at("groups")) {
      const bool all = g.value("metric", "") == "all";
      md += fmt::format("| {} | {} | {} | {} | {} / {} | {:.1f}% | {} | {:+.1f}% |\n",
                        first ? g.value("dataset", "") : "", first ? d.value("gpu", "") : "",
                        first ? join(params) : "", all ? "**all**" : g.value("metric", ""), g.value("train_n", 0),
                        g.value("test_n", 0), g.at("test_median_abs_error_pct").value("before", 0.0),
                        [&] {
                          const std::string v =
                              fmt::format("{:.1f}%", g.at("test_median_abs_error_pct").value("after", 0.0));
                          return all ? "**" + v + "**" : v;
                        }(),
                        g.value("test_median_error_pct_after", 0.0));
      first = false;
    }
  }
  // The split and loss, once when every fit used the same.
  std::vector<std::string> splits;
  for (const auto& d : docs) {
    const std::string s = fmt::format("{} ({} loss)", d.value("split", ""), d.value("loss", ""));
    if (std::find(splits.begin(), splits.end(), s) == splits.end()) splits.push_back(s);
  }
  md += "\nSplit: " + join(splits, "; ") + ".\n\n";
}

}  // namespace servesim::cli
