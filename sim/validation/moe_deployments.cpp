#include "validation/moe_deployments.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>

#include "config/scenario_reader.h"
#include "cost/step_wall_time.h"
#include "engine/data_parallel_ranks.h"
#include "engine/step_pricing.h"
#include "report/csv_table.h"
#include "run/simulation.h"
#include "util/error.h"
#include "util/text.h"

namespace servesim {
namespace {

const std::vector<std::string> kColumns = {
    "id",          "source",        "date",           "framework",          "gpu",               "model",
    "weights",     "activations",   "kv_cache",       "kind",               "attention_tp",      "attention_dp",
    "ep",          "redundant_experts", "gpus_per_node", "load_balancer",   "overlap",           "prefill_all_to_all",
    "decode_all_to_all", "dispatch", "isl",           "osl",                "context",           "batch_per_rank",
    "concurrency", "max_batch_per_rank", "max_tokens_per_rank", "memory_utilization", "kv_free_fraction", "mtp_draft_tokens",
    "mtp_acceptance", "metric",     "value",          "split",              "notes"};

std::optional<double> to_number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  try {
    std::size_t used = 0;
    const double v = std::stod(s, &used);
    if (used != s.size()) return std::nullopt;
    return v;
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace

std::vector<MoeDeploymentRow> read_moe_deployments(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("{}: cannot open", path));
  std::string line;
  std::int64_t line_no = 0;
  std::map<std::string, std::size_t> col;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (trim(line).empty() || trim(line)[0] == '#') continue;
    const auto header = report::split_csv_line(line);
    for (std::size_t i = 0; i < header.size(); ++i) col[trim(header[i])] = i;
    break;
  }
  std::vector<std::string> missing;
  for (const auto& c : kColumns)
    if (!col.count(c)) missing.push_back(c);
  if (!missing.empty())
    throw Error(fmt::format("{}:{}: missing column(s) {}; expected: {}", path, line_no, join(missing), join(kColumns)));
  std::vector<MoeDeploymentRow> rows;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (trim(line).empty() || trim(line)[0] == '#') continue;
    const auto f = report::split_csv_line(line);
    if (f.size() != col.size())
      throw Error(fmt::format("{}:{}: expected {} fields, found {}", path, line_no, col.size(), f.size()));
    auto get = [&](const char* name) { return trim(f[col.at(name)]); };
    auto number = [&](const char* name, double fallback) {
      const std::string s = get(name);
      if (s.empty()) return fallback;
      const auto v = to_number(s);
      if (!v || !std::isfinite(*v) || *v < 0)
        throw Error(fmt::format("{}:{}: {} '{}' is not a number >= 0", path, line_no, name, s));
      return *v;
    };
    auto integer = [&](const char* name, std::int64_t fallback) {
      const double v = number(name, static_cast<double>(fallback));
      if (std::floor(v) != v) throw Error(fmt::format("{}:{}: {} '{}' is not an integer", path, line_no, name, get(name)));
      return static_cast<std::int64_t>(v);
    };
    MoeDeploymentRow r;
    r.line = line_no;
    r.id = get("id");
    r.source = get("source");
    r.date = get("date");
    r.framework = get("framework");
    r.gpu = get("gpu");
    r.model = get("model");
    r.weights = get("weights");
    r.activations = get("activations");
    r.kv_cache = get("kv_cache");
    r.kind = get("kind");
    r.attention_tp = static_cast<int>(integer("attention_tp", 1));
    r.attention_dp = static_cast<int>(integer("attention_dp", 1));
    r.ep = static_cast<int>(integer("ep", 1));
    r.redundant_experts = static_cast<int>(integer("redundant_experts", 0));
    r.gpus_per_node = static_cast<int>(integer("gpus_per_node", 0));
    r.load_balancer = get("load_balancer");
    r.overlap = get("overlap");
    r.prefill_all_to_all = get("prefill_all_to_all");
    r.decode_all_to_all = get("decode_all_to_all");
    r.dispatch = get("dispatch");
    r.isl = integer("isl", 0);
    r.osl = integer("osl", 0);
    r.context = integer("context", 0);
    r.batch_per_rank = integer("batch_per_rank", 0);
    r.concurrency = integer("concurrency", 0);
    r.max_batch_per_rank = integer("max_batch_per_rank", 0);
    r.max_tokens_per_rank = integer("max_tokens_per_rank", 0);
    r.memory_utilization = number("memory_utilization", 0);
    r.kv_free_fraction = number("kv_free_fraction", 0);
    r.mtp_draft_tokens = integer("mtp_draft_tokens", 0);
    r.mtp_acceptance = number("mtp_acceptance", 0);
    r.metric = get("metric");
    r.value = number("value", 0);
    r.split = get("split");
    r.notes = get("notes");
    static const std::vector<std::string> kinds = {"decode_step", "prefill_step", "serving", "overlap_gain",
                                                   "prefill_overlap_gain"};
    if (std::find(kinds.begin(), kinds.end(), r.kind) == kinds.end())
      throw Error(fmt::format("{}:{}: kind '{}'{} is not one of {}", path, line_no, r.kind, did_you_mean(r.kind, kinds),
                              join(kinds)));
    static const std::vector<std::string> splits = {"fit", "heldout", "excluded"};
    if (std::find(splits.begin(), splits.end(), r.split) == splits.end())
      throw Error(fmt::format("{}:{}: split '{}' is not one of {}", path, line_no, r.split, join(splits)));
    rows.push_back(std::move(r));
  }
  return rows;
}

