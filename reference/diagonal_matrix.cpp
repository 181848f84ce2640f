// DML_OPERATOR_DIAGONAL_MATRIX and DML_OPERATOR_DIAGONAL_MATRIX1.
//
// Spec: DML_DIAGONAL_MATRIX_OPERATOR_DESC, DML_DIAGONAL_MATRIX1_OPERATOR_DESC (DirectML API
// reference); rules in docs/rules.md (diagonal-matrix.*, diagonal-matrix1.*). Every dimension
// before the last two is a batch of matrices; y is the row (the second last coordinate), x the
// column (the last).
//
//   DIAGONAL_MATRIX:   OutputTensor[c] = (y + Offset == x) ? Value : 0
//   DIAGONAL_MATRIX1:  topX = x - y
//                      useValue = (End >= Begin) ^ (topX >= Begin) ^ (topX < End)
//                      OutputTensor[c] = useValue ? Value : InputTensor ? InputTensor[c] : 0
//   (Begin, End: DiagonalFillBegin, DiagonalFillEnd; Begin > End fills the complement of
//   [End, Begin), Begin == End fills nothing.)
//
// Rules (each with its id): the matrix is the last two dimensions, so OutputTensor has at least 2
// (.rank; the tables list 4, DIAGONAL_MATRIX1's 2 to 4). DIAGONAL_MATRIX1: ValueDataType "must
// match OutputTensor::DataType" (.value-data-type); InputTensor and OutputTensor "must have the
// same DataType" (.input-data-type) "and DimensionCount", and since InputTensor[coordinate] is
// read at every output coordinate, the same Sizes (.input-sizes).
//
// Decisions (docs/golden.md, "Diagonal matrix"):
//   - DiagonalValueConversion=AsCast: DIAGONAL_MATRIX's FLOAT Value is stored in the output's type
//     as CAST stores a FLOAT32 element (reference/cast.cpp): integers truncated toward zero (the
//     page: "10.6 will become 10") and saturated, NaN 0; FLOAT16 rounded to nearest-even, a NaN's
//     sign and payload kept (quieted); FLOAT64 exact. DIAGONAL_MATRIX1's Value is of the type and
//     its bits are written.
//   - Zeros are +0 (the pages' "zeros everywhere else"); Value's bits, -0 and NaN payloads
//     included, are written unchanged (Subnormals=Preserve, Float16ScalarUnion=UInt16Bits).
//   - DiagonalFillValue=Value: DIAGONAL_MATRIX1's first page example shows 1 on the diagonal with
//     Value 7; its pseudocode writes Value, and so does dmlref.
// y + Offset and x - y are exact integers (no 32-bit wrap: Offset INT32_MAX or DiagonalFillBegin
// INT32_MIN compare as written).
#include "diagonal_matrix.hpp"

#include "cast.hpp"
#include "element_copy.hpp"

#include "dmlref/values.hpp"

