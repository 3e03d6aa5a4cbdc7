#include "calibration/calibrated_profile.h"

#include <fmt/format.h>
#include "config/yaml_text.h"

#include <algorithm>
#include <sstream>

#include "hardware/efficiency.h"
#include "util/error.h"
#include "util/text.h"

namespace servesim {
namespace {

// A double-quoted YAML scalar.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

bool is_top_level_key(const std::string& line, const std::string& key) {
  return line.rfind(key + ":", 0) == 0;
}

// A knob's value as written in the profile, by its kind (hardware/efficiency.h).
std::string efficiency_value(const Efficiency& e, const std::string& field) {
  const double v = efficiency_field(e, field);
  switch (find_efficiency_knob(field)->kind) {  // efficiency_field threw for an unknown name
    case KnobKind::duration: return quoted(fmt::format("{:.3f} us", v * 1e6));
    case KnobKind::tokens:
    case KnobKind::sm_rate: return fmt::format("{:.2f}", v);
    case KnobKind::tokens_per_sm:
    case KnobKind::fp32_per_byte: return fmt::format("{:.4f}", v);
    case KnobKind::cycles: return fmt::format("{:.0f}", v);
    case KnobKind::fraction:
    case KnobKind::share: break;
  }
  return fmt::format("{:.4f}", v);
}

void write_errors(std::ostringstream& out, const std::string& indent, const std::vector<OperatorError>& errors) {
  for (const auto& e : errors)
    out << fmt::format("{}{}: {{median: {:.1f}, mean: {:.1f}, p90: {:.1f}, max: {:.1f}, bias: {:.1f}}}\n", indent,
                       e.kind, 100 * e.median, 100 * e.mean, 100 * e.p90, 100 * e.max, 100 * e.median_signed);
}

}  // namespace

std::string replace_yaml_scalar(const std::string& yaml, const std::string& file, const std::vector<std::string>& path,
                                const std::string& value, const std::string& note) {
  std::vector<std::string> lines = split(yaml, '\n');
  std::size_t depth = 0;  // path elements matched so far
  int parent_indent = -1;
  for (auto& line : lines) {
    const auto first = line.find_first_not_of(' ');
    if (first == std::string::npos || line[first] == '#') continue;
    const int indent = static_cast<int>(first);
    if (depth > 0 && indent <= parent_indent) break;  // left the mapping that had to hold the key
    const std::string key = path[depth] + ":";
    if (line.compare(first, key.size(), key) != 0) continue;
    if (depth + 1 < path.size()) {
      ++depth;
      parent_indent = indent;
      continue;
    }
    const auto hash = line.find(" #", first + key.size());
    const std::string old = trim(line.substr(first + key.size(), hash == std::string::npos ? std::string::npos
                                                                                           : hash - first - key.size()));
    std::string head = line.substr(0, first + key.size()) + " " + value;
    const std::string comment = hash == std::string::npos ? "" : trim(line.substr(hash + 2));
    if (head.size() < 35) head.resize(35, ' ');  // the catalog's comment column
    line = fmt::format("{} # {} (was {}){}", head, note, old, comment.empty() ? "" : "; " + comment);
    return join(lines, "\n");
  }
  throw Error(fmt::format("{}: no `{}` line to replace with the fitted value", file, join(path, ".")));
}

std::string base_display_name(const std::string& base_yaml, const std::string& base_file) {
  const ConfigNode base = parse_yaml_text(base_yaml, base_file);
  for (const char* key : {"display_name", "name"})
    if (const ConfigNode* n = base.is_map() ? base.find(key) : nullptr; n && n->is_scalar()) return n->text();
  throw Error(fmt::format("{}: no top-level name", base_file));
}

void check_uncalibrated_base(const std::string& base_yaml, const std::string& base_file) {
  const ConfigNode base = parse_yaml_text(base_yaml, base_file);
  if (!base.is_map() || !base.find("name")) throw Error(fmt::format("{}: no top-level name", base_file));
  if (base.find("calibration"))
    throw Error(fmt::format("{}: already has a top-level 'calibration' key; calibrate an uncalibrated profile",
                            base_file));
}

std::vector<BaseEfficiencyKnob> base_efficiency_knobs(const std::string& base_yaml, const std::string& base_file) {
  const ConfigNode base = parse_yaml_text(base_yaml, base_file);
  std::vector<BaseEfficiencyKnob> out;
  const ConfigNode* eff = base.is_map() ? base.find("efficiency") : nullptr;
  if (!eff || !eff->is_map()) return out;
  for (const auto& entry : eff->entries()) {
    const std::string v = entry.value.text();
    out.push_back({entry.key.text(), v.find(' ') == std::string::npos ? v : quoted(v)});
  }
  return out;
}

std::string without_efficiency_block(const std::string& base_yaml) {
  std::vector<std::string> lines = split(base_yaml, '\n');
  std::vector<std::string> kept;
  bool inside = false;
  for (const auto& line : lines) {
    if (is_top_level_key(line, "efficiency")) {
      inside = true;
      while (!kept.empty() && kept.back().rfind("#", 0) == 0) kept.pop_back();  // its comment
      continue;
    }
    if (inside && (line.empty() || line[0] == ' ' || line[0] == '\t' || line[0] == '#')) continue;
    inside = false;
    kept.push_back(line);
  }
  return join(kept, "\n");
}

std::string base_efficiency_lines(const std::string& base_yaml, const std::string& base_file,
                                  const std::vector<std::string>& fitted) {
  std::string out;
  for (const auto& k : base_efficiency_knobs(base_yaml, base_file)) {
    if (std::find(fitted.begin(), fitted.end(), k.field) != fitted.end()) continue;
    std::string head = fmt::format("  {}: {}", k.field, k.value);
    if (head.size() < 35) head.resize(35, ' ');
    out += head + "# from the base profile (catalog value, not fitted here)\n";
  }
  return out;
}

std::string renamed_gpu_profile(const std::string& base_yaml, const std::string& base_file, const std::string& name,
                                const std::string& display_name, const std::vector<std::string>& header) {
  check_uncalibrated_base(base_yaml, base_file);
  std::ostringstream out;
  for (const auto& h : header) out << (h.empty() ? "#" : "# " + h) << "\n";
  bool renamed = false;
  for (const auto& raw : split(without_efficiency_block(base_yaml), '\n')) {
    std::string line = raw;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (is_top_level_key(line, "name")) {
      line = "name: " + name;
      renamed = true;
    } else if (is_top_level_key(line, "display_name")) {
      line = "display_name: " + display_name;
    }
    out << line << "\n";
  }
  if (!renamed) throw Error(fmt::format("{}: no top-level `name:` line to rename", base_file));
  std::string text = out.str();
  while (text.size() >= 2 && text[text.size() - 1] == '\n' && text[text.size() - 2] == '\n') text.pop_back();
  return text;
}

std::string calibrated_gpu_yaml(const CalibratedProfileInput& in) {
  const std::string display = base_display_name(in.base_yaml, in.base_file);
  std::vector<std::string> header = {
      fmt::format("{} calibrated against measured per-operator kernel times; GENERATED, do not edit.", display),
      fmt::format("Written by `servesim calibrate operators` (calibrated_gpu_yaml, sim/calibration/calibrated_profile.cpp) from {}", in.base_file),
      fmt::format("and {}. Regenerate with:", in.data)};
  for (const auto& line : in.regenerate) header.push_back("  " + line);
  header.push_back("Everything down to `efficiency:` is the base profile, verbatim except name and display_name.");
  std::ostringstream out;
  out << renamed_gpu_profile(in.base_yaml, in.base_file, in.name,
                             in.display_name.empty() ? display + " (operator-calibrated)" : in.display_name, header)
      << "\n";  // a blank line before the fitted part

  const OperatorFit& f = in.fit;
  out << "efficiency:                        # fitted; see calibration: below. Other knobs keep their defaults.\n";
  for (const auto& field : f.fields) out << fmt::format("  {}: {}\n", field, efficiency_value(f.efficiency, field));
  out << base_efficiency_lines(in.base_yaml, in.base_file, f.fields);
  out << "\n";
  out << "calibration:                       # provenance only; the GPU loader skips this mapping\n";
  out << fmt::format("  source: {}\n", quoted(in.source));
  out << fmt::format("  data: {}\n", quoted(in.data));
  out << fmt::format("  models: [{}]\n", join(in.models));
  out << "  precision: fp16\n";
  out << fmt::format("  compared: {}\n",
                     quoted("one transformer layer shard per row: each op's median kernel time vs the CostModel op "
                            "(one prefill of num_tokens tokens at context 0, TP from the row) divided by layers"));
  std::vector<std::string> kinds;
  for (const auto& k : operator_kinds()) {
    std::vector<std::string> cols;
    for (const auto& [col, w] : k.vidur_ops) cols.push_back(w == 1.0 ? col : fmt::format("{}x{}", w, col));
    kinds.push_back(fmt::format("{} = {} vs {}", k.name, join(cols, " + "), k.cost_op));
  }
  out << fmt::format("  ops: [{}]\n", join([&] {
                       std::vector<std::string> q;
                       for (const auto& k : kinds) q.push_back(quoted(k));
                       return q;
                     }()));
  out << fmt::format("  fitted: [{}]\n", join(f.fields));
  out << fmt::format("  method: {}\n",
                     quoted("least squares of relative error (predicted/measured - 1) over all op kinds of the "
                            "train split, Levenberg-Marquardt on the logit of each knob within its declared fit bounds"));
  out << fmt::format("  split: {}\n", quoted(f.split));
  out << fmt::format("  samples: {{train: {}, test: {}}}\n", f.train_samples, f.test_samples);
  out << "  errors: \"absolute percentage error of one layer's op time, in %: median, mean, p90, max over samples; "
         "bias = median signed error\"\n";
  out << "  train:\n";
  write_errors(out, "    ", f.train);
  out << "  test:\n";
  write_errors(out, "    ", f.test);
  if (!in.model_holdout.empty()) {
    out << "  model_holdout:                   # how well the method carries to a layer shape it never saw\n";
    out << fmt::format("    split: {}\n",
                       quoted("leave one layer shape out (models with equal hidden, ffn, heads, kv_heads held out "
                              "together), refitted per fold; errors pooled over the held-out folds"));
    out << fmt::format("    samples: {}\n", in.model_holdout_samples);
    out << "    test:\n";
    write_errors(out, "      ", in.model_holdout);
  }
  return out.str();
}

}  // namespace servesim
