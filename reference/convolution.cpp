// DML_OPERATOR_CONVOLUTION and DML_OPERATOR_CONVOLUTION_INTEGER.
//
// Spec: DML_CONVOLUTION_OPERATOR_DESC and DML_CONVOLUTION_INTEGER_OPERATOR_DESC (DirectML API
// reference); docs/golden.md, "Convolution".
//
//   Tensors are {N, C, spatial...} (1 to 3 spatial dimensions); the arrays have one entry per
//   spatial dimension. G = GroupCount; K = 1 + (FilterSize - 1) * Dilations, the dilated kernel.
//   FORWARD   FilterTensor {M, C / G, k...}, OutputTensor {N, M, out...},
//             out = (In + StartPadding + EndPadding - K) / Strides + 1             (floor)
//             Y[n,m,o] = Bias[m] + sum over c of m's group, kernel tap t:
//                        X[n, g(m) C/G + c, o * Strides - StartPadding + t * Dilations] * W[m, c, t']
//   BACKWARD  (transposed: the adjoint of FORWARD with the same filter, channels swapped)
//             FilterTensor {C, M / G, k...}, OutputTensor {N, M, out...},
//             out = (In - 1) * Strides + K - StartPadding - EndPadding + OutputPadding
//             Y[n,m,o] = Bias[m] + sum over c of m's group, input position i, tap t with
//                        i * Strides - StartPadding + t * Dilations = o:  X[n, c, i] * W[c, m mod M/G, t']
//   t' = t for CROSS_CORRELATION; t' = FilterSize - 1 - t along every spatial dimension for
//   CONVOLUTION ("flips the order of elements in each filter kernel along each spatial
//   dimension"). The page's "Mode interactions" table (BACKWARD CROSS_CORRELATION: "filter is
//   transposed") is this adjoint seen as a sliding window over the output.
//   CONVOLUTION_INTEGER: FORWARD, CROSS_CORRELATION, no bias; each product is
//   (X - InputZeroPoint) * (W - FilterZeroPoint[m]) in exact integers.
//
// Decisions (docs/golden.md, recorded as policies in golden files):
//   - Float outputs: every product (exact in float64 for FLOAT16 and FLOAT32 operands) and the
//     bias are summed exactly and rounded once (ConvolutionSum=ExactThenRoundOnce); a sum starts
//     from +0; NaN, or +inf with -inf, gives the canonical NaN (NonFiniteSum=CanonicalNaN).
//   - Padding positions give no product at all (ConvolutionPadding=NoTerm): an infinite weight over padding
//     adds nothing (it would add NaN as 0 * inf).
//   - FusedActivation applies to the sum already rounded to the output type, and its exact result
//     is rounded once more (FusedActivationInput=RoundedSum, as ELEMENT_WISE_ADD1).
//   - BACKWARD: the output size above; OutputPadding only lengthens the output, whose every
//     element follows the formula (OutputPadding=TransposedFormula); FORWARD refuses a nonzero
//     OutputPadding (convolution.forward-output-padding).
//   - FORWARD output sizes: exactly the floor size (ConvolutionOutputSizes=Floor).
//   - CONVOLUTION_INTEGER: a padded input position is the input zero point, so it adds nothing
//     (IntegerPadding=InputZeroPoint); the exact sum wraps to INT32 (IntegerOverflow=WrapToWidth).
//     The alternative IntegerOverflow=Saturate (docs/golden.md, "Alternative readings") clamps the
//     exact sum once to INT32's range: 33100 products 255 x 255 give 2147483647. That is a
//     saturating backend's convolution: the products are summed in a wider accumulator (each is
//     at most 65025 in magnitude, so 64 bits never overflow) and the sum is stored with
//     saturation; an INT32 accumulator saturated after each product would depend on the order of
//     the taps and channels, which the page does not give.
#include "convolution.hpp"

#include "fast_sum.hpp"
#include "fused_activation.hpp"

#include "dmlref/checked.hpp"
#include "dmlref/readings.hpp"
#include "dmlref/working_types.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace dmlref::reference {

namespace {

std::string str(uint64_t v) { return std::to_string(v); }

// ---- Validation ----------------------------------------------------------------------------

}  // namespace

