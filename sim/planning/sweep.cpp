#include "planning/sweep.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

#include "metrics/summary_json.h"
#include "uncertainty/scenario_key.h"
#include "scenario/config_json.h"
#include "scenario/disaggregation.h"
#include "planning/economics.h"
#include "util/untrusted_text.h"
#include "util/error.h"
#include "util/interrupt.h"
#include "util/text.h"
#include "config/config_error.h"
#include "config/edits.h"
#include "config/scenario_draft.h"

namespace servesim::planning {
namespace {

std::optional<double> read_number(const std::string& text) {
  const std::string t = trim(text);
  if (t.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

bool integer_text(const std::string& t) {
  return t.find_first_of(".eE") == std::string::npos && read_number(t).has_value();
}

// Splits on commas outside brackets, braces and quotes (values may be YAML flow).
std::vector<std::string> split_items(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  char quote = 0;
  for (char c : s) {
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if (c == ']' || c == '}') {
      --depth;
    } else if (c == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  out.push_back(cur);
  return out;
}

// Every dotted prefix of a key path ("a", "a.b", "a.b.c").
std::vector<std::string> key_prefixes(const std::string& key) {
  std::vector<std::string> out;
  std::string acc;
  for (const auto& part : split(key, '.')) {
    acc = acc.empty() ? part : acc + "." + part;
    out.push_back(acc);
  }
  return out;
}

// True when the loader refused (a prefix of) `key` as not a scenario key.
bool names_unknown_key(const std::string& unknown_key_path, const std::string& key) {
  if (unknown_key_path.empty()) return false;
  for (const auto& p : key_prefixes(key))
    if (unknown_key_path == p) return true;
  return false;
}

// Keys in this order first, the rest alphabetically (nlohmann::json sorts keys).
const std::vector<std::string>& preferred_order() {
  static const std::vector<std::string> order = {
      "requests", "duration_s", "gpus",   "throughput", "ttft_ms", "tpot_ms", "itl_ms", "e2e_ms", "queue_ms",
      "slo",      "utilization", "gpu_time_share", "tokens", "mean", "p50", "p90", "p95", "p99", "min", "max",
      "count",    "completed",  "failed", "preempted", "preemptions"};
  return order;
}

nlohmann::ordered_json ordered(const nlohmann::json& j) {
  if (j.is_object()) {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    for (const auto& k : preferred_order())
      if (j.contains(k)) out[k] = ordered(j.at(k));
    for (auto it = j.begin(); it != j.end(); ++it)
      if (!out.contains(it.key())) out[it.key()] = ordered(it.value());
    return out;
  }
  if (j.is_array()) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& v : j) out.push_back(ordered(v));
    return out;
  }
  if (j.is_boolean()) return j.get<bool>();
  if (j.is_number_unsigned()) return j.get<std::uint64_t>();
  if (j.is_number_integer()) return j.get<std::int64_t>();
  if (j.is_number_float()) return j.get<double>();
  if (j.is_string()) return j.get<std::string>();
  return nullptr;
}

}  // namespace

std::vector<std::string> expand_range(const std::string& text, const std::string& what) {
  const auto parts = split(text, ':');
  if (parts.size() != 3)
    throw Error(fmt::format("{}: '{}' is not a range; write START:STOP:STEP (e.g. 1:5:2)", what, text));
  std::optional<double> v[3];
  const char* names[3] = {"START", "STOP", "STEP"};
  for (int i = 0; i < 3; ++i) {
    v[i] = read_number(parts[static_cast<std::size_t>(i)]);
    if (!v[i]) throw Error(fmt::format("{}: range '{}': {} '{}' is not a number", what, text, names[i], trim(parts[static_cast<std::size_t>(i)])));
  }
  const double start = *v[0], stop = *v[1], step = *v[2];
  if (step == 0) throw Error(fmt::format("{}: range '{}': STEP must not be zero", what, text));
  if ((stop - start) * step < 0)
    throw Error(fmt::format("{}: range '{}': STEP {} goes away from STOP {} (use a {} step)", what, text, trim(parts[2]),
                            trim(parts[1]), step > 0 ? "negative" : "positive"));
  const double span = (stop - start) / step;
  if (span > 1e6) throw Error(fmt::format("{}: range '{}' has more than a million values", what, text));
  const auto count = static_cast<std::int64_t>(std::floor(span + 1e-9)) + 1;
  const bool integral = integer_text(parts[0]) && integer_text(parts[1]) && integer_text(parts[2]);
  std::vector<std::string> out;
  out.reserve(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    const double x = start + static_cast<double>(i) * step;
    if (integral) out.push_back(fmt::format("{}", static_cast<std::int64_t>(std::llround(x))));
    else out.push_back(fmt::format("{:.12g}", x));
  }
  return out;
}

SweepAxis parse_vary(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw Error(fmt::format("--vary '{}': expected KEY=V1,V2,... or KEY=START:STOP:STEP", text));
  SweepAxis axis;
  axis.key = trim(text.substr(0, eq));
  for (const auto& part : split(axis.key, '.'))
    if (part.empty() || part.find_first_of(" \t") != std::string::npos)
      throw Error(fmt::format("--vary '{}': malformed key path '{}'", text, axis.key));
  const std::string what = fmt::format("--vary {}", axis.key);
  const std::string rest = text.substr(eq + 1);
  if (trim(rest).empty()) throw Error(fmt::format("{}: no values (expected KEY=V1,V2,... or KEY=START:STOP:STEP)", what));
  for (const auto& raw : split_items(rest)) {
    const std::string item = trim(raw);
    if (item.empty()) throw Error(fmt::format("{}: empty value in '{}'", what, rest));
    const bool flow = item.front() == '{' || item.front() == '[' || item.front() == '"' || item.front() == '\'';
    const auto colons = std::count(item.begin(), item.end(), ':');
    if (!flow && colons == 2) {
      const auto parts = split(item, ':');
      if (read_number(parts[0]) || read_number(parts[1]) || read_number(parts[2])) {
        for (auto& v : expand_range(item, what)) axis.values.push_back(std::move(v));
        continue;
      }
    }
    if (!flow && colons == 1) {
      const auto parts = split(item, ':');
      if (read_number(parts[0]) && read_number(parts[1]))
        throw Error(fmt::format("{}: '{}' looks like a range without a step; write START:STOP:STEP", what, item));
    }
    axis.values.push_back(item);
  }
  return axis;
}

std::vector<std::vector<std::string>> cartesian(const std::vector<SweepAxis>& axes) {
  std::vector<std::vector<std::string>> out{{}};
  for (const auto& axis : axes) {
    std::vector<std::vector<std::string>> next;
    next.reserve(out.size() * axis.values.size());
    for (const auto& prefix : out)
      for (const auto& v : axis.values) {
        next.push_back(prefix);
        next.back().push_back(v);
      }
    out = std::move(next);
  }
  return out;
}

void parallel_for(std::size_t n, int threads, const std::function<void(std::size_t)>& fn) {
  const std::size_t t = std::max<std::size_t>(1, std::min<std::size_t>(static_cast<std::size_t>(std::max(threads, 1)), n));
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::exception_ptr first;
  std::mutex m;
  const std::atomic<bool>* caller_stop = current_stop_flag();  // the caller's own stop request reaches the workers
  auto worker = [&] {
    const StopScope scope(caller_stop);
    for (;;) {
      if (stop.load()) return;
      const std::size_t i = next.fetch_add(1);
      if (i >= n) return;
      try {
        fn(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(m);
        if (!first) first = std::current_exception();
        stop = true;
        return;
      }
    }
  };
  if (t == 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (std::size_t k = 0; k < t; ++k) pool.emplace_back(worker);
    for (auto& th : pool) th.join();
  }
  if (first) std::rethrow_exception(first);
}

std::size_t sweep_point_count(const std::vector<SweepAxis>& axes, std::size_t max_points) {
  std::size_t total = 1;
  std::string shape;
  for (const auto& a : axes) shape += (shape.empty() ? "" : " x ") + std::to_string(a.values.size());
  for (const auto& a : axes) {
    const std::size_t n = std::max<std::size_t>(a.values.size(), 1);
    // Checked before multiplying: 1000 x 1000 x ... must not wrap around.
    if (total > max_points / n || total * n > max_points)
      throw Error(fmt::format("the sweep has more than {} points ({} values); narrow the ranges, or raise the limit "
                              "with --max-points N if you mean it",
                              max_points, shape));
    total *= n;
  }
  return total;
}

std::vector<std::string> point_values(const std::vector<SweepAxis>& axes, std::size_t index) {
  std::vector<std::string> values(axes.size());
  for (std::size_t a = axes.size(); a-- > 0;) {
    const std::size_t n = axes[a].values.size();
    values[a] = axes[a].values[index % n];
    index /= n;
  }
  return values;
}

std::vector<PointResult> run_sweep(const ConfigNode& base, const std::string& source,
                                   const std::vector<SweepAxis>& axes, const SweepOptions& options) {
  if (axes.empty()) throw Error("nothing to sweep: give at least one --vary KEY=VALUES");
  for (std::size_t i = 0; i < axes.size(); ++i) {
    if (axes[i].values.empty()) throw Error(fmt::format("--vary {}: no values", axes[i].key));
    for (std::size_t j = 0; j < i; ++j)
      if (axes[j].key == axes[i].key) throw Error(fmt::format("--vary {}: the key is varied twice", axes[i].key));
  }
  const std::size_t total = sweep_point_count(axes, options.max_points);
  // Each axis value is parsed once into an edit; a point is the base draft (a plain
  // copy) with one edit per axis. Points are made from their index when a worker
  // takes them and dropped when done (unless the caller keeps them): a sweep's memory
  // does not grow with its scenarios.
  std::vector<std::vector<ConfigEdit>> edits(axes.size());
  for (std::size_t a = 0; a < axes.size(); ++a)
    for (const auto& v : axes[a].values) {
      try {
        edits[a].push_back(parse_edit(axes[a].key + "=" + v));
      } catch (const Error& e) {
        throw Error(fmt::format("--vary {}: {}", axes[a].key, e.what()));
      }
    }
  auto resolve_point = [&](std::size_t i) {
    ConfigNode doc = base;
    std::size_t rest = i;
    std::vector<std::size_t> value_index(axes.size());
    for (std::size_t a = axes.size(); a-- > 0;) {
      value_index[a] = rest % axes[a].values.size();
      rest /= axes[a].values.size();
    }
    for (std::size_t a = 0; a < axes.size(); ++a) {
      try {
        apply_edit(doc, edits[a][value_index[a]]);
      } catch (const Interrupted&) {
        throw;  // Ctrl-C stops the whole run, not just this point
      } catch (const Error& e) {
        throw Error(fmt::format("--vary {}: {}", axes[a].key, e.what()));
      }
    }
    return resolve(ScenarioDraft{std::move(doc), source});
  };

  // Phase 1: parse every point (cheap), so bad keys and values fail before any
  // simulation; kept per point: whether it parsed (and, for the few that did not, why).
  std::vector<std::uint8_t> parsed(total, 0);
  std::map<std::size_t, std::pair<std::string, std::string>> refused;  // point -> (reason, unknown key)
  std::mutex refused_mutex;
  parallel_for(total, options.threads, [&](std::size_t i) {
    throw_if_interrupted();
    Resolution r = resolve_point(i);
    if (r.ok()) {
      parsed[i] = 1;
      return;
    }
    std::lock_guard<std::mutex> lock(refused_mutex);
    refused.emplace(i, std::make_pair(std::move(r.reason), r.error_kind == ConfigErrorKind::unknown_key
                                                              ? std::move(r.error_key)
                                                              : std::string()));
  });
  for (const auto& axis : axes)
    for (const auto& [i, why] : refused)
      if (names_unknown_key(why.second, axis.key))
        throw Error(fmt::format("--vary {}: not a scenario key: {}", axis.key, why.first));
  // A value that fails at every point it appears in (a misspelt GPU name) is an input
  // error, not a column of infeasible rows. Only values of refused points can.
  if (!refused.empty()) {
    std::vector<std::vector<std::size_t>> ok_count(axes.size()), seen(axes.size());
    for (std::size_t a = 0; a < axes.size(); ++a) {
      ok_count[a].assign(axes[a].values.size(), 0);
      seen[a].assign(axes[a].values.size(), 0);
    }
    for (std::size_t i = 0; i < total; ++i) {
      std::size_t rest = i;
      for (std::size_t a = axes.size(); a-- > 0;) {
        const std::size_t v = rest % axes[a].values.size();
        rest /= axes[a].values.size();
        ++seen[a][v];
        ok_count[a][v] += parsed[i];
      }
    }
    for (std::size_t a = 0; a < axes.size(); ++a)
      for (std::size_t v = 0; v < axes[a].values.size(); ++v) {
        if (ok_count[a][v] > 0 || seen[a][v] == 0) continue;
        // The first point (in point order) that has this value: its reason.
        for (const auto& [i, why] : refused)
          if (point_values(axes, i)[a] == axes[a].values[v])
            throw Error(fmt::format("--vary {}={}: fails at every point: {}", axes[a].key, axes[a].values[v],
                                    why.first));
      }
  }

  // Phase 2: simulate.
  std::vector<PointResult> kept(options.keep_results ? total : 0);
  std::mutex progress_mutex;
  std::size_t done = 0;
  parallel_for(total, options.threads, [&](std::size_t i) {
    throw_if_interrupted();  // Ctrl-C: start no new point
    PointResult p;
    p.index = i;
    p.values = point_values(axes, i);
    if (options.skip && options.skip(i)) {
      std::lock_guard<std::mutex> lock(progress_mutex);
      if (options.progress) options.progress(++done, total);
      if (options.keep_results) kept[i] = std::move(p);
      return;
    }
    if (parsed[i]) {
      Resolution r = resolve_point(i);
      if (r.ok()) p.scenario = std::move(r.scenario);
      else p.reason = std::move(r.reason);  // cannot differ from phase 1; said if it did
    } else {
      std::lock_guard<std::mutex> lock(refused_mutex);
      p.reason = refused.at(i).first;
    }
    if (p.scenario) {
      try {
        SimulationOptions so;
        so.timeline_rows = options.timeline_rows;
        so.concurrent_runs = options.threads;
        p.result = simulate(*p.scenario, so);
        p.ok = true;
      } catch (const Interrupted&) {
        throw;  // Ctrl-C stops the whole run, not just this point
      } catch (const Error& e) {
        p.reason = e.what();
      }
    }
    std::lock_guard<std::mutex> lock(progress_mutex);
    if (options.on_point) options.on_point(p);
    if (options.progress) options.progress(++done, total);
    if (options.keep_results) kept[i] = std::move(p);
  });
  return kept;
}

nlohmann::ordered_json scalar_json(const std::string& text) {
  const std::string t = trim(text);
  if (integer_text(t)) {
    char* end = nullptr;
    const long long v = std::strtoll(t.c_str(), &end, 10);
    if (end == t.c_str() + t.size()) return v;
  }
  if (auto v = read_number(t)) return *v;
  return t;
}

nlohmann::ordered_json point_json(const PointResult& p, const std::vector<SweepAxis>& axes) {
  nlohmann::ordered_json j;
  j["point"] = p.index;
  nlohmann::ordered_json vary = nlohmann::ordered_json::object();
  for (std::size_t a = 0; a < axes.size() && a < p.values.size(); ++a) vary[axes[a].key] = scalar_json(p.values[a]);
  j["vary"] = vary;
  // A point where some request could not be served is infeasible too (its
  // summary stays, so the row shows how many failed and why). Users who gave up
  // (workload.patience) are a result of the load, not a request that cannot be
  // served: the reason names them, the status stays ok.
  const std::int64_t failed = p.ok && p.result ? p.result->summary.failed : 0;
  const std::int64_t abandoned =
      p.ok && p.result ? p.result->summary.failures[static_cast<std::size_t>(FailureReason::abandoned)] : 0;
  j["status"] = p.ok && failed == abandoned ? "ok" : "infeasible";
  j["reason"] = failed > 0 ? fmt::format("{} of {} requests failed ({})", failed,
                                         failed + p.result->summary.completed, failures_text(p.result->summary.failures))
                           : p.reason;
  if (!p.ok || !p.scenario || !p.result) return j;
  const Scenario& sc = *p.scenario;
  const SimulationResult& r = *p.result;
  constexpr double GiB = 1024.0 * 1024.0 * 1024.0;
  j["setup"] = {{"gpu", sc.gpu.name},
                {"model", sc.model.name},
                {"precision", precision_label(sc.resolved)},
                {"tp", sc.parallelism.tp},
                {"pp", sc.parallelism.pp},
                {"replicas", sc.parallelism.replicas},
                {"gpus", sc.parallelism.total_gpus()}};
  j["memory"] = {{"weights_gib_per_gpu", r.memory.weights / GiB},
                 {"kv_gib_per_gpu", r.memory.kv_bytes / GiB},
                 {"kv_blocks", r.kv_blocks_per_replica},
                 {"kv_tokens", r.kv_blocks_per_replica * sc.engine.block_size}};
  j["summary"] = ordered(summary_json(r.summary));
  // Prefill and decode pools (scenario/disaggregation.h): their GPUs, each at its own price.
  const Economics e = run_economics(sc, r.summary);
  if (sc.disaggregation && r.summary.disaggregation) {
    const DisaggregationReport& rep = *r.summary.disaggregation;
    j["setup"]["gpus"] = r.summary.gpus;
    j["setup"]["prefill"] = {{"gpu", rep.prefill.gpu}, {"tp", rep.prefill.tp}, {"replicas", rep.prefill.replicas}};
    j["setup"]["decode"] = {{"gpu", rep.decode.gpu}, {"tp", rep.decode.tp}, {"replicas", rep.decode.replicas}};
  }
  j["cost"] = {{"usd_per_hour", e.usd_per_hour}, {"usd_per_million_output_tokens", e.usd_per_million_output_tokens}};
  j["energy"] = {{"power_w", e.power_watts}, {"joules_per_output_token", e.joules_per_output_token}};
  // How far to trust the point's latencies (uncertainty/bands.h).
  j["bands"] = ordered(bands::run_bands_json(sc, r.summary, summary_json(r.summary)));
  return j;
}

void flatten_json(const nlohmann::ordered_json& j, const std::string& prefix, nlohmann::ordered_json& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it)
      flatten_json(it.value(), prefix.empty() ? it.key() : prefix + "." + it.key(), out);
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) flatten_json(j[i], fmt::format("{}.{}", prefix, i), out);
  } else {
    out[prefix] = j;
  }
}

nlohmann::ordered_json flat_row(const PointResult& p, const std::vector<SweepAxis>& axes) {
  const nlohmann::ordered_json j = point_json(p, axes);
  nlohmann::ordered_json out;
  out["point"] = j["point"];
  for (auto it = j["vary"].begin(); it != j["vary"].end(); ++it) out[it.key()] = it.value();
  out["status"] = j["status"];
  out["reason"] = j["reason"];
  for (const char* section : {"setup", "memory"})
    if (j.contains(section)) flatten_json(j[section], section, out);
  if (j.contains("summary")) {
    for (auto it = j["summary"].begin(); it != j["summary"].end(); ++it) {
      if (it.key() != "slo") {
        flatten_json(it.value(), it.key(), out);
        continue;
      }
      const auto& slo = it.value();
      for (const auto& t : slo["targets"]) {
        const std::string name = fmt::format("slo.{}.{}", t["metric"].get<std::string>(), t["statistic"].get<std::string>());
        out[name] = t["value_ms"];
        out[name + ".met"] = t["met"];
      }
      for (auto s = slo.begin(); s != slo.end(); ++s)
        if (s.key() != "targets") out["slo." + s.key()] = s.value();
    }
  }
  for (const char* section : {"cost", "energy"})
    if (j.contains(section)) flatten_json(j[section], section, out);
  // Bands as bands.<metric>.<stat>.{lo,hi,n,group} columns (the label and source metric
  // stay in the JSON; the CSV keeps what a plot needs).
  if (j.contains("bands")) {
    const auto& b = j["bands"];
    out["bands.available"] = b["available"];
    for (auto m = b.begin(); m != b.end(); ++m) {
      if (!m.value().is_object() || m.key() == "key") continue;
      for (auto s = m.value().begin(); s != m.value().end(); ++s)
        for (const char* f : {"lo", "hi", "n", "group"})
          out[fmt::format("bands.{}.{}.{}", m.key(), s.key(), f)] = s.value()[f];
    }
  }
  return out;
}

std::string csv_field(const std::string& s) { return csv_cell(s); }

std::string csv_value(const nlohmann::ordered_json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return csv_field(v.get<std::string>());
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_integer()) return fmt::format("{}", v.get<std::int64_t>());
  if (v.is_number_unsigned()) return fmt::format("{}", v.get<std::uint64_t>());
  if (v.is_number_float()) return fmt::format("{}", v.get<double>());
  return csv_field(v.dump());
}

