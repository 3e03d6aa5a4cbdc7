#include "calibration/operator_fit.h"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <set>
#include <tuple>

#include "calibration/least_squares.h"
#include "hardware/efficiency.h"
#include "cost/batch.h"
#include "cost/step_cost.h"
#include "config/catalog_reader.h"
#include "util/error.h"
#include "util/paths.h"
#include "util/text.h"

namespace servesim {

const std::vector<OperatorKindInfo>& operator_kinds() {
  // Vidur times the first residual add of a layer but not the second (vidur/profiling/
  // mlp/mlp_impl.py), so `add` counts twice; the cost model's attn_norm_residual is
  // the two (fused) residual-add + RMSNorm kernels of a layer.
  static const std::vector<OperatorKindInfo> kinds = {
      {"qkv_proj", "qkv_proj", {{"attn_pre_proj", 1.0}}, true},
      {"o_proj", "o_proj", {{"attn_post_proj", 1.0}}, true},
      {"mlp_up", "mlp_up", {{"mlp_up_proj", 1.0}}, true},
      {"mlp_down", "mlp_down", {{"mlp_down_proj", 1.0}}, true},
      {"mlp_act", "mlp_act", {{"mlp_act", 1.0}}, false},
      // Vidur's RMSNorm reads and writes a row (2 + 2 bytes per element), its add reads two
      // and writes one (6): 2 x 4 + 2 x 6 = 20 bytes per element in 4 kernels, against the fused
      // pair's 2 x 8 = 16 in 2 (vidur/profiling/mlp/mlp_impl.py: RMSNorm and `residual +
      // hidden_states` are separate ops there).
      {"norm", "attn_norm_residual", {{"input_layernorm", 1.0}, {"post_attention_layernorm", 1.0}, {"add", 2.0}}, false,
       20.0 / 16.0, 2.0},
      {"rope", "rope", {{"attn_rope", 1.0}}, false},
  };
  return kinds;
}

std::size_t operator_kind_index(const std::string& name) {
  const auto& kinds = operator_kinds();
  std::vector<std::string> names;
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    if (kinds[i].name == name) return i;
    names.push_back(kinds[i].name);
  }
  throw Error(fmt::format("unknown operator kind '{}'{} (valid: {})", name, did_you_mean(name, names), join(names)));
}

const std::vector<std::string>& fitted_efficiency_fields() {
  static const std::vector<std::string> f = [] {
    std::vector<std::string> all = operator_fit_fields(true, true);
    for (const auto& x : operator_fit_fields(false))
      if (std::find(all.begin(), all.end(), x) == all.end()) all.push_back(x);
    return all;
  }();
  return f;
}

const std::vector<std::string>& operator_fit_fields(bool sm_figures, bool l2) {
  static const std::vector<std::string> gemm = {"gemm_compute", "gemm_tokens_half", "gemm_memory", "gemm_overlap",
                                                "kernel_overhead"};
  static const std::vector<std::string> with_sm = [] {
    std::vector<std::string> f = gemm;
    for (const char* k : {"act", "norm", "rope"})
      for (const char* knob : {"_bytes_per_sm_cycle", "_floor_cycles", "_tokens_per_sm"})
        f.push_back(std::string(k) + knob);
    return f;
  }();
  static const std::vector<std::string> with_sm_l2 = [] {
    std::vector<std::string> f = with_sm;
    for (const char* k : {"act", "norm", "rope"}) f.push_back(std::string(k) + "_l2_bytes_per_sm_cycle");
    return f;
  }();
  static const std::vector<std::string> without_sm = [] {
    std::vector<std::string> f = gemm;
    f.push_back("elementwise_memory");
    f.push_back("elementwise_overhead");
    return f;
  }();
  return !sm_figures ? without_sm : l2 ? with_sm_l2 : with_sm;
}

