#include "config/pool_setup.h"

#include <fmt/format.h>

#include "config/config_error.h"
#include "config/edits.h"
#include "config/scenario_sections.h"
#include "util/error.h"

namespace servesim {

void put_pool_key(ConfigNode& doc, ConfigMap& pool, const Key& k, const std::string& target) {
  if (const ConfigNode* v = pool.get(std::string(k.name))) set_key(doc, target, *v);
}

void drop_price_of_other_gpu(ConfigNode& doc, ConfigMap& root, ConfigMap& pool, const Key& gpu_key) {
  const ConfigNode* g = pool.get(std::string(gpu_key.name));
  if (!g) return;
  const ConfigNode* hw = root.node().find("hardware");
  const ConfigNode* own = hw ? hw->find("gpu") : nullptr;
  if (own && own->text() == g->text()) return;
  if (ConfigNode* h = doc.find("hardware")) h->remove("price_per_hour");
}

Setup read_pool_setup(const ConfigNode& doc, ConfigMap& root, ConfigMap& pool) {
  pool.finish();
  ConfigMap m(doc, root.file());
  try {
    return read_setup(m);
  } catch (const ConfigError& e) {
    throw ConfigError(e.kind(), e.file(), e.line(), e.column(), e.key_path(),
                      fmt::format("{} (as {}'s setup)", e.what(), pool.path()));
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", pool.where(), e.what()));
  }
}

}  // namespace servesim
