#pragma once
// The local runtimes' sections of `engine:` (config/read_local_engine.cpp): read with the
// engine mapping, resolved against the model and device once they are known. Internal to
// sim/config/.
#include "config/config_map.h"
#include "config/key.h"
#include "engine/framework_preset.h"
#include "scenario/setup.h"

namespace servesim {

const KeySection& llama_cpp_key_section();     // engine.llama_cpp
const KeySection& llama_cpp_kernels_key_section();  // engine.llama_cpp.kernels
const KeySection& transformers_key_section();  // engine.transformers
// The section keys themselves, for engine_key_section's list.
const Key& llama_cpp_section_key();
const Key& transformers_section_key();

// Reads engine.llama_cpp / engine.transformers into `c` when `preset` is that runtime, and
// refuses either section under another framework.
void read_local_runtime_sections(ConfigMap& e, EngineConfig& c, const FrameworkPreset& preset);

// Maps a local runtime's settings onto the engine (kind, slots, token budget, KV blocks,
// attention kernel, ggml kernels) and checks that what it allocates fits the device.
void resolve_local_runtime(ConfigMap& eng, Setup& s);

}  // namespace servesim
