#pragma once
// `servesim report`: one self-contained HTML page (inline CSS and SVG, a few lines of
// script, nothing fetched) from a run folder, a sweep CSV or a plan.
#include <string>

#include "report/report_input.h"

namespace servesim::report {

// The whole page. Same input, same bytes (no clock, no locale, no random ids).
// Errors (missing files, unreadable JSON/CSV) name the file.
std::string render_html_report(const ReportInput& input);

}  // namespace servesim::report
