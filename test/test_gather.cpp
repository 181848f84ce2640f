// GATHER, GATHER_ELEMENTS, GATHER_ND, GATHER_ND1. Expected values come from the pages' examples,
// from hand derivation, or from an independent computation written here in numpy's terms
// (np.take, np.take_along_axis, gather_nd with batch_dims) on the tensors' original, unpadded
// shapes, with Python-style negative indices; none comes from dmlref's evaluation.
#include "support.hpp"

#include "dmlref/descs/gather.hpp"

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_gather {

using namespace dmlref;
using namespace dmlref::test;

namespace {

using G = DML_GATHER_OPERATOR_DESC;
using GE = DML_GATHER_ELEMENTS_OPERATOR_DESC;
using GND = DML_GATHER_ND_OPERATOR_DESC;
using GND1 = DML_GATHER_ND1_OPERATOR_DESC;
using Shape = std::vector<uint32_t>;

template <class D> D make(DataType values, DataType indices, Shape in, Shape ix, Shape out) {
    D d;
    d.InputTensor = desc(values, std::move(in));
    d.IndicesTensor = desc(indices, std::move(ix));
    d.OutputTensor = desc(values, std::move(out));
    return d;
}

// GATHER of 1-D indices (IndexDimensions 1).
G take(DataType values, DataType indices, Shape in, Shape ix, Shape out) {
    G d = make<G>(values, indices, std::move(in), std::move(ix), std::move(out));
    d.IndexDimensions = 1;
    return d;
}

// Runs the operator on float inputs and int32 indices (or the types given by the vectors).
template <class D, class T, class I>
std::vector<T> gather(const D& d, const std::vector<T>& x, const std::vector<I>& idx) {
    const auto out = run({D::kType, d}, {{"InputTensor", logical_buffer(d.InputTensor, x)},
                                         {"IndicesTensor", logical_buffer(d.IndicesTensor, idx)}});
    return as_values<T>(out.at("OutputTensor"));
}

// ---- The independent computation: numpy's indexing on unpadded shapes ----------------------

size_t count_of(const Shape& s) {
    size_t n = 1;
    for (uint32_t v : s) n *= v;
    return n;
}
// Row-major flat index of a coordinate, and back.
size_t flat_of(const Shape& s, const std::vector<int64_t>& c) {
    size_t f = 0;
    for (size_t i = 0; i < s.size(); ++i) f = f * s[i] + size_t(c[i]);
    return f;
}
std::vector<int64_t> coord_of(const Shape& s, size_t f) {
    std::vector<int64_t> c(s.size());
    for (size_t i = s.size(); i-- > 0;) {
        c[i] = int64_t(f % s[i]);
        f /= s[i];
    }
    return c;
}
int64_t py_index(int64_t i, uint32_t size) { return i < 0 ? i + size : i; }  // a[-1] is a[size - 1]
Shape cat(std::initializer_list<Shape> parts) {
    Shape s;
    for (const auto& p : parts) s.insert(s.end(), p.begin(), p.end());
    return s;
}
Shape sub(const Shape& s, size_t from, size_t to) {
    return Shape(s.begin() + std::ptrdiff_t(from), s.begin() + std::ptrdiff_t(to));
}
Shape padded(Shape s, size_t rank) {
    s.insert(s.begin(), rank - s.size(), 1);
    return s;
}

// np.take(data, indices, axis): out.shape = data.shape[:axis] + indices.shape + data.shape[axis+1:].
std::vector<double> np_take(const std::vector<double>& data, const Shape& ds, const std::vector<int64_t>& idx,
                            const Shape& is, size_t axis) {
    const Shape os = cat({sub(ds, 0, axis), is, sub(ds, axis + 1, ds.size())});
    std::vector<double> out(count_of(os));
    for (size_t f = 0; f < out.size(); ++f) {
        const auto o = coord_of(os, f);
        const std::vector<int64_t> ic(o.begin() + std::ptrdiff_t(axis), o.begin() + std::ptrdiff_t(axis + is.size()));
        std::vector<int64_t> dc(o.begin(), o.begin() + std::ptrdiff_t(axis));
        dc.push_back(py_index(idx[flat_of(is, ic)], ds[axis]));
        dc.insert(dc.end(), o.begin() + std::ptrdiff_t(axis + is.size()), o.end());
        out[f] = data[flat_of(ds, dc)];
    }
    return out;
}

// np.take_along_axis(data, indices, axis).
std::vector<double> np_take_along_axis(const std::vector<double>& data, const Shape& ds,
                                       const std::vector<int64_t>& idx, const Shape& is, size_t axis) {
    std::vector<double> out(count_of(is));
    for (size_t f = 0; f < out.size(); ++f) {
        auto c = coord_of(is, f);
        c[axis] = py_index(idx[f], ds[axis]);
        out[f] = data[flat_of(ds, c)];
    }
    return out;
}

// gather_nd(data, indices, batch_dims) as TensorFlow and ONNX GatherND define it: the last
// dimension of indices holds tuples into data's dimensions after the batch.
std::vector<double> gather_nd(const std::vector<double>& data, const Shape& ds, const std::vector<int64_t>& idx,
                              const Shape& is, size_t batch) {
    const size_t k = is.back();
    const Shape os = cat({sub(is, 0, is.size() - 1), sub(ds, batch + k, ds.size())});
    std::vector<double> out(count_of(os));
    for (size_t f = 0; f < out.size(); ++f) {
        const auto o = coord_of(os, f);
        std::vector<int64_t> dc(o.begin(), o.begin() + std::ptrdiff_t(batch));
        std::vector<int64_t> ic(o.begin(), o.begin() + std::ptrdiff_t(is.size() - 1));
        for (size_t j = 0; j < k; ++j) {
            ic.push_back(int64_t(j));
            dc.push_back(py_index(idx[flat_of(is, ic)], ds[batch + j]));
            ic.pop_back();
        }
        dc.insert(dc.end(), o.begin() + std::ptrdiff_t(is.size() - 1), o.end());
        out[f] = data[flat_of(ds, dc)];
    }
    return out;
}

// A small deterministic generator for shapes and indices.
struct Lcg {
    uint64_t s;
    uint32_t next(uint32_t n) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        return uint32_t((s >> 33) % n);
    }
};

std::vector<double> iota_values(size_t n) {
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = double(i) + 0.5;
    return v;
}
// Indices from -size to size - 1 (every valid one, negatives included).
std::vector<int64_t> random_indices(Lcg& g, size_t n, uint32_t size) {
    std::vector<int64_t> v(n);
    for (auto& x : v) x = int64_t(g.next(2 * size)) - int64_t(size);
    return v;
}

}  // namespace

