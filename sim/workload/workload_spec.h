#pragma once
// The scenario's `workload:` mapping as plain data, and the source built from it.
// config/workload_reader.h reads it (config/keys_*.cpp declare its keys).
//
// Synthetic requests:
//   workload:
//     seed: 1                   # optional, default 1
//     requests: 2000            # optional total; at least one of requests,
//     duration: "10 min"        #   duration or a multi_stage arrival must bound the run
//     arrival: {process: poisson, rate: 8}
//     input_tokens: {dist: lognormal, mean: 1024, stddev: 512, max: 8192}
//     output_tokens: {dist: uniform, min: 64, max: 512}
//     hash_block_tokens: 16     # optional: tokens per prefix-hash block (default 16)
//     shared_prefix: {groups: 10, tokens: 100}       # optional, see SharedPrefixSpec
//     multi_turn: {turns: 4, think_time: "5 s"}      # optional, see MultiTurnSpec
//     sampling: {n: 4}          # optional: parallel samples (n) or beams (beam_width) per request
//     patience: {dist: uniform, min: "3 s", max: "5 s"} # optional: users who give up (patience.h)
//     lora: {adapters: 200, rank: 16, popularity: zipf}  # optional: LoRA adapters (lora_adapters.h)
//
// Trace replay (arrival, input_tokens, output_tokens, shared_prefix and
// multi_turn must then be absent; requests and duration cut the trace short):
//   workload:
//     trace: traces/azure_conv.csv   # relative: the scenario's folder first, then the cwd
//     format: auto              # auto | csv | azure | mooncake | vllm_bench
//     time_scale: 1.0           # optional: arrival gaps are multiplied by it
//     hash_block_tokens: 16     # generic CSV hash_ids block size (Mooncake: 512)
//     seed: 1                   # vllm_bench: the regenerated arrivals' seed
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "workload/arrival_process.h"
#include "workload/duration_distribution.h"
#include "workload/length_distribution.h"
#include "workload/lora_adapters.h"
#include "workload/request_classes.h"
#include "workload/patience.h"
#include "workload/request_source.h"
#include "workload/sampling.h"
#include "workload/trace_format.h"

namespace servesim {

// `workload.trace` and its companions (see trace_source.h for the formats).
struct TraceSpec {
  std::string path;                          // resolved (scenario folder first)
  TraceFormat format = TraceFormat::automatic;
  double time_scale = 1.0;                   // > 0: arrival offsets are multiplied by it
};

// `workload.shared_prefix: {groups: N, tokens: T, prompts_per_group: P, assign: round_robin}`.
// Every request's prompt starts with its group's T-token system prompt; its
// input_tokens (sampled from workload.input_tokens, the question) gets T added.
// Without prompts_per_group every question is unique; with it there are N*P
// distinct prompts (question lengths drawn once per prompt) that requests cycle
// through, as inference-perf's shared_prefix generator does, so a repeated
// prompt hits the cache in full. assign: round_robin (request k: group k mod N,
// or prompt k mod N*P, whose group is its index mod N) or random (group drawn
// uniformly per request from the "prefix_groups" stream; with prompts_per_group
// the prompts are cycled in an order shuffled once from that stream).
struct SharedPrefixSpec {
  std::int64_t groups = 1;                   // >= 1
  std::int64_t tokens = 0;                   // system prompt length, >= 1
  std::int64_t prompts_per_group = 0;        // 0: every question unique
  bool random_assign = false;
};

// `workload.multi_turn: {turns: K, think_time: "5 s"}`: requests come in
// sessions of K turns; turn i's prompt is every earlier turn's prompt and output
// plus a new question (drawn from workload.input_tokens), so its prefix blocks
// repeat the earlier turns' blocks. Open-loop arrivals start sessions and each
// later turn arrives think_time after the previous turn's arrival (the schedule
// is fixed in advance, as open loop requires); with a closed_loop arrival each
// user runs sessions back to back and turns follow completions by the
// arrival's think_time (multi_turn.think_time must then be absent).
//
// `loop: closed` (session_source.h) makes sessions closed-loop under an open
// arrival process: the arrivals start sessions, and each later turn is sent once
// the previous answer has finished, plus the user's think time (think_time, or a
// distribution in `think`) or a tool call's duration (tool_calls). A session may
// also fork sub-agents (subagents) that run in parallel and join before its next
// turn. Every per-turn draw is keyed by (seed, session, turn), so a session's
// turns, tools and think times do not depend on the order the run asks for them.
struct ToolCallSpec {
  double probability = 0;      // a turn (not a session's last) ends with a tool call
  DurationSpec duration;       // how long the tool runs before the next turn is sent
  LengthSpec output_tokens;    // the tool's output, appended to the context
};
struct SubagentSpec {
  double probability = 0;      // a turn (not the last) forks sub-agents, checked before tool calls
  std::int64_t count = 1;      // sub-agents per fork, run in parallel
  std::int64_t turns = 1;      // turns of each sub-agent (closed loop, tool calls as the parent's)
};
struct MultiTurnSpec {
  std::int64_t turns = 1;                    // >= 1
  double think_time_s = 0.0;                 // open loop: seconds between a session's turns
  bool conversation_metrics = false;         // report per-conversation metrics (metrics/conversations.h)
  // loop: closed (session_source.h). The fields below need it.
  bool closed = false;
  std::int64_t max_turns = 0;                // > turns: a session's turns uniform on [turns, max_turns]
  std::optional<DurationSpec> think;         // closed loop: think time as a distribution (else think_time_s)
  std::optional<ToolCallSpec> tool_calls;
  std::optional<SubagentSpec> subagents;
};

struct WorkloadSpec {
  std::uint64_t seed = 1;              // scenario seed; each stream mixes in its name
  std::int64_t requests = -1;          // total requests, -1 = until the arrival schedule (or trace) ends
  std::optional<double> duration_s;    // seconds: no arrival after this time
  ArrivalSpec arrival;                 // synthetic only
  LengthSpec input_tokens;             // synthetic only (with shared_prefix: the question length)
  LengthSpec output_tokens;            // synthetic only
  // Tokens per prefix-hash block, when the scenario sets it (default 16 for
  // synthetic prefixes and generic CSV hash_ids; Mooncake traces use 512).
  std::optional<std::int32_t> hash_block_tokens;
  std::optional<TraceSpec> trace;
  std::optional<SharedPrefixSpec> shared_prefix;
  std::optional<MultiTurnSpec> multi_turn;
  SamplingSpec sampling;               // sequences per request (synthetic and trace requests alike)
  std::optional<PatienceSpec> patience;  // users who give up (patience.h); synthetic and trace alike
  std::optional<LoraWorkloadSpec> lora;  // each request's LoRA adapter (lora_adapters.h); synthetic and trace alike
  std::vector<RequestClassSpec> classes;  // request classes (request_classes.h); empty: none
};

// Default block size of synthetic prefix hashes and generic CSV hash_ids.
inline constexpr std::int32_t kDefaultHashBlockTokens = 16;

// The source `spec` describes: a TraceSource (trace_source.h) when spec.trace is
// set, else a SyntheticSource (synthetic_source.h). Opening a trace may throw
// servesim::Error (unreadable file, bad header).
std::unique_ptr<RequestSource> make_request_source(const WorkloadSpec& spec);

// Same as make_request_source (kept for existing callers; despite the name it
// returns the trace source when spec.trace is set).
std::unique_ptr<RequestSource> make_synthetic_source(const WorkloadSpec& spec);

}  // namespace servesim
