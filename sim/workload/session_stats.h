#pragma once
// What the closed-loop session workload (session_source.h) did beyond the
// requests themselves: sessions and sub-agents started, tool calls made, and the
// time its users and tools held the sessions between turns.
#include <cstdint>

namespace servesim {

struct SessionStats {
  std::int64_t sessions = 0;    // top-level sessions started
  std::int64_t subagents = 0;   // sub-agent sessions forked by them
  std::int64_t tool_calls = 0;  // turns answered by a tool call
  std::int64_t joins = 0;       // sub-agent forks joined (their parent went on)
  double tool_s = 0;            // total seconds tools ran
  double think_s = 0;           // total seconds users thought before a turn
};

}  // namespace servesim