TEST_CASE("GATHER: the page's examples") {
    // Example 1: [11,12,13,14] at [3,1,3,0,2] -> [14,12,14,11,13].
    CHECK(gather(take(DataType::FLOAT32, DataType::UINT32, {4}, {5}, {5}), std::vector<float>{11, 12, 13, 14},
                 std::vector<uint32_t>{3, 1, 3, 0, 2}) == std::vector<float>{14, 12, 14, 11, 13});
    // Example 2: rows 0, 1, 1, 2 of [[1,2],[3,4],[5,6]] (IndexDimensions 1, indices {1,4}).
    G e2 = make<G>(DataType::FLOAT32, DataType::UINT32, {3, 2}, {1, 4}, {4, 2});
    e2.IndexDimensions = 1;
    CHECK(gather(e2, std::vector<float>{1, 2, 3, 4, 5, 6}, std::vector<uint32_t>{0, 1, 1, 2}) ==
          std::vector<float>{1, 2, 3, 4, 3, 4, 5, 6});
    // Example 3 swaps columns: output[y, x] = input[y, indices[x]] -> [[2,1],[4,3],[6,5]]. The page
    // states IndexDimensions 2, which its own rank rule refuses (2 + 2 - 1 > 2); 1 gives its output.
    G e3 = make<G>(DataType::FLOAT32, DataType::UINT32, {3, 2}, {1, 2}, {3, 2});
    e3.Axis = 1;
    e3.IndexDimensions = 2;
    CHECK(has_error({OperatorType::GATHER, e3}, "gather.output-sizes", "/desc/OutputTensor/Sizes"));
    e3.IndexDimensions = 1;
    CHECK(gather(e3, std::vector<float>{1, 2, 3, 4, 5, 6}, std::vector<uint32_t>{1, 0}) ==
          std::vector<float>{2, 1, 4, 3, 6, 5});
    // Example 4: Axis 2, indices {1,1,2} = [[0,2]]: output[z,y,x] = input[0,z,indices[y,x]] -> [[[1,3]],[[4,6]],[[7,9]]].
    G e4 = make<G>(DataType::FLOAT32, DataType::UINT32, {1, 3, 3}, {1, 1, 2}, {3, 1, 2});
    e4.Axis = 2;
    e4.IndexDimensions = 2;
    CHECK(gather(e4, std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9}, std::vector<uint32_t>{0, 2}) ==
          std::vector<float>{1, 3, 4, 6, 7, 9});
    // Example 5: Axis 1, indices [[0,1],[1,2]]: output[z,y,x] = input[0, indices[z,y], x].
    G e5 = make<G>(DataType::FLOAT32, DataType::UINT32, {1, 3, 2}, {1, 2, 2}, {2, 2, 2});
    e5.Axis = 1;
    e5.IndexDimensions = 2;
    CHECK(gather(e5, std::vector<float>{1, 2, 3, 4, 5, 6}, std::vector<uint32_t>{0, 1, 1, 2}) ==
          std::vector<float>{1, 2, 3, 4, 3, 4, 5, 6});
}

