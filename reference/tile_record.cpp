// The TILE record (reference/kit/family.hpp): the facts of DML_TILE_OPERATOR_DESC from its page,
// coverage, and gen's derived sizes.
#include "tile.hpp"
#include "fast/data_movement.hpp"

#include "kit/policies.hpp"

namespace dmlref::reference {

namespace rec_tile {

using namespace kit;
using TILE = DML_TILE_OPERATOR_DESC;

void detect(const Case& c, std::vector<std::string>& f) {
    const TILE& d = get<TILE>(c.op.Desc);
    size_t repeated = 0;
    for (uint32_t r : d.Repeats) repeated += r > 1;
    if (repeated == 0) f.push_back("no-repeat");
    if (repeated == 1) f.push_back("one-dimension-repeated");
    if (repeated >= 2) f.push_back("several-dimensions-repeated");
}

// OutputTensor: InputTensor's sizes times Repeats.
bool tiled_sizes(const SizeRequest& q, std::vector<uint64_t>& out, std::string& path, std::string& error) {
    if (q.tensor != "OutputTensor") return true;
    auto v = json_uints(q.desc, "Repeats", q.base_sizes.size(), 1, error);
    if (!v) {
        path = "/desc/Repeats";
        return false;
    }
    for (size_t i = 0; i < out.size(); ++i) out[i] *= (*v)[i];
    return true;
}

OperatorRecord tile() {
    // DML_FEATURE_LEVEL_1_0: 4-D FLOAT32 and FLOAT16; 2.1 the eight 8- to 32-bit types; 3.0 1 to 8
    // dimensions; 4.1 all eleven types (the feature level history: "ints 2.1, types+ 4.1").
    auto r = operator_record<TILE, validate, evaluate>({
        .IntroducedIn = 0x1000,
        .Support = {{0x1000, {}, 4, 4, kF32F16},
                    {0x2100, {}, 4, 4, kEightTypes},
                    {0x3000, {}, 1, 8, kEightTypes},
                    {0x4100, {}, 1, 8, kElevenTypes}},
        .Policies = {kSubnormals},
    });
    r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::Bits}};
    r.explain = explain_tile;
    r.fast = fast_as<TILE, fast::data_movement_fast>;
    r.features = {"no-repeat", "one-dimension-repeated", "several-dimensions-repeated"};
    r.detect = detect;
    r.sizes = tiled_sizes;
    return r;
}

}  // namespace rec_tile

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& tile_family() {
    using namespace reference::rec_tile;
    static const FamilyRecord f{"tile", {tile()}};
    return f;
}
}  // namespace dmlref::kit
