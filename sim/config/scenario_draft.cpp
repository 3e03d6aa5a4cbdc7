#include "config/scenario_draft.h"

#include "config/scenario_reader.h"
#include "config/yaml_text.h"
#include "util/interrupt.h"

namespace servesim {

ScenarioDraft ScenarioDraft::edited(const std::vector<ConfigEdit>& edits) const {
  ScenarioDraft d = *this;
  apply_edits(d.doc, edits);
  return d;
}

ScenarioDraft load_draft(const std::string& path, const std::vector<ConfigEdit>& edits) {
  ScenarioDraft d{path.empty() ? ConfigNode::map() : load_yaml_file(path), path};
  apply_edits(d.doc, edits);
  return d;
}

Resolution resolve(const ScenarioDraft& draft, bool require_workload) {
  Resolution r;
  try {
    r.scenario = parse_scenario(draft.doc, draft.source, require_workload);
  } catch (const Interrupted&) {
    throw;  // Ctrl-C stops the whole run, not just this draft
  } catch (const ConfigError& e) {
    r.reason = e.what();
    r.error_kind = e.kind();
    r.error_key = e.key_path();
  } catch (const Error& e) {
    r.reason = e.what();
  }
  return r;
}

}  // namespace servesim