TEST_CASE("GATHER_ELEMENTS, GATHER_ND, GATHER_ND1: the pages' examples") {
    // GATHER_ELEMENTS: Axis 0, [[1,2,3],[4,5,6],[7,8,9]] at [[1,2,0],[2,0,0]] -> [[4,8,3],[7,2,3]].
    CHECK(gather(make<GE>(DataType::FLOAT32, DataType::UINT32, {3, 3}, {2, 3}, {2, 3}),
                 std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9},
                 std::vector<uint32_t>{1, 2, 0, 2, 0, 0}) == std::vector<float>{4, 8, 3, 7, 2, 3});
    // GATHER_ND Example 1: [[0,1],[2,3]] at [[1],[0]] -> [[2,3],[0,1]].
    GND n1 = make<GND>(DataType::FLOAT32, DataType::UINT32, {2, 2}, {2, 1}, {2, 2});
    n1.InputDimensionCount = n1.IndicesDimensionCount = 2;
    CHECK(gather(n1, std::vector<float>{0, 1, 2, 3}, std::vector<uint32_t>{1, 0}) == std::vector<float>{2, 3, 0, 1});
    // GATHER_ND Example 2: tuples (0,1), (1,0) into {2,2,2} -> [[2,3],[4,5]].
    GND n2 = make<GND>(DataType::FLOAT32, DataType::UINT32, {1, 2, 2, 2}, {1, 1, 2, 2}, {1, 1, 2, 2});
    n2.InputDimensionCount = 3;
    n2.IndicesDimensionCount = 2;
    CHECK(gather(n2, std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7}, std::vector<uint32_t>{0, 1, 1, 0}) ==
          std::vector<float>{2, 3, 4, 5});
    // GATHER_ND1 Example 1 is GATHER_ND's (BatchDimensionCount 0).
    GND1 b1 = make<GND1>(DataType::FLOAT32, DataType::UINT32, {2, 2}, {2, 1}, {2, 2});
    b1.InputDimensionCount = b1.IndicesDimensionCount = 2;
    CHECK(gather(b1, std::vector<float>{0, 1, 2, 3}, std::vector<uint32_t>{1, 0}) == std::vector<float>{2, 3, 0, 1});
    // GATHER_ND1 Example 2: 3 batches, a 3x2 array of 2-D tuples -> [[0,3],[7,4],[9,10]].
    GND1 b2 = make<GND1>(DataType::FLOAT32, DataType::UINT32, {1, 3, 2, 2}, {1, 3, 2, 2}, {1, 1, 3, 2});
    b2.InputDimensionCount = b2.IndicesDimensionCount = 3;
    b2.BatchDimensionCount = 1;
    CHECK(gather(b2, std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11},
                 std::vector<uint32_t>{0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1, 0}) == std::vector<float>{0, 3, 7, 4, 9, 10});
}

