// What a set of cases covers (docs/coverage.md): counting cases by operator, type, rank and
// feature, the holes against DirectML's tables and dmlref's scope, and the text, JSON and HTML.
#include "dmlref/coverage.hpp"

#include "dmlref/numeric.hpp"
#include "dmlref/values.hpp"

#include "../../reference/kit/family.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace dmlref {

namespace {

// The tensor whose type and rank a case is counted by: InputTensor (a grad's OutputGradientTensor),
// or the first of the record's BaseTensors the operator has (ONE_HOT: ValuesTensor, not its indices).
const TensorDesc* base_tensor(const Operator& op) {
    const auto fields = tensor_fields(op);
    for (const char* n : {"InputTensor", "OutputGradientTensor"})
        for (const auto& f : fields)
            if (f.name == n) return f.desc;
    if (const kit::OperatorRecord* r = kit::find_record(op.Type))
        for (std::string_view n : r->BaseTensors)
            for (const auto& f : fields)
                if (f.name == n) return f.desc;
    return fields.empty() ? nullptr : fields.front().desc;
}

// Whether d reads its elements in packed order (a stride of a dimension of size 1 never matters).
bool reads_packed(const TensorDesc& d) {
    if (d.Strides.empty()) return true;
    const auto p = packed_strides(d.Sizes);
    for (size_t i = 0; i < p.size() && i < d.Strides.size(); ++i)
        if (d.Sizes[i] > 1 && int64_t(d.Strides[i]) != p[i]) return false;
    return true;
}

}  // namespace

std::pair<uint32_t, uint32_t> scope_ranks(OperatorType t) {
    const kit::OperatorRecord& r = kit::record(t);
    return {r.MinRank, r.MaxRank};
}

bool scope_type(OperatorType t, DataType type) {
    const auto& scope = kit::record(t).ScopeTypes;
    return scope.empty() || std::find(scope.begin(), scope.end(), type) != scope.end();
}

bool in_directml_tables(OperatorType t, DataType type, uint32_t rank) {
    for (const auto& row : info(t).Support) {
        const bool values = row.Tensors.empty() ||
                            std::find(row.Tensors.begin(), row.Tensors.end(), "InputTensor") != row.Tensors.end();
        if (!values || rank < row.MinDims || rank > row.MaxDims) continue;
        if (std::find(row.DataTypes.begin(), row.DataTypes.end(), type) != row.DataTypes.end()) return true;
    }
    return false;
}

std::vector<std::string> applicable_features(OperatorType t) {
    std::vector<std::string> f;
    if (!info(t).InPlace.empty()) f.push_back("in-place");
    f.push_back("strided-tensor");
    // Broadcast, NaN and infinite inputs need an input tensor: an operator without one (the
    // fills) writes its output only, which may not overlap itself.
    const Operator op = make_operator(t);
    bool inputs = false;
    for (const auto& x : tensor_fields(op)) inputs = inputs || x.role == TensorRole::Input;
    if (inputs) f.push_back("broadcast");
    // NaN and infinity need a float input: not applicable where dmlref's scope is integer types only.
    const auto& scope = kit::record(t).ScopeTypes;
    if (inputs && (scope.empty() || std::any_of(scope.begin(), scope.end(), [](DataType d) { return is_float(d); })))
        f.insert(f.end(), {"nan-input", "inf-input"});
    for (std::string_view n : kit::record(t).features) f.emplace_back(n);
    f.push_back("error-case");
    return f;
}

std::vector<std::string> case_features(const Case& c) {
    std::vector<std::string> f;
    if (!c.in_place.empty()) f.push_back("in-place");
    bool strided = false, broadcast = false, nan = false, inf = false;
    for (const auto& t : tensor_fields(c.op)) {
        strided = strided || !reads_packed(*t.desc);
        for (size_t i = 0; i < t.desc->Strides.size() && i < t.desc->Sizes.size(); ++i)
            broadcast = broadcast || (t.desc->Strides[i] == 0 && t.desc->Sizes[i] > 1);
        auto in = c.inputs.find(std::string(t.name));
        if (in == c.inputs.end() || !is_float(t.desc->DataType)) continue;
        const DataType dt = t.desc->DataType;
        const size_t w = element_size(dt);
        for (size_t i = 0; i + w <= in->second.size(); i += w) {
            const double v = dispatch(dt, [&]<class T>() -> double {
                return double(widen(from_bits<T>(bits_t<T>(load_bits(dt, in->second.data() + i)))));
            });
            nan = nan || std::isnan(v);
            inf = inf || std::isinf(v);
        }
    }
    if (strided) f.push_back("strided-tensor");
    if (broadcast) f.push_back("broadcast");
    if (nan) f.push_back("nan-input");
    if (inf) f.push_back("inf-input");
    // The family's own features (declared beside them in its record).
    if (const kit::OperatorRecord* r = kit::find_record(c.op.Type); r && r->detect) r->detect(c, f);
    return f;
}

void Coverage::add(const Case& c) {
    ++cases;
    const TensorDesc* b = base_tensor(c.op);
    if (b) ++cells[c.op.Type][b->DataType][uint32_t(b->Sizes.size())];
    auto& f = features[c.op.Type];
    for (const auto& n : case_features(c)) ++f[n];
}

void Coverage::add_error_case(const std::string& rule, std::optional<OperatorType> op) {
    ++cases;
    ++error_rules[rule];
    if (op) ++features[*op]["error-case"];
}

Holes holes(const Coverage& c) {
    Holes h;
    for (const auto& i : all_operators()) {
        if (!c.shown(i.Type)) continue;
        const auto [lo, hi] = scope_ranks(i.Type);
        auto it = c.cells.find(i.Type);
        for (DataType t : kAllDataTypes)
            for (uint32_t r = lo; r <= hi && scope_type(i.Type, t); ++r) {
                uint64_t n = 0;
                if (it != c.cells.end() && it->second.count(t) && it->second.at(t).count(r)) n = it->second.at(t).at(r);
                if (n) continue;
                ++h.scope;
                if (in_directml_tables(i.Type, t, r)) ++h.directml;
            }
        auto f = c.features.find(i.Type);
        for (const auto& n : applicable_features(i.Type))
            if (f == c.features.end() || !f->second.count(n)) ++h.features;
    }
    return h;
}

}  // namespace dmlref
