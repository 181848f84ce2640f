// The operator kit: what dmlref knows about one operator family, in one record that the family's
// own files fill and reference/kit/registry.cpp lists (docs/adding-an-operator.md). Every pass of
// dmlref (reading and writing cases, validation, evaluation, judging, explain, gen, coverage,
// the work estimate) reaches an operator only through its record: none names an operator or
// recognises a family by its desc's field names. Internal to dmlref.
#pragma once

#include "dmlref/case.hpp"
#include "dmlref/explain.hpp"
#include "dmlref/operators.hpp"
#include "dmlref/readings.hpp"
#include "dmlref/terms.hpp"
#include "dmlref/tolerance.hpp"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace dmlref::gen {

// A pooling output size along one dimension (floor, or ceil mode: one more when the division
// has a remainder); 0 when the dilated window does not fit in the padded input. For the records'
// derived sizes (SizeRequest, below) and gen (lib/gen/gen_derive.cpp).
uint64_t pooled_size(uint64_t in, uint64_t start, uint64_t end, uint64_t window, uint64_t stride, uint64_t dilation,
                     bool ceil);

}  // namespace dmlref::gen

namespace dmlref::kit {

// ---- Judging: per output, a mode (data), and the hooks the mode needs ------------------------
// docs/tolerance.md explains the modes. The judge (lib/judge/tolerance.cpp, lib/judge/diff.cpp) works from
// these rows alone.
using ComputedBounds = void (*)(const Operator&, const InputBuffer&, const ArithmeticProfile&, TermSink&);
// The terms of every element of a summed output, from the case's inputs (TermSink::add).
using TermsHook = void (*)(const Case&, std::string_view output, const ArithmeticProfile&, TermSink&);
// Whether this case's output is a sum (a NaN golden matches any NaN); null: whenever it has terms or bounds.
using SummedHook = bool (*)(const Operator&, std::string_view output);

struct OutputRule {
    std::string_view output;  // the output tensor field
    TypeClass types;          // the element types the row covers; the first matching row wins
    ToleranceRule rule;
    BoundaryRule boundary = BoundaryRule::None;
    ComputedBounds bounds = nullptr;  // computed outputs: each element's bound (docs/tolerance.md)
    TermsHook terms = nullptr;        // summed outputs whose terms dmlref enumerates
    SummedHook summed = nullptr;
    // Per-element term counts for rule Summed (e.g. MAX_POOLING_GRAD's windows per element).
    std::vector<uint32_t> (*term_counts)(const Case&, std::string_view output) = nullptr;
};

// ---- Coverage, gen and the work estimate ---------------------------------------------------
// Coverage features (docs/coverage.md): the ones the family declares for an operator, and those
// a case shows. Declared and detected together, so that a feature can't be detected undeclared.
using DetectHook = void (*)(const Case&, std::vector<std::string>& features);

// gen's "auto" sizes (docs/gen.md, "Derived fields"): the sizes of `tensor` given the desc as
// JSON (arrays already expanded) and the base tensor's sizes. Returns false with `error` set when
// the desc does not give them; leaves `out` as the base sizes where the tensor follows the base.
struct SizeRequest {
    const nlohmann::ordered_json& desc;
    std::string_view tensor;
    std::string_view base;  // the tensor the others follow
    const std::vector<uint64_t>& base_sizes;
    bool ceil;  // "auto:ceil"
};
// On failure `error_path` is the JSON pointer of the field at fault ("" for the tensor's Sizes).
using SizesHook = bool (*)(const SizeRequest&, std::vector<uint64_t>& out, std::string& error_path, std::string& error);
// Reading a desc given as JSON, for a SizesHook: `count` non-negative integers of an array field
// (`fallback` each where the field is absent), or any integers; a FLOAT32 value as the case
// reader reads it. nullopt with `error` set where the field does not hold them.
std::optional<std::vector<uint64_t>> json_uints(const nlohmann::ordered_json& desc, std::string_view field,
                                                size_t count, uint64_t fallback, std::string& error);
std::optional<std::vector<int64_t>> json_ints(const nlohmann::ordered_json& desc, std::string_view field, size_t count,
                                              std::string& error);
std::optional<float> json_float(const nlohmann::ordered_json& v);

// Hard values for gen's recipes (docs/gen.md, "Recipes"): the family's named candidate sets.
// "min-max": the values a clip compares against, as bits of `t`; "windows": for a pooling
// operator's input, the logical indices of the first, middle or last real element (where = 0,
// 1, 2) of the first and last windows of each plane.
using MinMaxHook = bool (*)(const Operator&, DataType t, uint64_t& lo, uint64_t& hi);
using WindowsHook = std::vector<uint64_t> (*)(const Operator&, const TensorDesc& input, int where);

// ---- One operator ------------------------------------------------------------------------
struct OperatorRecord {
    OperatorInfo info;                 // name, type, feature level, support rows, policies
    OperatorDesc (*make)() = nullptr;  // a default desc of the operator's struct

