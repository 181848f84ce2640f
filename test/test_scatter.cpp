// SCATTER (SCATTER_ELEMENTS) and SCATTER_ND. Expected values come from the pages' examples, from
// hand derivation, or from an independent computation written here in numpy's terms
// (np.put_along_axis, and a tensor_scatter_nd_update loop) on the tensors' original, unpadded
// shapes with Python-style negative indices; none comes from dmlref's evaluation.
#include "support.hpp"

#include "dmlref/admissible.hpp"
#include "dmlref/descs/scatter.hpp"
#include "dmlref/diff.hpp"
#include "dmlref/explain.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_scatter {

using namespace dmlref;
using namespace dmlref::test;

namespace {

using SE = DML_SCATTER_OPERATOR_DESC;
using SND = DML_SCATTER_ND_OPERATOR_DESC;
using Shape = std::vector<uint32_t>;

template <class D> D make(DataType values, DataType indices, Shape in, Shape ix, Shape up) {
    D d;
    d.InputTensor = desc(values, in);
    d.IndicesTensor = desc(indices, std::move(ix));
    d.UpdatesTensor = desc(values, std::move(up));
    d.OutputTensor = desc(values, std::move(in));
    return d;
}

template <class D, class T, class I>
std::vector<T> scatter(const D& d, const std::vector<T>& x, const std::vector<I>& idx, const std::vector<T>& updates) {
    const auto out = run({D::kType, d}, {{"InputTensor", logical_buffer(d.InputTensor, x)},
                                         {"IndicesTensor", logical_buffer(d.IndicesTensor, idx)},
                                         {"UpdatesTensor", logical_buffer(d.UpdatesTensor, updates)}});
    return as_values<T>(out.at("OutputTensor"));
}

// The rules a case's input values break: (rule, path) of each error.
template <class D, class T, class I>
std::vector<std::pair<std::string, std::string>> value_errors(const D& d, const std::vector<T>& x,
                                                              const std::vector<I>& idx,
                                                              const std::vector<T>& updates) {
    const Diagnostics diags = validate_input_values({D::kType, d},
                                                    {{"InputTensor", logical_buffer(d.InputTensor, x)},
                                                     {"IndicesTensor", logical_buffer(d.IndicesTensor, idx)},
                                                     {"UpdatesTensor", logical_buffer(d.UpdatesTensor, updates)}},
                                                    1u << 30);
    std::vector<std::pair<std::string, std::string>> e;
    for (const auto& item : diags.items()) {
        INFO(format(item, "<test>"));
        if (item.severity == Severity::Error) e.emplace_back(item.rule, item.path);
    }
    return e;
}

size_t count_of(const Shape& s) { return std::accumulate(s.begin(), s.end(), size_t(1), std::multiplies<>()); }
std::vector<int64_t> coord_of(const Shape& s, size_t f) {
    std::vector<int64_t> c(s.size());
    for (size_t i = s.size(); i-- > 0;) {
        c[i] = int64_t(f % s[i]);
        f /= s[i];
    }
    return c;
}
size_t flat_of(const Shape& s, const std::vector<int64_t>& c) {
    size_t f = 0;
    for (size_t i = 0; i < s.size(); ++i) f = f * s[i] + size_t(c[i]);
    return f;
}
Shape padded(Shape s, size_t rank) {
    s.insert(s.begin(), rank - s.size(), 1);
    return s;
}
struct Lcg {
    uint64_t s;
    uint32_t next(uint32_t n) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        return uint32_t((s >> 33) % n);
    }
};

}  // namespace

