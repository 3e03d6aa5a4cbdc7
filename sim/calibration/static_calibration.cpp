#include "calibration/static_calibration.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "calibration/calibrated_profile.h"
#include "calibration/operator_calibration.h"
#include "util/error.h"
#include "util/paths.h"
#include "util/text.h"

namespace servesim {
namespace {

// A YAML scalar in single quotes (the overrides hold double quotes).
std::string single_quoted(const std::string& s) {
  std::string q = "'";
  for (const char c : s) q += c == '\'' ? std::string("''") : std::string(1, c);
  return q + "'";
}

std::string flow_list(const std::vector<std::string>& items, bool quote) {
  std::vector<std::string> q;
  for (const auto& i : items) q.push_back(quote ? single_quoted(i) : i);
  return fmt::format("[{}]", join(q));
}

// The value of a "hardware.gpu=..." fixed override, without quotes; "" when none.
std::string gpu_override(const std::vector<std::string>& overrides) {
  std::string v;
  for (const auto& o : overrides)
    if (o.rfind("hardware.gpu=", 0) == 0) v = trim(o.substr(std::string("hardware.gpu=").size()));
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) v = v.substr(1, v.size() - 2);
  return v;
}

std::string shell_word(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:,*") ==
                        std::string::npos)
    return s;
  return single_quoted(s);  // the overrides hold double quotes
}

std::string render_profile(const StaticCalibrationOptions& o, const StaticCalibration& c, const std::string& base_path) {
  std::string base_yaml = read_text_file(base_path);
  // Fitted hardware values outside `efficiency:` (the interconnect) replace the base's.
  for (std::size_t i = 0; i < c.params.size(); ++i) {
    const FitParameter& p = c.params[i];
    if (is_engine_parameter(p) || is_efficiency_parameter(p)) continue;
    base_yaml = replace_yaml_scalar(base_yaml, c.base_file, split(p.key.substr(std::string("hardware.").size()), '.'),
                                    parameter_yaml_value(p, c.fit.values[i]), "fitted by `servesim calibrate static`");
  }
  const std::string display = base_display_name(base_yaml, c.base_file);
  std::vector<std::string> data;
  for (const auto& d : o.data) data.push_back(repository_relative(d));
  std::vector<std::string> header = {
      fmt::format("{} calibrated against static-batch measurements; GENERATED, do not edit.", display),
      fmt::format("Written by `servesim calibrate static` (sim/calibration/static_calibration.cpp) from {}", c.base_file),
      fmt::format("and {}. Regenerate with:", join(data))};
  for (const auto& line : c.regenerate) header.push_back("  " + line);
  header.push_back("Engine CPU overheads are not GPU properties: they are in calibration.engine_settings; apply them");
  header.push_back("with --set next to hardware.gpu=<this file> (validate-experiments --profiles applies them itself).");
  header.push_back("Everything down to `efficiency:` is the base profile, verbatim except name and display_name.");
  const std::string name = o.name.empty() ? c.rows.gpu + "-static" : o.name;
  std::ostringstream out;
  out << renamed_gpu_profile(base_yaml, c.base_file, name, display + " (static-batch-calibrated)", header) << "\n";

  std::vector<std::string> fitted_fields;
  for (const auto& p : c.params)
    if (is_efficiency_parameter(p)) fitted_fields.push_back(p.key.substr(std::string("hardware.efficiency.").size()));
  const std::string kept = base_efficiency_lines(base_yaml, c.base_file, fitted_fields);
  if (!fitted_fields.empty() || !kept.empty()) {
    out << "efficiency:                        # fitted; see calibration: below. Other knobs keep their defaults.\n";
    for (std::size_t i = 0; i < c.params.size(); ++i) {
      if (!is_efficiency_parameter(c.params[i])) continue;
      const std::string field = c.params[i].key.substr(std::string("hardware.efficiency.").size());
      out << fmt::format("  {}: {}\n", field, parameter_yaml_value(c.params[i], c.fit.values[i]));
    }
    out << kept << "\n";
  }
  out << "calibration:                       # provenance only; the GPU loader skips this mapping\n";
  out << "  source: \"published static-batch measurements; each file's rows name their source (see PROVENANCE.md "
         "beside it)\"\n";
  out << fmt::format("  data: {}\n", flow_list(data, false));
  out << fmt::format("  gpu: {}\n", c.rows.gpu);
  out << fmt::format("  compared: \"validate-static's predictions (docs/validation.md) of every compared static-batch "
                     "row on {}{}\"\n",
                     c.rows.gpu, o.fit.metrics.empty() ? "" : ", metrics " + join(o.fit.metrics));
  out << fmt::format("  method: \"least squares of log(predicted/measured) over the fitted rows ({} loss), "
                     "Levenberg-Marquardt on logistic coordinates of bounded parameters\"\n",
                     o.fit.loss);
  out << "  parameters:\n";
  for (std::size_t i = 0; i < c.params.size(); ++i) {
    const FitParameter& p = c.params[i];
    out << fmt::format("    {}: {{value: {}, start: {}, bounds: [{}, {}]{}}}\n", p.name,
                       parameter_yaml_value(p, c.fit.values[i]), parameter_yaml_value(p, c.fit.start[i]), p.lo, p.hi,
                       p.unit.empty() ? "" : ", unit: " + p.unit);
  }
  if (!c.no_effect.empty())
    out << fmt::format("  not_fitted: [{}]                # no fitted row depends on them\n", join(c.no_effect));
  out << fmt::format("  engine_settings: {}\n", flow_list(c.engine_settings, true));
  if (!o.fit.fixed_overrides.empty())
    out << fmt::format("  fixed_settings: {}\n", flow_list(o.fit.fixed_overrides, true));
  out << fmt::format("  split: \"{}\"\n", c.rows.split);
  out << fmt::format("  rows: {{fitted: {}, held_out: {}}}\n", c.rows.train_count(), c.rows.test_count());
  if (!c.rows.skipped.empty()) {
    out << "  skipped:\n";
    for (const auto& [why, n] : c.rows.skipped) out << fmt::format("    {}: {}\n", single_quoted(why), n);
  }
  out << fmt::format("  rms_log_error: {{before: {:.4f}, after: {:.4f}}}\n", c.fit.rms_before, c.fit.rms_after);
  out << "  median_abs_error_pct:            # per data set and metric: [before, after] on the fitted (train) and "
         "held-out (test) rows\n";
  std::string dataset;
  for (const auto& g : c.groups) {
    if (g.dataset != dataset) {
      out << fmt::format("    {}:\n", g.dataset);
      dataset = g.dataset;
    }
    out << fmt::format("      {}: {{n: [{}, {}], train: [{:.1f}, {:.1f}], test: [{:.1f}, {:.1f}]}}\n", g.metric,
                       g.train_n, g.test_n, g.train_before, g.train_after, g.test_before, g.test_after);
  }
  return out.str();
}

}  // namespace

