#include "hardware/device_family.h"

#include <fmt/format.h>

#include "util/error.h"
#include "util/text.h"

namespace servesim {

std::string device_family_name(DeviceFamily f) {
  switch (f) {
    case DeviceFamily::gpu: return "gpu";
    case DeviceFamily::apple_gpu: return "apple_gpu";
    case DeviceFamily::cpu: return "cpu";
  }
  return "?";
}

std::vector<std::string> device_family_names() { return {"gpu", "apple_gpu", "cpu"}; }

DeviceFamily parse_device_family(const std::string& text, const std::string& where) {
  for (DeviceFamily f : {DeviceFamily::gpu, DeviceFamily::apple_gpu, DeviceFamily::cpu})
    if (device_family_name(f) == text) return f;
  throw Error(fmt::format("{}: unknown device family '{}'{} (valid: {})", where, text,
                          did_you_mean(text, device_family_names()), join(device_family_names())));
}

}  // namespace servesim