TEST_CASE("SCATTER_ND: the page's example; SCATTER_ELEMENTS by hand") {
    // [1..8]; indices {4,1} [[4],[3],[1],[7]], updates [9,10,11,12] -> [1,11,3,10,9,6,7,12]. The
    // page gives the input and updates 1-D and the indices 2-D, which its first constraint (one
    // DimensionCount) refuses, and FLOAT32 indices, which its table does not list: here the input,
    // updates and output are padded to {1,8} and {1,4}, and the indices are UINT32.
    SND n = make<SND>(DataType::FLOAT32, DataType::UINT32, {1, 8}, {4, 1}, {1, 4});
    n.InputDimensionCount = 1;
    n.IndicesDimensionCount = 2;
    CHECK(scatter(n, std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}, std::vector<uint32_t>{4, 3, 1, 7},
                  std::vector<float>{9, 10, 11, 12}) == std::vector<float>{1, 11, 3, 10, 9, 6, 7, 12});
    // SCATTER_ELEMENTS Axis 1: output[i, indices[i, j]] = updates[i, j] on [[0,0,0],[0,0,0]] with
    // indices [[2,0],[1,-1]] (-1 is column 2) and updates [[1,2],[3,4]] -> [[2,0,1],[0,3,4]].
    SE e = make<SE>(DataType::INT32, DataType::INT32, {2, 3}, {2, 2}, {2, 2});
    e.Axis = 1;
    CHECK(scatter(e, std::vector<int32_t>{0, 0, 0, 0, 0, 0}, std::vector<int32_t>{2, 0, 1, -1},
                  std::vector<int32_t>{1, 2, 3, 4}) == std::vector<int32_t>{2, 0, 1, 0, 3, 4});
}

TEST_CASE("SCATTER_ELEMENTS and SCATTER_ND against put_along_axis and tensor_scatter_nd_update") {
    Lcg g{3};
    for (int trial = 0; trial < 30; ++trial) {
        // put_along_axis with distinct targets: along the axis each line gets a prefix of a rotation.
        const size_t r = 1 + g.next(4), axis = g.next(uint32_t(r));
        Shape ds(r);
        for (auto& s : ds) s = 1 + g.next(3);
        Shape is = ds;
        is[axis] = 1 + g.next(ds[axis]);
        std::vector<double> data(count_of(ds)), updates(count_of(is));
        for (size_t i = 0; i < data.size(); ++i) data[i] = double(i) + 0.25;
        for (size_t i = 0; i < updates.size(); ++i) updates[i] = -double(i) - 1;
        std::vector<int64_t> idx(count_of(is));
        const uint32_t shift = g.next(ds[axis]);
        std::vector<double> expected = data;
        for (size_t f = 0; f < idx.size(); ++f) {
            auto c = coord_of(is, f);
            const int64_t target = (c[axis] + shift) % ds[axis];
            idx[f] = g.next(2) ? target - int64_t(ds[axis]) : target;  // the same element, from the end half the time
            c[axis] = target;
            expected[flat_of(ds, c)] = updates[f];
        }
        SE e = make<SE>(DataType::FLOAT64, DataType::INT64, padded(ds, 8), padded(is, 8), padded(is, 8));
        e.Axis = uint32_t(8 - r + axis);
        INFO("trial " << trial << ": data " << sizes_text(ds) << ", indices " << sizes_text(is) << ", axis " << axis);
        CHECK(scatter(e, data, idx, updates) == expected);

        // tensor_scatter_nd_update with distinct tuples: m tuples of k coordinates.
        const size_t k = 1 + g.next(uint32_t(r));
        uint32_t lines = 1;
        for (size_t i = 0; i < k; ++i) lines *= ds[i];
        const uint32_t m = 1 + g.next(lines);
        Shape nis = {m, uint32_t(k)};
        Shape nus = {m};
        for (size_t i = k; i < r; ++i) nus.push_back(ds[i]);
        std::vector<int64_t> tuples(m * k);
        std::vector<double> nup(count_of(nus));
        for (size_t i = 0; i < nup.size(); ++i) nup[i] = 100 + double(i);
        std::vector<double> nexp = data;
        const uint32_t start = g.next(lines);
        const size_t tail = count_of(Shape(ds.begin() + std::ptrdiff_t(k), ds.end()));
        for (uint32_t t = 0; t < m; ++t) {
            const auto c = coord_of(Shape(ds.begin(), ds.begin() + std::ptrdiff_t(k)),
                                    (start + t) % lines);  // distinct
            for (size_t j = 0; j < k; ++j) tuples[t * k + j] = g.next(2) ? c[j] - int64_t(ds[j]) : c[j];
            size_t base = 0;
            for (size_t j = 0; j < k; ++j) base = base * ds[j] + size_t(c[j]);
            for (size_t q = 0; q < tail; ++q) nexp[base * tail + q] = nup[t * tail + q];
        }
        const size_t R = std::max<size_t>({r, 2, nus.size()});
        SND n = make<SND>(DataType::FLOAT64, DataType::INT32, padded(ds, R), padded(nis, R), padded(nus, R));
        n.InputDimensionCount = uint32_t(r);
        n.IndicesDimensionCount = 2;
        std::vector<int32_t> t32(tuples.begin(), tuples.end());
        CHECK(scatter(n, data, t32, nup) == nexp);
    }
}

