// SCATTER (SCATTER_ELEMENTS) and SCATTER_ND. Expected values come from the pages' examples, from
// hand derivation, or from an independent computation written here in numpy's terms
// (np.put_along_axis, and a tensor_scatter_nd_update loop) on the tensors' original, unpadded
// shapes with Python-style negative indices; none comes from dmlref's evaluation.
#include "support.hpp"

#include "dmlref/descs/scatter.hpp"

#include <numeric>

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

TEST_CASE("SCATTER: duplicate indices with different updates are refused, with the same bits taken") {
    // Axis 0 of [0,0,0]: indices [1,1] with updates [5,6] both write element 1: no right answer.
    SE e = make<SE>(DataType::FLOAT32, DataType::INT32, {3}, {2}, {2});
    const std::vector<float> x = {0, 0, 0};
    CHECK(value_errors(e, x, std::vector<int32_t>{1, 1}, std::vector<float>{5, 6}) ==
          std::vector<std::pair<std::string, std::string>>{
              {"scatter-elements.duplicate-index", "/inputs/IndicesTensor/1"}});
    // -2 is element 1 too.
    CHECK(value_errors(e, x, std::vector<int32_t>{1, -2}, std::vector<float>{5, 6}).size() == 1);
    // The same bits: one answer, taken. -0 and +0 differ in bits: refused.
    CHECK(value_errors(e, x, std::vector<int32_t>{1, -2}, std::vector<float>{7, 7}).empty());
    CHECK(scatter(e, x, std::vector<int32_t>{1, -2}, std::vector<float>{7, 7}) == std::vector<float>{0, 7, 0});
    CHECK(value_errors(e, x, std::vector<int32_t>{1, 1}, std::vector<float>{0.0f, -0.0f}).size() == 1);
    // Out of range: 3 and -4 of 3, UINT32 0xffffffff.
    CHECK(
        value_errors(e, x, std::vector<int32_t>{3, 0}, std::vector<float>{1, 2}) ==
        std::vector<std::pair<std::string, std::string>>{{"scatter-elements.index-range", "/inputs/IndicesTensor/0"}});
    CHECK(value_errors(e, x, std::vector<int32_t>{0, -4}, std::vector<float>{1, 2}).size() == 1);
    // SCATTER_ND: two tuples (0) and (-2) into a {2,2}: both write row 0, with different rows of updates.
    SND n = make<SND>(DataType::UINT8, DataType::INT64, {2, 2}, {2, 1}, {2, 2});
    n.InputDimensionCount = n.IndicesDimensionCount = 2;
    CHECK(
        value_errors(n, std::vector<uint8_t>{0, 0, 0, 0}, std::vector<int64_t>{0, -2}, std::vector<uint8_t>{1, 2, 3, 4})
            .size() == 2);
    CHECK(scatter(n, std::vector<uint8_t>{0, 0, 0, 0}, std::vector<int64_t>{-1, 0}, std::vector<uint8_t>{1, 2, 3, 4}) ==
          std::vector<uint8_t>{3, 4, 1, 2});
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
