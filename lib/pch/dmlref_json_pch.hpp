// Precompiled header of lib/'s machinery and of the records, which read and write JSON (tools/pch
// and test/pch add to it for the tool and the tests where the compiler is not GCC): the library's
// (lib/pch/dmlref_pch.hpp) and nlohmann/json.hpp. The plain loops and the fast paths use
// lib/pch/dmlref_pch.hpp alone: a unit with nlohmann/json.hpp in its precompiled header costs about
// 1 to 1.5 s more CPU time, and include/dmlref/ declares the JSON types only
// (nlohmann/json_fwd.hpp). No include guard (lib/pch/dmlref_pch.hpp says why).
#include "dmlref_pch.hpp"

#include <nlohmann/json.hpp>
