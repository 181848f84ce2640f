// The MAX_UNPOOLING record (reference/kit/family.hpp): the facts of
// DML_MAX_UNPOOLING_OPERATOR_DESC from its page ("Availability", "Tensor support"; no in-place
// execution), the policies its goldens record and coverage features. Every output element is an
// input element, copied, or +0: Bits.
#include "unpooling.hpp"

#include "kit/policies.hpp"

#include "dmlref/admissible.hpp"

namespace dmlref::reference {

namespace rec_unpooling {

using namespace kit;
using UNPOOL = DML_MAX_UNPOOLING_OPERATOR_DESC;

// The policy of docs/golden.md, "Max unpooling" (the others are the kit's and SCATTER's).
constexpr Policy kDuplicateIndex{"DuplicateIndex", "AnyWrite"};
const std::vector<std::string_view> kData = {"InputTensor", "OutputTensor"};
const std::vector<std::string_view> kIndices = {"IndicesTensor"};

// UINT64 indices, output elements no index names, an element written twice with the same bits.
void detect(const Case& c, std::vector<std::string>& f) {
    const UNPOOL& d = get<UNPOOL>(c.op.Desc);
    if (d.IndicesTensor.DataType == DataType::UINT64) f.push_back("indices-uint64");
    const UnpoolingCensus census = unpooling_census(d, c.inputs);
    if (census.unwritten) f.push_back("unwritten-elements");
    if (census.same_bits) f.push_back("duplicate-same-bits");
}

OperatorRecord max_unpooling() {
    // The page's "Availability": DML_FEATURE_LEVEL_3_0, 4-D FLOAT32 and FLOAT16 with UINT32
    // indices; 5.0 ten types (no FLOAT64) and UINT64 indices.
    auto r = operator_record<UNPOOL, validate, evaluate>({
        .IntroducedIn = 0x3000,
        .Support = {{0x3000, kData, 4, 4, kF32F16},
                    {0x3000, kIndices, 4, 4, kU32},
                    {0x5000, kData, 4, 4, kTenTypes},
                    {0x5000, kIndices, 4, 4, kU32U64}},
        .Policies = {kOutOfRangeIndex, kDuplicateIndex, kSelectedZero, kSubnormals},
    });
    r.validate_values = validate_values_as<UNPOOL, validate_values>;
    r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::Bits}};
    r.explain = explain_unpooling;
    r.reads_inputs = true;  // the judge takes the admissible writes from the inputs (dmlref/admissible.hpp)
    r.features = {"indices-uint64", "unwritten-elements", "duplicate-same-bits"};
    r.detect = detect;
    return r;
}

}  // namespace rec_unpooling

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& unpooling_family() {
    using namespace reference::rec_unpooling;
    // Elements several inputs write with different bits: every one that could win
    // (dmlref/admissible.hpp; DuplicateIndex=AnyWrite, LastInOrder declared by the scatter family).
    set_admissible_hook(OperatorType::MAX_UNPOOLING, reference::unpooling_admissible);
    static const FamilyRecord f{"unpooling", {max_unpooling()}};
    return f;
}
}  // namespace dmlref::kit
