#pragma once
#include <string>
#include <vector>

#include "model/model_spec.h"

namespace servesim {

// The shipped model catalog (models/*.yaml). Reading a model file is
// config/catalog_reader.h's load_model.
std::vector<std::string> model_catalog_names();
// Cross-field checks shared by both loaders (heads divisible by kv_heads, ...).
void validate_model(const ModelSpec& m, const std::string& where);

// Imports a Hugging Face config.json; unsupported architectures and missing
// fields are errors naming the file and the field.
ModelSpec import_hf_config(const std::string& path);

}  // namespace servesim
