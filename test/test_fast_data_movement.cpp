// The data-movement fast paths (reference/fast/data_movement.cpp) against the plain loops, byte for
// byte (fast_check.hpp's check_op: fast on one thread and three, fast off, every byte of every
// buffer, the bytes around the logical elements included): GATHER, PADDING and PADDING1 in every
// mode, DEPTH_TO_SPACE and SPACE_TO_DEPTH with and without Order, TILE, JOIN and SPLIT. Random
// shapes of every rank the operator allows, every element width (the eleven types), hard values
// (NaN payloads, -0, subnormals, integer extremes), packed, padded, gapped (the fast paths leave
// those to the plain loop) and broadcast (zero strides) inputs; GATHER's four index types with
// negative and out-of-range indices; padding beyond the input's size; and shapes large enough to
// be cut into many rows and pieces over three threads. The expected values are the plain loops'.
#include "fast_check.hpp"
#include "support.hpp"

#include "dmlref/descs/depth_space.hpp"
#include "dmlref/descs/gather.hpp"
#include "dmlref/descs/join_split.hpp"
#include "dmlref/descs/padding.hpp"
#include "dmlref/descs/tile.hpp"

#include <cstring>
#include <limits>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_fast_data_movement {

using namespace dmlref;
using namespace dmlref::test;

