#pragma once
// What hf_legacy_families.cpp (the Llama-like legacy families and the dispatch) and
// hf_gpt_line_families.cpp (the GPT-2 line) share; not for other readers.
#include <cstdint>

#include <nlohmann/json.hpp>

#include "model/hf_config_fields.h"
#include "model/hf_families.h"
#include "model/model_spec.h"

namespace servesim::legacy {

// `own` copied under `common` where the config gives only its own name.
void alias(nlohmann::json& t, const char* own, const char* common);
// The context length under the names vLLM also reads (n_positions, max_seq_len, seq_length,
// model_max_length, max_sequence_length) copied to max_position_embeddings.
void alias_context(nlohmann::json& t);
// Refuses a dense MLP width that is not positive, naming the config's key for it.
void require_ffn(const JsonFields& f, const ModelSpec& m, const char* key);

// hf_gpt_line_families.cpp: whether `f` is of the GPT-2 line, its field names, its reader.
bool is_gpt_line(HfFamily f);
void alias_gpt_line_fields(nlohmann::json& t, HfFamily family);
void read_gpt_line(HfFamily family, const JsonFields& f, ModelSpec& m);

}  // namespace servesim::legacy
