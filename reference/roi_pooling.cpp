// DML_OPERATOR_ROI_POOLING.
//
// Spec: DML_ROI_POOLING_OPERATOR_DESC (DirectML API reference); rules in docs/rules.md
// (roi-pooling.*); docs/golden.md, "ROI pooling". The page gives the tensors and fields only:
// InputTensor [N, C, H, W]; ROITensor "a 2-D tensor of shape (num_rois, 5) given as [[batch_id, x1,
// y1, x2, y2], ...]" (dmlref also takes it with leading dimensions of 1, {1, 1, num_rois, 5});
// OutputTensor "(num_rois, channels, pooled_size[0], pooled_size[1])", PooledSize "(height, width)":
// {num_rois, C, PooledSize.Height, PooledSize.Width}; SpatialScale "multiplicative spatial scale
// factor, used to translate the ROI coordinates from their input scale to the scale used when
// pooling".
//
// The pooling is ONNX's MaxRoiPool (the peer, and Caffe's ROI pooling it comes from), the page being
// silent on the bins:
//   sw = round(x1 * SpatialScale), sh = round(y1 * s), ew = round(x2 * s), eh = round(y2 * s)
//   roi_h = max(eh - sh + 1, 1), roi_w = max(ew - sw + 1, 1)
//   bin (ph, pw): rows [sh + floor(ph * roi_h / PH), sh + ceil((ph + 1) * roi_h / PH)) and columns
//   likewise, each end clamped to [0, H] (or [0, W])
//   Output[r, c, ph, pw] = max of InputTensor[batch_id, c, rows, columns], 0 for an empty bin
//
// Decisions (docs/golden.md, "ROI pooling"):
//   - RoiCoordinateRounding=HalfAwayFromZero: x * SpatialScale is exact in float64 (a float32 or
//     float16 value times a float32), then rounded half away from zero (C's round, Caffe and ONNX
//     Runtime's kernels); ONNX's Python reference rounds half to even.
//   - RoiBinBounds=ExactRational: floor(ph * roi_h / PH) and ceil((ph + 1) * roi_h / PH) in
//     integers; Caffe and ONNX compute roi_h / PH in float32 first.
//   - RoiEmptyBin=Zero: a bin with no element inside the image (a region beyond the image's edge)
//     is 0 (+0), as ONNX and Caffe.
//   - ArgmaxNaN=NaNLosesToAnyNumber, ArgmaxTies=LowestLogicalIndex: MAX_POOLING's (a NaN is taken
//     only when the bin holds nothing else, then the first; of equal values, +0 and -0 included,
//     the first in row-major order), and MAX_POOLING's alternative ArgmaxNaN=NaNWins is evaluated.
//   - Values are copied as bits (Subnormals=Preserve).
//
// Rules (each with its id): InputTensor and OutputTensor have 4 dimensions (.dimension-count);
// InputTensor, ROITensor and OutputTensor the same DataType (.same-data-type); ROITensor is
// {[1, ...], num_rois, 5}, 2 to 4 dimensions (.roi-sizes); PooledSize's members at least 1
// (.pooled-size); OutputTensor {num_rois, C, Height, Width} (.output-sizes); SpatialScale finite
// and above 0 (.spatial-scale). On the values: batch_id an integer in [0, N) (.batch-index), the
// coordinates finite and, scaled, within +-2^31 (.roi-coordinate).
#include "roi_pooling.hpp"

#include "dmlref/bits.hpp"
#include "dmlref/readings.hpp"
#include "dmlref/values.hpp"

#include <cmath>

namespace dmlref::reference {

namespace {

constexpr std::string_view kRoiPooling = "roi-pooling";

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }

}  // namespace

std::vector<double> roi_values(const TensorDesc& t, std::span<const std::byte> buffer) {
    const std::vector<std::byte> logical = gather_logical(t, buffer);
    const size_t w = element_size(t.DataType);
    std::vector<double> v(logical.size() / w);
    for (size_t i = 0; i < v.size(); ++i)
        v[i] = element_value(t.DataType, load_bits(t.DataType, logical.data() + i * w));
    return v;
}

RoiBin roi_bin(const DML_ROI_POOLING_OPERATOR_DESC& d, const double roi[5], uint32_t ph, uint32_t pw) {
    const double s = double(d.SpatialScale);
    auto scaled = [&](double x) { return int64_t(std::round(x * s)); };  // RoiCoordinateRounding=HalfAwayFromZero
    const int64_t sw = scaled(roi[1]), sh = scaled(roi[2]), ew = scaled(roi[3]), eh = scaled(roi[4]);
    const int64_t rh = std::max<int64_t>(eh - sh + 1, 1), rw = std::max<int64_t>(ew - sw + 1, 1);
    const int64_t PH = d.PooledSize.Height, PW = d.PooledSize.Width;
    const int64_t H = d.InputTensor.Sizes[2], W = d.InputTensor.Sizes[3];
    auto clamp = [](int64_t v, int64_t hi) { return std::min(std::max<int64_t>(v, 0), hi); };
    RoiBin b;
    b.batch = uint64_t(roi[0]);
    b.h0 = clamp(sh + floor_div(int64_t(ph) * rh, PH), H);  // RoiBinBounds=ExactRational
    b.h1 = clamp(sh + ceil_div(int64_t(ph + 1) * rh, PH), H);
    b.w0 = clamp(sw + floor_div(int64_t(pw) * rw, PW), W);
    b.w1 = clamp(sw + ceil_div(int64_t(pw + 1) * rw, PW), W);
    return b;
}