namespace {

ResolvedPrecision fp16_precision(const GpuSpec& gpu) {
  PrecisionSpec p;
  p.weights = p.activations = p.kv_cache = DType::fp16;
  return resolve_precision(p, gpu);
}

ModelSpec resolve_model(const std::string& name, const std::string& model_dir) {
  if (!model_dir.empty()) {
    const std::string path = model_dir + "/" + name + ".yaml";
    if (file_exists(path)) return load_model(path);
  }
  return load_model(name);
}

StepCost row_breakdown(const CostModel& cm, std::int64_t tokens) {
  const SeqWork s{tokens, 0, false};
  return cm.breakdown(summarize(std::span<const SeqWork>(&s, 1), cm.model().local));
}

const OpCost& find_op(const StepCost& sc, const std::string& name, const std::string& where) {
  for (const auto& op : sc.ops)
    if (name == op.name) return op;
  throw Error(fmt::format("{}: the cost model has no op '{}'", where, name));
}

// Cost models keyed by (model, tp), built for one efficiency.
class CostModels {
 public:
  CostModels(const OperatorDataset& d, const Efficiency& e) : d_(d) {
    gpu_ = d.gpu;
    gpu_.efficiency = e;
    precision_ = fp16_precision(gpu_);
  }
  const CostModel& get(const std::string& model, int tp) {
    const auto key = std::make_pair(model, tp);
    auto it = cache_.find(key);
    if (it == cache_.end()) {
      Parallelism par;
      par.tp = tp;
      it = cache_.emplace(key, CostModel(gpu_, d_.models.at(model), precision_, par)).first;
    }
    return it->second;
  }

