// Precompiled header of the doctest binary where the compiler is not GCC (test/meson.build: GCC
// compiles the units no faster with it): the machinery's (lib/pch/dmlref_json_pch.hpp) and the
// multiple-precision headers the tests' independent computations use. doctest itself stays out:
// main.cpp's DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN must be seen before doctest's header is.
#include "../../lib/pch/dmlref_json_pch.hpp"

#include <gmpxx.h>
#include <mpfr.h>
