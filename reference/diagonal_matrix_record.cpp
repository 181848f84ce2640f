// The diagonal matrix family's records (reference/kit/family.hpp): the facts of
// DML_DIAGONAL_MATRIX_OPERATOR_DESC and DML_DIAGONAL_MATRIX1_OPERATOR_DESC from their pages
// ("Availability", "Tensor support"; neither page allows in-place execution), the policies their
// goldens record, and coverage features. Every output element is Value (converted once, for
// DIAGONAL_MATRIX), an input element or 0: Bits.
#include "diagonal_matrix.hpp"
#include "cast.hpp"

#include "kit/policies.hpp"

#include <cmath>

namespace dmlref::reference {

namespace rec_diagonal_matrix {

using namespace kit;
using DIAGONAL = DML_DIAGONAL_MATRIX_OPERATOR_DESC;
using DIAGONAL1 = DML_DIAGONAL_MATRIX1_OPERATOR_DESC;

// The policies of docs/golden.md, "Diagonal matrix".
constexpr Policy kDiagonalValueConversion{"DiagonalValueConversion", "AsCast"};
constexpr Policy kDiagonalFillValue{"DiagonalFillValue", "Value"};
constexpr Policy kFloat16ScalarUnion{"Float16ScalarUnion", "UInt16Bits"};

// Whether any element of an h x w matrix passes `test(y, x)`, and whether any fails.
template <class F> std::pair<bool, bool> any_all(uint64_t h, uint64_t w, F&& test) {
    bool some = false, missed = false;
    for (uint64_t y = 0; y < h && !(some && missed); ++y)
        for (uint64_t x = 0; x < w && !(some && missed); ++x) (test(y, x) ? some : missed) = true;
    return {some, missed};
}

// A negative Offset, a diagonal that misses the matrix, a Value the output's type changes
// (truncated or rounded), a NaN Value.
void detect(const Case& c, std::vector<std::string>& f) {
    const DIAGONAL& d = get<DIAGONAL>(c.op.Desc);
    if (d.Offset < 0) f.push_back("negative-offset");
    const auto& s = d.OutputTensor.Sizes;
    if (s.size() >= 2 &&
        !any_all(s[s.size() - 2], s.back(), [&](uint64_t y, uint64_t x) { return on_diagonal(d, y, x); }).first)
        f.push_back("no-diagonal-element");
    if (std::isnan(d.Value)) f.push_back("nan-value");
    else if (is_valid(d.OutputTensor.DataType) &&
             cast_bits(d.OutputTensor.DataType, diagonal_value_bits(d), DataType::FLOAT32) != to_bits(d.Value))
        f.push_back("value-converted");  // the stored value, read back, is not Value
}

// An InputTensor (and a broadcast one), an inverted or empty band, a band that fills the whole
// matrix.
void detect1(const Case& c, std::vector<std::string>& f) {
    const DIAGONAL1& d = get<DIAGONAL1>(c.op.Desc);
    if (d.InputTensor) {
        f.push_back("input-tensor");
        for (size_t k = 0; k < d.InputTensor->Strides.size(); ++k)
            if (d.InputTensor->Strides[k] == 0 && d.InputTensor->Sizes[k] > 1) {
                f.push_back("broadcast-input");
                break;
            }
    }
    if (d.DiagonalFillBegin > d.DiagonalFillEnd) f.push_back("inverted-band");
    if (d.DiagonalFillBegin == d.DiagonalFillEnd) f.push_back("empty-band");
    const auto& s = d.OutputTensor.Sizes;
    if (s.size() >= 2 &&
        !any_all(s[s.size() - 2], s.back(), [&](uint64_t y, uint64_t x) { return in_fill(d, y, x); }).second)
        f.push_back("band-fills-all");
}

OperatorRecord diagonal_matrix() {
    // DML_FEATURE_LEVEL_2_0: 4-D, FLOAT32 and FLOAT16; 2.1 the eight 8- to 32-bit types.
    auto r = operator_record<DIAGONAL, validate, evaluate>({
        .IntroducedIn = 0x2000,
        .Support = {{0x2000, {}, 4, 4, kF32F16}, {0x2100, {}, 4, 4, kEightTypes}},
        .Policies = {kDiagonalValueConversion, kSubnormals},
    });
    r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::Bits}};
    r.explain = explain_diagonal_matrix;
    r.features = {"negative-offset", "no-diagonal-element", "nan-value", "value-converted"};
    r.detect = detect;
    r.MinRank = 2;
    r.BaseTensors = {"OutputTensor"};
    return r;
}

OperatorRecord diagonal_matrix1() {
    // DML_FEATURE_LEVEL_5_1: 2 to 4 dimensions, all eleven types, for both tensors.
    auto r = operator_record<DIAGONAL1, validate, evaluate>({
        .IntroducedIn = 0x5100,
        .Support = {{0x5100, {}, 2, 4, kElevenTypes}},
        .Policies = {kDiagonalFillValue, kFloat16ScalarUnion, kSubnormals},
    });
    r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::Bits}};
    r.explain = explain_diagonal_matrix;
    r.features = {"input-tensor", "broadcast-input", "inverted-band", "empty-band", "band-fills-all"};
    r.detect = detect1;
    r.MinRank = 2;
    r.BaseTensors = {"OutputTensor"};
    return r;
}

}  // namespace rec_diagonal_matrix

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& diagonal_matrix_family() {
    using namespace reference::rec_diagonal_matrix;
    static const FamilyRecord f{"diagonal_matrix", {diagonal_matrix(), diagonal_matrix1()}};
    return f;
}
}  // namespace dmlref::kit
