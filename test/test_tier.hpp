// The test tier: test/meson.build sets DMLREF_TEST_TIER=sanitizer for the doctest of a sanitizer
// build, where a few exhaustive test cases run a thinner sample of the same paths.
#pragma once

#include <cstdlib>
#include <string_view>

namespace dmlref::test {

inline bool sanitizer_tier() {
    const char* tier = std::getenv("DMLREF_TEST_TIER");
    return tier && std::string_view(tier) == "sanitizer";
}

}  // namespace dmlref::test
