// servesim: LLM inference serving simulator. main() is the only place that turns
// errors into exit codes: 0 ok, 1 bad input or infeasible scenario, 2 usage,
// 3 internal error (an exception that is not a servesim::Error: a bug to report),
// 130 interrupted by SIGINT.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>
#include <iostream>

#include "cli/commands.h"
#include "util/error.h"
#include "util/exit_status.h"
#include "util/interrupt.h"
#include "util/output_target.h"
#include "util/paths.h"
#include "util/text.h"
#include "util/version.h"
#include "util/warnings.h"

int main(int argc, char** argv) {
  CLI::App app{"servesim: LLM inference serving simulator"};
  app.require_subcommand(1);
  // `servesim --version` (also `-V`): the version written into every summary.json's config.
  app.set_version_flag("-V,--version", fmt::format("servesim {}", servesim::kServesimVersion),
                       "print servesim's version and exit");
  // Where the catalogs come from, and how to point servesim elsewhere (an installed
  // binary finds <prefix>/share/servesim; a moved one needs SERVESIM_HOME or --home).
  app.add_option_function<std::string>(
      "--home", [](const std::string& dir) { ::setenv("SERVESIM_HOME", dir.c_str(), 1); },
      "folder holding the catalogs (hardware/, models/, scenarios/, data/); same as SERVESIM_HOME, given before "
      "the command");
  // Outputs replace only regular files; a symbolic link named as an output is refused
  // unless this is given (util/output_target.h).
  app.add_flag_function(
      "--follow-symlinks", [](std::int64_t n) { servesim::set_follow_output_symlinks(n > 0); },
      "write through a symbolic link named as an output (--out LINK) to the file it points to; without it such a "
      "link is refused");
  app.footer(fmt::format("Catalogs: {}\n{}.", servesim::data_root(), servesim::catalog_search_help()));
  servesim::cli::register_list(app);
  servesim::cli::register_inspect(app);
  servesim::cli::register_run(app);
  servesim::cli::register_experiments(app);
  servesim::cli::register_validate(app);
  servesim::cli::register_calibrate(app);
  servesim::cli::register_planning(app);
  servesim::cli::register_describe(app);
  servesim::cli::register_report(app);
  servesim::cli::register_llama_bench(app);
  servesim::install_interrupt_handler();
  // CLI11 reports a mistyped command as "A subcommand is required": name it instead.
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--version" || word == "-V") break;  // answered before any command is needed
    if (word == "--home") {
      ++i;  // its value
      continue;
    }
    if (!word.empty() && word[0] == '-') continue;
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
    if (std::find(names.begin(), names.end(), word) == names.end()) {
      // `servesim version` / `servesim help`: what a new user types first are options here.
      const std::string hint = word == "version" ? "; the version is an option: servesim --version"
                               : word == "help"  ? "; help is an option: servesim --help"
                                                 : servesim::did_you_mean(word, names);
      std::cerr << fmt::format("error: unknown command '{}'{}\ncommands: {}\nrun 'servesim --help' for what each does\n",
                               word, hint, servesim::join(names));
      return servesim::kExitUsage;
    }
    break;
  }
  int code = servesim::kExitOk;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // app.exit prints the message and returns CLI11's own code (105 for a value out
    // of a ->check range, 106 for a missing argument, ...); the documented code
    // for every usage error is 2 (--help and --version stay 0).
    code = app.exit(e) == 0 ? servesim::kExitOk : servesim::kExitUsage;
  } catch (...) {
    code = servesim::report_exception(std::current_exception(), std::cerr);
  }
  // What the command had to assume about its inputs, said once each, after its output.
  for (const auto& w : servesim::take_warnings()) std::cerr << "warning: " << w << "\n";
  return code;
}
