// ONE_HOT. Expected values come from the page's four examples, from hand derivation, or from an
// independent computation written here in numpy's terms (np.where(np.arange(depth) == index,
// on, off), placed at Axis) with Python-style negative indices; none comes from dmlref's evaluation.
#include "support.hpp"

#include "dmlref/descs/one_hot.hpp"

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_one_hot {

using namespace dmlref;
using namespace dmlref::test;

namespace {

using OH = DML_ONE_HOT_OPERATOR_DESC;

OH make(DataType values, DataType indices, std::vector<uint32_t> ix, std::vector<uint32_t> vs,
        std::vector<uint32_t> out, uint32_t axis) {
    OH d;
    d.IndicesTensor = desc(indices, std::move(ix));
    d.ValuesTensor = desc(values, std::move(vs));
    d.OutputTensor = desc(values, std::move(out));
    d.Axis = axis;
    return d;
}

template <class T, class I>
std::vector<T> one_hot(const OH& d, const std::vector<I>& idx, const std::vector<T>& values) {
    const auto out = run({OperatorType::ONE_HOT, d}, {{"IndicesTensor", logical_buffer(d.IndicesTensor, idx)},
                                                      {"ValuesTensor", logical_buffer(d.ValuesTensor, values)}});
    return as_values<T>(out.at("OutputTensor"));
}

}  // namespace

TEST_CASE("ONE_HOT: the page's four examples") {
    // Example 1: indices {1,1,3,1} [0,3,2], values [0,1], Axis 3 -> rows [1,0,0,0], [0,0,0,1], [0,0,1,0].
    CHECK(one_hot(make(DataType::FLOAT32, DataType::UINT32, {1, 1, 3, 1}, {1, 1, 1, 2}, {1, 1, 3, 4}, 3),
                  std::vector<uint32_t>{0, 3, 2},
                  std::vector<float>{0, 1}) == std::vector<float>{1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0});
    // Example 2: indices {1,1,1,4} [0,2,1,0], Axis 2 -> columns: [[1,0,0,1],[0,0,1,0],[0,1,0,0]].
    CHECK(one_hot(make(DataType::FLOAT32, DataType::UINT32, {1, 1, 1, 4}, {1, 1, 1, 2}, {1, 1, 3, 4}, 2),
                  std::vector<uint32_t>{0, 2, 1, 0},
                  std::vector<float>{0, 1}) == std::vector<float>{1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0});
    // Example 3: values {1,1,3,1} [4,2,9]: off 4, on 2 (the fastest-changing dimension of size > 1 is dimension 2).
    CHECK(one_hot(make(DataType::FLOAT32, DataType::UINT32, {1, 1, 3, 1}, {1, 1, 3, 1}, {1, 1, 3, 4}, 3),
                  std::vector<uint32_t>{0, 3, 2},
                  std::vector<float>{4, 2, 9}) == std::vector<float>{2, 4, 4, 4, 4, 4, 4, 2, 4, 4, 2, 4});
    // Example 4: INT32 [-3, 100, 3]: -3 is position 1 of 4; 100 is ignored (all OffValue); 3 the last.
    CHECK(one_hot(make(DataType::FLOAT32, DataType::INT32, {1, 1, 3, 1}, {1, 1, 1, 2}, {1, 1, 3, 4}, 3),
                  std::vector<int32_t>{-3, 100, 3},
                  std::vector<float>{0, 1}) == std::vector<float>{0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1});
}

TEST_CASE("ONE_HOT against numpy's arange comparison, every axis, negative and outside indices") {
    uint64_t s = 5;
    auto next = [&](uint32_t n) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        return uint32_t((s >> 33) % n);
    };
    for (int trial = 0; trial < 30; ++trial) {
        const uint32_t R = 1 + next(5), axis = next(R), depth = 1 + next(4);
        std::vector<uint32_t> out(R), ix(R);
        for (uint32_t i = 0; i < R; ++i) out[i] = i == axis ? depth : 1 + next(3);
        ix = out;
        ix[axis] = 1;
        size_t n = 1;
        for (uint32_t v : ix) n *= v;
        std::vector<int64_t> idx(n);
        for (auto& v : idx) v = int64_t(next(4 * depth)) - int64_t(2 * depth);  // -2 depth .. 2 depth - 1: some outside
        // numpy: out[..., k, ...] = on if k == (i + depth if i < 0 else i) else off; outside: all off.
        std::vector<double> expected;
        size_t total = 1;
        for (uint32_t v : out) total *= v;
        for (size_t f = 0; f < total; ++f) {
            std::vector<uint32_t> c(R);
            size_t g = f;
            for (uint32_t i = R; i-- > 0;) {
                c[i] = uint32_t(g % out[i]);
                g /= out[i];
            }
            size_t iflat = 0;
            for (uint32_t i = 0; i < R; ++i) iflat = iflat * ix[i] + (i == axis ? 0 : c[i]);
            int64_t i = idx[iflat];
            if (i < 0) i += depth;
            expected.push_back(i == int64_t(c[axis]) ? -2.5 : 0.5);
        }
        std::vector<uint32_t> vs(R, 1);
        vs[R - 1] = 2;
        INFO("trial " << trial << ": output " << sizes_text(out) << ", axis " << axis);
        CHECK(one_hot(make(DataType::FLOAT64, DataType::INT64, ix, vs, out, axis), idx,
                      std::vector<double>{0.5, -2.5}) == expected);
    }
}

