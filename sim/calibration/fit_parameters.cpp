#include "calibration/fit_parameters.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "hardware/efficiency.h"
#include "util/error.h"
#include "util/text.h"

namespace servesim {
namespace {

// The efficiency knobs come from their one table (hardware/efficiency.h: bounds, unit,
// start at the default); the other parameters are CPU-side or link settings.
// The CPU overheads reach tens of ms per step and hundreds of us per sequence in
// eager-mode (no CUDA graphs) Python engines driving TP workers through Ray, as in
// the 2023 vLLM that Splitwise characterised; recent engines sit near the defaults.
const std::vector<FitParameter>& table() {
  static const std::vector<FitParameter> t = [] {
    std::vector<FitParameter> out;
    for (const EfficiencyKnob& k : efficiency_knobs())
      out.push_back({std::string(k.name), "hardware.efficiency." + std::string(k.name), k.fit_lo, k.fit_hi,
                     k.default_value / knob_fit_scale(k), std::string(k.fit_unit)});
    const std::vector<FitParameter> others = {
        // Per message hop of a collective (allreduce pays 2 x ceil(log2 TP) of them): the
        // link's NCCL latency, a few us with CUDA graphs, tens of us in eager mode.
        {"intra_node_latency", "hardware.interconnect.intra_node.latency", 0.0, 200.0, 3.0, "us"},
        {"frontend_latency", "engine.frontend_latency", 0.0, 30.0, 2.0, "ms"},
        {"step_cpu_overhead", "engine.step_cpu_overhead", 0.0, 50.0, 0.5, "ms"},
        {"per_seq_cpu_overhead", "engine.per_seq_cpu_overhead", 0.0, 2000.0, 5.0, "us"},
        // Host work per sampled token and per scheduled prompt token (docs/host-cost.md):
        // tens of us per token in a Python engine (Vidur's vLLM tables: ~21 us), far less in C++.
        {"per_token_cpu_overhead", "engine.per_token_cpu_overhead", 0.0, 500.0, 5.0, "us"},
        {"prompt_token_cpu_overhead", "engine.prompt_token_cpu_overhead", 0.0, 20.0, 0.1, "us"},
        // The share of that host work hidden under the GPU step.
        {"host_overlap", "engine.host_overlap", 0.0, 1.0, 0.5, ""},
        // CPU time per kernel launch without CUDA graphs: microseconds from C++, tens from
        // Python dispatch; 100 us would be a stalled host, not a launch.
        {"kernel_launch_overhead", "engine.kernel_launch_overhead", 0.0, 100.0, 5.0, "us"},
        // Per hop of an eagerly launched collective: a few us inside CUDA graphs, tens
        // of us when each NCCL call is launched and synchronised from the host.
        {"collective_latency", "engine.collective_latency", 0.0, 200.0, 3.0, "us"},
        // A framework's prefill GEMMs against the catalog's vLLM/cuBLAS-derived gemm_compute:
        // 0.7-1.3 spans hand-tuned kernels a third slower or faster; the product stays <= 1
        // for any profile with gemm_compute <= 0.75 (the catalog's is 0.70).
        {"gemm_compute_ratio", "engine.gemm_compute_ratio", 0.7, 1.3, 1.0, ""},
        // A framework's decode-attention kernels against the catalog's attention_memory (vLLM's
        // paged attention): the product stays <= 1 for any profile with attention_memory <= 0.77
        // over 0.7-1.3 (the catalog's is 0.70).
        {"attention_memory_ratio", "engine.attention_memory_ratio", 0.7, 1.3, 1.0, ""},
        // Host time per layer of a prefill step: 0 for kernels replayed from the GPU's
        // queue, hundreds of us for per-layer set-up on the host.
        {"prefill_layer_overhead", "engine.prefill_layer_overhead", 0.0, 1000.0, 50.0, "us"},
    };
    out.insert(out.end(), others.begin(), others.end());
    return out;
  }();
  return t;
}

double logistic(double x) { return 1.0 / (1.0 + std::exp(-x)); }

double seconds_per_unit(const std::string& unit) {
  if (unit == "ms") return 1e-3;
  if (unit == "us") return 1e-6;
  return 1.0;
}

}  // namespace

const std::vector<std::string>& fit_parameter_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& p : table()) n.push_back(p.name);
    return n;
  }();
  return names;
}

