#include "validation/trace_validation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include <sys/wait.h>

#include "metrics/requests_csv.h"
#include "run/simulation.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/json_file.h"
#include "util/paths.h"
#include "util/run_program.h"
#include "util/text.h"
#include "util/untrusted_text.h"
#include "workload/trace_export.h"
#include "workload/trace_reader.h"
#include "config/scenario_reader.h"

namespace servesim {

namespace {
using nlohmann::json;

TraceFormat resolved_format(const TraceSpec& t) {
  return t.format == TraceFormat::automatic ? detect_trace_format(t.path) : t.format;
}

json load_json_file(const std::string& path) { return read_json_file(path, "not a valid JSON document"); }

// A vllm_bench per-request list that validation needs, checked for presence and length.
const json& bench_list(const json& doc, const char* key, std::size_t n, const std::string& path, const char* what) {
  if (!doc.contains(key))
    throw Error(fmt::format("{}: missing field '{}' ({}); `servesim validate` needs input_lens, output_lens, "
                            "request_rate, ttfts and itls (save the benchmark with --save-result; "
                            "--save-detailed in newer vLLM versions)",
                            path, key, what));
  const json& v = doc.at(key);
  if (!v.is_array()) throw Error(fmt::format("{}: field '{}' must be a list ({}), got {}", path, key, what, v.type_name()));
  if (v.size() != n)
    throw Error(fmt::format("{}: field '{}' has {} entries but input_lens has {}", path, key, v.size(), n));
  return v;
}

// The simulation's results by trace index (a request's id is its record's index), at
// requests.csv precision (as before: the outputs stay byte-identical).
std::vector<PredictedRequest> by_trace_index(const RequestResults& results, std::size_t n) {
  std::vector<PredictedRequest> out(n);
  for (const RequestResult& r : results) {
    if (r.id < 0 || static_cast<std::size_t>(r.id) >= n) continue;  // not a trace record (cannot happen)
    PredictedRequest& p = out[static_cast<std::size_t>(r.id)];
    static_cast<RequestResult&>(p) = at_csv_precision(r);
    p.present = true;
  }
  return out;
}

std::optional<double> measured_value(const MeasuredRequest& m, const std::string& metric) {
  if (metric == "ttft") return m.ttft_ms;
  if (metric == "tpot") return m.tpot_ms;
  return m.e2e_ms;
}

std::optional<double> predicted_value(const PredictedRequest& p, const std::string& metric) {
  if (!p.present || p.failed) return std::nullopt;
  if (metric == "ttft") return p.ttft_ms;
  if (metric == "tpot") return p.has_tpot() ? std::optional<double>(p.tpot_ms) : std::nullopt;
  return p.e2e_ms;
}

std::string upper(const std::string& s) {
  std::string u = s;
  for (char& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return u;
}


// Sorted positive values with their cumulative fraction, one "value fraction" line each.
std::string cdf_data(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  std::string out;
  const double n = static_cast<double>(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out += fmt::format("{:.6g} {:.6f}\n", v[i], static_cast<double>(i + 1) / n);
  return out;
}

}  // namespace

Scenario trace_scenario(ConfigNode doc, const std::string& source, const std::string& trace_path,
                        TraceFormat format) {
  if (!doc.is_map()) throw Error(fmt::format("{}: expected a YAML mapping (a scenario)", source));
  ConfigNode w = ConfigNode::map();
  if (const ConfigNode* old = doc.find("workload"); old && old->is_map()) {
    for (const char* key : {"seed", "hash_block_tokens"})
      if (const ConfigNode* v = old->find(key)) w.set(key, *v);
  }
  std::string path = trace_path;
  if (!path.empty() && path[0] != '/' && file_exists(path)) path = std::filesystem::absolute(path).lexically_normal().string();
  if (!file_exists(path)) {
    reject_directory(path);
    throw Error(fmt::format("--trace {}: file not found", trace_path));
  }
  w.set("trace", ConfigNode::scalar(path));
  w.set("format", ConfigNode::scalar(trace_format_name(format)));
  doc.set("workload", std::move(w));
  return parse_scenario(doc, source);
}

void check_context_limit(const Scenario& sc) {
  if (!sc.workload.trace) throw Error("internal: check_context_limit needs a trace workload");
  const TraceSpec& t = *sc.workload.trace;
  TraceReaderOptions opt;
  opt.hash_block_tokens = sc.workload.hash_block_tokens;
  opt.seed = sc.workload.seed;
  auto reader = open_trace_reader(t.path, t.format, opt);
  const std::int64_t limit = sc.engine.max_model_len;
  std::int64_t over = 0, total = 0;
  std::optional<TraceRecord> first;
  while (auto r = reader->read()) {
    ++total;
    if (r->input_tokens + r->output_tokens > limit) {
      if (!first) first = *r;
      ++over;
    }
  }
  if (over == 0) return;
  // Formats without lines name a request by its index in send order.
  const bool bench = reader->format() != TraceFormat::csv && reader->format() != TraceFormat::azure &&
                     reader->format() != TraceFormat::mooncake;
  const std::string advice =
      limit < sc.model.max_context
          ? fmt::format("raise engine.max_model_len (the model allows {}) with --set engine.max_model_len=N, or drop "
                        "those requests from the trace",
                        sc.model.max_context)
          : fmt::format("that is the model's whole context ({}): drop those requests from the trace",
                        sc.model.max_context);
  throw Error(fmt::format(
      "{}: {} of {} requests exceed the context limit max_model_len = {} (input + output tokens); the first is "
      "{} {}: {} + {} = {} tokens; {}",
      t.path, over, total, limit, bench ? "request" : "line", bench ? first->line - 1 : first->line,
      first->input_tokens, first->output_tokens, first->input_tokens + first->output_tokens, advice));
}

std::vector<double> read_vllm_bench_itls(const std::string& path) {
  const json doc = load_json_file(path);
  if (!doc.is_object()) throw Error(fmt::format("{}: expected a JSON object (a vllm bench serve result)", path));
  if (!doc.contains("input_lens") || !doc.at("input_lens").is_array())
    throw Error(fmt::format("{}: missing field 'input_lens' (per-request prompt lengths)", path));
  const std::size_t n = doc.at("input_lens").size();
  const json& ttfts = bench_list(doc, "ttfts", n, path, "per-request time to first token, seconds");
  const json& itls = bench_list(doc, "itls", n, path, "per-request inter-token latencies, seconds");
  std::vector<bool> failed(n, false);
  if (doc.contains("errors") && doc.at("errors").is_array() && doc.at("errors").size() == n)
    for (std::size_t i = 0; i < n; ++i) {
      const json& e = doc.at("errors")[i];
      failed[i] = !(e.is_null() || (e.is_string() && e.get<std::string>().empty()));
    }
  std::vector<double> out;
  for (std::size_t i = 0; i < n; ++i) {
    if (failed[i]) continue;
    if (!ttfts[i].is_number())
      throw Error(fmt::format("{}: ttfts[{}] must be a number (seconds), got {}", path, i, excerpt(ttfts[i].dump())));
    if (!itls[i].is_array())
      throw Error(fmt::format("{}: itls[{}] must be a list of seconds, got {}", path, i, excerpt(itls[i].dump())));
    for (const json& x : itls[i]) {
      if (!x.is_number()) throw Error(fmt::format("{}: itls[{}] holds {}, not a number", path, i, excerpt(x.dump())));
      out.push_back(x.get<double>() * 1e3);
    }
  }
  return out;
}

double percent_error(double predicted, double measured) {
  return measured != 0 ? 100.0 * (predicted - measured) / measured : 0.0;
}

std::optional<double> pearson(const std::vector<double>& x, const std::vector<double>& y) {
  const std::size_t n = std::min(x.size(), y.size());
  if (n < 3) return std::nullopt;
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < n; ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= static_cast<double>(n);
  my /= static_cast<double>(n);
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (!(sxx > 0) || !(syy > 0)) return std::nullopt;
  return sxy / std::sqrt(sxx * syy);
}

namespace {
// "meta-llama/Llama-3.1-8B-Instruct" -> "llama-3.1-8b": the last path part, lower-case,
// without the tuning suffixes that do not change the shapes.
std::string model_key(const std::string& id) {
  std::string k = to_lower(trim(id));
  if (const auto slash = k.rfind('/'); slash != std::string::npos) k = k.substr(slash + 1);
  for (bool again = true; again;) {
    again = false;
    for (const char* suffix : {"-instruct", "-chat", "-hf", "-base", "-it"}) {
      if (ends_with(k, suffix) && k.size() > std::string_view(suffix).size()) {
        k.resize(k.size() - std::string_view(suffix).size());
        again = true;
      }
    }
  }
  return k;
}
}  // namespace

std::optional<std::string> model_id_mismatch(const std::string& model_id, const ModelSpec& model) {
  if (trim(model_id).empty()) return std::nullopt;
  const std::string key = model_key(model_id);
  if (key == model_key(model.name) || (!model.hf_id.empty() && key == model_key(model.hf_id))) return std::nullopt;
  return fmt::format("the trace was measured on model_id '{}', but the scenario simulates '{}'{}: the comparison "
                     "is only meaningful for the same model (set model.name, e.g. --set model.name=...)",
                     model_id, model.name, model.hf_id.empty() ? "" : fmt::format(" ({})", model.hf_id));
}

TraceValidation validate_trace(const Scenario& sc, const ValidationTargets& targets) {
  if (!sc.workload.trace) throw Error("internal: validate_trace needs a trace workload");
  const TraceSpec& t = *sc.workload.trace;
  TraceValidation v;
  v.trace_path = t.path;
  v.format = resolved_format(t);
  std::vector<double> measured_itl;
  json bench;
  std::optional<MeasuredAggregate> aggregate;
  std::string model_id;  // the served model a GuideLLM report or a summary names
  switch (v.format) {
    case TraceFormat::csv:
      v.measured = read_measured_csv(t.path);
      break;
    case TraceFormat::vllm_bench:
      measured_itl = read_vllm_bench_itls(t.path);  // checks ttfts and itls first
      v.measured = read_measured_vllm_bench(t.path, sc.workload.seed);
      for (const MeasuredRequest& m : v.measured) v.no_token_requests += m.no_token ? 1 : 0;
      bench = load_json_file(t.path);  // throughput and duration below
      if (bench.contains("start_times") && bench["start_times"].is_array())
        v.replay_note = bench.contains("queue_times") && bench["queue_times"].is_array()
                            ? "send times as recorded (start_times less queue_times)"
                            : "send times as recorded (start_times)";
      if (bench.contains("model_id") && bench["model_id"].is_string()) {
        if (auto w = model_id_mismatch(bench["model_id"].get<std::string>(), sc.model))
          v.warnings.push_back(fmt::format("{}: {}", t.path, *w));
      }
      break;
    case TraceFormat::guidellm: {
      const trace_detail::ExportedRun run = trace_detail::load_guidellm_report(t.path);  // read once here
      v.measured = trace_detail::measured_requests(run);
      model_id = run.model_id;
      v.replay_note = "send times as recorded, every benchmark of the report in turn";
      break;
    }
    case TraceFormat::aiperf:
      v.measured = read_measured_aiperf(t.path, &measured_itl);
      v.replay_note = "send times as recorded";
      break;
    case TraceFormat::aiperf_summary:
    case TraceFormat::vllm_bench_summary: {
      const bool vllm = v.format == TraceFormat::vllm_bench_summary;
      aggregate = vllm ? read_measured_vllm_bench_summary(t.path, sc.workload.seed)
                       : read_measured_aiperf_summary(t.path, sc.workload.seed);
      v.aggregate_only = true;
      v.replay_note = fmt::format("{} aggregates only: {} requests regenerated{}, {}{}", aggregate->tool,
                                  aggregate->requests, vllm ? "" : " from the length distributions",
                                  aggregate->arrivals,
                                  aggregate->errored > 0 && !vllm
                                      ? fmt::format(" ({} requests the file counts as errors are not replayed)",
                                                    aggregate->errored)
                                      : std::string());
      // The regenerated requests, so that predicted_vs_measured.csv lists them (nothing measured per request).
      TraceReaderOptions ro;
      ro.seed = sc.workload.seed;
      auto reader = open_trace_reader(t.path, v.format, ro);
      std::int64_t k = 0;
      while (auto r = reader->read()) {
        MeasuredRequest m;
        m.index = k++;
        m.arrival_s = static_cast<double>(r->time_ns) * 1e-9;
        m.input_tokens = r->input_tokens;
        m.output_tokens = r->output_tokens;
        v.measured.push_back(m);
      }
      break;
    }
    default:
      throw Error(fmt::format("{}: the {} trace format has no measured latencies; validate needs the generic CSV "
                              "with ttft_ms/tpot_ms/e2e_ms columns, a vllm bench serve result JSON, a GuideLLM "
                              "report, or an AIPerf / genai-perf export",
                              t.path, trace_format_name(v.format)));
  }
  if (aggregate) model_id = aggregate->model_id;
  if (!model_id.empty()) {
    if (auto w = model_id_mismatch(model_id, sc.model)) v.warnings.push_back(fmt::format("{}: {}", t.path, *w));
  }
  bool any = aggregate.has_value();
  for (const auto& m : v.measured) any = any || m.ttft_ms || m.tpot_ms || m.e2e_ms;
  if (!any)
    throw Error(fmt::format("{}: no measured latencies to compare (add ttft_ms, tpot_ms and/or e2e_ms columns with "
                            "values)",
                            t.path));
  check_context_limit(sc);

  auto source = make_request_source(sc.workload);
  RequestResults results;
  SimulationOptions opt;
  opt.request_results = &results;
  const SimulationResult r = simulate(sc, *source, opt);
  v.requests = static_cast<std::int64_t>(v.measured.size());
  v.predicted = by_trace_index(results, v.measured.size());
  v.predicted_completed = r.summary.completed;
  v.predicted_failed = r.summary.failed;
  v.preemptions = r.summary.preemptions;
  v.prefix_hit_rate = r.summary.prefix_hit_rate;

  // Per metric: distributions over every request with a value, Pearson over pairs.
  for (const std::string metric : {"ttft", "tpot", "itl", "e2e"}) {
    MetricComparison c;
    c.name = metric;
    if (aggregate) {  // the file's statistics against the simulation's over every completed request
      const auto it = std::find_if(aggregate->metrics.begin(), aggregate->metrics.end(),
                                   [&](const auto& e) { return e.first == metric; });
      if (it == aggregate->metrics.end()) continue;
      const MeasuredStats& ms = it->second;
      c.measured = Distribution{ms.count, ms.mean, ms.p50, ms.p90, ms.p95, ms.p99, ms.min, ms.max};
      if (metric == "itl") {  // per-token gaps: the simulation's over every step it recorded
        c.predicted = r.summary.itl_ms;
      } else {
        std::vector<double> pp;
        for (const PredictedRequest& p : v.predicted)
          if (const auto x = predicted_value(p, metric)) pp.push_back(*x);
        c.predicted = summarize_values(pp);
      }
      v.metrics.push_back(c);
      continue;
    }
    if (metric == "itl") {
      if (measured_itl.empty()) continue;
      c.measured = summarize_values(measured_itl);
      c.predicted = r.summary.itl_ms;
      v.metrics.push_back(c);
      continue;
    }
    // Both sides over the same requests: those measured and completed in the simulation.
    std::vector<double> pm, pp;
    bool measured_any = false;
    for (std::size_t i = 0; i < v.measured.size(); ++i) {
      const auto m = measured_value(v.measured[i], metric);
      const auto p = predicted_value(v.predicted[i], metric);
      measured_any = measured_any || m.has_value();
      if (m && p) {
        pm.push_back(*m);
        pp.push_back(*p);
      }
    }
    if (!measured_any) continue;
    c.paired = static_cast<std::int64_t>(pm.size());
    c.pearson = pearson(pm, pp);
    c.measured = summarize_values(pm);
    c.predicted = summarize_values(pp);
    v.metrics.push_back(c);
  }

  // Output throughput.
  v.predicted_output_tokens = r.summary.output_tokens;
  v.predicted_duration_s = r.summary.duration_s;
  v.predicted_output_tps = r.summary.output_tokens_per_s;
  if (v.format == TraceFormat::vllm_bench) {
    std::int64_t tokens = 0;
    for (const json& o : bench.at("output_lens")) tokens += o.get<std::int64_t>();
    v.measured_output_tokens = bench.value("total_output_tokens", tokens);
    if (bench.contains("duration") && bench.at("duration").is_number()) {
      v.measured_duration_s = bench.at("duration").get<double>();
      if (v.measured_duration_s > 0) v.measured_output_tps = static_cast<double>(v.measured_output_tokens) / v.measured_duration_s;
    }
  } else if (aggregate) {
    v.measured_duration_s = aggregate->duration_s;
    v.measured_output_tps = aggregate->output_tps;
    v.measured_output_tokens =
        aggregate->output_tps > 0 && aggregate->duration_s > 0 ? std::llround(aggregate->output_tps * aggregate->duration_s) : 0;
  } else {
    bool all = !v.measured.empty();
    double first = 0, last = 0;
    std::int64_t tokens = 0;
    for (std::size_t i = 0; i < v.measured.size(); ++i) {
      const auto& m = v.measured[i];
      if (!m.e2e_ms) {
        all = false;
        break;
      }
      first = i == 0 ? m.arrival_s : std::min(first, m.arrival_s);
      last = i == 0 ? m.arrival_s + *m.e2e_ms * 1e-3 : std::max(last, m.arrival_s + *m.e2e_ms * 1e-3);
      tokens += m.output_tokens;
    }
    if (all && last > first) {
      v.measured_output_tokens = tokens;
      v.measured_duration_s = last - first;
      v.measured_output_tps = static_cast<double>(tokens) / v.measured_duration_s;
    }
  }

  // Verdict on the means.
  std::vector<std::string> within, missed;
  auto judge = [&](const char* metric, const char* label, double target) {
    for (const auto& c : v.metrics) {
      if (c.name != metric) continue;
      const double err = percent_error(c.predicted.mean, c.measured.mean);
      const std::string text = fmt::format("{} mean {:+.1f}% (target ≤ {:.0f}%)", label, err, target);
      (std::fabs(err) <= target ? within : missed).push_back(text);
      return;
    }
  };
  judge("e2e", "E2E", targets.e2e_mean_pct);
  judge("tpot", "TPOT", targets.tpot_mean_pct);
  judge("ttft", "TTFT", targets.ttft_mean_pct);
  v.within_targets = missed.empty() && !within.empty() && v.predicted_failed == 0;
  std::string verdict;
  if (missed.empty() && !within.empty()) verdict = "within targets: " + join(within);
  else verdict = "misses targets: " + join(missed) + (within.empty() ? "" : "; within: " + join(within));
  if (v.predicted_failed > 0)
    verdict += fmt::format("; {} request{} failed in the simulation (did not fit the KV cache)", v.predicted_failed,
                           v.predicted_failed == 1 ? "" : "s");
  v.verdict = verdict;
  return v;
}

std::string predicted_vs_measured_csv(const TraceValidation& v) {
  auto cell = [](const std::optional<double>& x) { return x ? fmt::format("{:.3f}", *x) : std::string(); };
  std::string out =
      "index,arrival_s,predicted_arrival_s,input_tokens,output_tokens,measured_ttft_ms,predicted_ttft_ms,"
      "measured_tpot_ms,predicted_tpot_ms,measured_e2e_ms,predicted_e2e_ms,predicted_queue_ms,predicted_failed\n";
  for (std::size_t i = 0; i < v.measured.size(); ++i) {
    const MeasuredRequest& m = v.measured[i];
    const PredictedRequest& p = v.predicted[i];
    out += fmt::format("{},{:.6f},{},{},{},{},{},{},{},{},{},{},{}\n", m.index, m.arrival_s,
                       p.present ? fmt::format("{:.6f}", p.arrival_s) : "", m.input_tokens, m.output_tokens,
                       cell(m.ttft_ms), cell(predicted_value(p, "ttft")), cell(m.tpot_ms),
                       cell(predicted_value(p, "tpot")), cell(m.e2e_ms), cell(predicted_value(p, "e2e")),
                       p.present ? fmt::format("{:.3f}", p.queue_ms) : "", p.present ? (p.failed ? "1" : "0") : "");
  }
  return out;
}

std::vector<std::string> write_validation_plots(const TraceValidation& v, const std::string& dir,
                                                const std::string& title) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error(fmt::format("{}: cannot create directory: {}", dir, ec.message()));
  auto write = [&](const std::string& name, const std::string& text) {
    write_file_atomically(dir + "/" + name, text);
  };
  // Data: CDFs of TTFT and E2E (positive values; log x when they span decades) and the E2E pairs.
  std::string script =
      "# Generated by `servesim validate --out`: rerun with `gnuplot validate_plots.gp` in this folder.\n"
      "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) { png_term = 'pngcairo size 900,620 enhanced font \"Sans,11\"' } "
      "else { png_term = 'png size 900,620' }\n"
      "set grid\nset key bottom right\n";
  std::vector<std::string> images;
  auto render = [&](const std::string& stem, const std::string& body) {
    script += fmt::format("set terminal @png_term\nset output '{0}.png'\n{1}\n"
                          "set terminal svg size 900,620 dynamic enhanced font 'Sans,11'\nset output '{0}.svg'\nreplot\n"
                          "unset output\nreset\nset grid\nset key bottom right\n",
                          stem, body);
    images.push_back(dir + "/" + stem + ".png");
    images.push_back(dir + "/" + stem + ".svg");
  };
  for (const std::string metric : {"ttft", "e2e"}) {
    std::vector<double> meas, pred;
    for (std::size_t i = 0; i < v.measured.size(); ++i) {
      if (auto m = measured_value(v.measured[i], metric); m && *m > 0) meas.push_back(*m);
      if (auto p = predicted_value(v.predicted[i], metric); p && *p > 0) pred.push_back(*p);
    }
    if (meas.empty() || pred.empty()) continue;
    write(metric + "_measured.dat", cdf_data(meas));
    write(metric + "_predicted.dat", cdf_data(pred));
    const double lo = std::min(*std::min_element(meas.begin(), meas.end()), *std::min_element(pred.begin(), pred.end()));
    const double hi = std::max(*std::max_element(meas.begin(), meas.end()), *std::max_element(pred.begin(), pred.end()));
    const bool logx = hi > 50 * lo;
    render(metric + "_cdf",
           fmt::format("set title {} noenhanced\nset xlabel '{} (ms{})'\nset ylabel 'fraction of requests'\n"
                       "set yrange [0:1]\n{}plot '{}_measured.dat' using 1:2 with steps lw 2 lc rgb '#1f77b4' title "
                       "'measured', '{}_predicted.dat' using 1:2 with steps lw 2 lc rgb '#d62728' title 'predicted'",
                       gnuplot_string(upper(metric) + " CDF: " + title), upper(metric), logx ? ", log scale" : "",
                       logx ? "set logscale x\n" : "", metric, metric));
  }
  {
    std::string pairs;
    double lo = 0, hi = 0;
    bool first = true;
    for (std::size_t i = 0; i < v.measured.size(); ++i) {
      const auto m = measured_value(v.measured[i], "e2e");
      const auto p = predicted_value(v.predicted[i], "e2e");
      if (!m || !p || *m <= 0 || *p <= 0) continue;
      pairs += fmt::format("{:.6g} {:.6g}\n", *m, *p);
      lo = first ? std::min(*m, *p) : std::min({lo, *m, *p});
      hi = first ? std::max(*m, *p) : std::max({hi, *m, *p});
      first = false;
    }
    if (!first) {
      write("e2e_pairs.dat", pairs);
      const bool logxy = hi > 50 * lo;
      render("e2e_scatter",
             fmt::format("set title {} noenhanced\nset xlabel 'measured E2E (ms)'\nset ylabel 'predicted E2E "
                         "(ms)'\nset size square\nset key top left\n{}set xrange [{:.6g}:{:.6g}]\nset yrange "
                         "[{:.6g}:{:.6g}]\nplot 'e2e_pairs.dat' using 1:2 with points pt 7 ps 0.5 lc rgb '#1f77b4' "
                         "title 'request', x with lines lw 2 lc rgb '#555555' title 'y = x'",
                         gnuplot_string("E2E per request: " + title), logxy ? "set logscale xy\n" : "", logxy ? lo * 0.8 : 0.0, hi * 1.05,
                         logxy ? lo * 0.8 : 0.0, hi * 1.05));
    }
  }
  write("validate_plots.gp", script);
  // No shell: gnuplot runs with the folder as its working directory and the script's
  // file name as its one argument, so no name reaches a command line.
  const ProgramResult rc = run_program({"gnuplot", "validate_plots.gp"}, dir, "gnuplot.log");
  if (!rc.started)
    throw Error(fmt::format("{}: gnuplot could not be run ({}); install gnuplot (e.g. apt-get install gnuplot-nox) "
                            "or pass --no-plots (the data and script are in {})",
                            dir, rc.error, dir));
  if (rc.exit_code != 0) {
    std::ifstream log(dir + "/gnuplot.log");
    std::stringstream text;
    text << log.rdbuf();
    throw Error(fmt::format("{}/validate_plots.gp: gnuplot failed{}: {}", dir,
                            rc.error.empty() ? "" : " (" + rc.error + ")", trim(text.str())));
  }
  return images;
}

}  // namespace servesim