bool validate_geometry(Diagnostics& diags, const ConvolutionFields& f) {
    const uint32_t rank = f.input.DimensionCount();
    if (rank < 3 || rank > f.max_rank) {
        diags.error("/desc/InputTensor/Sizes", rule(f.op, "rank"),
                    "InputTensor has " + str(rank) + " dimensions; the convolution needs 3 to " + str(f.max_rank) +
                        " (batch, channel and 1 to " + str(f.max_rank - 2) + " spatial dimensions)");
        return false;
    }
    bool ok = true;
    for (auto [name, t] :
         {std::pair<std::string_view, const TensorDesc*>{"FilterTensor", &f.filter}, {"OutputTensor", &f.output}})
        if (t->DimensionCount() != rank) {
            diags.error(pointer_append(desc_path(name), "Sizes"), rule(f.op, "same-dimension-count"),
                        std::string(name) + " has " + str(t->DimensionCount()) + " dimensions but InputTensor has " +
                            str(rank) +
                            "; FilterTensor, InputTensor and OutputTensor must have the same DimensionCount");
            ok = false;
        }
    if (f.DimensionCount != rank - 2) {
        diags.error("/desc/DimensionCount", rule(f.op, "dimension-count"),
                    "DimensionCount is " + str(f.DimensionCount) + " but InputTensor has " + str(rank) +
                        " dimensions; DimensionCount is the number of spatial dimensions, " + str(rank - 2));
        ok = false;
    }
    if (!ok) return false;
    struct Array {
        std::string_view name;
        const std::vector<uint32_t>* v;
        std::string_view nonzero;
    };
    const Array arrays[] = {{"Strides", &f.Strides, "stride-nonzero"},
                            {"Dilations", &f.Dilations, "dilation-nonzero"},
                            {"StartPadding", &f.StartPadding, ""},
                            {"EndPadding", &f.EndPadding, ""},
                            {"OutputPadding", f.OutputPadding, ""}};
    for (const auto& a : arrays) {
        if (!a.v) continue;
        if (a.v->size() != f.DimensionCount) {
            diags.error(desc_path(a.name), rule(f.op, "array-length"),
                        std::string(a.name) + " has " + str(a.v->size()) +
                            " entries; it must have DimensionCount = " + str(f.DimensionCount));
            ok = false;
            continue;
        }
        if (a.nonzero.empty()) continue;
        for (size_t i = 0; i < a.v->size(); ++i)
            if ((*a.v)[i] == 0) {
                diags.error(pointer_append(desc_path(a.name), i), rule(f.op, a.nonzero),
                            std::string(a.name) + "[" + str(i) + "] is 0; it must be at least 1");
                ok = false;
            }
    }
    const uint64_t C = f.input.Sizes[1], M = f.output.Sizes[1], G = f.GroupCount;
    if (G == 0 || C % G != 0 || M % G != 0) {
        diags.error("/desc/GroupCount", rule(f.op, "group-count"),
                    "GroupCount is " + str(G) + "; it must be at least 1 and divide both the input channel count " +
                        str(C) + " and the output channel count " + str(M));
        return false;
    }
    // The filter's two leading sizes: {M, C / G} forward, {C, M / G} backward.
    const uint64_t want0 = f.backward ? C : M, want1 = f.backward ? M / G : C / G;
    if (f.filter.Sizes[0] != want0)
        diags.error("/desc/FilterTensor/Sizes/0", rule(f.op, f.backward ? "filter-channels" : "output-channels"),
                    "FilterTensor.Sizes[0] is " + str(f.filter.Sizes[0]) + "; " +
                        (f.backward ? "a BACKWARD convolution's FilterBatchCount must be InputTensor's channel count, "
                                    : "FilterBatchCount must be OutputTensor's channel count, ") +
                        str(want0));
    if (f.filter.Sizes[1] != want1)
        diags.error(
            "/desc/FilterTensor/Sizes/1", rule(f.op, f.backward ? "output-channels" : "filter-channels"),
            "FilterTensor.Sizes[1] is " + str(f.filter.Sizes[1]) + "; " +
                (f.backward ? "a BACKWARD convolution's FilterChannelCount must be the output channels per group, "
                            : "FilterChannelCount must be the input channels per group, ") +
                str(f.backward ? M : C) + " / GroupCount " + str(G) + " = " + str(want1));
    if (f.output.Sizes[0] != f.input.Sizes[0])
        diags.error("/desc/OutputTensor/Sizes/0", rule(f.op, "batch"),
                    "OutputTensor.Sizes[0] is " + str(f.output.Sizes[0]) + " but InputTensor.Sizes[0] is " +
                        str(f.input.Sizes[0]) + "; the batch counts must be the same");
    if (!ok) return false;
    bool sizes_ok = true;
    for (size_t i = 0; i < f.DimensionCount; ++i) {
        const int128_t in = f.input.Sizes[i + 2], k = f.filter.Sizes[i + 2], s = f.Strides[i], d = f.Dilations[i];
        const int128_t sp = f.StartPadding[i], ep = f.EndPadding[i], op = f.OutputPadding ? (*f.OutputPadding)[i] : 0;
        const int128_t extent = 1 + (k - 1) * d;
        int128_t expected;
        if (!f.backward) {
            if (extent > in + sp + ep) {
                diags.error(pointer_append("/desc/FilterTensor/Sizes", i + 2), rule(f.op, "window-fits"),
                            "the dilated kernel along spatial dimension " + str(i) + " spans " + str(uint64_t(extent)) +
                                " elements (1 + (FilterSize - 1) * Dilations) but the padded input has only " +
                                str(uint64_t(in + sp + ep)) + " (InputTensor.Sizes[" + str(i + 2) +
                                "] + StartPadding + EndPadding)");
                sizes_ok = false;
                continue;
            }
            expected = (in + sp + ep - extent) / s + 1;
        } else {
            expected = (in - 1) * s + extent + op - sp - ep;
        }
        if (int128_t(f.output.Sizes[i + 2]) != expected) {
            const std::string formula =
                f.backward
                    ? "(InputSize - 1) * Strides + 1 + (FilterSize - 1) * Dilations - StartPadding - EndPadding + OutputPadding"
                    : "(InputSize + StartPadding + EndPadding - (1 + (FilterSize - 1) * Dilations)) / Strides + 1";
            const std::string value = expected >= 1 ? str(uint64_t(expected)) : "less than 1, which no tensor has";
            diags.error(pointer_append("/desc/OutputTensor/Sizes", i + 2), rule(f.op, "output-size"),
                        "OutputTensor.Sizes[" + str(i + 2) + "] is " + str(f.output.Sizes[i + 2]) + "; " + formula +
                            " gives " + value);
            sizes_ok = false;
        }
    }
    return sizes_ok;
}

