// The scenario's `workload:` mapping: its own keys, then either a trace
// (config/read_trace.cpp) or the synthetic sections (arrival, lengths,
// shared_prefix, multi_turn), then the limits that involve several keys.
#include <fmt/format.h>

#include "config/workload_keys.h"
#include "config/workload_limits.h"
#include "config/classes_reader.h"
#include "config/workload_reader.h"
#include "util/error.h"

namespace servesim {
namespace {

// A required section, whose absence is reported with an example of it.
ConfigMap required_map(ConfigMap& m, const Key& key, const char* example) {
  const std::string name(key.name);
  if (!has_key(m, key))
    throw Error(fmt::format("{}: missing required key '{}' (e.g. {}: {})", m.where(), m.key_path(name), name,
                            example));
  return m.map(name);
}

SharedPrefixSpec read_shared_prefix(ConfigMap& sp) {
  using namespace shared_prefix_keys;
  SharedPrefixSpec s;
  s.groups = read_integer(sp, groups);
  s.tokens = read_integer(sp, tokens);
  if (has_key(sp, prompts_per_group)) {
    s.prompts_per_group = read_integer(sp, prompts_per_group);
    if (s.groups > kMaxSharedPrompts / s.prompts_per_group)
      throw Error(fmt::format("{}: groups * prompts_per_group must be at most 10,000,000", sp.where()));
  }
  s.random_assign = read_choice(sp, assign) == "random";
  sp.finish();
  return s;
}

ToolCallSpec read_tool_calls(ConfigMap& m) {
  using namespace tool_call_keys;
  ToolCallSpec t;
  t.probability = read_number(m, probability);
  ConfigMap d = required_map(m, duration, "{dist: lognormal, mean: \"2 s\", stddev: \"1 s\"}");
  t.duration = parse_duration_distribution(d);
  ConfigMap o = required_map(m, output_tokens, "{dist: lognormal, mean: 800, stddev: 400}");
  t.output_tokens = parse_length_distribution(o);
  m.finish();
  return t;
}

SubagentSpec read_subagents(ConfigMap& m) {
  using namespace subagent_keys;
  SubagentSpec s;
  s.probability = read_number(m, probability);
  s.count = read_integer(m, count);
  s.turns = read_integer(m, turns);
  m.finish();
  return s;
}

MultiTurnSpec read_multi_turn(ConfigMap& mt, const WorkloadSpec& w) {
  using namespace multi_turn_keys;
  MultiTurnSpec t;
  t.turns = read_integer(mt, turns);
  t.conversation_metrics = read_boolean(mt, conversation_metrics);
  t.closed = read_choice(mt, loop) == "closed";
  const bool closed = w.arrival.kind == ArrivalKind::closed_loop;
  if (closed && t.closed)
    throw Error(fmt::format("{}: loop: closed is for arrival processes that start sessions (poisson, gamma, constant, "
                            "multi_stage); with a closed_loop arrival each user's turns already follow their answers "
                            "(remove loop)",
                            where(mt, loop)));
  if (!t.closed) {
    for (const Key* k : {&max_turns, &think, &tool_calls, &subagents})
      if (has_key(mt, *k))
        throw Error(fmt::format("{}: only with loop: closed (turns that follow their answers); the open loop sends "
                                "every turn think_time after the previous one's arrival",
                                where(mt, *k)));
  }
  if (closed && has_key(mt, think_time))
    throw Error(fmt::format("{}: with a closed_loop arrival the time between turns is arrival.think_time "
                            "(from each completion); remove multi_turn.think_time",
                            where(mt, think_time)));
  if (t.closed) {
    if (has_key(mt, think_time) == has_key(mt, think))
      throw Error(fmt::format("{}: with loop: closed give the user's think time before each later turn, either "
                              "think_time (fixed, e.g. think_time: \"5 s\") or think (a distribution, e.g. think: "
                              "{{dist: exponential, mean: \"5 s\"}}), not {}",
                              mt.where(), has_key(mt, think) ? "both" : "neither"));
    if (has_key(mt, think_time)) t.think_time_s = read_quantity(mt, think_time);
    else {
      ConfigMap th = mt.map(std::string(think.name));
      t.think = parse_duration_distribution(th);
    }
    if (has_key(mt, max_turns)) {
      t.max_turns = read_integer(mt, max_turns);
      if (t.max_turns < t.turns)
        throw Error(fmt::format("{}: max_turns ({}) is below turns ({}): a session's turns are uniform on [turns, "
                                "max_turns]",
                                where(mt, max_turns), t.max_turns, t.turns));
    }
    if (has_key(mt, tool_calls)) {
      ConfigMap tc = mt.map(std::string(tool_calls.name));
      t.tool_calls = read_tool_calls(tc);
    }
    if (has_key(mt, subagents)) {
      ConfigMap sa = mt.map(std::string(subagents.name));
      t.subagents = read_subagents(sa);
    }
    const double p = (t.tool_calls ? t.tool_calls->probability : 0.0) + (t.subagents ? t.subagents->probability : 0.0);
    if (p > 1.0)
      throw Error(fmt::format("{}: subagents.probability + tool_calls.probability = {:g} is above 1 (what follows a "
                              "turn is one of a fork, a tool call or the user's next question)",
                              mt.where(), p));
  } else if (!closed) {
    if (!has_key(mt, think_time))
      throw Error(fmt::format("{}: missing required key '{}' (seconds from one turn's arrival to the next, "
                              "e.g. think_time: \"5 s\")",
                              mt.where(), mt.key_path(std::string(think_time.name))));
    t.think_time_s = read_quantity(mt, think_time);
  }
  mt.finish();
  if (w.arrival.kind == ArrivalKind::all_at_once)
    throw Error(fmt::format("{}: multi_turn needs arrivals that start sessions over time (poisson, gamma, "
                            "constant, multi_stage or closed_loop), not all_at_once",
                            mt.where()));
  if (w.shared_prefix && w.shared_prefix->prompts_per_group > 0)
    throw Error(fmt::format("{}: shared_prefix.prompts_per_group cannot be combined with multi_turn (each turn "
                            "asks a new question)",
                            mt.where()));
  return t;
}

// workload.sampling: parallel samples or beams, not both (vLLM V0 returns the n
// best of best_of beams, which costs what the beams cost: set beam_width alone).
SamplingSpec read_sampling(ConfigMap& sm) {
  using namespace sampling_keys;
  SamplingSpec s;
  s.n = read_integer(sm, n);
  s.beam_width = read_integer(sm, beam_width);
  sm.finish();
  if (s.n > 1 && s.beam_width > 1)
    throw Error(fmt::format("{}: set n (parallel sampling) or beam_width (beam search), not both: returning the n "
                            "best of {} beams costs what the beams cost, so give beam_width alone",
                            sm.where(), s.beam_width));
  return s;
}

}  // namespace

void check_sampling_engine(ConfigMap& m, const SamplingSpec& s, const EngineConfig& e) {
  if (s.single()) return;
  const std::string at = where(m, workload_keys::sampling);
  const char* what = s.beam() ? "beam search" : "parallel sampling";
  if (s.beam() && e.beam_search == BeamSearchImpl::unsupported) {
    const FrameworkPreset* preset = find_framework_preset(e.framework);
    throw Error(fmt::format("{}: framework {} has no beam search ({}); use parallel sampling (n) or another framework",
                            at, e.framework, preset ? preset->beam_search_source : std::string_view("")));
  }
  if (e.kind != "vllm")
    throw Error(fmt::format("{}: {} is modelled by the vllm engine (paged KV blocks shared copy-on-write), not "
                            "engine.kind {}",
                            at, what, e.kind));
  if (e.speculative.enabled())
    throw Error(fmt::format("{}: {} with speculative decoding (engine.speculative) is not modelled; leave one out",
                            at, what));
  if (s.sequences() > e.max_num_seqs)
    throw Error(fmt::format("{}: {} sequences per request cannot run beside each other within engine.max_num_seqs = "
                            "{} (a request's sequences decode in the same step); raise max_num_seqs",
                            at, s.sequences(), e.max_num_seqs));
}

WorkloadSpec parse_workload(ConfigMap& m, std::vector<std::optional<SloSpec>>* class_slos) {
  using namespace workload_keys;
  WorkloadSpec w;
  w.seed = static_cast<std::uint64_t>(read_integer(m, seed));
  if (has_key(m, requests)) w.requests = read_integer(m, requests);
  if (has_key(m, duration)) w.duration_s = read_quantity(m, duration);
  if (has_key(m, hash_block_tokens))
    w.hash_block_tokens = static_cast<std::int32_t>(read_integer(m, hash_block_tokens));
  if (has_key(m, sampling)) {
    ConfigMap sm = m.map(std::string(sampling.name));
    w.sampling = read_sampling(sm);
  }

  if (has_key(m, patience)) {
    ConfigMap p = m.map(std::string(patience.name));
    w.patience = parse_patience(p);
  }
  if (has_key(m, lora)) {
    ConfigMap l = m.map(std::string(lora.name));
    w.lora = parse_lora_workload(l);
  }
  w.classes = read_classes(m, class_slos);

  if (has_key(m, trace)) {
    w.trace = parse_trace(m);
    m.finish();
    ConfigMap no_arrival(empty_config_map(), m.file(), m.key_path(std::string(arrival.name)));
    check_workload_limits(m, no_arrival, w);
    return w;
  }
  for (const Key* k : {&format, &time_scale}) {
    if (has_key(m, *k))
      throw Error(fmt::format("{}: only used with workload.trace (a trace file to replay)", where(m, *k)));
  }

  ConfigMap arrival_map = required_map(m, arrival, "{process: poisson, rate: 8}");
  w.arrival = parse_arrival(arrival_map);
  ConfigMap input = required_map(m, input_tokens, "{dist: lognormal, mean: 1024, stddev: 512}");
  w.input_tokens = parse_length_distribution(input);
  ConfigMap output = required_map(m, output_tokens, "{dist: uniform, min: 64, max: 512}");
  w.output_tokens = parse_length_distribution(output);
  if (has_key(m, shared_prefix)) {
    ConfigMap sp = m.map(std::string(shared_prefix.name));
    w.shared_prefix = read_shared_prefix(sp);
  }
  if (has_key(m, multi_turn)) {
    ConfigMap mt = m.map(std::string(multi_turn.name));
    w.multi_turn = read_multi_turn(mt, w);
  }
  m.finish();

  // Only now, so that a misspelt 'requests' is reported as such first.
  if (w.arrival.kind == ArrivalKind::all_at_once && w.requests < 0)
    throw Error(fmt::format("{}: all_at_once needs workload.requests (how many arrive at t = 0)",
                            arrival_map.where()));
  if (w.requests < 0 && !w.duration_s && !arrival_ends(w.arrival))
    throw Error(fmt::format("{}: arrival process '{}' never ends by itself: set workload.requests or "
                            "workload.duration",
                            arrival_map.where(), describe_arrival(w.arrival)));
  check_workload_limits(m, arrival_map, w);
  return w;
}

}  // namespace servesim
