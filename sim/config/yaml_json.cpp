#include "config/yaml_json.h"

#include "config/config_node.h"
#include "config/yaml_text.h"
#include "workload/trace_text.h"

namespace servesim {

namespace {
nlohmann::json to_json(const ConfigNode& n) {
  switch (n.kind()) {
    case ConfigNode::Kind::null: return nullptr;
    case ConfigNode::Kind::map: {
      nlohmann::json o = nlohmann::json::object();
      for (const auto& e : n.entries()) o[e.key.text()] = to_json(e.value);
      return o;
    }
    case ConfigNode::Kind::sequence: {
      nlohmann::json a = nlohmann::json::array();
      for (const auto& item : n.items()) a.push_back(to_json(item));
      return a;
    }
    case ConfigNode::Kind::scalar: break;
  }
  const std::string& t = n.text();
  if (n.quoted()) return t;
  if (t.empty() || t == "null" || t == "~" || t == "Null" || t == "NULL") return nullptr;
  if (t == "true" || t == "True") return true;
  if (t == "false" || t == "False") return false;
  if (t.find_first_of(".eE") == std::string::npos)
    if (const auto i = trace_detail::parse_integer(t)) return *i;
  if (const auto d = trace_detail::parse_number(t)) return *d;
  return t;
}
}  // namespace

nlohmann::json load_yaml_as_json(const std::string& path) { return to_json(load_yaml_file(path)); }

}  // namespace servesim