namespace dmlref::reference {

namespace {

void require_rank(Diagnostics& diags, const TensorDesc& out, std::string_view rule) {
    if (out.Sizes.size() < 2)
        diags.error(desc_path("OutputTensor") + "/Sizes", std::string(rule),
                    "OutputTensor has " + std::to_string(out.Sizes.size()) +
                        " dimension; it needs at least 2, the last two being each matrix's height and width");
}

// Writes `value(flat, y, x)` at every logical element of `out`.
template <class U, class F> void write_matrix(const TensorDesc& out, std::span<std::byte> buffer, F&& value) {
    const uint64_t w = out.Sizes.back(), h = out.Sizes[out.Sizes.size() - 2];
    write_logical<U>(out, buffer, [&](uint64_t i) { return value(i, (i / w) % h, i % w); });
}

}  // namespace

bool on_diagonal(const DML_DIAGONAL_MATRIX_OPERATOR_DESC& d, uint64_t y, uint64_t x) {
    return int64_t(y) + int64_t(d.Offset) == int64_t(x);
}

bool in_fill(const DML_DIAGONAL_MATRIX1_OPERATOR_DESC& d, uint64_t y, uint64_t x) {
    const int64_t top_x = int64_t(x) - int64_t(y);
    return (d.DiagonalFillEnd >= d.DiagonalFillBegin) ^ (top_x >= d.DiagonalFillBegin) ^ (top_x < d.DiagonalFillEnd);
}

uint64_t diagonal_value_bits(const DML_DIAGONAL_MATRIX_OPERATOR_DESC& d) {
    return cast_bits(DataType::FLOAT32, to_bits(d.Value), d.OutputTensor.DataType);  // DiagonalValueConversion=AsCast
}

void validate(const DML_DIAGONAL_MATRIX_OPERATOR_DESC& d, Diagnostics& diags) {
    require_rank(diags, d.OutputTensor, "diagonal-matrix.rank");
}

void evaluate(const DML_DIAGONAL_MATRIX_OPERATOR_DESC& d, const Bindings& b) {
    const uint64_t bits = diagonal_value_bits(d);
    by_width(d.OutputTensor.DataType, [&]<class U>() {
        write_matrix<U>(d.OutputTensor, b.at("OutputTensor"),
                        [&](uint64_t, uint64_t y, uint64_t x) { return on_diagonal(d, y, x) ? U(bits) : U(0); });
    });
}

void validate(const DML_DIAGONAL_MATRIX1_OPERATOR_DESC& d, Diagnostics& diags) {
    require_rank(diags, d.OutputTensor, "diagonal-matrix1.rank");
    if (d.ValueDataType != d.OutputTensor.DataType)
        diags.error(desc_path("ValueDataType"), "diagonal-matrix1.value-data-type",
                    "ValueDataType is " + std::string(name(d.ValueDataType)) + " but OutputTensor is " +
                        std::string(name(d.OutputTensor.DataType)) +
                        "; the data type of Value must match OutputTensor's DataType");
    if (d.InputTensor) {
        require_same_data_type(diags, {{"OutputTensor", d.OutputTensor}, {"InputTensor", *d.InputTensor}},
                               "diagonal-matrix1.input-data-type");
        require_same_sizes(diags, {{"OutputTensor", d.OutputTensor}, {"InputTensor", *d.InputTensor}},
                           "diagonal-matrix1.input-sizes");
    }
}

void evaluate(const DML_DIAGONAL_MATRIX1_OPERATOR_DESC& d, const Bindings& b) {
    const uint64_t bits = d.Value.as<uint64_t>() & width_mask(d.OutputTensor.DataType);
    by_width(d.OutputTensor.DataType, [&]<class U>() {
        std::vector<U> in;
        if (d.InputTensor) in = logical_values<U>(*d.InputTensor, b.at("InputTensor"));  // strided or broadcast
        write_matrix<U>(d.OutputTensor, b.at("OutputTensor"), [&](uint64_t i, uint64_t y, uint64_t x) {
            return in_fill(d, y, x) ? U(bits) : in.empty() ? U(0) : in[i];
        });
    });
}

// ---- explain (dmlref/explain.hpp, docs/explain.md) -------------------------------------------

// The element's row and column, the test that chose it and where its value comes from.
bool explain_diagonal_matrix(const Case& c, std::string_view, uint64_t flat, FamilyExplanation& out) {
    auto where = [&](const TensorDesc& t, uint64_t& y, uint64_t& x) {
        const uint64_t w = t.Sizes.back(), h = t.Sizes[t.Sizes.size() - 2];
        y = (flat / w) % h;
        x = flat % w;
        out.facts.emplace_back(
            "row, column", "y = " + std::to_string(y) + ", x = " + std::to_string(x) + " (the last two coordinates)");
    };
    uint64_t y = 0, x = 0;
    if (const auto* d = get_if<DML_DIAGONAL_MATRIX_OPERATOR_DESC>(&c.op.Desc)) {
        where(d->OutputTensor, y, x);
        const bool on = on_diagonal(*d, y, x);
        out.facts.emplace_back(
            "test", "y + Offset = " + std::to_string(int64_t(y) + d->Offset) + (on ? " == x: Value" : " != x: 0"));
        if (on)
            out.facts.emplace_back("value", display_value(DataType::FLOAT32, to_bits(d->Value)) + " stored as " +
                                                std::string(name(d->OutputTensor.DataType)) + ": " +
                                                display_value(d->OutputTensor.DataType, diagonal_value_bits(*d)));
        out.policies = {"DiagonalValueConversion", "Subnormals"};
        return true;
    }
    const auto* d = get_if<DML_DIAGONAL_MATRIX1_OPERATOR_DESC>(&c.op.Desc);
    if (!d) return false;
    where(d->OutputTensor, y, x);
    const bool fill = in_fill(*d, y, x);
    const int64_t top_x = int64_t(x) - int64_t(y);
    out.facts.emplace_back(
        "test", "topX = x - y = " + std::to_string(top_x) + ", DiagonalFillBegin " +
                    std::to_string(d->DiagonalFillBegin) + ", DiagonalFillEnd " + std::to_string(d->DiagonalFillEnd) +
                    (d->DiagonalFillBegin > d->DiagonalFillEnd ? " (inverted: the complement of [End, Begin))" : "") +
                    (fill             ? ": Value"
                     : d->InputTensor ? ": InputTensor's element"
                                      : ": 0"));
    if (fill)
        out.facts.emplace_back("value", display_value(d->OutputTensor.DataType,
                                                      d->Value.as<uint64_t>() & width_mask(d->OutputTensor.DataType)));
    else if (d->InputTensor) {
        std::vector<uint64_t> index(d->OutputTensor.Sizes.size());
        for (size_t k = index.size(), rest = flat; k-- > 0; rest /= d->OutputTensor.Sizes[k])
            index[k] = rest % d->OutputTensor.Sizes[k];
        out.inputs.push_back(input_element(c, "InputTensor", index, "source"));
    }
    out.policies = {"DiagonalFillValue", "Float16ScalarUnion", "Subnormals"};
    return true;
}

}  // namespace dmlref::reference
