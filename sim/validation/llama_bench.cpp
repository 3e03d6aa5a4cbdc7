#include "validation/llama_bench.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "config/edits.h"
#include "config/scenario_reader.h"
#include "config/yaml_text.h"
#include "cost/memory_plan.h"
#include "report/csv_table.h"
#include "run/simulation.h"
#include "util/error.h"
#include "util/text.h"

namespace servesim {

namespace {

// One request of `in` prompt and `out` generated tokens alone, with the case's settings.
struct Alone {
  SimulationResult result;
  std::string backend;
  double params = 0;
};
Alone simulate_alone(const LlamaBenchCase& c, int in, int out) {
  const std::string yaml = fmt::format(
      "hardware: {{gpu: \"{}\"}}\n"
      "model: {{name: \"{}\", weights: \"{}\"}}\n"
      "engine: {{framework: \"{}\"}}\n"
      "workload:\n"
      "  seed: 1\n"
      "  requests: 1\n"
      "  arrival: {{process: poisson, rate: 1}}\n"
      "  input_tokens: {{dist: fixed, value: {}}}\n"
      "  output_tokens: {{dist: fixed, value: {}}}\n",
      c.device, c.model, c.weights, c.framework, in, out);
  ConfigNode doc = parse_yaml_text(yaml, "(llama-bench case)");
  if (c.framework == "llama.cpp" || c.framework == "ollama")
    apply_override(doc, fmt::format("engine.llama_cpp.flash_attention={}", c.flash_attention ? "true" : "false"));
  for (const std::string& s : c.sets) apply_override(doc, s);
  const Scenario sc = parse_scenario(doc, "(llama-bench case)");
  Alone a;
  a.result = simulate(sc);
  if (a.result.summary.ttft_ms.count < 1 || (out > 1 && a.result.summary.tpot_ms.count < 1))
    throw Error(fmt::format("llama-bench: the request on {} ({} {}) did not complete", c.device, c.model, c.weights));
  a.backend = sc.engine.ggml.enabled ? ggml_backend_name(sc.engine.ggml.backend) : sc.engine.framework;
  a.params = static_cast<double>(sc.model.total_params());
  return a;
}

}  // namespace

LlamaBenchResult simulate_llama_bench(const LlamaBenchCase& c) {
  if (c.prompt_tokens < 1 || c.gen_tokens < 2)
    throw Error(fmt::format("llama-bench: needs at least 1 prompt token and 2 generated tokens (tgN reads the time "
                            "between tokens), got -p {} -n {}",
                            c.prompt_tokens, c.gen_tokens));
  LlamaBenchResult out;
  if (c.one_request) {
    const Alone a = simulate_alone(c, c.prompt_tokens, c.gen_tokens);
    out.ttft_s = a.result.summary.ttft_ms.mean / 1e3;
    out.tpot_s = a.result.summary.tpot_ms.mean / 1e3;
    out.backend = a.backend;
    out.weight_bytes = a.result.memory.weights;
    out.params = a.params;
  } else {
    // ppP: the prompt alone; tgN: N decode steps after a 1-token prompt (KV of 1 .. N tokens).
    const Alone pp = simulate_alone(c, c.prompt_tokens, 1);
    const Alone tg = simulate_alone(c, 1, c.gen_tokens + 1);
    out.ttft_s = pp.result.summary.ttft_ms.mean / 1e3;
    out.tpot_s = tg.result.summary.tpot_ms.mean / 1e3;
    out.backend = pp.backend;
    out.weight_bytes = pp.result.memory.weights;
    out.params = pp.params;
  }
  out.pp_tokens_per_s = c.prompt_tokens / out.ttft_s;
  out.tg_tokens_per_s = 1.0 / out.tpot_s;
  return out;
}

std::vector<LlamaBenchRow> read_llama_bench_rows(const std::vector<std::string>& files) {
  std::vector<LlamaBenchRow> rows;
  const std::vector<std::string> need = {"source", "backend", "device",   "device_as_published", "model", "weights",
                                         "flash_attention", "test", "tokens_per_s", "build", "split", "notes"};
  for (const std::string& f : files) {
    const report::CsvTable t = report::read_csv_table(f);
    std::vector<size_t> col;
    for (const std::string& n : need) {
      const auto c = t.column(n);
      if (!c) throw Error(fmt::format("{}: no column '{}' (need: {})", f, n, join(need)));
      col.push_back(*c);
    }
    const auto sets_col = t.column("sets");
    for (size_t i = 0; i < t.rows.size(); ++i) {
      const auto& cells = t.rows[i];
      LlamaBenchRow r;
      if (sets_col)
        for (const std::string& s : split(cells[*sets_col], ';'))
          if (!trim(s).empty()) r.sets.push_back(std::string(trim(s)));
      r.file = f;
      r.line = static_cast<int>(i) + 2;
      r.source = cells[col[0]];
      r.backend = cells[col[1]];
      r.device = cells[col[2]];
      r.device_as_published = cells[col[3]];
      r.model = cells[col[4]];
      r.weights = cells[col[5]];
      const std::string fa = cells[col[6]];
      r.test = cells[col[7]];
      r.build = cells[col[9]];
      r.split = cells[col[10]];
      r.notes = cells[col[11]];
      const auto v = t.number(i, col[8]);
      auto bad = [&](const std::string& why) { return Error(fmt::format("{}:{}: {}", f, r.line, why)); };
      if (fa != "0" && fa != "1") throw bad(fmt::format("flash_attention must be 0 or 1, got '{}'", fa));
      r.flash_attention = fa == "1";
      if (!v || !(*v > 0)) throw bad("tokens_per_s must be a positive number");
      r.measured = *v;
      if (r.test.size() < 3 || (r.test.rfind("pp", 0) != 0 && r.test.rfind("tg", 0) != 0))
        throw bad(fmt::format("test must be ppN or tgN (llama-bench's names), got '{}'", r.test));
      if (r.split != "fit" && r.split != "held_out")
        throw bad(fmt::format("split must be fit or held_out, got '{}'", r.split));
      rows.push_back(std::move(r));
    }
  }
  return rows;
}

namespace {
int test_tokens(const std::string& test) { return std::stoi(test.substr(2)); }
}  // namespace

void compare_llama_bench(std::vector<LlamaBenchRow>& rows, const std::vector<std::string>& sets, bool one_request) {
  // One simulation per case; pp rows and tg rows of one case share it.
  using Key = std::tuple<std::string, std::string, std::string, bool, int, int, std::vector<std::string>>;
  std::map<Key, std::pair<LlamaBenchResult, std::string>> done;
  // The prompt and generation lengths of a case: the ppP and tgN of its rows (512 / 128 unless stated).
  using Case = std::tuple<std::string, std::string, std::string, bool, std::vector<std::string>>;
  std::map<Case, std::pair<int, int>> lengths;
  for (const auto& r : rows) {
    auto& l =
        lengths.try_emplace({r.device, r.model, r.weights, r.flash_attention, r.sets}, std::pair{512, 128}).first->second;
    (r.test[0] == 'p' ? l.first : l.second) = test_tokens(r.test);
  }
  for (auto& r : rows) {
    const auto [p, n] = lengths.at({r.device, r.model, r.weights, r.flash_attention, r.sets});
    const Key key{r.device, r.model, r.weights, r.flash_attention, p, n, r.sets};
    auto it = done.find(key);
    if (it == done.end()) {
      LlamaBenchCase c;
      c.device = r.device;
      c.model = r.model;
      c.weights = r.weights;
      c.flash_attention = r.flash_attention;
      c.prompt_tokens = p;
      c.gen_tokens = n;
      c.one_request = one_request;
      c.sets = sets;
      c.sets.insert(c.sets.begin(), r.sets.begin(), r.sets.end());  // the command line's --set wins
      std::pair<LlamaBenchResult, std::string> v;
      try {
        v.first = simulate_llama_bench(c);
      } catch (const Error& e) {
        v.second = e.what();
      }
      it = done.emplace(key, v).first;
    }
    r.skipped = it->second.second;
    if (!r.skipped.empty()) continue;
    r.predicted = r.test[0] == 'p' ? it->second.first.pp_tokens_per_s : it->second.first.tg_tokens_per_s;
    r.error = r.predicted / r.measured - 1.0;
  }
}

LlamaBenchErrors llama_bench_errors(const std::vector<LlamaBenchRow>& rows) {
  std::map<std::string, std::vector<double>> by;
  for (const auto& r : rows) {
    if (!r.skipped.empty()) continue;
    const std::string kind = r.test.substr(0, 2);
    by[r.split + "/" + kind].push_back(std::fabs(r.error));
    by["all/" + kind].push_back(std::fabs(r.error));
  }
  LlamaBenchErrors e;
  for (auto& [k, v] : by) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    e.median[k] = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    e.count[k] = static_cast<int>(n);
  }
  return e;
}

}  // namespace servesim
