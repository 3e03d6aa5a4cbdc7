// The scenario's own sections, in the order a scenario file writes them; each
// section is declared next to its reader (config/read_*.cpp).
#include "config/classes_reader.h"
#include "config/key_registry.h"
#include "config/kv_tiers_reader.h"
#include "config/local_engine.h"
#include "config/lora_reader.h"
#include "config/scenario_sections.h"

namespace servesim {

std::vector<const KeySection*> scenario_key_sections() {
  std::vector<const KeySection*> out{&scenario_top_section(),     &hardware_key_section(),
                                     &model_key_section(),        &parallelism_key_section(),
                                     &router_weights_key_section(),
                                     &moe_key_section(),
                                     &engine_key_section(),       &kv_tiers_key_section(),
                                     &speculative_key_section(),  &lora_engine_key_section(),
                                     &llama_cpp_key_section(),    &llama_cpp_kernels_key_section(),
                                     &transformers_key_section(),
                                     &slo_key_section()};
  for (const KeySection* s : slo_metric_key_sections()) out.push_back(s);
  out.push_back(&energy_key_section());
  out.push_back(&pools_key_section());
  out.push_back(&autoscale_key_section());
  out.push_back(&gateway_key_section());
  out.push_back(&plan_key_section());
  out.push_back(&plan_candidates_key_section());
  for (const KeySection* s : {&disaggregation_key_section(), &disaggregation_prefill_key_section(),
                              &disaggregation_decode_key_section(), &disaggregation_transfer_key_section(),
                              &disaggregation_prefill_autoscale_key_section(),
                              &disaggregation_decode_autoscale_key_section()})
    out.push_back(s);
  return out;
}

}  // namespace servesim
