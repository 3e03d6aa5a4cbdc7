// `servesim describe [SECTION|KEY] [--markdown] [--out FILE]`: every configuration
// key with its type, unit, default, range and doc, from the declarations the loaders
// read through (config/key.h), so what is printed is what is accepted. The Markdown
// of the whole registry is docs/config-reference.md (a ctest checks it is current).
#include <iostream>

#include "cli/commands.h"
#include "config/describe.h"
#include "util/atomic_file.h"

namespace servesim::cli {

void register_describe(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "describe", "Print every configuration key (type, unit, default, range, meaning), or one section's or key's");
  static std::string what;
  static bool markdown = false;
  static std::string out;
  cmd->add_option("what", what, "a section (engine, workload.arrival) or a key (engine.max_num_seqs); default: all");
  cmd->add_flag("--markdown", markdown, "Markdown (the text of docs/config-reference.md) instead of plain text");
  cmd->add_option("--out", out, "write to FILE (whole or not at all) instead of printing");
  cmd->callback([] {
    const auto& sections = config_sections();
    const auto parts = what.empty() ? describe_all(sections) : describe_query(sections, what);
    const std::string text = markdown ? describe_markdown(parts) : describe_text(parts);
    if (out.empty()) std::cout << text;
    else write_file_atomically(out, text);
  });
}

}  // namespace servesim::cli
