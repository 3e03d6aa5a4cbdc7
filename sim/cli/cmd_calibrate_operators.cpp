// `servesim calibrate operators --gpu G --data DIR [--models-dir DIR] [--split tokens|models:A,B]
//  [--predict-data DIR --predict-gpu G2] [--out FILE] [--json]`: fit the roofline's GEMM and elementwise knobs to measured
// per-operator kernel times (e.g. Vidur's A100 tables in data/operator_timings/a100)
// and write a calibrated GPU profile. The work is calibrate_operators()
// (sim/calibration/operator_calibration.h); this file parses options and prints.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "calibration/operator_calibration.h"
#include "cli/calibrate_commands.h"
#include "hardware/efficiency.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/text.h"

namespace servesim::cli {
namespace {

struct Args {
  OperatorCalibrationOptions o;
  bool no_cross_validate = false;
  bool json = false;
};

nlohmann::json error_json(const OperatorError& e) {
  return {{"n", e.n}, {"median_pct", 100 * e.median}, {"p90_pct", 100 * e.p90}, {"bias_pct", 100 * e.median_signed}};
}

nlohmann::json changes_json(const std::vector<OperatorErrorChange>& v) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& c : v) out[c.kind] = {{"before", error_json(c.before)}, {"after", error_json(c.after)}};
  return out;
}

std::string cell(const OperatorError& e) {
  if (e.n == 0) return "-";
  return fmt::format("{:.1f}/{:.1f}", 100 * e.median, 100 * e.p90);
}

// Whether the fit used the per-kind elementwise form (the one the FP32 counts belong to).
bool sm_form(const std::vector<std::string>& fields) {
  return std::find(fields.begin(), fields.end(), "act_bytes_per_sm_cycle") != fields.end();
}

// The per-kind FP32 instruction counts the fit held (kernel properties, not fitted).
nlohmann::json counted_json(const Efficiency& e) {
  return {{"act_fp32_per_byte", e.act_fp32_per_byte},
          {"norm_fp32_per_byte", e.norm_fp32_per_byte},
          {"rope_fp32_per_byte", e.rope_fp32_per_byte}};
}

