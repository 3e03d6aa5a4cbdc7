#pragma once
#include <string>
#include <vector>

#include "model/model_spec.h"
#include "config/config_map.h"

namespace servesim {

// A catalog name ("llama-3.1-8b"), a path to a model YAML, or a path to a Hugging
// Face config.json. Unknown names list the valid ones.
ModelSpec load_model(const std::string& name_or_path);
ModelSpec parse_model(ConfigMap& doc);
std::vector<std::string> model_catalog_names();
// Cross-field checks shared by both loaders (heads divisible by kv_heads, ...).
void validate_model(const ModelSpec& m, const std::string& where);

// Imports a Hugging Face config.json; unsupported architectures and missing
// fields are errors naming the file and the field.
ModelSpec import_hf_config(const std::string& path);

}  // namespace servesim
