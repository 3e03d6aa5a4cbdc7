#include "workload/trace_export.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/sim_time.h"
#include "util/error.h"
#include "util/json_file.h"
#include "util/paths.h"
#include "util/text.h"
#include "util/warnings.h"
#include "workload/trace_text.h"

namespace servesim::trace_detail {

namespace {
using nlohmann::json;
YamlDocumentReader g_yaml_reader = nullptr;  // constant-initialized: set before main() by config/yaml_text.cpp
}  // namespace

void set_yaml_document_reader(YamlDocumentReader reader) { g_yaml_reader = reader; }

json read_export_document(const std::string& path) {
  const std::string lower = to_lower(path);
  if (ends_with(lower, ".yaml") || ends_with(lower, ".yml")) {
    if (!file_exists(path)) {
      reject_directory(path);
      throw Error(fmt::format("{}: cannot open trace file", path));
    }
    if (!g_yaml_reader) throw Error(fmt::format("{}: internal: no YAML reader is linked in", path));
    return g_yaml_reader(path);
  }
  if (!file_exists(path)) {
    reject_directory(path);
    throw Error(fmt::format("{}: cannot open trace file", path));
  }
  return read_json_file(path, "not a valid JSON document");
}

std::optional<double> latency_ms(const json& value, const std::string& unit, const std::string& path,
                                 const std::string& where) {
  if (value.is_null()) return std::nullopt;
  const json* v = &value;
  std::string u = unit;
  if (value.is_object()) {  // AIPerf: {"value": 12.5, "unit": "ms"}
    if (!value.contains("value") || value.at("value").is_null()) return std::nullopt;
    v = &value.at("value");
    if (value.contains("unit") && value.at("unit").is_string()) u = value.at("unit").get<std::string>();
  }
  if (!v->is_number())
    throw Error(fmt::format("{}: {}: expected a number of {}, got {}", path, where, u, excerpt(v->dump())));
  const double x = v->get<double>();
  if (!std::isfinite(x) || x < 0)
    throw Error(fmt::format("{}: {}: a latency must be a finite number >= 0, got {}", path, where, x));
  if (u == "ms") return x;
  if (u == "s" || u == "sec") return x * 1e3;
  if (u == "us") return x * 1e-3;
  if (u == "ns") return x * 1e-6;
  throw Error(fmt::format("{}: {}: unknown time unit '{}' (known: ns, us, ms, s, sec)", path, where, u));
}

void warn_adjusted(const std::string& path, const ExportedRun& run) {
  if (run.tokens_adjusted == 0) return;
  warn(fmt::format("{}: {} of {} requests ({} failed, errored or cancelled in all) have no prompt or output token "
                   "count; replayed with 1 token for each missing count",
                   path, run.tokens_adjusted, run.requests.size(), run.failed));
}

void sort_by_start(ExportedRun& run) {
  std::stable_sort(run.requests.begin(), run.requests.end(),
                   [](const ExportedRequest& a, const ExportedRequest& b) { return a.start_s < b.start_s; });
}

namespace {
class ExportedRunReader final : public TraceReader {
 public:
  ExportedRunReader(const std::string& path, TraceFormat format, ExportedRun run)
      : TraceReader(path, format), run_(std::move(run)) {}

  std::optional<TraceRecord> read() override {
    if (next_ >= run_.requests.size()) return std::nullopt;
    const std::size_t i = next_++;
    const ExportedRequest& q = run_.requests[i];
    TraceRecord r;
    r.line = static_cast<std::int64_t>(i) + 1;
    r.time_ns = seconds_to_ns(q.start_s, "request start (" + q.where + ")", path(), r.line);
    r.input_tokens = q.input_tokens;
    r.output_tokens = q.output_tokens;
    return r;
  }
  std::int64_t size() const override { return static_cast<std::int64_t>(run_.requests.size()); }

 private:
  ExportedRun run_;
  std::size_t next_ = 0;
};
}  // namespace

std::unique_ptr<TraceReader> open_exported_run(const std::string& path, TraceFormat format, ExportedRun run) {
  return std::make_unique<ExportedRunReader>(path, format, std::move(run));
}

std::vector<MeasuredRequest> measured_requests(const ExportedRun& run, std::vector<double>* itl_gaps) {
  std::vector<MeasuredRequest> out(run.requests.size());
  const double first = run.requests.empty() ? 0.0 : run.requests.front().start_s;
  for (std::size_t i = 0; i < run.requests.size(); ++i) {
    const ExportedRequest& q = run.requests[i];
    MeasuredRequest& m = out[i];
    m.index = static_cast<std::int64_t>(i);
    m.arrival_s = q.start_s - first;
    m.input_tokens = q.input_tokens;
    m.output_tokens = q.output_tokens;
    if (!q.measured) continue;
    // A measurement that contradicts itself is refused, not averaged in: the whole
    // request cannot end before its first token.
    if (q.ttft_ms && q.e2e_ms && *q.e2e_ms < *q.ttft_ms * (1 - 1e-9) - 1e-9)
      throw Error(fmt::format("{}: {}: request latency {:.3f} ms is less than its time to first token {:.3f} ms: the "
                              "first token cannot come after the end of the request; fix or drop that record",
                              run.path.empty() ? "trace" : run.path, q.where, *q.e2e_ms, *q.ttft_ms));
    m.ttft_ms = q.ttft_ms;
    m.tpot_ms = q.tpot_ms;
    m.e2e_ms = q.e2e_ms;
    if (itl_gaps) itl_gaps->insert(itl_gaps->end(), q.itl_ms.begin(), q.itl_ms.end());
  }
  return out;
}

}  // namespace servesim::trace_detail
