#pragma once
// Each subcommand registers itself on the app; callbacks throw servesim::Error,
// which main() turns into exit code 1.
#include <CLI/CLI.hpp>

namespace servesim::cli {

void register_list(CLI::App& app);
void register_inspect(CLI::App& app);
void register_run(CLI::App& app);
void register_experiments(CLI::App& app);
void register_validate(CLI::App& app);  // validate, validate-static, validate-report
void register_calibrate(CLI::App& app);
void register_planning(CLI::App& app);  // sweep, plan, whatif
void register_describe(CLI::App& app);  // every configuration key (docs/config-reference.md)
void register_report(CLI::App& app);    // HTML page of a run, sweep or plan (cmd_report.cpp)
void register_llama_bench(CLI::App& app);  // the llama-bench view (cmd_llama_bench.cpp)

}  // namespace servesim::cli
