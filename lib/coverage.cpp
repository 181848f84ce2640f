// What a set of cases covers (docs/coverage.md): counting cases by operator, type, rank and
// feature, the holes against DirectML's tables and dmlref's scope, and the text, JSON and HTML.
#include "dmlref/coverage.hpp"

#include "dmlref/numeric.hpp"
#include "dmlref/values.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <sstream>

namespace dmlref {

namespace {

const TensorDesc* base_tensor(const Operator& op) {
    const auto fields = tensor_fields(op);
    for (const char* n : {"InputTensor", "OutputGradientTensor"})
        for (const auto& f : fields) if (f.name == n) return f.desc;
    return fields.empty() ? nullptr : fields.front().desc;
}

bool packed(const TensorDesc& d) {
    if (d.Strides.empty()) return true;
    const auto p = packed_strides(d.Sizes);
    for (size_t i = 0; i < p.size() && i < d.Strides.size(); ++i)
        if (d.Sizes[i] > 1 && int64_t(d.Strides[i]) != p[i]) return false;
    return true;
}

template <class D> double bound_value(const D& d, bool max) {
    if constexpr (requires { d.MinMaxDataType; }) {
        const DML_SCALAR_UNION& u = max ? d.Max : d.Min;
        if (!is_valid(d.MinMaxDataType)) return 0;
        return dispatch(d.MinMaxDataType, [&]<class T>() -> double {
            return double(widen(from_bits<T>(bits_t<T>(u.template as<uint64_t>()))));
        });
    } else {
        return max ? double(d.Max) : double(d.Min);
    }
}

// Whether a pooling grad's forward operator (`Fwd`, of `type`: the grad's geometry, `input` as its
// InputTensor, the grad's InputGradientTensor as its OutputTensor and IncludePadding FALSE where
// it has one) has windows entirely in padding: those outputs are don't care, and send nothing.
template <class Fwd, class Grad> bool has_empty_windows(OperatorType type, const Grad& d, const TensorDesc& input) {
    Operator fwd = make_operator(type);
    auto& p = std::get<Fwd>(fwd.Desc);
    p.InputTensor = input;
    p.OutputTensor = d.InputGradientTensor;
    p.DimensionCount = d.DimensionCount;
    p.Strides = d.Strides; p.WindowSize = d.WindowSize; p.StartPadding = d.StartPadding; p.EndPadding = d.EndPadding;
    if constexpr (requires { p.Dilations; }) p.Dilations = d.Dilations;
    if constexpr (requires { p.IncludePadding; }) p.IncludePadding = 0;
    return !dont_care(fwd, "OutputTensor").empty();
}

}  // namespace

std::pair<uint32_t, uint32_t> scope_ranks(OperatorType t) {
    const auto f = applicable_features(t);
    const bool pooling = std::find(f.begin(), f.end(), "padding") != f.end();
    const bool lrn = std::find(f.begin(), f.end(), "cross-channel") != f.end();  // batch and channel: ranks 2 to 8
    const bool roi = std::find(f.begin(), f.end(), "several-samples") != f.end();  // ROI align: 4-D only
    if (roi) return {4, 4};
    return pooling ? std::pair<uint32_t, uint32_t>{3, 8} : lrn ? std::pair<uint32_t, uint32_t>{2, 8} : std::pair<uint32_t, uint32_t>{1, 8};
}

bool scope_type(OperatorType t, DataType type) {
    const bool roi = t == OperatorType::ROI_ALIGN || t == OperatorType::ROI_ALIGN1 || t == OperatorType::ROI_ALIGN_GRAD;
    return !roi || type == DataType::FLOAT32 || type == DataType::FLOAT16;
}

bool in_directml_tables(OperatorType t, DataType type, uint32_t rank) {
    for (const auto& row : info(t).Support) {
        const bool values = row.Tensors.empty() ||
                            std::find(row.Tensors.begin(), row.Tensors.end(), "InputTensor") != row.Tensors.end();
        if (!values || rank < row.MinDims || rank > row.MaxDims) continue;
        if (std::find(row.DataTypes.begin(), row.DataTypes.end(), type) != row.DataTypes.end()) return true;
    }
    return false;
}

std::vector<std::string> applicable_features(OperatorType t) {
    std::vector<std::string> f;
    if (!info(t).InPlace.empty()) f.push_back("in-place");
    f.insert(f.end(), {"strided-tensor", "broadcast", "nan-input", "inf-input"});
    const Operator op = make_operator(t);
    std::visit([&](const auto& d) {
        if constexpr (requires { d.WindowSize; }) {
            f.insert(f.end(), {"padding", "stride>1", "overlapping-windows", "ceil-size", "all-padding-window"});
            if constexpr (requires { d.Dilations; }) f.push_back("dilation>1");
            if constexpr (requires { d.OutputIndicesTensor; }) f.insert(f.end(), {"indices-uint32", "indices-uint64", "no-indices"});
            if constexpr (requires { d.IncludePadding; }) f.insert(f.end(), {"include-padding", "exclude-padding"});
        }
        if constexpr (requires { d.LocalSize; }) f.insert(f.end(), {"cross-channel", "within-channel", "even-local-size"});
        if constexpr (requires { d.InputWindowStrides; }) f.insert(f.end(), {"negative-stride", "stride>1", "offset", "short-output"});
        if constexpr (requires { d.Offsets; }) f.insert(f.end(), {"stride>1", "offset"});
        if constexpr (requires { d.InterpolationMode; d.Scales; }) f.insert(f.end(), {"NEAREST_NEIGHBOR", "LINEAR", "upsample", "downsample", "non-integer-scale"});
        if constexpr (requires { d.ROITensor; })  // ROI align
            f.insert(f.end(), {"NEAREST_NEIGHBOR", "LINEAR", "AVERAGE", "MAX", "several-samples"});
        if constexpr (requires { d.ROITensor; d.AlignRegionsToCorners; }) f.push_back("align-corners");
        if constexpr (requires { d.RoundingDirection; }) f.insert(f.end(), {"INCREASING", "DECREASING"});
        if constexpr (requires { d.ScaleBias; }) f.push_back("scale-bias");
        if constexpr (requires { d.Min; d.Max; }) f.push_back("min>max");
        if constexpr (requires { d.Epsilon; }) {  // batch normalization
            f.push_back("reduced-statistics");
            if constexpr (requires { d.FusedActivation; }) f.push_back("fused-activation");
            if constexpr (requires { d.FusedAddTensor; }) f.push_back("fused-add");
            if constexpr (requires { d.BiasTensor; d.MeanTensor; }) f.push_back("independent-broadcast");
        }
    }, op.Desc);
    f.push_back("error-case");
    return f;
}

std::vector<std::string> case_features(const Case& c) {
    std::vector<std::string> f;
    if (!c.in_place.empty()) f.push_back("in-place");
    bool strided = false, broadcast = false, nan = false, inf = false;
    for (const auto& t : tensor_fields(c.op)) {
        strided = strided || !packed(*t.desc);
        for (size_t i = 0; i < t.desc->Strides.size() && i < t.desc->Sizes.size(); ++i)
            broadcast = broadcast || (t.desc->Strides[i] == 0 && t.desc->Sizes[i] > 1);
        auto in = c.inputs.find(std::string(t.name));
        if (in == c.inputs.end() || !is_float(t.desc->DataType)) continue;
        const DataType dt = t.desc->DataType;
        const size_t w = element_size(dt);
        for (size_t i = 0; i + w <= in->second.size(); i += w) {
            const double v = dispatch(dt, [&]<class T>() -> double { return double(widen(from_bits<T>(bits_t<T>(load_bits(dt, in->second.data() + i))))); });
            nan = nan || std::isnan(v);
            inf = inf || std::isinf(v);
        }
    }
    if (strided) f.push_back("strided-tensor");
    if (broadcast) f.push_back("broadcast");
    if (nan) f.push_back("nan-input");
    if (inf) f.push_back("inf-input");
    std::visit([&](const auto& d) {
        if constexpr (requires { d.WindowSize; }) {
            bool pad = false, stride = false, overlap = false, ceil = false, dil = false;
            const size_t n = d.WindowSize.size();
            // The forward operator's input and output: a grad without InputTensor (AVERAGE_POOLING_GRAD)
            // has them as OutputGradientTensor and InputGradientTensor.
            const TensorDesc* fwd_in = nullptr;
            const TensorDesc* fwd_out = nullptr;
            if constexpr (requires { d.InputTensor; }) {
                fwd_in = &d.InputTensor;
                fwd_out = tensor_fields(c.op)[1].desc;  // OutputTensor, or a grad's InputGradientTensor
            } else {
                fwd_in = &d.OutputGradientTensor;
                fwd_out = &d.InputGradientTensor;
            }
            for (size_t i = 0; i < n; ++i) {
                pad = pad || d.StartPadding[i] || d.EndPadding[i];
                stride = stride || d.Strides[i] > 1;
                overlap = overlap || d.WindowSize[i] > d.Strides[i];
                uint32_t dl = 1;
                if constexpr (requires { d.Dilations; }) dl = d.Dilations[i];
                dil = dil || dl > 1;
                const uint64_t padded = uint64_t(fwd_in->Sizes[i + 2]) + d.StartPadding[i] + d.EndPadding[i];
                const uint64_t extent = 1 + uint64_t(d.WindowSize[i] - 1) * dl;
                if (padded >= extent && fwd_out->Sizes[i + 2] > (padded - extent) / d.Strides[i] + 1) ceil = true;
            }
            if (pad) f.push_back("padding");
            if (stride) f.push_back("stride>1");
            if (overlap) f.push_back("overlapping-windows");
            if (ceil) f.push_back("ceil-size");
            if (dil) f.push_back("dilation>1");
            bool empty = false;
            for (const auto& t : tensor_fields(c.op))
                if (t.role == TensorRole::Output) empty = empty || !dont_care(c.op, t.name).empty();
            if constexpr (requires { d.InputGradientTensor; d.InputTensor; }) {
                // MAX_POOLING_GRAD: the forward output's empty windows send nothing; the desc says which.
                empty = has_empty_windows<DML_MAX_POOLING2_OPERATOR_DESC>(OperatorType::MAX_POOLING2, d, d.InputTensor);
            }
            if constexpr (requires { d.InputGradientTensor; d.IncludePadding; }) {
                // AVERAGE_POOLING_GRAD: the forward operator with IncludePadding FALSE marks the empty windows.
                empty = has_empty_windows<DML_AVERAGE_POOLING_OPERATOR_DESC>(OperatorType::AVERAGE_POOLING, d, d.OutputGradientTensor);
            }
            if (empty) f.push_back("all-padding-window");
            if constexpr (requires { d.OutputIndicesTensor; }) {
                if (!d.OutputIndicesTensor) f.push_back("no-indices");
                else f.push_back(d.OutputIndicesTensor->DataType == DataType::UINT64 ? "indices-uint64" : "indices-uint32");
            }
            if constexpr (requires { d.IncludePadding; }) f.push_back(d.IncludePadding ? "include-padding" : "exclude-padding");
        }
        if constexpr (requires { d.Epsilon; }) {  // batch normalization
            const TensorDesc* stat = nullptr;  // a statistic over (or broadcast to) several elements
            if constexpr (requires { d.MeanTensor; }) stat = &d.MeanTensor;
            else stat = &d.ScaleTensor;
            if (element_count(*stat) < element_count(d.InputTensor)) f.push_back("reduced-statistics");
            if constexpr (requires { d.FusedActivation; }) if (d.FusedActivation) f.push_back("fused-activation");
            if constexpr (requires { d.FusedAddTensor; }) if (d.FusedAddTensor) f.push_back("fused-add");
            if constexpr (requires { d.BiasTensor; d.MeanTensor; })
                if (d.MeanTensor.Sizes != d.VarianceTensor.Sizes || d.MeanTensor.Sizes != d.ScaleTensor.Sizes ||
                    d.MeanTensor.Sizes != d.BiasTensor.Sizes)
                    f.push_back("independent-broadcast");
        }
        if constexpr (requires { d.LocalSize; }) {
            f.push_back(d.CrossChannel ? "cross-channel" : "within-channel");
            if (d.LocalSize % 2 == 0) f.push_back("even-local-size");
        }
        if constexpr (requires { d.InputWindowStrides; }) {
            bool neg = false, stride = false, off = false, shrt = false;
            const auto tf = tensor_fields(c.op);  // the forward output: SLICE1's OutputTensor, SLICE_GRAD's InputGradientTensor
            const TensorDesc& out = tf[0].name == "InputGradientTensor" ? *tf[0].desc : *tf[1].desc;
            for (size_t i = 0; i < d.InputWindowStrides.size(); ++i) {
                const int64_t s = d.InputWindowStrides[i];
                neg = neg || s < 0;
                stride = stride || std::llabs(s) > 1;
                off = off || d.InputWindowOffsets[i] > 0;
                if (s != 0 && i < out.Sizes.size()) shrt = shrt || out.Sizes[i] < 1 + (d.InputWindowSizes[i] - 1) / uint64_t(std::llabs(s));
            }
            if (neg) f.push_back("negative-stride");
            if (stride) f.push_back("stride>1");
            if (off) f.push_back("offset");
            if (shrt) f.push_back("short-output");
        }
        if constexpr (requires { d.Offsets; }) {
            bool stride = false, off = false;
            for (size_t i = 0; i < d.Strides.size(); ++i) { stride = stride || d.Strides[i] > 1; off = off || d.Offsets[i] > 0; }
            if (stride) f.push_back("stride>1");
            if (off) f.push_back("offset");
        }
        if constexpr (requires { d.ROITensor; }) {  // ROI align
            f.push_back(d.InterpolationMode == DML_INTERPOLATION_MODE_LINEAR ? "LINEAR" : "NEAREST_NEIGHBOR");
            f.push_back(d.ReductionFunction == DML_REDUCE_FUNCTION_MAX ? "MAX" : "AVERAGE");
            if (d.MaximumSamplesPerOutput > 1) f.push_back("several-samples");
            if constexpr (requires { d.AlignRegionsToCorners; }) if (d.AlignRegionsToCorners) f.push_back("align-corners");
        }
        if constexpr (requires { d.InterpolationMode; d.Scales; }) {
            f.push_back(d.InterpolationMode == DML_INTERPOLATION_MODE_LINEAR ? "LINEAR" : "NEAREST_NEIGHBOR");
            bool up = false, down = false, frac = false;
            for (float s : d.Scales) { up = up || s > 1; down = down || s < 1; frac = frac || s != std::floor(s); }
            if (up) f.push_back("upsample");
            if (down) f.push_back("downsample");
            if (frac) f.push_back("non-integer-scale");
        }
        if constexpr (requires { d.RoundingDirection; })
            f.push_back(d.RoundingDirection == DML_AXIS_DIRECTION_DECREASING ? "DECREASING" : "INCREASING");
        if constexpr (requires { d.ScaleBias; }) if (d.ScaleBias) f.push_back("scale-bias");
        if constexpr (requires { d.Min; d.Max; }) if (bound_value(d, false) > bound_value(d, true)) f.push_back("min>max");
    }, c.op.Desc);
    return f;
}

void Coverage::add(const Case& c) {
    ++cases;
    const TensorDesc* b = base_tensor(c.op);
    if (b) ++cells[c.op.Type][b->DataType][uint32_t(b->Sizes.size())];
    auto& f = features[c.op.Type];
    for (const auto& n : case_features(c)) ++f[n];
}

void Coverage::add_error_case(const std::string& rule, std::optional<OperatorType> op) {
    ++cases;
    ++error_rules[rule];
    if (op) ++features[*op]["error-case"];
}

Holes holes(const Coverage& c) {
    Holes h;
    for (const auto& i : all_operators()) {
        const auto [lo, hi] = scope_ranks(i.Type);
        auto it = c.cells.find(i.Type);
        for (DataType t : kAllDataTypes)
            for (uint32_t r = lo; r <= hi && scope_type(i.Type, t); ++r) {
                uint64_t n = 0;
                if (it != c.cells.end() && it->second.count(t) && it->second.at(t).count(r)) n = it->second.at(t).at(r);
                if (n) continue;
                ++h.scope;
                if (in_directml_tables(i.Type, t, r)) ++h.directml;
            }
        auto f = c.features.find(i.Type);
        for (const auto& n : applicable_features(i.Type))
            if (f == c.features.end() || !f->second.count(n)) ++h.features;
    }
    return h;
}

}  // namespace dmlref
