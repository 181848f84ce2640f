// The one-hot family's record (reference/kit/family.hpp): the facts of DML_ONE_HOT_OPERATOR_DESC
// from its page ("Availability", "Tensor support"; no in-place execution), the policies its
// goldens record and coverage features. Every output element is ValuesTensor's OffValue or
// OnValue, copied: Bits.
#include "one_hot.hpp"

#include "kit/policies.hpp"

namespace dmlref::reference {

namespace {

using namespace kit;

constexpr Policy kNegativeIndex{"NegativeIndex", "FromEndOnce"};
constexpr Policy kOneHotOutOfRange{"OneHotOutOfRange", "AllOff"};

const std::vector<DT> kIndexTypes = {DT::INT64, DT::INT32, DT::UINT64, DT::UINT32};
const std::vector<std::string_view> kValues = {"ValuesTensor", "OutputTensor"};
const std::vector<std::string_view> kIndices = {"IndicesTensor"};

// The index type; a negative index; an index outside its sequence (a sequence of OffValues).
void detect_one_hot(const Case& c, std::vector<std::string>& f) {
    const auto& d = get<DML_ONE_HOT_OPERATOR_DESC>(c.op.Desc);
    const DataType t = d.IndicesTensor.DataType;
    if (t == DataType::INT32) f.push_back("indices-int32");
    if (t == DataType::INT64) f.push_back("indices-int64");
    if (t == DataType::UINT64) f.push_back("indices-uint64");
    const auto in = c.inputs.find("IndicesTensor");
    if (in == c.inputs.end() || d.Axis >= d.OutputTensor.Sizes.size()) return;
    const std::vector<std::byte> logical = gather_logical(d.IndicesTensor, in->second);
    const size_t w = element_size(t);
    const uint64_t size = d.OutputTensor.Sizes[d.Axis];
    bool negative = false, outside = false;
    for (size_t i = 0; i + w <= logical.size(); i += w) {
        const uint64_t bits = load_bits(t, logical.data() + i);
        const bool sgn = t == DataType::INT32 || t == DataType::INT64;
        const int64_t s = t == DataType::INT32 ? int64_t(int32_t(uint32_t(bits))) : int64_t(bits);
        negative = negative || (sgn && s < 0);
        outside = outside || (sgn ? (s < -int64_t(size) || s >= int64_t(size)) : bits >= size);
    }
    if (negative) f.push_back("negative-index");
    if (outside) f.push_back("index-outside");
}

OperatorRecord one_hot() {
    auto r = operator_record<DML_ONE_HOT_OPERATOR_DESC, validate, evaluate>({
        .IntroducedIn = 0x2000,
        // 2.0: 4-D FLOAT32, FLOAT16 with UINT32 indices; 2.1 eight types; 3.0 1 to 8 dimensions and four index types.
        .Support = {{0x2000, kValues, 4, 4, kF32F16}, {0x2000, kIndices, 4, 4, kU32}, {0x2100, kValues, 4, 4, kEightTypes},
                    {0x2100, kIndices, 4, 4, kU32}, {0x3000, kValues, 1, 8, kEightTypes}, {0x3000, kIndices, 1, 8, kIndexTypes}},
        .Policies = {kNegativeIndex, kOneHotOutOfRange, kSubnormals},
    });
    r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::Bits}};
    r.explain = explain_one_hot;
    r.features = {"indices-int32", "indices-int64", "indices-uint64", "negative-index", "index-outside"};
    r.detect = detect_one_hot;
    r.BaseTensors = {"ValuesTensor"};
    return r;
}

}  // namespace

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& one_hot_family() {
    static const FamilyRecord f{"one_hot", {reference::one_hot()}};
    return f;
}
}  // namespace dmlref::kit
