#pragma once
// Measured per-operator GPU kernel times of one transformer layer (Vidur's profiles,
// data/operator_timings/<gpu>/<model>.csv; see data/operator_timings/PROVENANCE.md).
// One row is one layer shard (the slice a TP-k rank holds, run on one GPU) at one
// token count; each `time_stats.<op>.median` column is that op's median time in ms.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace servesim {

struct OperatorTimingRow {
  std::string model;  // servesim model name (catalog name or a YAML beside the data)
  std::string where;  // "file:line" of the row, for messages
  int tp = 1;                      // num_tensor_parallel_workers: the shard of a TP-tp layer
  std::int64_t num_tokens = 0;     // GEMM M dimension (all tokens of the batch)
  int n_head = 0;                  // shape columns of the whole (unsharded) model
  int n_kv_head = 0;
  std::int64_t n_embd = 0;
  std::int64_t n_expanded_embd = 0;  // MLP intermediate size
  std::int64_t vocab_size = 0;       // 0 when the column is absent
  bool gated_mlp = true;
  std::map<std::string, double> seconds;  // Vidur op name ("attn_pre_proj") -> median, seconds

  // The op's median time in seconds; throws naming the row when the column is absent.
  double op_seconds(const std::string& op) const;
};

// Reads one CSV. `model` names the rows' model; empty means the file's stem
// ("llama-2-7b.csv" -> "llama-2-7b"). Malformed rows throw servesim::Error with file:line
// and the column. Columns other than the shape columns and `time_stats.<op>.median`
// are ignored, so Vidur's original files (with min/max/mean/std) read as well.
std::vector<OperatorTimingRow> read_operator_timings(const std::string& path, const std::string& model = "");

// Every *.csv in a folder, in file-name order.
std::vector<OperatorTimingRow> read_operator_timing_dir(const std::string& dir);

// A folder of tables (read_operator_timing_dir) or one table (read_operator_timings).
std::vector<OperatorTimingRow> read_operator_timing_path(const std::string& path);

// Where the model YAMLs of models outside the catalog are: `models_dir` when given
// (throws when it is not a folder), else a `models` folder beside the tables' folder
// (data/operator_timings/{a100,models}) when there is one, else "".
std::string operator_models_dir(const std::string& data, const std::string& models_dir);

}  // namespace servesim