TEST_CASE("SCATTER: duplicate indices are valid, the last write in order is the value; out of range refused") {
    // Axis 0 of [0,0,0]: indices [1,1] with updates [5,6] both write element 1: no error, and the
    // value is the last in UpdatesTensor's row-major order (6); -2 of 3 is element 1 too.
    SE e = make<SE>(DataType::FLOAT32, DataType::INT32, {3}, {2}, {2});
    const std::vector<float> x = {0, 0, 0};
    CHECK(value_errors(e, x, std::vector<int32_t>{1, 1}, std::vector<float>{5, 6}).empty());
    CHECK(scatter(e, x, std::vector<int32_t>{1, -2}, std::vector<float>{5, 6}) == std::vector<float>{0, 6, 0});
    CHECK(scatter(e, x, std::vector<int32_t>{1, -2}, std::vector<float>{7, 7}) == std::vector<float>{0, 7, 0});
    // Out of range: 3 and -4 of 3, UINT32 0xffffffff.
    CHECK(
        value_errors(e, x, std::vector<int32_t>{3, 0}, std::vector<float>{1, 2}) ==
        std::vector<std::pair<std::string, std::string>>{{"scatter-elements.index-range", "/inputs/IndicesTensor/0"}});
    CHECK(value_errors(e, x, std::vector<int32_t>{0, -4}, std::vector<float>{1, 2}).size() == 1);
    // SCATTER_ND: two tuples (0) and (-2) into a {2,2}: both write row 0; the second wins.
    SND n = make<SND>(DataType::UINT8, DataType::INT64, {2, 2}, {2, 1}, {2, 2});
    n.InputDimensionCount = n.IndicesDimensionCount = 2;
    CHECK(
        value_errors(n, std::vector<uint8_t>{0, 0, 0, 0}, std::vector<int64_t>{0, -2}, std::vector<uint8_t>{1, 2, 3, 4})
            .empty());
    CHECK(scatter(n, std::vector<uint8_t>{9, 9, 9, 9}, std::vector<int64_t>{0, -2}, std::vector<uint8_t>{1, 2, 3, 4}) ==
          std::vector<uint8_t>{3, 4, 9, 9});
}

