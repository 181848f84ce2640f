// Precompiled header of the plain loops and the fast paths (lib/pch/dmlref_json_pch.hpp adds
// nlohmann/json.hpp to it for lib/'s machinery and the records, and, where the compiler is not GCC,
// the tool and the tests): the standard library and the third-party headers nearly every
// translation unit includes through include/dmlref/. Only headers that never change with dmlref's
// own code belong here, so that the header is compiled once per target and never invalidates a
// build. It changes no meaning: every file still includes what it uses, and a build with
// -Db_pch=false is the same program. No include guard: the compiler reads it first, once, as the
// precompiled header (a guard there is a warning, and CI makes warnings errors).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json_fwd.hpp>