namespace {

// The scenario a row describes, as a document (so every key is read and checked the way a
// scenario file's is).
ConfigNode row_document(const MoeDeploymentRow& r) {
  ConfigNode doc = ConfigNode::map();
  set_text(doc, "hardware.gpu", r.gpu);
  set_text(doc, "model.name", r.model);
  if (!r.weights.empty()) set_text(doc, "model.weights", r.weights);
  if (!r.activations.empty()) set_text(doc, "model.activations", r.activations);
  if (!r.kv_cache.empty()) set_text(doc, "model.kv_cache", r.kv_cache);
  set_number(doc, "parallelism.tp", r.attention_tp);
  set_number(doc, "parallelism.attention_dp", r.attention_dp);
  set_number(doc, "parallelism.ep", r.ep);
  if (r.redundant_experts > 0) set_number(doc, "parallelism.redundant_experts", r.redundant_experts);
  if (r.gpus_per_node > 0) set_number(doc, "parallelism.gpus_per_node", r.gpus_per_node);
  if (r.attention_dp > 1 || r.ep > 1) {
    if (!r.load_balancer.empty()) set_text(doc, "moe.load_balancer", r.load_balancer);
    if (!r.overlap.empty()) set_text(doc, "moe.overlap", r.overlap);
    if (!r.prefill_all_to_all.empty()) set_text(doc, "moe.prefill_all_to_all", r.prefill_all_to_all);
    if (!r.decode_all_to_all.empty()) set_text(doc, "moe.decode_all_to_all", r.decode_all_to_all);
    if (!r.dispatch.empty()) set_text(doc, "moe.dispatch", r.dispatch);
  }
  if (!r.framework.empty()) set_text(doc, "engine.framework", r.framework);
  if (r.memory_utilization > 0) set_number(doc, "engine.gpu_memory_utilization", r.memory_utilization);
  if (r.max_tokens_per_rank > 0) set_number(doc, "engine.max_num_batched_tokens", static_cast<double>(r.max_tokens_per_rank));
  const std::int64_t seqs = r.max_batch_per_rank > 0 ? r.max_batch_per_rank : r.batch_per_rank;
  if (seqs > 0) set_number(doc, "engine.max_num_seqs", static_cast<double>(seqs));
  if (r.mtp_draft_tokens > 0) {
    set_text(doc, "engine.speculative.method", "mtp");
    set_number(doc, "engine.speculative.num_speculative_tokens", static_cast<double>(r.mtp_draft_tokens));
    set_number(doc, "engine.speculative.acceptance_rate", r.mtp_acceptance);
  }
  set_number(doc, "workload.requests", 1);
  set_text(doc, "workload.input_tokens.dist", "fixed");
  set_number(doc, "workload.input_tokens.value", static_cast<double>(std::max<std::int64_t>(1, r.isl)));
  set_text(doc, "workload.output_tokens.dist", "fixed");
  set_number(doc, "workload.output_tokens.value", static_cast<double>(std::max<std::int64_t>(1, r.osl)));
  if (r.kind == "serving") {
    set_text(doc, "workload.arrival.process", "closed_loop");
    set_number(doc, "workload.arrival.users", static_cast<double>(r.concurrency));
    // Four requests per user: the ramp-up and drain are a small share of the run.
    set_number(doc, "workload.requests", static_cast<double>(4 * r.concurrency));
  } else {
    set_text(doc, "workload.arrival.process", "poisson");
    set_number(doc, "workload.arrival.rate", 1);
  }
  return doc;
}

// Seconds of one decode step of n sequences (each at `context` tokens) on the replica,
// the speculative drafter's steps included, and the tokens it emits per sequence.
double decode_step_seconds(const Scenario& sc, const CostModel& cost, std::int64_t n, double context, double* emitted) {
  const EngineConfig eng = replica_engine_config(sc.engine, sc.parallelism.attention_dp);
  BatchSummary b = cost.batch();
  const SpeculativeConfig& sp = sc.engine.speculative;
  double gpu = 0;
  *emitted = 1.0;
  if (sp.enabled()) {
    StepPricer::add_verify(b, n, static_cast<double>(n) * context, sp.num_speculative_tokens + 1);
    gpu = cost.totals(b).time;
    const std::unique_ptr<CostModel> drafter = make_draft_cost_model(sc);
    for (std::int64_t j = 1; j <= sp.num_speculative_tokens; ++j) {
      BatchSummary d = drafter->batch();
      d.seqs = d.new_tokens = d.sampled = d.decode_seqs = n;
      d.decode_kv_tokens = static_cast<double>(n) * (context + static_cast<double>(j));
      gpu += drafter->totals(d).time;
    }
    *emitted = sp.expected_tokens();
  } else {
    b.seqs = b.new_tokens = b.sampled = b.decode_seqs = n;
    b.decode_kv_tokens = static_cast<double>(n) * (context + 1.0);
    gpu = cost.totals(b).time;
  }
  return step_wall_seconds(gpu, eng.cpu_overheads(), b.seqs, b.prefill_seqs);
}

// A prefill step of T tokens per DP rank made of isl-token prompts (or a chunk of one).
BatchSummary prefill_batch(const CostModel& cost, std::int64_t ranks, std::int64_t T, std::int64_t isl) {
  BatchSummary b = cost.batch();
  const std::int64_t prompts = isl > 0 ? T / isl : 0;
  if (prompts >= 1) {
    for (std::int64_t i = 0; i < prompts * ranks; ++i) b.add(SeqWork{isl, 0, true});
  } else {
    // A chunk of a longer prompt on every rank, at the prompt's middle.
    for (std::int64_t i = 0; i < ranks; ++i) b.add(SeqWork{T, (isl - T) / 2, false});
  }
  return b;
}

double prefill_step_seconds(const Scenario& sc, const CostModel& cost, std::int64_t T, std::int64_t isl) {
  const BatchSummary b = prefill_batch(cost, sc.parallelism.attention_dp, T, isl);
  const EngineConfig eng = replica_engine_config(sc.engine, sc.parallelism.attention_dp);
  return step_wall_seconds(cost.totals(b).time, eng.cpu_overheads(), b.seqs, b.prefill_seqs);
}

}  // namespace

