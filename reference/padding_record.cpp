// The PADDING and PADDING1 records (reference/kit/family.hpp): the facts of
// DML_PADDING_OPERATOR_DESC and DML_PADDING1_OPERATOR_DESC from their pages, the policies their
// goldens record, coverage, and gen's derived sizes.
#include "padding.hpp"
#include "fast/data_movement.hpp"

#include "kit/policies.hpp"

#include <cctype>

namespace dmlref::reference {

namespace rec_padding {

using namespace kit;
using PADDING = DML_PADDING_OPERATOR_DESC;
using PADDING1 = DML_PADDING1_OPERATOR_DESC;

// The policies (docs/golden.md, "Padding").
constexpr Policy kPaddingBeyondSize{"PaddingBeyondSize", "Periodic"};
constexpr Policy kPaddingReflectSizeOne{"PaddingReflectSizeOne", "SameElement"};
constexpr Policy kPaddingValueConversion{"PaddingValueConversion", "AsCast"};
constexpr Policy kFloat16ScalarUnion{"Float16ScalarUnion", "UInt16Bits"};

// SYMMETRIC came with DML_FEATURE_LEVEL_3_0 (PADDING1's page, Example 4); WRAP is DML_PADDING_MODE's
// newest value, with DML_FEATURE_LEVEL_6_4.
void mode_support(uint32_t mode, uint32_t level, std::vector<std::string>& why) {
    if (mode == DML_PADDING_MODE_SYMMETRIC && level < 0x3000)
        why.push_back("PaddingMode SYMMETRIC was introduced in " + feature_level_name(0x3000));
    if (mode == DML_PADDING_MODE_WRAP && level < 0x6400)
        why.push_back("PaddingMode WRAP was introduced in " + feature_level_name(0x6400));
}
template <class D> void support(const OperatorDesc& d, uint32_t level, std::vector<std::string>& why) {
    mode_support(get<D>(d).PaddingMode, level, why);
}

// ---- Coverage ---------------------------------------------------------------------------------

template <class D> void detect(const Case& c, std::vector<std::string>& f) {
    const D& d = get<D>(c.op.Desc);
    if (d.PaddingMode < kPaddingModeNames.Names.size()) {
        std::string m(kPaddingModeNames.Names[d.PaddingMode]);
        for (char& ch : m) ch = char(std::tolower(static_cast<unsigned char>(ch)));
        f.push_back("mode-" + m);
    }
    bool beyond = false;
    for (size_t i = 0; i < d.StartPadding.size() && i < d.EndPadding.size() && i < d.InputTensor.Sizes.size(); ++i)
        beyond = beyond || d.StartPadding[i] >= d.InputTensor.Sizes[i] || d.EndPadding[i] >= d.InputTensor.Sizes[i];
    if (beyond && d.PaddingMode != DML_PADDING_MODE_CONSTANT && d.PaddingMode != DML_PADDING_MODE_EDGE)
        f.push_back("beyond-size");
}

// ---- gen's derived sizes ------------------------------------------------------------------------

// OutputTensor: InputTensor's sizes plus StartPadding and EndPadding.
bool padded_sizes(const SizeRequest& q, std::vector<uint64_t>& out, std::string& path, std::string& error) {
    if (q.tensor != "OutputTensor") return true;
    for (const char* field : {"StartPadding", "EndPadding"}) {
        auto v = json_uints(q.desc, field, q.base_sizes.size(), 0, error);
        if (!v) {
            path = std::string("/desc/") + field;
            return false;
        }
        for (size_t i = 0; i < out.size(); ++i) out[i] += (*v)[i];
    }
    return true;
}

const std::vector<std::string_view> kFeatures = {"mode-constant",  "mode-edge", "mode-reflection",
                                                 "mode-symmetric", "mode-wrap", "beyond-size"};

template <class D> OperatorRecord padding_record(OperatorInfo info) {
    auto r = operator_record<D, validate, evaluate>(std::move(info));
    r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::Bits}};
    r.explain = explain_padding;
    r.features = kFeatures;
    r.detect = detect<D>;
    r.sizes = padded_sizes;
    r.support_rules = support<D>;
    r.fast = fast_as<D, fast::data_movement_fast>;
    return r;
}

OperatorRecord padding() {
    return padding_record<PADDING>({
        .IntroducedIn = 0x1000,
        .Support = {{0x1000, {}, 4, 4, kF32F16},
                    {0x2100, {}, 4, 4, kEightTypes},
                    {0x3000, {}, 1, 8, kEightTypes},
                    {0x5000, {}, 1, 8, kElevenTypes}},
        .Policies = {kPaddingBeyondSize, kPaddingReflectSizeOne, kPaddingValueConversion, kSubnormals},
    });
}

OperatorRecord padding1() {
    return padding_record<PADDING1>({
        .IntroducedIn = 0x5000,
        .Support = {{0x5000, {}, 1, 8, kElevenTypes}},
        .Policies = {kPaddingBeyondSize, kPaddingReflectSizeOne, kFloat16ScalarUnion, kSubnormals},
    });
}

}  // namespace rec_padding

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& padding_family() {
    using namespace reference::rec_padding;
    static const FamilyRecord f{"padding", {padding(), padding1()}};
    return f;
}
}  // namespace dmlref::kit
