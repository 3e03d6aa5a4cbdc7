// Fuzzes a Hugging Face model folder as downloaded: a fixed, valid config.json (Llama
// 3.1 8B shapes, no quantization_config of its own) beside the fuzzed
// hf_quant_config.json that ModelOpt checkpoints carry. Seed corpus: fuzz/corpus/hf_quant_config.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "fuzz_input_file.h"
#include "model/model_catalog.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string dir = servesim::fuzz::scratch_folder() + "/servesim-fuzz-" + std::to_string(::getpid()) + "-model";
  std::filesystem::create_directories(dir);
  {
    std::ofstream config(dir + "/config.json", std::ios::trunc);
    config << R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 4096, "intermediate_size": 14336,
      "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "vocab_size": 128256,
      "max_position_embeddings": 131072, "torch_dtype": "bfloat16"})";
    std::ofstream quant(dir + "/hf_quant_config.json", std::ios::binary | std::ios::trunc);
    quant.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    (void)servesim::import_hf_config(dir);
  } catch (const servesim::Error&) {
  }
  return 0;
}