// A SCATTER_ELEMENTS case of [10, 20, 30] (FLOAT32), INT32 indices and updates as JSON text, with
// `expected` (JSON text of the expected output's object) when given.
std::string scatter_case(const std::string& indices, const std::string& updates, const std::string& expected = "",
                         const std::string& policies = "") {
    const std::string n = std::to_string(std::count(indices.begin(), indices.end(), ',') + 1);
    return R"({"format": 1, "operator": "SCATTER_ELEMENTS", "desc": {
        "InputTensor": {"DataType": "FLOAT32", "Sizes": [3]}, "IndicesTensor": {"DataType": "INT32", "Sizes": [)" +
           n + R"(]},
        "UpdatesTensor": {"DataType": "FLOAT32", "Sizes": [)" +
           n + R"(]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [3]}, "Axis": 0},
        "inputs": {"InputTensor": [10, 20, 30], "IndicesTensor": )" +
           indices + R"(, "UpdatesTensor": )" + updates + "}" +
           (expected.empty() ? "" : R"(, "expected": {"OutputTensor": )" + expected + "}") +
           (policies.empty() ? "" : R"(, "policies": )" + policies) + "}";
}

uint64_t f32(float v) { return to_bits(v); }

TEST_CASE("DuplicateIndex=AnyWrite: the admissible values of each element, derived by hand") {
    // Indices [1, -2, 1, 0, 2] (-2 of 3 is 1) with updates [5, 6, 5, 8, 9]: element 1 is written by
    // updates 0 (5), 1 (6) and 2 (5); its distinct values in the order of each one's last write are
    // 6 (last at 1), then 5 (last at 2), the golden's value. Elements 0 and 2 have one write each.
    const Case c = parse_valid(scatter_case("[1, -2, 1, 0, 2]", "[5, 6, 5, 8, 9]"));
    CHECK(admissible(c, "OutputTensor") == std::vector<Admissible>{{1, {f32(6), f32(5)}}});
    CHECK(as_values<float>(run_case(c).values.at("OutputTensor")) == std::vector<float>{8, 5, 9});
    // -0 and +0 differ in bits: both admissible. One value written twice: one answer, no list.
    CHECK(admissible(parse_valid(scatter_case("[0, 0]", "[0.0, -0.0]")), "OutputTensor") ==
          std::vector<Admissible>{{0, {f32(0.0f), f32(-0.0f)}}});
    CHECK(admissible(parse_valid(scatter_case("[2, -1, 2]", "[7, 7, 7]")), "OutputTensor").empty());
    // Two elements, each with its own list; three distinct values: [4, 3, 4, 3, 1] into element 0
    // leaves 4 (last at 2), 3 (last at 3), 1 (last at 4).
    CHECK(admissible(parse_valid(scatter_case("[0, 0, 0, 0, 0, 2, 2]", "[4, 3, 4, 3, 1, 1, 2]")), "OutputTensor") ==
          std::vector<Admissible>{{0, {f32(4), f32(3), f32(1)}}, {2, {f32(1), f32(2)}}});
    // LastInOrder: the last write is the only answer.
    Case last = c;
    last.policies["DuplicateIndex"] = "LastInOrder";
    CHECK(admissible(last, "OutputTensor").empty());
    CHECK(run_case(last).values == run_case(c).values);
    // SCATTER_ND: tuples (0) and (-2) of a {2, 2} both write row 0 with rows [1, 2] and [3, 4].
    const Case nd = parse_valid(R"({"format": 1, "operator": "SCATTER_ND", "desc": {
        "InputTensor": {"DataType": "UINT8", "Sizes": [2, 2]}, "IndicesTensor": {"DataType": "INT64", "Sizes": [2, 1]},
        "UpdatesTensor": {"DataType": "UINT8", "Sizes": [2, 2]}, "OutputTensor": {"DataType": "UINT8", "Sizes": [2, 2]},
        "InputDimensionCount": 2, "IndicesDimensionCount": 2},
        "inputs": {"InputTensor": [9, 9, 9, 9], "IndicesTensor": [0, -2], "UpdatesTensor": [1, 2, 3, 4]}})");
    CHECK(admissible(nd, "OutputTensor") == std::vector<Admissible>{{0, {1, 3}}, {1, {2, 4}}});
}