TEST_CASE("GATHER and GATHER_ELEMENTS against numpy's take and take_along_axis, negative indices included") {
    Lcg g{7};
    for (int trial = 0; trial < 40; ++trial) {
        // An input of rank r, indices of rank q (r + q - 1 <= 8), padded to one rank R.
        const size_t r = 1 + g.next(4), q = 1 + g.next(4), R = std::max(r, q), axis = g.next(uint32_t(r));
        if (r + q - 1 > 8) continue;
        Shape ds(r), is(q);
        for (auto& s : ds) s = 1 + g.next(3);
        for (auto& s : is) s = 1 + g.next(3);
        const size_t Rout = std::max(R, r + q - 1);  // the output has r + q - 1 meaningful dimensions
        const auto data = iota_values(count_of(ds));
        const auto idx = random_indices(g, count_of(is), ds[axis]);
        const auto expected = np_take(data, ds, idx, is, axis);
        G d = make<G>(DataType::FLOAT64, DataType::INT64, padded(ds, Rout), padded(is, Rout),
                      padded(cat({sub(ds, 0, axis), is, sub(ds, axis + 1, r)}), Rout));
        d.Axis = uint32_t(Rout - r + axis);
        d.IndexDimensions = uint32_t(q);
        INFO("trial " << trial << ": data rank " << r << ", indices rank " << q << ", axis " << axis);
        CHECK(gather(d, data, idx) == expected);

        // take_along_axis: indices of the input's rank, any size along the axis.
        Shape es = ds;
        es[axis] = 1 + g.next(4);
        const auto eidx = random_indices(g, count_of(es), ds[axis]);
        std::vector<int32_t> eidx32(eidx.begin(), eidx.end());
        GE e = make<GE>(DataType::FLOAT64, DataType::INT32, padded(ds, 8), padded(es, 8), padded(es, 8));
        e.Axis = uint32_t(8 - r + axis);
        CHECK(gather(e, data, eidx32) == np_take_along_axis(data, ds, eidx, es, axis));
    }
}

