// DML_OPERATOR_NONZERO_COORDINATES.
//
// Spec: DML_NONZERO_COORDINATES_OPERATOR_DESC (DirectML API reference); rules in docs/rules.md
// (nonzero-coordinates.*).
//
//   OutputCountTensor          = the number of non-zero InputTensor elements
//   OutputCoordinatesTensor[k] = the coordinate of the k-th of them, in ascending element order,
//                                for k < count; the rows past the count are undefined
//
// OutputCoordinatesTensor is {1,1,M,N} (M InputTensor's element count, N between the input's
// effective rank, its DimensionCount without leading 1s, and its DimensionCount): a row holds the
// coordinate in the input's last N dimensions (the ones before them are 1, so their coordinate is
// 0). The page's example: {1,1,2,4} FLOAT32 with N = 3 gives [0,0,0], [0,0,3], [0,1,1], [0,1,3].
//
// Rules (each with its id): OutputCountTensor is UINT32 (.count-data-type) with all Sizes 1
// (.count-sizes); OutputCoordinatesTensor is UINT32 (.coordinates-data-type) with Sizes
// {1,...,1,M,N} and N in [effective rank, DimensionCount] (.coordinates-sizes); "InputTensor,
// OutputCoordinatesTensor, and OutputCountTensor must have the same DimensionCount"
// (.dimension-count), at least 2 (the coordinates' M and N).
//
// Decisions (docs/golden.md, "Nonzero coordinates"):
//   - +0 and -0 are zero (the page's words, for FLOAT32 and FLOAT16; FLOAT64 the same).
//   - NonzeroNaN=Nonzero: a NaN is not zero (NaN != 0 holds, and it is not one of the page's two
//     zeros); a backend testing `x > 0 || x < 0` would skip it.
//   - Subnormals=Preserve: a subnormal is non-zero (a backend flushing it would not count it).
//   - NonzeroRowsPastCount=DontCare: the rows past the count are undefined (the page); the golden
//     marks them DontCare, computed from the input values (kit::OperatorRecord::case_dont_care),
//     and the loop writes 0 there, as the page's example shows.
#include "nonzero_coordinates.hpp"

#include "dmlref/values.hpp"