namespace {

ConvolutionGeometry geometry(const TensorDesc& input, const TensorDesc& filter, const TensorDesc& output,
                             uint32_t count, const std::vector<uint32_t>& Strides,
                             const std::vector<uint32_t>& Dilations, const std::vector<uint32_t>& StartPadding,
                             uint32_t GroupCount, bool backward, bool flip) {
    ConvolutionGeometry g;
    g.backward = backward;
    g.flip = flip;
    g.spatial = count;
    g.batch = input.Sizes[0];
    g.in_channels = input.Sizes[1];
    g.out_channels = output.Sizes[1];
    g.groups = GroupCount;
    g.filter_batch = filter.Sizes[0];
    g.filter_channels = filter.Sizes[1];
    for (uint32_t i = 0; i < count; ++i) {
        const size_t j = 3 - count + i;  // right-aligned in the three internal dimensions
        g.in[j] = input.Sizes[i + 2];
        g.out[j] = output.Sizes[i + 2];
        g.kernel[j] = filter.Sizes[i + 2];
        g.stride[j] = Strides[i];
        g.dilation[j] = Dilations[i];
        g.start[j] = StartPadding[i];
    }
    return g;
}

}  // namespace

ConvolutionGeometry convolution_geometry(const DML_CONVOLUTION_OPERATOR_DESC& d) {
    return geometry(d.InputTensor, d.FilterTensor, d.OutputTensor, d.DimensionCount, d.Strides, d.Dilations,
                    d.StartPadding, d.GroupCount, d.Direction == kConvolutionDirectionBackward,
                    d.Mode == kConvolutionModeConvolution);
}

ConvolutionGeometry convolution_geometry(const DML_CONVOLUTION_INTEGER_OPERATOR_DESC& d) {
    return geometry(d.InputTensor, d.FilterTensor, d.OutputTensor, d.DimensionCount, d.Strides, d.Dilations,
                    d.StartPadding, d.GroupCount, false, false);
}

