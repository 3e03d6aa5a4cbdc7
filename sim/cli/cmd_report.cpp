// `servesim report RUN_DIR|SWEEP.csv|PLAN.json --out report.html`: one self-contained
// HTML page (inline CSS and SVG charts, no network) of a run, a sweep or a plan.
#include <fmt/format.h>

#include <iostream>

#include "cli/commands.h"
#include "report/html_report.h"
#include "util/atomic_file.h"

namespace servesim::cli {

void register_report(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "report", "Write one self-contained HTML page (charts, summary, configuration) of a run folder, sweep CSV or plan");
  static std::string input;
  static std::string out;
  cmd->add_option("input", input, "a `run --out` folder, a `sweep --out` CSV, or a `plan --out` folder or its plan.json")
      ->required();
  cmd->add_option("--out", out, "the HTML file to write (whole or not at all)")->required();
  cmd->callback([] {
    const auto kind = report::detect_report_input(input);
    write_file_atomically(out, report::render_html_report(kind));
    std::cout << fmt::format("wrote {} ({} report of {})\n", out, report::input_kind_name(kind.kind), input);
  });
}

}  // namespace servesim::cli
