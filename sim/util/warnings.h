#pragma once
// Things servesim had to assume or adjust in an input that is still usable (a
// trace row replayed with one token because it recorded none, say). Library code
// records them here instead of printing; the command prints each once, to stderr,
// as "warning: ...", so nothing is altered silently. Thread-safe (sweep -j).
#include <string>
#include <vector>

namespace servesim {

// Records a warning; the same text twice is kept once.
void warn(const std::string& text);
// The warnings recorded so far, in the order first seen; clears the list.
std::vector<std::string> take_warnings();

}  // namespace servesim
