// DML_OPERATOR_QUANTIZED_LINEAR_AVERAGE_POOLING.
//
// Spec: DML_QUANTIZED_LINEAR_AVERAGE_POOLING_OPERATOR_DESC (DirectML API reference): "Averages
// quantized values across the elements within the sliding window over the input tensor. This
// operator is mathematically equivalent to dequantizing the inputs, then performing average
// pooling, and then quantizing the output", with
//   dequantize  f(Input, Scale, ZeroPoint) = (Input - ZeroPoint) * Scale
//   quantize    f(Input, Scale, ZeroPoint) = clamp(round(Input / Scale) + ZeroPoint, Min, Max)
// Rules in docs/rules.md; the decisions in docs/golden.md, "Quantized average pooling"; the judging
// in docs/tolerance.md, "Quantized average pooling".
//
//   Tensors are {N, C, spatial...}; the window walk is AVERAGE_POOLING1's
//   (reference/pooling_geometry.hpp). For output o of channel c, with si, zi, so, zo the channel's
//   scales and zero points (per tensor, or per channel):
//   S(o) = sum over the real elements q of o's window of (q - zi)        (an exact integer)
//   D(o) = IncludePadding ? prod(WindowSize) : the number of real elements
//   Y[n,c,o] = clamp(round_half_even(S * si / (D * so)) + zo, Min, Max)  (one rounding)
//
// Decisions (recorded as policies in golden files):
//   - The dequantized average is exact and rounded once (RequantizeValue=ExactThenRoundOnce),
//     ties to even (QuantizeRounding=HalfToEven), as ELEMENT_WISE_QUANTIZED_LINEAR_ADD's.
//   - Padding is a dequantized 0 (QuantizedPoolingPadding=DequantizedZero): it adds nothing to S
//     and counts in D under IncludePadding, as average pooling of the dequantized input does. The
//     alternative reading RawZero (padding as the quantized 0, a term 0 - zi) is evaluated.
//   - The divisor is average pooling's (IncludePaddingDivisor, ExcludePaddingDivisor).
//   - A window of padding only without IncludePadding is 0 / 0: its golden is OutputZeroPoint
//     (the quantized +0 of average pooling's golden), listed DontCare
//     (QuantizedPoolingEmptyWindow=DontCareZeroPoint).
//   - A scale of 0 is undefined behaviour (the page's notes): refused (.scale-zero). Non-finite
//     scales follow IEEE's rules as QUANTIZE_LINEAR's (QuantizeNaN=Minimum); a negative scale is
//     the formula's (NegativeScale=FormulaLiteral).
//   - The scales and zero points are per tensor (one element) or per channel ({1, C, 1, ...}, the
//     input's DimensionCount); anything else is refused (.scale-sizes, .zero-point-sizes).
//   - Every rank from 3 to 8 is evaluated (DirectML's table: 4 and 5).
#include "quantized_pooling.hpp"

#include "exact_rational.hpp"
#include "quantization.hpp"

#include "dmlref/readings.hpp"
#include "dmlref/terms.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace dmlref::reference {

