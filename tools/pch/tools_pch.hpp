// Precompiled header of the dmlref tool: the machinery's (lib/pch/dmlref_json_pch.hpp) and CLI11, whose
// header-only parser costs every command file about ten seconds of compile time without it.
#include "../../lib/pch/dmlref_json_pch.hpp"

#include <CLI/CLI.hpp>
