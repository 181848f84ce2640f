// The top-k family's record (reference/kit/family.hpp): the facts of DML_TOP_K_OPERATOR_DESC and
// DML_TOP_K1_OPERATOR_DESC from their pages ("Availability", "Tensor support"; no in-place
// execution), the policies their goldens record, coverage features and gen's derived sizes. The
// values are selected input elements and the indices integers: Bits for both outputs.
#include "top_k.hpp"

#include "kit/policies.hpp"

#include <set>

namespace dmlref::reference {

namespace rec_top_k {

using namespace kit;

// The policies (docs/golden.md, "Top-K").
constexpr Policy kTopKTies{"TopKTies", "LowerIndexFirst"};
constexpr Policy kTopKSignedZero{"TopKSignedZero", "EqualTie"};
constexpr Policy kTopKNaN{"TopKNaN", "NaNLargest"};

const std::vector<std::string_view> kValues = {"InputTensor", "OutputValueTensor"};
const std::vector<std::string_view> kIndex = {"OutputIndexTensor"};

// K equal to the sequence's size; a UINT64 index output; two equal input elements in a sequence
// (a tie the order must break); TOP_K1's direction.
template <class D> void detect_top_k(const Case& c, std::vector<std::string>& f) {
    const D& d = get<D>(c.op.Desc);
    if (d.Axis < d.InputTensor.Sizes.size() && d.K == d.InputTensor.Sizes[d.Axis]) f.push_back("k-is-size");
    if (d.OutputIndexTensor.DataType == DataType::UINT64) f.push_back("indices-uint64");
    if constexpr (std::is_same_v<D, DML_TOP_K1_OPERATOR_DESC>)
        f.push_back(d.AxisDirection == DML_AXIS_DIRECTION_INCREASING ? "increasing" : "decreasing");
    const auto in = c.inputs.find("InputTensor");
    if (in == c.inputs.end() || d.Axis >= d.InputTensor.Sizes.size()) return;
    const std::vector<std::byte> logical = gather_logical(d.InputTensor, in->second);
    const size_t w = element_size(d.InputTensor.DataType), n = d.InputTensor.Sizes[d.Axis];
    // Logical elements i and j are in one sequence when they differ only along Axis.
    uint64_t inner = 1;
    for (size_t i = d.Axis + 1; i < d.InputTensor.Sizes.size(); ++i) inner *= d.InputTensor.Sizes[i];
    const uint64_t count = logical.size() / w;
    for (uint64_t outer = 0; outer < count / (n * inner); ++outer)
        for (uint64_t r = 0; r < inner; ++r) {
            std::set<uint64_t> seen;
            for (uint64_t a = 0; a < n; ++a) {
                const uint64_t e = (outer * n + a) * inner + r;
                if (!seen.insert(load_bits(d.InputTensor.DataType, logical.data() + e * w)).second) {
                    f.push_back("tie");
                    return;
                }
            }
        }
}

template <class D> OperatorRecord top_k_record(OperatorInfo info) {
    auto r = operator_record<D, validate, evaluate>(std::move(info));
    r.outputs = {{"OutputValueTensor", TypeClass::Any, ToleranceRule::Bits},
                 {"OutputIndexTensor", TypeClass::Any, ToleranceRule::Bits}};
    r.explain = explain_top_k;
    r.features = {"tie", "k-is-size", "indices-uint64"};
    if constexpr (std::is_same_v<D, DML_TOP_K1_OPERATOR_DESC>)
        r.features.insert(r.features.end(), {"increasing", "decreasing"});
    r.detect = detect_top_k<D>;
    r.BaseTensors = {"InputTensor"};
    r.sizes = top_k_sizes;
    return r;
}

const std::vector<SupportRow> kRows21 = {{0x2100, kValues, 4, 4, kEightTypes},
                                         {0x2100, kIndex, 4, 4, kU32},
                                         {0x3100, kValues, 1, 8, kEightTypes},
                                         {0x3100, kIndex, 1, 8, kU32}};

}  // namespace rec_top_k

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& top_k_family() {
    using namespace reference;
    using namespace reference::rec_top_k;
    static const FamilyRecord f{
        "top_k",
        {// TOP_K (1.0): 4-D FLOAT32, FLOAT16 with UINT32 indices; then TOP_K1's rows (2.1 eight types, 3.1 1 to 8 dimensions).
         top_k_record<DML_TOP_K_OPERATOR_DESC>({.IntroducedIn = 0x1000,
                                                .Support = {{0x1000, kValues, 4, 4, kF32F16},
                                                            {0x1000, kIndex, 4, 4, kU32},
                                                            kRows21[0],
                                                            kRows21[1],
                                                            kRows21[2],
                                                            kRows21[3]},
                                                .Policies = {kTopKTies, kTopKSignedZero, kTopKNaN, kSubnormals}}),
         top_k_record<DML_TOP_K1_OPERATOR_DESC>({.IntroducedIn = 0x2100,
                                                 .Support = kRows21,
                                                 .Policies = {kTopKTies, kTopKSignedZero, kTopKNaN, kSubnormals}})},
        // docs/golden.md, "Alternative readings" (reference/top_k.cpp, sequence_order).
        {{.Policy = "TopKTies",
          .Value = "HigherIndexFirstWhenIncreasing",
          .Meaning = "INCREASING is a DECREASING sort reversed: equal values come in descending index (DECREASING "
                     "unchanged)",
          .Who = "an ascending top-k computed as a stable descending sort read from its end",
          .Operators = {OperatorType::TOP_K1}},
         {.Policy = "TopKNaN",
          .Value = "NaNLoses",
          .Meaning = "a NaN fails every comparison, as D3D's min and max, so it comes after every number in either "
                     "direction (NaNs among themselves in index order)",
          .Who = "sorts and selections built on comparisons that are false for NaN",
          .Operators = {OperatorType::TOP_K, OperatorType::TOP_K1}},
         {.Policy = "TopKSignedZero",
          .Value = "NegativeZeroSmaller",
          .Meaning = "-0 orders below +0 (IEEE 754's totalOrder): DECREASING takes +0 before -0 and INCREASING -0 "
                     "before +0, whatever their indices",
          .Who = "sorts on a total order of the bits (a radix sort of the float keys, PyTorch's and numpy's sorts "
                 "on some paths)",
          .Operators = {OperatorType::TOP_K, OperatorType::TOP_K1}}}};
    return f;
}
}  // namespace dmlref::kit
