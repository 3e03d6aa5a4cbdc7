#pragma once
// servesim's version, written into every summary.json (keep in step with
// project(servesim VERSION ...) in the top-level CMakeLists.txt).
namespace servesim {
inline constexpr const char* kServesimVersion = "0.1.0";
}
