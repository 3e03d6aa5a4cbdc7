#pragma once
// Reading the scenario's `workload:` mapping into the plain spec structs of
// sim/workload/ (WorkloadSpec, ArrivalSpec, LengthSpec, ...). Every key is read
// through its declaration (config/workload_keys.h); every mapping is finish()ed,
// so an unknown key is an error with its location and a did-you-mean.
#include "config/config_map.h"
#include <optional>
#include <vector>

#include "engine/engine_config.h"
#include "metrics/slo_spec.h"
#include "workload/workload_spec.h"

namespace servesim {

// Reads `workload:` and every mapping inside. Throws servesim::Error with the
// location for bad values, when nothing bounds a synthetic run (a poisson, gamma,
// constant or closed_loop process with neither requests nor duration; all_at_once
// without requests), when a trace is combined with synthetic keys, and when the
// trace file does not exist. (config/read_workload.cpp)
// `class_slos`, when given, receives each workload.classes entry's own SLO (unset: none).
WorkloadSpec parse_workload(ConfigMap& m, std::vector<std::optional<SloSpec>>* class_slos = nullptr);

// workload.sampling against the engine (`m`: the workload mapping): parallel
// sampling and beam search need the vllm engine, no speculative decoding, and at
// most engine.max_num_seqs sequences per request. (config/read_workload.cpp)
void check_sampling_engine(ConfigMap& m, const SamplingSpec& s, const EngineConfig& e);

// The trace keys of `workload:` (trace, format, time_scale) when `trace` is set;
// refuses the synthetic keys beside it. (config/read_trace.cpp)
TraceSpec parse_trace(ConfigMap& workload);

// Reads an `arrival:` mapping (and each stage's). Throws at the offending key for
// an unknown process (did-you-mean), a rate, cv or user count out of range, an
// empty stage list, or a stage with no (or a zero) length. (config/read_arrival.cpp)
ArrivalSpec parse_arrival(ConfigMap& m);

// Reads a length mapping (`input_tokens`, `output_tokens`). Throws at the
// offending key for an unknown `dist` (did-you-mean), a length out of range,
// min > max, or a mean or value that clipping to [min, max] could never give.
// (config/read_lengths.cpp)
LengthSpec parse_length_distribution(ConfigMap& m);

// Reads `patience:` (workload/patience.h). Throws at the offending key for an
// unknown `dist`, a time out of range or min > max. (config/read_patience.cpp)
PatienceSpec parse_patience(ConfigMap& m);

// Reads `lora:` (workload/lora_adapters.h). Throws at the offending key for a count,
// rank or share out of range, or zipf_s without zipf popularity. (config/read_lora.cpp)
LoraWorkloadSpec parse_lora_workload(ConfigMap& m);

// Reads a duration mapping (`multi_turn.think`, `tool_calls.duration`). Throws at
// the offending key for an unknown `dist`, a time out of range or min > max.
// (config/read_duration.cpp)
DurationSpec parse_duration_distribution(ConfigMap& m);

}  // namespace servesim
