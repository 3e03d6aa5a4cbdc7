#pragma once
// One exception type for every user-facing failure. Library code throws it;
// only main() turns it into an exit code (library code never calls exit()).
#include <stdexcept>
#include <string>

namespace servesim {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace servesim
