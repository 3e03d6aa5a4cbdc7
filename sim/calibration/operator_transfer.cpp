#include "calibration/operator_transfer.h"

#include <fmt/format.h>

#include <filesystem>

#include "calibration/operator_timings.h"
#include "config/catalog_reader.h"
#include "hardware/efficiency.h"
#include "util/error.h"

namespace servesim {

Efficiency carry_fitted_knobs(const Efficiency& gpu, const Efficiency& fitted, const std::vector<std::string>& fields) {
  Efficiency e = gpu;
  // The per-kind elementwise form's HBM cap belongs to the predicted GPU's memory system:
  // its own stream_memory, or its own gemm_memory where that is 0, never the fitted GPU's
  // gemm_memory (which the fit carries for the GEMMs).
  e.stream_memory = stream_memory_fraction(gpu);
  for (const auto& f : fields) efficiency_field(e, f) = efficiency_field(fitted, f);
  // The FP32 instructions per byte are the kernels' own (counted, not fitted): the same kernels
  // on the other GPU, so they carry with the fit that used them.
  e.act_fp32_per_byte = fitted.act_fp32_per_byte;
  e.norm_fp32_per_byte = fitted.norm_fp32_per_byte;
  e.rope_fp32_per_byte = fitted.rope_fp32_per_byte;
  return e;
}

OperatorTransfer predict_operator_transfer(const std::string& gpu, const std::string& data,
                                           const std::string& models_dir, const Efficiency& fitted,
                                           const std::vector<std::string>& fields) {
  std::error_code ec;
  if (!std::filesystem::exists(data, ec)) throw Error(fmt::format("{}: no such file or folder (--predict-data)", data));
  OperatorTransfer t;
  t.gpu = gpu;
  t.data = data;
  const GpuSpec spec = load_gpu(gpu);
  auto rows = read_operator_timing_path(data);
  t.rows = rows.size();
  const OperatorDataset d = build_operator_dataset(spec, std::move(rows), operator_models_dir(data, models_dir));
  for (const auto& [name, _] : d.models) t.models.push_back(name);
  t.samples = d.samples.size();
  t.defaults = spec.efficiency;
  t.carried = carry_fitted_knobs(spec.efficiency, fitted, fields);
  const std::vector<char> all(d.samples.size(), 1);
  t.before = operator_errors(d, predict_operator_times(d, t.defaults), all);
  t.after = operator_errors(d, predict_operator_times(d, t.carried), all);
  return t;
}

}  // namespace servesim