TEST_CASE("GATHER_ND and GATHER_ND1 against gather_nd with batch_dims") {
    Lcg g{11};
    int checked = 0;
    for (int trial = 0; trial < 60; ++trial) {
        const size_t b = g.next(3), r = b + 1 + g.next(3), k = 1 + g.next(uint32_t(r - b)), m = g.next(3);
        // indices: batch (b) ++ m free dimensions ++ {k}; output: batch ++ m ++ data[b + k, r).
        const size_t q = b + m + 1, out_rank = b + m + (r - b - k), R = std::max({r, q, out_rank});
        if (R > 8) continue;
        Shape ds(r), is(q);
        for (auto& s : ds) s = 1 + g.next(3);
        for (size_t i = 0; i < b; ++i) is[i] = ds[i];
        for (size_t i = b; i < q - 1; ++i) is[i] = 1 + g.next(3);
        is[q - 1] = uint32_t(k);
        const auto data = iota_values(count_of(ds));
        std::vector<int64_t> idx(count_of(is));
        for (size_t f = 0; f < idx.size(); ++f) {
            const size_t j = f % k;  // the tuple position
            idx[f] = int64_t(g.next(2 * ds[b + j])) - int64_t(ds[b + j]);
        }
        const auto expected = gather_nd(data, ds, idx, is, b);
        const Shape os = cat({sub(is, 0, q - 1), sub(ds, b + k, r)});
        INFO("trial " << trial << ": data " << sizes_text(ds) << ", indices " << sizes_text(is) << ", batch " << b);
        GND1 d = make<GND1>(DataType::FLOAT64, DataType::INT64, padded(ds, R), padded(is, R), padded(os, R));
        d.InputDimensionCount = uint32_t(r);
        d.IndicesDimensionCount = uint32_t(q);
        d.BatchDimensionCount = uint32_t(b);
        CHECK(gather(d, data, idx) == expected);
        if (b == 0) {
            GND n = make<GND>(DataType::FLOAT64, DataType::INT64, padded(ds, R), padded(is, R), padded(os, R));
            n.InputDimensionCount = uint32_t(r);
            n.IndicesDimensionCount = uint32_t(q);
            CHECK(gather(n, data, idx) == expected);
        }
        ++checked;
    }
    CHECK(checked > 30);
}

TEST_CASE("GATHER: negative indices from the end once; out of range refused, naming the element") {
    // Axis 0 of [10,20,30]: INT32 -1 is 30, -3 is 10; INT64 -2 is 20; UINT32 2 is 30.
    const std::vector<float> x = {10, 20, 30};
    CHECK(gather(take(DataType::FLOAT32, DataType::INT32, {3}, {4}, {4}), x, std::vector<int32_t>{-1, -3, 0, 2}) ==
          std::vector<float>{30, 10, 10, 30});
    G d64 = make<G>(DataType::FLOAT32, DataType::INT64, {3}, {2}, {2});
    d64.IndexDimensions = 1;
    CHECK(gather(d64, x, std::vector<int64_t>{-2, INT64_C(1)}) == std::vector<float>{20, 20});
    // Out of range: 3 and -4 (signed), and UINT32 0xffffffff, which is not -1.
    auto refused = [&](DataType it, std::vector<std::byte> indices, uint64_t element) {
        G d = make<G>(DataType::FLOAT32, it, {3}, {2}, {2});
        d.IndexDimensions = 1;
        const Diagnostics diags = validate_input_values(
            {OperatorType::GATHER, d}, {{"InputTensor", buffer(d.InputTensor, x)}, {"IndicesTensor", indices}},
            1u << 30);
        bool found = false;
        for (const auto& item : diags.items()) {
            INFO(format(item, "<test>"));
            found = found || (item.rule == "gather.index-range" &&
                              item.path == "/inputs/IndicesTensor/" + std::to_string(element));
        }
        return found;
    };
    G i32 = take(DataType::FLOAT32, DataType::INT32, {3}, {2}, {2});
    CHECK(refused(DataType::INT32, buffer(i32.IndicesTensor, std::vector<int32_t>{0, 3}), 1));
    CHECK(refused(DataType::INT32, buffer(i32.IndicesTensor, std::vector<int32_t>{-4, 0}), 0));
    CHECK_FALSE(refused(DataType::INT32, buffer(i32.IndicesTensor, std::vector<int32_t>{-3, 2}), 0));
    CHECK(refused(DataType::UINT32, buffer(i32.IndicesTensor, std::vector<uint32_t>{0, 0xffffffffu}), 1));
    CHECK(refused(DataType::UINT64, buffer(desc(DataType::UINT64, {2}), std::vector<uint64_t>{UINT64_MAX, 0}), 0));
}

