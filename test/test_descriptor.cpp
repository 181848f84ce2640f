// One-line descriptors (docs/gen.md, "Descriptors"): the tokens the desc's schema gives every field
// (DirectML names, tensors with strides and their own values, tensor arrays, fused activations).
#include "support.hpp"

#include "dmlref/descriptor.hpp"
#include "dmlref/descs/batch_normalization.hpp"
#include "dmlref/descs/convolution.hpp"
#include "dmlref/gen.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <sstream>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_descriptor {

using namespace dmlref;
using namespace dmlref::test;

namespace {

struct Made {
    bool ok = false;
    std::string rule, message;
};

Made plan(const std::string& text) {
    Diagnostics d;
    Made m;
    m.ok = descriptor_to_planned(text, d).has_value() && !d.has_errors();
    for (const auto& i : d.items()) {
        if (m.rule.empty()) m.rule = i.rule;
        m.message += i.message;
    }
    return m;
}

}  // namespace

TEST_CASE("descriptors: bad generic tokens are errors of one line naming the token and the rule") {
    auto rule = [](const std::string& text) { return plan(text).rule; };
    // A field by its DirectML name takes what its kind reads.
    CHECK(rule("LP_POOLING FLOAT32 1x1x4 w2 P=-1") == "descriptor.field");
    CHECK(rule("LP_POOLING FLOAT32 1x1x4 w2 P=4294967296") == "descriptor.field");
    CHECK(rule("LP_POOLING FLOAT32 1x1x4 w2 P=1.5") == "descriptor.field");
    CHECK(plan("LP_POOLING FLOAT32 1x1x4 w2 P=4294967295").ok);  // 2^32 - 1 holds
    CHECK(rule("LP_NORMALIZATION FLOAT32 2x3 Axis=1 P=2 Epsilon=1e999") == "descriptor.field");
    CHECK(rule("CONVOLUTION FLOAT32 1x1x4 FilterTensor=1x1x3 Mode=SIDEWAYS GroupCount=1") == "descriptor.field");
    CHECK(rule("CONVOLUTION FLOAT32 1x1x4 FilterTensor=1x1x3 OutputPadding=1xq GroupCount=1") == "descriptor.field");
    CHECK(rule("ROI_POOLING FLOAT32 1x1x4x4 SpatialScale=1 PooledSize=2") == "descriptor.field");
    // A field said by its token and by its name is said twice, in either order.
    CHECK(rule("GATHER_ELEMENTS FLOAT32 3x3 axis=0 Axis=1") == "descriptor.syntax");
    CHECK(rule("GATHER_ELEMENTS FLOAT32 3x3 Axis=1 axis=0") == "descriptor.field");
    // A fused activation: one DirectML fuses, with each of its parameters once.
    CHECK(rule("BATCH_NORMALIZATION FLOAT32 1x3 Spatial=1 Epsilon=0 FusedActivation=ACTIVATION_SOFTMAX") ==
          "descriptor.field");
    CHECK(rule("BATCH_NORMALIZATION FLOAT32 1x3 Spatial=1 Epsilon=0 FusedActivation=ACTIVATION_ELU") ==
          "descriptor.field");
    CHECK(rule("BATCH_NORMALIZATION FLOAT32 1x3 Spatial=1 Epsilon=0 FusedActivation=ACTIVATION_RELU,Alpha=1") ==
          "descriptor.field");
    CHECK(rule("BATCH_NORMALIZATION FLOAT32 1x3 Spatial=1 Epsilon=0 FusedActivation=ACTIVATION_ELU,Alpha=1,Alpha=2") ==
          "descriptor.field");
    CHECK(plan("BATCH_NORMALIZATION FLOAT32 1x3 Spatial=1 Epsilon=0 FusedActivation=activation_elu,Alpha=1").ok);
    // Strides: as many as the sizes.
    CHECK(rule("ELEMENT_WISE_ADD FLOAT32 2x3 BTensor=FLOAT32:2x3/0") == "descriptor.tensor");
    CHECK(rule("ELEMENT_WISE_ADD FLOAT32 2x3 BTensor=FLOAT32:2x3/0x-1") == "descriptor.tensor");
    // Tensor arrays: a count from 1 to 1024, or the elements; both given, they agree.
    CHECK(rule("JOIN FLOAT32 2x6 axis=1") == "descriptor.tensor");
    CHECK(rule("JOIN FLOAT32 2x6 InputCount=0 axis=1") == "descriptor.tensor");
    CHECK(rule("JOIN FLOAT32 2x6 InputCount=1025 axis=1") == "descriptor.tensor");
    CHECK(rule("JOIN FLOAT32 2x6 InputCount=2 axis=1 InputTensors=2x2,2x2,2x2") == "descriptor.tensor");
    CHECK(rule("JOIN FLOAT32 2x6 axis=1 InputTensors=2x2,2xq") == "descriptor.syntax");
    // A tensor's own values: a recipe, random(MIN,MAX), fill(V) or iota(START,STEP), for an input.
    CHECK(rule("GATHER_ELEMENTS FLOAT32 3x3 axis=0 IndicesTensor=UINT32:2x3@range(0,2)") == "descriptor.recipe");
    CHECK(rule("GATHER_ELEMENTS FLOAT32 3x3 axis=0 IndicesTensor=UINT32:2x3@random(0)") == "descriptor.recipe");
    CHECK(rule("GATHER_ELEMENTS FLOAT32 3x3 axis=0 IndicesTensor=UINT32:2x3@fill(1e999)") == "descriptor.recipe");
    CHECK(rule("GATHER_ELEMENTS FLOAT32 3x3 axis=0 OutputTensor=@dyadic") == "descriptor.recipe");
    CHECK(rule("CONVOLUTION FLOAT32 1x1x4 FilterTensor=1x1x3 GroupCount=1 BiasTensor=@fill(1)") == "descriptor.recipe");
    CHECK(rule("CONVOLUTION FLOAT32 1x1x4 FilterTensor=1x1x3 GroupCount=1 BiasTensor=none@fill(1)") ==
          "descriptor.recipe");
    // A long token: refused, and the message stays a line.
    const Made long_one = plan("BATCH_NORMALIZATION FLOAT32 1x3 Spatial=1 Epsilon=0 FusedActivation=" +
                               std::string(4000, 'A'));
    CHECK(long_one.rule == "descriptor.field");
    CHECK(long_one.message.size() < 600);
    const Made long_recipe = plan("GATHER_ELEMENTS FLOAT32 3x3 axis=0 IndicesTensor=@" + std::string(4000, '('));
    CHECK(long_recipe.rule == "descriptor.recipe");
    CHECK(long_recipe.message.size() < 600);
}