namespace {

using Named = std::vector<std::pair<std::string, const TensorDesc*>>;

// make_buffers for the type t: hard values of the type in every input, a fixed fill in every output.
Buffers buffers_for(DataType t, std::mt19937_64& rng, const Named& inputs, const Named& outputs) {
    switch (t) {
        case DataType::FLOAT32: return make_buffers<float>(rng, inputs, outputs);
        case DataType::FLOAT16: return make_buffers<half>(rng, inputs, outputs);
        case DataType::FLOAT64: return make_buffers<double>(rng, inputs, outputs);
        case DataType::UINT8: return make_buffers<uint8_t>(rng, inputs, outputs);
        case DataType::UINT16: return make_buffers<uint16_t>(rng, inputs, outputs);
        case DataType::UINT32: return make_buffers<uint32_t>(rng, inputs, outputs);
        case DataType::UINT64: return make_buffers<uint64_t>(rng, inputs, outputs);
        case DataType::INT8: return make_buffers<int8_t>(rng, inputs, outputs);
        case DataType::INT16: return make_buffers<int16_t>(rng, inputs, outputs);
        case DataType::INT32: return make_buffers<int32_t>(rng, inputs, outputs);
        default: return make_buffers<int64_t>(rng, inputs, outputs);
    }
}

const DataType kTypes[] = {DataType::FLOAT32, DataType::FLOAT16, DataType::FLOAT64, DataType::UINT8,
                           DataType::UINT16,  DataType::UINT32,  DataType::UINT64,  DataType::INT8,
                           DataType::INT16,   DataType::INT32,   DataType::INT64};

std::vector<uint32_t> random_sizes(std::mt19937_64& rng, uint32_t rank, uint32_t max_size) {
    std::vector<uint32_t> s(rank);
    for (uint32_t& v : s) v = 1 + uint32_t(rng() % max_size);
    return s;
}

// Packed strides with some dimensions broadcast (stride 0).
std::vector<uint32_t> broadcast_strides(std::mt19937_64& rng, const std::vector<uint32_t>& sizes) {
    std::vector<uint32_t> strides(sizes.size());
    uint32_t s = 1;
    for (size_t i = sizes.size(); i-- > 0;) {
        strides[i] = rng() % 3 == 0 ? 0 : s;
        s *= sizes[i];
    }
    return strides;
}

// An input's strides: packed, padded, gapped (a step in the last dimension) or broadcast.
std::vector<uint32_t> input_strides(std::mt19937_64& rng, const std::vector<uint32_t>& sizes) {
    switch (rng() % 5) {
        case 0: return gapped_strides(rng, sizes);
        case 1: return broadcast_strides(rng, sizes);
        case 2: return random_strides(rng, sizes);
        default: return {};
    }
}

// An output's strides: packed, padded or gapped (never overlapping).
std::vector<uint32_t> output_strides(std::mt19937_64& rng, const std::vector<uint32_t>& sizes) {
    switch (rng() % 5) {
        case 0: return gapped_strides(rng, sizes);
        case 1: return random_strides(rng, sizes);
        default: return {};
    }
}

// Sizes small enough for every rank: up to 40 elements along a dimension of a rank-1 or -2
// tensor, up to 3 from rank 6 on.
uint32_t max_size_for(uint32_t rank) { return rank <= 2 ? 40 : rank <= 4 ? 7 : rank == 5 ? 4 : 3; }

// ---- GATHER -------------------------------------------------------------------------------------

// An index element of `type` for a dimension of `size`: in range, counted from the end (negative,
// signed types), or now and then out of range (the plain loop writes zeros there).
void put_index(std::byte* p, DataType type, uint32_t size, std::mt19937_64& rng, bool out_of_range) {
    const bool is_signed = type == DataType::INT32 || type == DataType::INT64;
    int64_t v = int64_t(rng() % size);
    if (is_signed && rng() % 2) v -= size;  // -size .. -1: from the end
    if (out_of_range) v = rng() % 2 && is_signed ? -int64_t(size) - 1 - int64_t(rng() % 3) : size + int64_t(rng() % 3);
    if (out_of_range && rng() % 4 == 0)
        v = is_signed ? std::numeric_limits<int64_t>::min() : int64_t(std::numeric_limits<uint32_t>::max());
    const uint64_t bits = uint64_t(v);
    std::memcpy(p, &bits, element_size(type));  // little-endian: the low bytes
}

// GATHER's OutputTensor sizes (its page: InputTensor's before Axis, IndicesTensor's last
// IndexDimensions, InputTensor's after Axis), fitted to R dimensions by leading 1s; empty when
// they need more dimensions.
std::vector<uint32_t> gather_output(const std::vector<uint32_t>& in, const std::vector<uint32_t>& ix, uint32_t axis,
                                    uint32_t index_dims) {
    const size_t R = in.size();
    std::vector<uint32_t> L(in.begin(), in.begin() + axis);
    L.insert(L.end(), ix.end() - index_dims, ix.end());
    L.insert(L.end(), in.begin() + axis + 1, in.end());
    size_t crop = 0;
    while (L.size() - crop > R && L[crop] == 1) ++crop;
    if (L.size() - crop > R) return {};
    std::vector<uint32_t> out(R - (L.size() - crop), 1);
    out.insert(out.end(), L.begin() + std::ptrdiff_t(crop), L.end());
    return out;
}

void check_gather(std::mt19937_64& rng, DataType t, DataType index_type, uint32_t rank, uint32_t max_size,
                  bool out_of_range) {
    DML_GATHER_OPERATOR_DESC d;
    std::vector<uint32_t> in, ix, out;
    do {
        in = random_sizes(rng, rank, max_size);
        d.Axis = uint32_t(rng() % rank);
        d.IndexDimensions = uint32_t(rng() % (rank + 1));
        ix.assign(rank, 1);
        for (uint32_t i = rank - d.IndexDimensions; i < rank; ++i) ix[i] = 1 + uint32_t(rng() % max_size);
        out = gather_output(in, ix, d.Axis, d.IndexDimensions);
    } while (out.empty());
    d.InputTensor = desc(t, in, input_strides(rng, in));
    d.IndicesTensor = desc(index_type, ix, rng() % 3 == 0 ? input_strides(rng, ix) : std::vector<uint32_t>{});
    d.OutputTensor = desc(t, out, output_strides(rng, out));
    Buffers b = buffers_for(t, rng, {{"InputTensor", &d.InputTensor}}, {{"OutputTensor", &d.OutputTensor}});
    std::vector<std::byte> indices(buffer_size(d.IndicesTensor));
    const size_t iw = element_size(index_type);
    for (size_t k = 0; k + iw <= indices.size(); k += iw)
        put_index(indices.data() + k, index_type, in[d.Axis], rng, out_of_range && rng() % 5 == 0);
    b.names.push_back("IndicesTensor");
    b.bytes.push_back(std::move(indices));
    INFO("GATHER rank " << rank << " Axis " << d.Axis << " IndexDimensions " << d.IndexDimensions << " input "
                        << sizes_text(in) << " indices " << sizes_text(ix) << " " << name(index_type));
    check_op({OperatorType::GATHER, d}, b);
}

const DataType kIndexTypes[] = {DataType::INT32, DataType::INT64, DataType::UINT32, DataType::UINT64};

// ---- PADDING and PADDING1 -----------------------------------------------------------------------

template <class D> D random_padding(std::mt19937_64& rng, DataType t, uint32_t rank, uint32_t max_size) {
    D d;
    d.DimensionCount = rank;
    d.PaddingMode = uint32_t(rng() % 5);
    const std::vector<uint32_t> in = random_sizes(rng, rank, max_size);
    std::vector<uint32_t> out(rank);
    for (uint32_t i = 0; i < rank; ++i) {
        // Up to twice the size beyond it (folded over for REFLECTION and SYMMETRIC, PaddingBeyondSize).
        const uint32_t most = rng() % 4 == 0 ? 2 * in[i] + 1 : 3;
        d.StartPadding.push_back(rng() % 3 == 0 ? 0 : uint32_t(rng() % (most + 1)));
        d.EndPadding.push_back(rng() % 3 == 0 ? 0 : uint32_t(rng() % (most + 1)));
        out[i] = in[i] + d.StartPadding[i] + d.EndPadding[i];
    }
    d.InputTensor = desc(t, in, input_strides(rng, in));
    d.OutputTensor = desc(t, out, output_strides(rng, out));
    return d;
}

// PADDING's FLOAT values: zeros of both signs, a NaN with a payload, infinities, values that
// CAST rounds, truncates or saturates.
const float kPaddingValues[] = {0.0f,   -0.0f,  1.5f,    -2.75f,   std::numeric_limits<float>::infinity(),
                                -1e30f, 300.0f, -129.5f, 65520.0f, 0x1p-25f,
                                4.1e9f, -7.0f};

void check_padding(std::mt19937_64& rng, DataType t, uint32_t rank, uint32_t max_size) {
    if (rng() % 2) {
        auto d = random_padding<DML_PADDING_OPERATOR_DESC>(rng, t, rank, max_size);
        uint32_t nan_bits = 0xffc01234u;
        std::memcpy(&d.PaddingValue, &nan_bits, 4);
        if (rng() % 6) d.PaddingValue = kPaddingValues[rng() % std::size(kPaddingValues)];
        INFO("PADDING mode " << d.PaddingMode << " input " << sizes_text(d.InputTensor.Sizes) << " output "
                             << sizes_text(d.OutputTensor.Sizes) << " value " << d.PaddingValue << " " << name(t));
        check_op({OperatorType::PADDING, d},
                 buffers_for(t, rng, {{"InputTensor", &d.InputTensor}}, {{"OutputTensor", &d.OutputTensor}}));
    } else {
        auto d = random_padding<DML_PADDING1_OPERATOR_DESC>(rng, t, rank, max_size);
        d.PaddingValueDataType = t;
        d.PaddingValue = DML_SCALAR_UNION::of<uint64_t>(rng() % 3 == 0 ? 0 : rng());
        INFO("PADDING1 mode " << d.PaddingMode << " input " << sizes_text(d.InputTensor.Sizes) << " output "
                              << sizes_text(d.OutputTensor.Sizes) << " " << name(t));
        check_op({OperatorType::PADDING1, d},
                 buffers_for(t, rng, {{"InputTensor", &d.InputTensor}}, {{"OutputTensor", &d.OutputTensor}}));
    }
}

// ---- DEPTH_TO_SPACE, SPACE_TO_DEPTH -------------------------------------------------------------

template <class D> void check_depth_space(std::mt19937_64& rng, DataType t, uint32_t max_size) {
    constexpr bool to_space = D::kType == OperatorType::DEPTH_TO_SPACE || D::kType == OperatorType::DEPTH_TO_SPACE1;
    D d;
    d.BlockSize = 1 + uint32_t(rng() % 4);
    if constexpr (requires { d.Order; }) d.Order = uint32_t(rng() % 2);
    const uint32_t b = d.BlockSize;
    std::vector<uint32_t> in = random_sizes(rng, 4, max_size), out;
    if (to_space) {
        in[1] *= b * b;
        out = {in[0], in[1] / (b * b), in[2] * b, in[3] * b};
    } else {
        in[2] *= b;
        in[3] *= b;
        out = {in[0], in[1] * b * b, in[2] / b, in[3] / b};
    }
    d.InputTensor = desc(t, in, input_strides(rng, in));
    d.OutputTensor = desc(t, out, output_strides(rng, out));
    INFO(operator_type_name(D::kType) << " BlockSize " << b << " input " << sizes_text(in) << " " << name(t));
    check_op({D::kType, d},
             buffers_for(t, rng, {{"InputTensor", &d.InputTensor}}, {{"OutputTensor", &d.OutputTensor}}));
}

// ---- TILE ---------------------------------------------------------------------------------------

void check_tile(std::mt19937_64& rng, DataType t, uint32_t rank, uint32_t max_size) {
    DML_TILE_OPERATOR_DESC d;
    d.RepeatsCount = rank;
    const std::vector<uint32_t> in = random_sizes(rng, rank, max_size);
    std::vector<uint32_t> out(rank);
    for (uint32_t i = 0; i < rank; ++i) {
        d.Repeats.push_back(rng() % 2 ? 1 : 1 + uint32_t(rng() % 3));
        out[i] = in[i] * d.Repeats[i];
    }
    d.InputTensor = desc(t, in, input_strides(rng, in));
    d.OutputTensor = desc(t, out, output_strides(rng, out));
    INFO("TILE input " << sizes_text(in) << " output " << sizes_text(out) << " " << name(t));
    check_op({OperatorType::TILE, d},
             buffers_for(t, rng, {{"InputTensor", &d.InputTensor}}, {{"OutputTensor", &d.OutputTensor}}));
}

// ---- JOIN and SPLIT -----------------------------------------------------------------------------

void check_join_split(std::mt19937_64& rng, DataType t, uint32_t rank, uint32_t max_size, bool join) {
    const std::vector<uint32_t> base = random_sizes(rng, rank, max_size);
    const uint32_t axis = uint32_t(rng() % rank), count = 1 + uint32_t(rng() % 4);
    std::vector<TensorDesc> array;
    std::vector<uint32_t> whole = base;
    whole[axis] = 0;
    for (uint32_t k = 0; k < count; ++k) {
        std::vector<uint32_t> s = base;
        s[axis] = 1 + uint32_t(rng() % max_size);
        whole[axis] += s[axis];
        array.push_back(desc(t, s, join ? input_strides(rng, s) : output_strides(rng, s)));
    }
    const TensorDesc one = desc(t, whole, join ? output_strides(rng, whole) : input_strides(rng, whole));
    Named arrays, single;
    std::vector<std::string> names;
    for (uint32_t k = 0; k < count; ++k)
        names.push_back((join ? "InputTensors[" : "OutputTensors[") + std::to_string(k) + "]");
    for (uint32_t k = 0; k < count; ++k) arrays.push_back({names[k], &array[k]});
    single.push_back({join ? "OutputTensor" : "InputTensor", &one});
    INFO((join ? "JOIN" : "SPLIT") << " of " << count << " along " << axis << ", " << sizes_text(whole) << " "
                                   << name(t));
    if (join) {
        DML_JOIN_OPERATOR_DESC d;
        d.InputTensors = array;
        d.OutputTensor = one;
        d.Axis = axis;
        check_op({OperatorType::JOIN, d}, buffers_for(t, rng, arrays, single));
    } else {
        DML_SPLIT_OPERATOR_DESC d;
        d.OutputTensors = array;
        d.InputTensor = one;
        d.Axis = axis;
        check_op({OperatorType::SPLIT, d}, buffers_for(t, rng, single, arrays));
    }
}

}  // namespace

