#pragma once
// The validation subcommands beside `validate` (registered together by
// register_validate in commands.h).
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "validation/trace_validation.h"

namespace servesim::cli {

void register_validate_static(CLI::App& app);  // validate-static
void register_validate_report(CLI::App& app);  // validate-report
void register_validate_moe(CLI::App& app);     // validate-moe (cmd_validate_moe.cpp)

// The report section from `servesim calibrate static --json` documents (report_calibration.cpp).
void static_calibration_tables(std::string& md, const std::vector<nlohmann::json>& docs);

// `servesim validate --json` output (validate-report reads it back).
nlohmann::json trace_validation_json(const Scenario& sc, const TraceValidation& v);

}  // namespace servesim::cli
