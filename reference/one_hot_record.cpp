// The one-hot family's record (reference/kit/family.hpp): the facts of DML_ONE_HOT_OPERATOR_DESC
// from its page ("Availability", "Tensor support"; no in-place execution), the policies its
// goldens record and coverage features. Every output element is ValuesTensor's OffValue or
// OnValue, copied: Bits.
#include "one_hot.hpp"

#include "gather.hpp"

#include "kit/policies.hpp"

namespace dmlref::reference {

namespace rec_one_hot {

using namespace kit;

// The policy of docs/golden.md, "One-hot" (NegativeIndex is the gathers').
constexpr Policy kOneHotOutOfRange{"OneHotOutOfRange", "AllOff"};
const std::vector<std::string_view> kValues = {"ValuesTensor", "OutputTensor"};
const std::vector<std::string_view> kIndices = {"IndicesTensor"};

// The index type, a negative index (gathering::index_features), an index outside its sequence
// (a sequence of OffValues).
void detect_one_hot(const Case& c, std::vector<std::string>& f) {
    gathering::index_features(c, f);
    const auto& d = get<DML_ONE_HOT_OPERATOR_DESC>(c.op.Desc);
    const DataType t = d.IndicesTensor.DataType;
    const auto in = c.inputs.find("IndicesTensor");
    if (in == c.inputs.end() || d.Axis >= d.OutputTensor.Sizes.size() || !gathering::is_index_type(t)) return;
    const std::vector<std::byte> logical = gather_logical(d.IndicesTensor, in->second);
    const size_t w = element_size(t);
    for (size_t i = 0; i + w <= logical.size(); i += w)
        if (!gathering::resolve(t, logical.data() + i, d.OutputTensor.Sizes[d.Axis])) {
            f.push_back("index-outside");
            return;
        }
}

OperatorRecord one_hot() {
    auto r = operator_record<DML_ONE_HOT_OPERATOR_DESC, validate, evaluate>({
        .IntroducedIn = 0x2000,
        // 2.0: 4-D FLOAT32, FLOAT16 with UINT32 indices; 2.1 eight types; 3.0 1 to 8 dimensions and four index types.
        .Support = {{0x2000, kValues, 4, 4, kF32F16},
                    {0x2000, kIndices, 4, 4, kU32},
                    {0x2100, kValues, 4, 4, kEightTypes},
                    {0x2100, kIndices, 4, 4, kU32},
                    {0x3000, kValues, 1, 8, kEightTypes},
                    {0x3000, kIndices, 1, 8, kIndexTypes}},
        .Policies = {kNegativeIndex, kOneHotOutOfRange, kSubnormals},
    });
    r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::Bits}};
    r.explain = explain_one_hot;
    r.features = {"indices-int32", "indices-int64", "indices-uint64", "negative-index", "index-outside"};
    r.detect = detect_one_hot;
    r.BaseTensors = {"ValuesTensor"};
    return r;
}

}  // namespace rec_one_hot

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& one_hot_family() {
    using namespace reference::rec_one_hot;
    static const FamilyRecord f{
        "one_hot",
        {one_hot()},
        // docs/golden.md, "Alternative readings" (reference/one_hot.cpp, on_position).
        {{.Policy = "OneHotOutOfRange",
          .Value = "Modulo",
          .Meaning = "every index is taken modulo the sequence's size, Python's way: -5 of 4 is position 3, 100 of 4 "
                     "position 0",
          .Who = "kernels that wrap an index into the axis (a Python-style remainder)",
          .Operators = {OperatorType::ONE_HOT}},
         {.Policy = "OneHotOutOfRange",
          .Value = "Clamp",
          .Meaning = "an index outside the sequence (after a negative one counts from the end) is clamped into it: 100 "
                     "of 4 is position 3, -5 of 4 position 0",
          .Who = "kernels that clamp an index into the axis, as a clamping gather reads it",
          .Operators = {OperatorType::ONE_HOT}},
         {.Policy = "NegativeIndex",
          .Value = "Modulo",
          .Meaning = "a negative index wraps any number of times, Python's way: -5 of 4 is position 3 (an index above "
                     "the range still names none: 100 of 4 is all OffValue)",
          .Who = "kernels that take a negative index modulo the axis (a Python-style remainder) before the range test",
          .Operators = {OperatorType::ONE_HOT}}}};
    return f;
}
}  // namespace dmlref::kit