TEST_CASE("DuplicateIndex=AnyWrite: the golden states the lists, reads them back, and refuses malformed ones") {
    const Case c = parse_valid(scatter_case("[1, -2, 1, 0, 2]", "[5, 6, 5, 8, 9]"));
    const std::string text = write_golden(c, run_case(c), "golden.json");
    CHECK(text.find(R"("DuplicateIndex": "AnyWrite")") != std::string::npos);
    CHECK(text.find(R"("Admissible": [{"Index": 1, "Values": [6, 5]}])") != std::string::npos);
    const Case back = parse_valid(text);
    CHECK(write_golden(back, run_case(back), "golden.json") == text);
    // Under LastInOrder the golden has no list.
    Case last = c;
    last.policies["DuplicateIndex"] = "LastInOrder";
    CHECK(write_golden(last, run_case(last), "golden.json").find("Admissible") == std::string::npos);

    const auto error = [](const std::string& admissible, const std::string& rule, const std::string& path) {
        const Diagnostics d = diagnose(scatter_case("[1, -2, 1, 0, 2]", "[5, 6, 5, 8, 9]",
                                                    R"({"Values": [8, 5, 9], "Admissible": )" + admissible + "}"));
        INFO(first_error(d));
        bool found = false;
        for (const auto& item : d.items())
            found = found || (item.severity == Severity::Error && item.rule == rule && item.path == path);
        CHECK(found);
    };
    const std::string a = "/expected/OutputTensor/Admissible";
    error(R"({"Index": 1})", "expected.admissible", a);
    error(R"([{"Index": 1, "Values": 5}])", "expected.admissible", a + "/0");
    error(R"([{"Index": 3, "Values": [6, 5]}])", "expected.admissible-index", a + "/0/Index");  // 3 elements
    error(R"([{"Index": -1, "Values": [6, 5]}])", "expected.admissible-index", a + "/0/Index");
    error(R"([{"Index": 1, "Values": [6, 5]}, {"Index": 1, "Values": [6, 5]}])", "expected.admissible-index",
          a + "/1/Index");
    error(R"([{"Index": 0, "Values": [8, 5]}])", "expected.admissible-index", a + "/0/Index");  // one write
    error(R"([{"Index": 1, "Values": [5]}])", "expected.admissible-count", a + "/0/Values");
    error(R"([{"Index": 1, "Values": [5, 5]}])", "expected.admissible-count", a + "/0/Values/1");
    error(R"([{"Index": 1, "Values": [6, "five"]}])", "value.parse", a + "/0/Values/1");
    error(R"([{"Index": 1, "Values": [6, 7]}])", "expected.admissible-value", a + "/0/Values/1");     // no write of 7
    error(R"([{"Index": 1, "Values": [6, 7, 5]}])", "expected.admissible-value", a + "/0/Values/1");  // no write of 7
    error(R"([{"Index": 1, "Values": [6, 5], "Why": 1}])", "case.unknown-key", a + "/0/Why");
    // The same values in another order are the same list.
    parse_valid(scatter_case("[1, -2, 1, 0, 2]", "[5, 6, 5, 8, 9]",
                             R"({"Values": [8, 5, 9], "Admissible": [{"Index": 1, "Values": [5, 6]}]})"));
    // LastInOrder admits no list.
    const Diagnostics d = diagnose(
        scatter_case("[1, -2, 1, 0, 2]", "[5, 6, 5, 8, 9]",
                     R"({"Values": [8, 5, 9], "Admissible": [{"Index": 1, "Values": [6, 5]}]})",
                     R"({"DuplicateIndex": "LastInOrder"})"));
    CHECK(first_error(d).find("expected.admissible-index") != std::string::npos);
}