void for_each_product(const ConvolutionGeometry& g, uint64_t e, const std::function<void(uint64_t, uint64_t)>& f) {
    // The output coordinate.
    std::array<int64_t, 3> o{};
    uint64_t rest = e;
    for (size_t j = 3; j-- > 0;) {
        o[j] = int64_t(rest % uint64_t(g.out[j]));
        rest /= uint64_t(g.out[j]);
    }
    const uint64_t m = rest % g.out_channels, n = rest / g.out_channels;
    const uint64_t in_group = g.in_channels / g.groups, out_group = g.out_channels / g.groups;
    const uint64_t group = m / out_group;
    const uint64_t taps = g.taps();
    for (uint64_t c = 0; c < in_group; ++c) {
        const uint64_t ci = group * in_group + c;
        // The filter plane of this (input channel, output channel) pair.
        const uint64_t w_plane = g.backward ? ci * g.filter_channels + (m % out_group) : m * g.filter_channels + c;
        const uint64_t x_plane = n * g.in_channels + ci;
        for (int64_t t0 = 0; t0 < g.kernel[0]; ++t0)
            for (int64_t t1 = 0; t1 < g.kernel[1]; ++t1)
                for (int64_t t2 = 0; t2 < g.kernel[2]; ++t2) {
                    const std::array<int64_t, 3> t{t0, t1, t2};
                    std::array<int64_t, 3> i{};
                    bool inside = true;
                    for (size_t j = 0; j < 3 && inside; ++j) {
                        if (!g.backward) {
                            i[j] = o[j] * g.stride[j] - g.start[j] + t[j] * g.dilation[j];
                        } else {  // i * stride - start + t * dilation = o
                            const int64_t s = o[j] + g.start[j] - t[j] * g.dilation[j];
                            if (s < 0 || s % g.stride[j] != 0) {
                                inside = false;
                                break;
                            }
                            i[j] = s / g.stride[j];
                        }
                        inside = i[j] >= 0 && i[j] < g.in[j];
                    }
                    if (!inside) continue;  // padding: no term
                    uint64_t w = 0, x = 0;
                    for (size_t j = 0; j < 3; ++j) {
                        const int64_t tt = g.flip ? g.kernel[j] - 1 - t[j] : t[j];
                        w = w * uint64_t(g.kernel[j]) + uint64_t(tt);
                        x = x * uint64_t(g.in[j]) + uint64_t(i[j]);
                    }
                    f(x_plane * g.in_plane() + x, w_plane * taps + w);
                }
    }
}

// ---- CONVOLUTION -------------------------------------------------------------------------------

void validate(const DML_CONVOLUTION_OPERATOR_DESC& d, Diagnostics& diags) {
    // "BiasTensor, FilterTensor, InputTensor, and OutputTensor must have the same DataType and
    // DimensionCount."
    if (d.BiasTensor)
        require_same_data_type(diags,
                               {{"InputTensor", d.InputTensor},
                                {"FilterTensor", d.FilterTensor},
                                {"BiasTensor", *d.BiasTensor},
                                {"OutputTensor", d.OutputTensor}},
                               "convolution.same-data-type");
    else
        require_same_data_type(
            diags, {{"InputTensor", d.InputTensor}, {"FilterTensor", d.FilterTensor}, {"OutputTensor", d.OutputTensor}},
            "convolution.same-data-type");
    // The tensor support tables: FLOAT32 and FLOAT16 only.
    const DataType t = d.InputTensor.DataType;
    if (is_valid(t) && t != DataType::FLOAT32 && t != DataType::FLOAT16)
        diags.error("/desc/InputTensor/DataType", "convolution.float-data",
                    "InputTensor.DataType is " + std::string(name(t)) + "; CONVOLUTION takes FLOAT32 or FLOAT16 data");
    const bool backward = d.Direction == kConvolutionDirectionBackward;
    const bool shape_ok = validate_geometry(
        diags, {"convolution", d.InputTensor, d.FilterTensor, d.OutputTensor, d.DimensionCount, d.Strides, d.Dilations,
                d.StartPadding, d.EndPadding, &d.OutputPadding, d.GroupCount, backward, 5});
    if (!backward && d.OutputPadding.size() == d.DimensionCount)
        for (size_t i = 0; i < d.OutputPadding.size(); ++i)
            if (d.OutputPadding[i] != 0)
                diags.error(
                    pointer_append("/desc/OutputPadding", i), "convolution.forward-output-padding",
                    "OutputPadding[" + str(i) + "] is " + str(d.OutputPadding[i]) +
                        "; OutputPadding lengthens a BACKWARD convolution's output, and dmlref refuses it for FORWARD "
                        "(docs/golden.md, Convolution)");
    if (d.BiasTensor && shape_ok) {
        // { 1, OutputChannelCount, 1, ... }, the same DimensionCount.
        const TensorDesc& b = *d.BiasTensor;
        bool good = b.DimensionCount() == d.OutputTensor.DimensionCount();
        for (size_t i = 0; good && i < b.Sizes.size(); ++i)
            good = b.Sizes[i] == (i == 1 ? d.OutputTensor.Sizes[1] : 1u);
        if (!good)
            diags.error("/desc/BiasTensor/Sizes", "convolution.bias-sizes",
                        "BiasTensor must have OutputTensor's DimensionCount and the sizes { 1, OutputChannelCount (" +
                            str(d.OutputTensor.Sizes[1]) + "), 1, ... }");
    }
    if (d.FusedActivation) validate_fused_activation(diags, *d.FusedActivation, "convolution");
}

