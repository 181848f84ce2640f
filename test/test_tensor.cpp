// The buffer-size rule, output overlap detection and the strided-run iterator.
#include "support.hpp"

#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_tensor {

using namespace dmlref;
using namespace dmlref::test;

TEST_CASE("DMLCalcBufferTensorSize: the spec's examples") {
    // DirectML helper functions (DMLCalcBufferTensorSize): FLOAT16 {1,1,3,3} -> 9 x 2 = 18 -> 20 bytes.
    CHECK(calc_buffer_tensor_size(desc(DataType::FLOAT16, {1, 1, 3, 3})) == 20);
    // FLOAT32 {2,3} strides {0,1}: last index 2 -> 12 bytes.
    CHECK(calc_buffer_tensor_size(desc(DataType::FLOAT32, {2, 3}, {0, 1})) == 12);
    // INT8 {5}: 5 bytes rounded up to 8.
    CHECK(calc_buffer_tensor_size(desc(DataType::INT8, {5})) == 8);
    // UINT64 {2,2} strides {4,1}: last index 1*4 + 1 = 5 -> 6 x 8 = 48.
    CHECK(calc_buffer_tensor_size(desc(DataType::UINT64, {2, 2}, {4, 1})) == 48);
}

TEST_CASE("output overlap: stride 0, interleaving that collides, interleaving that does not") {
    CHECK(has_overlapping_elements(desc(DataType::FLOAT32, {2, 2}, {0, 1})));
    CHECK_FALSE(has_overlapping_elements(desc(DataType::FLOAT32, {1, 4}, {0, 1})));  // size 1: stride unused
    // sizes {3,2} strides {2,3}: offsets 0,3,2,5,4,7: all distinct, though not nested.
    CHECK_FALSE(has_overlapping_elements(desc(DataType::FLOAT32, {3, 2}, {2, 3})));
    // sizes {3,2} strides {1,2}: offsets 0,2,1,3,2,4: 2 twice.
    CHECK(has_overlapping_elements(desc(DataType::FLOAT32, {3, 2}, {1, 2})));
    CHECK_FALSE(has_overlapping_elements(desc(DataType::FLOAT32, {2, 3}, {8, 2})));  // padded, disjoint
}

// The iterator must visit every logical coordinate exactly once, in row-major order, at the
// address dot(c, strides): checked against a plain odometer written here.
TEST_CASE("for_each_run visits every coordinate once, in row-major order") {
    std::mt19937 rng(3);
    for (int trial = 0; trial < 500; ++trial) {
        const size_t rank = 1 + rng() % 8;
        std::vector<uint32_t> sizes(rank);
        for (auto& s : sizes) s = 1 + rng() % 3;
        std::vector<int64_t> a(rank), b(rank);
        for (size_t i = 0; i < rank; ++i) {
            a[i] = int64_t(rng() % 7) - 3;
            b[i] = int64_t(rng() % 5);
        }
        if (trial % 3 == 0) {
            a = packed_strides(sizes);
        }  // mergeable runs
        std::vector<std::pair<int64_t, int64_t>> expected, actual;
        std::vector<uint32_t> c(rank, 0);
        for (;;) {
            int64_t oa = 100, ob = 7;
            for (size_t i = 0; i < rank; ++i) {
                oa += c[i] * a[i];
                ob += c[i] * b[i];
            }
            expected.emplace_back(oa, ob);
            size_t d = rank;
            while (d > 0 && ++c[d - 1] == sizes[d - 1]) c[--d] = 0;
            if (d == 0) break;
        }
        for_each_run<2>(sizes, {a.data(), b.data()}, {100, 7},
                        [&](const std::array<int64_t, 2>& off, int64_t n, const std::array<int64_t, 2>& step) {
            for (int64_t i = 0; i < n; ++i) actual.emplace_back(off[0] + i * step[0], off[1] + i * step[1]);
        });
        REQUIRE(actual == expected);
    }
}

}  // namespace dmlref_test_tensor
