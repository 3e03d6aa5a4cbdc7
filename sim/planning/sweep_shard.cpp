#include "planning/sweep_shard.h"

#include <fmt/format.h>

#include <charconv>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "planning/sweep_checkpoint.h"
#include "util/json_file.h"
#include "util/error.h"
#include "util/text.h"

namespace servesim::planning {
namespace {

constexpr int kShardVersion = 1;

bool parse_count(const std::string& text, std::size_t& out) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

nlohmann::ordered_json axes_json(const std::vector<SweepAxis>& axes) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& a : axes) out.push_back({{"key", a.key}, {"values", a.values}});
  return out;
}

struct ShardFile {
  std::string name;
  nlohmann::ordered_json header;
  Shard shard;
  std::size_t points = 0;
  std::vector<PointRecord> records;
};

ShardFile read_shard_file(const std::string& name, const std::string& text) {
  ShardFile f;
  f.name = name;
  const std::string not_shard =
      fmt::format("{}: not a servesim sweep shard file (written by `sweep --shard K/N --out FILE`)", name);
  if (!text.empty() && text.back() != '\n')
    throw Error(fmt::format("{}: the last line has no newline: the file was cut short; run its shard again", name));
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line)) throw Error(not_shard);
  f.header = parse_ordered_json_or_discarded(line);
  if (f.header.is_discarded() || !f.header.is_object() || !f.header.contains("servesim_sweep_shard"))
    throw Error(not_shard);
  if (f.header["servesim_sweep_shard"] != kShardVersion)
    throw Error(fmt::format("{}: shard file version {}, this servesim reads version {}", name,
                            f.header["servesim_sweep_shard"].dump(), kShardVersion));
  try {
    f.points = f.header.at("points").get<std::size_t>();
    f.shard.index = f.header.at("shard").at(0).get<std::size_t>();
    f.shard.count = f.header.at("shard").at(1).get<std::size_t>();
    f.header.at("fingerprint").get<std::string>();
    f.header.at("axes").at(0).at("key").get<std::string>();
  } catch (const nlohmann::json::exception&) {
    throw Error(not_shard);
  }
  if (f.shard.count == 0 || f.shard.index >= f.shard.count) throw Error(not_shard);
  std::size_t line_no = 1;
  while (std::getline(in, line)) {
    ++line_no;
    const auto j = parse_ordered_json_or_discarded(line);
    const std::string bad = fmt::format("{}:{}: not a point record", name, line_no);
    if (j.is_discarded()) throw Error(bad);
    try {
      f.records.push_back(record_from_json(j));
    } catch (const nlohmann::json::exception&) {
      throw Error(bad);
    }
    const std::size_t i = f.records.back().index;
    if (i >= f.points || !in_shard(i, f.shard))
      throw Error(fmt::format("{}:{}: point {} does not belong to shard {}/{} of {} points", name, line_no, i,
                              f.shard.index, f.shard.count, f.points));
  }
  return f;
}

}  // namespace

Shard parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  Shard s;
  if (slash == std::string::npos || !parse_count(text.substr(0, slash), s.index) ||
      !parse_count(text.substr(slash + 1), s.count) || s.count == 0 || s.index >= s.count)
    throw Error(fmt::format("--shard {}: expected K/N with N >= 1 and 0 <= K < N (shard K of N, counted from 0)",
                            text));
  return s;
}

bool in_shard(std::size_t point, const Shard& shard) { return point % shard.count == shard.index; }

std::string run_sweep_shard(const ConfigNode& base, const std::string& source, const std::vector<SweepAxis>& axes,
                            const SweepOptions& options, const Shard& shard, const std::string& fingerprint) {
  SweepOptions opt = options;
  opt.skip = [&shard](std::size_t i) { return !in_shard(i, shard); };
  std::map<std::size_t, PointRecord> records;
  opt.keep_results = false;  // each point lives on as its record only
  opt.on_point = [&](const PointResult& p) { records.emplace(p.index, point_record(p, axes)); };
  const std::size_t total = sweep_point_count(axes, opt.max_points);
  run_sweep(base, source, axes, opt);
  const nlohmann::ordered_json header = {{"servesim_sweep_shard", kShardVersion},
                                         {"fingerprint", fingerprint},
                                         {"points", total},
                                         {"shard", {shard.index, shard.count}},
                                         {"axes", axes_json(axes)}};
  std::string out = header.dump() + "\n";
  for (const auto& [i, r] : records) out += record_json(r).dump() + "\n";
  return out;
}

MergedSweep merge_sweep_shards(const std::vector<std::pair<std::string, std::string>>& files) {
  if (files.empty()) throw Error("merge: give the shard files to merge");
  std::vector<ShardFile> shards;
  for (const auto& [name, text] : files) shards.push_back(read_shard_file(name, text));
  const ShardFile& first = shards.front();
  std::map<std::size_t, const ShardFile*> by_index;
  for (const auto& s : shards) {
    if (s.header.at("fingerprint") != first.header.at("fingerprint") || s.points != first.points ||
        s.header.at("axes") != first.header.at("axes"))
      throw Error(fmt::format("{} and {} come from different sweeps (scenario, --set or --vary differ)", first.name,
                              s.name));
    if (s.shard.count != first.shard.count)
      throw Error(fmt::format("{} is shard {}/{} but {} is shard {}/{}: all shards must split the sweep the same way",
                              s.name, s.shard.index, s.shard.count, first.name, first.shard.index, first.shard.count));
    if (const auto [it, fresh] = by_index.emplace(s.shard.index, &s); !fresh)
      throw Error(fmt::format("shard {}/{} given twice: {} and {}", s.shard.index, s.shard.count, it->second->name,
                              s.name));
  }
  if (by_index.size() != first.shard.count) {
    // Names the first few missing shards; stops looking there, so a header claiming a
    // huge N (a damaged file) costs nothing.
    std::vector<std::string> missing;
    for (std::size_t k = 0; k < first.shard.count && missing.size() < 10; ++k)
      if (!by_index.count(k)) missing.push_back(std::to_string(k));
    const std::size_t count = first.shard.count - by_index.size();
    const std::string more = count > missing.size() ? fmt::format(" and {} more", count - missing.size()) : "";
    throw Error(fmt::format("merge: shard{} {}{} of {} missing ({} given)", count > 1 ? "s" : "", join(missing, ", "),
                            more, first.shard.count, shards.size()));
  }
  MergedSweep out;
  for (const auto& a : first.header.at("axes"))
    out.axes.push_back({a.at("key").get<std::string>(), a.at("values").get<std::vector<std::string>>()});
  std::map<std::size_t, PointRecord> records;
  for (auto& s : shards)
    for (auto& r : s.records) {
      const std::size_t i = r.index;
      if (!records.emplace(i, std::move(r)).second)
        throw Error(fmt::format("{}: point {} appears twice", s.name, i));
    }
  for (std::size_t i = 0; i < first.points; ++i)
    if (!records.count(i)) {
      const Shard owner{i % first.shard.count, first.shard.count};
      throw Error(fmt::format("{}: point {} is missing (the shard file is incomplete); run shard {}/{} again",
                              by_index.at(owner.index)->name, i, owner.index, owner.count));
    }
  out.records.reserve(records.size());
  for (auto& [i, r] : records) out.records.push_back(std::move(r));
  return out;
}

std::string sweep_output_text(const MergedSweep& sweep, bool json) {
  return json ? records_json_text(sweep.records) + "\n" : records_csv(sweep.records, sweep.axes);
}

}  // namespace servesim::planning