void validate(const DML_ROI_POOLING_OPERATOR_DESC& d, Diagnostics& diags) {
    require_same_data_type(
        diags, {{"InputTensor", d.InputTensor}, {"ROITensor", d.ROITensor}, {"OutputTensor", d.OutputTensor}},
        rule(kRoiPooling, "same-data-type"));
    bool shapes = true;
    for (const Named t : {Named{"InputTensor", d.InputTensor}, Named{"OutputTensor", d.OutputTensor}})
        if (t.desc.Sizes.size() != 4) {
            diags.error(desc_path(t.name) + "/Sizes", rule(kRoiPooling, "dimension-count"),
                        std::string(t.name) + " has " + std::to_string(t.desc.Sizes.size()) +
                            " dimensions; it must have 4 ({N, C, H, W})");
            shapes = false;
        }
    const auto& r = d.ROITensor.Sizes;
    bool roi_ok = r.size() >= 2 && r.size() <= 4 && r.back() == 5;
    for (size_t i = 0; roi_ok && i + 2 < r.size(); ++i) roi_ok = r[i] == 1;
    if (!roi_ok) {
        diags.error(
            desc_path("ROITensor") + "/Sizes", rule(kRoiPooling, "roi-sizes"),
            "ROITensor's Sizes must be {num_rois, 5} (rows [batch_id, x1, y1, x2, y2]), with any leading dimensions 1 "
            "(2 to 4 dimensions)");
        shapes = false;
    }
    for (auto [member, v] : {std::pair{"Width", d.PooledSize.Width}, std::pair{"Height", d.PooledSize.Height}})
        if (v == 0) {
            diags.error(
                desc_path("PooledSize") + "/" + member, rule(kRoiPooling, "pooled-size"),
                std::string("PooledSize.") + member + " is 0; the pooled output has at least one row and column");
            shapes = false;
        }
    if (!(std::isfinite(d.SpatialScale) && d.SpatialScale > 0))
        diags.error(desc_path("SpatialScale"), rule(kRoiPooling, "spatial-scale"),
                    "SpatialScale is " + format_exact_value(DataType::FLOAT32, to_bits(d.SpatialScale)) +
                        "; a scale factor must be finite and greater than 0 (dmlref's decision)");
    if (!shapes) return;
    const std::array<uint64_t, 4> want = {r[r.size() - 2], d.InputTensor.Sizes[1], d.PooledSize.Height,
                                          d.PooledSize.Width};
    static const char* what[] = {" (num_rois, ROITensor's rows)", " (InputTensor's channels)", " (PooledSize.Height)",
                                 " (PooledSize.Width)"};
    for (size_t i = 0; i < 4; ++i)
        if (d.OutputTensor.Sizes[i] != want[i])
            diags.error(desc_path("OutputTensor") + "/Sizes/" + std::to_string(i), rule(kRoiPooling, "output-sizes"),
                        "OutputTensor.Sizes[" + std::to_string(i) + "] is " + std::to_string(d.OutputTensor.Sizes[i]) +
                            "; it must be " + std::to_string(want[i]) + what[i]);
}

void validate_values(const DML_ROI_POOLING_OPERATOR_DESC& d, const InputBuffers& in, uint64_t, Diagnostics& diags) {
    const auto it = in.find("ROITensor");
    if (it == in.end()) return;
    Diagnostics desc;
    validate(d, desc);
    if (desc.has_errors() || it->second.size() < buffer_size(d.ROITensor)) return;
    const std::vector<double> v = roi_values(d.ROITensor, it->second);
    int reported = 0;
    for (size_t k = 0; k + 5 <= v.size() && reported < 8; k += 5) {
        const double b = v[k];
        if (!(b >= 0 && b < double(d.InputTensor.Sizes[0]) && b == std::floor(b))) {
            diags.error(pointer_append("/inputs/ROITensor", k), rule(kRoiPooling, "batch-index"),
                        "region " + std::to_string(k / 5) + "'s batch_id is " +
                            format_exact_value(DataType::FLOAT64, to_bits(b)) + "; it must be an integer from 0 to " +
                            std::to_string(d.InputTensor.Sizes[0] - 1) + " (InputTensor's batch)");
            ++reported;
        }
        for (size_t j = 1; j < 5; ++j) {
            const double x = v[k + j] * double(d.SpatialScale);
            if (!(std::fabs(x) <= 2147483648.0)) {
                diags.error(pointer_append("/inputs/ROITensor", k + j), rule(kRoiPooling, "roi-coordinate"),
                            "region " + std::to_string(k / 5) + "'s coordinate " + std::to_string(j) +
                                " times SpatialScale is " + format_exact_value(DataType::FLOAT64, to_bits(x)) +
                                "; it must be finite and within +-2^31");
                ++reported;
            }
        }
    }
}

