// The scenario's `energy:` section: what the run's electricity means outside the
// GPU. Board power itself is the GPU file's (`power:`, hardware/power_model.h);
// here is the grid it comes from, for grams of CO2 per token (docs/energy.md).
#include "config/scenario_sections.h"

namespace servesim {
namespace {

// No default: a grid's intensity varies tenfold between regions (Ember, Global
// Electricity Review 2024: a world average of 480 gCO2/kWh in 2023, from under
// 50 in hydro- or nuclear-heavy grids to over 700 in coal-heavy ones), so a
// number servesim picked would be wrong for most users. Unset: no carbon figures.
const Key kGridIntensity{
    .name = "grid_intensity",
    .type = KeyType::quantity,
    .doc = "carbon intensity of the electricity the GPUs draw, for gCO2 per token and per request (e.g. \"480 "
           "gCO2/kWh\", Ember's 2023 world average; use your region's or your provider's figure)",
    .spec = "Scenario::grid_g_per_kwh",
    .dimension = Dimension::carbon_intensity,
    .default_note = "none: no carbon figures",
    .min = 0,
    .max = 2000,
    .why = "above every grid's intensity (coal plants emit about 1000 gCO2/kWh)"};

}  // namespace

const KeySection& energy_key_section() {
  static const KeySection s{.path = "energy",
                            .doc = "the electricity the GPUs draw: its carbon intensity (power itself: the GPU "
                                   "file's power section)",
                            .keys = {&kGridIntensity}};
  return s;
}

double read_energy(ConfigMap& m) {
  const double g = has_key(m, kGridIntensity) ? read_quantity(m, kGridIntensity) : 0.0;
  m.finish();
  return g;
}

}  // namespace servesim