template <class T>
T convolution_element(const ConvolutionGeometry& g, const double* x, const double* w, const double* bias, uint64_t e) {
    // Products of FLOAT16 and FLOAT32 values are exact in float64.
    return exact_sum_of<T>([&](auto&& add) {
        for_each_product(g, e, [&](uint64_t xi, uint64_t wi) { add(x[xi] * w[wi]); });
        if (bias) add(bias[output_channel(g, e)]);
    });
}
template float convolution_element<float>(const ConvolutionGeometry&, const double*, const double*, const double*,
                                          uint64_t);
template half convolution_element<half>(const ConvolutionGeometry&, const double*, const double*, const double*,
                                        uint64_t);

void evaluate(const DML_CONVOLUTION_OPERATOR_DESC& d, const Bindings& b) {
    const ConvolutionGeometry g = convolution_geometry(d);
    const std::vector<double> x = logical_doubles(d.InputTensor, b.at("InputTensor"));
    const std::vector<double> w = logical_doubles(d.FilterTensor, b.at("FilterTensor"));
    const std::vector<double> bias = d.BiasTensor ? logical_doubles(*d.BiasTensor, b.at("BiasTensor"))
                                                  : std::vector<double>{};
    const std::optional<DML_FUSED_ACTIVATION> act = d.FusedActivation;
    auto element = [&]<class T>(uint64_t e) {
        const T y = convolution_element<T>(g, x.data(), w.data(), bias.empty() ? nullptr : bias.data(), e);
        return act ? fused_activation(*act, y) : y;
    };
    const std::span<std::byte> out = b.at("OutputTensor");
    if (d.OutputTensor.DataType == DataType::FLOAT16)
        write_logical<half>(d.OutputTensor, out, [&](uint64_t e) { return element.template operator()<half>(e); });
    else write_logical<float>(d.OutputTensor, out, [&](uint64_t e) { return element.template operator()<float>(e); });
}

// ---- CONVOLUTION_INTEGER -------------------------------------------------------------------------

namespace {

// INT8 and UINT8 elements as exact integers, in logical order.
std::vector<int32_t> logical_bytes(const TensorDesc& d, std::span<const std::byte> buffer) {
    std::vector<int32_t> v;
    if (d.DataType == DataType::INT8)
        for (int8_t x : logical_values<int8_t>(d, buffer)) v.push_back(x);
    else
        for (uint8_t x : logical_values<uint8_t>(d, buffer)) v.push_back(x);
    return v;
}

// "{ [1], [1], [1], 1 }" and "{ [1], FilterZeroPointChannelCount, [1], [1] }": 1 to 4 dimensions,
// all 1 but the filter zero point's channel dimension (index 1, index 0 for one dimension), which
// is 1 (per tensor) or OutputChannelCount (per channel).
void validate_zero_point(Diagnostics& diags, const TensorDesc& z, std::string_view field, std::string_view data_field,
                         DataType data, uint64_t channels) {
    const std::string op = "convolution-integer";
    const std::string id = field == "InputZeroPointTensor" ? "input-zero-point" : "filter-zero-point";
    if (z.DataType != data)
        diags.error(pointer_append(desc_path(field), "DataType"), rule(op, id + "-data-type"),
                    std::string(field) + ".DataType is " + std::string(name(z.DataType)) + " but " +
                        std::string(data_field) + ".DataType is " + std::string(name(data)) +
                        "; they must have the same DataType");
    const size_t rank = z.DimensionCount();
    const size_t channel_dim = rank == 1 ? 0 : 1;
    bool good = rank >= 1 && rank <= 4;
    for (size_t i = 0; good && i < rank; ++i)
        good = z.Sizes[i] == 1 || (channels > 0 && i == channel_dim && z.Sizes[i] == channels);
    if (!good)
        diags.error(
            pointer_append(desc_path(field), "Sizes"), rule(op, id + "-sizes"),
            std::string(field) + " must have 1 to 4 dimensions, all of size 1" +
                (channels > 0 ? " but the channel dimension, which may be OutputChannelCount (" + str(channels) + ")"
                              : std::string()));
}

}  // namespace

