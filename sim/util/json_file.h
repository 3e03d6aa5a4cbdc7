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

// Nesting deeper than this is refused before parsing: nlohmann parses any depth, but
// copying, comparing or printing the result recurses once per level, and a 400 kB
// file of brackets is enough to overflow the stack. Real files nest a few levels.
constexpr int kMaxJsonDepth = 256;

// The 1-based line where `text` first nests deeper than `max_depth` arrays/objects
// (brackets inside strings do not count); 0 when it never does.
std::size_t json_depth_exceeded_at(std::string_view text, int max_depth = kMaxJsonDepth);

// `text` parsed, or an Error "<source>: <complaint>: <detail>" (also for nesting
// deeper than kMaxJsonDepth, with its line).
nlohmann::json parse_json_text(std::string_view text, std::string_view source,
                               std::string_view complaint = "not valid JSON");
// The same without exceptions: a discarded value (is_discarded()) when `text` is not
// JSON or nests too deep, as nlohmann's parse(text, nullptr, false) does.
nlohmann::json parse_json_or_discarded(std::string_view text);
nlohmann::ordered_json parse_ordered_json_or_discarded(std::string_view text);

// `complaint` words the error, e.g. "not valid JSON" -> "<path>: not valid JSON: <detail>".
nlohmann::json read_json_file(const std::string& path, std::string_view complaint = "not valid JSON");

// The message for a nlohmann exception raised while reading fields of `path`
// (a missing field, a wrong type): "<path>: <context>: <detail>".
std::string json_field_error(const std::string& path, std::string_view context, const nlohmann::json::exception& e);

}  // namespace servesim
