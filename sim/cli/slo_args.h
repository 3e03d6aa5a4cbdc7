#pragma once
// `--slo KEY=VALUE` (run, sweep, plan, whatif, validate): SLOs that replace the
// scenario's whole `slo:` section, where `--set slo.KEY=VALUE` changes one limit and
// keeps the file's others. KEY is a metric and statistic ("ttft_ms.p99", limits in
// ms) or "attainment"; `--slo none` means no SLOs at all.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace servesim::cli {

// Adds the --slo option to `cmd`, collecting its values in `slo`.
void add_slo_option(CLI::App* cmd, std::vector<std::string>& slo);

// The overrides the command applies: the --slo section (if any: "slo={}" and its
// limits, checked here so that a typo names --slo with a did-you-mean) first, then
// the --set overrides in their order.
std::vector<std::string> overrides_with_slo(const std::vector<std::string>& slo, const std::vector<std::string>& sets);

// Which SLOs apply and where each limit came from, when the command line touched
// them: "" when neither --slo nor --set slo.* was given. E.g. "SLOs: ttft_ms.p99 from
// --set, tpot_ms.p99 from scenarios/quickstart.yaml (--slo replaces the file's SLOs
// instead of adding to them)".
std::string slo_sources_note(const std::string& scenario_path, const std::vector<std::string>& slo,
                             const std::vector<std::string>& sets);

}  // namespace servesim::cli
