// Precompiled header of lib/'s machinery, which reads and writes JSON (tools/pch and test/pch add to
// it for the tool and the tests): the library's (lib/pch/dmlref_pch.hpp) and nlohmann/json.hpp. The
// plain loops, the fast paths and the records use lib/pch/dmlref_pch.hpp alone: a unit costs about
// three times the CPU time with nlohmann/json.hpp in its precompiled header, and include/dmlref/
// declares the JSON types only (nlohmann/json_fwd.hpp). No include guard (lib/pch/dmlref_pch.hpp says why).
#include "dmlref_pch.hpp"

#include <nlohmann/json.hpp>
