// The keys of `workload:` itself, `workload.shared_prefix` and `workload.multi_turn`
// (read by config/read_workload.cpp and config/read_trace.cpp).
#include "config/classes_reader.h"
#include <string>

#include "config/key_registry.h"
#include "config/workload_keys.h"
#include "config/workload_limits.h"
#include "workload/trace_format.h"

namespace servesim {
namespace {

std::vector<std::string_view> trace_format_choices() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& [name, doc] : trace_format_registry()) out.push_back(name);
    return out;
  }();
  return {names.begin(), names.end()};
}

}  // namespace

namespace workload_keys {

const Key seed{.name = "seed",
               .type = KeyType::integer,
               .doc = "seed of every random stream (each stream mixes in its own name); vllm_bench traces: the "
                      "regenerated arrivals' seed",
               .spec = "WorkloadSpec::seed",
               .default_number = 1,
               .min = 0};
const Key requests{.name = "requests",
                   .type = KeyType::integer,
                   .doc = "total requests; with a trace, replay only its first N",
                   .spec = "WorkloadSpec::requests",
                   .unit = "requests",
                   .default_note = "none: until the arrival schedule, duration or trace ends",
                   .min = 1,
                   .max = static_cast<double>(kMaxRequests),
                   .why = "about 20 minutes of simulation at 1M requests/s"};
const Key duration{.name = "duration",
                   .type = KeyType::quantity,
                   .doc = "no arrival after this time (\"10 min\")",
                   .spec = "WorkloadSpec::duration_s",
                   .dimension = Dimension::time,
                   .default_note = "none: until requests or the arrival schedule ends",
                   .min = 1e-9,
                   .max = kMaxDurationSeconds,
                   .why = "at least the clock's 1 ns tick"};
const Key hash_block_tokens{.name = "hash_block_tokens",
                            .type = KeyType::integer,
                            .doc = "tokens per prefix-hash block of synthetic prefixes and generic CSV hash_ids",
                            .spec = "WorkloadSpec::hash_block_tokens",
                            .unit = "tokens",
                            .default_note = "16 (Mooncake traces: 512)",
                            .min = 1,
                            .max = static_cast<double>(kMaxHashBlockTokens)};
const Key arrival{.name = "arrival",
                  .type = KeyType::section,
                  .doc = "when requests arrive: a mapping whose `process` selects its keys",
                  .spec = "WorkloadSpec::arrival",
                  .required = true,
                  .default_note = "required (synthetic requests)"};
const Key input_tokens{.name = "input_tokens",
                       .type = KeyType::section,
                       .doc = "prompt length distribution (with shared_prefix: the question after the system "
                              "prompt)",
                       .spec = "WorkloadSpec::input_tokens",
                       .required = true,
                       .default_note = "required (synthetic requests)"};
const Key output_tokens{.name = "output_tokens",
                        .type = KeyType::section,
                        .doc = "output length distribution",
                        .spec = "WorkloadSpec::output_tokens",
                        .required = true,
                        .default_note = "required (synthetic requests)"};
const Key shared_prefix{.name = "shared_prefix",
                        .type = KeyType::section,
                        .doc = "every prompt starts with its group's system prompt",
                        .spec = "WorkloadSpec::shared_prefix",
                        .default_note = "none: no shared prefix"};
const Key multi_turn{.name = "multi_turn",
                     .type = KeyType::section,
                     .doc = "requests come in sessions whose later turns repeat the earlier turns as their prefix",
                     .spec = "WorkloadSpec::multi_turn",
                     .default_note = "none: single-turn requests"};
const Key sampling{.name = "sampling",
                   .type = KeyType::section,
                   .doc = "sequences each request decodes: parallel samples (n) or beam search (beam_width); "
                          "engine/sequence_group.h states the model",
                   .spec = "WorkloadSpec::sampling",
                   .default_note = "none: one sequence per request"};
const Key patience{.name = "patience",
                   .type = KeyType::section,
                   .doc = "users who give up: a request without its first token this long after it was sent is "
                          "abandoned (dropped from the queue, or its prefill aborted and its KV freed)",
                   .spec = "WorkloadSpec::patience",
                   .default_note = "none: users wait for ever"};
const Key lora{.name = "lora",
               .type = KeyType::section,
               .doc = "LoRA adapters on the base model: each request uses one of `adapters` adapters (or, with share "
                      "below 1, the base model), drawn by popularity; needs engine.lora (workload/lora_adapters.h)",
               .spec = "WorkloadSpec::lora",
               .default_note = "none: every request uses the base model"};
const Key trace{.name = "trace",
                .type = KeyType::text,
                .doc = "a trace file to replay instead of synthetic requests (relative: beside the scenario "
                       "first, then the working directory)",
                .spec = "TraceSpec::path",
                .unit = "file path",
                .default_note = "none: synthetic requests"};
const Key format{.name = "format",
                 .type = KeyType::choice,
                 .doc = "the trace's file format (with trace only)",
                 .spec = "TraceSpec::format",
                 .default_text = "auto",
                 .choices = trace_format_choices()};
const Key time_scale{.name = "time_scale",
                     .type = KeyType::number,
                     .doc = "the trace's arrival gaps are multiplied by it (with trace only)",
                     .spec = "TraceSpec::time_scale",
                     .default_number = 1.0,
                     .min = 1e-6,
                     .max = 1e6,
                     .why = "a factor on the trace's arrival gaps"};

}  // namespace workload_keys