TEST_CASE("GATHER fast path = plain loop: every rank, type, index type, negative and out-of-range indices") {
    std::mt19937_64 rng(5100);
    for (int k = 0; k < 400; ++k) {
        const uint32_t rank = 1 + uint32_t(k % 8);
        check_gather(rng, kTypes[k % std::size(kTypes)], kIndexTypes[(k / 8) % 4], rank, max_size_for(rank),
                     k % 3 == 0);
    }
}

TEST_CASE("PADDING and PADDING1 fast paths = plain loop: every mode, rank and type, padding beyond the size") {
    std::mt19937_64 rng(5200);
    for (int k = 0; k < 600; ++k) {
        const uint32_t rank = 1 + uint32_t(k % 8);
        check_padding(rng, kTypes[k % std::size(kTypes)], rank, max_size_for(rank));
    }
}

TEST_CASE("DEPTH_TO_SPACE, SPACE_TO_DEPTH and their *1 forms: fast path = plain loop, both orders") {
    std::mt19937_64 rng(5300);
    for (int k = 0; k < 100; ++k) {
        const DataType t = kTypes[k % std::size(kTypes)];
        check_depth_space<DML_DEPTH_TO_SPACE_OPERATOR_DESC>(rng, t, 5);
        check_depth_space<DML_DEPTH_TO_SPACE1_OPERATOR_DESC>(rng, t, 5);
        check_depth_space<DML_SPACE_TO_DEPTH_OPERATOR_DESC>(rng, t, 5);
        check_depth_space<DML_SPACE_TO_DEPTH1_OPERATOR_DESC>(rng, t, 5);
    }
}