namespace dmlref::reference {

namespace {

using NZ = DML_NONZERO_COORDINATES_OPERATOR_DESC;

// The DimensionCount without leading 1s.
uint32_t effective_rank(const TensorDesc& t) {
    size_t i = 0;
    while (i < t.Sizes.size() && t.Sizes[i] == 1) ++i;
    return uint32_t(t.Sizes.size() - i);
}

// Dimension `dim` of the coordinate of logical index `flat` in `sizes`.
uint64_t coordinate(const std::vector<uint32_t>& sizes, uint64_t flat, size_t dim) {
    for (size_t k = sizes.size(); k-- > dim + 1;) flat /= sizes[k];
    return flat % sizes[dim];
}

}  // namespace

std::vector<uint64_t> nonzero_indices(const TensorDesc& input, std::span<const std::byte> buffer) {
    const std::vector<std::byte> bytes = gather_logical(input, buffer);
    const DataType t = input.DataType;
    const size_t w = element_size(t);
    // A float's bits without the sign: +0 and -0 are zero, everything else (NaN too) is not.
    const uint64_t mask = is_float(t) ? ~(uint64_t(1) << (8 * w - 1)) : ~uint64_t(0);
    std::vector<uint64_t> v;
    for (size_t i = 0; i * w < bytes.size(); ++i)
        if (load_bits(t, bytes.data() + i * w) & mask) v.push_back(i);
    return v;
}

void validate(const NZ& d, Diagnostics& diags) {
    const uint32_t rank = d.InputTensor.DimensionCount();
    bool ok = true;
    for (const Named& t :
         {Named{"OutputCountTensor", d.OutputCountTensor}, Named{"OutputCoordinatesTensor", d.OutputCoordinatesTensor}})
        if (t.desc.DimensionCount() != rank) {
            diags.error(
                desc_path(t.name) + "/Sizes", "nonzero-coordinates.dimension-count",
                std::string(t.name) + " has " + std::to_string(t.desc.DimensionCount()) +
                    " dimensions and InputTensor " + std::to_string(rank) +
                    "; InputTensor, OutputCoordinatesTensor, and OutputCountTensor must have the same DimensionCount");
            ok = false;
        }
    if (ok && rank < 2) {
        diags.error(
            desc_path("InputTensor") + "/Sizes", "nonzero-coordinates.dimension-count",
            "InputTensor has 1 dimension; OutputCoordinatesTensor ({1,1,M,N}) needs 2 at least, and the three tensors the same DimensionCount");
        ok = false;
    }
    if (d.OutputCountTensor.DataType != DataType::UINT32)
        diags.error(desc_path("OutputCountTensor") + "/DataType", "nonzero-coordinates.count-data-type",
                    "OutputCountTensor is " + std::string(name(d.OutputCountTensor.DataType)) +
                        "; the type of this tensor must be UINT32");
    for (uint32_t s : d.OutputCountTensor.Sizes)
        if (s != 1) {
            diags.error(desc_path("OutputCountTensor") + "/Sizes", "nonzero-coordinates.count-sizes",
                        "OutputCountTensor has Sizes " + sizes_text(d.OutputCountTensor.Sizes) +
                            "; it must be a scalar (all Sizes 1)");
            break;
        }
    if (d.OutputCoordinatesTensor.DataType != DataType::UINT32)
        diags.error(desc_path("OutputCoordinatesTensor") + "/DataType", "nonzero-coordinates.coordinates-data-type",
                    "OutputCoordinatesTensor is " + std::string(name(d.OutputCoordinatesTensor.DataType)) +
                        "; the page's tables give UINT32");
    if (!ok) return;
    const auto& s = d.OutputCoordinatesTensor.Sizes;
    const uint64_t m = element_count(d.InputTensor);
    const uint32_t n = s[rank - 1], low = effective_rank(d.InputTensor);
    bool leading = true;
    for (uint32_t i = 0; i + 2 < rank; ++i) leading = leading && s[i] == 1;
    if (!leading || s[rank - 2] != m || n < low || n > rank)
        diags.error(desc_path("OutputCoordinatesTensor") + "/Sizes", "nonzero-coordinates.coordinates-sizes",
                    "OutputCoordinatesTensor has Sizes " + sizes_text(s) + "; they must be {1,...,1,M,N} with M = " +
                        std::to_string(m) + " (InputTensor's element count) and N from " + std::to_string(low) +
                        " (its effective rank) to " + std::to_string(rank) + " (its DimensionCount)");
}

void evaluate(const NZ& d, const Bindings& b) {
    const std::vector<uint64_t> idx = nonzero_indices(d.InputTensor, b.at("InputTensor"));
    write_logical<uint32_t>(d.OutputCountTensor, b.at("OutputCountTensor"),
                            [&](uint64_t) { return uint32_t(idx.size()); });
    const auto& in = d.InputTensor.Sizes;
    const uint64_t n = d.OutputCoordinatesTensor.Sizes.back();
    const size_t first = in.size() - size_t(n);  // the input dimension of column 0
    write_logical<uint32_t>(d.OutputCoordinatesTensor, b.at("OutputCoordinatesTensor"), [&](uint64_t flat) {
        const uint64_t row = flat / n;
        return row < idx.size() ? uint32_t(coordinate(in, idx[row], first + flat % n))
                                : 0u;  // NonzeroRowsPastCount=DontCare
    });
}

std::vector<DontCare> nonzero_rows_past_count(const Case& c, std::string_view output) {
    const auto* d = get_if<NZ>(&c.op.Desc);
    const auto in = c.inputs.find("InputTensor");
    if (!d || output != "OutputCoordinatesTensor" || in == c.inputs.end() ||
        in->second.size() < buffer_size(d->InputTensor))
        return {};
    const uint64_t count = nonzero_indices(d->InputTensor, in->second).size();
    const uint64_t n = d->OutputCoordinatesTensor.Sizes.back(), total = element_count(d->OutputCoordinatesTensor);
    std::vector<DontCare> v;
    v.reserve(total - count * n);
    for (uint64_t i = count * n; i < total; ++i)
        v.push_back({i, "a row past OutputCountTensor (" + std::to_string(count) +
                            "): undefined (NonzeroRowsPastCount=DontCare)"});
    return v;
}

// ---- explain (dmlref/explain.hpp, docs/explain.md) -------------------------------------------

// The count, or the row's input element and its coordinate, or why the row is undefined.
bool explain_nonzero_coordinates(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out) {
    const auto* d = get_if<NZ>(&c.op.Desc);
    if (!d) return false;
    const auto in = c.inputs.find("InputTensor");
    if (in == c.inputs.end()) return false;
    const std::vector<uint64_t> idx = nonzero_indices(d->InputTensor, in->second);
    out.policies = {"NonzeroNaN", "Subnormals"};
    if (output == "OutputCountTensor") {
        out.facts.emplace_back("count", std::to_string(idx.size()) + " of InputTensor's " +
                                            std::to_string(element_count(d->InputTensor)) +
                                            " elements are non-zero (+0 and -0 are zero, NaN is not)");
        return true;
    }
    const uint64_t n = d->OutputCoordinatesTensor.Sizes.back(), row = flat / n, col = flat % n;
    out.policies.push_back("NonzeroRowsPastCount");
    if (row >= idx.size()) {
        out.facts.emplace_back(
            "row", "row " + std::to_string(row) + " is past the count " + std::to_string(idx.size()) + ": undefined");
        return true;
    }
    const auto& s = d->InputTensor.Sizes;
    std::vector<uint64_t> where(s.size());
    for (size_t k = 0; k < s.size(); ++k) where[k] = coordinate(s, idx[row], k);
    out.facts.emplace_back("row", "row " + std::to_string(row) + ": the non-zero element number " +
                                      std::to_string(row) + " in ascending order, InputTensor element " +
                                      std::to_string(idx[row]));
    out.facts.emplace_back(
        "column", "column " + std::to_string(col) + " is input dimension " + std::to_string(s.size() - n + col));
    ExplainedInput e;
    e.tensor = "InputTensor";
    e.index = where;
    e.type = d->InputTensor.DataType;
    e.bits = load_bits(e.type, gather_logical(d->InputTensor, in->second).data() + idx[row] * element_size(e.type));
    e.role = "source";
    out.inputs.push_back(std::move(e));
    return true;
}

}  // namespace dmlref::reference
