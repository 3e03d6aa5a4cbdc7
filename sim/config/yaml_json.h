#pragma once
// A YAML file as a JSON value, for result files of other tools that may be saved as
// YAML (GuideLLM reports): mappings become objects, sequences arrays; an unquoted
// scalar that reads as an integer or a finite number becomes one, null/~/empty null,
// true/false booleans; quoted scalars and everything else strings. Errors as
// load_yaml_file's (file:line:col).
#include <nlohmann/json.hpp>
#include <string>

namespace servesim {

nlohmann::json load_yaml_as_json(const std::string& path);

}  // namespace servesim
