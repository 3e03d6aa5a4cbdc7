#pragma once
// The one rule for every file servesim writes (--out and friends): it replaces only
// regular files, and only those it was asked to write.
// - An existing target must be a regular file: a device (/dev/null, /dev/full), a FIFO,
//   a socket or a directory is refused, since a whole-or-absent writer renames its
//   temporary over the target and would destroy the device node (as root) or hide a
//   failed write (/dev/full).
// - A symbolic link is refused unless the user asked to follow links
//   (`servesim --follow-symlinks`): then its final target is written, under the same rule.
// - A file this process read as an input (the scenario, a trace, a sweep CSV being
//   reported) is refused: writing it would destroy the data the output came from.
#include <string>
#include <string_view>

namespace servesim {

// Whether symbolic links named as outputs are followed (default: refused).
void set_follow_output_symlinks(bool on);
bool follow_output_symlinks();

// Records that `path` was read as an input of this command (check_input_file calls it
// for every input; readers that open files otherwise call it themselves). Only
// regular files are recorded, by device and inode, so another name for the same file
// is recognised too.
void note_input_file(const std::string& path);
// Test hook: forgets every recorded input.
void forget_input_files();

// Checks `path` as an output target under the rule above and returns the path to
// write: `path` itself, or the final target of a followed symbolic link. An Error
// names `option` (e.g. "--out"; may be empty) and says why and what to do.
std::string checked_output_target(const std::string& path, std::string_view option);

}  // namespace servesim
