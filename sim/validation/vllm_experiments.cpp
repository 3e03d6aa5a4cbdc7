#include "config/edits.h"
#include "config/yaml_text.h"
#include "validation/vllm_experiments.h"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/rng.h"
#include "metrics/requests_csv.h"
#include "run/simulation.h"
#include "metrics/stats.h"
#include "util/error.h"
#include "util/json_file.h"
#include "util/text.h"
#include "config/scenario_reader.h"

namespace servesim {
namespace {

using nlohmann::json;

// The file names GPUs and models as vendors and Hugging Face do; map them to the catalog.
std::string gpu_catalog_name(const std::string& short_name) {
  static const std::map<std::string, std::string> m = {
      {"H100", "h100-sxm"}, {"A100-80GB", "a100-sxm4-80gb"}, {"L40S", "l40s"}};
  const auto it = m.find(short_name);
  if (it == m.end()) throw Error(fmt::format("experiments: no catalog GPU for '{}'", short_name));
  return it->second;
}

std::string model_catalog_name(const std::string& hf_id) {
  static const std::map<std::string, std::string> m = {
      {"Qwen/Qwen3-14B", "qwen3-14b"},
      {"meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b"},
      {"mistralai/Mixtral-8x7B-v0.1", "mixtral-8x7b"},
      {"mistralai/Mixtral-8x22B-Instruct-v0.1", "mixtral-8x22b"},
      {"mistralai/Mixtral-8x22B-v0.1", "mixtral-8x22b"},
      {"codellama/CodeLlama-34b-Instruct-hf", "codellama-34b"},
      {"meta-llama/Llama-2-70b-hf", "llama-2-70b"},
      {"meta-llama/Llama-2-7b-hf", "llama-2-7b"}};
  const auto it = m.find(hf_id);
  if (it == m.end()) throw Error(fmt::format("experiments: no catalog model for '{}'", hf_id));
  return it->second;
}

double num(const json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_number()) return 0.0;
  return j[key].get<double>();
}

std::uint64_t hash64(std::uint64_t x) {
  std::uint64_t state = x;
  return splitmix64(state);
}

MeasuredMetrics read_metrics(const json& j) {
  MeasuredMetrics m;
  m.ttft_mean = num(j, "ttft_mean_ms");
  m.ttft_p90 = num(j, "ttft_p90_ms");
  m.ttft_p99 = num(j, "ttft_p99_ms");
  m.e2e_mean = num(j, "e2e_mean_ms");
  m.e2e_p90 = num(j, "e2e_p90_ms");
  m.e2e_p99 = num(j, "e2e_p99_ms");
  m.tpot_mean = num(j, "tpot_mean_ms");
  return m;
}

}  // namespace

std::vector<Experiment> load_vllm_experiments(const std::string& path) {
  const json d = read_json_file(path);  // a directory, bad syntax, 1e999: Errors naming the file
  std::vector<Experiment> out;
  try {
    for (const auto& j : d.at("experiments")) {
      Experiment e;
      e.key = j.at("key").get<std::string>();
      e.gpu = gpu_catalog_name(j.at("hardware").at("gpu_short").get<std::string>());
      e.model = model_catalog_name(j.at("model").at("hf_id").get<std::string>());
      const json& s = j.at("serving");
      e.tp = s.at("tensor_parallel_size").get<int>();
      e.max_num_batched_tokens = s.at("max_num_batched_tokens").get<std::int64_t>();
      e.max_num_seqs = s.value("max_num_seqs", 128);
      e.max_model_len = s.value("max_model_len", 4096);
      e.gpu_memory_utilization = s.at("gpu_memory_utilization").get<double>();
      e.cpu_offload = s.at("kv_cpu_offload").at("enabled").get<bool>();
      e.recommended = j.value("recommended_for_validation", true);
      const json& w = j.at("workload");
      e.workload = w.at("template").get<std::string>();
      const json& t = w.at("template_params");
      e.system_prompts = t.at("num_unique_system_prompts").get<int>();
      e.users_per_prompt = t.at("num_users_per_system_prompt").get<int>();
      e.system_prompt_len = t.at("system_prompt_len").get<std::int64_t>();
      e.question_len = t.at("question_len").get<std::int64_t>();
      e.output_len = t.at("output_len").get<std::int64_t>();
      const json& metrics = j.at("metrics");
      e.measured = read_metrics(metrics.at("summary"));
      const json& stages = w.at("stages");
      for (std::size_t i = 0; i < stages.size(); ++i) {
        ExperimentStage st;
        st.rate = stages[i].at("rate_rps").get<double>();
        st.duration = stages[i].at("duration_s").get<double>();
        st.requests = stages[i].at("num_requests").get<std::int64_t>();
        if (metrics.contains("stages") && i < metrics["stages"].size()) st.measured = read_metrics(metrics["stages"][i]);
        e.stages.push_back(st);
      }
      out.push_back(std::move(e));
    }
  } catch (const json::exception& e) {
    throw Error(json_field_error(path, "unexpected layout", e));
  }
  return out;
}

