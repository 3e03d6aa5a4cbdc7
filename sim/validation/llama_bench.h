#pragma once
// The llama-bench view: prompt processing (ppP) and text generation (tgN) tokens/s of a
// device x model x weight type under a local runtime, from the same step costs and engine
// as any run, in one of two readings:
//   llama_bench (default): as llama-bench measures them: ppP = P / TTFT of a P-token prompt
//     alone; tgN = 1 / TPOT of N tokens generated after a 1-token prompt (from an empty
//     context, llama-bench's tg). The back ends' kernel parameters are fitted in this reading.
//   one_request: one request of P prompt and N generated tokens, ppP = P / TTFT and
//     tgN = 1 / TPOT: its decode steps also read the prompt's KV, a few percent slower than
//     llama-bench's tg on a 7B model with P = 512.
//
// And the comparison with published llama-bench tables (data/llama_cpp/*.csv): one row per
// measured number, columns
//   source,backend,device,device_as_published,model,weights,flash_attention,test,tokens_per_s,build,split,notes
// device and model are catalog names; test is ppP or tgN; split says which rows fitted the
// back end's kernel parameters (fit) and which only test them (held_out). An optional column
// `sets` holds the row's own scenario overrides ("engine.llama_cpp.ubatch_size=2048;...").
#include <map>
#include <string>
#include <vector>

namespace servesim {

struct LlamaBenchCase {
  std::string device, model, weights;  // catalog names and a model.weights value
  std::string framework = "llama.cpp";
  bool flash_attention = false;        // llama-bench's -fa (its default is off)
  int prompt_tokens = 512, gen_tokens = 128;
  bool one_request = false;            // the one_request reading (above); false: llama_bench
  std::vector<std::string> sets;       // further "key=value" overrides of the scenario
};

struct LlamaBenchResult {
  double pp_tokens_per_s = 0, tg_tokens_per_s = 0;
  double ttft_s = 0, tpot_s = 0;
  std::string backend;           // ggml back end (cuda, metal, cpu)
  double weight_bytes = 0;       // the model's weights on the device, bytes
  double params = 0;             // parameters
};

// Simulates one case (throws with the reason when it cannot run, e.g. does not fit).
LlamaBenchResult simulate_llama_bench(const LlamaBenchCase& c);

struct LlamaBenchRow {
  std::string file;
  int line = 0;
  std::string source, backend, device, device_as_published, model, weights, test, build, split, notes;
  std::vector<std::string> sets;  // the row's own overrides (column `sets`, ';'-separated)
  bool flash_attention = false;
  double measured = 0;  // tokens/s
  // Filled by compare_llama_bench:
  double predicted = 0;
  double error = 0;     // predicted / measured - 1
  std::string skipped;  // why it was not simulated ("" = simulated)
};

// Reads data/llama_cpp-style CSV files; an Error names the file and line of a bad row.
std::vector<LlamaBenchRow> read_llama_bench_rows(const std::vector<std::string>& files);

// Simulates every row's case (once per device x model x weights x fa) with `sets` applied,
// in the llama_bench reading or (one_request) the one-request one.
void compare_llama_bench(std::vector<LlamaBenchRow>& rows, const std::vector<std::string>& sets,
                         bool one_request = false);

// Median |error| per (split, kind) where kind is "pp" or "tg", over the simulated rows.
struct LlamaBenchErrors {
  std::map<std::string, double> median;  // "held_out/pp" -> 0.046
  std::map<std::string, int> count;
};
LlamaBenchErrors llama_bench_errors(const std::vector<LlamaBenchRow>& rows);

}  // namespace servesim