std::string default_static_parameters() {
  return "gemm_compute,gemm_tokens_half,gemm_memory,attention_memory,intra_node_latency,step_cpu_overhead,"
         "per_seq_cpu_overhead";
}

StaticCalibration calibrate_static(const StaticCalibrationOptions& o) {
  if (o.data.empty()) throw Error("calibrate static: give --data FILE.csv (repeatable)");
  StaticCalibration c;
  c.params = parse_fit_parameters(o.params);
  std::vector<BenchmarkRow> all;
  for (const auto& f : o.data) {
    if (!file_exists(f)) {
      reject_directory(f);  // "is a directory, expected a file", not "no such file"
      throw Error(fmt::format("{}: no such file (--data)", f));
    }
    auto rows = read_benchmark_csv(f);
    all.insert(all.end(), rows.begin(), rows.end());
  }
  c.rows = select_static_rows(all, o.fit);
  const std::string gpu_ref = gpu_override(o.fit.fixed_overrides);
  const std::string base_path = gpu_ref.empty()                ? catalog_dir("hardware") + "/" + c.rows.gpu + ".yaml"
                                : looks_like_path(gpu_ref) ? gpu_ref
                                                           : catalog_dir("hardware") + "/" + gpu_ref + ".yaml";
  c.base_file = repository_relative(base_path);
  if (!o.out.empty()) check_uncalibrated_base(read_text_file(base_path), c.base_file);  // before fitting
  const StaticFit all_fit = fit_static(c.rows, c.params, o.fit);
  // Keep only the parameters that were fitted: the others are not calibrated by this data.
  std::vector<FitParameter> fitted;
  c.fit = all_fit;
  c.fit.start.clear();
  c.fit.values.clear();
  c.fit.fitted.clear();
  for (std::size_t j = 0; j < c.params.size(); ++j) {
    if (!all_fit.fitted[j]) {
      c.no_effect.push_back(c.params[j].name);
      continue;
    }
    fitted.push_back(c.params[j]);
    c.fit.start.push_back(all_fit.start[j]);
    c.fit.values.push_back(all_fit.values[j]);
    c.fit.fitted.push_back(1);
  }
  c.params = fitted;
  c.fitted_overrides = parameter_overrides(c.params, c.fit.values);
  std::vector<std::string> after = o.fit.fixed_overrides;
  after.insert(after.end(), c.fitted_overrides.begin(), c.fitted_overrides.end());
  for (const auto& s : after)
    if (s.rfind("hardware.", 0) != 0) c.engine_settings.push_back(s);
  // "After" is predicted with the overrides as printed (6 digits), so that rerunning
  // `validate-static` with them reproduces these numbers.
  c.before = predict_static(c.rows, parse_edits(o.fit.fixed_overrides));
  c.after = predict_static(c.rows, parse_edits(after));
  c.groups = static_error_groups(c.rows, c.before, c.after);

  std::string data_opts;
  for (const auto& d : o.data) data_opts += " --data " + shell_word(repository_relative(d));
  c.regenerate.push_back(fmt::format("servesim calibrate static{} --gpu {} \\", data_opts, c.rows.gpu));
  c.regenerate.push_back(fmt::format("  --params {} --split {}{}{} \\", shell_word(o.params), shell_word(o.fit.split),
                                     o.fit.loss == "soft_l1" ? "" : " --loss " + o.fit.loss,
                                     o.fit.metrics.empty() ? "" : " --metrics " + shell_word(join(o.fit.metrics, ","))));
  for (const auto& s : o.fit.fixed_overrides) c.regenerate.push_back(fmt::format("  --set {} \\", shell_word(s)));
  c.regenerate.push_back(fmt::format("  {}--out {}", o.name.empty() ? "" : "--name " + shell_word(o.name) + " ",
                                     o.out.empty() ? "FILE" : shell_word(repository_relative(o.out))));
  if (!o.out.empty()) c.yaml = render_profile(o, c, base_path);
  return c;
}

}  // namespace servesim