namespace {

constexpr const char* kQap = "quantized-linear-average-pooling";

// A scale or zero point is per tensor (one element) or per channel: InputTensor's DimensionCount,
// Sizes {1, ChannelCount, 1, ...} (the page's { 1, 1, 1, 1 } and { 1, ChannelCount, 1, 1 }).
void validate_parameter(Diagnostics& diags, std::string_view name, const TensorDesc& t, const TensorDesc& input,
                        const char* id) {
    if (element_count(t) == 1) return;
    const uint32_t n = input.DimensionCount();
    bool ok = n >= 2 && t.DimensionCount() == n;
    for (uint32_t i = 0; ok && i < n; ++i) ok = t.Sizes[i] == (i == 1 ? input.Sizes[1] : 1u);
    if (!ok)
        diags.error(
            desc_path(name) + "/Sizes", rule(kQap, id),
            std::string(name) + " has " + std::to_string(element_count(t)) + " elements in " +
                std::to_string(t.DimensionCount()) +
                " dimensions; the page expects one element (per tensor) or Sizes {1, ChannelCount, 1, ...} with InputTensor's "
                "DimensionCount (per channel)");
}

// The channel's value of a per-tensor or per-channel parameter.
double at(const std::vector<double>& v, int64_t c) { return v.size() == 1 ? v[0] : v[size_t(c)]; }

// Every output element's operands, in logical order, with Min and Max of OutputTensor.
struct Pooled {
    std::vector<PooledOperands> e;
    int64_t lo = 0, hi = 0;
};

template <class Buffers> Pooled pooled(const QAP& d, const Buffers& in) {
    const PoolingWindows w = pooling_windows(view(d));
    const std::vector<double> x = logical_doubles(d.InputTensor, bytes_of(in, "InputTensor"));
    const std::vector<double> si = logical_doubles(d.InputScaleTensor, bytes_of(in, "InputScaleTensor"));
    const std::vector<double> so = logical_doubles(d.OutputScaleTensor, bytes_of(in, "OutputScaleTensor"));
    const std::vector<double> zi = d.InputZeroPointTensor
                                       ? logical_doubles(*d.InputZeroPointTensor, bytes_of(in, "InputZeroPointTensor"))
                                       : std::vector<double>{0.0};
    const std::vector<double> zo = d.OutputZeroPointTensor ? logical_doubles(*d.OutputZeroPointTensor,
                                                                             bytes_of(in, "OutputZeroPointTensor"))
                                                           : std::vector<double>{0.0};
    const auto packed = packed_strides(d.InputTensor.Sizes);
    mpz_class taps = 1;  // prod(WindowSize): up to (2^32 - 1)^6
    for (size_t i = 0; i < w.spatial; ++i) taps *= static_cast<unsigned long>(w.size[i]);
    const bool raw_zero = in_force<"QuantizedPoolingPadding", "RawZero">();
    Pooled p;
    p.lo = type_min(d.OutputTensor.DataType), p.hi = type_max(d.OutputTensor.DataType);
    p.e.reserve(size_t(element_count(d.OutputTensor)));
    for_each_pooled(d.OutputTensor.Sizes, w.out, w.spatial, [&](int64_t n, int64_t c, const PoolingCoord& o) {
        PooledOperands e;
        const int64_t z = int64_t(at(zi, c));
        for_each_real_tap(w, o, [&](const PoolingCoord& pos) {
            const int64_t v = int64_t(x[size_t(pooling_offset(packed, n, c, pos, w.spatial))]) - z;
            e.S += v;
            e.M += std::llabs(v);
            ++e.terms;
        });
        e.D = d.IncludePadding ? taps : mpz_class(static_cast<unsigned long>(e.terms));
        // QuantizedPoolingPadding=RawZero (docs/golden.md, "Alternative readings"): with
        // IncludePadding, each padding position of the window is the quantized 0, a term 0 - zi.
        if (raw_zero && d.IncludePadding && z != 0) {
            const mpz_class s = mpz_class(static_cast<long>(e.S)) -
                                (taps - static_cast<unsigned long>(e.terms)) * static_cast<long>(z);
            if (!s.fits_slong_p())
                throw std::runtime_error("QuantizedPoolingPadding=RawZero: a window's padding sum exceeds 64 bits");
            e.S = s.get_si();
        }
        e.si = at(si, c), e.so = at(so, c), e.zo = int64_t(at(zo, c));
        p.e.push_back(std::move(e));
    });
    return p;
}

}  // namespace

// ---- One element -------------------------------------------------------------------------------

int64_t quantized_pool_element(const PooledOperands& e, int64_t lo, int64_t hi) {
    if (e.D == 0) return std::clamp(e.zo, lo, hi);  // QuantizedPoolingEmptyWindow=DontCareZeroPoint
    if (!std::isfinite(e.si) || !std::isfinite(e.so)) {
        // IEEE's rules (QUANTIZE_LINEAR's): a non-finite InputScale makes the average infinite or
        // (S = 0) NaN whatever its finite factors; an infinite OutputScale makes the quotient 0.
        const double avg = std::isfinite(e.si) ? double(e.S) * e.si / e.D.get_d() : double(e.S) * e.si;
        return quantize_element(avg, e.so, e.zo, lo, hi, false);
    }
    const mpq_class q = mpq_class(mpz_class(static_cast<long>(e.S))) * mpq_class(e.si) /
                        (mpq_class(e.D) * mpq_class(e.so));
    return clamp_to(round_rational_to_integer(q) + static_cast<long>(e.zo), lo, hi);
}

