// The `plan:` section (a top-level key removed before the scenario is read, or a
// second YAML document): each key declared once and read through its declaration.
#include <fmt/format.h>

#include <limits>

#include "config/config_map.h"
#include "config/config_ranges.h"
#include "config/plan_reader.h"
#include "config/scenario_sections.h"
#include "config/yaml_text.h"
#include "cost/layout_text.h"
#include "util/error.h"

namespace servesim {
namespace {

const Key kTargetRate{
    .name = "target_rate",
    .type = KeyType::number,
    .doc = "requests per second to serve, all replicas together (--target-rate)",
    .spec = "PlanOptions::target_rate",
    .unit = "requests/s",
    .default_note = "the workload's arrival rate",
    .min = 1e-7,
    .max = 1e9,
    .why = "requests per second",
};
const Key kGpuBudget{
    .name = "gpu_budget",
    .type = KeyType::integer,
    .doc = "GPUs available in total, instead of (or as well as) a target rate (--gpu-budget)",
    .spec = "PlanOptions::gpu_budget",
    .unit = "GPUs",
    .default_note = "none",
    .min = 1,
    .max = 10'000'000,
};
const Key kMaxReplicas{
    .name = "max_replicas",
    .type = KeyType::integer,
    .doc = "most replicas a candidate may use (--max-replicas)",
    .spec = "PlanOptions::max_replicas",
    .unit = "replicas",
    .default_number = static_cast<double>(PlanSection{}.max_replicas),
    .default_note = "no limit",
    .min = 1,
    .max = 10'000,
};
// Absent, trial_requests and tolerance stay unset (0) and the planner takes the
// rate search's defaults, the values declared here.
const Key kTrialRequests{
    .name = "trial_requests",
    .type = KeyType::integer,
    .doc = "requests simulated per trial of the rate search (--trial-requests)",
    .spec = "PlanOptions::trial_requests",
    .unit = "requests",
    .default_number = static_cast<double>(kDefaultTrialRequests),
    .min = 50,
    .max = 1'000'000'000,
    .why = "requests per trial simulation",
};
const Key kTolerance{
    .name = "tolerance",
    .type = KeyType::number,
    .doc = "relative precision of the rate search, in (0, 1) (--tolerance)",
    .spec = "PlanOptions::tolerance",
    .default_number = kDefaultSearchTolerance,
    .min = 0,
    .max = 1,
    .why = "a fraction in (0, 1)",
};
const Key kCandidates{
    .name = "candidates",
    .type = KeyType::section,
    .doc = "the configurations to compare; a missing list keeps the scenario's value",
    .spec = "PlanOptions (candidate lists)",
};
const Key kCandidateGpus{
    .name = "gpu",
    .type = KeyType::list,
    .doc = "candidate GPUs (--candidates-gpu)",
    .spec = "PlanOptions::gpus",
    .default_note = "the scenario's",
    .item = "GPU name",
};
const Key kCandidateWeights{
    .name = "weights",
    .type = KeyType::list,
    .doc = "candidate weight precisions, each with its compute precision (--candidates-weights)",
    .spec = "PlanOptions::weights",
    .default_note = "the scenario's",
    .item = "precision",
};
const Key kCandidateTp{
    .name = "tp",
    .type = KeyType::list,
    .doc = "candidate tensor-parallel sizes (--candidates-tp)",
    .spec = "PlanOptions::tps",
    .default_note = "the scenario's",
    .min = 1,
    .max = static_cast<double>(kMaxInt32),
    .item = "positive integer",
};
const Key kCandidatePp{
    .name = "pp",
    .type = KeyType::list,
    .doc = "candidate pipeline-parallel sizes (--candidates-pp)",
    .spec = "PlanOptions::pps",
    .default_note = "the scenario's",
    .min = 1,
    .max = static_cast<double>(kMaxInt32),
    .item = "positive integer",
};

const Key kCandidateLayouts{
    .name = "layouts",
    .type = KeyType::list,
    .doc = "candidate layouts as the field writes them, each replacing tp, attention_dp, ep and redundant experts: "
           "\"tp8\" (tensor parallel), \"dp16 ep16\" (DP attention + wide EP), \"tp1 dp72 ep72 r32\" (32 redundant "
           "experts), \"tp2 dp4 ep8\"; not with candidates.tp (--candidates-layouts)",
    .spec = "PlanOptions::layouts",
    .default_note = "the scenario's",
    .item = "layout",
};

// A list of positive integers (or one standing for a list of one).
std::vector<int> read_int_list(ConfigMap& m, const Key& k) {
  const std::string key(k.name);
  std::vector<int> out;
  const ConfigNode* node = m.get(key);
  if (!node) return out;
  auto one = [&](const ConfigNode& n) {
    const auto v = n.is_scalar() ? yaml_integer(n.text()) : std::nullopt;
    if (!v || *v < k.min || *v > k.max) throw Error(fmt::format("{}: expected positive integers", m.where(key)));
    out.push_back(static_cast<int>(*v));
  };
  if (node->is_sequence()) {
    for (const auto& n : node->items()) one(n);
  } else {
    one(*node);
  }
  return out;
}

}  // namespace

const KeySection& plan_key_section() {
  static const KeySection s{
      .path = "plan",
      .doc = "`servesim plan` only: a top-level plan: key or a second YAML document after ---; flags win",
      .keys = {&kTargetRate, &kGpuBudget, &kMaxReplicas, &kTrialRequests, &kTolerance, &kCandidates},
  };
  return s;
}

const KeySection& plan_candidates_key_section() {
  static const KeySection s{
      .path = "plan.candidates",
      .doc = "the candidate grid: every combination of these lists is planned",
      .keys = {&kCandidateGpus, &kCandidateWeights, &kCandidateTp, &kCandidatePp, &kCandidateLayouts},
  };
  return s;
}

void read_plan_section(ConfigNode& doc, const ConfigNode& extra, const std::string& source, PlanSection& o) {
  ConfigNode section;
  const std::string plan(plan_key_section().path);
  if (doc.is_map() && doc.find(plan)) {
    section = *doc.find(plan);
    doc.remove(plan);
  } else if (extra.is_map()) {
    ConfigMap root(extra, source);
    if (const ConfigNode* p = root.get(plan)) section = *p;
    root.finish();
  }
  if (section.is_null()) return;
  ConfigMap m(section, source, plan);
  const PlanSection p = read_plan(m);
  // Flags win: fill only what is still unset.
  if (!o.target_rate && !o.gpu_budget) {
    o.target_rate = p.target_rate;
    o.gpu_budget = p.gpu_budget;
  }
  if (o.max_replicas == 0) o.max_replicas = p.max_replicas;
  if (o.trial_requests == 0) o.trial_requests = p.trial_requests;
  if (o.tolerance == 0) o.tolerance = p.tolerance;
  if (o.gpus.empty()) o.gpus = p.gpus;
  if (o.weights.empty()) o.weights = p.weights;
  if (o.tps.empty()) o.tps = p.tps;
  if (o.pps.empty()) o.pps = p.pps;
  if (o.layouts.empty()) o.layouts = p.layouts;
}

PlanSection read_plan(ConfigMap& m) {
  PlanSection p;
  // Range-checked as read (before the casts to int); the bounds match the CLI flags'.
  if (has_key(m, kTargetRate)) p.target_rate = read_number(m, kTargetRate);
  if (has_key(m, kGpuBudget)) p.gpu_budget = static_cast<int>(read_integer(m, kGpuBudget));
  p.max_replicas = static_cast<int>(read_integer(m, kMaxReplicas));
  // trial_requests and tolerance: 0 = unset (see above), with their own messages.
  const std::string trial_key(kTrialRequests.name);
  p.trial_requests = m.integer(trial_key, 0);
  if (p.trial_requests < 0 || (m.has(trial_key) && p.trial_requests < kTrialRequests.min))
    throw Error(fmt::format("{}: use at least 50 requests per trial", m.where(trial_key)));
  check_integer_range(m.where(trial_key), p.trial_requests, {0, static_cast<std::int64_t>(kTrialRequests.max)},
                      kTrialRequests.why);
  const std::string tol_key(kTolerance.name);
  p.tolerance = m.number(tol_key, 0.0);
  if (!(p.tolerance >= kTolerance.min && p.tolerance < kTolerance.max) || (m.has(tol_key) && p.tolerance == 0))
    throw Error(fmt::format("{}: must be a fraction in (0, 1)", m.where(tol_key)));
  ConfigMap c = m.map(std::string(kCandidates.name));
  p.gpus = c.strings(std::string(kCandidateGpus.name));
  p.weights = c.strings(std::string(kCandidateWeights.name));
  p.tps = read_int_list(c, kCandidateTp);
  p.pps = read_int_list(c, kCandidatePp);
  const std::string layouts_key(kCandidateLayouts.name);
  p.layouts = c.strings(layouts_key);
  for (const std::string& l : p.layouts) {
    try {
      (void)apply_layout_text(l, Parallelism{});
    } catch (const Error& e) {
      throw Error(fmt::format("{}: {}", c.where(layouts_key), e.what()));
    }
  }
  if (!p.layouts.empty() && !p.tps.empty())
    throw Error(fmt::format("{}: give candidates.tp or candidates.layouts, not both (a layout names its tp)",
                            c.where(layouts_key)));
  c.finish();
  m.finish();
  return p;
}

}  // namespace servesim
