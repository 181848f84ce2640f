// The UPSAMPLE_2D record (reference/kit/family.hpp): the facts of DML_UPSAMPLE_2D_OPERATOR_DESC
// from its page (DML_FEATURE_LEVEL_1_0; the page has no tensor support table and allows no
// in-place execution), and RESAMPLE's judging, policies and fast paths through the RESAMPLE desc
// the operator is (reference/upsample_2d.cpp): NEAREST_NEIGHBOR copies (Bits), LINEAR sums its
// taps (Summed, with each element's terms).
#include "upsample_2d.hpp"
#include "resample.hpp"
#include "resample_policies.hpp"

#include "kit/policies.hpp"

#include <nlohmann/json.hpp>

namespace dmlref::reference {

namespace rec_upsample_2d {

using namespace kit;
using UPSAMPLE = DML_UPSAMPLE_2D_OPERATOR_DESC;

// docs/golden.md, "Upsample 2-D": the operator is RESAMPLE with Scales {1, 1, Height, Width}, pixel
// centres included.
constexpr Policy kUpsampleCoordinate{"Upsample2dCoordinate", "ResampleHalfPixel"};

std::vector<Policy> policies() {
    std::vector<Policy> p = resample_policies::kForwardOldNearest;
    p.insert(p.begin(), kUpsampleCoordinate);
    return p;
}

// The terms of each element: RESAMPLE's (reference/resample_terms.cpp) for the RESAMPLE desc.
void terms(const Case& c, std::string_view, const ArithmeticProfile& p, TermSink& sink) {
    auto it = c.inputs.find("InputTensor");
    if (it == c.inputs.end()) throw std::invalid_argument("no InputTensor");
    resample_terms(Operator{OperatorType::RESAMPLE, as_resample(get<UPSAMPLE>(c.op.Desc))}, it->second, p.coordinates,
                   sink);
}
bool summed(const Operator& op, std::string_view) {
    return get<UPSAMPLE>(op.Desc).InterpolationMode == DML_INTERPOLATION_MODE_LINEAR;
}

// The mode, a scale of 1 (a copy along that axis), scales that differ, an odd scale (where the
// old nearest-neighbour readings differ: docs/golden.md, "Upsample 2-D").
void detect(const Case& c, std::vector<std::string>& f) {
    const UPSAMPLE& d = get<UPSAMPLE>(c.op.Desc);
    f.push_back(d.InterpolationMode == DML_INTERPOLATION_MODE_LINEAR ? "LINEAR" : "NEAREST_NEIGHBOR");
    if (d.ScaleSize.Width == 1 || d.ScaleSize.Height == 1) f.push_back("scale-one");
    if (d.ScaleSize.Width != d.ScaleSize.Height) f.push_back("unequal-scales");
    if (d.ScaleSize.Width % 2 == 1 || d.ScaleSize.Height % 2 == 1) f.push_back("odd-scale");
}

// Four taps per element at most (LINEAR over two dimensions).
uint64_t neighbours(const OperatorDesc&) { return 4; }

// OutputTensor: {N, C, H * ScaleSize.Height, W * ScaleSize.Width}.
bool scaled_sizes(const SizeRequest& q, std::vector<uint64_t>& out, std::string& path, std::string& error) {
    if (q.tensor != "OutputTensor") return true;
    const auto s = q.desc.find("ScaleSize");
    if (out.size() != 4 || s == q.desc.end() || !s->is_object() || !(*s)["Width"].is_number_unsigned() ||
        !(*s)["Height"].is_number_unsigned()) {
        path = "/desc/ScaleSize";
        error = "ScaleSize {\"Width\", \"Height\"} and a 4-D InputTensor are needed for OutputTensor's \"auto\" sizes";
        return false;
    }
    out[2] *= (*s)["Height"].get<uint64_t>();
    out[3] *= (*s)["Width"].get<uint64_t>();
    return true;
}

OperatorRecord upsample_2d() {
    // DML_FEATURE_LEVEL_1_0; the page lists no tensor support table: the 4-D FLOAT32 and FLOAT16
    // of RESAMPLE's first row, which generalises it, are recorded.
    auto r = operator_record<UPSAMPLE, validate, evaluate>({
        .IntroducedIn = 0x1000,
        .Support = {{0x1000, {}, 4, 4, kF32F16}},
        .Policies = policies(),
    });
    r.fast = fast_as<UPSAMPLE, evaluate_fast>;
    r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::OperatorStated, BoundaryRule::OperatorStated, nullptr,
                  terms, summed}};
    r.desc_tolerance = tolerance_as<UPSAMPLE, tolerance>;
    r.desc_boundary = boundary_as<UPSAMPLE, boundary>;
    r.explain = explain_upsample_2d;
    r.features = {"NEAREST_NEIGHBOR", "LINEAR", "scale-one", "unequal-scales", "odd-scale"};
    r.detect = detect;
    r.work_factor = neighbours;
    r.rounding_cost = rounding_cost<40>;  // as RESAMPLE's (measured; docs/rules.md, limit.work)
    r.MinRank = 4;
    r.MaxRank = 4;
    r.sizes = scaled_sizes;
    return r;
}

}  // namespace rec_upsample_2d

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& upsample_2d_family() {
    using namespace reference::rec_upsample_2d;
    static const FamilyRecord f{"upsample_2d", {upsample_2d()}};
    return f;
}
}  // namespace dmlref::kit