void run(Args& a) {
  if (!a.o.out.empty()) check_output_file(a.o.out, "--out");  // before the fit, not after
  a.o.cross_validate = !a.no_cross_validate;
  const OperatorCalibration c = calibrate_operators(a.o);
  if (!a.o.out.empty()) {
    write_file_atomically(a.o.out, c.yaml);
  }
  if (a.json) {
    nlohmann::json fitted = nlohmann::json::object(), start = nlohmann::json::object();
    for (const auto& f : c.fit.fields) {
      fitted[f] = efficiency_field(c.fit.efficiency, f);
      start[f] = efficiency_field(c.start, f);
    }
    nlohmann::json doc = {{"gpu", c.base_file},
                          {"data", c.data},
                          {"models", c.models},
                          {"rows", c.rows},
                          {"split", c.fit.split},
                          {"samples", {{"train", c.fit.train_samples}, {"test", c.fit.test_samples}}},
                          {"efficiency_before", start},
                          {"efficiency_fitted", fitted},
                          {"efficiency_counted", counted_json(c.fit.efficiency)},
                          {"units", "efficiency times in seconds; errors are absolute % of one layer's op time"},
                          {"train", changes_json(c.train)},
                          {"test", changes_json(c.test)},
                          {"out", a.o.out}};
    if (c.predicted) {
      nlohmann::json before = nlohmann::json::object(), after = nlohmann::json::object();
      for (const auto& e : c.transfer.before) before[e.kind] = error_json(e);
      for (const auto& e : c.transfer.after) after[e.kind] = error_json(e);
      doc["transfer"] = {{"gpu", c.transfer.gpu},         {"data", c.transfer.data},
                         {"models", c.transfer.models},   {"rows", c.transfer.rows},
                         {"samples", c.transfer.samples}, {"defaults", before},
                         {"fitted", after}};
    }
    if (c.cross_validated) {
      nlohmann::json cv = nlohmann::json::object();
      for (const auto& e : c.cross_validation.test) cv[e.kind] = error_json(e);
      doc["model_holdout"] = {{"samples", c.cross_validation.test_samples}, {"test", cv}};
    }
    std::cout << doc.dump(2) << "\n";
    return;
  }
  fmt::print("{} timing rows of {} on {} ({}); split: {}\n", c.rows, join(c.models), c.base_file, c.data,
             c.fit.split);
  fmt::print("samples: {} fitted on, {} held out\n\n", c.fit.train_samples, c.fit.test_samples);
  fmt::print("fitted efficiency (was -> now):\n");
  for (const auto& f : c.fit.fields) {
    const double was = efficiency_field(c.start, f), now = efficiency_field(c.fit.efficiency, f);
    if (efficiency_field_is_time(f))
      fmt::print("  {:<24} {:8.3f} us -> {:8.3f} us\n", f, was * 1e6, now * 1e6);
    else
      fmt::print("  {:<24} {:8.4g}    -> {:8.4g}\n", f, was, now);
  }
  if (sm_form(c.fit.fields))
    fmt::print("  (held, not fitted: FP32 instructions per byte, counted in the kernels' machine code: act {:.4g}, "
               "norm {:.4g}, rope {:.4g})\n",
               c.fit.efficiency.act_fp32_per_byte, c.fit.efficiency.norm_fp32_per_byte,
               c.fit.efficiency.rope_fp32_per_byte);
  fmt::print("\nabsolute error of one layer's op time, median/p90 %, before -> after the fit:\n");
  fmt::print("{:<10} {:>13} {:>13}   {:>13} {:>13}{}\n", "op", "train before", "train after", "held-out bef.",
             "held-out aft.", c.cross_validated ? "   held-out shape" : "");
  for (std::size_t k = 0; k < c.train.size(); ++k) {
    std::string cv;
    if (c.cross_validated) cv = fmt::format("   {:>16}", cell(c.cross_validation.test[k]));
    fmt::print("{:<10} {:>13} {:>13}   {:>13} {:>13}{}\n", c.train[k].kind, cell(c.train[k].before),
               cell(c.train[k].after), cell(c.test[k].before), cell(c.test[k].after), cv);
  }
  if (c.cross_validated)
    fmt::print("(held-out shape: each layer shape fitted without its rows, {} folds pooled)\n",
               c.cross_validation.folds.size());
  if (c.predicted) {
    const OperatorTransfer& t = c.transfer;
    fmt::print("\nprediction of another GPU's tables (none of their rows fitted on): {} rows of {} on {} ({})\n",
               t.rows, join(t.models), t.gpu, t.data);
    fmt::print("absolute error, median/p90 % (bias: median signed %), with {}'s defaults and with the knobs fitted above:\n",
               t.gpu);
    fmt::print("{:<10} {:>13} {:>8}   {:>13} {:>8}\n", "op", "defaults", "bias", "fitted", "bias");
    for (std::size_t k = 0; k < t.after.size(); ++k)
      fmt::print("{:<10} {:>13} {:>+8.1f}   {:>13} {:>+8.1f}\n", t.after[k].kind, cell(t.before[k]),
                 100 * t.before[k].median_signed, cell(t.after[k]), 100 * t.after[k].median_signed);
  }
  if (!a.o.out.empty()) fmt::print("\nwrote {} (use it as hardware.gpu: {})\n", a.o.out, a.o.out);
}

}  // namespace

void register_calibrate_operators(CLI::App& calibrate) {
  static Args a;
  auto* cmd = calibrate.add_subcommand(
      "operators", "Fit GEMM/elementwise efficiency to measured per-operator kernel times (data/operator_timings/...)");
  cmd->add_option("--gpu", a.o.gpu, "GPU the tables were measured on (catalog name or uncalibrated GPU YAML)")
      ->default_val("a100-sxm4-80gb");
  cmd->add_option("--data", a.o.data, "folder of <model>.csv timing tables, or one table")->required();
  cmd->add_option("--models-dir", a.o.models_dir,
                  "model YAMLs for models not in the catalog (default: a models/ folder beside the data folder)");
  cmd->add_option("--split", a.o.split,
                  "held-out rows: tokens (every 4th distinct token count) or models:NAME[,NAME...]")
      ->default_val("tokens");
  cmd->add_flag("--no-cross-validate", a.no_cross_validate,
                "skip the leave-one-layer-shape-out errors (one refit per shape)");
  cmd->add_option("--name", a.o.name, "name of the calibrated profile (default: <gpu>-operators)");
  cmd->add_option("--display-name", a.o.display_name, "display_name of the profile");
  cmd->add_option("--source", a.o.source, "provenance of the measurements, recorded in calibration.source");
  cmd->add_option("--out", a.o.out, "write the calibrated GPU profile YAML here");
  cmd->add_option("--predict-data", a.o.predict_data,
                  "also predict these tables of another GPU with the fitted knobs (none of their rows is fitted on)");
  cmd->add_option("--predict-gpu", a.o.predict_gpu, "the GPU --predict-data was measured on (catalog name or GPU YAML)");
  cmd->add_flag("--json", a.json, "print JSON");
  cmd->callback([] { run(a); });
}

}  // namespace servesim::cli
