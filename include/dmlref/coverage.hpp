// What a set of cases covers (docs/coverage.md): operator x type x rank and operator x feature
// counts, with the holes against DirectML's support tables and against dmlref's own scope (every
// type, ranks 1 to 8, max pooling 3 to 8), as text, JSON and a self-contained HTML page.
#pragma once

#include "dmlref/case.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dmlref {

struct Coverage {
    // counts[operator][type][rank]
    std::map<OperatorType, std::map<DataType, std::map<uint32_t, uint64_t>>> cells;
    // features[operator][feature]
    std::map<OperatorType, std::map<std::string, uint64_t>> features;
    std::map<std::string, uint64_t> error_rules;  // expectError cases by rule
    uint64_t cases = 0, unreadable = 0;
    // The reports and holes() cover every operator of the registry, or (false; `dmlref coverage`
    // without --all) only those some case exercises.
    bool every_operator = true;
    bool shown(OperatorType t) const { return every_operator || cells.count(t) || features.count(t); }

    void add(const Case& c);  // a case that read without errors
    // An expectError case, by the rule it expects and its operator (when it names a known one).
    void add_error_case(const std::string& rule, std::optional<OperatorType> op);
};

// The features a case exercises (names as in docs/coverage.md), and those that apply to an operator.
std::vector<std::string> case_features(const Case& c);
std::vector<std::string> applicable_features(OperatorType t);

// dmlref's scope for an operator: its ranks (1..8, or 3..8 for max pooling).
std::pair<uint32_t, uint32_t> scope_ranks(OperatorType t);
// Whether a type is in dmlref's scope for the operator (all eleven, but ROI align: FLOAT32, FLOAT16).
bool scope_type(OperatorType t, DataType type);
// Whether DirectML's support tables admit (type, rank) for the operator's value tensors at some level.
bool in_directml_tables(OperatorType t, DataType type, uint32_t rank);

struct Holes {
    uint64_t scope = 0;     // (operator, type, rank) in dmlref's scope with no case
    uint64_t directml = 0;  // ... of those, inside DirectML's tables
    uint64_t features = 0;  // applicable (operator, feature) with no case
};
Holes holes(const Coverage& c);

std::string coverage_text(const Coverage& c);
std::string coverage_json(const Coverage& c);
std::string coverage_html(const Coverage& c);

}  // namespace dmlref
