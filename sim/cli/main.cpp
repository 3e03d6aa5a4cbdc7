// servesim: LLM inference serving simulator. main() is the only place that turns
// errors into exit codes: 0 ok, 1 bad input or infeasible scenario, 2 usage,
// 3 internal error (an exception that is not a servesim::Error: a bug to report),
// 130 interrupted by SIGINT.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdlib>
#include <iostream>
#include <new>

#include "cli/commands.h"
#include "util/error.h"
#include "util/interrupt.h"
#include "util/paths.h"

int main(int argc, char** argv) {
  CLI::App app{"servesim: LLM inference serving simulator"};
  app.require_subcommand(1);
  // Where the catalogs come from, and how to point servesim elsewhere (an installed
  // binary finds <prefix>/share/servesim; a moved one needs SERVESIM_HOME or --home).
  app.add_option_function<std::string>(
      "--home", [](const std::string& dir) { ::setenv("SERVESIM_HOME", dir.c_str(), 1); },
      "folder holding the catalogs (hardware/, models/, scenarios/, data/); same as SERVESIM_HOME, given before "
      "the command");
  app.footer(fmt::format("Catalogs: {}\n{}.", servesim::data_root(), servesim::catalog_search_help()));
  servesim::cli::register_list(app);
  servesim::cli::register_inspect(app);
  servesim::cli::register_run(app);
  servesim::cli::register_experiments(app);
  servesim::cli::register_validate(app);
  servesim::cli::register_calibrate(app);
  servesim::cli::register_planning(app);
  servesim::install_interrupt_handler();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // app.exit prints the message and returns CLI11's own code (105 for a value out
    // of a ->check range, 106 for a missing argument, ...); the documented code
    // for every usage error is 2 (--help and --version stay 0).
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const servesim::Interrupted& e) {
    std::cerr << e.what() << "\n";
    return 130;
  } catch (const servesim::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    // Not a bug in the input as such, but nothing the user can fix by reading a message
    // about a key: say what ran out.
    std::cerr << "internal error: out of memory (the scenario may be too large for this machine)\n";
    return 3;
  } catch (const std::exception& e) {
    // The last line: every exception that leaves the library should be a servesim::Error
    // naming the input; reaching here is a bug.
    std::cerr << "internal error: " << e.what() << "\nplease report this with the command that caused it\n";
    return 3;
  } catch (...) {
    std::cerr << "internal error: unknown exception\nplease report this with the command that caused it\n";
    return 3;
  }
  return 0;
}