void validate(const DML_CONVOLUTION_INTEGER_OPERATOR_DESC& d, Diagnostics& diags) {
    const std::string op = "convolution-integer";
    for (auto [field, t] : {std::pair<std::string_view, const TensorDesc*>{"InputTensor", &d.InputTensor},
                            {"FilterTensor", &d.FilterTensor}})
        if (is_valid(t->DataType) && t->DataType != DataType::INT8 && t->DataType != DataType::UINT8)
            diags.error(
                pointer_append(desc_path(field), "DataType"), rule(op, "data-type"),
                std::string(field) + ".DataType is " + std::string(name(t->DataType)) + "; it must be INT8 or UINT8");
    if (is_valid(d.OutputTensor.DataType) && d.OutputTensor.DataType != DataType::INT32)
        diags.error("/desc/OutputTensor/DataType", rule(op, "output-data-type"),
                    "OutputTensor.DataType is " + std::string(name(d.OutputTensor.DataType)) + "; it must be INT32");
    const bool shape_ok = validate_geometry(
        diags, {op, d.InputTensor, d.FilterTensor, d.OutputTensor, d.DimensionCount, d.Strides, d.Dilations,
                d.StartPadding, d.EndPadding, nullptr, d.GroupCount, false, 4});
    if (d.InputZeroPointTensor)
        validate_zero_point(diags, *d.InputZeroPointTensor, "InputZeroPointTensor", "InputTensor",
                            d.InputTensor.DataType, 0);
    // The filter zero point's per-channel size needs the output channel count: checked once the shapes hold.
    if (d.FilterZeroPointTensor && shape_ok)
        validate_zero_point(diags, *d.FilterZeroPointTensor, "FilterZeroPointTensor", "FilterTensor",
                            d.FilterTensor.DataType, d.OutputTensor.Sizes[1]);
    // "FilterZeroPointTensor and InputZeroPointTensor must have the same DimensionCount."
    if (d.InputZeroPointTensor && d.FilterZeroPointTensor &&
        d.InputZeroPointTensor->DimensionCount() != d.FilterZeroPointTensor->DimensionCount())
        diags.error("/desc/FilterZeroPointTensor/Sizes", rule(op, "zero-point-dimension-count"),
                    "FilterZeroPointTensor has " + str(d.FilterZeroPointTensor->DimensionCount()) +
                        " dimensions but InputZeroPointTensor has " + str(d.InputZeroPointTensor->DimensionCount()) +
                        "; they must have the same DimensionCount");
}

void evaluate(const DML_CONVOLUTION_INTEGER_OPERATOR_DESC& d, const Bindings& b) {
    const ConvolutionGeometry g = convolution_geometry(d);
    const std::vector<int32_t> x = logical_bytes(d.InputTensor, b.at("InputTensor"));
    const std::vector<int32_t> w = logical_bytes(d.FilterTensor, b.at("FilterTensor"));
    const int32_t xz = d.InputZeroPointTensor ? logical_bytes(*d.InputZeroPointTensor, b.at("InputZeroPointTensor"))[0]
                                              : 0;
    const std::vector<int32_t> wz = d.FilterZeroPointTensor
                                        ? logical_bytes(*d.FilterZeroPointTensor, b.at("FilterZeroPointTensor"))
                                        : std::vector<int32_t>{0};
    const bool saturate = in_force<"IntegerOverflow", "Saturate">();
    write_logical<int32_t>(d.OutputTensor, b.at("OutputTensor"), [&](uint64_t e) {
        const int32_t z = wz.size() == 1 ? wz[0] : wz[output_channel(g, e)];
        int64_t sum = 0;  // |each product| <= 255 * 255; the count of products is below 2^32: no overflow
        for_each_product(g, e, [&](uint64_t xi, uint64_t wi) { sum += int64_t(x[xi] - xz) * int64_t(w[wi] - z); });
        if (saturate)  // IntegerOverflow=Saturate: the exact sum clamped once
            return int32_t(
                std::clamp<int64_t>(sum, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()));
        return int32_t(uint32_t(uint64_t(sum)));  // wraps to INT32 (two's complement)
    });
}

