#include "engine/router.h"

#include <fmt/format.h>

#include "util/error.h"
#include "util/text.h"

namespace servesim {

std::vector<std::pair<std::string, std::string>> router_registry() {
  return {{"round_robin", "replicas in turn"},
          {"least_outstanding", "the replica with the fewest waiting + running requests"},
          {"least_kv", "the replica with the lowest KV-cache use"}};
}

RouterKind parse_router(const std::string& name, const std::string& where) {
  if (name == "round_robin") return RouterKind::round_robin;
  if (name == "least_outstanding") return RouterKind::least_outstanding;
  if (name == "least_kv") return RouterKind::least_kv;
  std::vector<std::string> names;
  for (const auto& [n, _] : router_registry()) names.push_back(n);
  throw Error(fmt::format("{}: unknown router '{}'{} (valid: {})", where, name, did_you_mean(name, names), join(names)));
}

int Router::pick(const std::vector<std::unique_ptr<Engine>>& replicas, const Request& /*r*/) {
  const std::size_t n = replicas.size();
  if (n == 1) return 0;
  switch (kind_) {
    case RouterKind::round_robin: return static_cast<int>(next_++ % n);
    case RouterKind::least_outstanding: {
      std::size_t best = 0;
      for (std::size_t i = 1; i < n; ++i)
        if (replicas[i]->outstanding() < replicas[best]->outstanding()) best = i;
      return static_cast<int>(best);
    }
    case RouterKind::least_kv: {
      std::size_t best = 0;
      for (std::size_t i = 1; i < n; ++i)
        if (replicas[i]->kv_load() < replicas[best]->kv_load()) best = i;
      return static_cast<int>(best);
    }
  }
  return 0;
}

}  // namespace servesim
