// FILL_VALUE_CONSTANT and FILL_VALUE_SEQUENCE. Expected values come from the pages' examples, by
// hand (each stated with its derivation), or from a naive loop written here in other arithmetic
// (a FLOAT32 step through double, a FLOAT16 step through Eigen's half operators); none comes from
// dmlref's evaluation.
#include "support.hpp"

#include "dmlref/descs/fill.hpp"
#include "dmlref/explain.hpp"

#include <limits>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_fill {

using namespace dmlref;
using namespace dmlref::test;

namespace {

using CONSTANT = DML_FILL_VALUE_CONSTANT_OPERATOR_DESC;
using SEQUENCE = DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC;

template <class T> CONSTANT constant(std::vector<uint32_t> sizes, T value) {
    CONSTANT d;
    d.OutputTensor = desc(data_type_of<T>(), std::move(sizes));
    d.ValueDataType = d.OutputTensor.DataType;
    d.Value = DML_SCALAR_UNION::of(value);
    return d;
}
template <class T> SEQUENCE sequence(std::vector<uint32_t> sizes, T start, T delta) {
    SEQUENCE d;
    d.OutputTensor = desc(data_type_of<T>(), std::move(sizes));
    d.ValueDataType = d.OutputTensor.DataType;
    d.ValueStart = DML_SCALAR_UNION::of(start);
    d.ValueDelta = DML_SCALAR_UNION::of(delta);
    return d;
}
template <class D> Operator op(const D& d) { return Operator{D::kType, d}; }
template <class T, class D> std::vector<T> out(const D& d) { return as_values<T>(run(op(d), {}).at("OutputTensor")); }
// The output under FillSequenceValue=StartPlusIndexTimesDelta, asked for in the case's policies.
template <class T> std::vector<T> exact(const SEQUENCE& d) {
    Case c;
    c.op = op(d);
    c.policies = {{"FillSequenceValue", "StartPlusIndexTimesDelta"}};
    return as_values<T>(run_case(c).values.at("OutputTensor"));
}

}  // namespace

TEST_CASE("FILL_VALUE_CONSTANT and FILL_VALUE_SEQUENCE: the pages' examples") {
    // CONSTANT: Value 13.0 into a FLOAT32 {1,1,2,4}: eight 13s.
    check_bits(out<float>(constant<float>({1, 1, 2, 4}, 13.0f)), std::vector<float>(8, 13.0f));
    // SEQUENCE Example 1: FLOAT32 {1,1,1,3}, 3 then +2: [3, 5, 7].
    check_bits(out<float>(sequence<float>({1, 1, 1, 3}, 3.0f, 2.0f)), std::vector<float>{3, 5, 7});
    // Example 2: UINT8 {1,1,2,2}, 10 with ValueDelta -2, which the UINT8 member holds as 254:
    // 10, 10 + 254 = 264 = 8 (mod 256), 6, 4.
    check_bits(out<uint8_t>(sequence<uint8_t>({1, 1, 2, 2}, 10, 254)), std::vector<uint8_t>{10, 8, 6, 4});
}

TEST_CASE("FILL_VALUE_CONSTANT: every element width and rank 1 to 8, the bits of Value, a strided output") {
    // Each width's value a pattern with its top bit set: a signalling NaN 0x7d01 for FLOAT16, -0.0
    // for FLOAT32, the smallest FLOAT64 subnormal, INT64's minimum, UINT8 0xa5.
    for (uint32_t rank = 1; rank <= 8; ++rank) {
        std::vector<uint32_t> sizes(rank, 2);
        sizes[0] = 3;
        const uint64_t n = product(sizes);
        INFO("rank " << rank);
        check_bits(out<half>(constant<half>(sizes, from_bits<half>(uint16_t(0x7d01)))),
                   std::vector<half>(n, from_bits<half>(uint16_t(0x7d01))));
        check_bits(out<float>(constant<float>(sizes, -0.0f)), std::vector<float>(n, -0.0f));
        const double tiny = std::numeric_limits<double>::denorm_min();
        check_bits(out<double>(constant<double>(sizes, tiny)), std::vector<double>(n, tiny));
        const int64_t lo = std::numeric_limits<int64_t>::min();
        check_bits(out<int64_t>(constant<int64_t>(sizes, lo)), std::vector<int64_t>(n, lo));
        check_bits(out<uint8_t>(constant<uint8_t>(sizes, uint8_t(0xa5))), std::vector<uint8_t>(n, 0xa5));
    }
    // A strided output (column-major {2,3}: Strides {1,2}) is filled at every element.
    CONSTANT s = constant<int16_t>({2, 3}, int16_t(-7));
    s.OutputTensor.Strides = {1, 2};
    check_bits(out<int16_t>(s), std::vector<int16_t>(6, -7));
    // Bytes of the union past the member are not written: an INT8 -1 with the other bytes set
    // still fills 0xff.
    CONSTANT b = constant<int8_t>({2}, int8_t(-1));
    b.Value.Bytes = {0xff, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde};
    check_bits(out<int8_t>(b), std::vector<int8_t>{-1, -1});
}