TEST_CASE("DuplicateIndex=AnyWrite: diff accepts each admissible value and nothing else; explain lists them") {
    const Case c = parse_valid(scatter_case("[1, -2, 1, 0, 2]", "[5, 6, 5, 8, 9]"));
    const Case g = parse_valid(write_golden(c, run_case(c), "golden.json"));
    const auto judge = [&](std::vector<float> v) {
        std::vector<std::byte> b(v.size() * sizeof(float));
        std::memcpy(b.data(), v.data(), b.size());
        return census(g, "OutputTensor", b, {});
    };
    // Element 1 admits 6 (the 1st) and 5 (the 2nd, the golden's value): flagged SeveralWrites, and
    // counted under the one the backend wrote.
    const auto count = [](const OutputCensus& o, const std::string& reason) {
        const auto it = o.boundary.find(reason);
        return it == o.boundary.end() ? uint64_t(0) : it->second.elements;
    };
    const OutputCensus six = judge({8, 6, 9}), five = judge({8, 5, 9});
    CHECK(six.over == 0);
    CHECK(six.identical == 3);
    CHECK(count(six, "SeveralWrites") == 1);
    CHECK(count(six, "SeveralWrites:1") == 1);
    CHECK(count(six, "SeveralWrites:2") == 0);
    CHECK(five.over == 0);
    CHECK(count(five, "SeveralWrites:2") == 1);
    // A value no write carries, the sum of the three writes (a backend that accumulates), and a
    // wrong value at element 0, which one update writes: over.
    const OutputCensus seven = judge({8, 7, 9}), sum = judge({8, 16, 9}), other = judge({5, 5, 9});
    CHECK(seven.over == 1);
    CHECK(seven.boundary.at("SeveralWrites").over == 1);
    CHECK(count(seven, "SeveralWrites:1") + count(seven, "SeveralWrites:2") == 0);
    CHECK(sum.over == 1);
    CHECK(other.over == 1);
    CHECK(count(other, "SeveralWrites:2") == 1);
    // The report says which write the backend took.
    const auto text = [](const OutputCensus& o) {
        DiffReport r;
        CaseDiff d;
        d.name = "t";
        d.outputs = {o};
        r.cases = {d};
        return report_text(r);
    };
    CHECK(text(five).find("several writes: 1 element had several admissible writes; the backend wrote the 2nd\n") !=
          std::string::npos);
    CHECK(text(seven).find("1 element had several admissible writes; the backend wrote none of them\n") !=
          std::string::npos);
    // explain names every candidate write with its UpdatesTensor and IndicesTensor positions.
    const Explanation e = explain_element(g, "OutputTensor", 1, std::nullopt, "", {});
    std::vector<std::string> candidates;
    for (const auto& [k, v] : e.family.facts)
        if (k == "candidate") candidates.push_back(v);
    CHECK(candidates == std::vector<std::string>{"UpdatesTensor[0] = 5, by IndicesTensor[0] = 1",
                                                 "UpdatesTensor[1] = 6, by IndicesTensor[1] = -2",
                                                 "UpdatesTensor[2] = 5, by IndicesTensor[2] = 1"});
    // With the backend's value, explain judges it as diff does: 6 is admissible, 7 is not.
    const auto fact = [](const Explanation& x, const std::string& text) {
        for (const auto& [k, v] : x.family.facts)
            if (k == "admissible" && v == text) return true;
        return false;
    };
    const Explanation took6 = explain_element(g, "OutputTensor", 1, f32(6), "actual", {});
    CHECK(took6.judgement.verdict == Verdict::Identical);
    CHECK(fact(took6, "2 values could win (the golden's is the last): 6, 5"));
    CHECK(fact(took6, "the backend wrote admissible value 1 of 2"));
    const Explanation took7 = explain_element(g, "OutputTensor", 1, f32(7), "actual", {});
    CHECK(took7.judgement.verdict == Verdict::Over);
    CHECK(fact(took7, "the backend wrote none of them"));
}

TEST_CASE("SCATTER moves bits; strided and broadcast tensors") {
    // FLOAT16 updates 0x7e01 (a NaN payload) and 0x8000 (-0) over 0x3c00 (1.0).
    SE e = make<SE>(DataType::FLOAT16, DataType::UINT64, {3}, {2}, {2});
    const auto h = [](uint16_t b) { return from_bits<half>(b); };
    check_bits(scatter(e, std::vector<half>{h(0x3c00), h(0x3c00), h(0x3c00)}, std::vector<uint64_t>{2, 0},
                       std::vector<half>{h(0x7e01), h(0x8000)}),
               std::vector<half>{h(0x8000), h(0x3c00), h(0x7e01)});
    // InputTensor broadcast (Strides 0, 1: every row [1,2,3]), UpdatesTensor transposed (Strides 1, 2:
    // logical [[10,20],[30,40]] stored [10,30,20,40]), OutputTensor with padded rows (Strides 4, 1).
    SE s = make<SE>(DataType::INT16, DataType::UINT32, {2, 3}, {2, 2}, {2, 2});
    s.InputTensor.Strides = {0, 1};
    s.UpdatesTensor.Strides = {1, 2};
    s.OutputTensor.Strides = {4, 1};
    s.Axis = 1;
    const auto out = run({OperatorType::SCATTER_ELEMENTS, s},
                         {{"InputTensor", buffer<int16_t>(s.InputTensor, {1, 2, 3})},
                          {"IndicesTensor", buffer<uint32_t>(s.IndicesTensor, {0, 2, 1, 0})},
                          {"UpdatesTensor", buffer<int16_t>(s.UpdatesTensor, {10, 30, 20, 40})}});
    // Row 0: [1,2,3] with [0]=10, [2]=20 -> [10,2,20]; row 1: [1]=30, [0]=40 -> [40,30,3].
    CHECK(as_values<int16_t>(out.at("OutputTensor")) == std::vector<int16_t>{10, 2, 20, 40, 30, 3});
}