namespace shared_prefix_keys {

const Key groups{.name = "groups",
                 .type = KeyType::integer,
                 .doc = "number of distinct system prompts",
                 .spec = "SharedPrefixSpec::groups",
                 .required = true,
                 .min = 1};
const Key tokens{.name = "tokens",
                 .type = KeyType::integer,
                 .doc = "length of each system prompt, added to every request's input_tokens",
                 .spec = "SharedPrefixSpec::tokens",
                 .unit = "tokens",
                 .required = true,
                 .min = 1,
                 .max = static_cast<double>(kMaxLengthTokens),
                 .why = "tokens of one system prompt"};
const Key prompts_per_group{.name = "prompts_per_group",
                            .type = KeyType::integer,
                            .doc = "distinct full prompts per group that requests cycle through (a repeat hits the "
                                   "cache in full), as inference-perf's shared_prefix generator",
                            .spec = "SharedPrefixSpec::prompts_per_group",
                            .default_note = "none: every question is unique",
                            .min = 1};
const Key assign{.name = "assign",
                 .type = KeyType::choice,
                 .doc = "how requests pick a group (or prompt): in turn, or drawn from the prefix_groups stream",
                 .spec = "SharedPrefixSpec::random_assign",
                 .default_text = "round_robin",
                 .choices = {"round_robin", "random"}};

}  // namespace shared_prefix_keys

namespace sampling_keys {

// Both bounded by what one step may run: all of a request's sequences decode at
// once, so they must also fit engine.max_num_seqs (checked with the engine).
const Key n{.name = "n",
            .type = KeyType::integer,
            .doc = "parallel samples per request (the n of vLLM's and OpenAI's completion APIs): one prefill, then n "
                   "sequences sharing the prompt's KV blocks",
            .spec = "SamplingSpec::n",
            .unit = "sequences",
            .default_number = 1,
            .min = 1,
            .max = 1024,
            .why = "4x vLLM's default max_num_seqs (256); a request's samples must also fit engine.max_num_seqs"};
const Key beam_width{.name = "beam_width",
                     .type = KeyType::integer,
                     .doc = "beams per request (beam search), run as engine.beam_search says (the framework's "
                            "way, docs/beam-search.md): above_engine (vllm-v1: a loop that sends one request of "
                            "max_tokens 1 per beam per token, each re-prefilling what the prefix cache lacks, with "
                            "the front end's CPU time per request between rounds; run/beam_loop.h) or in_engine "
                            "(vLLM up to v0.6.2, TensorRT-LLM: one prefill, then the beams decode in lockstep, priced "
                            "as that many parallel samples; engine/sequence_group.h). Not modelled: beams ending "
                            "early, diverging histories, and V0's Python sampler and fork costs (servesim's in-engine "
                            "time is a lower bound there); frameworks without beam search refuse it; no band is given "
                            "for it",
                     .spec = "SamplingSpec::beam_width",
                     .unit = "sequences",
                     .default_number = 1,
                     .min = 1,
                     .max = 1024,
                     .why = "4x vLLM's default max_num_seqs (256); a request's beams must also fit "
                            "engine.max_num_seqs"};

}  // namespace sampling_keys

