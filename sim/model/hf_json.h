#pragma once
// JSON as Hugging Face writes it. transformers saves configs with Python's json module,
// which writes the non-finite floats as bare Infinity, -Infinity and NaN (Nemotron-H's
// "time_step_limit": [0.0, Infinity]); strict JSON, and nlohmann, refuse them. They are read
// here as the strings "Infinity", "-Infinity" and "NaN": a field servesim never reads loads,
// and one it reads as a number is refused naming the field and the value it got. Anything
// else that is not JSON stays an error naming the file (util/json_file.h).
#include <nlohmann/json.hpp>

#include <string>

namespace servesim {

// The text with bare Infinity / -Infinity / NaN tokens outside strings quoted.
std::string quote_nonfinite_json_tokens(const std::string& text);

// read_json_file for a Hugging Face config (config.json, hf_quant_config.json).
nlohmann::json read_hf_json_file(const std::string& path);

}  // namespace servesim