MoeDeploymentResult predict_moe_deployment(const MoeDeploymentRow& row, const std::vector<ConfigEdit>& edits) {
  MoeDeploymentResult out;
  out.row = row;
  if (row.split == "excluded") {
    out.skipped = "excluded: " + row.notes;
    return out;
  }
  ConfigNode doc = row_document(row);
  apply_edits(doc, edits);
  const std::string where = fmt::format("deployments.csv:{} ({})", row.line, row.id);
  Scenario sc = parse_scenario(doc, where);
  if (row.kv_free_fraction > 0) {
    // The KV cache gets the fraction f of what is free after the rest: utilization
    // u = (capacity - (1 - f) x free) / capacity, free = capacity - weights - activations - runtime.
    EngineConfig full = sc.engine;
    full.gpu_memory_utilization = 1.0;
    Setup probe = sc;
    probe.engine = full;
    const MemoryPlan all = plan_setup_memory(probe, make_cost_model(probe));
    const double free_bytes = all.kv_bytes;
    set_number(doc, "engine.gpu_memory_utilization",
               (all.capacity - (1.0 - row.kv_free_fraction) * free_bytes) / all.capacity);
    sc = parse_scenario(doc, where);
  }
  const CostModel cost = make_cost_model(sc);
  const MemoryPlan mem = plan_setup_memory(sc, cost);
  if (!mem.fits) {
    out.skipped = mem.verdict;
    return out;
  }
  const double D = sc.parallelism.attention_dp;
  const double G = sc.parallelism.gpus_per_replica();
  if (row.kind == "decode_step" || row.kind == "overlap_gain") {
    std::int64_t per_rank = row.batch_per_rank;
    if (per_rank <= 0) {
      // As many sequences as one rank's KV cache holds at their final length.
      const double tokens = static_cast<double>(mem.kv_blocks_per_rank * sc.engine.block_size);
      per_rank = static_cast<std::int64_t>(std::floor(tokens / static_cast<double>(row.isl + row.osl)));
      if (row.max_batch_per_rank > 0) per_rank = std::min(per_rank, row.max_batch_per_rank);
    }
    if (per_rank < 1) {
      out.skipped = "no sequence fits a rank's KV cache";
      return out;
    }
    out.batch = per_rank;
    const double context = row.context > 0 ? static_cast<double>(row.context)
                                           : static_cast<double>(row.isl) + static_cast<double>(row.osl) / 2.0;
    const std::int64_t n = per_rank * sc.parallelism.attention_dp;
    double emitted = 1.0;
    const double t = decode_step_seconds(sc, cost, n, context, &emitted);
    const double per_gpu = static_cast<double>(n) * emitted / (t * G);
    if (row.kind == "decode_step") {
      out.predicted = per_gpu;
    } else {
      Scenario plain = sc;
      plain.moe.overlap = MoeOverlap::none;
      const CostModel base = make_cost_model(plain);
      const double t0 = decode_step_seconds(plain, base, n, context, &emitted);
      out.predicted = t0 / t;  // throughput with overlap over without
    }
  } else if (row.kind == "prefill_step" || row.kind == "prefill_overlap_gain") {
    const std::int64_t T = row.batch_per_rank > 0 ? row.batch_per_rank : sc.engine.max_num_batched_tokens;
    out.batch = T;
    const double t = prefill_step_seconds(sc, cost, T, row.isl);
    const BatchSummary b = prefill_batch(cost, sc.parallelism.attention_dp, T, row.isl);
    if (row.kind == "prefill_step") {
      out.predicted = static_cast<double>(b.new_tokens) / (t * G);
    } else {
      Scenario plain = sc;
      plain.moe.overlap = MoeOverlap::none;
      out.predicted = prefill_step_seconds(plain, make_cost_model(plain), T, row.isl) / t;
    }
    (void)D;
  } else {  // serving
    const SimulationResult r = simulate(sc);
    out.predicted = r.summary.output_tokens_per_s / G;
  }
  out.error = row.value > 0 ? out.predicted / row.value - 1.0 : 0.0;
  return out;
}

}  // namespace servesim
