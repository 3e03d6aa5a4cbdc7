// A scenario's top level: its keys declared once (the one list `run`, `inspect`
// and every other reader accept), and the reader that reads each section. A
// section's key is named by its KeySection's path, so the two cannot drift.
#include <fmt/format.h>

#include "config/config_ranges.h"
#include "config/edits.h"
#include "config/classes_reader.h"
#include "config/lora_reader.h"
#include "config/scenario_reader.h"
#include "config/scenario_sections.h"
#include "config/schema_version.h"
#include "config/workload_reader.h"
#include "config/yaml_text.h"
#include "util/error.h"

namespace servesim {
namespace {

const Key kName{
    .name = "name",
    .type = KeyType::text,
    .doc = "a name for the scenario (not used by the simulation)",
    .spec = "(not stored)",
};
const Key kDescription{
    .name = "description",
    .type = KeyType::text,
    .doc = "what the scenario is for (not used by the simulation)",
    .spec = "(not stored)",
};
const Key kHardware{
    .name = hardware_key_section().path,
    .type = KeyType::section,
    .doc = "the GPU",
    .spec = "Setup::gpu",
    .required = true,
};
const Key kModel{
    .name = model_key_section().path,
    .type = KeyType::section,
    .doc = "the model and its precision",
    .spec = "Setup::model, Setup::precision",
    .required = true,
};
const Key kParallelism{
    .name = parallelism_key_section().path,
    .type = KeyType::section,
    .doc = "tensor, pipeline and expert parallelism, replicas and their router",
    .spec = "Setup::parallelism, Setup::router",
};
const Key kMoe{
    .name = moe_key_section().path,
    .type = KeyType::section,
    .doc = "how a mixture-of-experts model's experts run across a wide layout: all-to-all kernels, overlap, load "
           "balance",
    .spec = "Setup::moe",
};
const Key kEngine{
    .name = engine_key_section().path,
    .type = KeyType::section,
    .doc = "the serving engine's settings",
    .spec = "Setup::engine",
};
const Key kWorkload{
    .name = "workload",
    .type = KeyType::section,
    .doc = "the requests: synthetic (arrival process, length distributions) or a trace; `inspect` ignores it",
    .spec = "Scenario::workload",
    .required = true,
};
const Key kSlo{
    .name = slo_key_section().path,
    .type = KeyType::section,
    .doc = "service-level objectives the run is judged against",
    .spec = "Scenario::slo",
};

const Key kEnergy{
    .name = energy_key_section().path,
    .type = KeyType::section,
    .doc = "the electricity the GPUs draw (grid carbon intensity)",
    .spec = "Scenario::grid_g_per_kwh",
};

const Key kAutoscale{
    .name = autoscale_key_section().path,
    .type = KeyType::section,
    .doc = "a fleet whose replica count follows the load (parallelism.replicas is its most)",
    .spec = "Scenario::autoscale",
};

const Key kPlan{
    .name = plan_key_section().path,
    .type = KeyType::section,
    .doc = "candidates and targets for `servesim plan` (also accepted as a second YAML document); checked, not "
           "used, by every other command",
    .spec = "PlanSection",
};

const Key kDisaggregation{
    .name = disaggregation_key_section().path,
    .type = KeyType::section,
    .doc = "prefill/decode disaggregation: separate prefill and decode pools and the KV link between them",
    .spec = "Scenario::disaggregation",
};

const Key kGateway{
    .name = gateway_key_section().path,
    .type = KeyType::section,
    .doc = "flow control in front of the replicas (run/gateway.h): while every replica is saturated, requests wait "
           "at the gateway by priority and sheddable ones are dropped",
    .spec = "Scenario::gateway",
    .default_note = "none: every request goes straight to the router",
};

const std::vector<const Key*>& top_keys() {
  static const std::vector<const Key*> keys = {&schema_version_key(), &kName,   &kDescription, &kHardware, &kModel,
                                               &kParallelism,         &kMoe,    &kEngine, &kWorkload,    &kSlo,      &kEnergy,
                                               &kAutoscale, &kGateway, &kPlan, &kDisaggregation, &pools_top_key()};
  return keys;
}

// Checks the top-level names before reading any section: a misspelt `hardwre:`
// would otherwise surface as "missing required key 'hardware.gpu'" without naming
// the typo. Then checks the schema version and reads the keys that are only text.
void read_top_level(ConfigMap& root) {
  std::vector<std::string> names;
  for (const Key* k : top_keys()) names.emplace_back(k->name);
  root.allow(names);
  root.finish();
  check_schema_version(root);
  read_text(root, kName);
  read_text(root, kDescription);
}

// A heterogeneous fleet (pools:) sizes the fleet; what it is not modelled with is refused.
// (LoRA adapters are: each pool's setup carries engine.lora, its slots and load times its own.)
void check_pools(ConfigMap& root, Scenario& sc) {
  if (sc.pools.empty()) return;
  const std::string where = root.where(std::string(pools_top_key().name));
  if (sc.disaggregation)
    throw Error(fmt::format("{}: pools (a heterogeneous co-located fleet) with disaggregation is not modelled; "
                            "give each disaggregation pool its own gpu instead, or remove one of the two",
                            where));
  // A pool's own max_lora_rank must hold the adapters as the scenario's must (check_lora_workload).
  if (sc.workload.lora) {
    const ConfigNode* list = root.get(std::string(pools_top_key().name));
    for (std::size_t i = 0; i < sc.pools.size() && list; ++i) {
      const std::int64_t rank = sc.pools[i].setup.engine.lora.max_lora_rank;
      if (sc.workload.lora->rank <= rank) continue;
      ConfigMap item(list->items()[i], root.file(), fmt::format("{}[{}]", pools_top_key().name, i));
      throw Error(fmt::format("{}: adapters of rank {} do not fit this pool's max_lora_rank = {} (vLLM refuses them: "
                              "\"LoRA rank {} is greater than max_lora_rank\"); raise it",
                              item.where("max_lora_rank"), sc.workload.lora->rank, rank, sc.workload.lora->rank));
    }
  }
  int replicas = 0;
  for (const FleetPoolSpec& p : sc.pools) replicas += p.setup.parallelism.replicas;
  if (replicas > 100000)
    throw Error(fmt::format("{}: {} replicas in all; at most 100000", where, replicas));
  sc.parallelism.replicas = replicas;
}

void reject_empty(const ConfigNode& doc, const std::string& source, bool require_workload) {
  if (doc.is_null())
    throw Error(fmt::format("{}: the scenario is empty (no keys, or only comments): a scenario needs "
                            "hardware:, model:{} sections (see scenarios/quickstart.yaml)",
                            source, require_workload ? " and workload:" : ""));
}

}  // namespace

const KeySection& scenario_top_section() {
  static const KeySection s{
      .path = "",  // the document root: key paths are the bare names
      .doc = "a scenario file's top level",
      .keys = top_keys(),
  };
  return s;
}

Scenario parse_scenario(const ConfigNode& doc, const std::string& source, bool require_workload) {
  reject_empty(doc, source, require_workload);
  ConfigMap root(doc, source);
  Scenario sc;
  sc.source = source;
  read_top_level(root);
  static_cast<Setup&>(sc) = read_setup(root);
  const std::string workload(kWorkload.name);
  if (root.has(workload)) {
    ConfigMap w = root.map(workload);
    sc.workload = parse_workload(w, &sc.class_slos);
    check_sampling_engine(w, sc.workload.sampling, sc.engine);
    check_lora_workload(w, sc);
    sc.has_workload = true;
  } else if (require_workload) {
    throw Error(fmt::format("{}: missing required key 'workload'", root.where()));
  }
  ConfigMap slo = section_map(root, slo_key_section());
  sc.slo = read_slo(slo);
  ConfigMap energy = section_map(root, energy_key_section());
  sc.grid_g_per_kwh = read_energy(energy);
  sc.disaggregation = read_disaggregation(root);
  check_lora_disaggregation(root, sc);
  sc.pools = read_pools(root);
  check_pools(root, sc);
  sc.autoscale = read_autoscale(root, sc.parallelism.replicas);
  sc.gateway = read_gateway(root);
  check_classes_and_gateway(root, sc);
  if (sc.autoscale && sc.disaggregation)
    throw Error(fmt::format("{}: a disaggregated deployment scales each pool on its own signals (prefill on "
                            "TTFT or its queue, decode on KV use or concurrency): move this section to "
                            "disaggregation.prefill.autoscale and/or disaggregation.decode.autoscale",
                            root.where(std::string(autoscale_key_section().path))));
  // `plan` removes its section before this; any other command checks it, so a
  // misspelt plan key is caught whichever command reads the file first.
  ConfigMap plan = section_map(root, plan_key_section());
  read_plan(plan);
  root.finish();
  return sc;
}

Setup parse_setup_only(const ConfigNode& doc, const std::string& source) {
  ConfigMap root(doc, source);
  read_top_level(root);
  return read_setup(root);
}

Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides, bool require_workload) {
  ConfigNode doc = load_yaml_file(path);
  for (const auto& o : overrides) apply_override(doc, o);
  return parse_scenario(doc, path, require_workload);
}

}  // namespace servesim