TEST_CASE("GATHER moves bits: NaN payloads, -0, subnormals, 64-bit extremes; strided and broadcast tensors") {
    // FLOAT32 0x7fc00123 (a NaN payload), 0x80000000 (-0), 0x00000001 (2^-149), 0xff800001 (a signalling NaN).
    std::vector<float> x;
    for (uint32_t b : {0x7fc00123u, 0x80000000u, 0x00000001u, 0xff800001u}) x.push_back(from_bits<float>(b));
    const auto y = gather(take(DataType::FLOAT32, DataType::UINT32, {4}, {4}, {4}), x,
                          std::vector<uint32_t>{3, 2, 1, 0});
    check_bits(y, std::vector<float>{x[3], x[2], x[1], x[0]});
    check_bits(gather(take(DataType::INT64, DataType::UINT64, {2}, {3}, {3}),
                      std::vector<int64_t>{INT64_MIN, INT64_MAX}, std::vector<uint64_t>{1, 0, 1}),
               std::vector<int64_t>{INT64_MAX, INT64_MIN, INT64_MAX});
    // A transposed input (Strides 1, 2: logical [[1,2,3],[4,5,6]] stored as [1,4,2,5,3,6]), indices
    // broadcast along dimension 0 (Strides 0, 1), GATHER_ELEMENTS on Axis 1:
    // row 0 at [2,0,1] -> [3,1,2]; row 1 at the same [2,0,1] -> [6,4,5].
    GE e = make<GE>(DataType::INT16, DataType::INT32, {2, 3}, {2, 3}, {2, 3});
    e.InputTensor.Strides = {1, 2};
    e.IndicesTensor.Strides = {0, 1};
    e.Axis = 1;
    const auto out = run({OperatorType::GATHER_ELEMENTS, e},
                         {{"InputTensor", buffer<int16_t>(e.InputTensor, {1, 4, 2, 5, 3, 6})},
                          {"IndicesTensor", buffer<int32_t>(e.IndicesTensor, {2, 0, 1})}});
    CHECK(as_values<int16_t>(out.at("OutputTensor")) == std::vector<int16_t>{3, 1, 2, 6, 4, 5});
}

