#include "cli/scenario_args.h"

#include "config/config_map.h"
#include "config/edits.h"
#include "config/yaml_text.h"

namespace servesim::cli {

ConfigNode load_document(const std::string& path, const std::vector<std::string>& overrides) {
  ConfigNode doc = path.empty() ? ConfigNode::map() : load_yaml_file(path);
  for (const auto& o : overrides) apply_override(doc, o);
  return doc;
}

}  // namespace servesim::cli
