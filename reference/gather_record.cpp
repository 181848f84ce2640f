// The gather family's record (reference/kit/family.hpp): the facts of DML_GATHER_OPERATOR_DESC,
// DML_GATHER_ELEMENTS_OPERATOR_DESC, DML_GATHER_ND_OPERATOR_DESC and DML_GATHER_ND1_OPERATOR_DESC
// from their pages ("Availability", "Tensor support"; none runs in place), the policies their
// goldens record, coverage features and gen's derived sizes. Every output element is a copied
// input element: Bits.
#include "gather.hpp"
#include "fast/data_movement.hpp"

#include "kit/policies.hpp"
#include "dmlref/values.hpp"

#include <set>

namespace dmlref::reference {

namespace rec_gather {

using namespace kit;

const std::vector<std::string_view> kValues = {"InputTensor", "OutputTensor"};
const std::vector<std::string_view> kIndices = {"IndicesTensor"};

// The tables from DML_FEATURE_LEVEL_3_0: 1 to 8 dimensions, eight value types, four index types;
// before it (2.1) 4-D with UINT32 indices.
const std::vector<SupportRow> kRows21 = {{0x2100, kValues, 4, 4, kEightTypes},
                                         {0x2100, kIndices, 4, 4, kU32},
                                         {0x3000, kValues, 1, 8, kEightTypes},
                                         {0x3000, kIndices, 1, 8, kIndexTypes}};

// ---- Coverage ---------------------------------------------------------------------------------

// The index tensor's type, a negative index (gathering::index_features), and two index elements of
// one dimension (GATHER_ND: of one tuple position) holding the same value.
void detect_gather(const Case& c, std::vector<std::string>& f) {
    gathering::index_features(c, f);
    const TensorDesc* ix = nullptr;
    for (const auto& t : tensor_fields(c.op))
        if (t.name == "IndicesTensor") ix = t.desc;
    const auto in = c.inputs.find("IndicesTensor");
    if (!ix || in == c.inputs.end() || !gathering::is_index_type(ix->DataType)) return;
    const std::vector<std::byte> logical = gather_logical(*ix, in->second);
    const size_t w = element_size(ix->DataType), k = ix->Sizes.back();
    const bool nd = holds<DML_GATHER_ND_OPERATOR_DESC>(c.op.Desc) || holds<DML_GATHER_ND1_OPERATOR_DESC>(c.op.Desc);
    std::set<std::pair<uint64_t, uint64_t>> seen;  // (tuple position, bits)
    for (size_t i = 0; i + w <= logical.size(); i += w)
        if (!seen.insert({nd ? (i / w) % k : 0, load_bits(ix->DataType, logical.data() + i)}).second) {
            f.push_back("duplicate-index");
            return;
        }
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
    if constexpr (std::is_same_v<D, DML_GATHER_OPERATOR_DESC>) r.fast = fast_as<D, fast::data_movement_fast>;
    return r;
}

}  // namespace rec_gather

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& gather_family() {
    using namespace reference;
    using namespace reference::rec_gather;
    static const FamilyRecord f{
        "gather",
        {
            // GATHER (1.0): 4-D FLOAT32, FLOAT16 with UINT32 indices; 2.1 eight types; 3.0 1 to 8
            // dimensions and four index types; 4.1 all eleven value types.
            gather_record<DML_GATHER_OPERATOR_DESC>({.IntroducedIn = 0x1000,
                                                     .Support = {{0x1000, kValues, 4, 4, kF32F16},
                                                                 {0x1000, kIndices, 4, 4, kU32},
                                                                 {0x2100, kValues, 4, 4, kEightTypes},
                                                                 {0x2100, kIndices, 4, 4, kU32},
                                                                 {0x3000, kValues, 1, 8, kEightTypes},
                                                                 {0x3000, kIndices, 1, 8, kIndexTypes},
                                                                 {0x4100, kValues, 1, 8, kElevenTypes},
                                                                 {0x4100, kIndices, 1, 8, kIndexTypes}},
                                                     .Policies = {kNegativeIndex, kOutOfRangeIndex, kSubnormals}}),
            // GATHER_ELEMENTS, GATHER_ND (2.1): the 2.1 and 3.0 rows.
            gather_record<DML_GATHER_ELEMENTS_OPERATOR_DESC>(
                {.IntroducedIn = 0x2100,
                 .Support = kRows21,
                 .Policies = {kNegativeIndex, kOutOfRangeIndex, kSubnormals}}),
            gather_record<DML_GATHER_ND_OPERATOR_DESC>({.IntroducedIn = 0x2100,
                                                        .Support = kRows21,
                                                        .Policies = {kNegativeIndex, kOutOfRangeIndex, kSubnormals}}),
            // GATHER_ND1 (3.0): the 3.0 rows.
            gather_record<DML_GATHER_ND1_OPERATOR_DESC>(
                {.IntroducedIn = 0x3000,
                 .Support = {{0x3000, kValues, 1, 8, kEightTypes}, {0x3000, kIndices, 1, 8, kIndexTypes}},
                 .Policies = {kNegativeIndex, kOutOfRangeIndex, kSubnormals}}),
        }};
    return f;
}
}  // namespace dmlref::kit
