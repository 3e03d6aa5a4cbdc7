#pragma once
// The body of the report for each kind of input (html_report.cpp picks one).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace servesim::report {

std::string run_section(const std::string& run_dir);    // html_run_section.cpp
std::string sweep_section(const std::string& csv_path);  // html_sweep_section.cpp
std::string plan_section(const std::string& json_path);  // html_plan_section.cpp

// The top of a run's page from its summary.json: setup, verdict (SLOs, OVERLOADED,
// failures by reason), latencies with their bands, energy and cost (html_run_verdict.cpp).
std::string run_verdict_section(const nlohmann::json& summary);
// "a · b · c"
std::string join_words(const std::vector<std::string>& parts, const std::string& sep);

// A table from already-escaped cells; the first column left-aligned; row_classes[i]
// (when given and not empty) is row i's class attribute.
std::string html_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                       const std::vector<std::string>& row_classes = {});

}  // namespace servesim::report
