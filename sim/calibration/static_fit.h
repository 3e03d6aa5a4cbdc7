#pragma once
// Fits efficiency knobs and engine overheads (any parameter of fit_parameters.h) to
// published static-batch measurements (data/static_batch/*.csv): least squares on
// r_i = log(predicted_i / measured_i) over the fitted rows, by Levenberg-Marquardt on
// the logistic coordinates of bounded parameters, so the physics bounds always hold.
// Predictions are validate-static's (validation/static_batch.h) with the parameters
// applied as exact number edits of each row's scenario (no text round trip), so
// `servesim validate-static --set ...` with the round-trip digits reproduces every number.
//
// Rows: the compared static-batch rows (offline-throughput rows are not fitted: each
// costs a simulation) of one GPU, since the result is that GPU's profile; rows of
// other GPUs, of unselected metrics and the ones validate-static skips are counted.
#include <cstdint>
#include <map>
#include <functional>
#include <string>
#include <vector>

#include "calibration/fit_parameters.h"
#include "validation/static_batch.h"

namespace servesim {

struct StaticFitOptions {
  std::string gpu;                   // catalog GPU whose rows are fitted; empty: the GPU with the most rows
  std::vector<std::string> metrics;  // metric names, or prefixes ending in '*' ("ttft_*"); empty: all
  std::string split = "alternate";   // alternate | none | datasets:NAME[,NAME...]
  std::vector<std::string> fixed_overrides;  // --set applied to every row, not fitted
  // soft_l1 (robust: grows like |r| past 10%, so the few rows no static-batch model can
  // match, e.g. runs that stopped before their output length, cannot dominate) or squared.
  std::string loss = "soft_l1";
  int max_iterations = 100;
  // Called after each evaluation of every fitted row's prediction (the count so far).
  std::function<void(int)> progress;
};

struct StaticFitRows {
  std::string gpu;
  std::vector<BenchmarkRow> rows;  // compared static-batch rows on `gpu`, input order
  std::vector<char> test;          // per row: 1 = held out
  std::string split;               // how `test` was chosen, in words
  std::map<std::string, std::int64_t> skipped;  // reason -> rows not fitted or tested
  std::size_t train_count() const;
  std::size_t test_count() const;
};

// Selects and splits the rows. `alternate`: every other compared row of each data set
// and metric (file order; the 2nd, 4th, ...) is held out. `datasets:A,B`: the rows of those data
// sets (file stems) are held out. Throws servesim::Error when no row is on `gpu`
// (naming the GPUs that have rows), for an unknown split or data set, or a metric
// pattern that matches no row.
StaticFitRows select_static_rows(const std::vector<BenchmarkRow>& all, const StaticFitOptions& o);

struct StaticFit {
  std::vector<double> start, values;  // per parameter, in its unit (start: the scenario's value)
  // Per parameter: 0 when it changes no fitted row's prediction (e.g. an interconnect
  // latency when every row runs on one GPU); such a one is left at its start value.
  std::vector<char> fitted;
  double rms_before = 0, rms_after = 0;  // RMS of log(predicted/measured) over the fitted rows
  int iterations = 0, evaluations = 0;
};

// Throws servesim::Error when there are fewer fitted rows than parameters (the message
// gives both counts), no parameter changes any prediction, or a fitted row stops
// being comparable under some parameters. Values within 1e-6 of the range of a bound
// are returned as the bound (the logistic only approaches it).
StaticFit fit_static(const StaticFitRows& rows, const std::vector<FitParameter>& params, const StaticFitOptions& o);

// Every row's prediction with these edits of its scenario (validate_static_rows,
// offline rows off).
std::vector<RowResult> predict_static(const StaticFitRows& rows, const std::vector<ConfigEdit>& edits);

// Median absolute % error of one data set and metric, fitted and held-out rows, before
// and after. metric "all": every row of the data set.
struct StaticErrorGroup {
  std::string dataset, metric;
  std::size_t train_n = 0, test_n = 0;
  double train_before = 0, train_after = 0, test_before = 0, test_after = 0;
  double test_bias_after = 0;  // median signed % of the held-out rows after the fit
};
std::vector<StaticErrorGroup> static_error_groups(const StaticFitRows& rows, const std::vector<RowResult>& before,
                                                  const std::vector<RowResult>& after);

}  // namespace servesim
