// The picture of where an output mismatches (docs/diff.md, "The picture"), as the bytes of a
// file: `dmlref diff --image` writes them, `dmlref test --html` embeds the PNG in its page.
#pragma once

#include "dmlref/diff.hpp"

#include <string>

namespace dmlref {

enum class PictureFormat { Png, Ppm };

#include <cstdint>
#include <vector>

// The tiles of the output's elements coloured by verdict, above a legend strip that names each
// colour and its count. `caused`: flat indices of elements over tolerance whose cause explain
// names (docs/explain.md, "The cause"), drawn in a colour of their own. PNG is compressed through
// zlib; PPM is binary P6. Throws DiffError for an output past 2^26 pixels.
std::string mismatch_picture(const OutputCensus& c, PictureFormat format, const std::vector<uint64_t>& caused = {});

}  // namespace dmlref
