#include "core/sim_time.h"

#include <fmt/format.h>

#include "util/error.h"

namespace servesim {

void throw_time_out_of_range(double seconds) {
  throw Error(fmt::format(
      "a simulated time of {:g} s is outside servesim's clock range of +/-{:g} s (31.7 years): the clock counts "
      "int64 nanoseconds, which end at 292 years, and keeps a margin so sums cannot overflow; an arrival rate, "
      "duration, think time or trace timestamp in the input is too extreme for the run to be simulated",
      seconds, kMaxSimSeconds));
}

}  // namespace servesim
