#pragma once
// Every configuration key is declared once, as a Key: its name, type, unit,
// default (or "required"), valid range, one-line doc and the spec field it fills.
// The readers below read a key *through* its declaration (so the default and the
// range used are the ones described), `servesim describe` prints the declarations,
// and docs/config-reference.md is generated from them.
//
// Keys are grouped in KeySections, one per mapping ("engine", "workload.arrival").
// A variant section is selected by the value of a selector key of the same
// mapping: "workload.arrival" with selector "process" has one section per process
// (poisson, gamma, ...), each listing the keys that process reads.
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "config/config_map.h"
#include "util/ranges.h"
#include "util/units.h"

namespace servesim {

enum class KeyType {
  integer,   // a whole number
  number,    // a plain real number
  quantity,  // a number with a unit of `dimension` ("3.35 TB/s"); fractions also take "85%"
  boolean,   // true / false
  text,      // free text (a name or a path)
  choice,    // one of `choices`
  list,      // a list (of `item`s), or one value standing for a list of one
  section,   // a nested mapping, described by its own KeySection
};

struct Key {
  std::string_view name;  // last component of the key path
  KeyType type = KeyType::text;
  std::string_view doc;   // one line: what it means and, where it applies, the peer setting it mirrors
  std::string_view spec;  // where the value goes, e.g. "EngineConfig::max_num_seqs"
  Dimension dimension = Dimension::fraction;  // quantity keys
  std::string_view unit;                      // shown with numbers: "tokens", "requests/s" (quantities: the dimension's)
  bool required = false;
  // Default when absent (unless required). Numbers hold int and real defaults;
  // `default_note` replaces the shown default when it is computed ("the model's context length").
  double default_number = 0;
  bool default_bool = false;
  std::string_view default_text;
  std::string_view default_note;
  // Inclusive range of integer / number / quantity keys (canonical unit), and why.
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  std::string_view why;
  std::vector<std::string_view> choices;  // choice keys
  std::string_view item;                  // list keys: what one item is ("GPU name")
};

struct KeySection {
  std::string_view path;      // "engine", "workload.arrival", "(gpu file)", "(model file).attention"
  std::string_view doc;       // one line
  std::string_view selector;  // variant sections: the key whose value selects this section ("process")
  std::string_view variant;   // ... and that value ("gamma"); empty for a plain section
  std::vector<const Key*> keys;
};

// Every section of every document servesim reads: scenarios, GPU files, model files.
const std::vector<const KeySection*>& config_sections();

// The shown default of a key: "256", "true", "\"flash\"", "required", or its note.
std::string key_default_text(const Key& k);
// The shown type: "integer", "quantity (bytes)", "one of: flash, naive", ...
std::string key_type_text(const Key& k);
// The shown range: "[1, 1000000]", ">= 0", "(0, 1]"-style from min/max; empty when unbounded.
std::string key_range_text(const Key& k);

// Reading a key through its declaration: absent keys give the declared default
// (required ones throw "missing"), present ones are range-checked (naming `why`).
std::int64_t read_integer(ConfigMap& m, const Key& k);
double read_number(ConfigMap& m, const Key& k);
double read_quantity(ConfigMap& m, const Key& k);
bool read_boolean(ConfigMap& m, const Key& k);
std::string read_text(ConfigMap& m, const Key& k);
// A choice key: one of k.choices, else an error with the valid values and a did-you-mean.
std::string read_choice(ConfigMap& m, const Key& k);
// The same, for a key whose value was given (present), e.g. a selector read already.
bool has_key(ConfigMap& m, const Key& k);

}  // namespace servesim
