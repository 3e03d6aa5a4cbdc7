#pragma once
// Uncertainty bands: how far to trust a prediction, from the held-out residuals of the
// measured serving runs closest to the request.
//
// A residual is r = log(measured / predicted) of one metric of one measured run. Runs are
// grouped by (calibrated profile or catalog defaults, GPU family, framework, load regime);
// a group's 80% band is [q10, q90] of its residuals (conformal bounds by default), widened
// by the spread of a source's bias (source_spread.h: a user's run is never one of the
// measured sources), and a prediction p gets the interval [p * exp(lo), p * exp(hi)].
// A group with fewer than `min_points` residuals falls back
// to a coarser one (fallback_chain); the band says which group it came from. A GPU family
// or framework with no measured run gets no band at all (never an invented one).
//
// The table is built by `servesim calibrate bands` (tools/bands/build-bands.sh) and shipped
// as data/uncertainty/bands.json; docs/validation.md ("Uncertainty bands") has its
// leave-one-experiment-out coverage.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>
#include <string>
#include <vector>

namespace servesim::bands {

// Where a prediction (or a measured run) sits. `load` is "low" or "high" (load_regime).
struct BandKey {
  bool calibrated = false;
  std::string family;     // GPU architecture as the catalog names it: hopper, ampere, ada, ...
  std::string framework;  // framework family: vllm, sglang, trtllm, lmdeploy
  std::string load;
  // What the run uses that no measured run behind the table does ("fp8 weights",
  // "eagle speculative decoding", "prefill/decode disaggregation", ...): the residuals
  // say nothing about its error, so lookup refuses and says which (scenario_key.h).
  std::vector<std::string> uncovered;
};

// "high" when the engine ran at least this full (mean batch over max_num_seqs, or mean
// KV-cache use), or the queue grew. (The busy fraction says nothing here: a continuous-
// batching engine under any steady load is busy all the time.)
inline constexpr double kHighLoadOccupancy = 0.5;
std::string load_regime(double batch_occupancy, double kv_utilization, bool overloaded);
// engine.framework preset -> the family the measured data is labelled with
// ("vllm-v1", "vllm-v0", "vllm-2023-eager" -> "vllm"; "lmdeploy-turbomind" -> "lmdeploy").
std::string framework_family(const std::string& preset);

struct Residual {
  std::string experiment;  // runs of one experiment are held out together
  BandKey key;
  std::string metric;      // ttft_mean, ttft_p90, ttft_p99, tpot_mean, e2e_mean, e2e_p90, e2e_p99
  double value = 0;        // log(measured / predicted)
  // The measured source it comes from (data set, engine version and GPU: what a
  // leave-one-source-out check holds out at once; coverage.h).
  std::string source;
};

// The q-quantile (0..1) with linear interpolation between order statistics (R type 7,
// numpy's default); NaN for an empty set.
double quantile(std::vector<double> values, double q);

// The finite-sample (split-conformal) band of n residuals at nominal coverage c: the k-th
// smallest and k-th largest, k = floor((n + 1) (1 - c) / 2) (at least 1). A new residual
// exchangeable with the n falls inside with probability >= c (and <= c + 2/(n+1)); plain
// 10th/90th percentiles of ~10-30 points cover less (61-69% held out on the serving runs,
// docs/validation.md), since the sample's extremes understate the population's.
std::pair<double, double> conformal_bounds(std::vector<double> values, double coverage);

// How a group's [q_lo, q_hi] is made from its residuals.
enum class BandMethod { conformal, quantile };

struct Group {
  int n = 0;
  double q_lo = 0, q_hi = 0;  // quantiles of log(measured / predicted)
};

struct BandTable {
  double coverage = 0.8;  // nominal: q_lo, q_hi are the (1-c)/2 and (1+c)/2 quantiles
  int min_points = 8;     // a group with fewer residuals falls back to a coarser one
  BandMethod method = BandMethod::conformal;
  // A band wider than this (geometric half-width, percent: 100 = a factor of 2 either way)
  // says nothing a planner can use; lookup refuses it and says how wide it would be.
  // Near saturation a small capacity error decides whether the queue is stable, and the
  // overloaded measured runs put such groups at factors of 10-1000.
  double max_half_width_pct = 100;
  // The spread of a source's bias (source_spread.h): lookup widens every group's band by
  // it, since a user's run is never one of the measured sources. 0: not widened.
  double source_tau = 0;
  int source_cells = 0, source_df = 0;  // what tau was pooled over
  std::vector<std::string> families, frameworks;  // what the measured data covers
  std::map<std::string, std::map<std::string, Group>> groups;  // metric -> group id -> group
  nlohmann::json provenance = nlohmann::json::object();
};

// Group ids, finest first: "calibrated/hopper/vllm/high", "calibrated/hopper/vllm/*",
// "calibrated/*/vllm/high", "calibrated/*/vllm/*", "*/*/vllm/*". '*' pools that attribute.
std::vector<std::string> fallback_chain(const BandKey& key);
// "calibrated, hopper GPUs, vllm, high load" for an id.
std::string group_label(const std::string& id);

// `source_spread`: estimate the sources' spread from the residuals and widen by it (off:
// the groups' own scatter only, the construction before it).
BandTable build_table(const std::vector<Residual>& residuals, int min_points = 8, double coverage = 0.8,
                      BandMethod method = BandMethod::conformal, bool source_spread = true);

// Which measured metric's residuals stand in for a reported one: the data has mean/p90/p99
// of TTFT and E2E and the mean of TPOT, so p50 borrows the mean's band and TPOT's p90/p99
// (and ITL) borrow TPOT mean's. Empty when nothing measured stands in.
std::string source_metric(const std::string& metric, const std::string& stat);

struct Band {
  bool available = false;
  std::string reason;  // why there is none
  // The reason without this metric's own figures (the same for every statistic refused
  // for the same cause): what a run's output groups its missing statistics by.
  std::string common_reason;
  double lo = 0, hi = 0;
  std::string group;   // id of the group used
  std::string from;    // the measured metric whose residuals gave it
  int n = 0;
};

// `pool_unseen_family`: a GPU family without residuals takes the groups pooled over every
// family ("*/*/..."), for the leave-one-source-out check of what a new family would get;
// run outputs never do (they refuse and say so).
Band lookup(const BandTable& table, const BandKey& key, const std::string& measured_metric, double predicted,
            bool pool_unseen_family = false);
// The band's geometric half-width, 100 x (sqrt(hi / lo) - 1): "+-x%" around its centre.
double half_width_pct(double lo, double hi);

nlohmann::json table_to_json(const BandTable& table);
BandTable table_from_json(const nlohmann::json& j, const std::string& source);  // Error on a bad table
BandTable load_table(const std::string& path);                                   // Error naming the file

// data_root()/data/uncertainty/bands.json, read once per process. nullptr when it is
// missing or unreadable; `why` then says so (one sentence, for the output).
const BandTable* shipped_table(std::string* why);

// The band JSON of a run summary (summary_json's ttft_ms/tpot_ms/e2e_ms, mean/p50/p90/p99):
// {"coverage": 0.8, "key": {...}, "ttft_ms": {"mean": {"lo","hi","group","label","n","from"}, ...}}
// or {"available": false, "reason": ...} when the scenario is far from all data.
nlohmann::json summary_bands_json(const BandTable* table, const std::string& why, const BandKey& key,
                                  const nlohmann::json& summary);
// The same as text lines under `run`'s table.
std::string summary_bands_text(const nlohmann::json& bands);

// Widens every band of `bands` (summary_bands_json's) by the simulation's own sampling
// spread: the same scenario replayed with other seeds gives each statistic a ratio
// rep / main; the band becomes [lo x min(1, min ratio), hi x max(1, max ratio)]. Records
// the seeds and the largest spread under bands["seed_spread"]. Residual bands come from
// one simulated run per measured run, so without this a band holds none of the noise of
// a finite run, which near saturation moves p99s by tens of percent.
void widen_by_seed_spread(nlohmann::json& bands, const nlohmann::json& summary,
                          const std::vector<nlohmann::json>& replicate_summaries,
                          const std::vector<std::uint64_t>& seeds);

}  // namespace servesim::bands
