// The SPACE_TO_DEPTH, SPACE_TO_DEPTH1, DEPTH_TO_SPACE and DEPTH_TO_SPACE1 records
// (reference/kit/family.hpp): the facts of their pages, coverage, and gen's derived sizes.
#include "depth_space.hpp"
#include "fast/data_movement.hpp"

#include "kit/policies.hpp"

#include <nlohmann/json.hpp>

namespace dmlref::reference {

namespace rec_depth_space {

using namespace kit;
using S2D = DML_SPACE_TO_DEPTH_OPERATOR_DESC;
using S2D1 = DML_SPACE_TO_DEPTH1_OPERATOR_DESC;
using D2S = DML_DEPTH_TO_SPACE_OPERATOR_DESC;
using D2S1 = DML_DEPTH_TO_SPACE1_OPERATOR_DESC;

// docs/golden.md, "Depth and space".
constexpr Policy kSpaceToDepthSizes{"SpaceToDepthSizes", "InverseOfDepthToSpace"};

template <class D> void detect(const Case& c, std::vector<std::string>& f) {
    const D& d = get<D>(c.op.Desc);
    f.push_back(d.Order == DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH ? "order-crd" : "order-dcr");
    if (d.BlockSize > 2) f.push_back("block>2");
}

// OutputTensor from InputTensor and BlockSize (the formulas of reference/depth_space.cpp).
template <bool ToSpace>
bool derived_sizes(const SizeRequest& q, std::vector<uint64_t>& out, std::string& path, std::string& error) {
    if (q.tensor != "OutputTensor") return true;
    const auto& bs = q.desc.contains("BlockSize") ? q.desc["BlockSize"] : nlohmann::ordered_json();
    if (!bs.is_number_unsigned() || bs.get<uint64_t>() == 0 || out.size() != 4) {
        path = "/desc/BlockSize";
        error = "BlockSize (at least 1) and a 4-D InputTensor are needed to derive OutputTensor's sizes";
        return false;
    }
    const uint64_t b = bs.get<uint64_t>();
    if (ToSpace) out = {out[0], out[1] / (b * b), out[2] * b, out[3] * b};
    else out = {out[0], out[1] * b * b, out[2] / b, out[3] / b};
    return true;
}

const std::vector<SupportRow> kOldRows = {
    {0x1000, {}, 4, 4, kF32F16}, {0x2100, {}, 4, 4, kEightTypes}, {0x5000, {}, 4, 4, kElevenTypes}};
const std::vector<SupportRow> kNewRows = {{0x2100, {}, 4, 4, kEightTypes}, {0x5000, {}, 4, 4, kElevenTypes}};

template <class D, bool ToSpace>
OperatorRecord depth_space_record(uint32_t introduced, const std::vector<SupportRow>& rows) {
    std::vector<Policy> policies = {kSubnormals};
    if (!ToSpace) policies.push_back(kSpaceToDepthSizes);
    auto r = operator_record<D, validate, evaluate>(
        {.IntroducedIn = introduced, .Support = rows, .Policies = policies});
    r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::Bits}};
    r.explain = explain_depth_space;
    r.fast = fast_as<D, fast::data_movement_fast>;
    r.features = {"order-dcr", "block>2"};
    if (D::kType == OperatorType::SPACE_TO_DEPTH1 || D::kType == OperatorType::DEPTH_TO_SPACE1)
        r.features.push_back("order-crd");
    r.detect = detect<D>;
    r.MinRank = 4;
    r.MaxRank = 4;
    r.sizes = derived_sizes<ToSpace>;
    return r;
}

}  // namespace rec_depth_space

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& depth_space_family() {
    using namespace reference;
    using namespace reference::rec_depth_space;
    static const FamilyRecord f{
        "depth_space",
        {depth_space_record<S2D, false>(0x1000, kOldRows), depth_space_record<S2D1, false>(0x2100, kNewRows),
         depth_space_record<D2S, true>(0x1000, kOldRows), depth_space_record<D2S1, true>(0x2100, kNewRows)}};
    return f;
}
}  // namespace dmlref::kit
