// The RESAMPLE family's record (reference/kit/family.hpp): the facts of DML_RESAMPLE_OPERATOR_DESC,
// RESAMPLE1, RESAMPLE2, RESAMPLE3, RESAMPLE_GRAD and RESAMPLE_GRAD1 from their pages; their outputs are
// stated per desc (a copy, or a sum of taps with its terms; nearest-neighbour coordinates on a
// rounding boundary apart), coverage, gen's derived sizes, and the fast paths.
#include "resample.hpp"
#include "resample_internal.hpp"
#include "resample_policies.hpp"

#include "kit/policies.hpp"

#include "dmlref/checked.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

namespace dmlref::reference {

namespace rec_resample {

using namespace kit;

using namespace resample_policies;  // the policies UPSAMPLE_2D records too

// ---- Judging: the terms of each element (reference/resample_terms.cpp) ------------------------

template <bool Grad> void terms(const Case& c, std::string_view, const ArithmeticProfile& p, TermSink& sink) {
    const char* field = Grad ? "InputGradientTensor" : "InputTensor";
    auto it = c.inputs.find(field);
    if (it == c.inputs.end()) throw std::invalid_argument(std::string("no ") + field);
    resample_terms(c.op, it->second, p.coordinates, sink);
}

// A forward output is a sum only under LINEAR (NEAREST_NEIGHBOR copies); a grad's always.
template <class D> bool forward_summed(const Operator& op, std::string_view) {
    return get<D>(op.Desc).InterpolationMode == DML_INTERPOLATION_MODE_LINEAR;
}

// ---- Coverage, gen and the work estimate ------------------------------------------------------

template <class D> void detect(const Case& c, std::vector<std::string>& f) {
    const D& d = get<D>(c.op.Desc);
    f.push_back(d.InterpolationMode == DML_INTERPOLATION_MODE_LINEAR ? "LINEAR" : "NEAREST_NEIGHBOR");
    bool up = false, down = false, frac = false;
    for (float s : d.Scales) {
        up = up || s > 1;
        down = down || s < 1;
        frac = frac || s != std::floor(s);
    }
    if (up) f.push_back("upsample");
    if (down) f.push_back("downsample");
    if (frac) f.push_back("non-integer-scale");
    if constexpr (requires { d.RoundingDirection; })
        f.push_back(d.RoundingDirection == DML_AXIS_DIRECTION_DECREASING ? "DECREASING" : "INCREASING");
    if constexpr (requires { d.Antialiased; }) {
        if (d.Antialiased) f.push_back("antialiased-flag");
        const resampling::Params p = resampling::params(d);
        for (size_t i = 0; i < p.Scales.size(); ++i)
            if (resampling::stretched(p, i)) {
                f.push_back("antialiased-stretched");
                break;
            }
    }
}

// Up to 2^dimensions neighbours per element; RESAMPLE3's stretched filter reads up to
// 2 / Scale + 2 per stretched dimension.
template <class D> uint64_t neighbours(const OperatorDesc& d) {
    const D& r = get<D>(d);
    if constexpr (requires { r.Antialiased; }) {
        const resampling::Params p = resampling::params(r);
        double n = 1;
        for (size_t i = 0; i < p.Scales.size(); ++i)
            n *= resampling::stretched(p, i) && p.Scales[i] > 0 ? std::ceil(2 / double(p.Scales[i])) + 2 : 2;
        return n < 1.8e19 ? uint64_t(n) : UINT64_MAX;
    }
    return uint64_t(1) << std::min<size_t>(r.Scales.size(), 8);
}

// The forward output (a grad's InputGradientTensor) is floor(input size * scale) per dimension.
bool scaled_sizes(const SizeRequest& q, std::vector<uint64_t>& out, std::string&, std::string& error) {
    const bool forward_output = q.tensor == "OutputTensor" ||
                                (q.tensor == "InputGradientTensor" && q.base != "InputGradientTensor");
    if (!forward_output) return true;
    const size_t count = q.base_sizes.size();
    if (!q.desc.contains("Scales") || !q.desc["Scales"].is_array() || q.desc["Scales"].size() != count) {
        error = "Scales needs " + std::to_string(count) + " entries to derive sizes";
        return false;
    }
    for (size_t i = 0; i < count; ++i) {
        const auto sc = json_float(q.desc["Scales"][i]);
        const double v = sc ? std::floor(double(q.base_sizes[i]) * double(*sc)) : 0.0;
        if (!sc || !(v >= 1.0) || v > 4294967295.0) {
            error = "Scales[" + std::to_string(i) + "] gives no output size of at least 1";
            return false;
        }
        out[i] = uint64_t(v);
    }
    return true;
}

template <class D, bool Grad> OperatorRecord resample_record(OperatorInfo info) {
    auto r = operator_record<D, validate, evaluate>(std::move(info));
    r.fast = fast_as<D, evaluate_fast>;
    // Nearest neighbour copies (Bits) unless grad taps add up; LINEAR weights make every element a
    // sum: the desc states which, with each element's term count, and the nearest-neighbour
    // coordinates within the coordinate error of an integer (docs/golden.md and docs/tolerance.md).
    r.outputs = {{Grad ? "OutputGradientTensor" : "OutputTensor", TypeClass::Any, ToleranceRule::OperatorStated,
                  BoundaryRule::OperatorStated, nullptr, terms<Grad>, Grad ? nullptr : forward_summed<D>}};
    r.desc_tolerance = tolerance_as<D, tolerance>;
    r.desc_boundary = boundary_as<D, boundary>;
    r.explain = explain_resample;
    r.features = {"NEAREST_NEIGHBOR", "LINEAR", "upsample", "downsample", "non-integer-scale"};
    if constexpr (requires(D d) { d.RoundingDirection; })
        r.features.insert(r.features.end(), {"INCREASING", "DECREASING"});
    if constexpr (requires(D d) { d.Antialiased; })
        r.features.insert(r.features.end(), {"antialiased-flag", "antialiased-stretched"});
    r.detect = detect<D>;
    r.work_factor = neighbours<D>;
    r.rounding_cost = rounding_cost<40>;  // the weighted sum rounded once (measured; docs/rules.md, limit.work)
    r.sizes = scaled_sizes;
    return r;
}

const std::vector<Policy> kGrad = {kResampleCoordinate, kNearestRounding, kLinear,       kResampleGradParameters,
                                   kResampleSum,        kIntegerResult,   kNonFiniteSum, kZeroWeightTaps,
                                   kScalesAndOffsets,   kSelectedZero,    kSubnormals};
// RESAMPLE3's Antialiased (docs/golden.md, "Resampling"): TRUE is RESAMPLE2 where the page
// applies no filter, and a normalised triangle of half-width 1 / Scale where it stretches one.
constexpr Policy kAntialiasFilter{"AntialiasFilter", "StretchedTriangle"};
std::vector<Policy> with_antialias(std::vector<Policy> p) {
    p.push_back(kAntialiasFilter);
    return p;
}
std::vector<Policy> old_nearest(std::vector<Policy> p) {
    p[1] = kOldNearest;
    return p;
}

}  // namespace rec_resample

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& resample_family() {
    using namespace reference;
    using namespace reference::rec_resample;
    static const FamilyRecord f{
        "resample",
        {resample_record<DML_RESAMPLE_OPERATOR_DESC, false>(
             {.IntroducedIn = 0x2000,
              .Support = {{0x2000, {}, 4, 4, kF32F16}, {0x5100, {}, 1, 4, kF32F16}, {0x6200, {}, 1, 4, kF32F16I8U8}},
              .Policies = old_nearest(kForward)}),
         resample_record<DML_RESAMPLE1_OPERATOR_DESC, false>(
             {.IntroducedIn = 0x2100,
              .Support = {{0x2100, {}, 4, 4, kF32F16}, {0x5100, {}, 1, 4, kF32F16}, {0x6200, {}, 1, 4, kF32F16I8U8}},
              .Policies = old_nearest(kForward)}),
         resample_record<DML_RESAMPLE2_OPERATOR_DESC, false>(
             {.IntroducedIn = 0x5100,
              .Support = {{0x5100, {}, 1, 4, kF32F16}, {0x6200, {}, 1, 4, kF32F16I8U8}},
              .Policies = kForward}),
         // RESAMPLE3 (DML_FEATURE_LEVEL_6_4): RESAMPLE2 with Antialiased; 1 to 4 dimensions, FLOAT32,
         // FLOAT16, INT8, UINT8.
         resample_record<DML_RESAMPLE3_OPERATOR_DESC, false>({.IntroducedIn = 0x6400,
                                                              .Support = {{0x6400, {}, 1, 4, kF32F16I8U8}},
                                                              .Policies = with_antialias(kForward)}),
         resample_record<DML_RESAMPLE_GRAD_OPERATOR_DESC, true>(
             {.IntroducedIn = 0x3000,
              .Support = {{0x3000, {}, 4, 4, kF32F16}, {0x5100, {}, 1, 4, kF32F16}},
              .Policies = old_nearest(kGrad)}),
         resample_record<DML_RESAMPLE_GRAD1_OPERATOR_DESC, true>(
             {.IntroducedIn = 0x5100, .Support = {{0x5100, {}, 1, 4, kF32F16}}, .Policies = kGrad})},
        // docs/golden.md, "Alternative readings". UPSAMPLE_2D is evaluated as RESAMPLE.
        {{.Policy = "ZeroWeightTaps",
          .Value = "MultiplyAll",
          .Meaning =
              "LINEAR takes both taps of every dimension, also a tap of weight 0, so 0 x inf and 0 x NaN add a NaN",
          .Who = "PyTorch upsample_bilinear2d/linear1d/trilinear3d (h0lambda * x0 + h1lambda * x1), JAX image.resize",
          .Operators = {OperatorType::RESAMPLE, OperatorType::RESAMPLE1, OperatorType::RESAMPLE2,
                        OperatorType::RESAMPLE3, OperatorType::RESAMPLE_GRAD, OperatorType::RESAMPLE_GRAD1,
                        OperatorType::UPSAMPLE_2D}},
         {.Policy = "Subnormals",
          .Value = "FlushAtomicSums",
          .Meaning =
              "a summed grad flushes subnormal terms and a subnormal result to zero (sign kept), as float atomics do",
          .Who = "GPU backends that scatter a grad with atomicAdd on float (flush-to-zero atomics)",
          // MAX_POOLING_GRAD's loop (reference/max_pooling.cpp) follows it too.
          .Operators = {OperatorType::MAX_POOLING_GRAD, OperatorType::RESAMPLE_GRAD, OperatorType::RESAMPLE_GRAD1}},
         {.Policy = "OldNearestNeighbor",
          .Value = "FloorXPlusHalf",
          .Meaning =
              "the old nearest-neighbour rule as floor(x + 0.5), x computed with the desc's OutputPixelOffset (no extra -0.5)",
          .Who = "TF-DML's legacy nearest resize, ONNX Runtime's old comment, WPT's tie observation",
          .Operators = {OperatorType::RESAMPLE, OperatorType::RESAMPLE1, OperatorType::RESAMPLE_GRAD,
                        OperatorType::UPSAMPLE_2D}}}};
    return f;
}
}  // namespace dmlref::kit
