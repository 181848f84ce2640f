// DML_OPERATOR_UPSAMPLE_2D.
//
// Spec: DML_UPSAMPLE_2D_OPERATOR_DESC (DirectML API reference); rules in docs/rules.md
// (upsample-2d.*); docs/golden.md, "Upsample 2-D".
//
// The page: "upsamples the image contained in the input tensor. Each dimension value of the
// output tensor is output_dimension = floor(input_dimension * scale)", ScaleSize "the value to
// scale by, as a 2-D size", InterpolationMode NEAREST_NEIGHBOR (the default) or LINEAR. With
// integer scales the floor is exact: {N, C, H, W} -> {N, C, H * ScaleSize.Height, W *
// ScaleSize.Width}.
//
// UPSAMPLE_2D is RESAMPLE (DML_RESAMPLE_OPERATOR_DESC, the FL 2.0 operator that generalises it)
// with ScaleCount 4 and Scales {1, 1, ScaleSize.Height, ScaleSize.Width}: RESAMPLE's pixel
// centres (InputPixelOffsets 0.5, OutputPixelOffsets -0.5), its nearest-neighbour rule and its
// LINEAR interpolation with edges clamped. dmlref evaluates, judges and explains it through that
// RESAMPLE desc (reference/resample.cpp), so every resampling policy of docs/golden.md applies
// unchanged, and so do its alternative readings (OldNearestNeighbor=FloorXPlusHalf,
// ZeroWeightTaps=MultiplyAll). LINEAR 2x2 [1, 2, 3, 4] -> 4x4 is 1, 1.25, 1.75, 2, 1.5, ... (the
// half-pixel mapping with clamped edges; the case upsample_2d_linear_2x2_to_4x4).
//
// Rules (each with its id): both tensors have 4 dimensions (.dimension-count: a 2-D image of
// {N, C, H, W}), the same DataType (.same-data-type); ScaleSize's Width and Height are at least 1
// (.scale-size); OutputTensor's sizes are {N, C, H * Height, W * Width} (.output-sizes).
#include "upsample_2d.hpp"

#include "resample.hpp"

namespace dmlref::reference {

DML_RESAMPLE_OPERATOR_DESC as_resample(const DML_UPSAMPLE_2D_OPERATOR_DESC& d) {
    DML_RESAMPLE_OPERATOR_DESC r;
    r.InputTensor = d.InputTensor;
    r.OutputTensor = d.OutputTensor;
    r.InterpolationMode = d.InterpolationMode;
    r.ScaleCount = 4;
    r.Scales = {1.0f, 1.0f, float(d.ScaleSize.Height), float(d.ScaleSize.Width)};
    return r;
}

void validate(const DML_UPSAMPLE_2D_OPERATOR_DESC& d, Diagnostics& diags) {
    require_same_data_type(diags, {{"InputTensor", d.InputTensor}, {"OutputTensor", d.OutputTensor}},
                           "upsample-2d.same-data-type");
    bool shapes = true;
    for (const Named t : {Named{"InputTensor", d.InputTensor}, Named{"OutputTensor", d.OutputTensor}})
        if (t.desc.Sizes.size() != 4) {
            diags.error(desc_path(t.name) + "/Sizes", "upsample-2d.dimension-count",
                        std::string(t.name) + " has " + std::to_string(t.desc.Sizes.size()) +
                            " dimensions; UPSAMPLE_2D's tensors are 4-D images {N, C, H, W}");
            shapes = false;
        }
    for (auto [member, v] : {std::pair{"Width", d.ScaleSize.Width}, std::pair{"Height", d.ScaleSize.Height}})
        if (v == 0) {
            diags.error(desc_path("ScaleSize") + "/" + member, "upsample-2d.scale-size",
                        std::string("ScaleSize.") + member + " is 0; an upsampling scale is at least 1");
            shapes = false;
        }
    if (d.InterpolationMode > DML_INTERPOLATION_MODE_LINEAR)
        diags.error(desc_path("InterpolationMode"), "upsample-2d.interpolation-mode",
                    "InterpolationMode is " + std::to_string(d.InterpolationMode) +
                        "; it must be NEAREST_NEIGHBOR (0) or LINEAR (1)");
    if (!shapes) return;
    const auto& in = d.InputTensor.Sizes;
    const std::array<uint64_t, 4> want = {in[0], in[1], uint64_t(in[2]) * d.ScaleSize.Height,
                                          uint64_t(in[3]) * d.ScaleSize.Width};
    for (size_t i = 0; i < 4; ++i)
        if (d.OutputTensor.Sizes[i] != want[i])
            diags.error(desc_path("OutputTensor") + "/Sizes/" + std::to_string(i), "upsample-2d.output-sizes",
                        "OutputTensor.Sizes[" + std::to_string(i) + "] is " + std::to_string(d.OutputTensor.Sizes[i]) +
                            "; it must be " + std::to_string(want[i]) +
                            (i < 2    ? " (InputTensor's)"
                             : i == 2 ? " (InputTensor's height times ScaleSize.Height)"
                                      : " (InputTensor's width times ScaleSize.Width)"));
}

void evaluate(const DML_UPSAMPLE_2D_OPERATOR_DESC& d, const Bindings& b) { evaluate(as_resample(d), b); }
bool evaluate_fast(const DML_UPSAMPLE_2D_OPERATOR_DESC& d, const Bindings& b) {
    return evaluate_fast(as_resample(d), b);
}
std::optional<Tolerance> tolerance(const DML_UPSAMPLE_2D_OPERATOR_DESC& d, std::string_view output) {
    return tolerance(as_resample(d), output);
}
Boundary boundary(const DML_UPSAMPLE_2D_OPERATOR_DESC& d, std::string_view output) {
    return boundary(as_resample(d), output);
}

// explain: RESAMPLE's, for the RESAMPLE desc this is.
bool explain_upsample_2d(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out) {
    const auto* d = get_if<DML_UPSAMPLE_2D_OPERATOR_DESC>(&c.op.Desc);
    if (!d) return false;
    const Operator r{OperatorType::RESAMPLE, as_resample(*d)};  // its InputTensor is c's
    out.facts.emplace_back("as RESAMPLE", "ScaleCount 4, Scales {1, 1, " + std::to_string(d->ScaleSize.Height) + ", " +
                                              std::to_string(d->ScaleSize.Width) + "} (ScaleSize's Height and Width)");
    return explain_resample_as(c, r, output, flat, out);
}

}  // namespace dmlref::reference
