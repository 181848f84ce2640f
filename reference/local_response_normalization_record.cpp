// The LOCAL_RESPONSE_NORMALIZATION family's record (reference/kit/family.hpp): the facts of
// DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC and its grad from their pages, how their computed
// outputs are bounded, and coverage.
#include "local_response_normalization.hpp"

#include "kit/policies.hpp"

#include "dmlref/checked.hpp"

#include <algorithm>
#include <type_traits>

namespace dmlref::reference {

namespace rec_local_response_normalization {

using namespace kit;
using LRN = DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC;
using GRAD = DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC;

constexpr Policy kLrnWindow{"LrnWindow", "ClippedOnnxRegion"};
constexpr Policy kLrnEvenLocalSize{"LrnEvenLocalSize", "OneMoreAfter"};
constexpr Policy kLrnDivisor{"LrnDivisor", "LocalSizeEvenWhenClipped"};
constexpr Policy kLrnWithinChannel{"LrnWithinChannel", "EveryDimensionAfterChannelDivisorLocalSize"};
constexpr Policy kLrnSpecialValues{"LrnSpecialValues", "IeeeOnTheExactFormula"};
constexpr Policy kLrnGradTerms{"LrnGradTerms", "GroupedByB"};

template <class D> void detect(const Case& c, std::vector<std::string>& f) {
    const D& d = get<D>(c.op.Desc);
    f.push_back(d.CrossChannel ? "cross-channel" : "within-channel");
    if (d.LocalSize % 2 == 0) f.push_back("even-local-size");
}

// --max-work (docs/rules.md, limit.work): an output element sums the squares of its window, LocalSize
// channels (CrossChannel) or LocalSize along every dimension after the channel (clipped to the
// tensor either way); the grad sums, for each element, the windows of every output in its window.
template <class D> uint64_t work(const OperatorDesc& od) {
    const D& d = get<D>(od);
    const auto& s = d.InputTensor.Sizes;
    uint64_t window = 1;
    if (d.CrossChannel) window = std::min<uint64_t>(d.LocalSize, s.size() > 1 ? s[1] : 1);
    else
        for (size_t i = 2; i < s.size(); ++i) window = saturating_mul(window, std::min<uint64_t>(d.LocalSize, s[i]));
    return std::is_same_v<D, GRAD> ? saturating_mul(window, window) : window;
}

// 4-D FLOAT32/FLOAT16 at every level in DirectML's tables; dmlref evaluates ranks 2 to 8 (batch and
// channel, then any number of spatial dimensions) and every type.
template <class D> OperatorRecord lrn_record(OperatorInfo info, std::string_view output) {
    auto r = operator_record<D, validate, evaluate>(std::move(info));
    r.outputs = {{output, TypeClass::Any, ToleranceRule::OperatorStated, BoundaryRule::None, lrn_bounds}};
    r.desc_tolerance = tolerance_as<D, tolerance>;
    r.explain = explain_lrn;
    r.MinRank = 2;
    r.features = {"cross-channel", "within-channel", "even-local-size"};
    r.detect = detect<D>;
    r.work_factor = work<D>;
    r.fast = fast_as<D, lrn_fast_path>;
    r.rounding_cost = rounding_cost<1200>;  // an MPFR power per element (measured; docs/rules.md, limit.work)
    return r;
}

const std::vector<Policy> kLrn = {kLrnWindow,     kLrnEvenLocalSize, kLrnDivisor,    kLrnWithinChannel,
                                  kComputedValue, kLrnSpecialValues, kIntegerResult, kSubnormals};
std::vector<Policy> with(std::vector<Policy> p, Policy extra) {
    p.push_back(extra);
    return p;
}

}  // namespace rec_local_response_normalization

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& local_response_normalization_family() {
    using namespace reference;
    using namespace reference::rec_local_response_normalization;
    static const FamilyRecord f{
        "local_response_normalization",
        {lrn_record<LRN>({.IntroducedIn = 0x1000, .Support = {{0x1000, {}, 4, 4, kF32F16}}, .Policies = kLrn},
                         "OutputTensor"),
         lrn_record<GRAD>(
             {.IntroducedIn = 0x3100, .Support = {{0x3100, {}, 4, 4, kF32F16}}, .Policies = with(kLrn, kLrnGradTerms)},
             "OutputGradientTensor")}};
    return f;
}
}  // namespace dmlref::kit
