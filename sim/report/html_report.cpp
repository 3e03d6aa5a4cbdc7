#include "report/html_report.h"

#include <fmt/format.h>

#include "report/html_escape.h"
#include "report/html_page.h"
#include "report/html_sections.h"

namespace servesim::report {

std::string html_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                       const std::vector<std::string>& row_classes) {
  std::string out = "<table>\n<tr>";
  for (size_t i = 0; i < header.size(); ++i) out += fmt::format("<th{}>{}</th>", i == 0 ? " class=\"l\"" : "", header[i]);
  out += "</tr>\n";
  for (size_t r = 0; r < rows.size(); ++r) {
    const auto& row = rows[r];
    out += r < row_classes.size() && !row_classes[r].empty() ? fmt::format("<tr class=\"{}\">", row_classes[r]) : "<tr>";
    for (size_t i = 0; i < row.size(); ++i) out += fmt::format("<td{}>{}</td>", i == 0 ? " class=\"l\"" : "", row[i]);
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

std::string render_html_report(const ReportInput& input) {
  std::string body;
  switch (input.kind) {
    case InputKind::Run: body = run_section(input.path); break;
    case InputKind::Sweep: body = sweep_section(input.path); break;
    case InputKind::Plan: body = plan_section(input.path); break;
  }
  return html_page(fmt::format("servesim {} report: {}", input_kind_name(input.kind), input.path), body);
}

}  // namespace servesim::report
