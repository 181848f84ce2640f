// DML_OPERATOR_QUANTIZE and DML_OPERATOR_DEQUANTIZE (DML_FEATURE_LEVEL_6_3).
//
// Spec: DML_QUANTIZE_OPERATOR_DESC and DML_DEQUANTIZE_OPERATOR_DESC (DirectML API reference), the
// enum DML_QUANTIZATION_TYPE; rules in docs/rules.md; the decisions in docs/golden.md, "Quantize
// and dequantize"; the judging in docs/tolerance.md, "Quantization".
//
//   QuantizationTensors: [Scale] (QuantizationType SCALE) or [Scale, ZeroPoint] (SCALE_ZERO_POINT)
//   QUANTIZE    f(x, s, z) = clamp(round(x / s) + z, Min, Max)   Min, Max: INT8 -128, 127; UINT8 0, 255
//   DEQUANTIZE  f(q, s, z) = (q - z) * s
//   each element with the scale and zero point of its block: along every dimension d, element
//   i_d of InputTensor takes element i_d / (InputTensor.Sizes[d] / Q.Sizes[d]) of each
//   quantization tensor Q (a size of 1 is one block for the whole dimension: per-tensor or
//   per-channel; the input's size: one scale per element).
//
// The pages state the structs, the tensor support tables and one constraint ("InputTensor,
// OutputTensor and QuantizationTensors must have the same DimensionCount"); the rest is
// "TBD". Decisions (policies recorded in the goldens):
//   - The formulas are ELEMENT_WISE_QUANTIZE_LINEAR's and ELEMENT_WISE_DEQUANTIZE_LINEAR's, with
//     their policies (QuantizeValue=ExactQuotient, QuantizeRounding=HalfToEven,
//     QuantizeNaN=Minimum, NegativeScale=FormulaLiteral, DequantizeValue=ExactThenRoundOnce): the
//     element functions are reference/quantization.hpp's, called, not copied. SCALE means a zero
//     point of 0.
//   - Blocks (QuantizationBlocks=WholeBlocks): a quantization tensor's size along a dimension
//     divides InputTensor's, and each element uses its block's entry, as ONNX Runtime's DirectML
//     provider passes MatMulNBits' block-wise scales ({N, K / block_size} beside B's {N, K});
//     an equal size (with zero strides to broadcast) is the element-wise reading, and works too.
//     A size that does not divide is refused (`<op>.block-sizes`): the last, partial block of
//     ONNX's blocked DequantizeLinear is not expressible, and ONNX Runtime's provider refuses
//     such blocks too.
//   - Types (QuantizationTensorTypes=AsElementWise): the scale has the floating-point tensor's
//     DataType and the zero point the quantized tensor's, as the ELEMENT_WISE_ pages require;
//     INT4 and UINT4 are outside dmlref's eleven types (the case reader refuses them,
//     case.int4-unsupported).
//   - A scale of 0 is refused (`<op>.scale-zero`), as the ELEMENT_WISE_ pages say "A scale value of
//     0 results in undefined behavior".
#include "quantize.hpp"

#include "quantization.hpp"

#include "dmlref/terms.hpp"

#include <algorithm>
#include <cmath>

