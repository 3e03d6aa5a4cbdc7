#include "calibration/static_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "calibration/least_squares.h"
#include "util/error.h"
#include "util/text.h"

namespace servesim {
namespace {

bool metric_selected(const std::string& metric, const std::vector<std::string>& patterns) {
  if (patterns.empty()) return true;
  for (const auto& p : patterns) {
    if (!p.empty() && p.back() == '*' ? metric.rfind(p.substr(0, p.size() - 1), 0) == 0 : metric == p) return true;
  }
  return false;
}

// Robust loss as a residual transform, so Levenberg-Marquardt minimises sum rho(r^2):
// soft_l1 rho(z) = 2 s^2 (sqrt(1 + z/s^2) - 1) is r^2 for |r| << s and 2 s |r| far
// beyond, so a few inconsistent rows (a run that stopped early) cannot dominate.
double transformed(double r, const std::string& loss) {
  if (loss == "squared") return r;
  constexpr double s = 0.1;  // 10%: the error the calibration aims under
  const double rho = 2.0 * s * s * (std::sqrt(1.0 + (r / s) * (r / s)) - 1.0);
  return std::copysign(std::sqrt(rho), r);
}

double median_abs(std::vector<double> v) {
  for (double& x : v) x = std::fabs(x);
  return median_of(std::move(v));
}

}  // namespace

std::size_t StaticFitRows::train_count() const {
  return static_cast<std::size_t>(std::count(test.begin(), test.end(), 0));
}
std::size_t StaticFitRows::test_count() const { return test.size() - train_count(); }

std::vector<RowResult> predict_static(const StaticFitRows& rows, const std::vector<ConfigEdit>& edits) {
  StaticValidationOptions vo;
  vo.edits = edits;
  vo.offline = false;
  return validate_static_rows(rows.rows, vo);
}

StaticFitRows select_static_rows(const std::vector<BenchmarkRow>& all, const StaticFitOptions& o) {
  if (o.loss != "squared" && o.loss != "soft_l1")
    throw Error(fmt::format("calibrate static: --loss '{}': expected squared or soft_l1", o.loss));
  StaticValidationOptions vo;
  vo.edits = parse_edits(o.fixed_overrides);
  vo.offline = false;
  const std::vector<RowResult> results = validate_static_rows(all, vo);

  StaticFitRows out;
  std::map<std::string, std::int64_t> per_gpu;  // compared static rows of the selected metrics
  std::set<std::string> metrics_seen;
  for (const auto& r : results) {
    if (!r.compared || r.batch <= 0) continue;
    metrics_seen.insert(r.row.metric);
    if (metric_selected(r.row.metric, o.metrics)) ++per_gpu[r.gpu];
  }
  for (const auto& p : o.metrics)
    if (std::none_of(metrics_seen.begin(), metrics_seen.end(), [&](const std::string& m) { return metric_selected(m, {p}); }))
      throw Error(fmt::format("calibrate static: metric '{}' matches no compared row{} (compared metrics: {})", p,
                              did_you_mean(p, {metrics_seen.begin(), metrics_seen.end()}),
                              join({metrics_seen.begin(), metrics_seen.end()})));
  auto gpu_list = [&] {
    std::vector<std::string> s;
    for (const auto& [g, n] : per_gpu) s.push_back(fmt::format("{} ({} rows)", g, n));
    return s.empty() ? std::string("none") : join(s);
  };
  if (per_gpu.empty())
    throw Error(fmt::format("calibrate static: no static-batch row of the data can be compared ({} rows read; "
                            "see `servesim validate-static --file ...` for why each is skipped)",
                            all.size()));
  if (o.gpu.empty()) {
    out.gpu = std::max_element(per_gpu.begin(), per_gpu.end(), [](const auto& a, const auto& b) {
                return a.second < b.second;
              })->first;
  } else {
    if (!per_gpu.count(o.gpu)) {
      std::vector<std::string> names;
      for (const auto& [g, _] : per_gpu) names.push_back(g);
      throw Error(fmt::format("calibrate static: no compared row is on GPU '{}'{} (rows are on: {})", o.gpu,
                              did_you_mean(o.gpu, names), gpu_list()));
    }
    out.gpu = o.gpu;
  }
  for (const auto& r : results) {
    if (!r.compared) {
      ++out.skipped[r.skip_reason];
    } else if (r.batch <= 0) {
      ++out.skipped["offline-throughput row (each needs a simulation; not fitted)"];
    } else if (!metric_selected(r.row.metric, o.metrics)) {
      ++out.skipped[fmt::format("metric {} not selected", r.row.metric)];
    } else if (r.gpu != out.gpu) {
      ++out.skipped[fmt::format("on {} (the profile is for {})", r.gpu, out.gpu)];
    } else {
      out.rows.push_back(r.row);
    }
  }

  out.test.assign(out.rows.size(), 0);
  if (o.split == "alternate") {
    // Counted per data set and metric: the files list each configuration's metrics
    // together, so counting per data set alone could put every row of one metric on
    // one side (two metrics alternating); per metric, a configuration's metrics mostly
    // land on the same side, so held-out configurations are not half-seen.
    std::map<std::pair<std::string, std::string>, std::size_t> seen;
    for (std::size_t i = 0; i < out.rows.size(); ++i)
      out.test[i] = seen[{out.rows[i].dataset, out.rows[i].metric}]++ % 2 == 1;
    out.split = "every other compared row of each data set and metric held out (file order: 1st fitted, 2nd held "
                "out, ...)";
  } else if (o.split == "none") {
    out.split = "none held out (every row fitted)";
  } else if (o.split.rfind("datasets:", 0) == 0) {
    std::set<std::string> have;
    for (const auto& r : out.rows) have.insert(r.dataset);
    const auto names = split(o.split.substr(std::string("datasets:").size()), ',');
    for (const auto& raw : names) {
      const std::string n = trim(raw);
      if (!have.count(n))
        throw Error(fmt::format("calibrate static: --split {}: no compared rows of data set '{}'{} (have: {})", o.split,
                                n, did_you_mean(n, {have.begin(), have.end()}), join({have.begin(), have.end()})));
      for (std::size_t i = 0; i < out.rows.size(); ++i)
        if (out.rows[i].dataset == n) out.test[i] = 1;
    }
    out.split = fmt::format("rows of data set(s) {} held out", join(names));
  } else {
    throw Error(fmt::format("calibrate static: --split '{}': expected alternate, none or datasets:NAME[,NAME...]",
                            o.split));
  }
  return out;
}

StaticFit fit_static(const StaticFitRows& rows, const std::vector<FitParameter>& params, const StaticFitOptions& o) {
  if (params.empty()) throw Error("calibrate static: no parameters to fit");
  StaticFitRows train;
  train.gpu = rows.gpu;
  for (std::size_t i = 0; i < rows.rows.size(); ++i)
    if (!rows.test[i]) train.rows.push_back(rows.rows[i]);
  train.test.assign(train.rows.size(), 0);
  // Each row gives one residual; fewer residuals than unknowns leave a family of
  // equally good fits (and Levenberg-Marquardt would return an arbitrary one).
  if (train.rows.size() < params.size())
    throw Error(fmt::format("calibrate static: {} fitted row{} on {} cannot determine {} parameter{} ({}); give at "
                            "least as many rows as parameters (more data, --split none, or fewer --params)",
                            train.rows.size(), train.rows.size() == 1 ? "" : "s", rows.gpu, params.size(),
                            params.size() == 1 ? "" : "s", [&] {
                              std::vector<std::string> n;
                              for (const auto& p : params) n.push_back(p.name);
                              return join(n);
                            }()));

  const std::vector<ConfigEdit> fixed = parse_edits(o.fixed_overrides);  // parsed once
  StaticFit fit;
  {
    // Start from the values the rows are predicted with now (catalog + fixed overrides).
    const Scenario sc = row_scenario(train.rows.front(), fixed);
    for (const auto& p : params) fit.start.push_back(std::clamp(current_value(sc, p), p.lo, p.hi));
  }
  // Each evaluation sets the values exactly (number edits); text only for a message.
  auto log_errors = [&](const std::vector<double>& values) {
    std::vector<ConfigEdit> edits = fixed;
    for (auto& e : parameter_edits(params, values)) edits.push_back(std::move(e));
    const std::vector<RowResult> res = predict_static(train, edits);
    Eigen::VectorXd r(static_cast<Eigen::Index>(res.size()));
    for (std::size_t i = 0; i < res.size(); ++i) {
      if (!res[i].compared || res[i].predicted <= 0 || res[i].measured <= 0) {
        std::vector<std::string> overrides = o.fixed_overrides;
        for (const auto& s : parameter_overrides(params, values, 17)) overrides.push_back(s);
        throw Error(fmt::format("calibrate static: {}:{} cannot be predicted with {} ({})", res[i].row.file,
                                res[i].row.line, join(overrides), res[i].skip_reason));
      }
      r[static_cast<Eigen::Index>(i)] = std::log(res[i].predicted / res[i].measured);
    }
    return r;
  };
  auto rms = [](const Eigen::VectorXd& r) { return std::sqrt(r.squaredNorm() / static_cast<double>(r.size())); };
  const Eigen::VectorXd r0 = log_errors(fit.start);
  fit.rms_before = rms(r0);
  int evaluations = 1;

  // Which parameters move any prediction: a step of 1 in the logistic coordinate is a
  // large change of the value, so "no change" means the rows do not depend on it.
  std::vector<std::size_t> free;  // indices of the fitted parameters
  fit.fitted.assign(params.size(), 0);
  for (std::size_t j = 0; j < params.size(); ++j) {
    std::vector<double> v = fit.start;
    const double x = parameter_coordinate(params[j], v[j]);
    v[j] = parameter_value(params[j], x > 0 ? x - 1.0 : x + 1.0);
    ++evaluations;
    if ((log_errors(v) - r0).cwiseAbs().maxCoeff() > 1e-12) {
      fit.fitted[j] = 1;
      free.push_back(j);
    }
  }
  if (free.empty())
    throw Error(fmt::format("calibrate static: none of the parameters changes a prediction of the {} fitted rows", 
                            train.rows.size()));

  auto values_of = [&](const Eigen::VectorXd& x) {
    std::vector<double> v = fit.start;
    for (std::size_t k = 0; k < free.size(); ++k)
      v[free[k]] = parameter_value(params[free[k]], x[static_cast<Eigen::Index>(k)]);
    return v;
  };
  int progress_calls = 0;
  auto residuals_for = [&](const std::string& loss) -> Residuals {
    return [&, loss](const Eigen::VectorXd& x) {
      Eigen::VectorXd r = log_errors(values_of(x));
      if (o.progress) o.progress(++progress_calls);
      for (Eigen::Index i = 0; i < r.size(); ++i) r[i] = transformed(r[i], loss);
      return r;
    };
  };
  Eigen::VectorXd x0(static_cast<Eigen::Index>(free.size()));
  for (std::size_t k = 0; k < free.size(); ++k)
    x0[static_cast<Eigen::Index>(k)] = parameter_coordinate(params[free[k]], fit.start[free[k]]);
  // Stop when an iteration gains less than 1e-6 of the cost: the errors are then settled
  // to far below a tenth of a percent, and flat directions (two knobs trading off) would
  // otherwise take many more iterations for nothing.
  constexpr double kTolerance = 1e-6;
  // The robust loss is not convex in log space (a uniform +50% costs less than a
  // uniform -40%), so it refines the least-squares optimum instead of starting afresh.
  LmResult lm = levenberg_marquardt(residuals_for("squared"), x0, o.max_iterations, kTolerance);
  fit.iterations = lm.iterations;
  evaluations += lm.evaluations;
  if (o.loss != "squared") {
    lm = levenberg_marquardt(residuals_for(o.loss), lm.x, o.max_iterations, kTolerance);
    fit.iterations += lm.iterations;
    evaluations += lm.evaluations;
  }
  fit.values = values_of(lm.x);
  for (std::size_t j = 0; j < params.size(); ++j) {
    const double tol = 1e-6 * (params[j].hi - params[j].lo);
    if (fit.values[j] < params[j].lo + tol) fit.values[j] = params[j].lo;
    if (fit.values[j] > params[j].hi - tol) fit.values[j] = params[j].hi;
  }
  fit.rms_after = rms(log_errors(fit.values));
  fit.evaluations = evaluations + 1;
  return fit;
}

std::vector<StaticErrorGroup> static_error_groups(const StaticFitRows& rows, const std::vector<RowResult>& before,
                                                  const std::vector<RowResult>& after) {
  struct Acc {
    std::vector<double> tb, ta, hb, ha;
  };
  std::vector<std::pair<std::string, std::string>> order;  // first-seen (dataset, metric), "all" first per data set
  std::map<std::pair<std::string, std::string>, Acc> acc;
  for (std::size_t i = 0; i < rows.rows.size(); ++i) {
    if (!before[i].compared || !after[i].compared) continue;
    for (const std::string& metric : {std::string("all"), rows.rows[i].metric}) {
      const auto key = std::make_pair(rows.rows[i].dataset, metric);
      if (!acc.count(key)) order.push_back(key);
      Acc& a = acc[key];
      (rows.test[i] ? a.hb : a.tb).push_back(before[i].error_pct);
      (rows.test[i] ? a.ha : a.ta).push_back(after[i].error_pct);
    }
  }
  // Data sets in first-seen order; within one, "all" then metrics alphabetically.
  std::map<std::string, std::size_t> rank;
  for (const auto& r : rows.rows) rank.emplace(r.dataset, rank.size());
  std::sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
    if (a.first != b.first) return rank.at(a.first) < rank.at(b.first);
    if ((a.second == "all") != (b.second == "all")) return a.second == "all";
    return a.second < b.second;
  });
  std::vector<StaticErrorGroup> out;
  for (const auto& key : order) {
    const Acc& a = acc.at(key);
    StaticErrorGroup g;
    g.dataset = key.first;
    g.metric = key.second;
    g.train_n = a.tb.size();
    g.test_n = a.hb.size();
    g.train_before = median_abs(a.tb);
    g.train_after = median_abs(a.ta);
    g.test_before = median_abs(a.hb);
    g.test_after = median_abs(a.ha);
    g.test_bias_after = median_of(a.ha);
    out.push_back(g);
  }
  return out;
}

}  // namespace servesim
