// The tolerance model: the table, and the comparison of one element (docs/tolerance.md).
#include "dmlref/tolerance.hpp"

#include "dmlref/numeric.hpp"
#include "dmlref/terms.hpp"
#include "dmlref/values.hpp"

#include "../reference/common.hpp"  // reference::roi_align_tolerance

#include <algorithm>
#include <cmath>
#include <limits>

namespace dmlref {

namespace {

using OT = OperatorType;
using TR = ToleranceRule;
using BR = BoundaryRule;

const std::string kBitsWhy = "values are moved or selected, never computed: bit for bit (docs/golden.md, moved and selected values)";
const std::string kScaleBiasWhy = "x * Scale + Bias is rounded twice in float32; a fused multiply-add rounds once and may land 1 ULP away";
const std::string kSummedWhy =
    "elements are exact sums of their gradient terms, rounded once (docs/golden.md): a NaN sum matches any NaN, an "
    "element with no term is +0, one term of weight 1 is that term's value (a -0 term gives +0: sums start from +0); "
    "dmlref diff bounds each element from its own terms, summed in any order in the profile's precision (docs/tolerance.md)";

}  // namespace

// THE TABLE. One row per (operator, output field, type class); the first row that matches wins.
const std::vector<ToleranceRow>& tolerance_table() {
    static const std::vector<ToleranceRow> rows = {
        // operator                    output                   types              rule                    boundary
        {OT::ACTIVATION_RELU,          "OutputTensor",          TypeClass::Any,     TR::Bits,              BR::None},
        {OT::ACTIVATION_RELU_GRAD,     "OutputGradientTensor",  TypeClass::Any,     TR::Bits,              BR::ReluGradAtZero},
        {OT::ELEMENT_WISE_CLIP,        "OutputTensor",          TypeClass::Float,   TR::Ulp1WithScaleBias, BR::None},
        {OT::ELEMENT_WISE_CLIP,        "OutputTensor",          TypeClass::Integer, TR::Bits,              BR::None},
        {OT::ELEMENT_WISE_CLIP1,       "OutputTensor",          TypeClass::Float,   TR::Ulp1WithScaleBias, BR::None},
        {OT::ELEMENT_WISE_CLIP1,       "OutputTensor",          TypeClass::Integer, TR::Bits,              BR::None},
        {OT::ELEMENT_WISE_CLIP_GRAD,   "OutputGradientTensor",  TypeClass::Any,     TR::Bits,              BR::ClipGradAtMinOrMax},
        {OT::ELEMENT_WISE_CLIP_GRAD1,  "OutputGradientTensor",  TypeClass::Any,     TR::Bits,              BR::ClipGradAtMinOrMax},
        {OT::SLICE,                    "OutputTensor",          TypeClass::Any,     TR::Bits,              BR::None},
        {OT::SLICE1,                   "OutputTensor",          TypeClass::Any,     TR::Bits,              BR::None},
        {OT::SLICE_GRAD,               "OutputGradientTensor",  TypeClass::Any,     TR::Bits,              BR::None},
        {OT::MAX_POOLING,              "OutputTensor",          TypeClass::Any,     TR::Bits,              BR::ArgmaxTie},
        {OT::MAX_POOLING1,             "OutputTensor",          TypeClass::Any,     TR::Bits,              BR::ArgmaxTie},
        {OT::MAX_POOLING1,             "OutputIndicesTensor",   TypeClass::Any,     TR::Bits,              BR::ArgmaxTie},
        {OT::MAX_POOLING2,             "OutputTensor",          TypeClass::Any,     TR::Bits,              BR::ArgmaxTie},
        {OT::MAX_POOLING2,             "OutputIndicesTensor",   TypeClass::Any,     TR::Bits,              BR::ArgmaxTie},
        // Overlapping windows add their gradients: float sums are exact, rounded once; integer
        // sums wrap exactly (docs/golden.md, Decisions).
        {OT::MAX_POOLING_GRAD,         "OutputGradientTensor",  TypeClass::Float,   TR::Summed,            BR::ArgmaxTie},
        {OT::MAX_POOLING_GRAD,         "OutputGradientTensor",  TypeClass::Integer, TR::Bits,              BR::ArgmaxTie},
        // Nearest neighbour copies (Bits) unless grad taps add up; LINEAR weights make every
        // element a sum. reference/resample.cpp states which, with each element's term count,
        // and lists the nearest-neighbour coordinates within the coordinate error of an integer (docs/golden.md and docs/tolerance.md).
        {OT::RESAMPLE,                 "OutputTensor",          TypeClass::Any,     TR::OperatorStated,    BR::OperatorStated},
        {OT::RESAMPLE1,                "OutputTensor",          TypeClass::Any,     TR::OperatorStated,    BR::OperatorStated},
        {OT::RESAMPLE2,                "OutputTensor",          TypeClass::Any,     TR::OperatorStated,    BR::OperatorStated},
        {OT::RESAMPLE_GRAD,            "OutputGradientTensor",  TypeClass::Any,     TR::OperatorStated,    BR::OperatorStated},
        {OT::RESAMPLE_GRAD1,           "OutputGradientTensor",  TypeClass::Any,     TR::OperatorStated,    BR::OperatorStated},
        // ---- Computed values (docs/golden.md, Computed values): each operator states Summed with per-element
        // Terms (Bits for integers); dmlref diff bounds each float element by the operator's forward
        // error analysis (computed_outputs() below; docs/tolerance.md, "Computed values").
        {OT::AVERAGE_POOLING,          "OutputTensor",          TypeClass::Any,     TR::OperatorStated,    BR::None},
        {OT::AVERAGE_POOLING1,         "OutputTensor",          TypeClass::Any,     TR::OperatorStated,    BR::None},
        {OT::AVERAGE_POOLING_GRAD,     "OutputGradientTensor",  TypeClass::Any,     TR::OperatorStated,    BR::None},
        {OT::LOCAL_RESPONSE_NORMALIZATION,      "OutputTensor",         TypeClass::Any, TR::OperatorStated, BR::None},
        {OT::LOCAL_RESPONSE_NORMALIZATION_GRAD, "OutputGradientTensor", TypeClass::Any, TR::OperatorStated, BR::None},
        // Batch normalization: goldens state Summed without terms; dmlref diff bounds each element by
        // its formula's parts' magnitudes (computed_outputs() below; reference/batch_normalization_bound.cpp,
        // docs/tolerance.md).
        {OT::BATCH_NORMALIZATION,               "OutputTensor",              TypeClass::Any, TR::OperatorStated, BR::None},
        {OT::BATCH_NORMALIZATION_GRAD,          "OutputGradientTensor",      TypeClass::Any, TR::OperatorStated, BR::None},
        {OT::BATCH_NORMALIZATION_GRAD,          "OutputScaleGradientTensor", TypeClass::Any, TR::OperatorStated, BR::None},
        {OT::BATCH_NORMALIZATION_GRAD,          "OutputBiasGradientTensor",  TypeClass::Any, TR::OperatorStated, BR::None},
        {OT::BATCH_NORMALIZATION_TRAINING,      "OutputTensor",              TypeClass::Any, TR::OperatorStated, BR::None},
        {OT::BATCH_NORMALIZATION_TRAINING,      "OutputMeanTensor",          TypeClass::Any, TR::OperatorStated, BR::None},
        {OT::BATCH_NORMALIZATION_TRAINING,      "OutputVarianceTensor",      TypeClass::Any, TR::OperatorStated, BR::None},
        {OT::BATCH_NORMALIZATION_TRAINING_GRAD, "OutputGradientTensor",      TypeClass::Any, TR::OperatorStated, BR::None},
        {OT::BATCH_NORMALIZATION_TRAINING_GRAD, "OutputScaleGradientTensor", TypeClass::Any, TR::OperatorStated, BR::None},
        {OT::BATCH_NORMALIZATION_TRAINING_GRAD, "OutputBiasGradientTensor",  TypeClass::Any, TR::OperatorStated, BR::None},
        // ROI align: stated from the whole case (the regions are input values; docs/tolerance.md, "ROI align");
        // every float element is bounded by the family's bound functions (computed_outputs() below).
        {OT::ROI_ALIGN,                "OutputTensor",            TypeClass::Any,   TR::OperatorStated,    BR::None},
        {OT::ROI_ALIGN1,               "OutputTensor",            TypeClass::Any,   TR::OperatorStated,    BR::None},
        {OT::ROI_ALIGN_GRAD,           "OutputGradientTensor",    TypeClass::Any,   TR::OperatorStated,    BR::None},
        {OT::ROI_ALIGN_GRAD,           "OutputROIGradientTensor", TypeClass::Any,   TR::OperatorStated,    BR::None},
    };
    return rows;
}

namespace {

const TensorDesc* output_desc(const Case& c, std::string_view output) {
    for (const auto& f : tensor_fields(c.op))
        if (f.role == TensorRole::Output && f.name == output) return f.desc;
    return nullptr;
}

bool type_matches(TypeClass k, DataType t) {
    return k == TypeClass::Any || (k == TypeClass::Float) == is_float(t);
}

}  // namespace

ToleranceRow tolerance_row(const Case& c, std::string_view output) {
    const TensorDesc* d = output_desc(c, output);
    if (d)
        for (const auto& row : tolerance_table())
            if (row.op == c.op.Type && row.output == output && type_matches(row.types, d->DataType)) return row;
    return {c.op.Type, output, TypeClass::Any, TR::Bits, BR::None};
}

std::vector<uint32_t> term_counts(const Case& c, std::string_view output) {
    const TR rule = tolerance_row(c, output).rule;
    if (rule == TR::OperatorStated) {
        auto stated = reference::roi_align_tolerance(c, output);  // ROI align: from the case; nullopt for the others
        if (!stated) stated = operator_tolerance(c.op, output);
        return stated ? std::vector<uint32_t>(stated->Terms.begin(), stated->Terms.end()) : std::vector<uint32_t>{};
    }
    if (rule != TR::Summed) return {};
    if (auto* d = std::get_if<DML_MAX_POOLING_GRAD_OPERATOR_DESC>(&c.op.Desc); d && c.inputs.count("InputTensor"))
        return max_pooling_grad_term_counts(*d, c.inputs.at("InputTensor"));
    return {};
}

Tolerance stated_tolerance(const Case& c, std::string_view output) {
    Tolerance t;
    t.Kind = "Bits";
    t.Why = kBitsWhy;
    switch (tolerance_row(c, output).rule) {
        case TR::Bits:
            break;
        case TR::OperatorStated:
            if (auto stated = reference::roi_align_tolerance(c, output)) return *stated;  // ROI align: from the case
            if (auto stated = operator_tolerance(c.op, output)) return *stated;
            break;
        case TR::Ulp1WithScaleBias: {
            bool scale_bias = false;
            if (auto* d = std::get_if<DML_ELEMENT_WISE_CLIP_OPERATOR_DESC>(&c.op.Desc)) scale_bias = d->ScaleBias.has_value();
            if (auto* d = std::get_if<DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC>(&c.op.Desc)) scale_bias = d->ScaleBias.has_value();
            if (scale_bias) {
                t.Kind = "Ulp";
                t.Ulp = 1;
                t.Why = kScaleBiasWhy;
            }
            break;
        }
        case TR::Summed: {
            const std::vector<uint32_t> terms = term_counts(c, output);
            uint32_t most = 0;
            for (uint32_t n : terms) most = std::max(most, n);
            t.Kind = "Summed";
            t.MaxTerms = most;
            t.Terms = terms;  // each element's own count, as the golden records it
            t.Why = (most == 1 ? std::string("at most 1 term") : "up to " + std::to_string(most) + " terms") + " per element; " + kSummedWhy;
            break;
        }
    }
    return t;
}

// ---- Summed outputs and their terms ---------------------------------------------------------

// ---- Computed outputs: one bound function per operator family (dmlref/terms.hpp) ------------

namespace {

using ComputedBounds = void (*)(const Operator&, const InputBuffer&, const ArithmeticProfile&, TermSink&);
struct ComputedOutput {
    OperatorType op;
    std::string_view output;
    ComputedBounds bounds;
};

// A computed operator plugs in here: its output and its bound function (docs/tolerance.md).
const std::vector<ComputedOutput>& computed_outputs() {
    static const std::vector<ComputedOutput> rows = {
        {OT::AVERAGE_POOLING,                   "OutputTensor",         average_pooling_bounds},
        {OT::AVERAGE_POOLING1,                  "OutputTensor",         average_pooling_bounds},
        {OT::AVERAGE_POOLING_GRAD,              "OutputGradientTensor", average_pooling_bounds},
        {OT::LOCAL_RESPONSE_NORMALIZATION,      "OutputTensor",         lrn_bounds},
        {OT::LOCAL_RESPONSE_NORMALIZATION_GRAD, "OutputGradientTensor", lrn_bounds},
        {OT::ROI_ALIGN,                         "OutputTensor",         roi_align_bounds},
        {OT::ROI_ALIGN1,                        "OutputTensor",         roi_align_bounds},
        {OT::ROI_ALIGN_GRAD,                    "OutputGradientTensor",    roi_align_gradient_bounds},
        {OT::ROI_ALIGN_GRAD,                    "OutputROIGradientTensor", roi_align_roi_gradient_bounds},
        {OT::BATCH_NORMALIZATION,               "OutputTensor",              batch_normalization_output_bounds},
        {OT::BATCH_NORMALIZATION_TRAINING,      "OutputTensor",              batch_normalization_output_bounds},
        {OT::BATCH_NORMALIZATION_TRAINING,      "OutputMeanTensor",          batch_normalization_mean_bounds},
        {OT::BATCH_NORMALIZATION_TRAINING,      "OutputVarianceTensor",      batch_normalization_variance_bounds},
        {OT::BATCH_NORMALIZATION_GRAD,          "OutputGradientTensor",      batch_normalization_gradient_bounds},
        {OT::BATCH_NORMALIZATION_GRAD,          "OutputScaleGradientTensor", batch_normalization_scale_gradient_bounds},
        {OT::BATCH_NORMALIZATION_GRAD,          "OutputBiasGradientTensor",  batch_normalization_bias_gradient_bounds},
        {OT::BATCH_NORMALIZATION_TRAINING_GRAD, "OutputGradientTensor",      batch_normalization_gradient_bounds},
        {OT::BATCH_NORMALIZATION_TRAINING_GRAD, "OutputScaleGradientTensor", batch_normalization_scale_gradient_bounds},
        {OT::BATCH_NORMALIZATION_TRAINING_GRAD, "OutputBiasGradientTensor",  batch_normalization_bias_gradient_bounds},
    };
    return rows;
}

const ComputedOutput* computed_output(const Case& c, std::string_view output) {
    for (const auto& row : computed_outputs())
        if (row.op == c.op.Type && row.output == output) return &row;
    return nullptr;
}

bool enumerates_terms(const Case& c) {
    return std::visit([](const auto& desc) {
        using D = std::decay_t<decltype(desc)>;
        return std::is_same_v<D, DML_MAX_POOLING_GRAD_OPERATOR_DESC> || std::is_same_v<D, DML_RESAMPLE_GRAD_OPERATOR_DESC> ||
               std::is_same_v<D, DML_RESAMPLE_GRAD1_OPERATOR_DESC> || std::is_same_v<D, DML_RESAMPLE_OPERATOR_DESC> ||
               std::is_same_v<D, DML_RESAMPLE1_OPERATOR_DESC> || std::is_same_v<D, DML_RESAMPLE2_OPERATOR_DESC>;
    }, c.op.Desc);
}

}  // namespace

bool judging_reads_inputs(const Case& c, std::string_view output) {
    const ToleranceRow row = tolerance_row(c, output);
    const std::string_view op = info(c.op.Type).Name;
    const bool rule_reads = row.rule != TR::Bits && row.rule != TR::Ulp1WithScaleBias;
    const bool boundary_reads = row.boundary != BR::None && row.boundary != BR::OperatorStated;
    return rule_reads || boundary_reads || enumerates_terms(c) || computed_output(c, output) ||
           op.find("BATCH_NORMALIZATION") != std::string_view::npos || op.starts_with("ROI_ALIGN");
}

bool is_summed_output(const Case& c, std::string_view output) {
    const TensorDesc* d = output_desc(c, output);
    if (!d || !is_float(d->DataType)) return false;
    if (computed_output(c, output)) return true;  // a NaN golden of a computed value matches any NaN
    return std::visit([&](const auto& desc) {
        using D = std::decay_t<decltype(desc)>;
        if constexpr (std::is_same_v<D, DML_MAX_POOLING_GRAD_OPERATOR_DESC>) return output == "OutputGradientTensor";
        else if constexpr (std::is_same_v<D, DML_RESAMPLE_GRAD_OPERATOR_DESC> || std::is_same_v<D, DML_RESAMPLE_GRAD1_OPERATOR_DESC>)
            return output == "OutputGradientTensor";
        else if constexpr (std::is_same_v<D, DML_RESAMPLE_OPERATOR_DESC> || std::is_same_v<D, DML_RESAMPLE1_OPERATOR_DESC> ||
                           std::is_same_v<D, DML_RESAMPLE2_OPERATOR_DESC>)
            return output == "OutputTensor" && desc.InterpolationMode == DML_INTERPOLATION_MODE_LINEAR;
        else return false;
    }, c.op.Desc);
}

std::optional<TermSink> summed_terms(const Case& c, std::string_view output, const ArithmeticProfile& p) {
    const TensorDesc* d = output_desc(c, output);
    if (!d || !is_float(d->DataType) || validate(c.op).has_errors()) return std::nullopt;
    // Only the operators below enumerate terms, and the computed outputs (computed_outputs()) bound
    // theirs: no per-element sink for the others (diff's memory).
    const bool enumerates = enumerates_terms(c);
    const ComputedOutput* computed = computed_output(c, output);
    if (!enumerates && !computed) return std::nullopt;
    TermSink sink(element_count(*d));
    auto input = [&](const char* field) -> std::span<const std::byte> {
        auto it = c.inputs.find(field);
        if (it == c.inputs.end()) throw std::invalid_argument(std::string("no ") + field);
        return it->second;
    };
    try {
        if (computed) {
            computed->bounds(c.op, input, p, sink);
            return sink;
        }
        bool done = std::visit([&](const auto& desc) {
            using D = std::decay_t<decltype(desc)>;
            if constexpr (std::is_same_v<D, DML_MAX_POOLING_GRAD_OPERATOR_DESC>) {
                if (output != "OutputGradientTensor") return false;
                max_pooling_grad_terms(desc, input("InputTensor"), input("InputGradientTensor"), sink);
                return true;
            } else if constexpr (std::is_same_v<D, DML_RESAMPLE_GRAD_OPERATOR_DESC> || std::is_same_v<D, DML_RESAMPLE_GRAD1_OPERATOR_DESC>) {
                if (output != "OutputGradientTensor") return false;
                resample_terms(c.op, input("InputGradientTensor"), p.coordinates, sink);
                return true;
            } else if constexpr (std::is_same_v<D, DML_RESAMPLE_OPERATOR_DESC> || std::is_same_v<D, DML_RESAMPLE1_OPERATOR_DESC> ||
                                 std::is_same_v<D, DML_RESAMPLE2_OPERATOR_DESC>) {
                if (output != "OutputTensor") return false;
                resample_terms(c.op, input("InputTensor"), p.coordinates, sink);
                return true;
            } else {
                return false;
            }
        }, c.op.Desc);
        if (!done) return std::nullopt;
    } catch (const std::invalid_argument&) {
        return std::nullopt;
    }
    return sink;
}

// ---- Decision boundaries -------------------------------------------------------------------

namespace {

struct FloatLayout {
    uint64_t sign, exponent, mantissa;
};
FloatLayout layout(DataType t) {
    switch (t) {
        case DataType::FLOAT16: return {0x8000, 0x7c00, 0x03ff};
        case DataType::FLOAT32: return {0x80000000, 0x7f800000, 0x007fffff};
        default: return {uint64_t(1) << 63, 0x7ff0000000000000, 0x000fffffffffffff};
    }
}
bool is_nan_bits(DataType t, uint64_t b) {
    const auto l = layout(t);
    return (b & l.exponent) == l.exponent && (b & l.mantissa) != 0;
}
bool is_inf_bits(DataType t, uint64_t b) {
    const auto l = layout(t);
    return (b & ~l.sign) == l.exponent;
}
bool is_zero_bits(DataType t, uint64_t b) { return (b & ~layout(t).sign) == 0; }
bool is_subnormal_bits(DataType t, uint64_t b) {
    const auto l = layout(t);
    return (b & l.exponent) == 0 && (b & l.mantissa) != 0;
}

double to_double(DataType t, uint64_t b) {
    switch (t) {
        case DataType::FLOAT16: return half_to_double(from_bits<half>(uint16_t(b)));
        case DataType::FLOAT32: return double(from_bits<float>(uint32_t(b)));
        default: return from_bits<double>(b);
    }
}

// Signed integer value of an integer element, exactly.
int128_t integer_value(DataType t, uint64_t b) {
    switch (t) {
        case DataType::INT8: return int8_t(uint8_t(b));
        case DataType::INT16: return int16_t(uint16_t(b));
        case DataType::INT32: return int32_t(uint32_t(b));
        case DataType::INT64: return int64_t(b);
        default: return int128_t(b);  // unsigned types: the bits are the value
    }
}

template <class T> std::vector<T> logical_values(const Case& c, const char* field) {
    const TensorDesc* d = nullptr;
    for (const auto& f : tensor_fields(c.op))
        if (f.name == field) d = f.desc;
    std::vector<T> v;
    if (!d || !c.inputs.count(field) || d->DataType != data_type_of<T>()) return v;
    const auto bytes = gather_logical(*d, c.inputs.at(field));
    v.resize(bytes.size() / sizeof(T));
    std::memcpy(static_cast<void*>(v.data()), bytes.data(), v.size() * sizeof(T));
    return v;
}

}  // namespace

std::vector<BoundaryElement> boundary_elements(const Case& c, std::string_view output, const std::vector<std::byte>& golden) {
    std::vector<BoundaryElement> out;
    const TensorDesc* d = output_desc(c, output);
    if (!d) return out;
    const ToleranceRow row = tolerance_row(c, output);
    const DataType input_type = [&] {
        for (const auto& f : tensor_fields(c.op))
            if (f.name == "InputTensor") return f.desc->DataType;
        return DataType::UNKNOWN;
    }();
    if (row.boundary == BR::ReluGradAtZero && is_valid(input_type)) {
        dispatch(input_type, [&]<class T>() {
            const auto x = logical_values<T>(c, "InputTensor");
            for (size_t i = 0; i < x.size(); ++i)
                if (exact_compare(x[i], 0) == std::partial_ordering::equivalent) out.push_back({i, "ReluGradAtZero"});
        });
    }
    if (row.boundary == BR::ClipGradAtMinOrMax && is_valid(input_type)) {
        dispatch(input_type, [&]<class T>() {
            const auto x = logical_values<T>(c, "InputTensor");
            auto on_bound = [](T v, auto bound) {
                return exact_compare(v, bound) == std::partial_ordering::equivalent;
            };
            for (size_t i = 0; i < x.size(); ++i) {
                bool hit = false;
                if (auto* g = std::get_if<DML_ELEMENT_WISE_CLIP_GRAD_OPERATOR_DESC>(&c.op.Desc))
                    hit = on_bound(x[i], g->Min) || on_bound(x[i], g->Max);
                if (auto* g = std::get_if<DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC>(&c.op.Desc))
                    hit = on_bound(x[i], g->Min.as<T>()) || on_bound(x[i], g->Max.as<T>());
                if (hit) out.push_back({i, "ClipGradAtMinOrMax"});
            }
        });
    }
    if (row.boundary == BR::ArgmaxTie && c.inputs.count("InputTensor"))
        for (uint64_t i : max_pooling_argmax_ties(c.op, c.inputs.at("InputTensor"))) out.push_back({i, "ArgmaxTie"});
    if (row.boundary == BR::OperatorStated) {
        const Boundary b = boundary(c.op, output);
        for (uint64_t i : b.Indices) out.push_back({i, b.Reason});
    }
    for (auto& [i, why] : reference::roi_align_boundary(c, output)) out.push_back({i, std::move(why)});  // ROI align: from the case
    // docs/golden.md, Decisions: subnormals are never flushed; the elements a flushing backend would
    // change are flagged.
    const DataType t = d->DataType;
    if (is_float(t)) {
        const size_t w = element_size(t);
        for (uint64_t i = 0; i < golden.size() / w; ++i)
            if (is_subnormal_bits(t, load_bits(t, golden.data() + i * w))) out.push_back({i, "Subnormal"});
    }
    std::stable_sort(out.begin(), out.end(), [](const BoundaryElement& a, const BoundaryElement& b) { return a.Index < b.Index; });
    return out;
}

// ---- Comparing one element -----------------------------------------------------------------

uint64_t ulp_distance(DataType t, uint64_t a, uint64_t b, bool zeros_equal) {
    if (!is_float(t)) {
        const int128_t x = integer_value(t, a), y = integer_value(t, b);
        const uint128_t d = x > y ? uint128_t(x - y) : uint128_t(y - x);
        return d > std::numeric_limits<uint64_t>::max() ? std::numeric_limits<uint64_t>::max() : uint64_t(d);
    }
    const auto l = layout(t);
    // Ordered encoding: +x -> magnitude bits; -x -> -(magnitude bits) - 1, so -0 sits just
    // below +0 (or on it, under zeros_equal).
    auto ordered = [&](uint64_t bits) -> int128_t {
        const int128_t mag = int128_t(bits & ~l.sign);
        if (!(bits & l.sign)) return mag;
        return zeros_equal ? -mag : -mag - 1;
    };
    const int128_t x = ordered(a), y = ordered(b);
    return uint64_t(x > y ? x - y : y - x);
}

bool within_summed_bound(DataType t, uint64_t golden_bits, uint64_t actual_bits, uint64_t terms) {
    const auto l = layout(t);
    const double g = to_double(t, golden_bits), a = to_double(t, actual_bits);
    // ulp(golden): the spacing of the golden's binade, i.e. from |golden| to the next float away
    // from zero (the smallest subnormal for zero and subnormals). For the largest finite value,
    // the spacing below it (the same binade).
    const uint64_t mag = golden_bits & ~l.sign;
    const uint64_t max_finite = l.exponent - 1;
    const double ulp = mag < max_finite ? to_double(t, mag + 1) - to_double(t, mag)
                                        : to_double(t, mag) - to_double(t, mag - 1);
    // The bound (terms - 1/2) * ulp is exact in double: terms < 2^52 and ulp a power of two.
    const double bound = (double(terms) - 0.5) * ulp;
    // |a - g| <= bound, decided exactly: s + e == a - g exactly (TwoSum), and s is a - g
    // rounded, so s == bound leaves the decision to the sign of e.
    const double s = a - g;
    if (!std::isfinite(s)) return false;
    const double bb = s - a;
    const double e = (a - (s - bb)) + (-g - bb);
    if (s > 0) return s < bound || (s == bound && e <= 0);
    if (s < 0) return -s < bound || (-s == bound && e >= 0);
    return std::fabs(e) <= bound;
}

Judgement judge(DataType t, uint64_t g, uint64_t a, const ElementTolerance& tol, const DiffSwitches& sw) {
    Judgement j;
    if (g == a) return j;  // Identical
    j.verdict = Verdict::Over;
    if (!is_float(t)) {
        j.distance = ulp_distance(t, a, g, false);
        if (tol.kind == "Ulp" && j.distance <= tol.ulp) j.verdict = Verdict::Within;
        return j;
    }
    const bool g_nan = is_nan_bits(t, g), a_nan = is_nan_bits(t, a);
    if (g_nan || a_nan || is_inf_bits(t, g) || is_inf_bits(t, a)) {
        j.comparable = false;
        // A NaN golden of a sum matches any NaN (docs/golden.md, Decisions); elsewhere only under the switch.
        if (g_nan && a_nan && (sw.any_nan || tol.sum || tol.kind == "Summed")) j.verdict = Verdict::Within;
        else j.nonfinite = true;
        return j;
    }
    j.distance = ulp_distance(t, a, g, sw.zeros_equal);
    // Zeros of the other sign: where the element's bound admits an error (bound > 0), its exact
    // value may be a tiny number on either side of 0 that the golden and the backend round to
    // zeros of different signs (docs/tolerance.md, "Zeros"); elsewhere (an exact copy, a sum of
    // exact terms that starts from +0) only the switch accepts them.
    if (is_zero_bits(t, g) && is_zero_bits(t, a)) {
        if (sw.zeros_equal || tol.bound > 0) j.verdict = Verdict::Within;
        return j;
    }
    if (sw.flushed_subnormals && is_subnormal_bits(t, g) && is_zero_bits(t, a) &&
        ((a & layout(t).sign) == (g & layout(t).sign) || sw.zeros_equal)) {
        j.verdict = Verdict::Within;
        j.flushed = true;
        return j;
    }
    if (tol.kind == "Ulp") {
        if (j.distance <= tol.ulp) j.verdict = Verdict::Within;
    } else if (tol.bound >= 0) {
        if (within_bound(t, g, a, tol.bound)) j.verdict = Verdict::Within;
    } else if (tol.kind == "Summed") {
        if (tol.terms >= 2 && within_summed_bound(t, g, a, tol.terms)) j.verdict = Verdict::Within;
    }
    return j;
}

}  // namespace dmlref
