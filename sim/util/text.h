#pragma once
// Small string helpers shared by loaders and the CLI.
#include <string>
#include <string_view>
#include <vector>

namespace servesim {

// Levenshtein distance, used to suggest the closest valid name for a typo.
std::size_t edit_distance(std::string_view a, std::string_view b);

// "; did you mean 'x'?" when some candidate is close enough to `word`, else "".
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

// "a, b, c" for listing valid names in an error.
std::string join(const std::vector<std::string>& items, std::string_view sep = ", ");

// `s` as it may appear in an error: at most `max_chars` characters, else its start and
// "... (N characters)", so that an error never echoes a whole input file.
std::string excerpt(std::string_view s, std::size_t max_chars = 80);

std::string to_lower(std::string_view s);
std::string trim(std::string_view s);
std::vector<std::string> split(std::string_view s, char sep);
bool ends_with(std::string_view s, std::string_view suffix);

}  // namespace servesim
