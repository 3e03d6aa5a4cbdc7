#pragma once
// The published Hugging Face configs of tests/fixtures/hf_configs_2026/ (PROVENANCE.md there) as
// the model tests load them, and configs edited in memory, loaded from a scratch folder as
// `servesim inspect --model FOLDER` would.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "config/catalog_reader.h"

namespace servesim::testing::hf {

inline std::string fixture(const std::string& name) {
  return std::string(SERVESIM_TEST_FIXTURES) + "/hf_configs_2026/" + name;
}
inline ModelSpec load(const std::string& name) { return load_model(fixture(name)); }
inline nlohmann::json read_fixture(const std::string& name) {
  std::ifstream in(fixture(name) + "/config.json");
  return nlohmann::json::parse(in);
}
// `j` written as <temp>/<prefix><tag>/config.json; the folder's path.
inline std::string write_edited(const nlohmann::json& j, const std::string& prefix, const std::string& tag) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / (prefix + tag);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "config.json") << j.dump();
  return dir.string();
}
// ... and loaded from that folder.
inline ModelSpec load_edited(const nlohmann::json& j, const std::string& prefix, const std::string& tag) {
  return load_model(write_edited(j, prefix, tag));
}
// |value - published| within rel of the published figure.
inline bool within(double value, double published, double rel) { return std::fabs(value - published) <= rel * published; }

}  // namespace servesim::testing::hf
