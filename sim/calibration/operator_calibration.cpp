#include "calibration/operator_calibration.h"

#include <fmt/format.h>

#include <filesystem>
#include <set>
#include <tuple>
#include <fstream>
#include <sstream>

#include "calibration/calibrated_profile.h"
#include "calibration/operator_timings.h"
#include "config/catalog_reader.h"
#include "util/error.h"
#include "util/paths.h"
#include "util/text.h"

namespace servesim {
namespace {

namespace fs = std::filesystem;

// A shell word: quoted when it holds anything but plain path characters.
std::string shell_word(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:,=") ==
                        std::string::npos)
    return s;
  std::string q = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\' || c == '$' || c == '`') q += '\\';
    q += c;
  }
  return q + "\"";
}

std::vector<OperatorErrorChange> changes(const std::vector<OperatorError>& before, const std::vector<OperatorError>& after) {
  std::vector<OperatorErrorChange> out;
  for (std::size_t k = 0; k < after.size(); ++k) out.push_back({after[k].kind, before[k], after[k]});
  return out;
}

}  // namespace

std::string repository_relative(const std::string& path) {
  std::error_code ec;
  const fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
  const fs::path root = fs::weakly_canonical(fs::path(data_root()), ec);
  if (ec) return path;
  const std::string ps = p.string(), rs = root.string() + "/";
  return ps.rfind(rs, 0) == 0 ? ps.substr(rs.size()) : path;
}

OperatorSplit parse_operator_split(const std::string& text) {
  OperatorSplit s;
  if (text == "tokens") return s;
  const std::string prefix = "models:";
  if (text.rfind(prefix, 0) == 0) {
    s.kind = OperatorSplit::Kind::models;
    for (const auto& m : split(text.substr(prefix.size()), ','))
      if (!trim(m).empty()) s.test_models.push_back(trim(m));
    if (s.test_models.empty()) throw Error(fmt::format("--split '{}': name at least one model after 'models:'", text));
    return s;
  }
  throw Error(fmt::format("--split '{}': expected 'tokens' (hold out every 4th token count) or "
                          "'models:NAME[,NAME...]' (hold out those models' rows)",
                          text));
}

OperatorCalibration calibrate_operators(const OperatorCalibrationOptions& o) {
  if (o.data.empty()) throw Error("calibrate operators: give --data (a folder of <model>.csv timing tables, or one)");
  std::error_code ec;
  if (!fs::exists(o.data, ec)) throw Error(fmt::format("{}: no such file or folder (--data)", o.data));
  const OperatorSplit split = parse_operator_split(o.split);
  // Checked before the minutes of fitting.
  if (!o.predict_data.empty() && o.predict_gpu.empty())
    throw Error("calibrate operators: --predict-data needs --predict-gpu (the GPU those tables were measured on)");
  if (o.predict_data.empty() && !o.predict_gpu.empty())
    throw Error("calibrate operators: --predict-gpu needs --predict-data (the tables to predict)");
  if (!o.predict_data.empty() && !fs::exists(o.predict_data, ec))
    throw Error(fmt::format("{}: no such file or folder (--predict-data)", o.predict_data));
  if (!o.predict_gpu.empty()) (void)load_gpu(o.predict_gpu);  // unknown names: the catalog's message

  OperatorCalibration c;
  const std::string base_path = looks_like_path(o.gpu) ? o.gpu : catalog_dir("hardware") + "/" + o.gpu + ".yaml";
  const GpuSpec gpu = load_gpu(o.gpu);  // unknown names: the catalog's message
  c.base_file = repository_relative(base_path);
  c.data = repository_relative(o.data);
  c.start = gpu.efficiency;
  const std::string base_yaml = read_text_file(base_path);
  check_uncalibrated_base(base_yaml, c.base_file);  // before the minutes of fitting

  // Model YAMLs for models outside the catalog sit in a `models` folder beside the
  // tables' folder (data/operator_timings/{a100,models}).
  const std::string models_dir = operator_models_dir(o.data, o.models_dir);
  auto rows = read_operator_timing_path(o.data);
  c.rows = rows.size();
  const OperatorDataset d = build_operator_dataset(gpu, std::move(rows), models_dir);
  for (const auto& [name, _] : d.models) c.models.push_back(name);

  c.fit = fit_operator_timings(d, split, gpu.efficiency);
  const std::vector<char> test = split_mask(d, split);
  std::vector<char> train(test.size());
  for (std::size_t i = 0; i < test.size(); ++i) train[i] = !test[i];
  const std::vector<double> before = predict_operator_times(d, gpu.efficiency);
  c.train = changes(operator_errors(d, before, train), c.fit.train);
  c.test = changes(operator_errors(d, before, test), c.fit.test);
  if (o.cross_validate) {
    std::set<std::tuple<std::int64_t, std::int64_t, int, int>> shapes;
    for (const auto& r : d.rows) shapes.insert({r.n_embd, r.n_expanded_embd, r.n_head, r.n_kv_head});
    if (shapes.size() >= 2) {
      c.cross_validation = cross_validate_by_shape(d, gpu.efficiency);
      c.cross_validated = true;
    }
  }

  if (!o.predict_data.empty()) {
    c.transfer = predict_operator_transfer(o.predict_gpu, o.predict_data, "", c.fit.efficiency, c.fit.fields);
    c.transfer.data = repository_relative(o.predict_data);
    c.predicted = true;
  }

  CalibratedProfileInput in;
  in.base_yaml = base_yaml;
  in.base_file = c.base_file;
  in.name = o.name.empty() ? gpu.name + "-operators" : o.name;
  in.display_name = o.display_name;
  in.source = o.source.empty() ? fmt::format("measured per-operator kernel times in {}", c.data) : o.source;
  in.data = c.data;
  in.models = c.models;
  in.fit = c.fit;
  if (c.cross_validated) {
    in.model_holdout = c.cross_validation.test;
    in.model_holdout_samples = c.cross_validation.test_samples;
  }
  // The command that regenerates the file, one option a line.
  c.regenerate.push_back(fmt::format("servesim calibrate operators --gpu {} --data {} \\",
                                     shell_word(looks_like_path(o.gpu) ? c.base_file : o.gpu), shell_word(c.data)));
  if (!o.models_dir.empty()) c.regenerate.push_back(fmt::format("  --models-dir {} \\", shell_word(repository_relative(o.models_dir))));
  if (o.split != "tokens") c.regenerate.push_back(fmt::format("  --split {} \\", shell_word(o.split)));
  if (!o.cross_validate) c.regenerate.push_back("  --no-cross-validate \\");
  if (!o.name.empty()) c.regenerate.push_back(fmt::format("  --name {} \\", shell_word(o.name)));
  if (!o.display_name.empty()) c.regenerate.push_back(fmt::format("  --display-name {} \\", shell_word(o.display_name)));
  if (!o.source.empty()) c.regenerate.push_back(fmt::format("  --source {} \\", shell_word(o.source)));
  c.regenerate.push_back(fmt::format("  --out {}", o.out.empty() ? "FILE" : shell_word(repository_relative(o.out))));
  in.regenerate = c.regenerate;
  c.yaml = calibrated_gpu_yaml(in);
  return c;
}

}  // namespace servesim
