#include "config/plan_document.h"

#include "config/yaml_text.h"
#include "util/error.h"

namespace servesim {

ConfigNode plan_document(const std::string& path) {
  if (path.empty()) return ConfigNode();
  try {
    auto docs = load_yaml_documents(path);
    if (docs.size() > 1) return std::move(docs[1]);
  } catch (const Error&) {
    // Loading the first document already reported syntax errors.
  }
  return ConfigNode();
}

}  // namespace servesim
