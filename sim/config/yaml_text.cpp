#include "config/yaml_text.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <map>
#include <set>

#include "config/yaml_json.h"
#include "util/paths.h"
#include "util/error.h"
#include "workload/trace_export.h"

namespace servesim {
namespace {

// GuideLLM reports saved as YAML are traces, read in sim/workload, which cannot call up
// into this layer: lend it the YAML reader before main(). This file is linked into every
// program that reads a scenario, so the reader is there whenever a trace can be named.
[[maybe_unused]] const bool kYamlTraceReaderSet = (trace_detail::set_yaml_document_reader(&load_yaml_as_json), true);

// A document expands its aliases when converted: a few lines of nested `*a`
// references can stand for billions of values. Real catalogs and scenarios hold a
// few hundred; refuse anything past these bounds instead of exhausting memory.
constexpr std::size_t kMaxNodes = 200'000;
constexpr int kMaxDepth = 200;

std::string line_of(const YAML::Mark& m) {
  return m.is_null() || m.line < 0 ? std::string("?") : std::to_string(m.line + 1);
}

std::string location(const std::string& file, const YAML::Node& node) {
  const YAML::Mark m = node.Mark();
  if (m.is_null() || m.line < 0) return file.empty() ? "(no file)" : file;
  return fmt::format("{}:{}:{}", file, m.line + 1, m.column + 1);
}

// Duplicate mapping keys: yaml-cpp keeps both entries and every lookup would see
// the first, so a second `rate:` (or a second `workload:` section) would be ignored
// in silence. Named here with both lines.
class Converter {
 public:
  explicit Converter(const std::string& file) : file_(file) {}

  ConfigNode convert(const YAML::Node& node, const std::string& path, int depth) {
    if (++count_ > kMaxNodes)
      throw Error(fmt::format("{}: the document holds more than {} values (after expanding its aliases); "
                              "servesim's files need a few hundred",
                              file_, kMaxNodes));
    if (depth > kMaxDepth)
      throw Error(fmt::format("{}: {}: nested more than {} levels deep", location(file_, node),
                              path.empty() ? "(top level)" : path, kMaxDepth));
    ConfigNode out;
    if (!node || node.IsNull()) {
      out = ConfigNode();
    } else if (node.IsScalar()) {
      // yaml-cpp tags a quoted scalar "!" (non-specific), a plain one "?".
      out = ConfigNode::scalar(node.Scalar(), node.Tag() == "!");
    } else if (node.IsSequence()) {
      out = ConfigNode::sequence();
      std::size_t i = 0;
      for (const auto& item : node) out.items().push_back(convert(item, fmt::format("{}[{}]", path, i++), depth + 1));
    } else if (node.IsMap()) {
      out = ConfigNode::map();
      std::map<std::string, YAML::Mark> first;
      for (auto it = node.begin(); it != node.end(); ++it) {
        std::string key_path = path;
        if (it->first.IsScalar()) {
          const std::string key = it->first.Scalar();
          key_path = path.empty() ? key : path + "." + key;
          const auto [pos, inserted] = first.emplace(key, it->first.Mark());
          if (!inserted)
            throw Error(fmt::format(
                "{}: {}: duplicate key '{}' (first at line {}, again at line {}); YAML keeps only one of "
                "them, so remove or merge the other",
                location(file_, it->first), key_path, key, line_of(pos->second), line_of(it->first.Mark())));
        }
        ConfigNode key = convert(it->first, path, depth + 1);
        ConfigNode value = convert(it->second, key_path, depth + 1);
        out.entries().push_back({std::move(key), std::move(value)});
      }
    }
    const YAML::Mark m = node ? node.Mark() : YAML::Mark::null_mark();
    if (!m.is_null() && m.line >= 0) out.set_position(m.line, m.column);
    return out;
  }

 private:
  const std::string& file_;
  std::size_t count_ = 0;
};

ConfigNode convert_document(const YAML::Node& doc, const std::string& file, const std::string& path) {
  Converter c(file);
  return c.convert(doc, path, 0);
}

void refuse_directory(const std::string& path) {
  // yaml-cpp opens a directory and reads it as an empty document (or throws an
  // ios_base::failure from inside libstdc++): refuse it by name first.
  check_input_kind(path);  // and devices, named pipes; notes the input
}

}  // namespace

ConfigNode load_yaml_file(const std::string& path) {
  refuse_directory(path);
  try {
    return convert_document(YAML::LoadFile(path), path, "");
  } catch (const YAML::BadFile&) {
    throw Error(fmt::format("{}: cannot open file", path));
  } catch (const YAML::Exception& e) {
    throw Error(fmt::format("{}:{}:{}: YAML syntax error: {}", path, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
}

std::vector<ConfigNode> load_yaml_documents(const std::string& path) {
  refuse_directory(path);
  try {
    std::vector<ConfigNode> out;
    for (const auto& d : YAML::LoadAllFromFile(path)) out.push_back(convert_document(d, path, ""));
    return out;
  } catch (const YAML::BadFile&) {
    throw Error(fmt::format("{}: cannot open file", path));
  } catch (const YAML::Exception& e) {
    throw Error(fmt::format("{}:{}:{}: YAML syntax error: {}", path, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
}

ConfigNode parse_yaml_text(const std::string& text, const std::string& origin, const std::string& key_path,
                           const std::string& invalid) {
  YAML::Node doc;
  try {
    doc = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw Error(fmt::format("{}: {}: {}", origin, invalid, e.msg));
  }
  try {
    return convert_document(doc, origin, key_path);
  } catch (const YAML::Exception& e) {
    throw Error(fmt::format("{}: {}: {}", origin, invalid, e.msg));
  }
}

std::optional<std::int64_t> yaml_integer(const std::string& text) {
  std::int64_t v = 0;
  if (YAML::convert<std::int64_t>::decode(YAML::Node(text), v)) return v;
  return std::nullopt;
}

std::optional<double> yaml_number(const std::string& text) {
  double v = 0;
  if (YAML::convert<double>::decode(YAML::Node(text), v)) return v;
  return std::nullopt;
}

std::optional<bool> yaml_boolean(const std::string& text) {
  bool v = false;
  if (YAML::convert<bool>::decode(YAML::Node(text), v)) return v;
  return std::nullopt;
}

namespace {
YAML::Node to_yaml(const ConfigNode& n) {
  switch (n.kind()) {
    case ConfigNode::Kind::null: return YAML::Node();
    case ConfigNode::Kind::scalar: return YAML::Node(n.text());
    case ConfigNode::Kind::sequence: {
      YAML::Node s(YAML::NodeType::Sequence);
      for (const auto& i : n.items()) s.push_back(to_yaml(i));
      return s;
    }
    case ConfigNode::Kind::map: {
      YAML::Node m(YAML::NodeType::Map);
      for (const auto& e : n.entries()) m[to_yaml(e.key)] = to_yaml(e.value);
      return m;
    }
  }
  return YAML::Node();
}
}  // namespace

std::string to_yaml_text(const ConfigNode& node) {
  YAML::Emitter out;
  out << YAML::Flow << to_yaml(node);
  return out.c_str();
}

}  // namespace servesim
