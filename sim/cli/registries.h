#pragma once
// The named, listable registries `servesim list` prints (SimGrid-style: explicit
// tables, no static-initialisation registration).
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace servesim::cli {

struct Registry {
  std::string category;  // "arrivals"
  std::string title;     // "Arrival processes (workload.arrival.process)"
  std::function<std::vector<std::pair<std::string, std::string>>()> items;
};

const std::vector<Registry>& registries();

}  // namespace servesim::cli
