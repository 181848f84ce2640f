// The gather family's record (reference/kit/family.hpp): the facts of DML_GATHER_OPERATOR_DESC,
// DML_GATHER_ELEMENTS_OPERATOR_DESC, DML_GATHER_ND_OPERATOR_DESC and DML_GATHER_ND1_OPERATOR_DESC
// from their pages ("Availability", "Tensor support"; none runs in place), the policies their
// goldens record, coverage features and gen's derived sizes. Every output element is a copied
// input element: Bits.
#include "gather.hpp"

#include "kit/policies.hpp"

#include <set>

namespace dmlref::reference {

namespace {

using namespace kit;

// The policies (docs/golden.md, "Gathering").
constexpr Policy kNegativeIndex{"NegativeIndex", "FromEndOnce"};
constexpr Policy kOutOfRangeIndex{"OutOfRangeIndex", "Refused"};

const std::vector<DT> kIndexTypes = {DT::INT64, DT::INT32, DT::UINT64, DT::UINT32};
const std::vector<std::string_view> kValues = {"InputTensor", "OutputTensor"};
const std::vector<std::string_view> kIndices = {"IndicesTensor"};

// The tables from DML_FEATURE_LEVEL_3_0: 1 to 8 dimensions, eight value types, four index types;
// before it (2.1) 4-D with UINT32 indices.
const std::vector<SupportRow> kRows21 = {{0x2100, kValues, 4, 4, kEightTypes}, {0x2100, kIndices, 4, 4, kU32},
                                         {0x3000, kValues, 1, 8, kEightTypes}, {0x3000, kIndices, 1, 8, kIndexTypes}};

// ---- Coverage ---------------------------------------------------------------------------------

// The index tensor's type, and its values: a negative one, and two index elements of one
// dimension (GATHER_ND: of one tuple position) holding the same value.
void detect_gather(const Case& c, std::vector<std::string>& f) {
    const TensorDesc* ix = nullptr;
    for (const auto& t : tensor_fields(c.op)) if (t.name == "IndicesTensor") ix = t.desc;
    if (!ix) return;
    const DataType t = ix->DataType;
    if (t == DataType::INT32) f.push_back("indices-int32");
    if (t == DataType::INT64) f.push_back("indices-int64");
    if (t == DataType::UINT64) f.push_back("indices-uint64");
    const auto in = c.inputs.find("IndicesTensor");
    if (in == c.inputs.end() || (t != DataType::INT32 && t != DataType::INT64 && t != DataType::UINT32 && t != DataType::UINT64)) return;
    const TensorView v(*ix, std::span<const std::byte>(in->second));
    const size_t w = element_size(t), R = ix->Sizes.size();
    const bool nd = holds<DML_GATHER_ND_OPERATOR_DESC>(c.op.Desc) || holds<DML_GATHER_ND1_OPERATOR_DESC>(c.op.Desc);
    std::set<std::pair<uint64_t, uint64_t>> seen;  // (tuple position, bits)
    bool negative = false, duplicate = false;
    std::vector<uint64_t> at(R, 0);
    const uint64_t count = element_count(*ix);
    for (uint64_t flat = 0; flat < count; ++flat) {
        int64_t off = 0;
        for (size_t i = 0; i < R; ++i) off += int64_t(at[i]) * v.strides[i];
        const uint64_t bits = load_bits(t, v.base + off * int64_t(w));
        negative = negative || (t == DataType::INT32 && int32_t(uint32_t(bits)) < 0) || (t == DataType::INT64 && int64_t(bits) < 0);
        duplicate = duplicate || !seen.insert({nd ? at[R - 1] : 0, bits}).second;
        for (size_t d = R; d-- > 0;) {
            if (++at[d] < ix->Sizes[d]) break;
            at[d] = 0;
        }
    }
    if (negative) f.push_back("negative-index");
    if (duplicate) f.push_back("duplicate-index");
}

template <class D> OperatorRecord gather_record(OperatorInfo info) {
    auto r = operator_record<D, validate, evaluate>(std::move(info));
    r.validate_values = validate_values_as<D, validate_values>;
    r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::Bits}};
    r.explain = explain_gather;
    r.features = {"indices-int32", "indices-int64", "indices-uint64", "negative-index", "duplicate-index"};
    r.detect = detect_gather;
    r.BaseTensors = {"InputTensor"};
    r.sizes = gather_sizes;
    return r;
}

}  // namespace

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& gather_family() {
    using namespace reference;
    static const FamilyRecord f{
        "gather",
        {
            // GATHER (1.0): 4-D FLOAT32, FLOAT16 with UINT32 indices; 2.1 eight types; 3.0 1 to 8
            // dimensions and four index types; 4.1 all eleven value types.
            gather_record<DML_GATHER_OPERATOR_DESC>(
                {.IntroducedIn = 0x1000,
                 .Support = {{0x1000, kValues, 4, 4, kF32F16}, {0x1000, kIndices, 4, 4, kU32},
                             {0x2100, kValues, 4, 4, kEightTypes}, {0x2100, kIndices, 4, 4, kU32},
                             {0x3000, kValues, 1, 8, kEightTypes}, {0x3000, kIndices, 1, 8, kIndexTypes},
                             {0x4100, kValues, 1, 8, kElevenTypes}, {0x4100, kIndices, 1, 8, kIndexTypes}},
                 .Policies = {kNegativeIndex, kOutOfRangeIndex, kSubnormals}}),
            // GATHER_ELEMENTS, GATHER_ND (2.1): the 2.1 and 3.0 rows.
            gather_record<DML_GATHER_ELEMENTS_OPERATOR_DESC>(
                {.IntroducedIn = 0x2100, .Support = kRows21, .Policies = {kNegativeIndex, kOutOfRangeIndex, kSubnormals}}),
            gather_record<DML_GATHER_ND_OPERATOR_DESC>(
                {.IntroducedIn = 0x2100, .Support = kRows21, .Policies = {kNegativeIndex, kOutOfRangeIndex, kSubnormals}}),
            // GATHER_ND1 (3.0): the 3.0 rows.
            gather_record<DML_GATHER_ND1_OPERATOR_DESC>(
                {.IntroducedIn = 0x3000,
                 .Support = {{0x3000, kValues, 1, 8, kEightTypes}, {0x3000, kIndices, 1, 8, kIndexTypes}},
                 .Policies = {kNegativeIndex, kOutOfRangeIndex, kSubnormals}}),
        }};
    return f;
}
}  // namespace dmlref::kit