    // The rules and the loop (reference/<family>.cpp).
    void (*validate)(const OperatorDesc&, Diagnostics&) = nullptr;
    void (*validate_values)(const OperatorDesc&, const InputBuffers&, uint64_t max_work, Diagnostics&) = nullptr;
    // The fast path, tried first where fast paths are on: false when it does not apply.
    bool (*fast)(const OperatorDesc&, const Bindings&) = nullptr;
    void (*evaluate)(const OperatorDesc&, const Bindings&) = nullptr;  // the plain loop
    std::vector<DontCare> (*dont_care)(const OperatorDesc&, std::string_view output) = nullptr;
    // Undefined output elements that the case's input values decide (NONZERO_COORDINATES' rows
    // past the count); write_golden records them beside dont_care's.
    std::vector<DontCare> (*case_dont_care)(const Case&, std::string_view output) = nullptr;

    // Judging.
    std::vector<OutputRule> outputs;
    // ToleranceRule::OperatorStated: the tolerance the golden records, from the desc alone
    // (desc_tolerance) or from the whole case, inputs included (case_tolerance, tried first).
    std::optional<Tolerance> (*desc_tolerance)(const OperatorDesc&, std::string_view output) = nullptr;
    std::optional<Tolerance> (*case_tolerance)(const Case&, std::string_view output) = nullptr;
    // The elements on a decision boundary: from the desc alone, as goldens record them
    // (desc_boundary, BoundaryRule::OperatorStated), and those a case's input values put there
    // (case_boundary: a ReLU gradient's zeros, argmax ties), which diff reports apart.
    Boundary (*desc_boundary)(const OperatorDesc&, std::string_view output) = nullptr;
    std::vector<BoundaryElement> (*case_boundary)(const Case&, std::string_view output) = nullptr;
    // Conditions on the tensors at a feature level beyond the support rows, as reasons.
    void (*support_rules)(const OperatorDesc&, uint32_t level, std::vector<std::string>& why) = nullptr;
    // The judge reads the inputs (bounds from input values; cases too large to hold are skipped).
    bool reads_inputs = false;
    // ToleranceRule::Ulp1WithScaleBias: whether the desc applies a ScaleBias.
    bool (*has_scale_bias)(const OperatorDesc&) = nullptr;

    ExplainHook explain = nullptr;  // dmlref explain's operator part

    // dmlref's own scope: the ranks and types it evaluates (all eleven types when empty), which
    // coverage counts holes against.
    uint32_t MinRank = 1, MaxRank = 8;
    std::vector<DataType> ScopeTypes;

    std::vector<std::string_view> features;  // coverage features it may show
    DetectHook detect = nullptr;
    // Element reads and writes per output element beyond one (a window's taps), and the
    // operator's own DontCare entries, for --max-work (docs/rules.md, limit.work).
    uint64_t (*work_factor)(const OperatorDesc&) = nullptr;
    uint64_t (*dont_care_entries)(const OperatorDesc&) = nullptr;
    // The work of rounding one output element correctly (Ziv's loop in MPFR, exact rationals)
    // beyond the reads above, in element reads and writes as --max-work counts them: measured
    // against ELEMENT_WISE_ADD (docs/rules.md, limit.work). Required of every operator with an
    // OperatorStated output (record_gaps); kit::rounding_cost<0> where rounding costs no more
    // than a read.
    uint64_t (*rounding_cost)(const OperatorDesc&) = nullptr;