namespace dmlref::reference {

namespace {

using Q = DML_QUANTIZE_OPERATOR_DESC;
using DQ = DML_DEQUANTIZE_OPERATOR_DESC;

constexpr const char* kQ = "quantize";
constexpr const char* kDq = "dequantize";

std::string type_text(DataType t) { return std::string(dmlref::name(t)); }
bool is_real_type(DataType t) { return t == DataType::FLOAT32 || t == DataType::FLOAT16; }
std::string element_name(size_t k) { return std::string(tensor_array_element("QuantizationTensors", k)); }

// The rules QUANTIZE and DEQUANTIZE share; `real` is the floating-point tensor (QUANTIZE's input,
// DEQUANTIZE's output), `quantized` the integer one.
template <class D>
void validate_blockwise(const D& d, const char* op, Named real, Named quantized, Diagnostics& diags) {
    const char* self = d.kType == OperatorType::QUANTIZE ? "QUANTIZE" : "DEQUANTIZE";
    if (!is_real_type(real.desc.DataType))
        diags.error(
            pointer_append(desc_path(real.name), "DataType"),
            rule(op, real.name == std::string_view("InputTensor") ? "data-type" : "output-data-type"),
            std::string(real.name) + " is " + type_text(real.desc.DataType) + "; it must be FLOAT32 or FLOAT16");
    if (!is_quantized_type(quantized.desc.DataType))
        diags.error(pointer_append(desc_path(quantized.name), "DataType"),
                    rule(op, quantized.name == std::string_view("InputTensor") ? "data-type" : "output-data-type"),
                    std::string(quantized.name) + " is " + type_text(quantized.desc.DataType) +
                        "; it must be INT8 or UINT8 (the page's INT4 and UINT4 are outside dmlref's eleven types)");
    if (d.QuantizationType != DML_QUANTIZATION_TYPE_SCALE &&
        d.QuantizationType != DML_QUANTIZATION_TYPE_SCALE_ZERO_POINT) {
        diags.error(
            desc_path("QuantizationType"), rule(op, "quantization-type"),
            std::string("QuantizationType is ") +
                (d.QuantizationType == DML_QUANTIZATION_TYPE_NONE ? "NONE" : std::to_string(d.QuantizationType)) +
                "; " + self +
                " needs SCALE or SCALE_ZERO_POINT (its QuantizationTensors hold the scale, and the zero point)");
        return;
    }
    const size_t want = d.QuantizationType == DML_QUANTIZATION_TYPE_SCALE ? 1 : 2;
    if (d.QuantizationTensors.size() != want) {
        diags.error(desc_path("QuantizationTensors"), rule(op, "quantization-tensor-count"),
                    "QuantizationTensorCount is " + std::to_string(d.QuantizationTensors.size()) +
                        "; QuantizationType " +
                        (want == 1 ? "SCALE needs 1 tensor (the scale)"
                                   : "SCALE_ZERO_POINT needs 2 tensors (the scale, then the zero point)"));
        return;
    }
    if (d.QuantizationTensors[0].DataType != real.desc.DataType)
        diags.error(pointer_append(desc_path(element_name(0)), "DataType"), rule(op, "scale-data-type"),
                    "QuantizationTensors[0] (the scale) is " + type_text(d.QuantizationTensors[0].DataType) + " and " +
                        std::string(real.name) + " " + type_text(real.desc.DataType) + "; the scale must have " +
                        std::string(real.name) + "'s DataType (docs/golden.md, QuantizationTensorTypes)");
    if (want == 2 && d.QuantizationTensors[1].DataType != quantized.desc.DataType)
        diags.error(pointer_append(desc_path(element_name(1)), "DataType"), rule(op, "zero-point-data-type"),
                    "QuantizationTensors[1] (the zero point) is " + type_text(d.QuantizationTensors[1].DataType) +
                        " and " + std::string(quantized.name) + " " + type_text(quantized.desc.DataType) +
                        "; the zero point must have " + std::string(quantized.name) +
                        "'s DataType (docs/golden.md, QuantizationTensorTypes)");
    const TensorDesc& in = d.InputTensor;
    const uint32_t rank = in.DimensionCount();
    bool ranks_ok = true;
    auto same_rank = [&](const std::string& name, const TensorDesc& t) {
        if (t.DimensionCount() == rank) return;
        ranks_ok = false;
        diags.error(pointer_append(desc_path(name), "Sizes"), rule(op, "same-dimension-count"),
                    name + " has " + std::to_string(t.DimensionCount()) + " dimensions and InputTensor " +
                        std::to_string(rank) +
                        "; InputTensor, OutputTensor and QuantizationTensors must have the same DimensionCount");
    };
    same_rank("OutputTensor", d.OutputTensor);
    for (size_t k = 0; k < want; ++k) same_rank(element_name(k), d.QuantizationTensors[k]);
    if (!ranks_ok) return;
    for (uint32_t i = 0; i < rank; ++i)
        if (d.OutputTensor.Sizes[i] != in.Sizes[i])
            diags.error(pointer_append(pointer_append(desc_path("OutputTensor"), "Sizes"), i), rule(op, "output-sizes"),
                        "OutputTensor.Sizes[" + std::to_string(i) + "] is " + std::to_string(d.OutputTensor.Sizes[i]) +
                            " and InputTensor's " + std::to_string(in.Sizes[i]) +
                            "; the operator is element by element: OutputTensor has InputTensor's Sizes");
    for (size_t k = 0; k < want; ++k)
        for (uint32_t i = 0; i < rank; ++i) {
            const uint32_t qs = d.QuantizationTensors[k].Sizes[i];
            if (qs != 0 && in.Sizes[i] % qs == 0) continue;
            diags.error(
                pointer_append(pointer_append(desc_path(element_name(k)), "Sizes"), i), rule(op, "block-sizes"),
                element_name(k) + ".Sizes[" + std::to_string(i) + "] is " + std::to_string(qs) + " and InputTensor's " +
                    std::to_string(in.Sizes[i]) +
                    "; each size of a quantization tensor must divide InputTensor's (whole blocks of " +
                    "InputTensor.Sizes / QuantizationTensors.Sizes elements; docs/golden.md, QuantizationBlocks)");
        }
}

// Per InputTensor element (row-major), the value of quantization tensor k's element of its block.
template <class Buffers>
std::vector<double> block_values(const TensorDesc& input, const TensorDesc& q, const Buffers& b,
                                 const std::string& name) {
    const std::vector<double> v = logical_doubles(q, std::span<const std::byte>(b.at(name)));
    const uint64_t n = element_count(input);
    std::vector<double> out(n);
    for (uint64_t i = 0; i < n; ++i) out[i] = v[block_index(input, q, i)];
    return out;
}

// The scale and zero point of every element (zero points 0 for SCALE).
struct Parameters {
    std::vector<double> scale, zero_point;
};
template <class D, class Buffers> Parameters parameters(const D& d, const Buffers& b) {
    Parameters p;
    p.scale = block_values(d.InputTensor, d.QuantizationTensors[0], b, element_name(0));
    if (d.QuantizationTensors.size() > 1)
        p.zero_point = block_values(d.InputTensor, d.QuantizationTensors[1], b, element_name(1));
    else p.zero_point.assign(p.scale.size(), 0.0);
    return p;
}

// "A scale value of 0 results in undefined behavior" (the ELEMENT_WISE_ pages): refused, at most
// 8 elements reported.
template <class D> void refuse_zero_scales(const D& d, const char* op, const InputBuffers& in, Diagnostics& diags) {
    if (d.QuantizationTensors.empty()) return;
    const auto it = in.find(element_name(0));
    if (it == in.end() || it->second.size() < buffer_size(d.QuantizationTensors[0])) return;
    const std::vector<double> s = logical_doubles(d.QuantizationTensors[0], it->second);
    int reported = 0;
    for (size_t i = 0; i < s.size() && reported < 8; ++i)
        if (s[i] == 0) {
            ++reported;
            diags.error(pointer_append("/inputs/QuantizationTensors[0]", i), rule(op, "scale-zero"),
                        "the scale's element " + std::to_string(i) +
                            " is 0; the ELEMENT_WISE_ pages: \"A scale value of 0 results "
                            "in undefined behavior\"; refused (docs/golden.md, Quantize and dequantize)");
        }
}

}  // namespace

uint64_t block_index(const TensorDesc& input, const TensorDesc& q, uint64_t flat) {
    uint64_t index = 0, below = 1, rest = flat;
    for (size_t d = input.Sizes.size(); d-- > 0;) {
        const uint64_t i = rest % input.Sizes[d];
        rest /= input.Sizes[d];
        const uint64_t block = input.Sizes[d] / q.Sizes[d];
        index += (i / block) * below;
        below *= q.Sizes[d];
    }
    return index;
}

// ---- QUANTIZE --------------------------------------------------------------------------------

void validate(const Q& d, Diagnostics& diags) {
    validate_blockwise(d, kQ, {"InputTensor", d.InputTensor}, {"OutputTensor", d.OutputTensor}, diags);
}

// A scale of 0: x / 0 has no integer (ELEMENT_WISE_QUANTIZE_LINEAR's "undefined behavior").
void validate_values(const Q& d, const InputBuffers& in, uint64_t, Diagnostics& diags) {
    refuse_zero_scales(d, kQ, in, diags);
}

void evaluate(const Q& d, const Bindings& b) {
    const std::vector<double> x = logical_doubles(d.InputTensor, std::span<const std::byte>(b.at("InputTensor")));
    const Parameters p = parameters(d, b);
    const int64_t lo = type_min(d.OutputTensor.DataType), hi = type_max(d.OutputTensor.DataType);
    auto value = [&](uint64_t i) {
        return quantize_element(x[i], p.scale[i], int64_t(p.zero_point[i]), lo, hi, false);
    };
    if (d.OutputTensor.DataType == DataType::INT8)
        write_logical<int8_t>(d.OutputTensor, b.at("OutputTensor"), [&](uint64_t i) { return int8_t(value(i)); });
    else write_logical<uint8_t>(d.OutputTensor, b.at("OutputTensor"), [&](uint64_t i) { return uint8_t(value(i)); });
}

// ---- DEQUANTIZE ------------------------------------------------------------------------------

void validate(const DQ& d, Diagnostics& diags) {
    validate_blockwise(d, kDq, {"OutputTensor", d.OutputTensor}, {"InputTensor", d.InputTensor}, diags);
}

void validate_values(const DQ& d, const InputBuffers& in, uint64_t, Diagnostics& diags) {
    refuse_zero_scales(d, kDq, in, diags);
}

void evaluate(const DQ& d, const Bindings& b) {
    const std::vector<double> q = logical_doubles(d.InputTensor, std::span<const std::byte>(b.at("InputTensor")));
    const Parameters p = parameters(d, b);
    if (d.OutputTensor.DataType == DataType::FLOAT16)
        write_logical<half>(d.OutputTensor, b.at("OutputTensor"), [&](uint64_t i) {
            return dequantize_element<half>(int64_t(q[i]), int64_t(p.zero_point[i]), p.scale[i]);
        });
    else
        write_logical<float>(d.OutputTensor, b.at("OutputTensor"), [&](uint64_t i) {
            return dequantize_element<float>(int64_t(q[i]), int64_t(p.zero_point[i]), p.scale[i]);
        });
}

// ---- Judging (docs/tolerance.md, "Quantization") ----------------------------------------------

std::vector<BoundaryElement> quantize_block_ties(const Case& c, std::string_view output) {
    std::vector<BoundaryElement> out;
    const Q* d = get_if<Q>(&c.op.Desc);
    if (!d || output != "OutputTensor" || validate(c.op).has_errors()) return out;
    try {
        const std::vector<double> x = logical_doubles(d->InputTensor,
                                                      std::span<const std::byte>(c.inputs.at("InputTensor")));
        const Parameters p = parameters(*d, c.inputs);
        const int64_t lo = type_min(d->OutputTensor.DataType), hi = type_max(d->OutputTensor.DataType);
        for (size_t i = 0; i < x.size(); ++i)
            if (quantize_near_tie(x[i], p.scale[i], int64_t(p.zero_point[i]), lo, hi))
                out.push_back({i, "QuantizeTie"});
    } catch (const std::exception&) {
        out.clear();
    }
    return out;
}

std::optional<Tolerance> quantize_block_tolerance(const Case& c, std::string_view output) {
    if (output != "OutputTensor" || validate(c.op).has_errors()) return std::nullopt;
    return quantize_tie_tolerance(!quantize_block_ties(c, output).empty());
}

std::optional<Tolerance> dequantize_block_tolerance(const DQ&, std::string_view output) {
    if (output != "OutputTensor") return std::nullopt;
    Tolerance t;
    t.Kind = "Summed";
    t.MaxTerms = 2;
    t.Why =
        "(q - ZeroPoint) * Scale, exact and rounded once; the 8-bit difference is exact in FLOAT32 and a backend's product "
        "is within 1 ULP: (2 - 1/2) ULP, as ELEMENT_WISE_DEQUANTIZE_LINEAR (docs/tolerance.md, Quantization)";
    return t;
}

// ---- explain ---------------------------------------------------------------------------------

bool explain_quantize_block(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out) {
    const bool quantize = c.op.Type == OperatorType::QUANTIZE;
    if (!quantize && c.op.Type != OperatorType::DEQUANTIZE) return false;
    const TensorDesc& in = quantize ? get<Q>(c.op.Desc).InputTensor : get<DQ>(c.op.Desc).InputTensor;
    const std::vector<TensorDesc>& qs = quantize ? get<Q>(c.op.Desc).QuantizationTensors
                                                 : get<DQ>(c.op.Desc).QuantizationTensors;
    if (validate(c.op).has_errors() || flat >= element_count(in)) return false;
    out.inputs.push_back(input_element(c, "InputTensor", nd_coordinate(in.Sizes, flat), quantize ? "x" : "q"));
    for (size_t k = 0; k < qs.size(); ++k)
        out.inputs.push_back(input_element(c, element_name(k), nd_coordinate(qs[k].Sizes, block_index(in, qs[k], flat)),
                                           k == 0 ? "scale" : "zero point"));
    if (quantize) {
        out.facts.emplace_back("formula",
                               "clamp(round_half_even(x / scale) + ZeroPoint, Min, Max), the quotient exact");
        const auto ties = quantize_block_ties(c, output);
        if (std::any_of(ties.begin(), ties.end(), [&](const BoundaryElement& e) { return e.Index == flat; }))
            out.facts.emplace_back(
                "tie", "x / scale is within FLOAT32's error of a half-integer: a backend may give the other neighbour");
        out.policies = {"QuantizeValue", "QuantizeRounding",   "QuantizeNaN",
                        "NegativeScale", "QuantizationBlocks", "QuantizationTensorTypes"};
    } else {
        out.facts.emplace_back(
            "formula", "(q - ZeroPoint) * scale: the integer difference exact, the product exact, rounded once");
        out.policies = {"DequantizeValue", "NegativeScale", "QuantizationBlocks", "QuantizationTensorTypes"};
    }
    return true;
}

}  // namespace dmlref::reference