 private:
  const OperatorDataset& d_;
  GpuSpec gpu_;
  ResolvedPrecision precision_;
  std::map<std::pair<std::string, int>, CostModel> cache_;
};

double closed_form(const OperatorSample& s, bool gemm, const Efficiency& e, double peak, const GpuSpec& gpu) {
  const double bw = gpu.memory_bandwidth;
  double t = 0;
  if (gemm) {
    const double fill = s.m_tokens > 0 ? s.m_tokens / (s.m_tokens + e.gemm_tokens_half) : 1.0;
    const double c = s.flops / (peak * e.gemm_compute * fill), m = s.bytes / (bw * e.gemm_memory);
    // As CostModel::finish_op: the shorter side's unhidden part adds (gemm_overlap < 1).
    t = std::max(c, m) + (e.gemm_overlap < 1.0 ? (1.0 - e.gemm_overlap) * std::min(c, m) : 0.0);
    return t + s.kernels * e.kernel_overhead;
  }
  const ElementwiseCost c =
      elementwise_cost(e, s.elementwise_kind, s.bytes, s.kernels, s.m_tokens, bw, gpu.sm_count, gpu.boost_clock,
                       gpu.l2_cache, gpu.supports(DType::fp32) ? gpu.peak(DType::fp32) : 0.0);
  return c.memory_time + c.overhead_time;
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double logistic(double u) { return 1.0 / (1.0 + std::exp(-u)); }
double logit(double p) {
  p = std::clamp(p, 1e-9, 1.0 - 1e-9);
  return std::log(p / (1.0 - p));
}

std::vector<std::size_t> indices_where(const OperatorDataset& d, const std::vector<char>& test, bool want_test,
                                       bool gemm) {
  std::vector<std::size_t> idx;
  const auto& kinds = operator_kinds();
  for (std::size_t i = 0; i < d.samples.size(); ++i)
    if (static_cast<bool>(test[i]) == want_test && kinds[d.samples[i].kind].gemm == gemm) idx.push_back(i);
  return idx;
}

}  // namespace

OperatorDataset build_operator_dataset(const GpuSpec& gpu, std::vector<OperatorTimingRow> rows,
                                       const std::string& model_dir) {
  OperatorDataset d;
  d.gpu = gpu;
  d.rows = std::move(rows);
  if (d.rows.empty()) throw Error("no operator timing rows to calibrate on");
  for (const auto& r : d.rows) {
    if (d.models.count(r.model)) continue;
    ModelSpec m = resolve_model(r.model, model_dir);
    if (m.moe.enabled() || m.mla.enabled())
      throw Error(fmt::format("{}: model {} is MoE or MLA; the operator comparison covers dense layers only",
                              r.where, r.model));
    d.models.emplace(r.model, std::move(m));
  }
  CostModels models(d, gpu.efficiency);
  const auto& kinds = operator_kinds();
  for (std::size_t ri = 0; ri < d.rows.size(); ++ri) {
    const auto& r = d.rows[ri];
    const ModelSpec& m = d.models.at(r.model);
    auto mismatch = [&](const char* col, long long got, const char* field, long long want) {
      if (got != want)
        throw Error(fmt::format("{}: {} is {} but model {} ({}) has {} {}", r.where, col, got, r.model,
                                m.source_file, field, want));
    };
    mismatch("n_embd", r.n_embd, "hidden_size", m.hidden);
    mismatch("n_expanded_embd", r.n_expanded_embd, "mlp.intermediate_size", m.ffn);
    mismatch("n_head", r.n_head, "attention.heads", m.heads);
    mismatch("n_kv_head", r.n_kv_head, "attention.kv_heads", m.kv_heads);
    mismatch("use_gated_mlp", r.gated_mlp, "mlp.gated", m.gated_mlp);
    const CostModel& cm = models.get(r.model, r.tp);
    if (d.peak_flops == 0) d.peak_flops = cm.peak_flops();
    const StepCost sc = row_breakdown(cm, r.num_tokens);
    const double layers = m.layers;
    for (std::size_t k = 0; k < kinds.size(); ++k) {
      const OpCost& op = find_op(sc, kinds[k].cost_op, r.where);
      OperatorSample s;
      s.row = ri;
      s.kind = k;
      for (const auto& [col, w] : kinds[k].vidur_ops) s.measured += w * r.op_seconds(col);
      if (s.measured <= 0)
        throw Error(fmt::format("{}: measured time of {} is zero; cannot compute a relative error", r.where,
                                kinds[k].name));
      s.kernels = kinds[k].kernels_scale * op.count / layers;
      s.m_tokens = op.m_tokens;
      s.elementwise_kind = op.elementwise_kind;
      s.flops = op.flops / layers;
      s.bytes = kinds[k].bytes_scale * op.bytes() / layers;
      d.samples.push_back(s);
    }
  }
  return d;
}

std::string OperatorSplit::describe() const {
  if (kind == Kind::tokens)
    return fmt::format("hold out every {}th distinct num_tokens value (index % {} == {}, ascending over all files)",
                       every, every, offset);
  return fmt::format("hold out models {}", join(test_models));
}

std::vector<char> split_mask(const OperatorDataset& d, const OperatorSplit& s) {
  std::vector<char> row_test(d.rows.size(), 0);
  if (s.kind == OperatorSplit::Kind::tokens) {
    if (s.every < 2 || s.offset < 0 || s.offset >= s.every)
      throw Error(fmt::format("token split: need every >= 2 and 0 <= offset < every (got {}, {})", s.every, s.offset));
    std::set<std::int64_t> distinct;
    for (const auto& r : d.rows) distinct.insert(r.num_tokens);
    std::map<std::int64_t, std::size_t> index;
    for (const auto t : distinct) index.emplace(t, index.size());
    for (std::size_t i = 0; i < d.rows.size(); ++i)
      row_test[i] = index.at(d.rows[i].num_tokens) % static_cast<std::size_t>(s.every) ==
                    static_cast<std::size_t>(s.offset);
  } else {
    for (const auto& m : s.test_models)
      if (!d.models.count(m)) {
        std::vector<std::string> have;
        for (const auto& [name, _] : d.models) have.push_back(name);
        throw Error(fmt::format("model split: no rows of model '{}'{} (have: {})", m, did_you_mean(m, have), join(have)));
      }
    for (std::size_t i = 0; i < d.rows.size(); ++i)
      row_test[i] = std::find(s.test_models.begin(), s.test_models.end(), d.rows[i].model) != s.test_models.end();
  }
  std::vector<char> mask(d.samples.size());
  for (std::size_t i = 0; i < d.samples.size(); ++i) mask[i] = row_test[d.samples[i].row];
  return mask;
}

std::vector<double> predict_operator_times(const OperatorDataset& d, const Efficiency& e) {
  CostModels models(d, e);
  const auto& kinds = operator_kinds();
  std::vector<std::vector<double>> per_row(d.rows.size());
  for (std::size_t ri = 0; ri < d.rows.size(); ++ri) {
    const auto& r = d.rows[ri];
    const StepCost sc = row_breakdown(models.get(r.model, r.tp), r.num_tokens);
    const double layers = d.models.at(r.model).layers;
    per_row[ri].resize(kinds.size());
    for (std::size_t k = 0; k < kinds.size(); ++k) per_row[ri][k] = find_op(sc, kinds[k].cost_op, r.where).time / layers;
  }
  std::vector<double> out(d.samples.size());
  for (std::size_t i = 0; i < d.samples.size(); ++i) {
    const OperatorSample& s = d.samples[i];
    const OperatorKindInfo& kind = kinds[s.kind];
    // Measured work other than the op's (Vidur's unfused norm): the cost model's own
    // elementwise form on that work.
    out[i] = !kind.gemm && (kind.bytes_scale != 1.0 || kind.kernels_scale != 1.0)
                 ? closed_form(s, false, e, d.peak_flops, d.gpu)
                 : per_row[s.row][s.kind];
  }
  return out;
}

std::vector<OperatorError> operator_errors(const OperatorDataset& d, const std::vector<double>& predicted,
                                           const std::vector<char>& select) {
  const auto& kinds = operator_kinds();
  std::vector<std::vector<double>> ape(kinds.size()), signed_err(kinds.size());
  for (std::size_t i = 0; i < d.samples.size(); ++i) {
    if (!select[i]) continue;
    const double e = predicted[i] / d.samples[i].measured - 1.0;
    ape[d.samples[i].kind].push_back(std::abs(e));
    signed_err[d.samples[i].kind].push_back(e);
  }
  std::vector<OperatorError> out;
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    OperatorError e;
    e.kind = kinds[k].name;
    auto& v = ape[k];
    e.n = v.size();
    if (!v.empty()) {
      std::sort(v.begin(), v.end());
      e.median = median_of(v);
      e.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
      e.p90 = v[std::min(v.size() - 1, static_cast<std::size_t>(std::ceil(0.9 * static_cast<double>(v.size()))) - 1)];
      e.max = v.back();
      e.median_signed = median_of(signed_err[k]);
    }
    out.push_back(e);
  }
  return out;
}