bool quantized_pool_near_tie(const PooledOperands& e, int64_t lo, int64_t hi) {
    if (e.D == 0 || !std::isfinite(e.si) || !std::isfinite(e.so) || e.so == 0 || e.si == 0) return false;
    const mpq_class den = mpq_class(e.D) * abs(mpq_class(e.so));
    const mpq_class q = mpq_class(mpz_class(static_cast<long>(e.S))) * mpq_class(e.si) /
                        (mpq_class(e.D) * mpq_class(e.so));
    const mpq_class m = mpq_class(mpz_class(static_cast<long>(e.M))) * abs(mpq_class(e.si)) / den;
    // Each term (q - zi) si rounded, n - 1 additions, D and OutputScale each a reciprocal and a product.
    return requantize_near_tie(q, m, static_cast<long>(std::max<uint64_t>(e.terms, 1) + 4), e.zo, lo, hi);
}

// ---- The operator ------------------------------------------------------------------------------
//
// Tensor constraints: "InputTensor and OutputTensor must have the same DimensionCount"
// (.same-dimension-count, with the window rules); "InputTensor and InputZeroPointTensor must have
// the same DataType", likewise OutputTensor and OutputZeroPointTensor (.zero-point-data-type).
// Tensor support: InputTensor and OutputTensor INT8 or UINT8 (.data-type, .output-data-type), the
// scales FLOAT32 (.scale-data-type). The members: the scales and zero points per tensor or per
// channel (.scale-sizes, .zero-point-sizes); IncludePadding a BOOL (.include-padding).
void validate(const QAP& d, Diagnostics& diags) {
    if (!is_quantized_type(d.InputTensor.DataType))
        diags.error("/desc/InputTensor/DataType", rule(kQap, "data-type"),
                    "InputTensor is " + type_text(d.InputTensor) + "; it must be INT8 or UINT8");
    if (!is_quantized_type(d.OutputTensor.DataType))
        diags.error("/desc/OutputTensor/DataType", rule(kQap, "output-data-type"),
                    "OutputTensor is " + type_text(d.OutputTensor) + "; it must be INT8 or UINT8");
    for (const Named& s :
         {Named{"InputScaleTensor", d.InputScaleTensor}, Named{"OutputScaleTensor", d.OutputScaleTensor}}) {
        if (s.desc.DataType != DataType::FLOAT32)
            diags.error(desc_path(s.name) + "/DataType", rule(kQap, "scale-data-type"),
                        std::string(s.name) + " is " + type_text(s.desc) + "; it must be FLOAT32");
        validate_parameter(diags, s.name, s.desc, d.InputTensor, "scale-sizes");
    }
    if (d.InputZeroPointTensor) {
        require_same_data_type(diags,
                               {{"InputTensor", d.InputTensor}, {"InputZeroPointTensor", *d.InputZeroPointTensor}},
                               rule(kQap, "zero-point-data-type"));
        validate_parameter(diags, "InputZeroPointTensor", *d.InputZeroPointTensor, d.InputTensor, "zero-point-sizes");
    }
    if (d.OutputZeroPointTensor) {
        require_same_data_type(diags,
                               {{"OutputTensor", d.OutputTensor}, {"OutputZeroPointTensor", *d.OutputZeroPointTensor}},
                               rule(kQap, "zero-point-data-type"));
        validate_parameter(diags, "OutputZeroPointTensor", *d.OutputZeroPointTensor, d.InputTensor, "zero-point-sizes");
    }
    if (d.IncludePadding > 1)
        diags.error("/desc/IncludePadding", rule(kQap, "include-padding"),
                    "IncludePadding is " + std::to_string(d.IncludePadding) + "; a BOOL must be 0 (FALSE) or 1 (TRUE)");
    validate_pooling_windows(
        diags, {kQap, "quantized average pooling", "InputTensor", "OutputTensor", d.DimensionCount}, view(d));
}

