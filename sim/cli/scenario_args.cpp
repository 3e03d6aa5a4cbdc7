#include "cli/scenario_args.h"

#include "util/yaml_map.h"

namespace servesim::cli {

YAML::Node load_document(const std::string& path, const std::vector<std::string>& overrides) {
  YAML::Node doc = path.empty() ? YAML::Node(YAML::NodeType::Map) : load_yaml_file(path);
  for (const auto& o : overrides) apply_override(doc, o);
  return doc;
}

}  // namespace servesim::cli
