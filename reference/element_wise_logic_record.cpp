// The element-wise logic family's record (reference/kit/family.hpp): the facts of each
// DML_ELEMENT_WISE_<OP>_OPERATOR_DESC from its page ("Availability", in-place execution, "Tensor
// support"), the policies its goldens record, and how its output is judged: every output is
// exact (a 0 or 1, a selected element, or bits), so Bits.
#include "element_wise_logic.hpp"

#include "fast/element_wise.hpp"
#include "kit/policies.hpp"

namespace dmlref::reference {

namespace rec_element_wise_logic {

using namespace kit;
using OT = OperatorType;

// The policies (docs/golden.md, "Element-wise logic").
constexpr Policy kBooleanOutput{"BooleanOutput", "OneOrZeroOfOutputType"};
constexpr Policy kLogicalTruth{"LogicalTruth", "NonzeroIsTrue"};
constexpr Policy kIfCondition{"IfCondition", "NonzeroSelectsA"};
constexpr Policy kBitwiseFloats{"BitwiseFloats", "RawBits"};
constexpr Policy kShiftCount{"ShiftCount", "AtLeastWidthGivesZero"};
constexpr Policy kSignedShift{"SignedShift", "LogicalOnBits"};

// The element types of the pages' tables.
const std::vector<DT> kU32U8 = {DT::UINT32, DT::UINT8};
const std::vector<DT> kU32U16U8 = {DT::UINT32, DT::UINT16, DT::UINT8};
const std::vector<DT> kU64U32U16U8 = {DT::UINT64, DT::UINT32, DT::UINT16, DT::UINT8};
const std::vector<DT> kF16 = {DT::FLOAT16};
const std::vector<DT> kU8 = {DT::UINT8};
const std::vector<std::string_view> kAB = {"ATensor", "BTensor"};
const std::vector<std::string_view> kInput = {"InputTensor"};
const std::vector<std::string_view> kOutput = {"OutputTensor"};
const std::vector<std::string_view> kCondition = {"ConditionTensor"};
const std::vector<std::string_view> kABOutput = {"ATensor", "BTensor", "OutputTensor"};

template <class D> OperatorRecord logic_record(OperatorInfo info) {
    auto r = operator_record<D, validate, evaluate>(std::move(info));
    r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::Bits}};
    r.explain = explain_logic;
    return r;
}

template <OT T> OperatorRecord binary(OperatorInfo info) {
    auto r = logic_record<logic_desc::Binary<T>>(std::move(info));
    r.BaseTensors = {"ATensor", "BTensor"};
    return r;
}
template <OT T> OperatorRecord unary(OperatorInfo info) { return logic_record<logic_desc::Unary<T>>(std::move(info)); }

// ---- Comparisons ------------------------------------------------------------------------------
// LOGICAL_EQUALS, _GREATER_THAN, _LESS_THAN (DML_FEATURE_LEVEL_1_0): 4-D FLOAT32 and FLOAT16 into
// UINT32; 2.0 adds a UINT8 output; 2.1 the eight 8- to 32-bit types; 3.0 1 to 8 dimensions;
// 4.1 INT64 and UINT64. _GREATER_THAN_OR_EQUAL and _LESS_THAN_OR_EQUAL (3.0): the 3.0 and 4.1 rows.
const std::vector<SupportRow> kCompareRows = {{0x1000, kAB, 4, 4, kF32F16},     {0x1000, kOutput, 4, 4, kU32},
                                              {0x2000, kAB, 4, 4, kF32F16},     {0x2000, kOutput, 4, 4, kU32U8},
                                              {0x2100, kAB, 4, 4, kEightTypes}, {0x2100, kOutput, 4, 4, kU32U8},
                                              {0x3000, kAB, 1, 8, kEightTypes}, {0x3000, kOutput, 1, 8, kU32U8},
                                              {0x4100, kAB, 1, 8, kTenTypes},   {0x4100, kOutput, 1, 8, kU32U8}};
const std::vector<SupportRow> kCompare30Rows = {{0x3000, kAB, 1, 8, kEightTypes},
                                                {0x3000, kOutput, 1, 8, kU32U8},
                                                {0x4100, kAB, 1, 8, kTenTypes},
                                                {0x4100, kOutput, 1, 8, kU32U8}};

template <OT T> OperatorRecord comparison() {
    const bool v30 = T == OT::ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL ||
                     T == OT::ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL;
    auto r = binary<T>({.IntroducedIn = v30 ? 0x3000u : 0x1000u,
                        .Support = v30 ? kCompare30Rows : kCompareRows,
                        .Policies = {kBooleanOutput, kSubnormals}});
    if constexpr (T == OT::ELEMENT_WISE_LOGICAL_LESS_THAN)
        r.fast = fast_as<logic_desc::Binary<T>, fast::element_wise_fast>;
    return r;
}

