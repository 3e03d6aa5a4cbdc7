#pragma once
// The body of the report for each kind of input (html_report.cpp picks one).
#include <string>
#include <vector>

namespace servesim::report {

std::string run_section(const std::string& run_dir);    // html_run_section.cpp
std::string sweep_section(const std::string& csv_path);  // html_sweep_section.cpp
std::string plan_section(const std::string& json_path);  // html_plan_section.cpp

// A table from already-escaped cells; the first column left-aligned.
std::string html_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);

}  // namespace servesim::report
