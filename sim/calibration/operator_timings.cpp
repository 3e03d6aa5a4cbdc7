#include "calibration/operator_timings.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "util/error.h"
#include "util/paths.h"
#include "util/text.h"

namespace servesim {

double OperatorTimingRow::op_seconds(const std::string& op) const {
  const auto it = seconds.find(op);
  if (it == seconds.end())
    throw Error(fmt::format("{}: no column time_stats.{}.median for model {}", where, op, model));
  return it->second;
}

namespace {

constexpr const char* kMedianPrefix = "time_stats.";
constexpr const char* kMedianSuffix = ".median";

double parse_number(const std::string& text, const std::string& where, const std::string& column) {
  const std::string t = trim(text);
  double v = 0;
  const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc() || ptr != t.data() + t.size() || !std::isfinite(v))
    throw Error(fmt::format("{}: column {}: '{}' is not a number", where, column, text));
  return v;
}

std::int64_t parse_count(const std::string& text, const std::string& where, const std::string& column,
                         std::int64_t min) {
  const double v = parse_number(text, where, column);
  if (v != std::floor(v) || v < static_cast<double>(min))
    throw Error(fmt::format("{}: column {}: '{}' must be an integer >= {}", where, column, text, min));
  return static_cast<std::int64_t>(v);
}

bool parse_bool(const std::string& text, const std::string& where, const std::string& column) {
  const std::string t = to_lower(trim(text));
  if (t == "true" || t == "1") return true;
  if (t == "false" || t == "0") return false;
  throw Error(fmt::format("{}: column {}: '{}' is not a boolean (True/False)", where, column, text));
}

}  // namespace

std::vector<OperatorTimingRow> read_operator_timings(const std::string& path, const std::string& model) {
  reject_directory(path);
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("{}: cannot open operator timing file", path));
  const std::string name = model.empty() ? std::filesystem::path(path).stem().string() : model;

  std::string line;
  int line_no = 0;
  std::vector<std::string> header;
  while (header.empty() && std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (trim(line).empty()) continue;
    for (auto& h : split(line, ',')) header.push_back(trim(h));
  }
  if (header.empty()) throw Error(fmt::format("{}: empty file (expected a CSV header)", path));

  auto column = [&](const std::string& key, bool required) -> int {
    const auto it = std::find(header.begin(), header.end(), key);
    if (it == header.end()) {
      if (required)
        throw Error(fmt::format("{}:{}: missing column '{}'{}", path, line_no, key, did_you_mean(key, header)));
      return -1;
    }
    return static_cast<int>(it - header.begin());
  };
  const int c_tp = column("num_tensor_parallel_workers", true);
  const int c_tokens = column("num_tokens", true);
  const int c_head = column("n_head", true);
  const int c_kv = column("n_kv_head", true);
  const int c_embd = column("n_embd", true);
  const int c_ffn = column("n_expanded_embd", true);
  const int c_gated = column("use_gated_mlp", true);
  const int c_vocab = column("vocab_size", false);
  std::vector<std::pair<int, std::string>> ops;  // column index, op name
  for (int i = 0; i < static_cast<int>(header.size()); ++i) {
    const std::string& h = header[static_cast<std::size_t>(i)];
    if (h.size() > std::string(kMedianPrefix).size() + std::string(kMedianSuffix).size() &&
        h.rfind(kMedianPrefix, 0) == 0 && ends_with(h, kMedianSuffix)) {
      ops.emplace_back(i, h.substr(std::string(kMedianPrefix).size(),
                                   h.size() - std::string(kMedianPrefix).size() - std::string(kMedianSuffix).size()));
    }
  }
  if (ops.empty())
    throw Error(fmt::format("{}:{}: no time_stats.<op>.median columns in the header", path, line_no));

  std::vector<OperatorTimingRow> rows;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (trim(line).empty()) continue;
    const std::string where = fmt::format("{}:{}", path, line_no);
    const std::vector<std::string> f = split(line, ',');
    if (f.size() != header.size())
      throw Error(fmt::format("{}: {} fields, the header has {}", where, f.size(), header.size()));
    auto at = [&](int c) -> const std::string& { return f[static_cast<std::size_t>(c)]; };
    OperatorTimingRow r;
    r.model = name;
    r.where = where;
    r.tp = static_cast<int>(parse_count(at(c_tp), where, header[c_tp], 1));
    r.num_tokens = parse_count(at(c_tokens), where, header[c_tokens], 1);
    r.n_head = static_cast<int>(parse_count(at(c_head), where, header[c_head], 1));
    r.n_kv_head = static_cast<int>(parse_count(at(c_kv), where, header[c_kv], 1));
    r.n_embd = parse_count(at(c_embd), where, header[c_embd], 1);
    r.n_expanded_embd = parse_count(at(c_ffn), where, header[c_ffn], 1);
    r.gated_mlp = parse_bool(at(c_gated), where, header[c_gated]);
    if (c_vocab >= 0) r.vocab_size = parse_count(at(c_vocab), where, header[c_vocab], 1);
    for (const auto& [c, op] : ops) {
      const double ms = parse_number(at(c), where, header[static_cast<std::size_t>(c)]);
      if (ms < 0)
        throw Error(fmt::format("{}: column {}: time {} ms is negative", where, header[static_cast<std::size_t>(c)], ms));
      r.seconds[op] = ms * 1e-3;
    }
    rows.push_back(std::move(r));
  }
  if (rows.empty()) throw Error(fmt::format("{}: no data rows", path));
  return rows;
}

std::vector<OperatorTimingRow> read_operator_timing_dir(const std::string& dir) {
  std::error_code ec;
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
    if (entry.is_regular_file() && entry.path().extension() == ".csv") files.push_back(entry.path().string());
  if (ec) throw Error(fmt::format("{}: cannot list operator timing folder: {}", dir, ec.message()));
  if (files.empty()) throw Error(fmt::format("{}: no *.csv operator timing files", dir));
  std::sort(files.begin(), files.end());
  std::vector<OperatorTimingRow> rows;
  for (const auto& f : files) {
    auto part = read_operator_timings(f);
    rows.insert(rows.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
  }
  return rows;
}

std::vector<OperatorTimingRow> read_operator_timing_path(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_directory(path, ec) ? read_operator_timing_dir(path) : read_operator_timings(path);
}

std::string operator_models_dir(const std::string& data, const std::string& models_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!models_dir.empty()) {
    if (!fs::is_directory(models_dir, ec)) throw Error(fmt::format("{}: no such folder (--models-dir)", models_dir));
    return models_dir;
  }
  fs::path dir = fs::path(data).lexically_normal();
  if (dir.filename().empty()) dir = dir.parent_path();  // "a100/" -> "a100"
  if (fs::is_regular_file(data, ec)) dir = dir.parent_path();
  const fs::path beside = dir.parent_path() / "models";
  return fs::is_directory(beside, ec) ? beside.string() : std::string();
}

}  // namespace servesim
