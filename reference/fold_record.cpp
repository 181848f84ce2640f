// The fold family's record (reference/kit/family.hpp): the facts of DML_FOLD_OPERATOR_DESC and
// DML_UNFOLD_OPERATOR_DESC from their pages ("Availability", "Tensor support"; no in-place
// execution), the policies their goldens record, and how their outputs are judged: UNFOLD moves
// elements (Bits), FOLD sums them (floats by each element's own terms, integers bit for bit).
#include "fold.hpp"

#include "kit/policies.hpp"

namespace dmlref::reference {

namespace rec_fold {

using namespace kit;
using FOLD = DML_FOLD_OPERATOR_DESC;
using UNFOLD = DML_UNFOLD_OPERATOR_DESC;

// The policies of docs/golden.md, "Fold and unfold" (the others are the kit's).
constexpr Policy kColumnLayout{"ColumnLayout", "ChannelMajorRowMajorTaps"};
constexpr Policy kColumnsRank{"ColumnsRank", "ThreeOrImageRank"};
constexpr Policy kWindowPosition{"WindowPosition", "StrideDilationStartPadding"};
constexpr Policy kUnfoldPadding{"UnfoldPadding", "PositiveZero"};
constexpr Policy kPaddedColumns{"PaddedColumns", "Dropped"};
constexpr Policy kUncoveredPosition{"UncoveredPosition", "PositiveZero"};
constexpr Policy kFloatSum{"FloatSum", "ExactThenRoundOnce"};
constexpr Policy kIntegerOverflow{"IntegerOverflow", "WrapToWidth"};

// The pages' "Tensor support": 3 to 8 dimensions from DML_FEATURE_LEVEL_6_4, the data types left
// blank; the examples are FLOAT32, the one type the pages show. dmlref evaluates all eleven.
const std::vector<DT> kPageTypes = {DT::FLOAT32};

void detect(const Case& c, std::vector<std::string>& f) { fold_features(c.op.Desc, f); }

template <class D> OperatorRecord fold_record(std::vector<Policy> policies) {
    auto r = operator_record<D, validate, evaluate>({
        .IntroducedIn = 0x6400,
        .Support = {{0x6400, {}, 3, 8, kPageTypes}},
        .Policies = std::move(policies),
    });
    r.explain = explain_fold;
    r.MinRank = 3;
    r.features = {"padding", "stride>1", "overlapping-windows", "dilation>1", "columns-3d", "columns-image-rank"};
    r.detect = detect;
    // gen: the image is the base, the arrays cover its spatial dimensions, the columns follow.
    r.BaseTensors = {std::is_same_v<D, FOLD> ? "OutputTensor" : "InputTensor"};
    r.ArraysFrom = 2;
    r.sizes = fold_sizes;
    return r;
}

OperatorRecord unfold() {
    auto r = fold_record<UNFOLD>({kColumnLayout, kColumnsRank, kWindowPosition, kUnfoldPadding, kSubnormals});
    r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::Bits}};
    return r;
}

OperatorRecord fold() {
    auto r = fold_record<FOLD>({kColumnLayout, kColumnsRank, kWindowPosition, kPaddedColumns, kUncoveredPosition,
                                kFloatSum, kZeroResult, kNonFiniteSum, kIntegerOverflow, kSubnormals});
    r.features.push_back("uncovered-positions");
    r.work_factor = fold_window_taps;
    // Overlapping windows add: float sums are exact, rounded once, judged by each element's own
    // terms; integer sums wrap exactly (docs/tolerance.md, "Fold and unfold").
    r.outputs = {{"OutputTensor", TypeClass::Float, ToleranceRule::Summed, BoundaryRule::None, nullptr, fold_terms,
                  nullptr, fold_term_counts},
                 {"OutputTensor", TypeClass::Integer, ToleranceRule::Bits}};
    return r;
}

}  // namespace rec_fold

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& fold_family() {
    using namespace reference::rec_fold;
    static const FamilyRecord f{"fold", {fold(), unfold()}};
    return f;
}
}  // namespace dmlref::kit
