#pragma once
// The shipped GPU catalog (hardware/*.yaml). Reading a GPU file is
// config/catalog_reader.h's load_gpu.
#include <string>
#include <vector>

#include "hardware/gpu_spec.h"

namespace servesim {

std::vector<std::string> gpu_catalog_names();

}  // namespace servesim