TEST_CASE("gather validation: the pages' constraints, each with its rule") {
    G g = make<G>(DataType::FLOAT32, DataType::UINT32, {3, 2}, {1, 4}, {4, 2});
    g.IndexDimensions = 1;
    CHECK_FALSE(validate({OperatorType::GATHER, g}).has_errors());
    G bad = g;
    bad.OutputTensor.DataType = DataType::FLOAT16;
    CHECK(has_error({OperatorType::GATHER, bad}, "gather.same-data-type", "/desc/OutputTensor/DataType"));
    bad = g;
    bad.IndicesTensor = desc(DataType::UINT32, {4});
    CHECK(has_error({OperatorType::GATHER, bad}, "gather.dimension-count", "/desc/IndicesTensor/Sizes"));
    bad = g;
    bad.IndicesTensor.DataType = DataType::INT16;
    CHECK(has_error({OperatorType::GATHER, bad}, "gather.indices-data-type", "/desc/IndicesTensor/DataType"));
    bad = g;
    bad.Axis = 2;
    CHECK(has_error({OperatorType::GATHER, bad}, "gather.axis", "/desc/Axis"));
    bad = g;
    bad.IndexDimensions = 3;
    CHECK(has_error({OperatorType::GATHER, bad}, "gather.index-dimensions", "/desc/IndexDimensions"));
    bad = g;
    bad.IndicesTensor.Sizes = {2, 4};  // IndexDimensions 1: dimension 0 is a leading one
    CHECK(has_error({OperatorType::GATHER, bad}, "gather.indices-leading-ones", "/desc/IndicesTensor/Sizes/0"));
    bad = g;
    bad.OutputTensor.Sizes = {2, 4};
    CHECK(has_error({OperatorType::GATHER, bad}, "gather.output-sizes", "/desc/OutputTensor/Sizes"));

    GE e = make<GE>(DataType::FLOAT32, DataType::INT64, {3, 3}, {2, 3}, {2, 3});
    CHECK_FALSE(validate({OperatorType::GATHER_ELEMENTS, e}).has_errors());
    e.IndicesTensor.Sizes = {2, 2};
    CHECK(
        has_error({OperatorType::GATHER_ELEMENTS, e}, "gather-elements.indices-sizes", "/desc/IndicesTensor/Sizes/1"));
    e = make<GE>(DataType::FLOAT32, DataType::INT64, {3, 3}, {2, 3}, {3, 3});
    CHECK(has_error({OperatorType::GATHER_ELEMENTS, e}, "gather-elements.output-sizes", "/desc/OutputTensor/Sizes"));

    GND1 n = make<GND1>(DataType::FLOAT32, DataType::UINT32, {1, 3, 2, 2}, {1, 3, 2, 2}, {1, 1, 3, 2});
    n.InputDimensionCount = n.IndicesDimensionCount = 3;
    n.BatchDimensionCount = 1;
    CHECK_FALSE(validate({OperatorType::GATHER_ND1, n}).has_errors());
    GND1 m = n;
    m.InputDimensionCount = 5;
    CHECK(has_error({OperatorType::GATHER_ND1, m}, "gather-nd1.input-dimension-count", "/desc/InputDimensionCount"));
    m = n;
    m.IndicesDimensionCount = 0;
    CHECK(
        has_error({OperatorType::GATHER_ND1, m}, "gather-nd1.indices-dimension-count", "/desc/IndicesDimensionCount"));
    m = n;
    m.InputDimensionCount = 2;  // InputTensor.Sizes[1] = 3 is then a leading dimension
    CHECK(has_error({OperatorType::GATHER_ND1, m}, "gather-nd1.input-leading-ones", "/desc/InputTensor/Sizes/1"));
    m = n;
    m.BatchDimensionCount = 3;
    CHECK(has_error({OperatorType::GATHER_ND1, m}, "gather-nd1.batch-dimension-count", "/desc/BatchDimensionCount"));
    m = n;
    m.IndicesTensor.Sizes = {1, 3, 2, 3};  // a 3-tuple into the 2 dimensions after the batch
    CHECK(has_error({OperatorType::GATHER_ND1, m}, "gather-nd1.tuple-size", "/desc/IndicesTensor/Sizes/3"));
    m = n;
    m.IndicesTensor.Sizes = {1, 2, 2, 2};
    CHECK(has_error({OperatorType::GATHER_ND1, m}, "gather-nd1.batch-sizes", "/desc/IndicesTensor/Sizes/1"));
}

TEST_CASE("gather: feature levels from the pages' tables") {
    // GATHER: 4-D FLOAT32 with UINT32 indices from 1.0; INT64 indices 3.0; FLOAT64 values 4.1.
    CHECK(lowest_supporting_feature_level({OperatorType::GATHER, make<G>(DataType::FLOAT32, DataType::UINT32,
                                                                         {1, 1, 1, 4}, {1, 1, 1, 2}, {1, 1, 1, 2})},
                                          nullptr) == 0x1000u);
    CHECK(lowest_supporting_feature_level(
              {OperatorType::GATHER, take(DataType::FLOAT32, DataType::INT64, {4}, {2}, {2})}, nullptr) == 0x3000u);
    CHECK(lowest_supporting_feature_level(
              {OperatorType::GATHER, take(DataType::FLOAT64, DataType::INT64, {4}, {2}, {2})}, nullptr) == 0x4100u);
    // GATHER_ND1 from 3.0; GATHER_ELEMENTS never with FLOAT64.
    CHECK(lowest_supporting_feature_level(
              {OperatorType::GATHER_ND1, make<GND1>(DataType::INT8, DataType::UINT32, {2, 2}, {2, 1}, {2, 2})},
              nullptr) == 0x3000u);
    CHECK_FALSE(
        lowest_supporting_feature_level(
            {OperatorType::GATHER_ELEMENTS, make<GE>(DataType::FLOAT64, DataType::UINT32, {2}, {2}, {2})}, nullptr)
            .has_value());
}

}  // namespace dmlref_test_gather