// ---- Judging (docs/tolerance.md, "Convolution") ----------------------------------------------------

// Without an activation: each element's terms, every product (rounded by a backend that forms it
// in a narrower precision) and the bias (a copy). With one: the sum's error in each working type
// the profile admits (Arithmetic: the products and their sum in any order), carried through the
// activation as ELEMENT_WISE_ADD1's bound does (fused_activation_error).
void convolution_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink) {
    const auto& d = get<DML_CONVOLUTION_OPERATOR_DESC>(op.Desc);
    const ConvolutionGeometry g = convolution_geometry(d);
    const DataType t = d.OutputTensor.DataType;
    const std::vector<double> x = logical_doubles(d.InputTensor, input("InputTensor"));
    const std::vector<double> w = logical_doubles(d.FilterTensor, input("FilterTensor"));
    const std::vector<double> bias = d.BiasTensor ? logical_doubles(*d.BiasTensor, input("BiasTensor"))
                                                  : std::vector<double>{};
    const uint64_t count = element_count(d.OutputTensor);
    const bool activation = d.FusedActivation && d.FusedActivation->name() != "ACTIVATION_IDENTITY";
    const std::vector<DataType> ws = working_types(p, t);  // the working types the profile admits
    // Under the Winograd profile, each element's magnitude W (reference/convolution_winograd.cpp).
    const std::vector<double> winograd = p.winograd ? winograd_magnitudes(g, x, w) : std::vector<double>{};
    if (!activation) {
        double u = 0;
        for (DataType a : ws) u = std::max(u, unit_roundoff(a));
        for (uint64_t e = 0; e < count; ++e) {
            for_each_product(g, e, [&](uint64_t xi, uint64_t wi) { sink.add(e, x[xi], w[wi], 0.0, true); });
            if (!bias.empty()) sink.add(e, bias[output_channel(g, e)], 1.0, 0.0, false);
            // The Winograd allowance as a ghost term: weight 0, moved by up to the allowance (a
            // formation error, which the whole-tensor systematic check discounts).
            if (!winograd.empty() && winograd[e] > 0)
                sink.add(e, 1.0, 0.0, winograd_allowance(g, winograd[e], u), false);
        }
        return;
    }
    const bool flush = p.flush_subnormals;
    auto eta = [&](DataType a) { return flush ? smallest_normal(a) : subnormal_rounding_error(a); };
    const double tf32 = tf32_operand_error(p, t);
    for (uint64_t e = 0; e < count; ++e) {
        ExactSum exact;
        double magnitudes = 0;
        uint32_t n = 0;
        for_each_product(g, e, [&](uint64_t xi, uint64_t wi) {
            exact.add(x[xi] * w[wi]);
            magnitudes += std::fabs(x[xi] * w[wi]);
            ++n;
        });
        if (!bias.empty()) {
            const double v = bias[output_channel(g, e)];
            exact.add(v);
            magnitudes += std::fabs(v);
            ++n;
        }
        const double y = exact.result<double>();  // the exact sum, rounded once to float64
        if (std::isnan(y) || std::isinf(y)) {
            sink.set_computed(e, 0, std::fabs(y), n, std::isnan(y), std::isinf(y));
            continue;
        }
        double worst = 0;
        for (DataType a : ws) {
            const Arithmetic ar(a, flush);
            // An operand of a product, moved by up to tf32 of itself where the profile admits TF32.
            auto operand = [&](double v) {
                Quantity q = ar.input(v);
                q.err = (q.err + tf32 * std::fabs(v)) * (1 + 0x1p-50);
                return q;
            };
            std::vector<Quantity> terms;
            for_each_product(
                g, e, [&](uint64_t xi, uint64_t wi) { terms.push_back(ar.mul(operand(x[xi]), operand(w[wi]))); });
            if (!bias.empty()) terms.push_back(ar.input(bias[output_channel(g, e)]));
            const Quantity q = ar.sum(terms);
            // The backend's pre-activation value (rounded to t when a is wider) and the golden's own.
            double pre = q.err;
            if (!winograd.empty()) pre += winograd_allowance(g, winograd[e], unit_roundoff(a));
            if (a != t) pre += unit_roundoff(t) * (std::fabs(y) + pre) + eta(t);
            const double golden_pre = unit_roundoff(t) * std::fabs(y) + eta(t);
            const ActivationError r = fused_activation_error(*d.FusedActivation, y,
                                                             pre + golden_pre + 0x1p-52 * std::fabs(y), a, flush);
            double err = r.error;
            if (std::isfinite(err) && a != t) err += unit_roundoff(t) * (r.magnitude + r.error) + eta(t);
            worst = std::max(worst, err * (1 + 1e-9));
        }
        sink.set_computed(e, worst, magnitudes, n);
    }
}