namespace multi_turn_keys {

const Key turns{.name = "turns",
                .type = KeyType::integer,
                .doc = "turns per session",
                .spec = "MultiTurnSpec::turns",
                .required = true,
                .min = 1};
const Key think_time{.name = "think_time",
                     .type = KeyType::quantity,
                     .doc = "open loop: time from one turn's arrival to the next (closed_loop: use "
                            "arrival.think_time)",
                     .spec = "MultiTurnSpec::think_time_s",
                     .dimension = Dimension::time,
                     .default_note = "required unless the arrival is closed_loop (then absent)",
                     .min = 0,
                     .max = kMaxDurationSeconds};
const Key conversation_metrics{.name = "conversation_metrics",
                               .type = KeyType::boolean,
                               .doc = "also report per-conversation metrics: total wait (sum of the turns' TTFTs), "
                                      "duration, turns served, and conversations completed, abandoned or cut",
                               .spec = "MultiTurnSpec::conversation_metrics",
                               .default_bool = false};

const Key loop{.name = "loop",
               .type = KeyType::choice,
               .doc = "open: each turn is sent think_time after the previous turn's arrival, answered or not "
                      "(the schedule is fixed in advance); closed: a turn is sent once the previous answer has "
                      "finished, plus the think time or a tool call's duration (session_source.h)",
               .spec = "MultiTurnSpec::closed",
               .default_text = "open",
               .choices = {"open", "closed"}};
const Key max_turns{.name = "max_turns",
                    .type = KeyType::integer,
                    .doc = "closed loop: a session's turns are uniform on [turns, max_turns] (agent loops of varying "
                           "length)",
                    .spec = "MultiTurnSpec::max_turns",
                    .default_note = "none: every session has `turns` turns",
                    .min = 1,
                    .max = 100000,
                    .why = "turns of one session"};
const Key think{.name = "think",
                .type = KeyType::section,
                .doc = "closed loop: the think time as a distribution (instead of a fixed think_time)",
                .spec = "MultiTurnSpec::think",
                .default_note = "none: think_time"};
const Key tool_calls{.name = "tool_calls",
                     .type = KeyType::section,
                     .doc = "closed loop: turns answered by a tool call, whose output is appended to the context "
                            "before the next turn",
                     .spec = "MultiTurnSpec::tool_calls",
                     .default_note = "none: no tool calls"};
const Key subagents{.name = "subagents",
                    .type = KeyType::section,
                    .doc = "closed loop: turns that fork sub-agents running in parallel; the next turn waits for all "
                           "of them and appends their answers",
                    .spec = "MultiTurnSpec::subagents",
                    .default_note = "none: no sub-agents"};

}  // namespace multi_turn_keys

namespace tool_call_keys {

const Key probability{.name = "probability",
                      .type = KeyType::number,
                      .doc = "chance that a turn (not its session's last) ends with a tool call",
                      .spec = "ToolCallSpec::probability",
                      .required = true,
                      .min = 0,
                      .max = 1,
                      .why = "a probability"};
const Key duration{.name = "duration",
                   .type = KeyType::section,
                   .doc = "how long the tool runs (a duration distribution: dist fixed, uniform, exponential, "
                          "lognormal)",
                   .spec = "ToolCallSpec::duration",
                   .required = true};
const Key output_tokens{.name = "output_tokens",
                        .type = KeyType::section,
                        .doc = "tokens of the tool's output, appended to the context (a length distribution)",
                        .spec = "ToolCallSpec::output_tokens",
                        .required = true};

}  // namespace tool_call_keys

