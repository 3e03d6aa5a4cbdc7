#pragma once
// Shared helpers for the end-to-end simulation tests (test_sim_*.cpp): a
// vector-backed request source, a scenario built from YAML text, the engine's
// per-step wall-time formula, and a parser for the requests.csv stream (checked
// against the typed per-request results).
#include "config/config_map.h"
#include "config/edits.h"
#include "config/yaml_text.h"

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "util/error.h"
#include "metrics/requests_csv.h"
#include "run/simulation.h"
#include "cost/batch.h"
#include "config/scenario_reader.h"
#include "scenario/setup.h"
#include "workload/request_source.h"

namespace servesim::testing {

// Hands out a fixed list of requests (already in arrival order), open loop.
class VectorSource final : public RequestSource {
 public:
  explicit VectorSource(std::vector<Request> rs) : rs_(std::move(rs)) {
    for (std::size_t i = 0; i < rs_.size(); ++i) rs_[i].id = static_cast<std::int64_t>(i);
  }
  std::optional<Request> next() override {
    if (i_ >= rs_.size()) return std::nullopt;
    return rs_[i_++];
  }
  bool exhausted() const override { return i_ >= rs_.size(); }
  std::int64_t expected_total() const override { return static_cast<std::int64_t>(rs_.size()); }

