#include "uncertainty/scenario_key.h"

#include <filesystem>

namespace servesim::bands {

bool is_calibrated_profile(const GpuSpec& gpu) {
  const auto parent = std::filesystem::path(gpu.source_file).parent_path().filename();
  return parent == "calibrated";
}

BandKey scenario_band_key(const Setup& setup, const RunSummary& summary) {
  return BandKey{is_calibrated_profile(setup.gpu), setup.gpu.architecture, framework_family(setup.engine.framework),
                 load_regime(setup.engine.max_num_seqs > 0
                                 ? summary.batch_size_mean / static_cast<double>(setup.engine.max_num_seqs)
                                 : 0.0,
                             summary.kv_utilization_mean, summary.load.overloaded)};
}

nlohmann::json run_bands_json(const Setup& setup, const RunSummary& summary, const nlohmann::json& summary_json) {
  std::string why;
  const BandTable* table = shipped_table(&why);
  // The measured runs decode one sequence per request: their errors say nothing
  // about parallel sampling or beam search (workload.sampling).
  if (table && summary.sequences_max > 1) {
    table = nullptr;
    why = "no measured serving run with parallel sampling or beam search (the data decodes one sequence per "
          "request): no band";
  }
  return summary_bands_json(table, why, scenario_band_key(setup, summary), summary_json);
}

}  // namespace servesim::bands