TEST_CASE("scatter validation: the pages' constraints, each with its rule") {
    SE e = make<SE>(DataType::FLOAT32, DataType::INT32, {2, 3}, {2, 2}, {2, 2});
    e.Axis = 1;
    CHECK_FALSE(validate({OperatorType::SCATTER_ELEMENTS, e}).has_errors());
    SE b = e;
    b.UpdatesTensor.DataType = DataType::FLOAT16;
    CHECK(has_error({OperatorType::SCATTER_ELEMENTS, b}, "scatter-elements.same-data-type",
                    "/desc/UpdatesTensor/DataType"));
    b = e;
    b.OutputTensor.DataType = DataType::INT32;
    CHECK(has_error({OperatorType::SCATTER_ELEMENTS, b}, "scatter-elements.same-data-type",
                    "/desc/OutputTensor/DataType"));
    b = e;
    b.OutputTensor.Sizes = {3, 2};
    CHECK(has_error({OperatorType::SCATTER_ELEMENTS, b}, "scatter-elements.output-sizes", "/desc/OutputTensor/Sizes"));
    b = e;
    b.UpdatesTensor.Sizes = {2, 3};
    CHECK(
        has_error({OperatorType::SCATTER_ELEMENTS, b}, "scatter-elements.updates-sizes", "/desc/UpdatesTensor/Sizes"));
    b = e;
    b.IndicesTensor.Sizes = b.UpdatesTensor.Sizes = {1, 2};
    CHECK(has_error({OperatorType::SCATTER_ELEMENTS, b}, "scatter-elements.indices-sizes",
                    "/desc/IndicesTensor/Sizes/0"));
    b = e;
    b.Axis = 2;
    CHECK(has_error({OperatorType::SCATTER_ELEMENTS, b}, "scatter-elements.axis", "/desc/Axis"));
    b = e;
    b.IndicesTensor.DataType = DataType::UINT16;
    CHECK(has_error({OperatorType::SCATTER_ELEMENTS, b}, "scatter-elements.indices-data-type",
                    "/desc/IndicesTensor/DataType"));
    b = e;
    b.UpdatesTensor.Sizes = {4};
    CHECK(has_error({OperatorType::SCATTER_ELEMENTS, b}, "scatter-elements.dimension-count",
                    "/desc/UpdatesTensor/Sizes"));

    SND n = make<SND>(DataType::FLOAT32, DataType::UINT32, {1, 8}, {4, 1}, {1, 4});
    n.InputDimensionCount = 1;
    n.IndicesDimensionCount = 2;
    CHECK_FALSE(validate({OperatorType::SCATTER_ND, n}).has_errors());
    SND m = n;
    m.UpdatesTensor.Sizes = {4, 1};
    CHECK(has_error({OperatorType::SCATTER_ND, m}, "scatter-nd.updates-sizes", "/desc/UpdatesTensor/Sizes"));
    m = n;
    m.IndicesTensor.Sizes = {4, 2};  // 2-tuples into 1 meaningful dimension
    CHECK(has_error({OperatorType::SCATTER_ND, m}, "scatter-nd.tuple-size", "/desc/IndicesTensor/Sizes/1"));
    m = n;
    m.InputDimensionCount = 3;
    CHECK(has_error({OperatorType::SCATTER_ND, m}, "scatter-nd.input-dimension-count", "/desc/InputDimensionCount"));
}

}  // namespace dmlref_test_scatter
