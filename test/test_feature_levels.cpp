// Feature-level rules beyond the support tables' rows (lib/core/operators.cpp, supported_at):
// BATCH_NORMALIZATION's statistics before DML_FEATURE_LEVEL_4_0 (the page: "{xBatchCount,
// ChannelCount, xHeight, xWidth}", C must match; Spatial FALSE keeps Mean's and Variance's H, W).
#include "support.hpp"

#include "dmlref/operators.hpp"

#include "../reference/kit/family.hpp"

#include <algorithm>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_feature_levels {

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

TEST_CASE("feature levels: only DirectML's are read, and every record names only those") {
    // DirectML.h's DML_FEATURE_LEVEL values, written the three ways validate --feature-level takes.
    CHECK(parse_feature_level("5.1") == 0x5100u);
    CHECK(parse_feature_level("2_1") == 0x2100u);
    CHECK(parse_feature_level("DML_FEATURE_LEVEL_6_4") == 0x6400u);
    CHECK(parse_feature_level("1.0") == 0x1000u);
    // Numbers that are not feature levels: refused, never rounded to a neighbour.
    for (const char* s :
         {"9.9", "2.2", "5.3", "0.0", "1.1", "6.5", "7.0", "15.15", "5", "5.", ".1", "5.1.0", "DML_FEATURE_LEVEL_9_9"})
        CHECK_MESSAGE(!parse_feature_level(s), s);
    for (const kit::FamilyRecord* f : kit::families())
        for (const kit::OperatorRecord& r : f->operators) {
            INFO(f->name << ": " << r.info.Name);
            auto known = [](uint32_t level) {
                return std::find(std::begin(kFeatureLevels), std::end(kFeatureLevels), level) !=
                       std::end(kFeatureLevels);
            };
            CHECK(known(r.info.IntroducedIn));
            for (const SupportRow& row : r.info.Support) CHECK(known(row.FeatureLevel));
        }
}

}  // namespace dmlref_test_feature_levels
