#pragma once
// `servesim describe`: the key declarations (config/key.h) rendered for people, as
// plain text for the terminal and as the Markdown of docs/config-reference.md. The
// renderers take the sections as an argument, so the output follows whatever
// config_sections() registers (and tests can render a section of their own).
#include <string>
#include <string_view>
#include <vector>

#include "config/key.h"

namespace servesim {

// What one `describe` query selected: a whole section (keys empty) or some of its keys.
struct DescribedPart {
  const KeySection* section = nullptr;
  std::vector<const Key*> keys;  // empty: every key of the section
};

// The dotted path of a key: "engine.max_num_seqs", "workload.arrival.cv".
std::string described_key_path(const KeySection& s, const Key& k);
// A section's heading: "engine", or "workload.arrival (process: gamma)" for a variant.
std::string section_title(const KeySection& s);

// Every section, whole, in registration order.
std::vector<DescribedPart> describe_all(const std::vector<const KeySection*>& sections);
// The parts named by `query`: a section path selects that section (all its variants)
// and every section below it ("workload" also selects "workload.arrival"); a key path
// selects that key in each section declaring it. Anything else is an Error with a
// did-you-mean among the section and key paths.
std::vector<DescribedPart> describe_query(const std::vector<const KeySection*>& sections, std::string_view query);

// Terminal text: per section a heading line, then per key its path, type, default,
// range and, on the next line, its doc.
std::string describe_text(const std::vector<DescribedPart>& parts);
// The Markdown reference: a generated-file notice, then per section a heading, its
// doc and a table of its keys (docs/config-reference.md is this of describe_all).
std::string describe_markdown(const std::vector<DescribedPart>& parts);

}  // namespace servesim
