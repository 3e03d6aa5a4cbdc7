#pragma once
// Where the shipped catalogs live: $SERVESIM_HOME if set; else <prefix>/share/servesim
// next to an installed <prefix>/bin/servesim (found through /proc/self/exe); else the
// source tree the binary was built from.
#include <fstream>
#include <string>
#include <vector>

namespace servesim {

std::string data_root();
// The folders data_root() tries, in order ($SERVESIM_HOME only when set).
std::vector<std::string> data_root_candidates();
// One sentence for errors and --help: where servesim looks and how to point it elsewhere.
std::string catalog_search_help();
std::string catalog_dir(const std::string& sub);  // data_root()/sub
// Base names (without .yaml) of the YAML files in a catalog folder, sorted; an Error
// with catalog_search_help() when the folder does not exist.
std::vector<std::string> list_catalog(const std::string& sub);
bool file_exists(const std::string& path);
// Throws an Error unless `path` names a readable regular file (or a pipe such as
// /dev/stdin): "<path>: is a directory, expected a file", "<path>: cannot open: <OS reason>".
// Every input file goes through this (a directory opened as a file reads as an
// exception from deep inside libstdc++, not as an error).
void check_input_file(const std::string& path);
// What may not be read as an input file: a directory, a device (/dev/zero never
// ends), a named pipe (with no writer it blocks forever) or a socket; /dev/stdin and
// /dev/fd/N (a shell's pipe) stay allowed. A missing path passes (callers word that
// themselves). Regular files are recorded as this command's inputs (output_target.h).
void check_input_kind(const std::string& path);
// The most read_text_file reads (files read whole: scenarios, catalogs, JSON reports).
inline constexpr std::size_t kMaxWholeFileBytes = std::size_t{1} << 30;
// check_input_kind: throws "<path>: is a directory, expected a file" when it is one
// (and refuses devices and named pipes); for the callers that have their own "not
// found" wording for a missing file.
void reject_directory(const std::string& path);
// True when `path` is a directory; never throws (std::filesystem::is_directory without
// an error_code throws filesystem_error, which is not a servesim::Error).
bool is_directory(const std::string& path);
// An open stream for `path` after check_input_file; an Error if it cannot be opened.
std::ifstream open_input_file(const std::string& path);
// The whole file as text; an unreadable file is an Error naming it.
std::string read_text_file(const std::string& path);
bool looks_like_path(const std::string& s);  // contains '/' or ends in .yaml/.yml/.json

}  // namespace servesim
