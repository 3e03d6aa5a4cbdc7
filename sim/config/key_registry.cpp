#include "config/key_registry.h"

namespace servesim {

const std::vector<const KeySection*>& config_sections() {
  static const std::vector<const KeySection*> all = [] {
    std::vector<const KeySection*> out;
    for (auto* part : {scenario_key_sections, workload_key_sections, catalog_key_sections})
      for (const KeySection* s : part()) out.push_back(s);
    return out;
  }();
  return all;
}

}  // namespace servesim