    // gen's derived fields: the tensors the others follow, in order of preference (the first the
    // case gives sizes for); the first dimension the desc's per-dimension arrays cover (pooling: 2,
    // the spatial dimensions); the sizes of the others.
    std::vector<std::string_view> BaseTensors = {"InputTensor", "OutputGradientTensor", "InputGradientTensor"};
    uint32_t ArraysFrom = 0;
    SizesHook sizes = nullptr;
    MinMaxHook min_max = nullptr;
    WindowsHook windows = nullptr;
};

struct FamilyRecord {
    std::string_view name;  // "max_pooling": its files are reference/max_pooling*.cpp
    std::vector<OperatorRecord> operators;
    // The alternative readings the family evaluates (docs/golden.md, "Alternative readings"): each
    // names its policy, value, meaning, who reads it so and the operators it changes (one of
    // another family too, where that family's loop follows it). The kit gives each an id; a loop
    // asks in_force<"Policy", "Value">() (dmlref/readings.hpp) where it decides that policy.
    std::vector<Alternative> readings = {};
};

// Every family, in the order of the one list (reference/kit/registry.cpp).
const std::vector<const FamilyRecord*>& families();
// The record of an operator dmlref evaluates; std::invalid_argument for one it does not.
const OperatorRecord& record(OperatorType t);
const OperatorRecord* find_record(OperatorType t);

// ---- Helpers for a family's record ----------------------------------------------------------
// Type-erased hooks from functions of the operator's own desc struct; an overloaded name picks
// the overload of that struct: `r.validate = kit::validate_as<DML_SLICE_OPERATOR_DESC, validate>;`
template <class D> OperatorDesc make_desc() { return D{}; }
template <class D, void (*F)(const D&, Diagnostics&)> void validate_as(const OperatorDesc& d, Diagnostics& g) {
    F(get<D>(d), g);
}
template <class D, void (*F)(const D&, const Bindings&)> void evaluate_as(const OperatorDesc& d, const Bindings& b) {
    F(get<D>(d), b);
}
template <class D, bool (*F)(const D&, const Bindings&)> bool fast_as(const OperatorDesc& d, const Bindings& b) {
    return F(get<D>(d), b);
}
template <class D, std::vector<DontCare> (*F)(const D&, std::string_view)>
std::vector<DontCare> dont_care_as(const OperatorDesc& d, std::string_view o) {
    return F(get<D>(d), o);
}
template <class D, void (*F)(const D&, const InputBuffers&, uint64_t, Diagnostics&)>
void validate_values_as(const OperatorDesc& d, const InputBuffers& in, uint64_t w, Diagnostics& g) {
    F(get<D>(d), in, w, g);
}
template <class D, std::optional<Tolerance> (*F)(const D&, std::string_view)>
std::optional<Tolerance> tolerance_as(const OperatorDesc& d, std::string_view o) {
    return F(get<D>(d), o);
}
template <class D, Boundary (*F)(const D&, std::string_view)>
Boundary boundary_as(const OperatorDesc& d, std::string_view o) {
    return F(get<D>(d), o);
}

// A rounding cost that the desc does not change (OperatorRecord::rounding_cost).
template <uint64_t N> uint64_t rounding_cost(const OperatorDesc&) { return N; }

// A record with the parts every operator has: its facts, its desc, validate and the plain loop.
template <class D, void (*V)(const D&, Diagnostics&), void (*E)(const D&, const Bindings&)>
OperatorRecord operator_record(OperatorInfo info) {
    OperatorRecord r;
    r.info = std::move(info);
    r.info.Type = D::kType;
    r.info.Name = operator_type_name(D::kType);
    r.make = make_desc<D>;
    r.validate = validate_as<D, V>;
    r.evaluate = evaluate_as<D, E>;
    return r;
}

// Where a record is incomplete, the reasons ("ELEMENT_WISE_ADD: no judging rule for OutputTensor");
// empty when complete. The registry refuses to start with an incomplete record, and the
// completeness test (test/test_registry.cpp) checks the rest (cases, sweeps, docs).
std::vector<std::string> record_gaps(const OperatorRecord& r);

}  // namespace dmlref::kit