Scenario experiment_scenario(const Experiment& e, const std::vector<ConfigEdit>& edits) {
  // Built as a document, key by key: names from the experiments file are values,
  // never pasted into YAML text.
  ConfigNode doc;
  set_text(doc, "hardware.gpu", e.gpu);
  set_text(doc, "model.name", e.model);
  set_number(doc, "parallelism.tp", e.tp);
  set_text(doc, "engine.kind", "vllm");
  set_number(doc, "engine.max_num_seqs", static_cast<double>(e.max_num_seqs));
  set_number(doc, "engine.max_num_batched_tokens", static_cast<double>(e.max_num_batched_tokens));
  set_number(doc, "engine.block_size", 16);
  set_number(doc, "engine.gpu_memory_utilization", e.gpu_memory_utilization);
  set_text(doc, "engine.prefix_caching", "true");
  set_number(doc, "engine.max_model_len", static_cast<double>(e.max_model_len));
  if (e.cpu_offload) set_text(doc, "engine.cpu_offload", "8 GiB");
  set_number(doc, "workload.requests", 1);
  set_text(doc, "workload.arrival.process", "all_at_once");
  set_text(doc, "workload.input_tokens.dist", "fixed");
  set_number(doc, "workload.input_tokens.value", 1);
  set_text(doc, "workload.output_tokens.dist", "fixed");
  set_number(doc, "workload.output_tokens.value", 1);
  apply_edits(doc, edits);
  return parse_scenario(doc, "experiment " + e.key);
}

namespace {

class ExperimentSource : public RequestSource {
 public:
  ExperimentSource(const Experiment& e, PromptSharing sharing, std::uint64_t seed, double time_scale)
      : e_(e), sharing_(sharing), rng_(seed, "arrivals"), scale_(time_scale) {
    for (const auto& s : e.stages) total_ += stage_requests(s);
  }
  std::optional<Request> next() override {
    while (index_in_stage_ >= static_cast<std::int64_t>(gaps_.size())) {
      if (stage_ >= static_cast<int>(e_.stages.size())) return std::nullopt;
      start_stage();
    }
    Request r;
    r.id = id_++;
    elapsed_ += gaps_[static_cast<std::size_t>(index_in_stage_++)];
    r.arrival = to_nanos(stage_start_ + elapsed_);
    r.input_tokens = e_.system_prompt_len + e_.question_len;
    r.output_tokens = e_.output_len;
    // One id per token: the system prompt's tokens are shared by its group, the
    // question's by every reissue of the same prompt (cycled) or by nobody (groups).
    std::uint64_t group, question;
    if (sharing_ == PromptSharing::cycled) {
      const std::int64_t prompt = r.id % 100;
      group = static_cast<std::uint64_t>(prompt / 10);
      question = static_cast<std::uint64_t>(prompt);
    } else {
      const std::int64_t users = static_cast<std::int64_t>(e_.system_prompts) * e_.users_per_prompt;
      group = static_cast<std::uint64_t>((r.id % users) / e_.users_per_prompt);
      question = 1000000 + static_cast<std::uint64_t>(r.id);
    }
    r.hash_block_tokens = 1;
    r.block_hashes.reserve(static_cast<std::size_t>(r.input_tokens));
    for (std::int64_t t = 0; t < e_.system_prompt_len; ++t) r.block_hashes.push_back(hash64(group * 7919 + static_cast<std::uint64_t>(t)) ^ 0x5157);
    for (std::int64_t t = 0; t < e_.question_len; ++t)
      r.block_hashes.push_back(hash64((question << 20) + static_cast<std::uint64_t>(t)) ^ 0xA11CE);
    return r;
  }
  bool exhausted() const override {
    return stage_ >= static_cast<int>(e_.stages.size()) && index_in_stage_ >= static_cast<std::int64_t>(gaps_.size());
  }
  std::int64_t expected_total() const override { return total_; }

