#pragma once
// Mistral's params.json (its own checkpoint format) as the Hugging Face config.json vLLM
// builds from it (mistral_params.cpp says what maps to what).
#include <string>

#include <nlohmann/json.hpp>

namespace servesim {

// `params` read from `path`; throws servesim::Error naming `path` for what it cannot map.
nlohmann::json mistral_params_to_hf(const nlohmann::json& params, const std::string& path);

}  // namespace servesim
