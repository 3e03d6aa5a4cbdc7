#include "config/edits.h"
#include "config/yaml_text.h"
#include "validation/static_batch.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <tuple>

#include "run/simulation.h"
#include "util/error.h"
#include "util/interrupt.h"
#include "util/paths.h"
#include "util/text.h"
#include "config/scenario_reader.h"

namespace servesim {

namespace {

const std::vector<std::string> kColumns = {"source", "hardware", "num_gpus", "model", "precision",
                                           "tp",     "pp",       "framework", "isl",  "osl",
                                           "concurrency_or_rate", "metric", "unit", "value", "notes"};

// One CSV record; a quoted field may hold commas and "" for a quote.
std::vector<std::string> split_quoted(const std::string& line) {
  std::vector<std::string> out;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(field);
      field.clear();
    } else {
      field += c;
    }
  }
  out.push_back(field);
  return out;
}

std::optional<double> to_number(const std::string& text) {
  const std::string t = trim(text);
  if (t.empty()) return std::nullopt;
  try {
    std::size_t used = 0;
    const double v = std::stod(t, &used);
    if (used != t.size() || !std::isfinite(v)) return std::nullopt;
    return v;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string dtype_for(const std::string& precision, const char* part) {
  const std::string p = to_lower(precision);
  // NVFP4 / MXFP4 checkpoints (W4A4 on Blackwell tensor cores); their KV cache is written with it
  // ("FP8 KV": ModelOpt's kv_cache_quant_algo), 16-bit otherwise.
  if (p.find("fp4") != std::string::npos) {
    if (std::string(part) == "kv_cache") return p.find("fp8 kv") != std::string::npos ? "fp8" : "bf16";
    return "fp4";
  }
  if (p.find("fp8") != std::string::npos) {
    if (std::string(part) == "kv_cache") return p.find("fp8 kv") != std::string::npos ? "fp8" : "bf16";
    return "fp8";
  }
  if (p.find("bf16") != std::string::npos) return "bf16";
  return "fp16";
}

double to_ms(double value, const std::string& unit) {
  const std::string u = to_lower(trim(unit));
  if (u == "s") return value * 1e3;
  if (u == "us") return value * 1e-3;
  return value;  // ms
}

bool is_latency(const std::string& unit) {
  const std::string u = to_lower(trim(unit));
  return u == "ms" || u == "s" || u == "us";
}

bool is_tokens_per_s(const std::string& unit) { return to_lower(unit).rfind("tokens/s", 0) == 0; }

}  // namespace

std::vector<BenchmarkRow> read_benchmark_csv(const std::string& path) {
  reject_directory(path);
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("{}: cannot open", path));
  std::string line;
  std::int64_t line_no = 0;
  std::vector<std::string> header;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (trim(line).empty()) continue;
    for (const auto& h : split_quoted(line)) header.push_back(to_lower(trim(h)));
    break;
  }
  if (header.empty()) throw Error(fmt::format("{}: empty file (expected a header line)", path));
  std::map<std::string, std::size_t> col;
  for (std::size_t i = 0; i < header.size(); ++i) col[header[i]] = i;
  std::vector<std::string> missing;
  for (const auto& c : kColumns)
    if (!col.count(c)) missing.push_back(c);
  if (!missing.empty())
    throw Error(fmt::format("{}:{}: missing column{} {}; expected: {}", path, line_no, missing.size() > 1 ? "s" : "",
                            join(missing), join(kColumns)));
  const std::string stem = std::filesystem::path(path).stem().string();
  std::vector<BenchmarkRow> rows;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (trim(line).empty() || trim(line)[0] == '#') continue;
    const auto f = split_quoted(line);
    if (f.size() != header.size())
      throw Error(fmt::format("{}:{}: expected {} fields, found {}", path, line_no, header.size(), f.size()));
    auto get = [&](const char* name) { return trim(f[col.at(name)]); };
    auto integer = [&](const char* name) {
      const auto v = to_number(get(name));
      if (!v || *v < 1 || std::floor(*v) != *v)
        throw Error(fmt::format("{}:{}: {} '{}' is not an integer >= 1", path, line_no, name, get(name)));
      return static_cast<int>(*v);
    };
    BenchmarkRow r;
    r.dataset = stem;
    r.file = path;
    r.line = line_no;
    r.source = get("source");
    r.hardware = get("hardware");
    r.model = get("model");
    r.precision = get("precision");
    r.framework = get("framework");
    r.concurrency = get("concurrency_or_rate");
    r.metric = get("metric");
    r.unit = get("unit");
    r.notes = get("notes");
    r.num_gpus = integer("num_gpus");
    r.tp = integer("tp");
    r.pp = integer("pp");
    r.isl_text = get("isl");
    r.osl_text = get("osl");
    if (const auto v = to_number(r.isl_text); v && *v >= 1) r.isl = static_cast<std::int64_t>(*v);
    if (const auto v = to_number(r.osl_text); v && *v >= 1) r.osl = static_cast<std::int64_t>(*v);
    const auto value = to_number(get("value"));
    if (!value) throw Error(fmt::format("{}:{}: value '{}' is not a number", path, line_no, get("value")));
    r.value = *value;
    rows.push_back(std::move(r));
  }
  return rows;
}

