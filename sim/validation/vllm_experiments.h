#pragma once
// Replays the measured vLLM serving experiments (data/serving/vllm_serving_experiments.json)
// as their `how_to_simulate` notes describe: per stage rate*duration requests with
// exponential gaps rescaled to the stage duration, exactly output_len output tokens,
// prompts of system_prompt_len + question_len tokens sharing system prompts (prefix
// caching on), and compares predicted TTFT / TPOT / E2E with the measurements.
#include <cstdint>
#include <string>
#include <vector>

#include "config/edits.h"
#include "scenario/scenario.h"
#include "workload/request_source.h"

namespace servesim {

struct MeasuredMetrics {
  double ttft_mean = 0, ttft_p90 = 0, ttft_p99 = 0;
  double e2e_mean = 0, e2e_p90 = 0, e2e_p99 = 0;
  double tpot_mean = 0;
};

struct ExperimentStage {
  double rate = 0;      // requests per second
  double duration = 0;  // seconds
  std::int64_t requests = 0;
  MeasuredMetrics measured;
};

struct Experiment {
  std::string key;
  std::string gpu;    // catalog name
  std::string model;  // catalog name
  std::string workload;
  int tp = 1;
  std::int64_t max_num_batched_tokens = 2048, max_num_seqs = 128, max_model_len = 4096;
  double gpu_memory_utilization = 0.9;
  bool cpu_offload = false;
  bool recommended = true;
  int system_prompts = 1, users_per_prompt = 1;
  std::int64_t system_prompt_len = 0, question_len = 0, output_len = 0;
  std::vector<ExperimentStage> stages;
  MeasuredMetrics measured;  // whole run
};

std::vector<Experiment> load_vllm_experiments(const std::string& path);

// How prompts share prefixes. `cycled`: 10 system prompts x 10 questions, the 100
// prompts reissued round-robin (the file's likely effective structure); `groups`:
// system_prompts x users_per_prompt groups, each request a fresh question.
enum class PromptSharing { cycled, groups };

// The scenario of one experiment (vLLM defaults the file does not publish:
// block 16, chunked prefill, prefix caching on), with edits (--set, fitted values) applied on top.
Scenario experiment_scenario(const Experiment& e, const std::vector<ConfigEdit>& edits);

// `time_scale` < 1 shortens every stage (same rates, fewer requests) for fast fits.
std::unique_ptr<RequestSource> experiment_source(const Experiment& e, PromptSharing sharing, std::uint64_t seed,
                                                 double time_scale = 1.0);

struct ExperimentOutcome {
  MeasuredMetrics predicted;
  std::vector<MeasuredMetrics> predicted_stages;
  std::int64_t completed = 0, failed = 0, preemptions = 0;
  double prefix_hit_rate = 0;
  // How full the engine ran: mean batch over max_num_seqs, and mean KV-cache use. The
  // load regime of the uncertainty bands (uncertainty/bands.h) is read from them, the
  // same way for a replay as for `run`.
  double batch_occupancy = 0, kv_utilization = 0;
  bool overloaded = false;
};

ExperimentOutcome replay_experiment(const Experiment& e, const Scenario& sc, PromptSharing sharing,
                                     double time_scale = 1.0);

}  // namespace servesim