nlohmann::ordered_json PointRecord::json() const { return nlohmann::ordered_json::parse(json_text); }

std::string_view PointRecord::cell(std::size_t i) const {
  const std::uint32_t begin = i == 0 ? 0 : csv_ends[i - 1];
  return std::string_view(csv_text).substr(begin, csv_ends[i] - begin);
}

void PointRecord::set_cells(const std::vector<std::pair<std::string, std::string>>& cells) {
  // Feasible points share one column list, infeasible ones another: a few lists per sweep.
  static std::mutex m;
  static std::map<std::vector<std::string>, std::shared_ptr<const std::vector<std::string>>> lists;
  std::vector<std::string> keys;
  keys.reserve(cells.size());
  csv_text.clear();
  csv_ends.clear();
  csv_ends.reserve(cells.size());
  for (const auto& [key, text] : cells) {
    keys.push_back(key);
    csv_text += text;
    csv_ends.push_back(static_cast<std::uint32_t>(csv_text.size()));
  }
  std::lock_guard<std::mutex> lock(m);
  auto it = lists.find(keys);
  if (it == lists.end()) {
    auto shared = std::make_shared<const std::vector<std::string>>(keys);
    it = lists.emplace(std::move(keys), std::move(shared)).first;
  }
  csv_keys = it->second;
}

