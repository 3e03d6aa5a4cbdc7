// The `parallelism:` section of a scenario: each key declared once (defaults from
// Parallelism's and Setup's members) and read through its declaration.
#include <fmt/format.h>

#include <string>

#include "config/scenario_sections.h"
#include "engine/router.h"
#include "util/error.h"

namespace servesim {
namespace {

const Parallelism kDefaults{};

// No model has more than 1024 attention heads or layers to split; each replica is
// simulated with its own engine and KV cache, so their number bounds the run's memory.
constexpr double kMaxDegree = 1024;
constexpr double kMaxReplicas = 10'000;

const Key kTp{
    .name = "tp",
    .type = KeyType::integer,
    .doc = "tensor-parallel GPUs per replica: heads and FFN split, two all-reduces a layer (vLLM "
           "--tensor-parallel-size)",
    .spec = "Parallelism::tp",
    .unit = "GPUs",
    .default_number = static_cast<double>(kDefaults.tp),
    .min = 1,
    .max = kMaxDegree,
    .why = "GPUs in a tensor-parallel group",
};
const Key kPp{
    .name = "pp",
    .type = KeyType::integer,
    .doc = "pipeline stages per replica, layers split between them (vLLM --pipeline-parallel-size)",
    .spec = "Parallelism::pp",
    .unit = "stages",
    .default_number = static_cast<double>(kDefaults.pp),
    .min = 1,
    .max = kMaxDegree,
    .why = "pipeline stages",
};
const Key kEp{
    .name = "ep",
    .type = KeyType::integer,
    .doc = "expert-parallel GPUs (MoE experts split across ep of the tp ranks; vLLM --enable-expert-parallel)",
    .spec = "Parallelism::ep",
    .unit = "GPUs",
    .default_number = static_cast<double>(kDefaults.ep),
    .min = 1,
    .max = kMaxDegree,
    .why = "GPUs in an expert-parallel group",
};
const Key kReplicas{
    .name = "replicas",
    .type = KeyType::integer,
    .doc = "data-parallel copies of the model behind a router (vLLM --data-parallel-size)",
    .spec = "Parallelism::replicas",
    .unit = "replicas",
    .default_number = static_cast<double>(kDefaults.replicas),
    .min = 1,
    .max = kMaxReplicas,
    .why = "each replica is simulated with its own engine and KV cache",
};

// The router names as the engine's registry lists them, kept alive for the
// declaration's string_views.
const std::vector<std::string>& router_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& [name, what] : router_registry()) out.push_back(name);
    return out;
  }();
  return names;
}

std::string_view default_router_name() {
  for (const auto& name : router_names())
    if (parse_router(name, "") == Setup{}.router) return name;
  return {};
}

const Key kRouter{
    .name = "router",
    .type = KeyType::choice,
    .doc = "how requests are spread over replicas (see `servesim list routers`)",
    .spec = "Setup::router",
    .default_text = default_router_name(),
    .choices = {router_names().begin(), router_names().end()},
};

}  // namespace

const KeySection& parallelism_key_section() {
  static const KeySection s{
      .path = "parallelism",
      .doc = "how one replica is split across GPUs, and how many replicas serve",
      .keys = {&kTp, &kPp, &kEp, &kReplicas, &kRouter},
  };
  return s;
}

void read_parallelism(ConfigMap& par, Setup& s) {
  // Range-checked before the cast to int.
  s.parallelism.tp = static_cast<int>(read_integer(par, kTp));
  s.parallelism.pp = static_cast<int>(read_integer(par, kPp));
  s.parallelism.ep = static_cast<int>(read_integer(par, kEp));
  s.parallelism.replicas = static_cast<int>(read_integer(par, kReplicas));
  s.router = parse_router(read_text(par, kRouter), par.where(std::string(kRouter.name)));
  try {
    validate_parallelism(s.parallelism, s.model);
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", par.where(), e.what()));
  }
  par.finish();
}

}  // namespace servesim
