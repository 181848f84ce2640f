// The softmax family's record (reference/kit/family.hpp): the facts of
// DML_ACTIVATION_SOFTMAX_OPERATOR_DESC, _LOG_SOFTMAX_, _HARDMAX_ and their "1" forms from their
// pages (Availability, Tensor support; none allows in-place execution), the policies their
// goldens record (docs/golden.md, "Softmax") and how their outputs are judged (docs/tolerance.md,
// "Softmax": SOFTMAX and LOG_SOFTMAX by each element's bound from its row, HARDMAX bit for bit).
#include "softmax.hpp"

#include "kit/policies.hpp"

#include <algorithm>

namespace dmlref::reference {

namespace rec_softmax {

using namespace kit;
using OT = OperatorType;

// docs/golden.md, "Softmax".
constexpr Policy kSoftmaxNaN{"SoftmaxNaN", "CanonicalNaNRow"};
constexpr Policy kSoftmaxInfinity{"SoftmaxInfinity", "NaNRow"};
constexpr Policy kSoftmaxAllNegativeInfinity{"SoftmaxAllNegativeInfinity", "NaNRow"};
// HARDMAX1 is ReduceArgMax (INCREASING) broadcast back: REDUCE's ARGMAX policies (docs/golden.md, Reduction).
constexpr Policy kArgNaN{"ArgMinMaxNaN", "NaNLosesToAnyNumber"};
constexpr Policy kArgSignedZero{"ArgMinMaxSignedZero", "EqualValues"};
constexpr Policy kArgIndex{"ArgMinMaxIndex", "RowMajorOverReducedAxes"};
constexpr Policy kReduceArgTies{"ReduceArgTies", "FirstIndex"};

uint64_t row_length(const OperatorDesc& d) {
    SoftmaxKind kind{};
    const TensorDesc* in = nullptr;
    std::vector<uint32_t> axes;
    if (!softmax_params(d, kind, in, axes)) return 1;
    uint64_t n = 1;
    for (uint32_t a : axes)
        if (a < in->Sizes.size()) n *= in->Sizes[a];
    return n;
}

// Coverage (docs/coverage.md): how many axes, and long rows.
void detect(const Case& c, std::vector<std::string>& f) {
    SoftmaxKind kind{};
    const TensorDesc* in = nullptr;
    std::vector<uint32_t> axes;
    if (!softmax_params(c.op.Desc, kind, in, axes)) return;
    const bool listed = c.op.Type == OT::ACTIVATION_SOFTMAX1 || c.op.Type == OT::ACTIVATION_LOG_SOFTMAX1 ||
                        c.op.Type == OT::ACTIVATION_HARDMAX1;
    if (listed) {
        if (axes.size() == in->Sizes.size()) f.push_back("all-axes");
        else if (axes.size() == 1) f.push_back("one-axis");
        else f.push_back("several-axes");
        std::vector<uint32_t> a = axes;
        std::sort(a.begin(), a.end());
        for (size_t i = 1; i < a.size(); ++i)
            if (a[i] != a[i - 1] + 1) {
                f.push_back("non-adjacent-axes");
                break;
            }
    }
    if (row_length(c.op.Desc) >= 256) f.push_back("long-row");
}

template <class D> OperatorRecord softmax_record(uint32_t introduced, std::vector<SupportRow> support) {
    const SoftmaxKind kind = D::kType == OT::ACTIVATION_HARDMAX || D::kType == OT::ACTIVATION_HARDMAX1
                                 ? SoftmaxKind::Hardmax
                                 : SoftmaxKind::Softmax;
    std::vector<Policy> policies =
        kind == SoftmaxKind::Hardmax
            ? std::vector<Policy>{kArgNaN, kArgSignedZero, kArgIndex, kReduceArgTies, kSubnormals}
            : std::vector<Policy>{kComputedValue, kSoftmaxNaN, kSoftmaxInfinity, kSoftmaxAllNegativeInfinity,
                                  kZeroResult,    kSubnormals};
    auto r = operator_record<D, validate, evaluate>({
        .IntroducedIn = introduced,
        .InPlace = {},
        .Support = std::move(support),
        .Policies = std::move(policies),
    });
    if (kind == SoftmaxKind::Hardmax) {
        r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::Bits}};
    } else {
        // Integer data is refused (<op>.data-type); its row says how it would be judged.
        r.outputs = {
            {"OutputTensor", TypeClass::Float, ToleranceRule::OperatorStated, BoundaryRule::None, softmax_bounds},
            {"OutputTensor", TypeClass::Integer, ToleranceRule::Bits}};
        r.desc_tolerance = softmax_tolerance;
        r.reads_inputs = true;
    }
    r.explain = explain_softmax;
    r.ScopeTypes = kF32F16;
    const bool listed = D::kType == OT::ACTIVATION_SOFTMAX1 || D::kType == OT::ACTIVATION_LOG_SOFTMAX1 ||
                        D::kType == OT::ACTIVATION_HARDMAX1;
    r.features = listed ? std::vector<std::string_view>{"one-axis", "several-axes", "all-axes", "non-adjacent-axes",
                                                        "long-row"}
                        : std::vector<std::string_view>{"long-row"};
    r.detect = detect;
    r.work_factor = row_length;
    // --max-work: the row's reads above cover its exponentials but for short rows; an MPFR exp and
    // division per element (measured; docs/rules.md, limit.work).
    r.rounding_cost = rounding_cost<100>;
    return r;
}

// The pages' tables: 4-D at 1.0, 4 to 5 at 2.0, 1 to 8 from 3.0 (FLOAT32, FLOAT16); the "1" forms
// from DML_FEATURE_LEVEL_5_1, 1 to 8.
std::vector<SupportRow> since_1_0() {
    return {{0x1000, {}, 4, 4, kF32F16}, {0x2000, {}, 4, 5, kF32F16}, {0x3000, {}, 1, 8, kF32F16}};
}
std::vector<SupportRow> since_5_1() { return {{0x5100, {}, 1, 8, kF32F16}}; }

}  // namespace rec_softmax

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& softmax_family() {
    using namespace reference;
    using namespace reference::rec_softmax;
    static const FamilyRecord f{"softmax",
                                {softmax_record<DML_ACTIVATION_SOFTMAX_OPERATOR_DESC>(0x1000, since_1_0()),
                                 softmax_record<DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC>(0x5100, since_5_1()),
                                 softmax_record<DML_ACTIVATION_LOG_SOFTMAX_OPERATOR_DESC>(0x1000, since_1_0()),
                                 softmax_record<DML_ACTIVATION_LOG_SOFTMAX1_OPERATOR_DESC>(0x5100, since_5_1()),
                                 softmax_record<DML_ACTIVATION_HARDMAX_OPERATOR_DESC>(0x1000, since_1_0()),
                                 softmax_record<DML_ACTIVATION_HARDMAX1_OPERATOR_DESC>(0x5100, since_5_1())}};
    return f;
}
}  // namespace dmlref::kit