std::optional<std::string> catalog_gpu_for(const std::string& hardware) {
  const std::string h = to_lower(hardware);
  auto has = [&](const char* s) { return h.find(s) != std::string::npos; };
  if (has("gh200")) return "gh200";
  if (has("gb200")) return "gb200";
  if (has("b200")) return "b200";
  if (has("h200")) return "h200-sxm";
  if (has("h100")) return has("pcie") ? "h100-pcie" : "h100-sxm";
  if (has("a100")) return has("40gb") ? "a100-sxm4-40gb" : "a100-sxm4-80gb";
  if (has("l40s")) return "l40s";
  if (has("mi300x")) return "mi300x";
  return std::nullopt;
}

std::optional<std::string> catalog_model_for(const std::string& model) {
  const std::string m = to_lower(model);
  auto has = [&](const char* s) { return m.find(s) != std::string::npos; };
  if (has("gpt-j") || has("gptj") || has("falcon") || has("bloom")) return std::nullopt;
  if (has("internlm") && has("20b")) {
    // Shapes written for the operator calibration (data/operator_timings/models/).
    const std::string p = data_root() + "/data/operator_timings/models/internlm-20b.yaml";
    if (file_exists(p)) return p;
    return std::nullopt;
  }
  if (has("mixtral")) {
    if (has("8x7b")) return "mixtral-8x7b";
    if (has("8x22b")) return "mixtral-8x22b";
    return std::nullopt;
  }
  if (has("mistral") && has("7b")) return "mistral-7b";
  if (has("llama")) {
    std::smatch size;
    static const std::regex kSize("(\\d+)\\s*b\\b");
    if (!std::regex_search(m, size, kSize)) return std::nullopt;
    const std::string b = size[1];
    // Llama 3 and 3.1 share their shapes (3.1 has the longer context); LLaMA (1)
    // 7B and Llama 2 7B too; "LLaMA 70B" in TensorRT-LLM's tables is Llama 2 70B.
    const bool v3 = has("v3") || has("llama3") || has("llama-3") || has("llama 3");
    if (v3) {
      if (b == "8") return "llama-3.1-8b";
      if (b == "70") return "llama-3.1-70b";
      if (b == "405") return "llama-3.1-405b";
      return std::nullopt;
    }
    if (b == "7") return "llama-2-7b";
    if (b == "13") return "llama-2-13b";
    if (b == "70") return "llama-2-70b";
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<std::int64_t> static_batch_size(const std::string& concurrency_or_rate) {
  static const std::regex kBatch("static_batch\\s*=\\s*(\\d+)");
  std::smatch m;
  if (!std::regex_search(concurrency_or_rate, m, kBatch)) return std::nullopt;
  return std::stoll(m[1]);
}

namespace {
// The hardware, model, precision and parallelism of a row, as a scenario document
// built key by key (catalog names are values, never pasted into YAML text).
ConfigNode row_setup(const BenchmarkRow& row, const std::string& gpu, const std::string& model) {
  ConfigNode doc;
  set_text(doc, "hardware.gpu", gpu);
  set_text(doc, "model.name", model);
  set_text(doc, "model.weights", dtype_for(row.precision, "weights"));
  set_text(doc, "model.activations", dtype_for(row.precision, "activations"));
  set_text(doc, "model.kv_cache", dtype_for(row.precision, "kv_cache"));
  set_number(doc, "parallelism.tp", row.tp);
  set_number(doc, "parallelism.pp", row.pp);
  return doc;
}
}  // namespace

Scenario row_scenario(const BenchmarkRow& row, const std::vector<ConfigEdit>& edits) {
  const auto gpu = catalog_gpu_for(row.hardware);
  const auto model = catalog_model_for(row.model);
  if (!gpu) throw Error(fmt::format("no catalog GPU for '{}'", row.hardware));
  if (!model) throw Error(fmt::format("no catalog model for '{}'", row.model));
  ConfigNode doc = row_setup(row, *gpu, *model);
  set_text(doc, "engine.kind", "vllm");
  apply_edits(doc, edits);
  return parse_scenario(doc, fmt::format("{}:{}", row.file, row.line), false);
}

StaticBatchPredictor::StaticBatchPredictor(const Scenario& sc)
    : cost_(make_cost_model(sc)), engine_(sc.engine), memory_(plan_memory(cost_, sc.engine.memory_config())) {}

std::int64_t StaticBatchPredictor::max_kv_tokens() const {
  if (!(memory_.kv_bytes_per_token > 0)) return 0;
  return static_cast<std::int64_t>(std::floor((memory_.capacity - memory_.weights) / memory_.kv_bytes_per_token));
}

double StaticBatchPredictor::step(const BatchSummary& b) const {
  return step_wall_seconds(cost_.totals(b).time, engine_.cpu_overheads(), b.seqs, b.prefill_seqs, b.sampled,
                           b.prefill_tokens);
}

double StaticBatchPredictor::prefill(std::int64_t batch, std::int64_t isl) const {
  BatchSummary b = cost_.batch();
  for (std::int64_t i = 0; i < batch; ++i) b.add(SeqWork{isl, 0, true});
  return step(b);
}

double StaticBatchPredictor::decode(std::int64_t batch, std::int64_t context) const {
  BatchSummary b = cost_.batch();
  for (std::int64_t i = 0; i < batch; ++i) b.add(SeqWork{1, context, true});
  return step(b);
}

double StaticBatchPredictor::e2e(std::int64_t batch, std::int64_t isl, std::int64_t osl) const {
  double t = prefill(batch, isl);
  for (std::int64_t j = 1; j <= osl - 1; ++j) t += decode(batch, isl + j - 1);
  return t;
}

namespace {

// One offline-throughput row: N requests at once through the vLLM engine.
double simulate_offline(const BenchmarkRow& row, const StaticValidationOptions& o, std::string& note) {
  const auto gpu = catalog_gpu_for(row.hardware);
  const auto model = catalog_model_for(row.model);
  ConfigNode doc = row_setup(row, *gpu, *model);
  set_text(doc, "engine.kind", "vllm");
  set_number(doc, "engine.max_num_seqs", static_cast<double>(o.offline_max_num_seqs));
  set_number(doc, "engine.max_num_batched_tokens",
             static_cast<double>(std::max(o.offline_max_num_batched_tokens, o.offline_max_num_seqs)));
  set_number(doc, "engine.gpu_memory_utilization", o.offline_gpu_memory_utilization);
  set_number(doc, "engine.max_model_len", static_cast<double>(row.isl + row.osl));
  set_text(doc, "engine.chunked_prefill", "true");
  set_text(doc, "engine.prefix_caching", "false");
  set_number(doc, "workload.requests", static_cast<double>(o.offline_requests));
  set_text(doc, "workload.arrival.process", "all_at_once");
  set_text(doc, "workload.input_tokens.dist", "fixed");
  set_number(doc, "workload.input_tokens.value", static_cast<double>(row.isl));
  set_text(doc, "workload.output_tokens.dist", "fixed");
  set_number(doc, "workload.output_tokens.value", static_cast<double>(row.osl));
  apply_edits(doc, o.edits);
  const Scenario sc = parse_scenario(doc, fmt::format("{}:{}", row.file, row.line));
  const SimulationResult r = simulate(sc);
  if (r.summary.failed > 0) note = fmt::format("{} requests failed", r.summary.failed);
  if (r.summary.preemptions > 0) note += (note.empty() ? "" : "; ") + fmt::format("{} preemptions", r.summary.preemptions);
  return r.summary.output_tokens_per_s;
}

bool is_offline(const BenchmarkRow& row) { return to_lower(row.concurrency).rfind("offline", 0) == 0; }

}  // namespace

std::vector<RowResult> validate_static_rows(const std::vector<BenchmarkRow>& rows, const StaticValidationOptions& o) {
  std::vector<RowResult> out;
  out.reserve(rows.size());
  int offline_total = 0, offline_done = 0;
  for (const auto& row : rows)
    if (is_offline(row) && o.offline && catalog_model_for(row.model) && catalog_gpu_for(row.hardware)) ++offline_total;
  // Predictors are cheap to build but reused per (file, gpu, model, precision, tp).
  std::map<std::string, std::unique_ptr<StaticBatchPredictor>> predictors;
  for (const auto& row : rows) {
    RowResult res;
    res.row = row;
    auto skip = [&](std::string why) {
      res.skip_reason = std::move(why);
      out.push_back(res);
    };
    const auto gpu = catalog_gpu_for(row.hardware);
    const auto model = catalog_model_for(row.model);
    if (!model) {
      skip(fmt::format("no catalog model ({})", row.model));
      continue;
    }
    if (!gpu) {
      skip(fmt::format("no catalog GPU ({})", row.hardware));
      continue;
    }
    res.gpu = *gpu;
    res.model = ends_with(*model, ".yaml") ? std::filesystem::path(*model).stem().string() : *model;
    if (row.isl < 1 || row.osl < 1) {
      skip(fmt::format("lengths not fixed (isl '{}', osl '{}')", row.isl_text, row.osl_text));
      continue;
    }
    try {
      if (is_offline(row)) {
        if (!o.offline) {
          skip("offline simulation turned off");
          continue;
        }
        if (!is_tokens_per_s(row.unit) || row.metric != "output_token_throughput") {
          skip(fmt::format("metric {} [{}] not predicted for offline rows", row.metric, row.unit));
          continue;
        }
        std::string note;
        res.predicted = simulate_offline(row, o, note);
        res.measured = row.value;
        res.unit = "tokens/s";
        res.prediction = fmt::format("vllm engine, {} requests at once, isl {}, osl {}, max_num_seqs {}{}",
                                     o.offline_requests, row.isl, row.osl, o.offline_max_num_seqs,
                                     note.empty() ? "" : " (" + note + ")");
        if (o.progress) o.progress(++offline_done, offline_total);
      } else {
        const auto batch = static_batch_size(row.concurrency);
        if (!batch) {
          skip(fmt::format("not a static batch ({})", row.concurrency));
          continue;
        }
        res.batch = *batch;
        const std::string key = fmt::format("{}|{}|{}|{}|{}", *gpu, *model, row.precision, row.tp, row.pp);
        auto& pred = predictors[key];
        if (!pred) pred = std::make_unique<StaticBatchPredictor>(row_scenario(row, o.edits));
        const std::int64_t B = *batch, isl = row.isl, osl = row.osl;
        const std::string& metric = row.metric;
        const std::int64_t seqs = metric == "ttft_min" || metric == "ttft_batch1" ? 1 : B;
        if (seqs * (isl + osl) > pred->max_kv_tokens()) {
          res.prediction = pred->max_kv_tokens() <= 0
                               ? pred->memory().verdict
                               : fmt::format("{} x {} tokens > {} KV tokens in all the memory beyond the weights",
                                             seqs, isl + osl, pred->max_kv_tokens());
          skip(pred->max_kv_tokens() <= 0 ? "weights do not fit the GPUs"
                                          : "static batch does not fit in GPU memory (the engine ran fewer at once)");
          continue;
        }
        double seconds = -1;
        if (metric == "prefill_batch_latency" || metric == "ttft_mean" || metric == "ttft_max") {
          seconds = pred->prefill(B, isl);
          res.prediction = fmt::format("prefill(B={}, isl={})", B, isl);
        } else if (metric == "ttft_min" || metric == "ttft_batch1") {
          seconds = pred->prefill(1, isl);
          res.prediction = fmt::format("prefill(B=1, isl={})", isl);
        } else if (metric == "decode_step_latency") {
          seconds = pred->decode(B, isl + osl / 2);
          res.prediction = fmt::format("decode(B={}, ctx={})", B, isl + osl / 2);
        } else if (metric == "batch_e2e_latency") {
          seconds = pred->e2e(B, isl, osl);
          res.prediction = fmt::format("e2e(B={}, isl={}, osl={})", B, isl, osl);
        } else if (metric.rfind("token_latency_p", 0) == 0) {
          const auto q = to_number(metric.substr(std::string("token_latency_p").size()));
          if (!q || *q < 0 || *q > 100) {
            skip(fmt::format("metric {} not predicted", metric));
            continue;
          }
          const std::int64_t ctx = isl + static_cast<std::int64_t>(std::llround(*q / 100.0 * static_cast<double>(osl - 1)));
          seconds = pred->decode(B, ctx);
          res.prediction = fmt::format("decode(B={}, ctx={})", B, ctx);
        } else if (metric == "output_token_throughput" && is_tokens_per_s(row.unit)) {
          const double e2e = pred->e2e(B, isl, osl);
          // TensorRT-LLM's static tables: per GPU (see docs/validation.md).
          const bool per_gpu = to_lower(row.dataset).find("trtllm") != std::string::npos && row.num_gpus > 1;
          res.predicted = static_cast<double>(B * osl) / e2e / (per_gpu ? row.num_gpus : 1);
          res.measured = row.value;
          res.unit = "tokens/s";
          res.prediction = fmt::format("B*osl/e2e(B={}, isl={}, osl={}){}", B, isl, osl,
                                       per_gpu ? fmt::format(" / {} GPUs", row.num_gpus) : "");
        } else {
          skip(fmt::format("metric {} [{}] not predicted", metric, row.unit));
          continue;
        }
        if (seconds >= 0) {
          if (!is_latency(row.unit)) {
            skip(fmt::format("metric {} has unit '{}', expected ms or s", metric, row.unit));
            continue;
          }
          res.predicted = seconds * 1e3;
          res.measured = to_ms(row.value, row.unit);
          res.unit = "ms";
        }
      }
    } catch (const Interrupted&) {
      throw;  // Ctrl-C stops the whole run, not just this point
    } catch (const Error& e) {
      skip(fmt::format("not simulated: {}", e.what()));
      continue;
    }
    res.compared = true;
    res.error_pct = res.measured != 0 ? 100.0 * (res.predicted - res.measured) / res.measured : 0.0;
    out.push_back(res);
  }
  return out;
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::vector<GroupErrors> group_errors(const std::vector<RowResult>& results) {
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<const RowResult*>> groups;
  for (const auto& r : results)
    if (r.compared) groups[{r.row.dataset, r.gpu, r.row.metric}].push_back(&r);
  std::vector<GroupErrors> out;
  for (auto& [key, members] : groups) {
    GroupErrors g;
    std::tie(g.dataset, g.gpu, g.metric) = key;
    g.count = static_cast<std::int64_t>(members.size());
    std::vector<double> abs, sig;
    for (const RowResult* r : members) {
      abs.push_back(std::fabs(r->error_pct));
      sig.push_back(r->error_pct);
    }
    g.median_abs_pct = median_of(abs);
    g.median_signed_pct = median_of(sig);
    std::sort(members.begin(), members.end(),
              [](const RowResult* a, const RowResult* b) { return std::fabs(a->error_pct) > std::fabs(b->error_pct); });
    for (std::size_t i = 0; i < members.size() && i < 3; ++i) g.worst.push_back(members[i]);
    out.push_back(g);
  }
  return out;
}

}  // namespace servesim