TEST_CASE("TILE fast path = plain loop: every rank and type") {
    std::mt19937_64 rng(5400);
    for (int k = 0; k < 400; ++k) {
        const uint32_t rank = 1 + uint32_t(k % 8);
        check_tile(rng, kTypes[k % std::size(kTypes)], rank, max_size_for(rank));
    }
}

TEST_CASE("JOIN and SPLIT fast paths = plain loop: every rank and type, broadcast inputs") {
    std::mt19937_64 rng(5500);
    for (int k = 0; k < 400; ++k) {
        const uint32_t rank = 1 + uint32_t(k % 8);
        check_join_split(rng, kTypes[k % std::size(kTypes)], rank, max_size_for(rank), k % 2 == 0);
    }
}

TEST_CASE("data movement fast paths = plain loop on shapes cut into many rows and pieces") {
    // Rows of the 64 KiB tasks, runs of more than one 256 KiB piece, rows grown by merging up to
    // 256 KiB, over three threads (check_op): a few large shapes of each operator, in several widths.
    std::mt19937_64 rng(5600);
    for (const DataType t : {DataType::FLOAT32, DataType::FLOAT16, DataType::UINT8, DataType::INT64}) {
        {
            DML_GATHER_OPERATOR_DESC d;
            d.InputTensor = desc(t, {300, 517});
            d.IndicesTensor = desc(DataType::INT64, {1, 700});
            d.OutputTensor = desc(t, {700, 517});
            d.Axis = 0;
            d.IndexDimensions = 1;
            Buffers b = buffers_for(t, rng, {{"InputTensor", &d.InputTensor}}, {{"OutputTensor", &d.OutputTensor}});
            std::vector<std::byte> ix(buffer_size(d.IndicesTensor));
            for (size_t k = 0; k < 700; ++k) put_index(ix.data() + 8 * k, DataType::INT64, 300, rng, k % 97 == 0);
            b.names.push_back("IndicesTensor");
            b.bytes.push_back(std::move(ix));
            check_op({OperatorType::GATHER, d}, b);
        }
        for (uint32_t mode = 0; mode < 5; ++mode) {
            DML_PADDING_OPERATOR_DESC d;
            d.DimensionCount = 4;
            d.PaddingMode = mode;
            d.PaddingValue = -3.5f;
            d.StartPadding = {0, 3, 0, 2};
            d.EndPadding = {1, 0, 0, 5};
            d.InputTensor = desc(t, {2, 9, 130, 301});
            d.OutputTensor = desc(t, {3, 12, 130, 308});
            check_op({OperatorType::PADDING, d},
                     buffers_for(t, rng, {{"InputTensor", &d.InputTensor}}, {{"OutputTensor", &d.OutputTensor}}));
            d.StartPadding = {0, 3, 0, 0};
            d.EndPadding = {1, 0, 0, 0};
            d.InputTensor = desc(t, {2, 9, 130, 301});
            d.OutputTensor = desc(t, {3, 12, 130, 301});
            check_op({OperatorType::PADDING, d},
                     buffers_for(t, rng, {{"InputTensor", &d.InputTensor}}, {{"OutputTensor", &d.OutputTensor}}));
        }
        {
            DML_DEPTH_TO_SPACE1_OPERATOR_DESC d;
            d.BlockSize = 2;
            d.Order = 1;
            d.InputTensor = desc(t, {2, 16, 33, 75});
            d.OutputTensor = desc(t, {2, 4, 66, 150});
            check_op({OperatorType::DEPTH_TO_SPACE1, d},
                     buffers_for(t, rng, {{"InputTensor", &d.InputTensor}}, {{"OutputTensor", &d.OutputTensor}}));
        }
        {
            DML_TILE_OPERATOR_DESC d;
            d.RepeatsCount = 3;
            d.Repeats = {2, 1, 3};
            d.InputTensor = desc(t, {5, 300, 77});
            d.OutputTensor = desc(t, {10, 300, 231});
            check_op({OperatorType::TILE, d},
                     buffers_for(t, rng, {{"InputTensor", &d.InputTensor}}, {{"OutputTensor", &d.OutputTensor}}));
        }
        {
            DML_JOIN_OPERATOR_DESC d;
            d.InputTensors = {desc(t, {2, 300, 257}), desc(t, {2, 1, 257}), desc(t, {2, 700, 257})};
            d.OutputTensor = desc(t, {2, 1001, 257});
            d.Axis = 1;
            Named in;
            for (size_t k = 0; k < 3; ++k)
                in.push_back({"InputTensors[" + std::to_string(k) + "]", &d.InputTensors[k]});
            check_op({OperatorType::JOIN, d}, buffers_for(t, rng, in, {{"OutputTensor", &d.OutputTensor}}));
        }
        // Every tensor's runs at least one 256 KiB piece (in UINT8 too): all tensors' pieces in one
        // parallel loop (data_movement.cpp, JOIN and SPLIT), two rows of runs of several pieces each.
        {
            DML_JOIN_OPERATOR_DESC d;
            d.InputTensors = {desc(t, {2, 600, 512}), desc(t, {2, 520, 512})};
            d.OutputTensor = desc(t, {2, 1120, 512});
            d.Axis = 1;
            check_op(
                {OperatorType::JOIN, d},
                buffers_for(t, rng, {{"InputTensors[0]", &d.InputTensors[0]}, {"InputTensors[1]", &d.InputTensors[1]}},
                            {{"OutputTensor", &d.OutputTensor}}));
            DML_SPLIT_OPERATOR_DESC e;
            e.InputTensor = d.OutputTensor;
            e.OutputTensors = d.InputTensors;
            e.Axis = 1;
            check_op({OperatorType::SPLIT, e}, buffers_for(t, rng, {{"InputTensor", &e.InputTensor}},
                                                           {{"OutputTensors[0]", &e.OutputTensors[0]},
                                                            {"OutputTensors[1]", &e.OutputTensors[1]}}));
        }
    }
}

}  // namespace dmlref_test_fast_data_movement
