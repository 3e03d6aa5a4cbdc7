// `servesim list [gpus|models|arrivals|lengths|engines|all]`
#include <fmt/format.h>

#include <iostream>

#include "cli/commands.h"
#include "cli/registries.h"
#include "config/catalog_reader.h"
#include "util/error.h"
#include "util/text.h"
#include "util/units.h"
#include "util/warnings.h"

namespace servesim::cli {

namespace {
void list_gpus() {
  fmt::print("GPUs (hardware/*.yaml):\n");
  fmt::print("  {:<16} {:<34} {:>10} {:>12} {:>14} {:>8}\n", "name", "display name", "memory", "bandwidth",
             "bf16/fp16 dense", "fp8");
  for (const auto& n : gpu_catalog_names()) {
    const GpuSpec g = load_gpu(n);
    const double f16 = g.supports(DType::bf16) ? g.peak(DType::bf16) : (g.supports(DType::fp16) ? g.peak(DType::fp16) : 0);
    fmt::print("  {:<16} {:<34} {:>10} {:>12} {:>14} {:>8}\n", n, g.display_name, format_bytes(g.memory_capacity),
               format_rate(g.memory_bandwidth, "B/s"), format_rate(f16, "FLOP/s"),
               g.supports(DType::fp8) ? "yes" : "-");
  }
}
void list_models() {
  fmt::print("Models (models/*.yaml; or pass a config.json path or a Hugging Face model folder):\n");
  fmt::print("  {:<26} {:>9} {:>9} {:>7} {:>12} {:>10}\n", "name", "params", "active", "layers", "KV/token", "context");
  for (const auto& n : model_catalog_names()) {
    const ModelSpec m = load_model(n);
    // A model file's warnings are about step times ("qk_norm is read but not
    // modelled"); a listing computes none, so they would be noise here. `run`,
    // `inspect` and the others still print them.
    (void)take_warnings();
    fmt::print("  {:<26} {:>8.1f}B {:>8.1f}B {:>7} {:>12} {:>10}\n", n, m.total_params() / 1e9, m.active_params() / 1e9,
               m.layers, format_bytes(m.kv_bytes_per_token(DType::bf16)), m.max_context);
  }
}
void list_registry(const std::string& title, const std::vector<std::pair<std::string, std::string>>& items) {
  fmt::print("{}:\n", title);
  for (const auto& [name, desc] : items) fmt::print("  {:<18} {}\n", name, desc);
}
}  // namespace

void register_list(CLI::App& app) {
  auto* cmd = app.add_subcommand("list", "List known GPUs, models, and workload/engine registries");
  static std::string what = "all";
  cmd->add_option("what", what, "gpus, models, arrivals, lengths, engines, frameworks, routers, all-to-all, or all")->default_val("all");
  cmd->callback([] {
    const std::vector<std::string> kinds = {"gpus",    "models",     "arrivals", "lengths",   "engines",
                                            "frameworks", "routers", "all-to-all", "all"};
    if (std::find(kinds.begin(), kinds.end(), what) == kinds.end())
      throw Error(fmt::format("list: unknown category '{}'{} (valid: {})", what, did_you_mean(what, kinds), join(kinds)));
    const bool all = what == "all";
    if (all || what == "gpus") list_gpus();
    if (all || what == "models") list_models();
    for (const auto& r : registries()) {
      if (all || what == r.category) list_registry(r.title, r.items());
    }
  });
}

}  // namespace servesim::cli
