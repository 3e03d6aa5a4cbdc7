#pragma once
// Calibrates the roofline's GEMM and elementwise efficiency knobs against measured
// per-operator kernel times (Vidur's A100 profiles) and reports how well the
// calibrated CostModel predicts operators it was not fitted on.
//
// Each measured row is one transformer layer shard at `num_tokens` tokens and TP
// degree `tp`. The cost model sees it as a batch of one prefill sequence of
// num_tokens new tokens at context 0 (samples=false) on a TP-tp replica; the
// compared time is one layer's op: CostModel op.time / model.layers (breakdown()
// sums per-layer ops over all layers; op.count / layers is kernels per layer).
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "calibration/operator_timings.h"
#include "hardware/gpu_spec.h"
#include "model/model_spec.h"

namespace servesim {

// One compared op kind: the CostModel op and the Vidur columns (with weights)
// summed to measure the same work.
struct OperatorKindInfo {
  std::string name;     // "qkv_proj", "o_proj", "mlp_up", "mlp_down", "mlp_act", "norm", "rope"
  std::string cost_op;  // CostModel op name
  std::vector<std::pair<std::string, double>> vidur_ops;
  bool gemm = false;
  // The measured kernels do this many times the cost model op's bytes and launches (1: the
  // same work). Vidur's norm columns are four unfused kernels (two RMSNorms, two adds:
  // 20 bytes per element of a row) where the cost model's op is two fused ones (16 bytes);
  // such a kind is timed by elementwise_cost() on the measured work, not by CostModel.
  double bytes_scale = 1.0;
  double kernels_scale = 1.0;
};
const std::vector<OperatorKindInfo>& operator_kinds();
// Index into operator_kinds() of a kind name; throws listing the valid ones.
std::size_t operator_kind_index(const std::string& name);

// One measured op of one row, with the cost model's one-layer description of it
// (independent of the efficiency knobs, so the fitter can re-time it cheaply).
struct OperatorSample {
  std::size_t row = 0;   // index into OperatorDataset::rows
  std::size_t kind = 0;  // index into operator_kinds()
  double measured = 0;   // seconds, one layer
  double kernels = 0;    // kernel launches per layer (CostModel count / layers)
  double m_tokens = 0;   // GEMM M; elementwise: rows (tokens)
  ElementwiseKind elementwise_kind = ElementwiseKind::other;  // which per-kind knobs time it
  double flops = 0;      // one layer
  double bytes = 0;      // one layer, HBM traffic
};

struct OperatorDataset {
  GpuSpec gpu;
  std::vector<OperatorTimingRow> rows;
  std::map<std::string, ModelSpec> models;
  std::vector<OperatorSample> samples;
  double peak_flops = 0;  // the compute precision's dense peak (fp16 here)
};

// Resolves each row's model (model_dir/<model>.yaml when it exists, else the catalog),
// checks the row's shape columns against it (file:line on mismatch) and extracts
// every op kind's features from CostModel::breakdown. Precision fp16 throughout
// (Vidur profiled fp16). MoE and MLA models are rejected.
OperatorDataset build_operator_dataset(const GpuSpec& gpu, std::vector<OperatorTimingRow> rows,
                                       const std::string& model_dir = "");

// Which rows are held out.
struct OperatorSplit {
  enum class Kind { tokens, models };
  Kind kind = Kind::tokens;
  int every = 4;   // tokens: of the distinct num_tokens values (all files, ascending),
  int offset = 3;  //   those with index % every == offset are held out
  std::vector<std::string> test_models;  // models: rows of these models are held out
  std::string describe() const;
};
// Per sample: 1 when held out (test), 0 when fitted on (train).
std::vector<char> split_mask(const OperatorDataset& d, const OperatorSplit& s);

// Absolute percentage errors (as fractions: 0.05 = 5%) of one op kind.
struct OperatorError {
  std::string kind;
  std::size_t n = 0;
  double median = 0;
  double mean = 0;
  double p90 = 0;
  double max = 0;
  double median_signed = 0;  // median of predicted/measured - 1 (the bias)
};

// Each sample's one-layer time predicted by a CostModel whose GPU has efficiency `e`.
std::vector<double> predict_operator_times(const OperatorDataset& d, const Efficiency& e);
// Errors per op kind (operator_kinds() order) over the samples with select[i] != 0.
std::vector<OperatorError> operator_errors(const OperatorDataset& d, const std::vector<double>& predicted,
                                           const std::vector<char>& select);
const OperatorError& find_error(const std::vector<OperatorError>& errors, const std::string& kind);

// Every knob the fit may set, in this order (the union of operator_fit_fields()).
const std::vector<std::string>& fitted_efficiency_fields();
// The knobs fitted on a GPU, each within its declared fit bounds (efficiency_knobs()): the
// five GEMM knobs, then, where the GPU file gives sm_count and boost_clock, the per-kind
// elementwise knobs (act_*, norm_*, rope_*: floor in SM cycles, bytes per SM-cycle,
// tokens per SM), else the shared elementwise_memory and elementwise_overhead.
// elementwise_memory is not fitted in the first case: the per-kind form is capped at the
// GPU's weight-streaming share (gemm_memory x HBM) instead.
// With sm_figures and l2 (the GPU file gives l2_cache), the per-kind L2-resident rates
// (<kind>_l2_bytes_per_sm_cycle) too.
const std::vector<std::string>& operator_fit_fields(bool sm_figures, bool l2 = false);

struct OperatorFit {
  Efficiency efficiency;  // start values with the fitted fields replaced
  std::vector<std::string> fields;  // the knobs fitted (operator_fit_fields())
  std::string split;      // OperatorSplit::describe()
  std::size_t train_samples = 0;
  std::size_t test_samples = 0;
  std::vector<OperatorError> train;
  std::vector<OperatorError> test;
  double start_train_median_gemm = 0;  // median APE over all GEMM train samples before fitting
  double train_median_gemm = 0;        // ... after
  double model_gap = 0;    // max |closed form / CostModel - 1| at the fit (0 up to rounding)
  int iterations = 0;      // Levenberg-Marquardt iterations, both stages
};

// Least squares of relative error (predicted/measured - 1) over every op kind of the train
// split, jointly in gemm_compute, gemm_tokens_half, gemm_memory, gemm_overlap (the share of
// the shorter roofline side hidden: near the compute/memory knee measured GEMMs take more
// than the max of the two), kernel_overhead (the GEMM kernels' floor) and the elementwise
// knobs of operator_fit_fields() (per op kind on GPUs with SM figures: the kernels are
// SM-bound, flat below about one token per SM, and their floor counts clock cycles), by
// Levenberg-Marquardt from several starts on the closed-form roofline of each op.
// Errors are then computed with the real CostModel on both splits.
OperatorFit fit_operator_timings(const OperatorDataset& d, const OperatorSplit& split, const Efficiency& start);

// Leave-one-shape-out: models sharing (n_embd, n_expanded_embd, n_head, n_kv_head)
// are held out together (Llama-2-70B and Llama-3-70B share one), each fold fitted on
// all other shapes. `test` pools every fold's held-out predictions.
struct OperatorCrossValidation {
  std::vector<OperatorFit> folds;
  std::vector<OperatorError> test;
  std::size_t test_samples = 0;
};
OperatorCrossValidation cross_validate_by_shape(const OperatorDataset& d, const Efficiency& start);

}  // namespace servesim
