// CONVOLUTION and CONVOLUTION_INTEGER.
// What reference/convolution.cpp defines for the family's record (reference/convolution_record.cpp)
// and tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/convolution.hpp"
#include "dmlref/explain.hpp"
#include "dmlref/terms.hpp"
#include "common.hpp"

#include <array>
#include <functional>

namespace dmlref::reference {

// The geometry of one convolution, spatial dimensions padded at the front to three (size 1,
// kernel 1, stride 1, dilation 1, no padding), so that every loop has the same shape.
struct ConvolutionGeometry {
    bool backward = false;  // Direction BACKWARD (transposed)
    bool flip = false;      // Mode CONVOLUTION: the kernel reversed along every spatial dimension
    uint32_t spatial = 0;   // DimensionCount
    uint64_t batch = 0, in_channels = 0, out_channels = 0, groups = 1;
    // The filter's own two leading sizes: {M, C / G} forward, {C, M / G} backward.
    uint64_t filter_batch = 0, filter_channels = 0;
    std::array<int64_t, 3> in{1, 1, 1}, out{1, 1, 1}, kernel{1, 1, 1}, stride{1, 1, 1}, dilation{1, 1, 1},
        start{0, 0, 0};
    uint64_t in_plane() const { return uint64_t(in[0] * in[1] * in[2]); }
    uint64_t out_plane() const { return uint64_t(out[0] * out[1] * out[2]); }
    uint64_t taps() const { return uint64_t(kernel[0] * kernel[1] * kernel[2]); }
    // The products per output element at most: a group's input channels times the kernel.
    uint64_t max_terms() const { return (in_channels / groups) * taps(); }
};

// From a desc that validates.
ConvolutionGeometry convolution_geometry(const DML_CONVOLUTION_OPERATOR_DESC& d);
ConvolutionGeometry convolution_geometry(const DML_CONVOLUTION_INTEGER_OPERATOR_DESC& d);

// The products of output element `e` (logical row-major over OutputTensor), in a fixed order:
// f(x, w) with the logical indices of the InputTensor and FilterTensor elements multiplied.
// Padding gives no product (ConvolutionPadding=NoTerm).
void for_each_product(const ConvolutionGeometry& g, uint64_t e, const std::function<void(uint64_t x, uint64_t w)>& f);
// Output element e's exact value rounded once to T (float or half), before any FusedActivation:
// the plain loop's per-element path, on InputTensor's, FilterTensor's and BiasTensor's (null:
// none) logical elements as float64. CONVOLUTION's fast path (reference/fast/convolution_f64.cpp)
// takes it for the elements it cannot decide.
template <class T>
T convolution_element(const ConvolutionGeometry& g, const double* x, const double* w, const double* bias, uint64_t e);
// The Winograd profile (ArithmeticProfile::winograd; reference/convolution_winograd.cpp has the
// derivation): per output element the magnitude W of the F(2x2, 3x3) and F(4x4, 3x3) transforms
// (the larger), empty where a backend may not use them (anything but FORWARD, 2-D, 3x3, strides
// and dilations 1); and the allowance gamma_k(u) W, k the group's input channels plus 33, for a
// working type of unit roundoff u.
std::vector<double> winograd_magnitudes(const ConvolutionGeometry& g, const std::vector<double>& x,
                                        const std::vector<double>& w);
double winograd_allowance(const ConvolutionGeometry& g, double magnitude, double u);
// The output channel of element `e`.
inline uint64_t output_channel(const ConvolutionGeometry& g, uint64_t e) {
    return (e / g.out_plane()) % g.out_channels;
}

// The fields of a convolution's shape rules (CONVOLUTION, CONVOLUTION_INTEGER and
// QUANTIZED_LINEAR_CONVOLUTION share them), and the rules themselves: ranks, DimensionCount, the
// arrays, GroupCount, the filter's and the output's sizes, each error's rule id under `op`. False
// when the geometry is not usable.
struct ConvolutionFields {
    std::string_view op;  // rule prefix
    const TensorDesc& input;
    const TensorDesc& filter;
    const TensorDesc& output;
    uint32_t DimensionCount;
    const std::vector<uint32_t>& Strides;
    const std::vector<uint32_t>& Dilations;
    const std::vector<uint32_t>& StartPadding;
    const std::vector<uint32_t>& EndPadding;
    const std::vector<uint32_t>* OutputPadding;  // null for CONVOLUTION_INTEGER
    uint32_t GroupCount;
    bool backward;
    uint32_t max_rank;
};
bool validate_geometry(Diagnostics& diags, const ConvolutionFields& f);

void validate(const DML_CONVOLUTION_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_CONVOLUTION_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_CONVOLUTION_INTEGER_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_CONVOLUTION_INTEGER_OPERATOR_DESC& d, const Bindings& b);

// Judging CONVOLUTION's float output (docs/tolerance.md, "Convolution"): without an activation,
// every element's products and bias as terms; with one, a computed bound through it.
void convolution_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink);

bool explain_convolution(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

}  // namespace dmlref::reference
