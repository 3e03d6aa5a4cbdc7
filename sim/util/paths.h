#pragma once
// Where the shipped catalogs live: $SERVESIM_HOME if set, else the source tree the
// binary was built from.
#include <string>
#include <vector>

namespace servesim {

std::string data_root();
std::string catalog_dir(const std::string& sub);  // data_root()/sub
// Base names (without .yaml) of the YAML files in a catalog folder, sorted.
std::vector<std::string> list_catalog(const std::string& sub);
bool file_exists(const std::string& path);
// The whole file as text; an unreadable file is an Error naming it.
std::string read_text_file(const std::string& path);
bool looks_like_path(const std::string& s);  // contains '/' or ends in .yaml/.yml/.json

}  // namespace servesim
