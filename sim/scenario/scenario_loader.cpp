#include <fmt/format.h>

#include "scenario/scenario.h"
#include "util/error.h"
#include "config/config_ranges.h"
#include "config/edits.h"
#include "config/yaml_text.h"

namespace servesim {

Scenario parse_scenario(const ConfigNode& doc, const std::string& source, bool require_workload) {
  if (doc.is_null()) {
    throw Error(fmt::format("{}: the scenario is empty (no keys, or only comments): a scenario needs "
                            "hardware:, model:{} sections (see scenarios/quickstart.yaml)",
                            source, require_workload ? " and workload:" : ""));
  }
  ConfigMap root(doc, source);
  // Check the top-level names before reading any section: a misspelt `hardwre:` would
  // otherwise surface as "missing required key 'hardware.gpu'" without naming the typo.
  root.allow({"schema_version", "name", "description", "hardware", "model", "parallelism", "engine", "workload",
              "slo"});
  root.finish();
  Scenario sc;
  sc.source = source;
  check_schema_version(root);
  root.string("name", "");
  root.string("description", "");
  static_cast<Setup&>(sc) = parse_setup(root);
  if (root.has("workload")) {
    ConfigMap w = root.map("workload");
    sc.workload = parse_workload(w);
    sc.has_workload = true;
  } else if (require_workload) {
    throw Error(fmt::format("{}: missing required key 'workload'", root.where()));
  }
  ConfigMap slo = root.map("slo");
  sc.slo = parse_slo(slo);
  root.finish();
  return sc;
}

Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides, bool require_workload) {
  ConfigNode doc = load_yaml_file(path);
  for (const auto& o : overrides) apply_override(doc, o);
  return parse_scenario(doc, path, require_workload);
}

}  // namespace servesim
