// The SLICE family's record (reference/kit/family.hpp): the facts of DML_SLICE_OPERATOR_DESC,
// SLICE1 and SLICE_GRAD from their pages, coverage, gen's derived sizes, and SLICE_GRAD's fast path.
#include "slice.hpp"

#include "kit/policies.hpp"

#include <cstdlib>

namespace dmlref::reference {

namespace rec_slice {

using namespace kit;
using SLICE = DML_SLICE_OPERATOR_DESC;
using SLICE1 = DML_SLICE1_OPERATOR_DESC;
using GRAD = DML_SLICE_GRAD_OPERATOR_DESC;

const std::vector<DT> kSliceTypes10 = {DT::FLOAT32, DT::FLOAT16, DT::INT32, DT::INT16, DT::UINT32, DT::UINT16};
constexpr Policy kSliceZeroStride{"SliceZeroStride", "Error"};

// ---- Coverage ---------------------------------------------------------------------------------

void detect_slice(const Case& c, std::vector<std::string>& f) {
    const SLICE& d = get<SLICE>(c.op.Desc);
    bool stride = false, off = false;
    for (size_t i = 0; i < d.Strides.size(); ++i) {
        stride = stride || d.Strides[i] > 1;
        off = off || d.Offsets[i] > 0;
    }
    if (stride) f.push_back("stride>1");
    if (off) f.push_back("offset");
}

// The window of SLICE1 and SLICE_GRAD; `out` is the forward output (SLICE1's OutputTensor,
// SLICE_GRAD's InputGradientTensor).
template <class D> void detect_window(const Case& c, std::vector<std::string>& f) {
    const D& d = get<D>(c.op.Desc);
    const TensorDesc* out;
    if constexpr (std::is_same_v<D, GRAD>) out = &d.InputGradientTensor;
    else out = &d.OutputTensor;
    bool neg = false, stride = false, off = false, shrt = false;
    for (size_t i = 0; i < d.InputWindowStrides.size(); ++i) {
        const int64_t s = d.InputWindowStrides[i];
        neg = neg || s < 0;
        stride = stride || std::llabs(s) > 1;
        off = off || d.InputWindowOffsets[i] > 0;
        if (s != 0 && i < out->Sizes.size())
            shrt = shrt || out->Sizes[i] < 1 + (d.InputWindowSizes[i] - 1) / uint64_t(std::llabs(s));
    }
    if (neg) f.push_back("negative-stride");
    if (stride) f.push_back("stride>1");
    if (off) f.push_back("offset");
    if (shrt) f.push_back("short-output");
}

// ---- gen's derived sizes ------------------------------------------------------------------------

// SLICE: the output is the desc's Sizes.
bool slice_sizes(const SizeRequest& q, std::vector<uint64_t>& out, std::string& path, std::string& error) {
    if (q.tensor != "OutputTensor") return true;
    auto v = json_uints(q.desc, "Sizes", q.base_sizes.size(), 1, error);
    if (!v) {
        path = "/desc/Sizes";
        return false;
    }
    out = *v;
    return true;
}

// SLICE1 and SLICE_GRAD: the forward output holds one element per window step; SLICE_GRAD's dX
// reaches to the end of the window.
bool window_sizes(const SizeRequest& q, std::vector<uint64_t>& out, std::string& path, std::string& error) {
    const size_t count = q.base_sizes.size();
    const bool forward_output = q.tensor == "OutputTensor" ||
                                (q.tensor == "InputGradientTensor" && q.base != "InputGradientTensor");
    if (forward_output) {
        auto ws = json_uints(q.desc, "InputWindowSizes", count, 1, error);
        if (!ws) {
            path = "/desc/InputWindowSizes";
            return false;
        }
        auto st = json_ints(q.desc, "InputWindowStrides", count, error);
        if (!st) return false;
        for (size_t i = 0; i < count; ++i) {
            const uint64_t a = uint64_t(std::llabs((*st)[i]));
            if (a == 0 || (*ws)[i] == 0) {
                error = "a zero window size or stride has no output size";
                return false;
            }
            out[i] = 1 + ((*ws)[i] - 1) / a;
        }
    } else if (q.tensor == "OutputGradientTensor") {
        auto ws = json_uints(q.desc, "InputWindowSizes", count, 1, error);
        if (!ws) {
            path = "/desc/InputWindowSizes";
            return false;
        }
        auto off = json_uints(q.desc, "InputWindowOffsets", count, 0, error);
        if (!off) {
            path = "/desc/InputWindowOffsets";
            return false;
        }
        for (size_t i = 0; i < count; ++i) out[i] = (*off)[i] + (*ws)[i];
    }
    return true;
}

OperatorRecord slice() {
    auto r = operator_record<SLICE, validate, evaluate>({
        .IntroducedIn = 0x1000,
        .Support = {{0x1000, {}, 4, 5, kSliceTypes10},
                    {0x2100, {}, 4, 5, kEightTypes},
                    {0x3000, {}, 1, 8, kEightTypes},
                    {0x4100, {}, 1, 8, kElevenTypes}},
        .Policies = {kSubnormals, kSliceZeroStride},
    });
    r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::Bits}};
    r.explain = explain_slice;
    r.features = {"stride>1", "offset"};
    r.detect = detect_slice;
    r.sizes = slice_sizes;
    return r;
}

OperatorRecord slice1() {
    auto r = operator_record<SLICE1, validate, evaluate>({
        .IntroducedIn = 0x2100,
        .Support = {{0x2100, {}, 4, 5, kEightTypes}, {0x3000, {}, 1, 8, kEightTypes}, {0x4100, {}, 1, 8, kElevenTypes}},
        .Policies = {kSubnormals, kSliceZeroStride},
    });
    r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::Bits}};
    r.explain = explain_slice;
    r.features = {"negative-stride", "stride>1", "offset", "short-output"};
    r.detect = detect_window<SLICE1>;
    r.sizes = window_sizes;
    return r;
}

OperatorRecord slice_grad() {
    auto r = operator_record<GRAD, validate, evaluate>({
        .IntroducedIn = 0x3000,
        .Support = {{0x3000, {}, 4, 5, kEightTypes}, {0x3100, {}, 1, 8, kEightTypes}, {0x4100, {}, 1, 8, kElevenTypes}},
        .Policies = {kSelectedZero, kSubnormals, kSliceZeroStride},
    });
    r.fast = fast_as<GRAD, evaluate_fast>;
    r.outputs = {{"OutputGradientTensor", TypeClass::Any, ToleranceRule::Bits}};
    r.explain = explain_slice;
    r.features = {"negative-stride", "stride>1", "offset", "short-output"};
    r.detect = detect_window<GRAD>;
    r.sizes = window_sizes;
    return r;
}

}  // namespace rec_slice

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& slice_family() {
    using namespace reference::rec_slice;
    static const FamilyRecord f{
        "slice",
        {slice(), slice1(), slice_grad()},
        // docs/golden.md, "Alternative readings".
        {{.Policy = "SelectedZero",
          .Value = "ScatterAdd",
          .Meaning =
              "dX starts at +0 and dY is added into it rather than copied: -0 becomes +0 and a signalling NaN is quieted "
              "(payload kept)",
          .Who = "scatter-add / index_put_(accumulate=True) based slice backward (PyTorch, XLA scatter)",
          .Operators = {OperatorType::SLICE_GRAD}}}};
    return f;
}
}  // namespace dmlref::kit
