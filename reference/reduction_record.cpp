// The reduction family's record (reference/kit/family.hpp): the facts of DML_REDUCE_OPERATOR_DESC,
// DML_ARGMIN_OPERATOR_DESC and DML_ARGMAX_OPERATOR_DESC from their pages ("Availability", "Tensor
// support"; REDUCE's tables depend on the Function, which support_rules says), the policies its
// goldens record, how its outputs are judged (selected values and indices bit for bit, float
// sums, products, norms and logarithms by a per-element bound), coverage, gen and the work
// estimate.
#include "reduction.hpp"

#include "fast/reduce_sum.hpp"

#include "kit/policies.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace dmlref::reference {

namespace rec_reduction {

using namespace kit;
using RD = DML_REDUCE_OPERATOR_DESC;
using AMIN = DML_ARGMIN_OPERATOR_DESC;
using AMAX = DML_ARGMAX_OPERATOR_DESC;

// The policies (docs/golden.md, "Reduction").
constexpr Policy kArgNaN{"ArgMinMaxNaN", "NaNLosesToAnyNumber"};
constexpr Policy kArgSignedZero{"ArgMinMaxSignedZero", "EqualValues"};
constexpr Policy kArgIndex{"ArgMinMaxIndex", "RowMajorOverReducedAxes"};
constexpr Policy kReduceArgTies{"ReduceArgTies", "FirstIndex"};
constexpr Policy kSignedZeroMinMax{"SignedZeroMinMax", "NegativeZeroBelowPositiveZero"};
constexpr Policy kMinMaxAllNaN{"ReduceMinMaxAllNaN", "FirstNaNBits"};
constexpr Policy kAverageDivisor{"AverageDivisor", "ExactCountRoundedOnceWithTheSum"};
constexpr Policy kProductSign{"ProductSign", "ExclusiveOrOfSigns"};
constexpr Policy kLogDomain{"ReduceLogDomain", "IeeeLog"};
constexpr Policy kIntegerOverflow{"IntegerOverflow", "WrapToWidth"};

const std::vector<DT> kF32F16U32 = {DT::FLOAT32, DT::FLOAT16, DT::UINT32};
const std::vector<DT> kF32F16I32U32 = {DT::FLOAT32, DT::FLOAT16, DT::INT32, DT::UINT32};
const std::vector<DT> kIndexTypes = {DT::INT64, DT::INT32, DT::UINT64, DT::UINT32};
const std::vector<DT> kSixTypes = {DT::FLOAT32, DT::FLOAT16, DT::INT64, DT::INT32, DT::UINT64, DT::UINT32};
const std::vector<DT> kEightAndIndex = {DT::FLOAT32, DT::FLOAT16, DT::INT32, DT::INT16, DT::INT8,
                                        DT::UINT32,  DT::UINT16,  DT::UINT8, DT::INT64, DT::UINT64};
const std::vector<std::string_view> kIn = {"InputTensor"};
const std::vector<std::string_view> kOut = {"OutputTensor"};

bool contains(const std::vector<DT>& v, DT t) { return std::find(v.begin(), v.end(), t) != v.end(); }

// REDUCE's "Tensor support according to function": the rows above are the union over the
// functions; each function's own table, per feature level.
void reduce_support_rules(const OperatorDesc& desc, uint32_t level, std::vector<std::string>& why) {
    const RD& d = get<RD>(desc);
    const uint32_t f = d.Function;
    std::vector<DT> in, out;
    if (f == DML_REDUCE_FUNCTION_ARGMAX || f == DML_REDUCE_FUNCTION_ARGMIN) {
        in = level >= 0x4100 ? kTenTypes : level >= 0x2100 ? kEightTypes : kF32F16;
        out = level >= 0x3000 ? kIndexTypes : kU32;
    } else if (f == DML_REDUCE_FUNCTION_MAX || f == DML_REDUCE_FUNCTION_MIN) {
        in = out = level >= 0x5000   ? kTenTypes
                   : level >= 0x3000 ? kEightTypes
                   : level >= 0x2100 ? kF32F16I32U32
                                     : kF32F16;
    } else if (f == DML_REDUCE_FUNCTION_MULTIPLY || f == DML_REDUCE_FUNCTION_SUM) {
        in = out = level >= 0x5000 ? kSixTypes : level >= 0x2100 ? kF32F16I32U32 : kF32F16;
    } else if (f == DML_REDUCE_FUNCTION_L1 || f == DML_REDUCE_FUNCTION_SUM_SQUARE) {
        in = out = level >= 0x5000 ? kSixTypes : kF32F16;
    } else {
        in = out = kF32F16;  // AVERAGE, L2, LOG_SUM, LOG_SUM_EXP
    }
    const std::string fn = "DML_REDUCE_FUNCTION_" + std::string(reduce_function_name(f));
    if (!contains(in, d.InputTensor.DataType))
        why.push_back("InputTensor: DataType " + std::string(name(d.InputTensor.DataType)) + " is not in " + fn +
                      "'s table");
    if (!contains(out, d.OutputTensor.DataType))
        why.push_back("OutputTensor: DataType " + std::string(name(d.OutputTensor.DataType)) + " is not in " + fn +
                      "'s table");
}

// ---- Coverage ---------------------------------------------------------------------------------

template <class D> void detect(const Case& c, std::vector<std::string>& f) {
    const D& d = get<D>(c.op.Desc);
    const size_t rank = d.InputTensor.Sizes.size();
    if (d.Axes.size() == rank) f.push_back("all-axes");
    else if (d.Axes.size() == 1) f.push_back("one-axis");
    else f.push_back("several-axes");
    std::vector<uint32_t> a = d.Axes;
    std::sort(a.begin(), a.end());
    for (size_t i = 1; i < a.size(); ++i)
        if (a[i] != a[i - 1] + 1) {
            f.push_back("non-adjacent-axes");
            break;
        }
    if (reduction_terms(c.op.Desc) >= 64) f.push_back("long-reduction");
    if constexpr (std::is_same_v<D, RD>) {
        std::string n(reduce_function_name(d.Function));
        std::transform(n.begin(), n.end(), n.begin(),
                       [](char ch) { return ch == '_' ? '-' : char(std::tolower((unsigned char)ch)); });
        f.push_back("function-" + n);
    } else {
        f.push_back(d.AxisDirection == DML_AXIS_DIRECTION_DECREASING ? "decreasing" : "increasing");
        const DT t = d.OutputTensor.DataType;
        if (contains(kIndexTypes, t)) {
            std::string n(name(t));
            std::transform(n.begin(), n.end(), n.begin(),
                           [](char ch) { return char(std::tolower((unsigned char)ch)); });
            f.push_back("index-" + n);
        }
    }
}

uint64_t work(const OperatorDesc& d) { return reduction_terms(d); }

// gen's "auto" OutputTensor sizes: InputTensor's with 1 in every axis of Axes.
bool sizes(const SizeRequest& r, std::vector<uint64_t>& out, std::string& error_path, std::string& error) {
    out = r.base_sizes;
    if (r.tensor != "OutputTensor") return true;
    const auto it = r.desc.find("Axes");
    if (it == r.desc.end() || !it->is_array()) {
        error_path = "/desc/Axes";
        error = "Axes must be given (an array of axes) for OutputTensor's \"auto\" sizes";
        return false;
    }
    for (size_t i = 0; i < it->size(); ++i) {
        const auto& a = (*it)[i];
        if (!a.is_number_unsigned() || a.get<uint64_t>() >= out.size()) {
            error_path = "/desc/Axes/" + std::to_string(i);
            error = "Axes[" + std::to_string(i) + "] must be an axis of InputTensor (0 to " +
                    std::to_string(out.size() - 1) + ")";
            return false;
        }
        out[a.get<uint64_t>()] = 1;
    }
    return true;
}

std::vector<BoundaryElement> ties(const Case& c, std::string_view) {
    std::vector<BoundaryElement> out;
    if (c.inputs.count("InputTensor"))
        for (uint64_t i : reduction_ties(c.op, c.inputs.at("InputTensor"))) out.push_back({i, "ArgmaxTie"});
    return out;
}

template <class D> OperatorRecord reduction_record(OperatorInfo info) {
    auto r = operator_record<D, validate, evaluate>(std::move(info));
    r.explain = explain_reduction;
    r.case_boundary = ties;
    r.features = {"all-axes", "one-axis", "several-axes", "non-adjacent-axes", "long-reduction"};
    r.detect = detect<D>;
    r.work_factor = work;
    r.sizes = sizes;
    return r;
}

// DML_ARGMIN_ and DML_ARGMAX_OPERATOR_DESC's tables: 3.0, eight input types; 4.1 adds INT64 and UINT64
// inputs (as the REDUCE page's ARGMIN and ARGMAX table says of the functions these operators supersede).
const std::vector<SupportRow> kArgRows = {
    {0x3000, kIn, 1, 8, kEightTypes}, {0x3000, kOut, 1, 8, kIndexTypes}, {0x4100, kIn, 1, 8, kTenTypes}};

template <class D> OperatorRecord arg_min_max() {
    auto r = reduction_record<D>(
        {.IntroducedIn = 0x3000, .Support = kArgRows, .Policies = {kArgNaN, kArgSignedZero, kArgIndex, kSubnormals}});
    r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::Bits, BoundaryRule::ArgmaxTie}};
    r.features.insert(r.features.end(),
                      {"increasing", "decreasing", "index-int64", "index-int32", "index-uint64", "index-uint32"});
    return r;
}

