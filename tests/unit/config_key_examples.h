#pragma once
// Helpers of test_config_keys.cpp: where the key sections of the registry
// (config_sections()) sit in a document, and documents built from the declarations
// that set one declared key to a valid example value, so a test can check that
// the loader reads every key it describes.
//
// Section paths follow the registry's naming: a scenario's keys are under their
// dotted path ("" is the top level, "workload.arrival"), a GPU file's under
// "(gpu file)" and a model file's under "(model file)" ("(model file).attention");
// the mappings of a list ("workload.arrival.stages") share the list's path; a
// variant section applies when its selector key (as written, else its declared
// default) has the variant's value.
#include <string>
#include <string_view>
#include <vector>

#include "config/config_node.h"
#include "config/key.h"

namespace servesim::testing {

enum class DocKind { scenario, gpu, model };

// The root section path of a kind of document: "", "(gpu file)", "(model file)".
std::string_view root_path(DocKind kind);
DocKind kind_of(const KeySection& s);
std::string child_path(std::string_view parent, std::string_view name);

// The sections at `path` that describe `mapping`: the plain ones and the variant
// its selector picks.
std::vector<const KeySection*> sections_for(std::string_view path, const ConfigNode& mapping);
bool has_section(std::string_view path);
const Key* find_key(const std::vector<const KeySection*>& sections, std::string_view name);

// One shipped document and the file it came from.
struct ShippedDoc {
  std::string file;
  ConfigNode doc;
};
// Every document of the shipped scenarios (scenarios/*.yaml, each `---` document),
// GPU files (hardware/*.yaml, hardware/calibrated/*.yaml) or model files (models/*.yaml).
const std::vector<ShippedDoc>& shipped_docs(DocKind kind);

// Values of key `k` to try, best first: as a seed mapping (below) or a shipped file
// writes it (in the form `s` reads, then in any form), then derived from its
// declaration (default, bounds, choices).
std::vector<ConfigNode> example_values(const KeySection& s, const Key& k);

// The forms of the mapping `s` describes that with_value() builds: 0 is the base
// document's own (made where absent); 1 and up are rebuilt from the declarations
// alone, one per seed of that path (a trace replay's `workload`, a stage with
// `requests` and one without) or, without seeds, from the required keys.
int mapping_forms(const KeySection& s);

// A copy of `base` in which the mapping `s` describes exists in the form `s` reads
// (intermediate mappings made, the variant's selector set, required keys given),
// built as `form` says, and key `k` of it is `value`.
ConfigNode with_value(const ConfigNode& base, const KeySection& s, const Key& k, const ConfigNode& value, int form);

}  // namespace servesim::testing