namespace {

// One descriptor per operator whose fields need the schema's tokens (DirectML names, fused
// activations, tensors said with their types, sizes and strides, tensor arrays), with the values
// their rules need (indices in range, scales not 0) after '@'. Each makes a case that validates and
// evaluates, and the case's descriptor is the text again, less the '@' values (the case holds them).
const char* const
    kExamples
        [] =
            {
                "BATCH_NORMALIZATION FLOAT32 1x3x2x2 Spatial=1 Epsilon=0.25 FusedActivation=ACTIVATION_LEAKY_RELU,Alpha=0.5 MeanTensor=FLOAT32:1x3x1x1 VarianceTensor=FLOAT32:1x3x1x1@random(0,4) ScaleTensor=FLOAT32:1x3x1x1 BiasTensor=FLOAT32:1x3x1x1 OutputTensor=FLOAT32:1x3x2x2",
                "BATCH_NORMALIZATION_GRAD FLOAT32 1x1x2x2 Epsilon=0 InputGradientTensor=FLOAT32:1x1x2x2 MeanTensor=FLOAT32:1x1x1x1 VarianceTensor=FLOAT32:1x1x1x1 ScaleTensor=FLOAT32:1x1x1x1 OutputGradientTensor=FLOAT32:1x1x2x2 OutputScaleGradientTensor=FLOAT32:1x1x1x1 OutputBiasGradientTensor=FLOAT32:1x1x1x1",
                "BATCH_NORMALIZATION_TRAINING FLOAT32 1x1x2x2 Epsilon=0 ScaleTensor=FLOAT32:1x1x1x1 BiasTensor=FLOAT32:1x1x1x1 OutputTensor=FLOAT32:1x1x2x2 OutputMeanTensor=FLOAT32:1x1x1x1 OutputVarianceTensor=FLOAT32:1x1x1x1",
                "BATCH_NORMALIZATION_TRAINING_GRAD FLOAT32 1x1x2x2 Epsilon=0 InputGradientTensor=FLOAT32:1x1x2x2 MeanTensor=FLOAT32:1x1x1x1 VarianceTensor=FLOAT32:1x1x1x1 ScaleTensor=FLOAT32:1x1x1x1 OutputGradientTensor=FLOAT32:1x1x2x2 OutputScaleGradientTensor=FLOAT32:1x1x1x1 OutputBiasGradientTensor=FLOAT32:1x1x1x1",
                "ROI_ALIGN FLOAT32 1x1x4x4 ReductionFunction=AVERAGE nearest SpatialScaleX=1 SpatialScaleY=1 OutOfBoundsInputValue=0 MinimumSamplesPerOutput=1 MaximumSamplesPerOutput=1 ROITensor=FLOAT32:4x4@random(0,3) BatchIndicesTensor=UINT32:4@fill(0) OutputTensor=FLOAT32:4x1x1x3",
                "ROI_ALIGN1 FLOAT32 2x1x1x4 ReductionFunction=MAX linear SpatialScaleX=1 SpatialScaleY=1 InputPixelOffset=0 OutputPixelOffset=-0.5 OutOfBoundsInputValue=0 MinimumSamplesPerOutput=2 MaximumSamplesPerOutput=4 AlignRegionsToCorners=0 ROITensor=FLOAT32:3x4@random(0,3) BatchIndicesTensor=UINT32:3@random(0,1) OutputTensor=FLOAT32:3x1x1x1",
                "ROI_ALIGN_GRAD FLOAT32 1x1x4x4 InputTensor=none ReductionFunction=AVERAGE nearest SpatialScaleX=1 SpatialScaleY=1 InputPixelOffset=0.5 OutputPixelOffset=-0.5 MinimumSamplesPerOutput=1 MaximumSamplesPerOutput=1 AlignRegionsToCorners=0 InputGradientTensor=FLOAT32:4x1x1x3 ROITensor=FLOAT32:4x4@random(0,3) BatchIndicesTensor=UINT32:4@fill(0)",
                "GATHER UINT16 4 axis=0 IndexDimensions=1 IndicesTensor=INT64:4@random(-4,3) OutputTensor=UINT16:4",
                "GATHER_ELEMENTS INT32 2x3 axis=1 IndicesTensor=INT64:2x2@random(-3,2) OutputTensor=INT32:2x2",
                "GATHER_ND FLOAT32 1x2x2x2 InputDimensionCount=3 IndicesDimensionCount=2 IndicesTensor=UINT32:1x1x2x2@random(0,1) OutputTensor=FLOAT32:1x1x2x2",
                "GATHER_ND1 UINT8 2x2x3 InputDimensionCount=3 IndicesDimensionCount=3 BatchDimensionCount=1 IndicesTensor=INT32:2x2x2@random(-2,1) OutputTensor=UINT8:1x2x2",
                "SCATTER_ELEMENTS FLOAT32 3 axis=0 IndicesTensor=INT64:3@iota(-3,1) UpdatesTensor=FLOAT32:3 OutputTensor=FLOAT32:3",
                "SCATTER_ND UINT16 2x3 InputDimensionCount=2 IndicesDimensionCount=2 IndicesTensor=INT64:2x2@iota(-2,1) UpdatesTensor=UINT16:1x2 OutputTensor=UINT16:2x3",
                "ONE_HOT INT8 1x2 axis=1 IndicesTensor=INT64:3x1 OutputTensor=INT8:3x4",
                "TOP_K FLOAT32 1x1x3x4 axis=2 K=2 OutputValueTensor=FLOAT32:1x1x2x4 OutputIndexTensor=UINT32:1x1x2x4",
                "TOP_K1 FLOAT16 4 axis=0 K=3 dir=decreasing OutputValueTensor=FLOAT16:3 OutputIndexTensor=UINT64:3",
                "JOIN FLOAT16 2x3 InputCount=2 axis=1 InputTensors=FLOAT16:2x2/1x2,FLOAT16:2x1/0x1",
                "JOIN INT8 2x6x2 InputCount=3 axis=1",
                "SPLIT FLOAT64 2x2 OutputCount=2 axis=1 OutputTensors=FLOAT64:2x1,FLOAT64:2x1/2x1",
                "SPLIT UINT32 7x2 OutputCount=3 axis=0",
                "CONVOLUTION FLOAT32 1x1x4 GroupCount=1 s1 p0,0 d1 OutputPadding=0 FilterTensor=FLOAT32:1x1x3 OutputTensor=FLOAT32:1x1x2",
                "CONVOLUTION FLOAT16 1x2x3x3 Mode=CROSS_CORRELATION GroupCount=1 FusedActivation=ACTIVATION_RELU s1x1 p1,1,1,1 d1x1 OutputPadding=0x0 FilterTensor=FLOAT16:2x2x3x3 BiasTensor=FLOAT16:1x2x1x1 OutputTensor=FLOAT16:1x2x3x3",
                "CONVOLUTION_INTEGER UINT8 1x1x3 GroupCount=1 s1 p1,0 d1 InputZeroPointTensor=UINT8:1x1x1 FilterTensor=INT8:1x1x2 FilterZeroPointTensor=INT8:1x1x1 OutputTensor=INT32:1x1x3",
                "MAX_UNPOOLING UINT8 1x2 IndicesTensor=UINT32:1x2 OutputTensor=UINT8:3x4",
                "ROI_POOLING INT8 2x2x1x2 SpatialScale=1 pooled=3x1 ROITensor=INT8:1x5@fill(0) OutputTensor=INT8:1x2x1x3",
                "MEAN_VARIANCE_NORMALIZATION FLOAT32 1x2x1x2 cc=1 NormalizeVariance=1 Epsilon=0",
                "MEAN_VARIANCE_NORMALIZATION1 FLOAT16 4 ac=1 NormalizeVariance=1 Epsilon=0 ax0",
                "MEAN_VARIANCE_NORMALIZATION2 FLOAT32 2 ac=1 UseMean=0 UseVariance=1 Epsilon=0 ax0",
                "LP_NORMALIZATION FLOAT32 2x3 axis=1 Epsilon=0.5 P=1",
                "LP_POOLING INT8 1x1x8 P=2 w2 s2 p0,0",
                "LP_POOLING1 FLOAT32 1x1x6 P=3 w2 s2 p0,0 d1",
                "RNN FLOAT32 1x1x3x2 ActivationDescCount=1 ActivationDescs[0]=ACTIVATION_TANH WeightTensor=FLOAT32:1x1x4x2 RecurrenceTensor=FLOAT32:1x1x4x4 OutputSequenceTensor=FLOAT32:1x1x3x4 OutputSingleTensor=FLOAT32:1x1x3x4",
                "LSTM FLOAT32 1x3x1x1 ActivationDescCount=3 ActivationDescs[0]=ACTIVATION_SIGMOID ActivationDescs[1]=ACTIVATION_TANH ActivationDescs[2]=ACTIVATION_IDENTITY ClipThreshold=0 UseClipThreshold=0 CoupleInputForget=0 WeightTensor=FLOAT32:1x1x8x1 RecurrenceTensor=FLOAT32:1x1x8x2 CellMemInitTensor=FLOAT32:1x1x1x2 OutputSequenceTensor=FLOAT32:3x1x1x2 OutputSingleTensor=FLOAT32:1x1x1x2 OutputCellSingleTensor=FLOAT32:1x1x1x2",
                "GRU FLOAT32 1x3x1x1 ActivationDescCount=2 ActivationDescs[0]=ACTIVATION_SIGMOID ActivationDescs[1]=ACTIVATION_TANH LinearBeforeReset=0 WeightTensor=FLOAT32:1x1x6x1 RecurrenceTensor=FLOAT32:1x1x6x2 HiddenInitTensor=FLOAT32:1x1x1x2 OutputSequenceTensor=FLOAT32:3x1x1x2 OutputSingleTensor=FLOAT32:1x1x1x2",
                "ELEMENT_WISE_QUANTIZE_LINEAR FLOAT16 2x3 ScaleTensor=FLOAT16:2x3@fill(0.5) OutputTensor=INT8:2x3",
                "ELEMENT_WISE_DEQUANTIZE_LINEAR INT32 4 ScaleTensor=FLOAT32:4/0@fill(0.25) ZeroPointTensor=INT32:4 OutputTensor=FLOAT32:4",
                "ELEMENT_WISE_QUANTIZED_LINEAR_ADD UINT8 3 AScaleTensor=FLOAT32:1@fill(0.5) BTensor=UINT8:3 BScaleTensor=FLOAT32:1@fill(0.25) OutputScaleTensor=FLOAT32:1@fill(2) OutputTensor=UINT8:3",
                "QUANTIZED_LINEAR_AVERAGE_POOLING UINT8 1x1x2 incpad=0 w2 s1 p0,0 d1 InputScaleTensor=FLOAT32:1x1x1@fill(0.5) OutputScaleTensor=FLOAT32:1x1x1@fill(0.5) OutputTensor=UINT8:1x1x1",
                "ADAM_OPTIMIZER FLOAT32 1x1x1x3 LearningRate=0.25 Beta1=0.5 Beta2=0.75 Epsilon=0 InputFirstMomentTensor=FLOAT32:1x1x1x3 InputSecondMomentTensor=FLOAT32:1x1x1x3@fill(1) GradientTensor=FLOAT32:1x1x1x3 TrainingStepTensor=FLOAT32:1x1x1x1@fill(1) OutputParametersTensor=FLOAT32:1x1x1x3 OutputFirstMomentTensor=FLOAT32:1x1x1x3 OutputSecondMomentTensor=FLOAT32:1x1x1x3",
                "QUANTIZED_LINEAR_MATRIX_MULTIPLY UINT8 3x1 AScaleTensor=FLOAT32:1x1@fill(0.5) BTensor=UINT8:1x1 BScaleTensor=FLOAT32:1x1@fill(0.5) OutputScaleTensor=FLOAT32:1x1@fill(0.25) OutputTensor=UINT8:3x1",
                "QUANTIZED_LINEAR_CONVOLUTION UINT8 1x1x3 GroupCount=1 s1 p1,1 d1 InputScaleTensor=FLOAT32:1@fill(0.5) InputZeroPointTensor=UINT8:1 FilterTensor=UINT8:1x1x3 FilterScaleTensor=FLOAT32:1@fill(0.5) OutputScaleTensor=FLOAT32:1@fill(4) OutputTensor=INT8:1x1x3",
                "QUANTIZE FLOAT32 4 QuantizationType=SCALE QuantizationTensorCount=1 QuantizationTensors=FLOAT32:1 OutputTensor=INT8:4 QuantizationTensors[0]=@fill(0.5)",
                "DEQUANTIZE UINT8 4 QuantizationType=SCALE_ZERO_POINT QuantizationTensorCount=2 QuantizationTensors=FLOAT32:1,UINT8:1 OutputTensor=FLOAT32:4 QuantizationTensors[0]=@fill(0.5)",
                "MULTIHEAD_ATTENTION FLOAT32 1x2x2x3x2 QueryTensor=none scale=1 MaskFilterValue=-10000 HeadCount=2 out=1x2x4",
                "MULTIHEAD_ATTENTION1 FLOAT32 1x1x2 scale=1 MaskFilterValue=-10000 QueryHeadCount=2 KeyValueHeadCount=1 KeyTensor=FLOAT32:1x2x1 ValueTensor=FLOAT32:1x2x1 OutputTensor=FLOAT32:1x1x2",
};

// The descriptor less its '@' values: NameTensor=...@R keeps NameTensor=..., NameTensor=@R goes.
std::string without_values(const std::string& text) {
    std::istringstream ss(text);
    std::string out;
    for (std::string w; ss >> w;) {
        const auto at = w.find('@');
        if (at != std::string::npos && w[at - 1] == '=') continue;
        out += (out.empty() ? "" : " ") + w.substr(0, at);
    }
    return out;
}

Case made(const std::string& text) {
    Diagnostics d;
    auto p = descriptor_to_planned(text, d);
    for (const auto& i : d.items()) INFO(i.rule << ": " << i.message);
    REQUIRE(p);
    auto g = gen::make_case(*p, {}, d);  // validated and evaluated
    for (const auto& i : d.items()) INFO(i.rule << ": " << i.message);
    REQUIRE(g);
    REQUIRE_FALSE(d.has_errors());
    Diagnostics cd;
    Case c = parse_case(parse_json_text(g->text), g->name + ".json", cd);
    REQUIRE_FALSE(cd.has_errors());
    return c;
}

const TensorDesc& tensor(const Case& c, std::string_view name) {
    for (const auto& f : tensor_fields(c.op))
        if (f.name == name) return *f.desc;
    FAIL("no tensor " << name);
    throw;
}

}  // namespace