OperatorRecord reduce() {
    auto r = reduction_record<RD>(
        {.IntroducedIn = 0x1000,
         .Support = {{0x1000, kIn, 4, 4, kF32F16},
                     {0x1000, kOut, 4, 4, kF32F16U32},
                     {0x2100, kIn, 4, 4, kEightTypes},
                     {0x2100, kOut, 4, 4, kF32F16I32U32},
                     {0x3000, kIn, 1, 8, kEightTypes},
                     {0x3000, kOut, 1, 8, kEightAndIndex},
                     {0x4100, kIn, 1, 8, kTenTypes},
                     {0x5000, kIn, 1, 8, kTenTypes}},
         .Policies = {kComputedValue, kAverageDivisor, kZeroResult, kNonFiniteSum, kProductSign, kLogDomain,
                      kForwardNaN, kSignedZeroMinMax, kMinMaxAllNaN, kArgNaN, kArgSignedZero, kArgIndex, kReduceArgTies,
                      kIntegerOverflow, kIntegerResult, kSubnormals}});
    // MIN, MAX, ARGMIN, ARGMAX and integers: Bits (the golden states it); float sums, products,
    // norms and logarithms: each element bounded from its own inputs (docs/tolerance.md, Reduction).
    r.outputs = {
        {"OutputTensor", TypeClass::Any, ToleranceRule::OperatorStated, BoundaryRule::ArgmaxTie, reduction_bounds}};
    r.desc_tolerance = tolerance_as<RD, tolerance>;
    // --max-work: the reads above cover long reductions; a short one's MPFR log, exp or root
    // (measured; docs/rules.md, limit.work).
    r.rounding_cost = rounding_cost<1000>;
    r.support_rules = reduce_support_rules;
    r.fast = fast_as<RD, fast::reduce_sum>;  // SUM of FLOAT32 and FLOAT16: reference/fast/reduce_sum.cpp
    for (const char* fn : {"function-argmax", "function-argmin", "function-average", "function-l1", "function-l2",
                           "function-log-sum", "function-log-sum-exp", "function-max", "function-min",
                           "function-multiply", "function-sum", "function-sum-square"})
        r.features.push_back(fn);
    return r;
}

}  // namespace rec_reduction

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& reduction_family() {
    using namespace reference;
    using namespace reference::rec_reduction;
    static const FamilyRecord f{
        "reduction",
        {reduce(), arg_min_max<AMIN>(), arg_min_max<AMAX>()},
        // docs/golden.md, "Alternative readings" (reference/reduction.cpp, reduce).
        {{.Policy = "ArgMinMaxNaN",
          .Value = "NaNWins",
          .Meaning =
              "a NaN is chosen before any number: the first NaN in AxisDirection's order is the argmin or argmax",
          .Who = "PyTorch's argmax and argmin, numpy's argmax and argmin (a NaN is the maximum and the minimum)",
          .Operators = {OperatorType::ARGMIN, OperatorType::ARGMAX, OperatorType::REDUCE}},
         {.Policy = "ReduceArgTies",
          .Value = "LastIndex",
          .Meaning = "REDUCE's ARGMAX and ARGMIN take the last of equal elements (as the DECREASING ones of ARGMAX and "
                     "ARGMIN do)",
          .Who = "a reduction that replaces the best on >= (or <=) rather than > (or <)",
          .Operators = {OperatorType::REDUCE}},
         {.Policy = "ReduceMinMaxAllNaN",
          .Value = "CanonicalNaN",
          .Meaning = "MAX or MIN of NaN only is the canonical NaN, not the first element's bits",
          .Who = "kernels whose min and max produce a fresh NaN (a default NaN) rather than pass an operand",
          .Operators = {OperatorType::REDUCE}},
         {.Policy = "IntegerResult",
          .Value = "TruncateTowardZero",
          .Meaning = "integer AVERAGE is the exact sum divided by N and truncated toward zero, not rounded half to "
                     "even: INT32 (1 + 2) / 2 is 1, -7 / 2 is -3",
          .Who = "an integer division after an integer sum (C's and HLSL's /)",
          .Operators = {OperatorType::REDUCE}}}};
    return f;
}
}  // namespace dmlref::kit
