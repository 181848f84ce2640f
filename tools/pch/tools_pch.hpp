// Precompiled header of the dmlref tool where the compiler is not GCC (tools/meson.build: GCC compiles
// the tool's two units no faster with it): the machinery's (lib/pch/dmlref_json_pch.hpp) and CLI11.
#include "../../lib/pch/dmlref_json_pch.hpp"

#include <CLI/CLI.hpp>