const OperatorError& find_error(const std::vector<OperatorError>& errors, const std::string& kind) {
  for (const auto& e : errors)
    if (e.kind == kind) return e;
  throw Error(fmt::format("no errors for operator kind '{}'", kind));
}

OperatorFit fit_operator_timings(const OperatorDataset& d, const OperatorSplit& split, const Efficiency& start) {
  const std::vector<char> test = split_mask(d, split);
  const auto& kinds = operator_kinds();
  const double peak = d.peak_flops;
  const bool sm_figures = d.gpu.sm_cycles_per_second() > 0;
  const bool l2 = sm_figures && d.gpu.l2_cache > 0;
  const auto gemm_train = indices_where(d, test, false, true);
  std::vector<std::size_t> train_idx;
  for (std::size_t i = 0; i < test.size(); ++i)
    if (!test[i]) train_idx.push_back(i);
  if (gemm_train.empty() || train_idx.size() == gemm_train.size())
    throw Error(fmt::format("operator fit: the train split ({}) has no GEMM or no elementwise samples", split.describe()));

  OperatorFit fit;
  fit.split = split.describe();

  // x[i] is the logit of knob i's place inside its declared fit bounds
  // (efficiency_knobs(): fit_lo..fit_hi), so every fitted value stays within them
  // (no fraction of peak reaches 1, no floor exceeds the largest plausible).
  // The per-kind SM-bound elementwise knobs are fitted only where the GPU file gives SMs
  // and a clock; elsewhere the shared bandwidth-only ones.
  const std::vector<std::string>& fields = operator_fit_fields(sm_figures, l2);
  fit.fields = fields;
  std::vector<const EfficiencyKnob*> knobs;
  for (const auto& f : fields) knobs.push_back(find_efficiency_knob(f));
  auto lo = [&](std::size_t i) { return knobs[i]->fit_lo * knob_fit_scale(*knobs[i]); };
  auto hi = [&](std::size_t i) { return knobs[i]->fit_hi * knob_fit_scale(*knobs[i]); };
  auto to_efficiency = [&](const Eigen::VectorXd& x) {
    Efficiency t = start;
    for (std::size_t i = 0; i < knobs.size(); ++i)
      t.*(knobs[i]->member) = lo(i) + (hi(i) - lo(i)) * logistic(x[static_cast<Eigen::Index>(i)]);
    return t;
  };
  auto coordinate = [&](std::size_t i, double v) { return logit((v - lo(i)) / (hi(i) - lo(i))); };
  const Residuals residuals = [&](const Eigen::VectorXd& x) {
    const Efficiency t = to_efficiency(x);
    Eigen::VectorXd r(static_cast<Eigen::Index>(train_idx.size()));
    for (std::size_t i = 0; i < train_idx.size(); ++i) {
      const OperatorSample& s = d.samples[train_idx[i]];
      r[static_cast<Eigen::Index>(i)] = closed_form(s, kinds[s.kind].gemm, t, peak, d.gpu) / s.measured - 1.0;
    }
    return r;
  };
  LmResult best;
  best.cost = std::numeric_limits<double>::infinity();
  // Several starts for gemm_tokens_half: the roofline's max() makes the cost piecewise smooth.
  // gemm_overlap starts at 0.5 whatever the base says: at the pure roofline's 1 its
  // logit is flat, and the fit could not leave it.
  // The occupancy thresholds (tokens per SM) start at 0.5 and 1.5 for the same reason:
  // below and above the knee the measured kernels show (about one token per SM).
  for (const auto& [half0, occupancy0] : std::vector<std::pair<double, double>>{
           {8.0, 0.5}, {32.0, 1.5}, {128.0, 0.5}, {512.0, 1.5}, {8.0, 1.5}, {32.0, 0.5}}) {
    Eigen::VectorXd x0(static_cast<Eigen::Index>(knobs.size()));
    for (std::size_t i = 0; i < knobs.size(); ++i) {
      const std::string& f = fields[i];
      double v = start.*(knobs[i]->member);
      if (f == "gemm_tokens_half") v = half0;
      if (f == "gemm_overlap") v = 0.5;
      // Off (0) is outside the fit bounds: start from what the Vidur tables show (6-7 bytes
      // per SM-cycle, a floor of ~3000 cycles, i.e. ~2 us at 1.4 GHz).
      const auto ends_with = [&](const char* tail) {
        const std::size_t n = std::strlen(tail);
        return f.size() >= n && f.compare(f.size() - n, n, tail) == 0;
      };
      if (ends_with("_bytes_per_sm_cycle") && v <= 0) v = 6.5;
      if (ends_with("_floor_cycles") && v <= 0) v = 3000.0;
      if (ends_with("_tokens_per_sm")) v = occupancy0;
      // Inside the bounds, off their edges (a start on an edge has a flat logit).
      v = std::clamp(v, lo(i) + 0.01 * (hi(i) - lo(i)), hi(i) - 0.01 * (hi(i) - lo(i)));
      x0[static_cast<Eigen::Index>(i)] = coordinate(i, v);
    }
    LmResult res = levenberg_marquardt(residuals, x0);
    fit.iterations += res.iterations;
    if (res.cost < best.cost) best = res;
  }
  const Efficiency e = to_efficiency(best.x);
  fit.efficiency = e;

  // Errors with the real cost model, and its agreement with the closed form fitted.
  const std::vector<double> pred = predict_operator_times(d, e);
  std::vector<char> train(test.size());
  for (std::size_t i = 0; i < test.size(); ++i) train[i] = !test[i];
  fit.train = operator_errors(d, pred, train);
  fit.test = operator_errors(d, pred, test);
  fit.train_samples = static_cast<std::size_t>(std::count(train.begin(), train.end(), 1));
  fit.test_samples = static_cast<std::size_t>(std::count(test.begin(), test.end(), 1));
  for (std::size_t i = 0; i < d.samples.size(); ++i) {
    const double cf = closed_form(d.samples[i], kinds[d.samples[i].kind].gemm, e, peak, d.gpu);
    fit.model_gap = std::max(fit.model_gap, std::abs(cf / pred[i] - 1.0));
  }
  const std::vector<double> before = predict_operator_times(d, start);
  std::vector<double> ape_before, ape_after;
  for (const auto i : gemm_train) {
    ape_before.push_back(std::abs(before[i] / d.samples[i].measured - 1.0));
    ape_after.push_back(std::abs(pred[i] / d.samples[i].measured - 1.0));
  }
  fit.start_train_median_gemm = median_of(ape_before);
  fit.train_median_gemm = median_of(ape_after);
  return fit;
}