// ---- explain (dmlref/explain.hpp, docs/explain.md) -------------------------------------------------

bool explain_convolution(const Case& c, std::string_view, uint64_t flat, FamilyExplanation& out) {
    const auto* fd = c.op.Desc.get_if<DML_CONVOLUTION_OPERATOR_DESC>();
    const auto* id = c.op.Desc.get_if<DML_CONVOLUTION_INTEGER_OPERATOR_DESC>();
    if (!fd && !id) return false;
    const ConvolutionGeometry g = fd ? convolution_geometry(*fd) : convolution_geometry(*id);
    const TensorDesc& in = fd ? fd->InputTensor : id->InputTensor;
    const TensorDesc& filter = fd ? fd->FilterTensor : id->FilterTensor;
    const uint64_t m = output_channel(g, flat);
    out.facts.emplace_back(
        "formula", fd ? (g.backward ? "Bias[m] + sum of X[n,c,i] * W[c,m',t] over i * Strides - StartPadding + "
                                      "t * Dilations = o (BACKWARD: the transposed convolution)"
                                    : "Bias[m] + sum of X[n,c,o * Strides - StartPadding + t * Dilations] * W[m,c,t]")
                      : "sum of (X - InputZeroPoint) * (W - FilterZeroPoint[m]) over the window, wrapped to INT32");
    out.facts.emplace_back("output channel",
                           str(m) + " (group " + str(m / (g.out_channels / g.groups)) + " of " + str(g.groups) + ")");
    if (g.flip) out.facts.emplace_back("kernel", "flipped along every spatial dimension (Mode CONVOLUTION)");
    uint64_t products = 0;
    const std::vector<double> x = c.inputs.count("InputTensor") && fd ? logical_doubles(in, c.inputs.at("InputTensor"))
                                                                      : std::vector<double>{};
    const std::vector<double> w = c.inputs.count("FilterTensor") && fd
                                      ? logical_doubles(filter, c.inputs.at("FilterTensor"))
                                      : std::vector<double>{};
    for_each_product(g, flat, [&](uint64_t xi, uint64_t wi) {
        ++products;
        if (products > 64) return;
        const auto xa = nd_coordinate(in.Sizes, xi), wa = nd_coordinate(filter.Sizes, wi);
        out.inputs.push_back(input_element(c, "InputTensor", xa, "x"));
        out.inputs.push_back(input_element(c, "FilterTensor", wa, "w"));
        if (fd && !x.empty() && !w.empty())
            out.terms.push_back({"InputTensor", xa, x[xi], w[wi], "x times the filter element"});
    });
    out.facts.emplace_back("products", str(products) + " of at most " + str(g.max_terms()) + " (padding gives none)");
    if (fd) {
        if (fd->BiasTensor && c.inputs.count("BiasTensor")) {
            std::vector<uint64_t> at(fd->BiasTensor->Sizes.size(), 0);
            at[1] = m;
            out.inputs.push_back(input_element(c, "BiasTensor", at, "bias"));
            out.terms.push_back(
                {"BiasTensor", at, logical_doubles(*fd->BiasTensor, c.inputs.at("BiasTensor"))[m], 1.0, "the bias"});
        }
        out.policies.insert(out.policies.end(), {"ConvolutionSum", "NonFiniteSum", "ConvolutionPadding"});
        if (g.backward) out.policies.push_back("OutputPadding");
        if (fd->FusedActivation) out.policies.push_back("FusedActivationInput");
    } else {
        out.policies.insert(out.policies.end(), {"IntegerPadding", "IntegerOverflow"});
    }
    return true;
}

}  // namespace dmlref::reference