 private:
  std::vector<Request> rs_;
  std::size_t i_ = 0;
};

inline Request make_request(double arrival_s, std::int64_t in, std::int64_t out) {
  Request r;
  r.arrival = to_nanos(arrival_s);
  r.input_tokens = in;
  r.output_tokens = out;
  return r;
}

// Llama-3.1-8B bf16 on one H100-SXM; `engine` and `workload` are YAML flow
// mappings / blocks appended as given (workload may be empty: no workload).
inline Scenario scenario_from(const std::string& engine, const std::string& workload = "",
                              const std::string& model = "llama-3.1-8b", const std::string& parallelism = "{tp: 1}") {
  std::string text = "hardware: {gpu: h100-sxm}\n"
                     "model: {name: " + model + "}\n"
                     "parallelism: " + parallelism + "\n"
                     "engine: " + engine + "\n";
  if (!workload.empty()) text += "workload: " + workload + "\n";
  ConfigNode doc = parse_yaml_text(text);
  // The closed forms of these tests are the engine core's: the client-side front-end
  // latency of the default preset (vllm-v1: 8.4 ms, framework_preset.cpp) is pinned to 0
  // unless the test names a framework or sets the latency itself.
  if (engine.find("frontend_latency") == std::string::npos && engine.find("framework") == std::string::npos)
    set_number(doc, "engine.frontend_latency", 0.0);
  return parse_scenario(doc, "test.yaml", !workload.empty());
}

// The engine's wall time of one step (cost/step_wall_time.h): with host_overlap 0,
//   cost.totals(batch).time + step_cpu_overhead + per_seq_cpu_overhead * seqs
//     + per_token_cpu_overhead * sampled + prompt_token_cpu_overhead * prompt tokens.
inline double step_seconds(const CostModel& cost, const EngineConfig& cfg, const BatchSummary& b) {
  return step_wall_seconds(cost.totals(b).time, cfg.cpu_overheads(), b.seqs, b.prefill_seqs, b.sampled,
                           b.prefill_tokens);
}
// `n` copies of one SeqWork.
// A step's op named `name`, or nullptr: a pointer into `s`, so keep the step alive.
inline const OpCost* find_op(const StepCost& s, const std::string& name) {
  for (const OpCost& o : s.ops)
    if (name == o.name) return &o;
  return nullptr;
}

// The step of `seqs` sequences decoding one token each at `context` tokens, op by op.
inline StepCost decode_step(const CostModel& cost, std::int64_t seqs, std::int64_t context) {
  BatchSummary b = cost.batch();
  for (std::int64_t i = 0; i < seqs; ++i) b.add(SeqWork{1, context, true});
  return cost.breakdown(b);
}

inline BatchSummary batch_of(std::int64_t n, SeqWork w) {
  BatchSummary b;
  for (std::int64_t i = 0; i < n; ++i) b.add(w);
  return b;
}
// The engine advances its clock by max(1, to_nanos(seconds)) per step.
inline Nanos step_nanos(const CostModel& cost, const EngineConfig& cfg, const BatchSummary& b) {
  return std::max<Nanos>(1, to_nanos(step_seconds(cost, cfg, b)));
}

// One requests.csv row.
struct CsvRow {
  std::int64_t id = 0, replica = 0, input_tokens = 0, output_tokens = 0, cached_tokens = 0, preemptions = 0;
  double arrival_s = 0, queue_ms = 0, ttft_ms = 0, tpot_ms = 0, e2e_ms = 0;
  bool failed = false;
  std::string failure;  // reason name (failure.h), empty when served
  double finish_s() const { return arrival_s + e2e_ms * 1e-3; }
};

// Parses the stream Collector writes (header + one row per finished request).
inline std::vector<CsvRow> parse_requests_csv(const std::string& text) {
  std::vector<CsvRow> rows;
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::vector<std::string> f;
    std::string cell;
    std::istringstream ls(line);
    while (std::getline(ls, cell, ',')) f.push_back(cell);
    if (f.size() == 12) f.emplace_back();  // getline drops an empty last field (no failure)
    if (f.size() != 13) throw std::runtime_error("requests.csv: expected 13 fields in '" + line + "'");
    CsvRow r;
    r.id = std::stoll(f[0]);
    r.replica = std::stoll(f[1]);
    r.arrival_s = std::stod(f[2]);
    r.input_tokens = std::stoll(f[3]);
    r.output_tokens = std::stoll(f[4]);
    r.cached_tokens = std::stoll(f[5]);
    r.preemptions = std::stoll(f[10]);
    r.failed = f[11] == "1";
    r.failure = f[12];
    // A failed request's latency fields are empty (never a 0.000 that reads as measured),
    // except an abandoned one's e2e_ms: how long its user waited before giving up.
    const bool abandoned = r.failure == "abandoned";
    const bool blank = f[6].empty() && f[7].empty() && f[8].empty() && (abandoned || f[9].empty());
    if (r.failed != blank) throw std::runtime_error("requests.csv: latencies must be empty exactly when failed: '" + line + "'");
    if (abandoned) r.e2e_ms = std::stod(f[9]);
    if (!r.failed) {
      r.queue_ms = std::stod(f[6]);
      r.ttft_ms = std::stod(f[7]);
      r.tpot_ms = std::stod(f[8]);
      r.e2e_ms = std::stod(f[9]);
    }
    rows.push_back(r);
  }
  return rows;
}

// Runs and captures requests.csv and the typed per-request results.
struct RunWithCsv {
  SimulationResult result;
  std::string csv;
  std::vector<CsvRow> rows;
  RequestResults results;  // same order as rows
};
inline RunWithCsv run_with_csv(const Scenario& sc, RequestSource* source, bool fast_forward = true) {
  std::ostringstream csv;
  RunWithCsv r;
  SimulationOptions opt;
  opt.requests_csv = &csv;
  opt.request_results = &r.results;
  opt.fast_forward = fast_forward;
  r.result = source ? simulate(sc, *source, opt) : simulate(sc, opt);
  r.csv = csv.str();
  r.rows = parse_requests_csv(r.csv);
  // Every simulation test also checks that requests.csv is the typed results, printed.
  std::ostringstream printed;
  write_requests_csv_header(printed);
  for (const RequestResult& q : r.results) write_requests_csv_row(printed, q);
  if (printed.str() != r.csv) throw std::runtime_error("requests.csv differs from the typed request results");
  return r;
}

// The message of the servesim::Error that f() throws, "<no error>" if none; any
// other exception type escapes and fails the test.
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace servesim::testing
