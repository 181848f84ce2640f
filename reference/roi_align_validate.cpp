// ROI_ALIGN, ROI_ALIGN1 and ROI_ALIGN_GRAD: the desc rules and the rules on input values (batch
// indices, regions, the number of samples), each with its id (docs/rules.md, "ROI align").
#include "roi_align.hpp"
#include "dmlref/checked.hpp"
#include "roi_align_internal.hpp"

#include <cmath>

namespace dmlref::reference {

namespace roi {
namespace {

std::string rule(const Params& p, std::string_view id) { return std::string(p.op) + "." + std::string(id); }

struct Field {
    std::string_view name;
    const TensorDesc* desc;
};

void validate_roi_align(const Params& p, Diagnostics& diags) {
    // The value tensors: FLOAT32 or FLOAT16 (DirectML's tables), all of one DataType.
    std::vector<Field> values;
    if (p.input) values.push_back({"InputTensor", p.input});
    values.push_back({p.pooled_name, &p.pooled});
    values.push_back({"ROITensor", &p.roi});
    if (p.dx) values.push_back({"OutputGradientTensor", p.dx});
    if (p.droi) values.push_back({"OutputROIGradientTensor", p.droi});
    const DataType type = values.front().desc->DataType;
    if (type != DataType::FLOAT32 && type != DataType::FLOAT16)
        diags.error(pointer_append(desc_path(values.front().name), "DataType"), rule(p, "data-type"),
                    std::string(values.front().name) + " is " + std::string(name(type)) +
                        "; ROI align reads FLOAT32 or FLOAT16 (DirectML's tables; docs/golden.md, ROI align)");
    for (const auto& f : values)
        if (f.desc->DataType != type)
            diags.error(pointer_append(desc_path(f.name), "DataType"), rule(p, "same-data-type"),
                        std::string(f.name) + " is " + std::string(name(f.desc->DataType)) + " but " +
                            std::string(values.front().name) + " is " + std::string(name(type)) +
                            "; the value tensors and ROITensor must have the same DataType");
    if (p.indices.DataType != DataType::UINT32 && p.indices.DataType != DataType::UINT64)
        diags.error(pointer_append(desc_path("BatchIndicesTensor"), "DataType"), rule(p, "batch-indices-data-type"),
                    "BatchIndicesTensor is " + std::string(name(p.indices.DataType)) + "; it must be UINT32 or UINT64");

    if (p.reduction != DML_REDUCE_FUNCTION_AVERAGE && p.reduction != DML_REDUCE_FUNCTION_MAX)
        diags.error("/desc/ReductionFunction", rule(p, "reduction-function"),
                    "ReductionFunction is " + std::to_string(p.reduction) + "; ROI align takes AVERAGE (2) or MAX (7)");
    if (p.mode > DML_INTERPOLATION_MODE_LINEAR)
        diags.error(
            "/desc/InterpolationMode", rule(p, "interpolation-mode"),
            "InterpolationMode is " + std::to_string(p.mode) + "; it must be NEAREST_NEIGHBOR (0) or LINEAR (1)");
    if (p.min_samples < 1 || p.min_samples > p.max_samples)
        diags.error("/desc/MinimumSamplesPerOutput", rule(p, "samples"),
                    "MinimumSamplesPerOutput is " + std::to_string(p.min_samples) + " and MaximumSamplesPerOutput " +
                        std::to_string(p.max_samples) +
                        "; they need 1 <= Minimum <= Maximum (docs/golden.md, RoiAlignSampleCount)");
    if (p.corners > 1)
        diags.error("/desc/AlignRegionsToCorners", rule(p, "align-regions-to-corners"),
                    "AlignRegionsToCorners is " + std::to_string(p.corners) + "; a BOOL must be 0 (FALSE) or 1 (TRUE)");
    for (auto [field, v] : {std::pair{"SpatialScaleX", p.scale_x}, std::pair{"SpatialScaleY", p.scale_y},
                            std::pair{"InputPixelOffset", p.ipo}, std::pair{"OutputPixelOffset", p.opo}})
        if (!std::isfinite(v))
            diags.error(desc_path(field), rule(p, "parameter-finite"),
                        std::string(field) +
                            " is not finite; SpatialScaleX/Y and the pixel offsets must be finite "
                            "(dmlref's decision: the pages say nothing)");
    if (p.grad) {
        if (!p.dx && !p.droi)
            diags.error("/desc", rule(p, "output-present"),
                        "neither OutputGradientTensor nor OutputROIGradientTensor is given; at least one must be");
        if (!p.input && (p.droi || p.reduction == DML_REDUCE_FUNCTION_MAX))
            diags.error("/desc", rule(p, "input-present"),
                        "InputTensor is needed when OutputROIGradientTensor is given or ReductionFunction is MAX");
        if (!p.dx && !p.input) return;
    }

    // Shapes: the image and the pooled tensor 4-D (ROI align has no other rank).
    bool ranks = true;
    std::vector<Field> four = {{p.pooled_name, &p.pooled}};
    if (p.input) four.push_back({"InputTensor", p.input});
    if (p.dx) four.push_back({"OutputGradientTensor", p.dx});
    for (const auto& f : four)
        if (f.desc->DimensionCount() != 4) {
            diags.error(
                sizes_path(f.name), rule(p, "rank"),
                std::string(f.name) + " has " + std::to_string(f.desc->DimensionCount()) +
                    " dimensions; ROI align is 4-D: {Batch, Channel, Height, Width} (docs/golden.md, ROI align)");
            ranks = false;
        }
    const auto& rs = p.roi.Sizes;
    bool roi_ok = rs.size() >= 2 && rs.size() <= 4 && rs.back() == 4;
    for (size_t i = 0; roi_ok && i + 2 < rs.size(); ++i) roi_ok = rs[i] == 1;
    if (!roi_ok) {
        diags.error(sizes_path("ROITensor"), rule(p, "roi-shape"),
                    "ROITensor's Sizes are " + sizes_text(rs) +
                        "; they must be {NumROIs, 4}, {1, NumROIs, 4} or {1, 1, NumROIs, 4}");
        return;
    }
    const uint32_t regions = rs[rs.size() - 2];
    const auto& is = p.indices.Sizes;
    bool indices_ok = !is.empty() && is.size() <= 4 && is.back() == regions;
    for (size_t i = 0; indices_ok && i + 1 < is.size(); ++i) indices_ok = is[i] == 1;
    if (!indices_ok)
        diags.error(sizes_path("BatchIndicesTensor"), rule(p, "batch-indices-shape"),
                    "BatchIndicesTensor's Sizes are " + sizes_text(is) + "; with " + std::to_string(regions) +
                        " regions they must be {NumROIs}, {1, NumROIs}, {1, 1, NumROIs} or {1, 1, 1, NumROIs}");
    if (!ranks) return;
    const TensorDesc& img = image_desc(p);
    const std::string_view img_name = p.input ? "InputTensor" : "OutputGradientTensor";
    if (p.pooled.Sizes[0] != regions)
        diags.error(pointer_append(sizes_path(p.pooled_name), 0), rule(p, "output-sizes"),
                    std::string(p.pooled_name) + ".Sizes[0] is " + std::to_string(p.pooled.Sizes[0]) +
                        " but ROITensor holds " + std::to_string(regions) + " regions; it must be NumROIs");
    if (p.pooled.Sizes[1] != img.Sizes[1])
        diags.error(pointer_append(sizes_path(p.pooled_name), 1), rule(p, "output-sizes"),
                    std::string(p.pooled_name) + ".Sizes[1] is " + std::to_string(p.pooled.Sizes[1]) + " but " +
                        std::string(img_name) + " has " + std::to_string(img.Sizes[1]) +
                        " channels; they must be the same");
    if (p.input && p.dx && p.dx->Sizes != p.input->Sizes)
        diags.error(sizes_path("OutputGradientTensor"), rule(p, "output-gradient-sizes"),
                    "OutputGradientTensor's Sizes are " + sizes_text(p.dx->Sizes) + " but InputTensor's are " +
                        sizes_text(p.input->Sizes) + "; the gradient has the forward input's sizes");
    if (p.droi && p.droi->Sizes != p.roi.Sizes)
        diags.error(sizes_path("OutputROIGradientTensor"), rule(p, "roi-gradient-sizes"),
                    "OutputROIGradientTensor's Sizes are " + sizes_text(p.droi->Sizes) + " but ROITensor's are " +
                        sizes_text(p.roi.Sizes) + "; they must be the same");
}

// Rules on values: each batch index inside the batch, each ROI coordinate finite, and the samples
// the regions ask for within the work limit. The desc has validated.
void validate_values(const Params& p, const InputBuffers& inputs, uint64_t max_work, Diagnostics& diags) {
    auto roi = inputs.find("ROITensor");
    auto indices = inputs.find("BatchIndicesTensor");
    if (roi == inputs.end() || indices == inputs.end()) return;
    const std::span<const std::byte> roi_bytes(roi->second), index_bytes(indices->second);
    const uint64_t batches = image_desc(p).Sizes[0];
    uint64_t work = 0;
    for (uint64_t r = 0; r < region_count(p); ++r) {
        const uint64_t b = batch_index(p, index_bytes, r);
        if (b >= batches)
            diags.error(pointer_append("/inputs/BatchIndicesTensor", r), rule(p, "batch-index"),
                        "BatchIndicesTensor[" + std::to_string(r) + "] is " + std::to_string(b) +
                            " but the batch has " + std::to_string(batches) +
                            " images; DirectML leaves this undefined, dmlref refuses it");
        bool finite = true;
        for (int k = 0; k < 4; ++k)
            if (!std::isfinite(roi_value(p, roi_bytes, r, k))) {
                diags.error(pointer_append("/inputs/ROITensor", r * 4 + k), rule(p, "roi-finite"),
                            "ROITensor[" + std::to_string(r) + "][" + std::to_string(k) +
                                "] is not finite; a region's coordinates must be finite (dmlref's decision)");
                finite = false;
            }
        if (finite) work = saturating_add(work, sample_work(p, roi_bytes, r));
    }
    if (work > max_work)
        diags.error("/inputs/ROITensor", rule(p, "sample-work"),
                    "the regions ask for " + std::to_string(work) + " samples in all, over the limit of " +
                        std::to_string(max_work) +
                        " (MaximumSamplesPerOutput bounds the samples per output; raise the "
                        "limit with --max-work)");
}

}  // namespace
}  // namespace roi

void validate(const DML_ROI_ALIGN_OPERATOR_DESC& d, Diagnostics& diags) {
    roi::validate_roi_align(roi::params(d), diags);
}
void validate(const DML_ROI_ALIGN1_OPERATOR_DESC& d, Diagnostics& diags) {
    roi::validate_roi_align(roi::params(d), diags);
}
void validate(const DML_ROI_ALIGN_GRAD_OPERATOR_DESC& d, Diagnostics& diags) {
    roi::validate_roi_align(roi::params(d), diags);
}

void validate_values(const DML_ROI_ALIGN_OPERATOR_DESC& d, const InputBuffers& in, uint64_t max_work,
                     Diagnostics& diags) {
    roi::validate_values(roi::params(d), in, max_work, diags);
}
void validate_values(const DML_ROI_ALIGN1_OPERATOR_DESC& d, const InputBuffers& in, uint64_t max_work,
                     Diagnostics& diags) {
    roi::validate_values(roi::params(d), in, max_work, diags);
}
void validate_values(const DML_ROI_ALIGN_GRAD_OPERATOR_DESC& d, const InputBuffers& in, uint64_t max_work,
                     Diagnostics& diags) {
    roi::validate_values(roi::params(d), in, max_work, diags);
}

}  // namespace dmlref::reference
