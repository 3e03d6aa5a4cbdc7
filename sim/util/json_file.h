#pragma once
// One checked way to read a JSON file: the file is opened through
// check_input_file (a directory or a missing file is an Error naming it) and every
// nlohmann exception (syntax, a number beyond double range such as 1e999, ...) is
// turned into a servesim::Error that names the file. nlohmann's exceptions are not
// servesim::Errors and would otherwise reach main() as internal errors.
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace servesim {

// `complaint` words the error, e.g. "not valid JSON" -> "<path>: not valid JSON: <detail>".
nlohmann::json read_json_file(const std::string& path, std::string_view complaint = "not valid JSON");

// The message for a nlohmann exception raised while reading fields of `path`
// (a missing field, a wrong type): "<path>: <context>: <detail>".
std::string json_field_error(const std::string& path, std::string_view context, const nlohmann::json::exception& e);

}  // namespace servesim