// "A scale value of 0 results in undefined behavior" (both scales' notes): refused, at most 8 reported.
void validate_values(const QAP& d, const InputBuffers& in, uint64_t, Diagnostics& diags) {
    int reported = 0;
    for (const Named& s :
         {Named{"InputScaleTensor", d.InputScaleTensor}, Named{"OutputScaleTensor", d.OutputScaleTensor}}) {
        const auto it = in.find(std::string(s.name));
        if (it == in.end() || it->second.size() < buffer_size(s.desc)) continue;
        const std::vector<double> v = logical_doubles(s.desc, it->second);
        for (size_t i = 0; i < v.size() && reported < 8; ++i)
            if (v[i] == 0) {
                ++reported;
                diags.error(pointer_append("/inputs/" + std::string(s.name), i), rule(kQap, "scale-zero"),
                            std::string(s.name) + " element " + std::to_string(i) +
                                " is 0; the page: \"A scale value of 0 results in undefined behavior\"");
            }
    }
}

void evaluate(const QAP& d, const Bindings& b) {
    const Pooled p = pooled(d, b);
    auto value = [&](uint64_t i) { return quantized_pool_element(p.e[i], p.lo, p.hi); };
    if (d.OutputTensor.DataType == DataType::INT8)
        write_logical<int8_t>(d.OutputTensor, b.at("OutputTensor"), [&](uint64_t i) { return int8_t(value(i)); });
    else write_logical<uint8_t>(d.OutputTensor, b.at("OutputTensor"), [&](uint64_t i) { return uint8_t(value(i)); });
}

// ---- Judging (docs/tolerance.md, "Quantized average pooling") ----------------------------------

std::vector<BoundaryElement> quantized_pool_ties(const Case& c, std::string_view output) {
    std::vector<BoundaryElement> out;
    const auto* d = get_if<QAP>(&c.op.Desc);
    if (!d || output != "OutputTensor" || !valid(*d, validate)) return out;
    try {
        const Pooled p = pooled(*d, c.inputs);
        for (size_t i = 0; i < p.e.size(); ++i)
            if (quantized_pool_near_tie(p.e[i], p.lo, p.hi)) out.push_back({i, "QuantizeTie"});
    } catch (const std::exception&) {
    }
    return out;
}

std::optional<Tolerance> quantized_pool_tolerance(const Case& c, std::string_view output) {
    const auto* d = get_if<QAP>(&c.op.Desc);
    if (!d || output != "OutputTensor" || !valid(*d, validate)) return std::nullopt;
    Tolerance t;
    if (quantized_pool_ties(c, output).empty()) {
        t.Kind = "Bits";
        t.Why =
            "every requantized average S * InputScale / (D * OutputScale) is farther than FLOAT32 arithmetic's error from a "
            "rounding tie: the integer is determined, bit for bit (docs/tolerance.md, Quantized average pooling)";
    } else {
        t.Kind = "Ulp";
        t.Ulp = 1;
        t.Why =
            "some requantized averages lie within FLOAT32 arithmetic's error (gamma_(n+4) of the window's dequantized "
            "magnitudes) of a rounding tie (the QuantizeTie elements): a backend averaging in FLOAT32 may take the other "
            "neighbour there, so 1 is admitted (docs/tolerance.md, Quantized average pooling)";
    }
    return t;
}

std::vector<DontCare> quantized_pool_dont_care(const QAP& d, std::string_view output) {
    std::vector<DontCare> r;
    if (output != "OutputTensor" || d.IncludePadding || !valid(d, validate)) return r;
    const PoolingWindows w = pooling_windows(view(d));
    uint64_t index = 0;
    for_each_pooled(d.OutputTensor.Sizes, w.out, w.spatial, [&](int64_t, int64_t, const PoolingCoord& o) {
        bool empty = false;
        for (size_t i = 0; i < w.spatial; ++i) {
            const TapRange k = pooling_real_taps(w, i, o[i]);
            empty = empty || k.lo == k.hi;
        }
        if (empty)
            r.push_back(
                {index,
                 "QuantizedPoolingEmptyWindow: IncludePadding is FALSE and the window holds no element of InputTensor, "
                 "so the average is 0 / 0; the golden is OutputZeroPoint (docs/golden.md)"});
        ++index;
    });
    return r;
}

}  // namespace dmlref::reference
