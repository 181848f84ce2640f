// DML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY and DML_OPERATOR_QUANTIZED_LINEAR_CONVOLUTION.
//
// Spec: DML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC and
// DML_QUANTIZED_LINEAR_CONVOLUTION_OPERATOR_DESC (DirectML API reference); rules in docs/rules.md;
// the decisions in docs/golden.md, "Quantized linear products"; the judging in docs/tolerance.md,
// "Quantized linear products".
//
// Both are "mathematically equivalent to dequantizing the inputs", the product (or convolution),
// "and then quantizing the output", with the pages' two functions
//   dequantize(q, s, z) = (q - z) * s        quantize(x, s, z) = clamp(round(x / s) + z, Min, Max)
// With per-tensor, per-row or per-column scales, every product of one output element carries the
// same two scales, so an element is
//   clamp(round(AScale * BScale * acc / OutputScale) + OutputZeroPoint, Min, Max),
//   acc = sum_k (a_k - AZeroPoint) (b_k - BZeroPoint)   (+ Bias for the convolution)
// MATRIX_MULTIPLY: AScale and AZeroPoint per tensor or per row m of A, BScale and BZeroPoint per
// tensor or per column n of B, OutputScale and OutputZeroPoint per tensor or per row m (the page's
// { 1, 1, M, 1 }). CONVOLUTION: forward cross-correlation as CONVOLUTION_INTEGER (its geometry and
// products, reference/convolution.cpp), FilterScale and FilterZeroPoint per tensor or per output
// channel, the INT32 Bias per output channel, added to the accumulator.
//
// Decisions (policies recorded in the goldens, docs/golden.md):
//   - The integer accumulator is exact, never wrapped to INT32 (QuantizedAccumulator=Exact): the
//     pages describe real arithmetic, and no INT32 intermediate. The alternative reading
//     WrapToInt32 (an INT32 accumulator modulo 2^32) is evaluated: wrap_accumulators below.
//   - acc * AScale * BScale / OutputScale is exact, rounded to an integer once, half to even
//     (RequantizeValue=ExactThenRoundOnce, QuantizeRounding=HalfToEven, as
//     ELEMENT_WISE_QUANTIZED_LINEAR_ADD: reference/quantization.cpp's requantize_exact).
//   - The convolution's Bias is in the accumulator's units, scale InputScale * FilterScale and zero
//     point 0 (QuantizedConvolutionBias=AccumulatorUnits, as ONNX's QLinearConv).
//   - Padding is the input's zero point: it adds nothing (IntegerPadding=InputZeroPoint).
//   - A scale of 0 is the pages' undefined behaviour, and a non-finite scale leaves the dequantized
//     product without one value (inf - inf, 0 * inf): both refused (`<op>.scale-value`).
#include "quantized_linear.hpp"

#include "convolution.hpp"
#include "exact_rational.hpp"
#include "gemm_internal.hpp"
#include "quantization.hpp"

#include "dmlref/readings.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