PointRecord point_record(const PointResult& p, const std::vector<SweepAxis>& axes) {
  PointRecord r;
  r.index = p.index;
  r.values = p.values;
  r.json_text = point_json(p, axes).dump();
  const nlohmann::ordered_json row = flat_row(p, axes);
  std::vector<std::pair<std::string, std::string>> cells;
  cells.reserve(row.size());
  for (auto it = row.begin(); it != row.end(); ++it) cells.emplace_back(it.key(), csv_value(it.value()));
  r.set_cells(cells);
  return r;
}

std::string records_csv(const std::vector<PointRecord>& records, const std::vector<SweepAxis>& axes) {
  std::vector<std::string> columns = {"point"};
  for (const auto& a : axes) columns.push_back(a.key);
  columns.push_back("status");
  columns.push_back("reason");
  std::map<std::string, bool> seen;
  for (const auto& c : columns) seen[c] = true;
  for (const auto& r : records)
    for (std::size_t i = 0; i < r.cells(); ++i)
      if (!seen[r.key(i)]) {
        seen[r.key(i)] = true;
        columns.push_back(r.key(i));
      }
  std::string out;
  for (std::size_t c = 0; c < columns.size(); ++c) out += (c ? "," : "") + csv_field(columns[c]);
  out += "\n";
  std::map<std::string, std::string_view> cells;
  for (const auto& r : records) {
    cells.clear();
    for (std::size_t i = 0; i < r.cells(); ++i) cells.emplace(r.key(i), r.cell(i));
    for (std::size_t c = 0; c < columns.size(); ++c) {
      if (c) out += ",";
      if (const auto it = cells.find(columns[c]); it != cells.end()) out += it->second;
    }
    out += "\n";
  }
  return out;
}

nlohmann::ordered_json records_json(const std::vector<PointRecord>& records) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& r : records) out.push_back(r.json());
  return out;
}

std::string records_json_text(const std::vector<PointRecord>& records) {
  if (records.empty()) return "[]";
  // nlohmann prints an array element at depth 1 as its own dump(2) with every line
  // indented by two more spaces.
  std::string out = "[\n";
  for (std::size_t i = 0; i < records.size(); ++i) {
    const std::string one = records[i].json().dump(2);
    out += "  ";
    for (char c : one) {
      out += c;
      if (c == '\n') out += "  ";
    }
    out += i + 1 < records.size() ? ",\n" : "\n";
  }
  return out + "]";
}

std::string sweep_csv(const std::vector<PointResult>& points, const std::vector<SweepAxis>& axes) {
  std::vector<PointRecord> records;
  records.reserve(points.size());
  for (const auto& p : points) records.push_back(point_record(p, axes));
  return records_csv(records, axes);
}

nlohmann::ordered_json sweep_json(const std::vector<PointResult>& points, const std::vector<SweepAxis>& axes) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& p : points) out.push_back(point_json(p, axes));
  return out;
}

}  // namespace servesim::planning
