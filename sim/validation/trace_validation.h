#pragma once
// `servesim validate`: replays a trace that comes with measured per-request
// latencies (the generic CSV with ttft_ms/tpot_ms/e2e_ms columns, a
// `vllm bench serve --save-result` JSON, a GuideLLM report, AIPerf records; or an
// aggregate-only AIPerf / genai-perf summary, compared as distributions) through a scenario's hardware, model
// and engine, and compares the predicted latencies with the measured ones:
// per metric the mean and percentiles with signed and absolute % error, the
// per-request Pearson correlation (requests match by index: request k is the
// trace's k-th record), output throughput, and a verdict against targets.
#include "config/config_node.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "metrics/request_result.h"
#include "metrics/stats.h"
#include "scenario/scenario.h"
#include "workload/measured_requests.h"
#include "workload/trace_format.h"

namespace servesim {

// The scenario `doc` describes with its workload replaced by a replay of
// `trace_path` in `format` (automatic: detected). workload.seed and
// workload.hash_block_tokens of the document are kept (the seed regenerates a
// vllm_bench file's arrivals). A relative trace path is taken relative to the
// working directory.
Scenario trace_scenario(ConfigNode doc, const std::string& source, const std::string& trace_path,
                        TraceFormat format);

// Throws servesim::Error when some record's input + output tokens exceed the
// scenario's max_model_len (engine.max_model_len, else the model's context):
// how many records do, and the first one's file:line and lengths.
void check_context_limit(const Scenario& sc);

// The vllm_bench fields validation needs beyond the replay (ttfts, itls), each
// as long as input_lens; throws servesim::Error naming a missing or malformed
// field. Returns every inter-token gap (ms) of the requests without an error.
std::vector<double> read_vllm_bench_itls(const std::string& path);

// A warning when a trace's model name (vllm bench JSON `model_id`, e.g.
// "meta-llama/Llama-3.1-8B-Instruct") does not name the scenario's model; nullopt when
// they agree or the trace names none. Compares the last path part, lower-cased,
// without -instruct/-chat/-hf suffixes, against the model's name and Hugging Face id.
std::optional<std::string> model_id_mismatch(const std::string& model_id, const ModelSpec& model);

// One request as predicted: the simulation's result for the trace record at the same index.
struct PredictedRequest : RequestResult {
  bool present = false;  // finished (completed or failed) in the simulation
};

struct MetricComparison {
  std::string name;             // "ttft", "tpot", "itl", "e2e"
  // Per-request metrics: both over the same requests (measured, and completed in the
  // simulation); ITL: every measured gap vs every predicted one.
  Distribution measured, predicted;
  // Pearson correlation over requests with both values (nullopt: fewer than 3
  // pairs, a per-token metric, or a constant series).
  std::optional<double> pearson;
  std::int64_t paired = 0;
};

struct ValidationTargets {
  double e2e_mean_pct = 10.0, tpot_mean_pct = 10.0, ttft_mean_pct = 20.0;
};

struct TraceValidation {
  std::string trace_path;
  TraceFormat format = TraceFormat::csv;
  std::vector<MeasuredRequest> measured;
  std::vector<PredictedRequest> predicted;  // same index as measured
  std::vector<MetricComparison> metrics;    // ttft, tpot, [itl,] e2e: those the trace measured
  std::int64_t requests = 0, predicted_completed = 0, predicted_failed = 0, preemptions = 0;
  // vllm_bench requests that streamed no token (output_lens 0, ttfts 0): replayed with one
  // output token, but left out of the measured distributions (their 0 is no measurement).
  std::int64_t no_token_requests = 0;
  // How the replay sends the requests, in words ("" for csv: as recorded; vllm_bench says it itself).
  std::string replay_note;
  // An aggregate-only export (aiperf_summary): the measured side is the file's statistics,
  // the requests are regenerated, there is no per-request pairing or correlation.
  bool aggregate_only = false;
  std::int64_t measured_output_tokens = 0, predicted_output_tokens = 0;
  double measured_duration_s = 0, predicted_duration_s = 0;  // 0 when unknown
  double measured_output_tps = 0, predicted_output_tps = 0;  // 0 when unknown
  double prefix_hit_rate = 0;
  // Things the comparison cannot check but the user should (e.g. the trace's model_id
  // is not the scenario's model): printed as warnings, kept in validation.json.
  std::vector<std::string> warnings;
  // Verdict against the targets.
  bool within_targets = false;
  std::string verdict;
};

// Signed % error of a prediction (0 when the measurement is 0).
double percent_error(double predicted, double measured);
// Pearson correlation; nullopt for fewer than 3 pairs or zero variance.
std::optional<double> pearson(const std::vector<double>& x, const std::vector<double>& y);

// Runs the replay. `sc` must come from trace_scenario (its workload is the trace).
TraceValidation validate_trace(const Scenario& sc, const ValidationTargets& targets = {});

// predicted_vs_measured.csv: one row per request.
std::string predicted_vs_measured_csv(const TraceValidation& v);

// Writes CDFs of measured and predicted TTFT and E2E and the per-request E2E
// scatter (predicted vs measured, with y = x) as PNG and SVG into `dir` with
// the gnuplot script and data beside them. Returns the image paths written;
// throws servesim::Error when gnuplot is missing or fails.
std::vector<std::string> write_validation_plots(const TraceValidation& v, const std::string& dir,
                                                const std::string& title);

}  // namespace servesim
