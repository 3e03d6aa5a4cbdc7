#pragma once
// Chooses the replica for each arriving request (data parallelism).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/engine.h"

namespace servesim {

enum class RouterKind { round_robin, least_outstanding, least_kv };

RouterKind parse_router(const std::string& name, const std::string& where);
std::vector<std::pair<std::string, std::string>> router_registry();

class Router {
 public:
  explicit Router(RouterKind kind) : kind_(kind) {}
  // Deterministic: ties go to the lowest replica index.
  int pick(const std::vector<std::unique_ptr<Engine>>& replicas, const Request& r);

 private:
  RouterKind kind_;
  std::size_t next_ = 0;
};

}  // namespace servesim
