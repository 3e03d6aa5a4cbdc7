// The Catch2 v2 runner, compiled once in its own translation unit.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
