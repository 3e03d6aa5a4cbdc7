// `servesim llama-bench [-d DEVICES] [-m MODELS] [-t TYPES] [-p P] [-n N] [--fa 0|1]
//  [--framework F] [--set K=V]... [--data CSV...] [--json]`: the llama-bench view
// (validation/llama_bench.h). Without --data: ppP and tgN tokens/s of every device x model
// x weight type, as llama-bench prints them. With --data: the published rows of those files
// beside servesim's numbers, each row's error and the median |error| per split and test.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "util/error.h"
#include "util/text.h"
#include "util/units.h"
#include "validation/llama_bench.h"

namespace servesim::cli {
namespace {

struct BenchArgs {
  std::vector<std::string> devices, models, types, sets, data;
  int prompt = 512, gen = 128;
  int fa = 0;
  std::string framework = "llama.cpp";
  bool json = false;
  bool one_request = false;
};

std::string tps(double v) { return fmt::format("{:.2f}", v); }

void run_view(const BenchArgs& a) {
  if (a.devices.empty() || a.models.empty())
    throw Error("llama-bench: give -d/--device and -m/--model (or --data with measured rows)");
  const std::vector<std::string> types = a.types.empty() ? std::vector<std::string>{"q4_0"} : a.types;
  nlohmann::json out = nlohmann::json::array();
  if (!a.json)
    fmt::print("| {:<16} | {:<14} | {:<7} | {:>10} | {:>8} | {:<7} | {:>2} | {:>6} | {:>9} |\n"
               "| {:-<16} | {:-<14} | {:-<7} | {:->10} | {:->8} | {:-<7} | {:->2} | {:->6} | {:->9} |\n",
               "device", "model", "type", "size", "params", "backend", "fa", "test", "t/s", "", "", "", "", "", "", "",
               "", "");
  for (const auto& d : a.devices)
    for (const auto& m : a.models)
      for (const auto& t : types) {
        LlamaBenchCase c;
        c.device = d;
        c.model = m;
        c.weights = t;
        c.framework = a.framework;
        c.flash_attention = a.fa != 0;
        c.prompt_tokens = a.prompt;
        c.gen_tokens = a.gen;
        c.one_request = a.one_request;
        c.sets = a.sets;
        const std::string pp = fmt::format("pp{}", a.prompt), tg = fmt::format("tg{}", a.gen);
        LlamaBenchResult r;
        try {
          r = simulate_llama_bench(c);
        } catch (const Error& e) {
          // A case that cannot run (does not fit, not modelled) is a row with its reason, not the end.
          if (a.json) {
            out.push_back({{"device", d}, {"model", m}, {"weights", t}, {"flash_attention", a.fa}, {"error", e.what()}});
          } else {
            std::string why = e.what();
            const auto at = why.find("engine: ");
            if (at != std::string::npos) why = why.substr(at + 8);
            fmt::print("| {:<16} | {:<14} | {:<7} | {:>10} | {:>8} | {:<7} | {:>2} | {:>6} | {:>9} |  {}\n", d, m, t, "-",
                       "-", "-", a.fa, "-", "-", why);
          }
          continue;
        }
        if (a.json) {
          out.push_back({{"device", d}, {"model", m}, {"weights", t}, {"backend", r.backend}, {"flash_attention", a.fa},
                         {"weight_bytes", r.weight_bytes}, {"params", r.params}, {"ttft_s", r.ttft_s},
                         {"tpot_s", r.tpot_s}, {pp, r.pp_tokens_per_s}, {tg, r.tg_tokens_per_s}});
          continue;
        }
        const std::string size = format_bytes(r.weight_bytes), params = fmt::format("{:.2f} B", r.params / 1e9);
        for (const auto& [test, v] : {std::pair{pp, r.pp_tokens_per_s}, std::pair{tg, r.tg_tokens_per_s}})
          fmt::print("| {:<16} | {:<14} | {:<7} | {:>10} | {:>8} | {:<7} | {:>2} | {:>6} | {:>9} |\n", d, m, t, size,
                     params, r.backend, a.fa, test, tps(v));
      }
  if (a.json) std::cout << out.dump(2) << "\n";
  else if (a.one_request)
    fmt::print("\nOne request of {} prompt and {} generated tokens alone: pp = {} / TTFT, tg = 1 / TPOT (its decode "
               "reads the prompt's KV; llama-bench's tg{} starts from an empty context).\n",
               a.prompt, a.gen, a.prompt, a.gen);
  else
    fmt::print("\nAs llama-bench measures: pp{} = {} / TTFT of the prompt alone, tg{} = 1 / TPOT of {} tokens generated "
               "from an empty context (--one-request: one request of {} + {} tokens instead).\n",
               a.prompt, a.prompt, a.gen, a.gen, a.prompt, a.gen);
}

void run_compare(const BenchArgs& a) {
  std::vector<LlamaBenchRow> rows = read_llama_bench_rows(a.data);
  compare_llama_bench(rows, a.sets, a.one_request);
  const LlamaBenchErrors e = llama_bench_errors(rows);
  if (a.json) {
    nlohmann::json j;
    j["rows"] = nlohmann::json::array();
    for (const auto& r : rows) {
      nlohmann::json x = {{"file", r.file},       {"line", r.line},         {"device", r.device},
                          {"model", r.model},     {"weights", r.weights},   {"flash_attention", r.flash_attention},
                          {"test", r.test},       {"split", r.split},       {"measured", r.measured},
                          {"source", r.source}};
      if (r.skipped.empty()) {
        x["predicted"] = r.predicted;
        x["error"] = r.error;
      } else {
        x["skipped"] = r.skipped;
      }
      j["rows"].push_back(x);
    }
    for (const auto& [k, v] : e.median) j["median_abs_error"][k] = {{"median", v}, {"rows", e.count.at(k)}};
    std::cout << j.dump(2) << "\n";
    return;
  }
  fmt::print("| {:<16} | {:<10} | {:<7} | {:>2} | {:>6} | {:>9} | {:>9} | {:>7} | {:<8} |\n", "device", "model", "type",
             "fa", "test", "measured", "servesim", "error", "split");
  fmt::print("| {:-<16} | {:-<10} | {:-<7} | {:->2} | {:->6} | {:->9} | {:->9} | {:->7} | {:-<8} |\n", "", "", "", "",
             "", "", "", "", "");
  int skipped = 0;
  for (const auto& r : rows) {
    if (!r.skipped.empty()) {
      ++skipped;
      fmt::print("| {:<16} | {:<10} | {:<7} | {:>2} | {:>6} | {:>9} | {:>9} | {:>7} | {:<8} |  not simulated: {}\n",
                 r.device, r.model, r.weights, r.flash_attention ? 1 : 0, r.test, tps(r.measured), "-", "-", r.split,
                 r.skipped);
      continue;
    }
    fmt::print("| {:<16} | {:<10} | {:<7} | {:>2} | {:>6} | {:>9} | {:>9} | {:>+6.1f}% | {:<8} |\n", r.device, r.model,
               r.weights, r.flash_attention ? 1 : 0, r.test, tps(r.measured), tps(r.predicted), 100 * r.error, r.split);
  }
  fmt::print("\nmedian |error|:");
  for (const auto& [k, v] : e.median) fmt::print("  {} {:.1f}% (n={})", k, 100 * v, e.count.at(k));
  fmt::print("\n");
  if (skipped > 0) fmt::print("{} row(s) not simulated (reasons above)\n", skipped);
}

}  // namespace

void register_llama_bench(CLI::App& app) {
  static BenchArgs a;
  auto* cmd = app.add_subcommand(
      "llama-bench",
      "The llama-bench view: ppP / tgN tokens/s of devices x models x GGUF types under llama.cpp (one request "
      "simulated alone); with --data, published llama-bench rows beside servesim's numbers and their errors");
  cmd->add_option("-d,--device", a.devices, "devices (catalog names or GPU YAML paths), comma-separated")
      ->delimiter(',');
  cmd->add_option("-m,--model", a.models, "models (catalog names or paths), comma-separated")->delimiter(',');
  cmd->add_option("-t,--type", a.types, "weight types (f16, q8_0, q6_k, q5_k_m, q4_k_m, q4_0; default q4_0)")
      ->delimiter(',');
  cmd->add_option("-p,--n-prompt", a.prompt, "prompt tokens (default 512)");
  cmd->add_option("-n,--n-gen", a.gen, "generated tokens (default 128)");
  cmd->add_option("--fa", a.fa, "flash attention 0 or 1 (llama-bench's default 0)")->check(CLI::Range(0, 1));
  cmd->add_option("--framework", a.framework, "llama.cpp (default), ollama, or another framework to compare");
  cmd->add_option("--set", a.sets, "override a scenario key for every case (e.g. engine.llama_cpp.kernels.*)");
  cmd->add_option("--data", a.data, "published llama-bench rows (data/llama_cpp/*.csv) to compare with");
  cmd->add_flag("--one-request", a.one_request,
                "read one request of P prompt and N generated tokens (pp = P / TTFT, tg = 1 / TPOT, its decode reading "
                "the prompt's KV) instead of llama-bench's separate pp and tg runs");
  cmd->add_flag("--json", a.json, "print JSON");
  cmd->callback([] {
    if (!a.data.empty()) run_compare(a);
    else run_view(a);
  });
}

}  // namespace servesim::cli