FitParameter fit_parameter(const std::string& name) {
  for (const auto& p : table())
    if (p.name == name) return p;
  throw Error(fmt::format("calibrate: unknown parameter '{}'{} (valid: {})", name,
                          did_you_mean(name, fit_parameter_names()), join(fit_parameter_names())));
}

std::vector<FitParameter> parse_fit_parameters(const std::string& comma_list) {
  std::vector<FitParameter> out;
  for (const auto& item : split(comma_list, ',')) {
    const std::string name = trim(item);
    if (name.empty()) throw Error(fmt::format("calibrate: --params '{}' has an empty name", comma_list));
    for (const auto& p : out)
      if (p.name == name) throw Error(fmt::format("calibrate: parameter '{}' given twice", name));
    out.push_back(fit_parameter(name));
  }
  if (out.empty()) throw Error("calibrate: no parameters to fit (--params)");
  return out;
}

bool is_engine_parameter(const FitParameter& p) { return p.key.rfind("engine.", 0) == 0; }
bool is_efficiency_parameter(const FitParameter& p) { return p.key.rfind("hardware.efficiency.", 0) == 0; }

double parameter_value(const FitParameter& p, double x) { return p.lo + (p.hi - p.lo) * logistic(x); }

double parameter_coordinate(const FitParameter& p, double value) {
  const double f = std::clamp((value - p.lo) / (p.hi - p.lo), 1e-4, 1.0 - 1e-4);
  return std::log(f / (1.0 - f));
}

double current_value(const Setup& s, const FitParameter& p) {
  const double scale = seconds_per_unit(p.unit);
  const std::string eff = "hardware.efficiency.";
  if (p.key.rfind(eff, 0) == 0) return efficiency_field(s.gpu.efficiency, p.key.substr(eff.size())) / scale;
  if (p.key == "hardware.interconnect.intra_node.latency") return s.gpu.intra_node.latency / scale;
  if (p.key == "engine.step_cpu_overhead") return s.engine.step_cpu_overhead / scale;
  if (p.key == "engine.per_seq_cpu_overhead") return s.engine.per_seq_cpu_overhead / scale;
  if (p.key == "engine.frontend_latency") return s.engine.frontend_latency / scale;
  if (p.key == "engine.per_token_cpu_overhead") return s.engine.per_token_cpu_overhead / scale;
  if (p.key == "engine.prompt_token_cpu_overhead") return s.engine.prompt_token_cpu_overhead / scale;
  if (p.key == "engine.host_overlap") return s.engine.host_overlap / scale;
  if (p.key == "engine.kernel_launch_overhead") return s.engine.kernel_launch_overhead / scale;
  if (p.key == "engine.gemm_compute_ratio") return s.engine.gemm_compute_ratio / scale;
  if (p.key == "engine.attention_memory_ratio") return s.engine.attention_memory_ratio / scale;
  if (p.key == "engine.prefill_layer_overhead") return s.engine.prefill_layer_overhead / scale;
  // The effective per-hop latency (read_setup.cpp put the larger of the two in the link).
  if (p.key == "engine.collective_latency") return s.gpu.intra_node.latency / scale;
  throw Error(fmt::format("calibrate: no current value for '{}'", p.key));
}

std::string parameter_yaml_value(const FitParameter& p, double value) {
  return p.unit.empty() ? fmt::format("{:.4g}", value) : fmt::format("\"{:.4g} {}\"", value, p.unit);
}

std::vector<ConfigEdit> parameter_edits(const std::vector<FitParameter>& params, const std::vector<double>& values) {
  std::vector<ConfigEdit> out;
  out.reserve(params.size());
  // A value of "v us" is read as v * 1e-6 s (util/units.cpp), so v * 1e-6 here is the
  // same double a --set written with the round-trip digits of v would give.
  for (std::size_t i = 0; i < params.size(); ++i)
    out.push_back(number_edit(params[i].key, values[i] * seconds_per_unit(params[i].unit), "fitted value"));
  return out;
}

double round_significant(double v, int digits) {
  const std::string text = fmt::format("{:.{}g}", v, digits);
  return std::strtod(text.c_str(), nullptr);
}

std::vector<std::string> parameter_overrides(const std::vector<FitParameter>& params, const std::vector<double>& values,
                                             int digits) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const std::string v = fmt::format("{:.{}g}", values[i], digits);
    out.push_back(params[i].unit.empty() ? fmt::format("{}={}", params[i].key, v)
                                         : fmt::format("{}=\"{} {}\"", params[i].key, v, params[i].unit));
  }
  return out;
}

}  // namespace servesim
