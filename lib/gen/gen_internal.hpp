// What the parts of the generator share (lib/gen/gen_*.cpp): a sweep's variants and their overrides,
// the spec's values with their exact number text, derived fields, and input recipes. Internal.
#pragma once

#include "dmlref/gen.hpp"
#include "case/json_writer.hpp"

#include <string>
#include <vector>

namespace dmlref::gen {

// One JSON pointer set to one value in the base case.
struct Override {
    std::string pointer;
    ordered_json value;
    std::string source;  // where the spec says it: the value's JSON pointer in the spec
};

// One case of a sweep before it is made: its name parts, description parts and overrides.
struct Variant {
    std::vector<std::string> labels;
    std::vector<std::string> notes;
    std::vector<Override> overrides;
};

// gen_spec.cpp: a spec value as ordered JSON, every non-integer number kept as its exact text
// (json_raw), so that a decimal is rounded once, by the case reader, from what the spec says.
ordered_json raw_json(const JsonDocument& doc, const json& node, const std::string& pointer);
// The variants a node gives at a tier (product, zip, concat, byTier, use, axes, variants); none,
// with an error, where a node would give more than max_cases or a "use" is a cycle.
std::vector<Variant> expand(const JsonDocument& doc, const json& node, const std::string& pointer, Tier tier,
                            Diagnostics& diags, size_t max_cases);
// A label made safe for a file name: [A-Za-z0-9._,+-] kept, anything else '-'.
std::string safe_label(std::string s);

// gen_derive.cpp: resolves {"$repeat": v}, "auto" DataType / DimensionCount / ScaleCount and
// "auto" / "auto:ceil" Sizes in a case (docs/gen.md, "Derived fields"). Errors name `where`
// (the case's name) and the pointer inside the case.
bool derive(ordered_json& c, const std::string& where, Diagnostics& diags);

// gen_recipe.cpp: whether an input spec is a recipe ({"Recipe": ...}), and the input it makes
// (an array of exact values, or a Random generator) for a field of a parsed operator. `note`
// receives what the recipe exercises, for the case's description.
bool is_recipe(const ordered_json& input);
bool make_recipe(const Operator& op, const TensorField& field, const ordered_json& recipe, uint64_t seed,
                 ordered_json& out, std::string& note, std::string& error);

}  // namespace dmlref::gen
