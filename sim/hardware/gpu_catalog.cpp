#include "hardware/gpu_catalog.h"

#include <fmt/format.h>

#include "util/error.h"
#include "util/paths.h"
#include "util/text.h"

namespace servesim {

double GpuSpec::peak(DType compute) const {
  const auto it = peak_flops.find(compute);
  if (it != peak_flops.end()) return it->second;
  std::vector<std::string> have;
  for (const auto& [t, _] : peak_flops) have.push_back(dtype_name(t));
  throw Error(fmt::format("{} has no {} tensor cores (it supports: {})", name, dtype_name(compute),
                          join(have)));
}

std::vector<std::string> gpu_catalog_names() { return list_catalog("hardware"); }

}  // namespace servesim