namespace dmlref::reference {

namespace {

using QLMM = DML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC;
using QLCONV = DML_QUANTIZED_LINEAR_CONVOLUTION_OPERATOR_DESC;
using InputReader = std::function<std::span<const std::byte>(const char*)>;

constexpr const char* kMm = "quantized-linear-matrix-multiply";
constexpr const char* kConv = "quantized-linear-convolution";

struct Field {
    const char* name;
    const TensorDesc* desc;  // null: an absent optional tensor
};

void require_quantized(Diagnostics& diags, const char* op, const char* id, std::initializer_list<Field> fields) {
    for (const Field& f : fields)
        if (f.desc && !is_quantized_type(f.desc->DataType))
            diags.error(desc_path(f.name) + "/DataType", rule(op, id),
                        std::string(f.name) + " is " + type_text(*f.desc) + "; it must be INT8 or UINT8");
}

void require_float32(Diagnostics& diags, const char* op, std::initializer_list<Field> scales) {
    for (const Field& f : scales)
        if (f.desc->DataType != DataType::FLOAT32)
            diags.error(desc_path(f.name) + "/DataType", rule(op, "scale-data-type"),
                        std::string(f.name) + " is " + type_text(*f.desc) + "; it must be FLOAT32");
}

// "X and XZeroPointTensor must have the same DataType", for each pair present.
void require_zero_point_types(Diagnostics& diags, const char* op,
                              std::initializer_list<std::pair<Field, Field>> pairs) {
    for (const auto& [data, zero] : pairs)
        if (zero.desc)
            require_data_type(diags, *zero.desc, zero.name, *data.desc, data.name, rule(op, "zero-point-data-type"));
}

// "A scale value of 0 results in undefined behavior" (each scale's note): refused, and a
// non-finite scale with it (dmlref's decision); at most 8 reported per tensor.
void refuse_scales(const InputBuffers& in, const char* op, std::initializer_list<Field> scales, Diagnostics& diags) {
    for (const Field& f : scales) {
        const auto it = in.find(f.name);
        if (it == in.end() || it->second.size() < buffer_size(*f.desc)) continue;
        const std::vector<double> s = logical_doubles(*f.desc, it->second);
        int reported = 0;
        for (size_t i = 0; i < s.size() && reported < 8; ++i)
            if (s[i] == 0 || !std::isfinite(s[i])) {
                ++reported;
                diags.error(
                    pointer_append(std::string("/inputs/") + f.name, i), rule(op, "scale-value"),
                    std::string(f.name) + " element " + std::to_string(i) + " is " + std::to_string(s[i]) +
                        (s[i] == 0
                             ? "; the page: \"A scale value of 0 results in undefined behavior\""
                             : "; a non-finite scale leaves the dequantized product without a value, and dmlref refuses it"));
            }
    }
}

template <class T>
void write_quantized(const TensorDesc& out, std::span<std::byte> buffer, const std::vector<int64_t>& v) {
    write_logical<T>(out, buffer, [&](uint64_t i) { return T(v[i]); });
}

void write_output(const TensorDesc& out, std::span<std::byte> buffer, const std::vector<int64_t>& v) {
    if (out.DataType == DataType::INT8) write_quantized<int8_t>(out, buffer, v);
    else write_quantized<uint8_t>(out, buffer, v);
}

// QuantizedAccumulator=WrapToInt32 (docs/golden.md, "Alternative readings"): an INT32 accumulator
// that wraps at every addition holds the exact sum modulo 2^32, two's complement (bias included).
void wrap_accumulators(std::vector<RequantizeTerms>& t) {
    if (!in_force<"QuantizedAccumulator", "WrapToInt32">()) return;
    for (RequantizeTerms& e : t) e.acc = int64_t(int32_t(uint32_t(uint64_t(e.acc))));
}

std::vector<double> optional_values(const std::optional<TensorDesc>& d, const InputReader& input, const char* field) {
    return d ? logical_doubles(*d, input(field)) : std::vector<double>{};
}

}  // namespace

// ---- The element -----------------------------------------------------------------------------

int64_t requantized_element(const RequantizeTerms& t, int64_t lo, int64_t hi) {
    const mpq_class q = mpq_class(mpz_class(static_cast<long>(t.acc))) * mpq_class(t.sa) * mpq_class(t.sb) /
                        mpq_class(t.so);
    return requantize_exact(q, t.zo, lo, hi);
}

bool requantized_near_tie(const RequantizeTerms& t, int64_t lo, int64_t hi) {
    if (!std::isfinite(t.sa) || !std::isfinite(t.sb) || !std::isfinite(t.so) || t.so == 0) return false;
    const mpq_class q = mpq_class(mpz_class(static_cast<long>(t.acc))) * mpq_class(t.sa) * mpq_class(t.sb) /
                        mpq_class(t.so);
    // The multiplier AScale * BScale / OutputScale (two roundings, three through a reciprocal), the
    // accumulator converted to FLOAT32 and the product: five.
    return requantize_near_tie(q, abs(q), 5, t.zo, lo, hi);
}

// ---- QUANTIZED_LINEAR_MATRIX_MULTIPLY ------------------------------------------------------------
//
// Tensor constraints: "ATensor and AZeroPointTensor must have the same DataType", likewise B and
// Output (.zero-point-data-type); "ATensor, BTensor, and OutputTensor must have the same
// DimensionCount" (.same-dimension-count); "AScaleTensor, AZeroPointTensor, BScaleTensor,
// BZeroPointTensor, OutputScaleTensor, and OutputZeroPointTensor must have the same DimensionCount"
// (.quantization-dimension-count). The fields: A { [BatchCount], [ChannelCount], M, K }, B { ..,
// K, N }, Output { .., M, N } (.inner-size, .output-sizes, .batch-sizes); AScale, AZeroPoint,
// OutputScale, OutputZeroPoint { 1, 1, 1, 1 } or { 1, 1, M, 1 }, BScale, BZeroPoint { 1, 1, 1, N }
// (.scale-sizes, .zero-point-sizes). Tensor support: A, B and Output INT8 or UINT8 (.data-type,
// .output-data-type), 2 to 4 dimensions (.dimension-count), the scales FLOAT32
// (.scale-data-type), scales and zero points 1 to 4 dimensions, one count for the six
// (.quantization-rank).
namespace {

struct MatMulData {
    GemmShape s;
    std::vector<double> a, b, as, bs, os, za, zb, zo;
};

MatMulData read_matmul(const QLMM& d, const InputReader& input) {
    MatMulData g;
    g.s = gemm_shape(d.OutputTensor, d.ATensor, false);
    g.a = logical_doubles(d.ATensor, input("ATensor"));
    g.b = logical_doubles(d.BTensor, input("BTensor"));
    g.as = logical_doubles(d.AScaleTensor, input("AScaleTensor"));
    g.bs = logical_doubles(d.BScaleTensor, input("BScaleTensor"));
    g.os = logical_doubles(d.OutputScaleTensor, input("OutputScaleTensor"));
    g.za = optional_values(d.AZeroPointTensor, input, "AZeroPointTensor");
    g.zb = optional_values(d.BZeroPointTensor, input, "BZeroPointTensor");
    g.zo = optional_values(d.OutputZeroPointTensor, input, "OutputZeroPointTensor");
    return g;
}

RequantizeTerms matmul_terms(const MatMulData& g, uint64_t e) {
    const uint64_t n = e % g.s.N, m = (e / g.s.N) % g.s.M, batch = e / (g.s.N * g.s.M);
    RequantizeTerms t;
    for (uint64_t k = 0; k < g.s.K; ++k)  // exact: |term| <= 255 * 255 and K < 2^32
        t.acc += (int64_t(g.a[a_index(g.s, false, batch, m, k)]) - zero_point_at(g.za, m)) *
                 (int64_t(g.b[b_index(g.s, false, batch, k, n)]) - zero_point_at(g.zb, n));
    t.sa = per(g.as, m), t.sb = per(g.bs, n), t.so = per(g.os, m);
    t.zo = zero_point_at(g.zo, m);
    return t;
}

std::vector<RequantizeTerms> matmul_elements(const QLMM& d, const InputReader& input) {
    const MatMulData g = read_matmul(d, input);
    std::vector<RequantizeTerms> r(g.s.Batch * g.s.M * g.s.N);
    for (uint64_t e = 0; e < r.size(); ++e) r[e] = matmul_terms(g, e);
    return r;
}

}  // namespace

void validate(const QLMM& d, Diagnostics& diags) {
    require_quantized(diags, kMm, "data-type", {{"ATensor", &d.ATensor}, {"BTensor", &d.BTensor}});
    require_quantized(diags, kMm, "output-data-type", {{"OutputTensor", &d.OutputTensor}});
    require_float32(diags, kMm,
                    {{"AScaleTensor", &d.AScaleTensor},
                     {"BScaleTensor", &d.BScaleTensor},
                     {"OutputScaleTensor", &d.OutputScaleTensor}});
    auto opt = [](const std::optional<TensorDesc>& t) { return t ? &*t : nullptr; };
    require_zero_point_types(
        diags, kMm,
        {{{"ATensor", &d.ATensor}, {"AZeroPointTensor", opt(d.AZeroPointTensor)}},
         {{"BTensor", &d.BTensor}, {"BZeroPointTensor", opt(d.BZeroPointTensor)}},
         {{"OutputTensor", &d.OutputTensor}, {"OutputZeroPointTensor", opt(d.OutputZeroPointTensor)}}});
    // The six scales and zero points have one DimensionCount, AScaleTensor's.
    const uint32_t q = d.AScaleTensor.DimensionCount();
    bool same = true;
    for (const Field& f :
         {Field{"AZeroPointTensor", opt(d.AZeroPointTensor)}, Field{"BScaleTensor", &d.BScaleTensor},
          Field{"BZeroPointTensor", opt(d.BZeroPointTensor)}, Field{"OutputScaleTensor", &d.OutputScaleTensor},
          Field{"OutputZeroPointTensor", opt(d.OutputZeroPointTensor)}})
        if (f.desc && f.desc->DimensionCount() != q) {
            same = false;
            diags.error(desc_path(f.name) + "/Sizes", rule(kMm, "quantization-dimension-count"),
                        std::string(f.name) + " has " + std::to_string(f.desc->DimensionCount()) +
                            " dimensions and AScaleTensor " + std::to_string(q) +
                            "; the scales and zero points must have the same DimensionCount");
        }
    if (q < 1 || q > 4)
        diags.error("/desc/AScaleTensor/Sizes", rule(kMm, "quantization-rank"),
                    "AScaleTensor has " + std::to_string(q) +
                        " dimensions; the scales and zero points have 1 to 4 (they share one DimensionCount)");
    if (!validate_shapes(diags, kMm, d.ATensor, false, d.BTensor, false, d.OutputTensor)) return;
    if (!same || q < 1 || q > 4) return;
    const GemmShape s = gemm_shape(d.OutputTensor, d.ATensor, false);
    const char* page = "DML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC";
    const std::string scale = rule(kMm, "scale"), zero = rule(kMm, "zero-point");
    validate_quantization(diags, scale, d.AScaleTensor, "AScaleTensor", 1, uint32_t(s.M), "per row of A", page);
    validate_quantization(diags, scale, d.BScaleTensor, "BScaleTensor", 0, uint32_t(s.N), "per column of B", page);
    validate_quantization(diags, scale, d.OutputScaleTensor, "OutputScaleTensor", 1, uint32_t(s.M),
                          "per row of the output", page);
    if (d.AZeroPointTensor)
        validate_quantization(diags, zero, *d.AZeroPointTensor, "AZeroPointTensor", 1, uint32_t(s.M), "per row of A",
                              page);
    if (d.BZeroPointTensor)
        validate_quantization(diags, zero, *d.BZeroPointTensor, "BZeroPointTensor", 0, uint32_t(s.N), "per column of B",
                              page);
    if (d.OutputZeroPointTensor)
        validate_quantization(diags, zero, *d.OutputZeroPointTensor, "OutputZeroPointTensor", 1, uint32_t(s.M),
                              "per row of the output", page);
}

void validate_values(const QLMM& d, const InputBuffers& in, uint64_t, Diagnostics& diags) {
    refuse_scales(in, kMm,
                  {{"AScaleTensor", &d.AScaleTensor},
                   {"BScaleTensor", &d.BScaleTensor},
                   {"OutputScaleTensor", &d.OutputScaleTensor}},
                  diags);
}

void evaluate(const QLMM& d, const Bindings& b) {
    std::vector<RequantizeTerms> t = matmul_elements(
        d, [&](const char* f) { return std::span<const std::byte>(b.at(f)); });
    wrap_accumulators(t);
    const int64_t lo = type_min(d.OutputTensor.DataType), hi = type_max(d.OutputTensor.DataType);
    std::vector<int64_t> r(t.size());
    for (size_t e = 0; e < t.size(); ++e) r[e] = requantized_element(t[e], lo, hi);
    write_output(d.OutputTensor, b.at("OutputTensor"), r);
}

// ---- QUANTIZED_LINEAR_CONVOLUTION ----------------------------------------------------------------
//
// Tensor constraints: "BiasTensor, FilterTensor, InputTensor, and OutputTensor must have the same
// DimensionCount" (.same-dimension-count); "OutputTensor and OutputZeroPointTensor must have the
// same DataType", likewise InputReader and Filter (.zero-point-data-type). The fields and the geometry
// as CONVOLUTION_INTEGER's (reference/convolution.cpp, validate_geometry: .rank, .dimension-count,
// .array-length, .stride-nonzero, .dilation-nonzero, .group-count, .output-channels,
// .filter-channels, .batch, .window-fits, .output-size). DimensionCount: "Only a value of 2 is
// supported" predates DML_FEATURE_LEVEL_4_0's 3-D tensors; dmlref takes the spatial count,
// 1 or 2. InputScale, InputZeroPoint, OutputScale, OutputZeroPoint { 1, 1, 1, 1 }; FilterScale and
// FilterZeroPoint { 1, 1, 1, 1 } or { 1, OutputChannelCount, 1, 1 } (.scale-sizes,
// .zero-point-sizes, 1 to 4 dimensions: .scale-dimension-count, .zero-point-dimension-count);
// BiasTensor { 1, OutputChannelCount, 1, 1 } (.bias-sizes). Tensor support: InputReader, Filter, Output
// INT8 or UINT8 (.data-type, .output-data-type), the scales FLOAT32 (.scale-data-type), the bias
// INT32 (.bias-data-type).
namespace {

// 1 to 4 dimensions, all 1 but the channel dimension (index 1; index 0 of a 1-D tensor), which
// may be `channels` (0: per tensor only).
void require_quantization_shape(Diagnostics& diags, const std::string& stem, const TensorDesc& z, const char* name,
                                uint64_t channels) {
    const size_t r = z.DimensionCount();
    if (r < 1 || r > 4) {
        diags.error(desc_path(name) + "/Sizes", stem + "-dimension-count",
                    std::string(name) + " has " + std::to_string(r) + " dimensions; it must have 1 to 4");
        return;
    }
    const size_t channel = r == 1 ? 0 : 1;
    for (size_t i = 0; i < r; ++i)
        if (z.Sizes[i] != 1 && !(channels > 0 && i == channel && z.Sizes[i] == channels))
            diags.error(desc_path(name) + "/Sizes/" + std::to_string(i), stem + "-sizes",
                        std::string(name) + "'s Sizes[" + std::to_string(i) + "] is " + std::to_string(z.Sizes[i]) +
                            "; its sizes are all 1" +
                            (channels > 0 ? " but the channel dimension, which may be OutputChannelCount (" +
                                                std::to_string(channels) + ")"
                                          : std::string()) +
                            " (DML_QUANTIZED_LINEAR_CONVOLUTION_OPERATOR_DESC)");
}

DML_CONVOLUTION_INTEGER_OPERATOR_DESC integer_view(const QLCONV& d) {
    DML_CONVOLUTION_INTEGER_OPERATOR_DESC v;
    v.InputTensor = d.InputTensor;
    v.FilterTensor = d.FilterTensor;
    v.OutputTensor = d.OutputTensor;
    v.DimensionCount = d.DimensionCount;
    v.Strides = d.Strides;
    v.Dilations = d.Dilations;
    v.StartPadding = d.StartPadding;
    v.EndPadding = d.EndPadding;
    v.GroupCount = d.GroupCount;
    return v;
}

std::vector<RequantizeTerms> convolution_elements(const QLCONV& d, const InputReader& input) {
    const ConvolutionGeometry g = convolution_geometry(integer_view(d));
    const std::vector<double> x = logical_doubles(d.InputTensor, input("InputTensor"));
    const std::vector<double> w = logical_doubles(d.FilterTensor, input("FilterTensor"));
    const std::vector<double> xs = logical_doubles(d.InputScaleTensor, input("InputScaleTensor"));
    const std::vector<double> ws = logical_doubles(d.FilterScaleTensor, input("FilterScaleTensor"));
    const std::vector<double> os = logical_doubles(d.OutputScaleTensor, input("OutputScaleTensor"));
    const std::vector<double> xz = optional_values(d.InputZeroPointTensor, input, "InputZeroPointTensor");
    const std::vector<double> wz = optional_values(d.FilterZeroPointTensor, input, "FilterZeroPointTensor");
    const std::vector<double> oz = optional_values(d.OutputZeroPointTensor, input, "OutputZeroPointTensor");
    const std::vector<double> bias = optional_values(d.BiasTensor, input, "BiasTensor");
    std::vector<RequantizeTerms> r(element_count(d.OutputTensor));
    for (uint64_t e = 0; e < r.size(); ++e) {
        const uint64_t m = output_channel(g, e);
        const int64_t zx = zero_point_at(xz, 0), zw = zero_point_at(wz, m);
        RequantizeTerms& t = r[e];
        // Padding gives no product: the input's zero point there (IntegerPadding=InputZeroPoint).
        for_each_product(g, e,
                         [&](uint64_t xi, uint64_t wi) { t.acc += (int64_t(x[xi]) - zx) * (int64_t(w[wi]) - zw); });
        if (!bias.empty()) t.acc += int64_t(bias[m]);  // QuantizedConvolutionBias=AccumulatorUnits
        t.sa = per(xs, 0), t.sb = per(ws, m), t.so = per(os, 0);
        t.zo = zero_point_at(oz, 0);
    }
    return r;
}

}  // namespace

void validate(const QLCONV& d, Diagnostics& diags) {
    auto opt = [](const std::optional<TensorDesc>& t) { return t ? &*t : nullptr; };
    require_quantized(diags, kConv, "data-type", {{"InputTensor", &d.InputTensor}, {"FilterTensor", &d.FilterTensor}});
    require_quantized(diags, kConv, "output-data-type", {{"OutputTensor", &d.OutputTensor}});
    require_float32(diags, kConv,
                    {{"InputScaleTensor", &d.InputScaleTensor},
                     {"FilterScaleTensor", &d.FilterScaleTensor},
                     {"OutputScaleTensor", &d.OutputScaleTensor}});
    if (d.BiasTensor && d.BiasTensor->DataType != DataType::INT32)
        diags.error("/desc/BiasTensor/DataType", rule(kConv, "bias-data-type"),
                    "BiasTensor is " + type_text(*d.BiasTensor) + "; it must be INT32");
    require_zero_point_types(
        diags, kConv,
        {{{"InputTensor", &d.InputTensor}, {"InputZeroPointTensor", opt(d.InputZeroPointTensor)}},
         {{"FilterTensor", &d.FilterTensor}, {"FilterZeroPointTensor", opt(d.FilterZeroPointTensor)}},
         {{"OutputTensor", &d.OutputTensor}, {"OutputZeroPointTensor", opt(d.OutputZeroPointTensor)}}});
    const std::string scale = rule(kConv, "scale"), zero = rule(kConv, "zero-point");
    require_quantization_shape(diags, scale, d.InputScaleTensor, "InputScaleTensor", 0);
    require_quantization_shape(diags, scale, d.OutputScaleTensor, "OutputScaleTensor", 0);
    if (d.InputZeroPointTensor)
        require_quantization_shape(diags, zero, *d.InputZeroPointTensor, "InputZeroPointTensor", 0);
    if (d.OutputZeroPointTensor)
        require_quantization_shape(diags, zero, *d.OutputZeroPointTensor, "OutputZeroPointTensor", 0);
    const bool shape_ok = validate_geometry(
        diags, {kConv, d.InputTensor, d.FilterTensor, d.OutputTensor, d.DimensionCount, d.Strides, d.Dilations,
                d.StartPadding, d.EndPadding, nullptr, d.GroupCount, false, 4});
    if (!shape_ok) return;
    // The per-channel sizes need the output channel count: checked once the geometry holds.
    const uint64_t M = d.OutputTensor.Sizes[1];
    require_quantization_shape(diags, scale, d.FilterScaleTensor, "FilterScaleTensor", M);
    if (d.FilterZeroPointTensor)
        require_quantization_shape(diags, zero, *d.FilterZeroPointTensor, "FilterZeroPointTensor", M);
    if (d.BiasTensor) {
        const TensorDesc& b = *d.BiasTensor;
        if (b.DimensionCount() != d.OutputTensor.DimensionCount()) {
            diags.error(
                "/desc/BiasTensor/Sizes", rule(kConv, "same-dimension-count"),
                "BiasTensor has " + std::to_string(b.DimensionCount()) + " dimensions but InputTensor has " +
                    std::to_string(d.InputTensor.DimensionCount()) +
                    "; BiasTensor, FilterTensor, InputTensor and OutputTensor must have the same DimensionCount");
            return;
        }
        bool good = true;
        for (size_t i = 0; good && i < b.Sizes.size(); ++i) good = b.Sizes[i] == (i == 1 ? M : 1u);
        if (!good)
            diags.error("/desc/BiasTensor/Sizes", rule(kConv, "bias-sizes"),
                        "BiasTensor's Sizes must be { 1, OutputChannelCount (" + std::to_string(M) +
                            "), 1, ... } (broadcast across the output)");
    }
}

void validate_values(const QLCONV& d, const InputBuffers& in, uint64_t, Diagnostics& diags) {
    refuse_scales(in, kConv,
                  {{"InputScaleTensor", &d.InputScaleTensor},
                   {"FilterScaleTensor", &d.FilterScaleTensor},
                   {"OutputScaleTensor", &d.OutputScaleTensor}},
                  diags);
}

void evaluate(const QLCONV& d, const Bindings& b) {
    std::vector<RequantizeTerms> t = convolution_elements(
        d, [&](const char* f) { return std::span<const std::byte>(b.at(f)); });
    wrap_accumulators(t);
    const int64_t lo = type_min(d.OutputTensor.DataType), hi = type_max(d.OutputTensor.DataType);
    std::vector<int64_t> r(t.size());
    for (size_t e = 0; e < t.size(); ++e) r[e] = requantized_element(t[e], lo, hi);
    write_output(d.OutputTensor, b.at("OutputTensor"), r);
}

// ---- Judging (docs/tolerance.md, "Quantized linear products") -------------------------------------

std::optional<RequantizeElements> requantize_elements(const Case& c) {
    const InputReader input = [&](const char* f) { return std::span<const std::byte>(c.inputs.at(f)); };
    try {
        Diagnostics diags;
        RequantizeElements r;
        if (const auto* d = get_if<QLMM>(&c.op.Desc)) {
            validate(*d, diags);
            if (!diags.has_errors()) validate_values(*d, c.inputs, 0, diags);
            if (diags.has_errors()) return std::nullopt;
            r.terms = matmul_elements(*d, input);
            r.lo = type_min(d->OutputTensor.DataType), r.hi = type_max(d->OutputTensor.DataType);
            return r;
        }
        if (const auto* d = get_if<QLCONV>(&c.op.Desc)) {
            validate(*d, diags);
            if (!diags.has_errors()) validate_values(*d, c.inputs, 0, diags);
            if (diags.has_errors()) return std::nullopt;
            r.terms = convolution_elements(*d, input);
            r.lo = type_min(d->OutputTensor.DataType), r.hi = type_max(d->OutputTensor.DataType);
            return r;
        }
    } catch (const std::exception&) {
    }
    return std::nullopt;
}

std::vector<BoundaryElement> quantized_linear_ties(const Case& c, std::string_view output) {
    std::vector<BoundaryElement> out;
    if (output != "OutputTensor") return out;
    const auto r = requantize_elements(c);
    if (!r) return out;
    for (size_t i = 0; i < r->terms.size(); ++i)
        if (requantized_near_tie(r->terms[i], r->lo, r->hi)) out.push_back({i, "QuantizeTie"});
    return out;
}

std::optional<Tolerance> quantized_linear_tolerance(const Case& c, std::string_view output) {
    if (output != "OutputTensor" || !requantize_elements(c)) return std::nullopt;
    Tolerance t;
    if (quantized_linear_ties(c, output).empty()) {
        t.Kind = "Bits";
        t.Why =
            "every element's exact value acc * AScale * BScale / OutputScale is farther than FLOAT32 arithmetic's error from a "
            "rounding tie: the integer is determined, bit for bit (docs/tolerance.md, Quantized linear products)";
    } else {
        t.Kind = "Ulp";
        t.Ulp = 1;
        t.Why =
            "some elements' exact values acc * AScale * BScale / OutputScale lie within FLOAT32 arithmetic's error (gamma_5) of a "
            "rounding tie (the QuantizeTie elements): a backend forming the multiplier in FLOAT32 may take the other neighbour "
            "there, so 1 is admitted (docs/tolerance.md, Quantized linear products)";
    }
    return t;
}

// ---- explain -------------------------------------------------------------------------------------

bool explain_quantized_linear(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out) {
    const auto* mm = get_if<QLMM>(&c.op.Desc);
    const auto* conv = get_if<QLCONV>(&c.op.Desc);
    if ((!mm && !conv) || output != "OutputTensor") return false;
    // A scale's, zero point's or bias's element for row, column or channel i (its one element when per tensor).
    auto scale = [&](const char* field, const TensorDesc& t, uint64_t i, const char* role) {
        out.inputs.push_back(input_element(c, field, nd_coordinate(t.Sizes, element_count(t) == 1 ? 0 : i), role));
    };
    if (mm) {
        explain_integer_pairs(c, mm->ATensor, mm->BTensor, mm->OutputTensor, mm->AZeroPointTensor, mm->BZeroPointTensor,
                              flat, out);
        const GemmShape s = gemm_shape(mm->OutputTensor, mm->ATensor, false);
        const uint64_t n = flat % s.N, m = (flat / s.N) % s.M;
        scale("AScaleTensor", mm->AScaleTensor, m, "scale");
        scale("BScaleTensor", mm->BScaleTensor, n, "scale");
        scale("OutputScaleTensor", mm->OutputScaleTensor, m, "scale");
        if (mm->OutputZeroPointTensor) scale("OutputZeroPointTensor", *mm->OutputZeroPointTensor, m, "zero point");
        out.facts.emplace_back(
            "formula",
            "clamp(round_half_even(AScale[m] * BScale[n] * sum_k (a_k - AZeroPoint[m]) (b_k - BZeroPoint[n]) / "
            "OutputScale[m]) + OutputZeroPoint[m], Min, Max), exact until the rounding");
    } else {
        const ConvolutionGeometry g = convolution_geometry(integer_view(*conv));
        uint64_t products = 0;
        for_each_product(g, flat, [&](uint64_t xi, uint64_t wi) {
            if (++products > 16) return;
            out.inputs.push_back(input_element(c, "InputTensor", nd_coordinate(conv->InputTensor.Sizes, xi), "x"));
            out.inputs.push_back(input_element(c, "FilterTensor", nd_coordinate(conv->FilterTensor.Sizes, wi), "w"));
        });
        const uint64_t m = output_channel(g, flat);
        scale("InputScaleTensor", conv->InputScaleTensor, 0, "scale");
        scale("FilterScaleTensor", conv->FilterScaleTensor, m, "scale");
        scale("OutputScaleTensor", conv->OutputScaleTensor, 0, "scale");
        if (conv->InputZeroPointTensor) scale("InputZeroPointTensor", *conv->InputZeroPointTensor, 0, "zero point");
        if (conv->FilterZeroPointTensor) scale("FilterZeroPointTensor", *conv->FilterZeroPointTensor, m, "zero point");
        if (conv->OutputZeroPointTensor) scale("OutputZeroPointTensor", *conv->OutputZeroPointTensor, 0, "zero point");
        if (conv->BiasTensor) scale("BiasTensor", *conv->BiasTensor, m, "bias");
        out.facts.emplace_back("products", std::to_string(products) + " of at most " + std::to_string(g.max_terms()) +
                                               " (padding gives none; the first 16 listed), output channel " +
                                               std::to_string(m));
        out.facts.emplace_back(
            "formula",
            "clamp(round_half_even(InputScale * FilterScale[m] * (sum (x - InputZeroPoint) (w - FilterZeroPoint[m]) + "
            "Bias[m]) / OutputScale) + OutputZeroPoint, Min, Max), exact until the rounding");
    }
    if (const auto r = requantize_elements(c); r && flat < r->terms.size()) {
        const RequantizeTerms& t = r->terms[flat];
        out.facts.emplace_back("accumulator", std::to_string(t.acc) + " (exact, never wrapped to INT32)");
        if (requantized_near_tie(t, r->lo, r->hi))
            out.facts.emplace_back(
                "tie",
                "the exact value is within FLOAT32's error of a half-integer: a backend may give the other neighbour");
    }
    for (const auto& pol : info(c.op.Type).Policies) out.policies.emplace_back(pol.Name);
    return true;
}

}  // namespace dmlref::reference