OperatorCrossValidation cross_validate_by_shape(const OperatorDataset& d, const Efficiency& start) {
  // Shape groups, in first-seen order of the rows.
  using Shape = std::tuple<std::int64_t, std::int64_t, int, int>;
  std::vector<Shape> order;
  std::map<Shape, std::vector<std::string>> groups;
  for (const auto& r : d.rows) {
    const Shape key{r.n_embd, r.n_expanded_embd, r.n_head, r.n_kv_head};
    auto& g = groups[key];
    if (g.empty()) order.push_back(key);
    if (std::find(g.begin(), g.end(), r.model) == g.end()) g.push_back(r.model);
  }
  if (order.size() < 2) throw Error("leave-one-shape-out needs at least two distinct layer shapes");
  OperatorCrossValidation cv;
  std::vector<double> pooled(d.samples.size(), 0.0);
  std::vector<char> pooled_mask(d.samples.size(), 0);
  for (const auto& key : order) {
    OperatorSplit split;
    split.kind = OperatorSplit::Kind::models;
    split.test_models = groups.at(key);
    OperatorFit fit = fit_operator_timings(d, split, start);
    const std::vector<char> test = split_mask(d, split);
    const std::vector<double> pred = predict_operator_times(d, fit.efficiency);
    for (std::size_t i = 0; i < test.size(); ++i)
      if (test[i]) {
        pooled[i] = pred[i];
        pooled_mask[i] = 1;
      }
    cv.folds.push_back(std::move(fit));
  }
  cv.test = operator_errors(d, pooled, pooled_mask);
  cv.test_samples = static_cast<std::size_t>(std::count(pooled_mask.begin(), pooled_mask.end(), 1));
  return cv;
}

}  // namespace servesim
