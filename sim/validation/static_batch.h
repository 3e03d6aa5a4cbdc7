#pragma once
// `servesim validate-static`: published static-batch and offline-throughput
// measurements (data/static_batch/*.csv, data/offline_throughput/*.csv) against
// servesim's step-cost model.
//
// Every row has the columns source,hardware,num_gpus,model,precision,tp,pp,
// framework,isl,osl,concurrency_or_rate,metric,unit,value,notes. A row is
// compared when its GPU and model map to the catalog and its metric has a
// prediction; otherwise it is skipped with a reason (no catalog model such as
// GPT-J / Falcon / BLOOM, ShareGPT lengths, ...).
//
// Predictions, with t(batch) the engine's step wall time (cost-model time +
// engine.step_cpu_overhead + engine.per_seq_cpu_overhead * seqs) and B the
// static batch size:
//   prefill(B, isl) = t(B x SeqWork{isl, 0})                   one step, whole batch
//   decode(B, c)    = t(B x SeqWork{1, c})
//   e2e(B, isl, osl)= prefill(B, isl) + sum_{j=1}^{osl-1} decode(B, isl + j - 1)
// A static row whose batch cannot hold its KV cache even in all the memory beyond the
// weights (B x (isl + osl) tokens) is skipped: the measured engine must have run fewer
// sequences at once than the row says.
// Metrics:
//   prefill_batch_latency            prefill(B, isl)
//   decode_step_latency              decode(B, isl + osl/2)         (mean decode iteration)
//   batch_e2e_latency                e2e(B, isl, osl)
//   ttft_mean, ttft_max              prefill(B, isl)                (the batch's prefill)
//   ttft_min, ttft_batch1            prefill(1, isl)                (a request prefilled alone)
//   token_latency_pQ                 decode(B, isl + Q/100 * (osl-1)): the decode steps grow with
//                                    the context, so their Q-th percentile is the step at that point
//   output_token_throughput (static) B * osl / e2e(B, isl, osl); TensorRT-LLM's static tables per GPU
//                                    (divided by num_gpus: their unit is ambiguous, see docs)
//   output_token_throughput (offline, "offline max load" rows): a vLLM-engine simulation of N
//                                    requests arriving at once with fixed isl/osl, output tokens/s
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/edits.h"
#include "scenario/scenario.h"

namespace servesim {

struct BenchmarkRow {
  std::string dataset;  // file stem, e.g. "lmdeploy_a100"
  std::string file;
  std::int64_t line = 0;
  std::string source, hardware, model, precision, framework, concurrency, metric, unit, notes;
  int num_gpus = 1, tp = 1, pp = 1;
  std::string isl_text, osl_text;
  std::int64_t isl = -1, osl = -1;  // -1: not a fixed length (e.g. "ShareGPT")
  double value = 0;
};

// Reads one benchmark CSV (quoted fields allowed). Throws servesim::Error with
// file:line for a missing column or a malformed number.
std::vector<BenchmarkRow> read_benchmark_csv(const std::string& path);

// Catalog names for the CSVs' strings, nullopt when the catalog has none.
std::optional<std::string> catalog_gpu_for(const std::string& hardware);
// A catalog model name, or a model YAML path; nullopt for models servesim lacks.
std::optional<std::string> catalog_model_for(const std::string& model);
// The static batch size of "static_batch=N", else nullopt.
std::optional<std::int64_t> static_batch_size(const std::string& concurrency_or_rate);

struct StaticValidationOptions {
  std::vector<ConfigEdit> edits;  // --set (parsed once) or fitted values, applied to every scenario
  bool offline = true;                 // simulate the offline-throughput rows
  std::int64_t offline_requests = 2000;
  std::int64_t offline_max_num_seqs = 1024;
  std::int64_t offline_max_num_batched_tokens = 8192;
  double offline_gpu_memory_utilization = 0.95;
  // Called after each offline simulation with (done, total).
  std::function<void(int, int)> progress;
};

struct RowResult {
  BenchmarkRow row;
  std::string gpu, model;  // catalog names ("" when skipped)
  std::int64_t batch = 0;  // static batch size (0: offline)
  bool compared = false;
  std::string skip_reason;
  std::string prediction;           // what was predicted, e.g. "prefill(B=8, isl=512)"
  std::string unit;                 // "ms" or "tokens/s" (measured converted to it)
  double measured = 0, predicted = 0, error_pct = 0;
};

// The scenario (no workload) of a row: its GPU, model, precision and TP with
// vLLM-engine defaults, edits applied. Throws servesim::Error when the row
// does not map to the catalog.
Scenario row_scenario(const BenchmarkRow& row, const std::vector<ConfigEdit>& edits);

// Closed-form static-batch predictions on one scenario (seconds).
class StaticBatchPredictor {
 public:
  explicit StaticBatchPredictor(const Scenario& sc);
  double step(const BatchSummary& b) const;
  double prefill(std::int64_t batch, std::int64_t isl) const;
  double decode(std::int64_t batch, std::int64_t context) const;
  double e2e(std::int64_t batch, std::int64_t isl, std::int64_t osl) const;
  // Upper bound on the KV-cache tokens a replica can hold: every byte of GPU memory
  // beyond the weights (no activation workspace, runtime overhead or utilisation cap);
  // <= 0 when the weights alone do not fit.
  std::int64_t max_kv_tokens() const;
  const MemoryPlan& memory() const { return memory_; }

 private:
  CostModel cost_;
  EngineConfig engine_;
  MemoryPlan memory_;
};

// Compares every row it can (see the table above). Rows are independent: an
// error in one (e.g. a model that does not fit the GPUs) skips it with the reason.
std::vector<RowResult> validate_static_rows(const std::vector<BenchmarkRow>& rows, const StaticValidationOptions& o);

struct GroupErrors {
  std::string dataset, gpu, metric;
  std::int64_t count = 0;
  double median_abs_pct = 0, median_signed_pct = 0;
  std::vector<const RowResult*> worst;  // up to 3, largest |error| first
};

// Per data set, GPU and metric (in that order), over the compared rows.
std::vector<GroupErrors> group_errors(const std::vector<RowResult>& results);

double median_of(std::vector<double> v);

}  // namespace servesim