TEST_CASE("ONE_HOT: OneHotOutOfRange=AllOff below -size too; UINT32 never negative; bits and strides") {
    // Sequence of 4: INT64 -4 is position 0; -5 names none (all off); UINT32 0xffffffff names none.
    CHECK(one_hot(make(DataType::INT8, DataType::INT64, {3, 1}, {1, 2}, {3, 4}, 1), std::vector<int64_t>{-4, -5, 0},
                  std::vector<int8_t>{-1, 7}) == std::vector<int8_t>{7, -1, -1, -1, -1, -1, -1, -1, 7, -1, -1, -1});
    CHECK(one_hot(make(DataType::UINT8, DataType::UINT32, {2, 1}, {1, 2}, {2, 2}, 1),
                  std::vector<uint32_t>{0xffffffffu, 1},
                  std::vector<uint8_t>{0, 9}) == std::vector<uint8_t>{0, 0, 0, 9});
    // FLOAT32 off -0 (0x80000000) and on a NaN with payload 0x7fc00123, copied as bits.
    const float off = from_bits<float>(0x80000000u), on = from_bits<float>(0x7fc00123u);
    check_bits(one_hot(make(DataType::FLOAT32, DataType::UINT32, {1, 1}, {2, 1}, {1, 3}, 1), std::vector<uint32_t>{1},
                       std::vector<float>{off, on}),
               std::vector<float>{off, on, off});
    // ValuesTensor {2,2} with Strides {1, 2}: its fastest-changing dimension of size > 1 is dimension 1,
    // logical [0][1], stored at element 2.
    OH d = make(DataType::INT32, DataType::UINT32, {1, 1}, {2, 2}, {1, 2}, 1);
    d.ValuesTensor.Strides = {1, 2};
    const auto out = run({OperatorType::ONE_HOT, d}, {{"IndicesTensor", buffer<uint32_t>(d.IndicesTensor, {0})},
                                                      {"ValuesTensor", buffer<int32_t>(d.ValuesTensor, {5, 6, 7, 8})}});
    CHECK(as_values<int32_t>(out.at("OutputTensor")) == std::vector<int32_t>{7, 5});
}

TEST_CASE("ONE_HOT validation: the page's constraints, each with its rule") {
    OH d = make(DataType::FLOAT32, DataType::UINT32, {1, 1, 3, 1}, {1, 1, 1, 2}, {1, 1, 3, 4}, 3);
    CHECK_FALSE(validate({OperatorType::ONE_HOT, d}).has_errors());
    OH b = d;
    b.ValuesTensor.Sizes = {2};
    CHECK(has_error({OperatorType::ONE_HOT, b}, "one-hot.dimension-count", "/desc/ValuesTensor/Sizes"));
    b = d;
    b.OutputTensor.DataType = DataType::FLOAT16;
    CHECK(has_error({OperatorType::ONE_HOT, b}, "one-hot.same-data-type", "/desc/OutputTensor/DataType"));
    b = d;
    b.IndicesTensor.DataType = DataType::FLOAT32;
    CHECK(has_error({OperatorType::ONE_HOT, b}, "one-hot.indices-data-type", "/desc/IndicesTensor/DataType"));
    b = d;
    b.Axis = 4;
    CHECK(has_error({OperatorType::ONE_HOT, b}, "one-hot.axis", "/desc/Axis"));
    b = d;
    b.IndicesTensor.Sizes = {1, 1, 3, 4};  // the Axis dimension must be 1
    CHECK(has_error({OperatorType::ONE_HOT, b}, "one-hot.indices-sizes", "/desc/IndicesTensor/Sizes/3"));
    b = d;
    b.IndicesTensor.Sizes = {1, 1, 2, 1};
    CHECK(has_error({OperatorType::ONE_HOT, b}, "one-hot.indices-sizes", "/desc/IndicesTensor/Sizes/2"));
    b = d;
    b.ValuesTensor.Sizes = {1, 1, 1, 1};
    CHECK(has_error({OperatorType::ONE_HOT, b}, "one-hot.values-count", "/desc/ValuesTensor/Sizes"));
    // Feature levels: FLOAT32 4-D with UINT32 indices from 2.0; INT64 indices from 3.0.
    CHECK(lowest_supporting_feature_level({OperatorType::ONE_HOT, d}, nullptr) == 0x2000u);
    CHECK(lowest_supporting_feature_level(
              {OperatorType::ONE_HOT, make(DataType::INT8, DataType::INT64, {2, 1}, {1, 2}, {2, 3}, 1)}, nullptr) ==
          0x3000u);
}

}  // namespace dmlref_test_one_hot
