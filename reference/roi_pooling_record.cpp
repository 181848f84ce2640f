// The ROI_POOLING record (reference/kit/family.hpp): the facts of DML_ROI_POOLING_OPERATOR_DESC
// from its page (DML_FEATURE_LEVEL_1_0; the page has no tensor support table and allows no
// in-place execution), the policies its goldens record, coverage features and gen's derived
// sizes. Every output element is an input element or +0, copied: Bits.
#include "roi_pooling.hpp"

#include "kit/policies.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

namespace dmlref::reference {

namespace rec_roi_pooling {

using namespace kit;
using ROI = DML_ROI_POOLING_OPERATOR_DESC;

// The policies of docs/golden.md, "ROI pooling"; the NaN and tie rules are MAX_POOLING's.
constexpr Policy kRoiCoordinateRounding{"RoiCoordinateRounding", "HalfAwayFromZero"};
constexpr Policy kRoiBinBounds{"RoiBinBounds", "ExactRational"};
constexpr Policy kRoiEmptyBin{"RoiEmptyBin", "Zero"};
constexpr Policy kArgmaxTies{"ArgmaxTies", "LowestLogicalIndex"};
constexpr Policy kArgmaxNaN{"ArgmaxNaN", "NaNLosesToAnyNumber"};

// Regions partly or wholly outside the image (empty bins), a coordinate on a rounding tie, a
// SpatialScale other than 1, bins that overlap (a region smaller than PooledSize).
void detect(const Case& c, std::vector<std::string>& f) {
    const ROI& d = get<ROI>(c.op.Desc);
    if (d.SpatialScale != 1.0f) f.push_back("spatial-scale");
    const auto it = c.inputs.find("ROITensor");
    if (it == c.inputs.end() || d.InputTensor.Sizes.size() != 4 || d.PooledSize.Width == 0 || d.PooledSize.Height == 0)
        return;
    if (it->second.size() < buffer_size(d.ROITensor)) return;
    const std::vector<double> v = roi_values(d.ROITensor, it->second);
    bool empty = false, tie = false, overlap = false;
    for (size_t k = 0; k + 5 <= v.size(); k += 5) {
        for (size_t j = 1; j < 5; ++j) {
            const double x = v[k + j] * double(d.SpatialScale);
            tie = tie || (std::isfinite(x) && x - std::floor(x) == 0.5);
        }
        if (!(v[k] >= 0 && v[k] < double(d.InputTensor.Sizes[0]))) continue;
        for (uint32_t ph = 0; ph < d.PooledSize.Height; ++ph)
            for (uint32_t pw = 0; pw < d.PooledSize.Width; ++pw) {
                const RoiBin b = roi_bin(d, &v[k], ph, pw);
                empty = empty || b.h0 >= b.h1 || b.w0 >= b.w1;
                if (ph + 1 < d.PooledSize.Height) overlap = overlap || roi_bin(d, &v[k], ph + 1, pw).h0 < b.h1;
            }
    }
    if (empty) f.push_back("empty-bin");
    if (tie) f.push_back("rounding-tie");
    if (overlap) f.push_back("overlapping-bins");
}

// OutputTensor: {num_rois, C, PooledSize.Height, PooledSize.Width}.
bool pooled_sizes(const SizeRequest& q, std::vector<uint64_t>& out, std::string& path, std::string& error) {
    if (q.tensor != "OutputTensor") return true;
    const auto p = q.desc.find("PooledSize");
    const auto r = q.desc.find("ROITensor");
    if (out.size() != 4 || p == q.desc.end() || !p->is_object() || !(*p)["Width"].is_number_unsigned() ||
        !(*p)["Height"].is_number_unsigned() || r == q.desc.end() || !r->is_object() || !(*r)["Sizes"].is_array() ||
        (*r)["Sizes"].size() < 2 || !(*r)["Sizes"][(*r)["Sizes"].size() - 2].is_number_unsigned()) {
        path = "/desc/PooledSize";
        error = "PooledSize, ROITensor's Sizes and a 4-D InputTensor are needed for OutputTensor's \"auto\" sizes";
        return false;
    }
    out[0] = (*r)["Sizes"][(*r)["Sizes"].size() - 2].get<uint64_t>();
    out[2] = (*p)["Height"].get<uint64_t>();
    out[3] = (*p)["Width"].get<uint64_t>();
    return true;
}

// A bin reads at most the whole image plane.
uint64_t plane(const OperatorDesc& od) {
    const ROI& d = get<ROI>(od);
    return d.InputTensor.Sizes.size() == 4 ? uint64_t(d.InputTensor.Sizes[2]) * d.InputTensor.Sizes[3] : 1;
}

OperatorRecord roi_pooling() {
    // DML_FEATURE_LEVEL_1_0; the page lists no tensor support table: 4-D FLOAT32 and FLOAT16, as
    // ROI_ALIGN's first rows, are recorded.
    auto r = operator_record<ROI, validate, evaluate>({
        .IntroducedIn = 0x1000,
        .Support = {{0x1000, {"InputTensor", "OutputTensor"}, 4, 4, kF32F16}, {0x1000, {"ROITensor"}, 2, 4, kF32F16}},
        .Policies = {kRoiCoordinateRounding, kRoiBinBounds, kRoiEmptyBin, kArgmaxTies, kArgmaxNaN, kSubnormals},
    });
    r.validate_values = validate_values_as<ROI, validate_values>;
    r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::Bits}};
    r.explain = explain_roi_pooling;
    r.features = {"spatial-scale", "empty-bin", "rounding-tie", "overlapping-bins"};
    r.detect = detect;
    r.work_factor = plane;
    r.MinRank = 4;
    r.MaxRank = 4;
    r.sizes = pooled_sizes;
    return r;
}

}  // namespace rec_roi_pooling

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& roi_pooling_family() {
    using namespace reference::rec_roi_pooling;
    static const FamilyRecord f{"roi_pooling", {roi_pooling()}};
    return f;
}
}  // namespace dmlref::kit