// ---- LOGICAL_AND, _OR, _XOR (1.0, in place), LOGICAL_NOT (1.0, in place) ----------------------
// 1.0: 4-D UINT32; 2.0: UINT32 and UINT8; 3.0: 1 to 8 dimensions.
template <OT T> OperatorRecord logical() {
    const std::vector<SupportRow> rows = {
        {0x1000, {}, 4, 4, kU32}, {0x2000, {}, 4, 4, kU32U8}, {0x3000, {}, 1, 8, kU32U8}};
    constexpr bool is_not = T == OT::ELEMENT_WISE_LOGICAL_NOT;
    OperatorInfo info{
        .IntroducedIn = 0x1000,
        .InPlace = is_not ? decltype(OperatorInfo::InPlace){{"OutputTensor", "InputTensor"}}
                          : decltype(OperatorInfo::InPlace){{"OutputTensor", "ATensor"}, {"OutputTensor", "BTensor"}},
        .Support = rows,
        .Policies = {kLogicalTruth, kBooleanOutput}};
    if constexpr (is_not) return unary<T>(std::move(info));
    else return binary<T>(std::move(info));
}

// ---- IS_NAN (2.0), IS_INFINITY (2.1) -----------------------------------------------------------
OperatorRecord is_nan_op() {
    return unary<OT::ELEMENT_WISE_IS_NAN>({.IntroducedIn = 0x2000,
                                           .Support = {{0x2000, kInput, 4, 4, kF32F16},
                                                       {0x2000, kOutput, 4, 4, kU32U8},
                                                       {0x3000, kInput, 1, 8, kF32F16},
                                                       {0x3000, kOutput, 1, 8, kU32U8}},
                                           .Policies = {kBooleanOutput}});
}

OperatorRecord is_infinity_op() {
    auto r = logic_record<DML_ELEMENT_WISE_IS_INFINITY_OPERATOR_DESC>({.IntroducedIn = 0x2100,
                                                                       .Support = {{0x2100, kInput, 4, 4, kF32F16},
                                                                                   {0x2100, kOutput, 4, 4, kU8},
                                                                                   {0x3000, kInput, 1, 8, kF32F16},
                                                                                   {0x3000, kOutput, 1, 8, kU8}},
                                                                       .Policies = {kBooleanOutput}});
    return r;
}

// ---- IF (2.0): 2.0 4-D FLOAT16 values; 3.0 1 to 8 dimensions, eight types; 5.0 all eleven --------
OperatorRecord if_op() {
    auto r = logic_record<DML_ELEMENT_WISE_IF_OPERATOR_DESC>({.IntroducedIn = 0x2000,
                                                              .Support = {{0x2000, kCondition, 4, 4, kU8},
                                                                          {0x2000, kABOutput, 4, 4, kF16},
                                                                          {0x3000, kCondition, 1, 8, kU8},
                                                                          {0x3000, kABOutput, 1, 8, kEightTypes},
                                                                          {0x5000, kCondition, 1, 8, kU8},
                                                                          {0x5000, kABOutput, 1, 8, kElevenTypes}},
                                                              .Policies = {kIfCondition, kSubnormals}});
    r.BaseTensors = {"ATensor", "BTensor"};
    return r;
}

// ---- The bitwise operators -----------------------------------------------------------------------
// BIT_AND, _OR, _XOR, _NOT (3.0, in place): UINT32, UINT16, UINT8; 4.1 all eleven.
// BIT_COUNT (3.0): UINT32, UINT16, UINT8 into UINT32 or UINT8; 4.1 any input.
// BIT_SHIFT_LEFT, _RIGHT (2.1, in place): 4-D UINT32, UINT16, UINT8; 3.0 1 to 8 dimensions; 4.1 UINT64.
template <OT T> OperatorRecord bitwise() {
    constexpr bool is_not = T == OT::ELEMENT_WISE_BIT_NOT;
    OperatorInfo info{
        .IntroducedIn = 0x3000,
        .InPlace = is_not ? decltype(OperatorInfo::InPlace){{"OutputTensor", "InputTensor"}}
                          : decltype(OperatorInfo::InPlace){{"OutputTensor", "ATensor"}, {"OutputTensor", "BTensor"}},
        .Support = {{0x3000, {}, 1, 8, kU32U16U8}, {0x4100, {}, 1, 8, kElevenTypes}},
        .Policies = {kBitwiseFloats}};
    if constexpr (is_not) return unary<T>(std::move(info));
    else return binary<T>(std::move(info));
}

