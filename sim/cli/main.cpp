// servesim: LLM inference serving simulator. main() is the only place that turns
// errors into exit codes: 0 ok, 1 bad input or infeasible scenario, 2 usage.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>

#include "cli/commands.h"
#include "util/error.h"

int main(int argc, char** argv) {
  CLI::App app{"servesim: LLM inference serving simulator"};
  app.require_subcommand(1);
  servesim::cli::register_list(app);
  servesim::cli::register_inspect(app);
  servesim::cli::register_run(app);
  servesim::cli::register_experiments(app);
  servesim::cli::register_validate(app);
  servesim::cli::register_calibrate(app);
  servesim::cli::register_planning(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const servesim::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
