#pragma once
// The readers of a scenario's sections (each in its own config/read_*.cpp, next to
// the declarations of the keys it reads) and their key sections, for the scenario
// reader (read_scenario.cpp) and the key registry (keys_scenario.cpp). Internal to
// sim/config/: everything else goes through config/scenario_reader.h.
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "config/config_map.h"
#include "config/key.h"
#include "config/plan_section.h"
#include "engine/engine_config.h"
#include "metrics/slo_spec.h"
#include "scenario/autoscale_spec.h"
#include "scenario/disaggregation.h"
#include "scenario/fleet_pools.h"
#include "scenario/setup.h"

namespace servesim {

// hardware, model, parallelism and engine of `doc` (finishing each; the caller
// finishes `doc`). Resolves and validates precision and parallelism against the
// GPU and model, and max_model_len against the model.
Setup read_setup(ConfigMap& doc);
// The `engine:` mapping alone (finished); max_model_len stays 0 when absent.
EngineConfig read_engine(ConfigMap& e);
// Checks engine settings that depend on the model (read_setup calls it).
void resolve_max_model_len(ConfigMap& eng, Setup& s);
// A model with local attention cannot have both prefix caching and freed window
// blocks (not modelled): the one left at the framework's default is turned off (warned).
void resolve_local_attention_kv(ConfigMap& eng, Setup& s);
// Prefix caching off (preset default, or the file's with a model given on the command
// line) or refused (asked for) with state layers.
void resolve_state_layers(ConfigMap& eng, Setup& s, bool model_from_command_line);
// Loads engine.speculative's drafter and checks it against the target (read_setup calls it).
void resolve_speculative(ConfigMap& eng, Setup& s);
// The `parallelism:` mapping (finished), validated against the model.
void read_parallelism(ConfigMap& par, Setup& s);
// The `moe:` mapping (finished; config/read_moe.cpp), after parallelism and precision.
void read_moe(ConfigMap& m, Setup& s);
// The `slo:` mapping (finished).
SloSpec read_slo(ConfigMap& m);
// The `energy:` mapping (finished): the grid's carbon intensity, gCO2/kWh (0: unset).
double read_energy(ConfigMap& m);
// The `autoscale:` section of `root` (config/read_autoscale.cpp); unset: none.
// max_replicas: parallelism.replicas, the fleet's most.
std::optional<AutoscaleSpec> read_autoscale(ConfigMap& root, int max_replicas);
// An autoscale mapping (finished) wherever it is: the scenario's `autoscale:` or a
// disaggregation pool's. max_key names what max_replicas is read from, whose the fleet
// it scales ("the fleet's", "the prefill pool's"), for the errors.
// Where the mapping sits: the planner: sla is a disaggregated pool's only, and needs target_itl
// on the decode pool.
enum class AutoscaleRole { fleet, prefill, decode };
AutoscaleSpec read_autoscale_map(ConfigMap& m, int max_replicas, std::string_view max_key, std::string_view whose,
                                 AutoscaleRole role);
// The keys of an autoscale mapping (config/read_autoscale.cpp).
const std::vector<const Key*>& autoscale_keys();
// The `plan:` mapping (finished): `servesim plan` uses it (config/plan_reader.h);
// every other reader of a scenario checks it and leaves it.
PlanSection read_plan(ConfigMap& m);

// The top-level keys of a scenario: what `run`, `inspect` and every other reader accept.
const KeySection& scenario_top_section();
// One section per top-level mapping; its path is the mapping's key, so the readers
// and the top-level declarations take the name from here.
const KeySection& hardware_key_section();
const KeySection& model_key_section();
const KeySection& parallelism_key_section();
const KeySection& moe_key_section();
const KeySection& engine_key_section();
const KeySection& speculative_key_section();  // engine.speculative
const KeySection& slo_key_section();
const KeySection& energy_key_section();  // config/read_energy.cpp
const KeySection& autoscale_key_section();  // config/read_autoscale.cpp
const KeySection& router_weights_key_section();  // config/read_parallelism.cpp
std::vector<const KeySection*> slo_metric_key_sections();  // slo.ttft_ms, ...
const KeySection& plan_key_section();
const KeySection& plan_candidates_key_section();
// The `disaggregation:` section and its mappings (config/read_disaggregation.cpp).
const KeySection& disaggregation_key_section();
const KeySection& disaggregation_prefill_key_section();
const KeySection& disaggregation_decode_key_section();
const KeySection& disaggregation_transfer_key_section();
const KeySection& disaggregation_prefill_autoscale_key_section();
const KeySection& disaggregation_decode_autoscale_key_section();
// The `disaggregation:` mapping of `root` (finished), its pools read as setups of
// `root` with the pools' values; null when the scenario has none.
std::shared_ptr<const DisaggregationSpec> read_disaggregation(ConfigMap& root);

// The `pools:` list (config/read_pools.cpp): its top-level key, its items' keys, and
// each pool read as a setup of `root` with the pool's values; empty when none.
const Key& pools_top_key();
const KeySection& pools_key_section();
std::vector<FleetPoolSpec> read_pools(ConfigMap& root);

// A section's mapping in `parent` (whose key is the section's path).
ConfigMap section_map(ConfigMap& parent, const KeySection& s);

}  // namespace servesim