OperatorRecord bit_count() {
    return unary<OT::ELEMENT_WISE_BIT_COUNT>({.IntroducedIn = 0x3000,
                                              .Support = {{0x3000, kInput, 1, 8, kU32U16U8},
                                                          {0x3000, kOutput, 1, 8, kU32U8},
                                                          {0x4100, kInput, 1, 8, kElevenTypes},
                                                          {0x4100, kOutput, 1, 8, kU32U8}},
                                              .Policies = {kBitwiseFloats}});
}

template <OT T> OperatorRecord shift() {
    return binary<T>(
        {.IntroducedIn = 0x2100,
         .InPlace = {{"OutputTensor", "ATensor"}, {"OutputTensor", "BTensor"}},
         .Support = {{0x2100, {}, 4, 4, kU32U16U8}, {0x3000, {}, 1, 8, kU32U16U8}, {0x4100, {}, 1, 8, kU64U32U16U8}},
         .Policies = {kShiftCount, kSignedShift, kBitwiseFloats}});
}

}  // namespace rec_element_wise_logic

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& element_wise_logic_family() {
    using namespace reference;
    using namespace reference::rec_element_wise_logic;
    using OT = OperatorType;
    static const FamilyRecord f{
        "element_wise_logic",
        {comparison<OT::ELEMENT_WISE_LOGICAL_EQUALS>(), comparison<OT::ELEMENT_WISE_LOGICAL_GREATER_THAN>(),
         comparison<OT::ELEMENT_WISE_LOGICAL_LESS_THAN>(), comparison<OT::ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL>(),
         comparison<OT::ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL>(), logical<OT::ELEMENT_WISE_LOGICAL_AND>(),
         logical<OT::ELEMENT_WISE_LOGICAL_OR>(), logical<OT::ELEMENT_WISE_LOGICAL_XOR>(),
         logical<OT::ELEMENT_WISE_LOGICAL_NOT>(), is_nan_op(), is_infinity_op(), if_op(),
         bitwise<OT::ELEMENT_WISE_BIT_AND>(), bitwise<OT::ELEMENT_WISE_BIT_OR>(), bitwise<OT::ELEMENT_WISE_BIT_XOR>(),
         bitwise<OT::ELEMENT_WISE_BIT_NOT>(), bit_count(), shift<OT::ELEMENT_WISE_BIT_SHIFT_LEFT>(),
         shift<OT::ELEMENT_WISE_BIT_SHIFT_RIGHT>()},
        // docs/golden.md, "Alternative readings".
        {{.Policy = "ShiftCount",
          .Value = "ModuloWidth",
          .Meaning =
              "a shift count is taken modulo the element's width (its low bits only): 1 << 8 is 1 in UINT8, 3 << 255 is 0x80",
          .Who =
              "HLSL's << and >> (the count's low 5 bits for 32-bit values), x86 shift instructions, C compilers' shifts",
          .Operators = {OT::ELEMENT_WISE_BIT_SHIFT_LEFT, OT::ELEMENT_WISE_BIT_SHIFT_RIGHT}},
         {.Policy = "SignedShift",
          .Value = "Arithmetic",
          .Meaning =
              "BIT_SHIFT_RIGHT of a signed integer type is arithmetic: the sign bit comes in at the top (INT8 -128 >> 1 is -64; "
              "a count of the width or more gives -1 or 0)",
          .Who = "PyTorch bitwise_right_shift and C++'s >> on signed types, numpy right_shift",
          .Operators = {OT::ELEMENT_WISE_BIT_SHIFT_RIGHT}},
         {.Policy = "BooleanOutput",
          .Value = "AllOnes",
          .Meaning =
              "true is every bit of the output element set (0xff in UINT8, 0xffffffff in UINT32, 0xffff, a NaN, in "
              "FLOAT16), false +0",
          .Who = "HLSL's comparison masks written as they are (a comparison of vectors gives all ones)",
          .Operators = {OT::ELEMENT_WISE_LOGICAL_EQUALS, OT::ELEMENT_WISE_LOGICAL_GREATER_THAN,
                        OT::ELEMENT_WISE_LOGICAL_LESS_THAN, OT::ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL,
                        OT::ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL, OT::ELEMENT_WISE_LOGICAL_AND,
                        OT::ELEMENT_WISE_LOGICAL_OR, OT::ELEMENT_WISE_LOGICAL_XOR, OT::ELEMENT_WISE_LOGICAL_NOT,
                        OT::ELEMENT_WISE_IS_NAN, OT::ELEMENT_WISE_IS_INFINITY}},
         {.Policy = "IfCondition",
          .Value = "NaNSelectsB",
          .Meaning =
              "a condition selects ATensor where `c > 0 || c < 0`: a NaN condition selects BTensor (-0 selects B "
              "either way)",
          .Who = "kernels that test a float condition by comparison rather than by its bits",
          .Operators = {OT::ELEMENT_WISE_IF}}}};
    return f;
}
}  // namespace dmlref::kit
