// Feature-level rules beyond the support tables' rows (lib/core/operators.cpp, supported_at):
// BATCH_NORMALIZATION's statistics before DML_FEATURE_LEVEL_4_0 (the page: "{xBatchCount,
// ChannelCount, xHeight, xWidth}", C must match; Spatial FALSE keeps Mean's and Variance's H, W).
#include "support.hpp"

#include "dmlref/operators.hpp"

using namespace dmlref;
using namespace dmlref::test;

namespace {

Operator bn(std::vector<uint32_t> stats, uint32_t spatial = 1, std::vector<uint32_t> scale = {}) {
    DML_BATCH_NORMALIZATION_OPERATOR_DESC d;
    d.InputTensor = d.OutputTensor = desc(DataType::FLOAT32, {2, 3, 4, 5});
    d.MeanTensor = d.VarianceTensor = desc(DataType::FLOAT32, stats);
    d.ScaleTensor = d.BiasTensor = desc(DataType::FLOAT32, scale.empty() ? stats : scale);
    d.Spatial = spatial;
    return {OperatorType::BATCH_NORMALIZATION, d};
}

}  // namespace

TEST_CASE("batch normalization: per-channel statistics from DML_FEATURE_LEVEL_1_0, other broadcasts from 4_0") {
    CHECK(lowest_supporting_feature_level(bn({1, 3, 1, 1}), nullptr) == 0x1000u);
    CHECK(lowest_supporting_feature_level(bn({2, 3, 4, 5}), nullptr) == 0x1000u);
    CHECK(lowest_supporting_feature_level(bn({2, 3, 1, 5}), nullptr) == 0x1000u);
    // C broadcast (one mean for every channel): only from 4_0.
    std::vector<std::string> why;
    CHECK(lowest_supporting_feature_level(bn({1, 1, 1, 1}), nullptr) == 0x4000u);
    CHECK_FALSE(supported_at(bn({1, 1, 1, 1}), 0x3100, &why));
    REQUIRE(!why.empty());
    CHECK(why.front().find("MeanTensor: Sizes[1] 1 must be 3 before DML_FEATURE_LEVEL_4_0") != std::string::npos);
    // Scale and Bias follow the same rule.
    CHECK(lowest_supporting_feature_level(bn({1, 3, 1, 1}, 1, {1, 1, 4, 5}), nullptr) == 0x4000u);
    // Spatial FALSE: Mean's and Variance's H and W may not broadcast before 4_0 (Scale's may).
    CHECK(lowest_supporting_feature_level(bn({1, 3, 1, 1}, 0), nullptr) == 0x4000u);
    CHECK(lowest_supporting_feature_level(bn({1, 3, 4, 5}, 0, {1, 3, 1, 1}), nullptr) == 0x1000u);
    why.clear();
    CHECK_FALSE(supported_at(bn({1, 3, 1, 5}, 0), 0x3100, &why));
    REQUIRE(!why.empty());
    CHECK(why.front() == "MeanTensor: Sizes[2] 1 must be 4 before DML_FEATURE_LEVEL_4_0 (Spatial FALSE)");
}
