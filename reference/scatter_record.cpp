// The scatter family's record (reference/kit/family.hpp): the facts of DML_SCATTER_OPERATOR_DESC
// (SCATTER_ELEMENTS) and DML_SCATTER_ND_OPERATOR_DESC from their pages ("Availability", "Tensor
// support"; neither page allows in-place execution), the policies their goldens record, coverage
// features and gen's derived sizes. Every output element is an input or an update element,
// copied: Bits.
#include "scatter.hpp"

#include "kit/policies.hpp"

namespace dmlref::reference {

namespace rec_scatter {

using namespace kit;

// The policy of docs/golden.md, "Scattering" (NegativeIndex and OutOfRangeIndex are the gathers').
constexpr Policy kDuplicateIndex{"DuplicateIndex", "AnyWrite"};
const std::vector<std::string_view> kValues = {"InputTensor", "UpdatesTensor", "OutputTensor"};
const std::vector<std::string_view> kIndices = {"IndicesTensor"};

// The index tensor's type, a negative index (gathering::index_features), and an output element
// written by two updates.
void detect_scatter(const Case& c, std::vector<std::string>& f) {
    gathering::index_features(c, f);
    if (c.inputs.count("IndicesTensor") && c.inputs.count("UpdatesTensor") && scatter_collisions(c) > 0)
        f.push_back("duplicate-index");
}

template <class D> OperatorRecord scatter_record(OperatorInfo info) {
    auto r = operator_record<D, validate, evaluate>(std::move(info));
    r.validate_values = validate_values_as<D, validate_values>;
    r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::Bits}};
    r.explain = explain_scatter;
    r.reads_inputs = true;  // the judge takes the admissible writes from the inputs (dmlref/admissible.hpp)
    r.features = {"indices-int32", "indices-int64", "indices-uint64", "negative-index", "duplicate-index"};
    r.detect = detect_scatter;
    r.BaseTensors = {"InputTensor"};
    r.sizes = gather_sizes;
    return r;
}

// SCATTER_ELEMENTS (2.0) and SCATTER_ND (2.1): 4-D with UINT32 indices at 2.1 (SCATTER's 2.0 row
// is the same), 1 to 8 dimensions and four index types from 3.0.
const std::vector<SupportRow> kRows = {{0x2100, kValues, 4, 4, kEightTypes},
                                       {0x2100, kIndices, 4, 4, kU32},
                                       {0x3000, kValues, 1, 8, kEightTypes},
                                       {0x3000, kIndices, 1, 8, kIndexTypes}};

}  // namespace rec_scatter

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& scatter_family() {
    using namespace reference;
    using namespace reference::rec_scatter;
    // Elements several updates write with different bits: every update that could win
    // (dmlref/admissible.hpp; DuplicateIndex=AnyWrite).
    set_admissible_hook(OperatorType::SCATTER_ELEMENTS, scatter_admissible);
    set_admissible_hook(OperatorType::SCATTER_ND, scatter_admissible);
    static const FamilyRecord f{
        "scatter",
        {scatter_record<DML_SCATTER_OPERATOR_DESC>(
             {.IntroducedIn = 0x2000,
              .Support = {{0x2000, kValues, 4, 4, kF32F16},
                          {0x2000, kIndices, 4, 4, kU32},
                          kRows[0],
                          kRows[1],
                          kRows[2],
                          kRows[3]},
              .Policies = {kNegativeIndex, kOutOfRangeIndex, kDuplicateIndex, kSubnormals}}),
         scatter_record<DML_SCATTER_ND_OPERATOR_DESC>(
             {.IntroducedIn = 0x2100,
              .Support = kRows,
              .Policies = {kNegativeIndex, kOutOfRangeIndex, kDuplicateIndex, kSubnormals}})},
        // docs/golden.md, "Alternative readings" (reference/scatter.cpp, scatter_admissible;
        // reference/unpooling.cpp, unpooling_admissible).
        {{.Policy = "DuplicateIndex",
          .Value = "LastInOrder",
          .Meaning = "of the writes into one element, the last in row-major order (UpdatesTensor's, "
                     "MAX_UNPOOLING's InputTensor's) wins: one right answer, where AnyWrite admits "
                     "every write",
          .Who = "a serial loop that writes in order (a CPU reference, one thread)",
          .Operators = {OperatorType::SCATTER_ELEMENTS, OperatorType::SCATTER_ND, OperatorType::MAX_UNPOOLING}}}};
    return f;
}
}  // namespace dmlref::kit