TEST_CASE("FILL_VALUE_SEQUENCE: integers wrap to the width, in both signednesses and every width") {
    // INT8 120 + 5: 125, then 130 - 256 = -126, -121.
    check_bits(out<int8_t>(sequence<int8_t>({4}, 120, 5)), std::vector<int8_t>{120, 125, -126, -121});
    // UINT16 65534 + 1: 65535, 0, 1.
    check_bits(out<uint16_t>(sequence<uint16_t>({4}, 65534, 1)), std::vector<uint16_t>{65534, 65535, 0, 1});
    // INT32 with a negative step across the minimum: -2147483647, -2147483648, 2147483647.
    check_bits(out<int32_t>(sequence<int32_t>({3}, -2147483647, -1)),
               std::vector<int32_t>{-2147483647, std::numeric_limits<int32_t>::min(), 2147483647});
    // INT64 maximum + 1 is the minimum; UINT64 step 2^63 alternates.
    const int64_t mx = std::numeric_limits<int64_t>::max();
    check_bits(out<int64_t>(sequence<int64_t>({2}, mx, 1)),
               std::vector<int64_t>{mx, std::numeric_limits<int64_t>::min()});
    const uint64_t h = uint64_t(1) << 63;
    check_bits(out<uint64_t>(sequence<uint64_t>({2, 2}, 3, h)), std::vector<uint64_t>{3, h + 3, 3, h + 3});
    // A zero step repeats the start; UINT32's "-1" (0xffffffff) counts down.
    check_bits(out<uint32_t>(sequence<uint32_t>({3}, 7u, 0u)), std::vector<uint32_t>{7, 7, 7});
    check_bits(out<uint32_t>(sequence<uint32_t>({3}, 1u, 0xffffffffu)), std::vector<uint32_t>{1, 0, 0xffffffffu});
}

TEST_CASE("FILL_VALUE_SEQUENCE: floats accumulate with a rounding per step; StartPlusIndexTimesDelta rounds once") {
    // FLOAT16 2048 + 1: the halves near 2048 are 2 apart, 2049 is a tie and goes to the even 2048,
    // so the running value never moves: [2048, 2048, 2048, 2048]. Exactly, 2048 + i is 2048, 2049
    // (tie, to 2048), 2050, 2051 (tie between 2050 = 1025 * 2 and 2052 = 1026 * 2: 2052).
    const SEQUENCE h = sequence<half>({4}, half_from_double(2048), half_from_double(1));
    check_bits(out<half>(h), values_of<half>({2048, 2048, 2048, 2048}));
    // FLOAT32 2^24 + 1: the same with 16777216.
    const SEQUENCE f = sequence<float>({4}, 16777216.0f, 1.0f);
    check_bits(out<float>(f), std::vector<float>{16777216, 16777216, 16777216, 16777216});
    // Under StartPlusIndexTimesDelta:
    check_bits(exact<half>(h), values_of<half>({2048, 2048, 2050, 2052}));
    check_bits(exact<float>(f), std::vector<float>{16777216, 16777216, 16777218, 16777220});
    // FLOAT64: 2^53 + i, the same ties: 2^53, 2^53, 2^53 + 2, 2^53 + 4.
    const double t53 = 9007199254740992.0;
    check_bits(exact<double>(sequence<double>({4}, t53, 1.0)), std::vector<double>{t53, t53, t53 + 2, t53 + 4});
    // Integers: the same as accumulated (modulo 2^8).
    check_bits(exact<uint8_t>(sequence<uint8_t>({1, 1, 2, 2}, 10, 254)), std::vector<uint8_t>{10, 8, 6, 4});
    // -0 + i * -0 stays -0; 1 + 2 * -0.5 is an exact zero: +0.
    check_bits(exact<float>(sequence<float>({3}, -0.0f, -0.0f)), std::vector<float>{-0.0f, -0.0f, -0.0f});
    check_bits(exact<float>(sequence<float>({3}, 1.0f, -0.5f)), std::vector<float>{1.0f, 0.5f, 0.0f});
    // Without the reading again: the accumulated values.
    check_bits(out<float>(f), std::vector<float>{16777216, 16777216, 16777216, 16777216});
}

