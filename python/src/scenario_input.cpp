#include "scenario_input.h"

#include "config/edits.h"
#include "config/yaml_text.h"
#include "util/paths.h"

namespace servesim::python {

LoadedScenario load_input(const ScenarioInput& in, const std::vector<std::string>& sets) {
  LoadedScenario out;
  if (!in.path.empty()) {
    out.doc = load_yaml_file(in.path);
    out.source = in.path;
    out.text = read_text_file(in.path);
  } else {
    out.doc = parse_yaml_text(in.text, in.origin);
    out.source = in.origin;
    out.text = in.text;
  }
  for (const auto& s : sets) apply_override(out.doc, s);
  return out;
}

}  // namespace servesim::python
