// The scenario's own sections, in the order a scenario file writes them; each
// section is declared next to its reader (config/read_*.cpp).
#include "config/key_registry.h"
#include "config/scenario_sections.h"

namespace servesim {

std::vector<const KeySection*> scenario_key_sections() {
  std::vector<const KeySection*> out{&scenario_top_section()};
  for (const KeySection* s : setup_key_sections()) out.push_back(s);
  out.push_back(&parallelism_key_section());
  out.push_back(&engine_key_section());
  for (const KeySection* s : slo_key_sections()) out.push_back(s);
  for (const KeySection* s : plan_key_sections()) out.push_back(s);
  return out;
}

}  // namespace servesim
