#include "scenario/setup.h"

namespace servesim {

CostModel make_cost_model(const Setup& s) {
  return CostModel(s.gpu, s.model, s.resolved, s.parallelism, s.engine.attention);
}

}  // namespace servesim
