#pragma once
// The `calibrate` subcommands beside `serving` (registered by register_calibrate).
#include <CLI/CLI.hpp>

namespace servesim::cli {

void register_calibrate_operators(CLI::App& calibrate);  // calibrate operators
void register_calibrate_static(CLI::App& calibrate);     // calibrate static
void register_calibrate_bands(CLI::App& calibrate);      // calibrate bands

}  // namespace servesim::cli