namespace subagent_keys {

const Key probability{.name = "probability",
                      .type = KeyType::number,
                      .doc = "chance that a turn (not its session's last) forks sub-agents (drawn before tool calls; "
                             "sub-agents never fork)",
                      .spec = "SubagentSpec::probability",
                      .required = true,
                      .min = 0,
                      .max = 1,
                      .why = "a probability"};
const Key count{.name = "count",
                .type = KeyType::integer,
                .doc = "sub-agents per fork, running in parallel, each with a fresh context (system prompt + a task "
                       "drawn from input_tokens)",
                .spec = "SubagentSpec::count",
                .unit = "sessions",
                .required = true,
                .min = 1,
                .max = 1024,
                .why = "parallel sub-agents of one turn"};
const Key turns{.name = "turns",
                .type = KeyType::integer,
                .doc = "turns of each sub-agent",
                .spec = "SubagentSpec::turns",
                .required = true,
                .min = 1,
                .max = 100000,
                .why = "turns of one session"};

}  // namespace subagent_keys

std::vector<const KeySection*> workload_key_sections() {
  using namespace workload_keys;
  static const KeySection workload{
      .path = "workload",
      .doc = "the requests: synthetic (arrival, input_tokens, output_tokens) or a trace to replay",
      .keys = {&seed, &requests, &duration, &hash_block_tokens, &arrival, &input_tokens, &output_tokens,
               &shared_prefix, &multi_turn, &sampling, &trace, &format, &time_scale, &patience, &lora,
               &classes_workload_key()}};
  static const KeySection prefix{.path = "workload.shared_prefix",
                                 .doc = "a system prompt shared by the requests of a group",
                                 .keys = {&shared_prefix_keys::groups, &shared_prefix_keys::tokens,
                                          &shared_prefix_keys::prompts_per_group, &shared_prefix_keys::assign}};
  static const KeySection turns{.path = "workload.multi_turn",
                                .doc = "sessions of several turns, each turn's prompt holding the earlier turns",
                                .keys = {&multi_turn_keys::turns, &multi_turn_keys::think_time,
                                         &multi_turn_keys::conversation_metrics, &multi_turn_keys::loop,
                                         &multi_turn_keys::max_turns, &multi_turn_keys::think,
                                         &multi_turn_keys::tool_calls, &multi_turn_keys::subagents}};
  static const KeySection tools{.path = "workload.multi_turn.tool_calls",
                                .doc = "closed loop: tool calls between turns (agent loops)",
                                .keys = {&tool_call_keys::probability, &tool_call_keys::duration,
                                         &tool_call_keys::output_tokens}};
  static const KeySection forks{.path = "workload.multi_turn.subagents",
                                .doc = "closed loop: parallel sub-agents forked by a turn, joined before the next",
                                .keys = {&subagent_keys::probability, &subagent_keys::count, &subagent_keys::turns}};
  static const KeySection sample{.path = "workload.sampling",
                                 .doc = "parallel sampling or beam search: the sequences each request decodes",
                                 .keys = {&sampling_keys::n, &sampling_keys::beam_width}};
  std::vector<const KeySection*> out = {&workload};
  for (const KeySection* s : arrival_key_sections()) out.push_back(s);
  for (const KeySection* s : length_key_sections()) out.push_back(s);
  out.push_back(&prefix);
  out.push_back(&turns);
  out.push_back(&tools);
  out.push_back(&forks);
  for (const KeySection* s : duration_key_sections()) out.push_back(s);
  out.push_back(&sample);
  for (const KeySection* s : patience_key_sections()) out.push_back(s);
  out.push_back(&lora_workload_key_section());
  out.push_back(&classes_key_section());
  return out;
}

}  // namespace servesim