 private:
  std::int64_t stage_requests(const ExperimentStage& s) const {
    return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::llround(static_cast<double>(s.requests) * scale_)));
  }
  void start_stage() {
    if (stage_ >= 0 && stage_ < static_cast<int>(e_.stages.size()))
      stage_start_ += e_.stages[static_cast<std::size_t>(stage_)].duration * scale_;
    ++stage_;
    gaps_.clear();
    index_in_stage_ = 0;
    elapsed_ = 0;
    if (stage_ >= static_cast<int>(e_.stages.size())) return;
    const ExperimentStage& s = e_.stages[static_cast<std::size_t>(stage_)];
    // inference-perf "constant" load: exponential gaps rescaled to sum to the duration.
    double sum = 0;
    const std::int64_t n = stage_requests(s);
    for (std::int64_t i = 0; i < n; ++i) {
      gaps_.push_back(rng_.exponential(1.0));
      sum += gaps_.back();
    }
    for (double& g : gaps_) g *= s.duration * scale_ / sum;
  }

  const Experiment& e_;
  PromptSharing sharing_;
  RandomStream rng_;
  double scale_ = 1.0;
  std::int64_t total_ = 0, id_ = 0, index_in_stage_ = 0;
  int stage_ = -1;
  double stage_start_ = 0, elapsed_ = 0;
  std::vector<double> gaps_;
};

MeasuredMetrics metrics_of(std::vector<double>& ttft, std::vector<double>& e2e, std::vector<double>& tpot) {
  MeasuredMetrics m;
  const Distribution t = summarize_values(ttft), e = summarize_values(e2e), p = summarize_values(tpot);
  m.ttft_mean = t.mean;
  m.ttft_p90 = t.p90;
  m.ttft_p99 = t.p99;
  m.e2e_mean = e.mean;
  m.e2e_p90 = e.p90;
  m.e2e_p99 = e.p99;
  m.tpot_mean = p.mean;
  return m;
}

}  // namespace

std::unique_ptr<RequestSource> experiment_source(const Experiment& e, PromptSharing sharing, std::uint64_t seed,
                                                 double time_scale) {
  return std::make_unique<ExperimentSource>(e, sharing, seed, time_scale);
}

ExperimentOutcome replay_experiment(const Experiment& e, const Scenario& sc, PromptSharing sharing, double time_scale) {
  auto source = experiment_source(e, sharing, sc.workload.seed, time_scale);
  RequestResults results;
  SimulationOptions opt;
  opt.request_results = &results;
  const SimulationResult r = simulate(sc, *source, opt);
  ExperimentOutcome out;
  out.completed = r.summary.completed;
  out.failed = r.summary.failed;
  out.preemptions = r.summary.preemptions;
  out.prefix_hit_rate = r.summary.prefix_hit_rate;
  out.batch_occupancy = sc.engine.max_num_seqs > 0 ? r.summary.batch_size_mean / static_cast<double>(sc.engine.max_num_seqs) : 0.0;
  out.kv_utilization = r.summary.kv_utilization_mean;
  out.overloaded = r.summary.load.overloaded;
  // Per stage from the per-request results (arrival decides the stage), at
  // requests.csv precision (as before: the outputs stay byte-identical).
  std::vector<double> bounds;
  double t = 0;
  for (const auto& s : e.stages) bounds.push_back(t += s.duration * time_scale);
  const std::size_t n = e.stages.size();
  std::vector<std::vector<double>> ttft(n), e2e(n), tpot(n);
  std::vector<double> all_ttft, all_e2e, all_tpot;
  for (const RequestResult& exact : results) {
    if (exact.failed) continue;
    const RequestResult q = at_csv_precision(exact);
    std::size_t st = 0;
    while (st + 1 < n && q.arrival_s > bounds[st] + 1e-9) ++st;
    const double tt = q.ttft_ms, tp = q.tpot_ms, ee = q.e2e_ms;
    ttft[st].push_back(tt);
    e2e[st].push_back(ee);
    tpot[st].push_back(tp);
    all_ttft.push_back(tt);
    all_e2e.push_back(ee);
    all_tpot.push_back(tp);
  }
  for (std::size_t i = 0; i < n; ++i) out.predicted_stages.push_back(metrics_of(ttft[i], e2e[i], tpot[i]));
  out.predicted = metrics_of(all_ttft, all_e2e, all_tpot);
  return out;
}

}  // namespace servesim