TEST_CASE("descriptors: an example of every operator the schema's tokens reach makes a valid case and comes back") {
    for (const std::string text : kExamples) {
        INFO(text);
        const Case c = made(text);
        std::string why;
        CHECK(case_descriptor(c, why) == without_values(text));
    }
}

TEST_CASE("descriptors: the generic tokens land in the desc and the inputs") {
    // Strides and own values, by hand: A = 0..5, B's three elements 10, 11, 12 broadcast down the rows
    // (Strides 0, 1), so A + B = 10, 12, 14, 13, 15, 17.
    const Case add = made("ELEMENT_WISE_ADD FLOAT32 2x3 ATensor=@iota(0,1) BTensor=FLOAT32:2x3/0x1@iota(10,1)");
    CHECK(tensor(add, "BTensor").Strides == std::vector<uint32_t>{0, 1});
    const auto out = run_case(add);
    std::vector<float> sum(6);
    std::memcpy(sum.data(), out.values.at("OutputTensor").data(), sizeof(float) * 6);
    CHECK(sum == std::vector<float>{10, 12, 14, 13, 15, 17});
    std::string why;
    CHECK(case_descriptor(add, why) == "ELEMENT_WISE_ADD FLOAT32 2x3 BTensor=FLOAT32:2x3/0x1 OutputTensor=FLOAT32:2x3");

    // A fused activation and its parameter; a field by its DirectML name.
    const Case bn = made(
        "BATCH_NORMALIZATION FLOAT16 1x2 Spatial=0 Epsilon=0.5 "
        "FusedActivation=ACTIVATION_SCALED_ELU,Gamma=2,Alpha=0.25");
    const auto& bd = get<DML_BATCH_NORMALIZATION_OPERATOR_DESC>(bn.op.Desc);
    REQUIRE(bd.FusedActivation);
    CHECK(bd.FusedActivation->name() == "ACTIVATION_SCALED_ELU");
    CHECK(bd.FusedActivation->Parameters == std::array<float, 2>{0.25f, 2.0f});  // Alpha, Gamma: the struct's order
    CHECK(bd.Spatial == 0);
    CHECK(bd.Epsilon == 0.5f);
    const Case conv = made(
        "CONVOLUTION FLOAT32 1x1x5 Mode=convolution GroupCount=1 s2 OutputPadding=0 FilterTensor=1x1x3");
    const auto& cd = get<DML_CONVOLUTION_OPERATOR_DESC>(conv.op.Desc);
    CHECK(cd.Mode == kConvolutionModeConvolution);
    CHECK(cd.OutputPadding == std::vector<uint32_t>{0});
    CHECK(tensor(conv, "OutputTensor").Sizes == std::vector<uint32_t>{1, 1, 2});  // (5 - 3) / 2 + 1

    // A tensor array by its count: Axis's size S split as evenly as it goes, element k taking
    // floor((k + 1) S / n) - floor(k S / n): 7 in three gives 2, 2, 3.
    const Case split = made("SPLIT UINT32 7x2 OutputCount=3 axis=0");
    CHECK(tensor(split, "OutputTensors[0]").Sizes == std::vector<uint32_t>{2, 2});
    CHECK(tensor(split, "OutputTensors[1]").Sizes == std::vector<uint32_t>{2, 2});
    CHECK(tensor(split, "OutputTensors[2]").Sizes == std::vector<uint32_t>{3, 2});
    // An element's own values: the scale of QUANTIZE, and the zero point the descriptor's recipe.
    const Case q = made(
        "QUANTIZE FLOAT32 4 QuantizationType=SCALE_ZERO_POINT QuantizationTensors=FLOAT32:1,INT8:1 "
        "OutputTensor=INT8:4 QuantizationTensors[0]=@fill(0.5)");
    float scale = 0;
    std::memcpy(&scale, q.inputs.at("QuantizationTensors[0]").data(), sizeof scale);
    CHECK(scale == 0.5f);

    // random(MIN,MAX) on integer indices: every index from -4 to 3, the range GATHER allows.
    const Case gather = made(
        "GATHER UINT16 4 axis=0 IndexDimensions=1 IndicesTensor=INT64:16@random(-4,3) "
        "OutputTensor=UINT16:16");
    std::vector<int64_t> idx(16);
    std::memcpy(idx.data(), gather.inputs.at("IndicesTensor").data(), sizeof(int64_t) * 16);
    for (int64_t i : idx) CHECK((i >= -4 && i <= 3));
    CHECK(*std::min_element(idx.begin(), idx.end()) < 0);  // the seeded draw reaches the negative side
}

}  // namespace dmlref_test_descriptor