TEST_CASE("FILL_VALUE_SEQUENCE: the first element is ValueStart's bits; NaN sums are canonical; signed zeros") {
    // A signalling NaN start: its bits first, then NaN + 1 is the canonical NaN 0x7fc00000.
    const uint32_t snan = 0x7f800001u, qnan = 0x7fc00000u;
    check_bits(out<float>(sequence<float>({3}, from_bits<float>(snan), 1.0f)),
               std::vector<float>{from_bits<float>(snan), from_bits<float>(qnan), from_bits<float>(qnan)});
    // +inf with a -inf step: inf, then inf - inf = NaN (canonical), then NaN.
    const float inf = std::numeric_limits<float>::infinity();
    check_bits(out<float>(sequence<float>({3}, inf, -inf)),
               std::vector<float>{inf, from_bits<float>(qnan), from_bits<float>(qnan)});
    // -0 + -0 = -0; -0 + +0 = +0 (IEEE round to nearest).
    check_bits(out<float>(sequence<float>({3}, -0.0f, -0.0f)), std::vector<float>{-0.0f, -0.0f, -0.0f});
    check_bits(out<half>(sequence<half>({3}, half_from_double(-0.0), half_from_double(0.0))),
               values_of<half>({-0.0, 0.0, 0.0}));
    // FLOAT16 overflow: 65504 (2047 * 32) + 16 is the midpoint to 65536 (2048 * 32, even), so it
    // rounds to the even side, which is beyond the largest half: infinity.
    check_bits(out<half>(sequence<half>({2}, half_from_double(65504), half_from_double(16))),
               values_of<half>({65504, inf}));
}

TEST_CASE(
    "FILL_VALUE_SEQUENCE against a naive loop: FLOAT32 through double, FLOAT16 through Eigen, ranks 1 to 8, strided") {
    std::mt19937 rng(23);
    std::uniform_real_distribution<float> u(-3.0f, 3.0f);
    for (uint32_t rank = 1; rank <= 8; ++rank) {
        std::vector<uint32_t> sizes(rank, 2);
        sizes[rank - 1] = 3;
        const uint64_t n = product(sizes);
        // The output stored column-major: the sequence still follows the logical row-major order.
        std::vector<uint32_t> strides(rank);
        uint32_t s = 1;
        for (uint32_t i = 0; i < rank; ++i) {
            strides[i] = s;
            s *= sizes[i];
        }
        INFO("rank " << rank);
        const float a = u(rng), b = u(rng) / 7.0f;
        SEQUENCE f = sequence<float>(sizes, a, b);
        f.OutputTensor.Strides = strides;
        std::vector<float> want(n);
        double v = a;
        for (uint64_t i = 0; i < n; ++i) {
            want[i] = float(v);
            v = double(
                float(v + double(b)));  // the double sum of two floats rounded to float: one rounding of the exact sum
        }
        check_bits(out<float>(f), want);
        const half ha = half(a), hb = half(b / 16.0f);
        SEQUENCE g = sequence<half>(sizes, ha, hb);
        g.OutputTensor.Strides = strides;
        std::vector<half> hw(n);
        half hv = ha;
        for (uint64_t i = 0; i < n; ++i) {
            hw[i] = hv;
            hv = hv + hb;
        }  // Eigen: through float, rounded to half
        check_bits(out<half>(g), hw);
    }
}

TEST_CASE("FILL_VALUE_CONSTANT and FILL_VALUE_SEQUENCE rules; explain names the rule") {
    CONSTANT c = constant<float>({2, 2}, 1.0f);
    SEQUENCE q = sequence<int32_t>({2, 2}, 0, 1);
    CHECK_FALSE(validate(op(c)).has_errors());
    CHECK_FALSE(validate(op(q)).has_errors());
    c.ValueDataType = DataType::FLOAT16;
    CHECK(has_error(op(c), "fill-value-constant.value-data-type", "/desc/ValueDataType"));
    q.ValueDataType = DataType::UINT32;
    CHECK(has_error(op(q), "fill-value-sequence.value-data-type", "/desc/ValueDataType"));

    const Case k = parse_valid(
        R"({"format": 1, "operator": "FILL_VALUE_SEQUENCE", "desc": {"OutputTensor": {"DataType": "INT8", "Sizes": [2, 3]},
        "ValueDataType": "INT8", "ValueStart": 100, "ValueDelta": 10}, "inputs": {}})");
    // Element 4 is 100 + 4 * 10 = 140 - 256 = -116.
    const Explanation e = explain_element(with_golden(k, "OutputTensor"), "OutputTensor", 4, std::nullopt, "", {});
    CHECK(e.golden_bits == 0x8c);
    bool said = false;
    for (const auto& [key, text] : e.family.facts)
        said = said || (key == "rule" && text.find("added 4 times") != std::string::npos);
    CHECK(said);
}

}  // namespace dmlref_test_fill
