#include "hardware/efficiency.h"

#include <fmt/format.h>

#include "util/error.h"
#include "util/text.h"

namespace servesim {
namespace {
struct Field {
  const char* name;
  double Efficiency::*member;
  bool is_time;
};
constexpr Field kFields[] = {
    {"gemm_compute", &Efficiency::gemm_compute, false},
    {"gemm_tokens_half", &Efficiency::gemm_tokens_half, false},
    {"gemm_memory", &Efficiency::gemm_memory, false},
    {"gemm_overlap", &Efficiency::gemm_overlap, false},
    {"attention_compute", &Efficiency::attention_compute, false},
    {"attention_memory", &Efficiency::attention_memory, false},
    {"elementwise_memory", &Efficiency::elementwise_memory, false},
    {"comm_bandwidth", &Efficiency::comm_bandwidth, false},
    {"dequant_compute", &Efficiency::dequant_compute, false},
    {"kernel_overhead", &Efficiency::kernel_overhead, true},
    {"step_overhead", &Efficiency::step_overhead, true},
};

const Field& find_field(const std::string& name) {
  for (const auto& f : kFields)
    if (name == f.name) return f;
  throw Error(fmt::format("unknown efficiency parameter '{}'{} (valid: {})", name,
                          did_you_mean(name, efficiency_field_names()), join(efficiency_field_names())));
}
}  // namespace

std::vector<std::string> efficiency_field_names() {
  std::vector<std::string> out;
  for (const auto& f : kFields) out.emplace_back(f.name);
  return out;
}

double& efficiency_field(Efficiency& e, const std::string& name) { return e.*(find_field(name).member); }
double efficiency_field(const Efficiency& e, const std::string& name) { return e.*(find_field(name).member); }
bool efficiency_field_is_time(const std::string& name) { return find_field(name).is_time; }

}  // namespace servesim
