#include "util/warnings.h"

#include <algorithm>
#include <mutex>

namespace servesim {
namespace {
std::mutex& warnings_mutex() {
  static std::mutex m;
  return m;
}
std::vector<std::string>& warnings_list() {
  static std::vector<std::string> list;
  return list;
}
}  // namespace

void warn(const std::string& text) {
  std::lock_guard<std::mutex> lock(warnings_mutex());
  auto& list = warnings_list();
  if (std::find(list.begin(), list.end(), text) == list.end()) list.push_back(text);
}

std::vector<std::string> take_warnings() {
  std::lock_guard<std::mutex> lock(warnings_mutex());
  std::vector<std::string> out;
  out.swap(warnings_list());
  return out;
}

}  // namespace servesim
