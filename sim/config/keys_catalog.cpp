#include "config/catalog_keys.h"
#include "config/key_registry.h"

namespace servesim {

std::vector<const KeySection*> catalog_key_sections() {
  std::vector<const KeySection*> out;
  for (auto* part : {gpu_file_key_sections, gpu_override_key_sections, model_file_key_sections})
    for (const KeySection* s : part()) out.push_back(s);
  return out;
}

}  // namespace servesim
