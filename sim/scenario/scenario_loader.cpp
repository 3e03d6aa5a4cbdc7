#include <fmt/format.h>

#include "scenario/scenario.h"
#include "util/error.h"

namespace servesim {

Scenario parse_scenario(YAML::Node doc, const std::string& source, bool require_workload) {
  YamlMap root(doc, source);
  Scenario sc;
  sc.source = source;
  root.integer("schema_version", 1);
  root.string("name", "");
  root.string("description", "");
  static_cast<Setup&>(sc) = parse_setup(root);
  if (root.has("workload")) {
    YamlMap w = root.map("workload");
    sc.workload = parse_workload(w);
    sc.has_workload = true;
  } else if (require_workload) {
    throw Error(fmt::format("{}: missing required key 'workload'", root.where()));
  }
  YamlMap slo = root.map("slo");
  sc.slo = parse_slo(slo);
  root.finish();
  return sc;
}

Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides, bool require_workload) {
  YAML::Node doc = load_yaml_file(path);
  for (const auto& o : overrides) apply_override(doc, o);
  return parse_scenario(doc, path, require_workload);
}

}  // namespace servesim