void evaluate(const DML_ROI_POOLING_OPERATOR_DESC& d, const Bindings& b) {
    const std::vector<double> roi = roi_values(d.ROITensor, b.at("ROITensor"));
    const TensorView X(d.InputTensor, b.at("InputTensor"));
    const DataType t = d.InputTensor.DataType;
    const uint64_t C = d.InputTensor.Sizes[1], PH = d.PooledSize.Height, PW = d.PooledSize.Width;
    const bool nan_wins = in_force<"ArgmaxNaN", "NaNWins">();
    dispatch(t, [&]<class T>() {
        using U = bits_t<T>;
        std::vector<U> out(element_count(d.OutputTensor));
        uint64_t o = 0;
        for (uint64_t r = 0; r < roi.size() / 5; ++r)
            for (uint64_t c = 0; c < C; ++c)
                for (uint32_t ph = 0; ph < PH; ++ph)
                    for (uint32_t pw = 0; pw < PW; ++pw, ++o) {
                        const RoiBin bin = roi_bin(d, &roi[r * 5], ph, pw);
                        bool have = false, best_nan = false;
                        T best{};
                        for (int64_t h = bin.h0; h < bin.h1; ++h)
                            for (int64_t w = bin.w0; w < bin.w1; ++w) {
                                const T x = X.data<T>()[int64_t(bin.batch) * X.strides[0] + int64_t(c) * X.strides[1] +
                                                        h * X.strides[2] + w * X.strides[3]];
                                const bool x_nan = is_nan(x);
                                // ArgmaxNaN=NaNLosesToAnyNumber: a number replaces a NaN best; a NaN
                                // only starts the bin. ArgmaxTies=LowestLogicalIndex: strictly greater.
                                const bool take = !have || (nan_wins ? (x_nan || (!best_nan && x > best))
                                                                     : (!x_nan && (best_nan || x > best)));
                                if (take) {
                                    best = x;
                                    best_nan = x_nan;
                                    have = true;
                                }
                            }
                        out[o] = have ? U(to_bits(best)) : U(0);  // RoiEmptyBin=Zero
                    }
        write_logical<U>(d.OutputTensor, b.at("OutputTensor"), [&](uint64_t i) { return out[i]; });
    });
}

// ---- explain (dmlref/explain.hpp, docs/explain.md) -------------------------------------------

// The region, its scaled bounds, the bin and the element chosen.
bool explain_roi_pooling(const Case& c, std::string_view, uint64_t flat, FamilyExplanation& out) {
    const auto* d = get_if<DML_ROI_POOLING_OPERATOR_DESC>(&c.op.Desc);
    if (!d) return false;
    const auto it = c.inputs.find("ROITensor");
    if (it == c.inputs.end()) return false;
    const std::vector<double> roi = roi_values(d->ROITensor, it->second);
    const uint64_t PW = d->PooledSize.Width, PH = d->PooledSize.Height, C = d->InputTensor.Sizes[1];
    const uint32_t pw = uint32_t(flat % PW), ph = uint32_t((flat / PW) % PH);
    const uint64_t ch = (flat / (PW * PH)) % C, r = flat / (PW * PH * C);
    if ((r + 1) * 5 > roi.size()) return false;
    const RoiBin bin = roi_bin(*d, &roi[r * 5], ph, pw);
    std::string region = "[";
    for (int k = 0; k < 5; ++k)
        region += (k ? ", " : "") + format_exact_value(DataType::FLOAT64, to_bits(roi[r * 5 + k]));
    out.facts.emplace_back("region", "ROITensor row " + std::to_string(r) + " " + region + "], SpatialScale " +
                                         format_exact_value(DataType::FLOAT32, to_bits(d->SpatialScale)));
    out.facts.emplace_back("bin", "(" + std::to_string(ph) + ", " + std::to_string(pw) + "): rows [" +
                                      std::to_string(bin.h0) + ", " + std::to_string(bin.h1) + "), columns [" +
                                      std::to_string(bin.w0) + ", " + std::to_string(bin.w1) + ") of batch " +
                                      std::to_string(bin.batch) + ", channel " + std::to_string(ch) +
                                      (bin.h0 >= bin.h1 || bin.w0 >= bin.w1 ? ": empty, 0" : ""));
    for (int64_t h = bin.h0; h < bin.h1; ++h)
        for (int64_t w = bin.w0; w < bin.w1; ++w)
            out.inputs.push_back(input_element(c, "InputTensor", {bin.batch, ch, uint64_t(h), uint64_t(w)}, "window"));
    out.policies = {"RoiCoordinateRounding", "RoiBinBounds", "RoiEmptyBin", "ArgmaxNaN", "ArgmaxTies"};
    return true;
}

}  // namespace dmlref::reference
