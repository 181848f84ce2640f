// DML_OPERATOR_PADDING and DML_OPERATOR_PADDING1.
//
// Spec: DML_PADDING_OPERATOR_DESC, DML_PADDING1_OPERATOR_DESC and DML_PADDING_MODE (DirectML API
// reference); rules in docs/rules.md (padding.*, padding1.*).
//
//   Out[o] = In[s(o)] where, per dimension i, x = o[i] - StartPadding[i] and n = In.Sizes[i]:
//     x in [0, n)   x                       (the input itself)
//     CONSTANT      none: Out[o] = PaddingValue when any dimension is outside
//     EDGE          clamp(x, 0, n - 1)
//     REFLECTION    m = x mod 2(n - 1) (taken in [0, 2(n - 1))), then m < n ? m : 2(n - 1) - m:
//                   mirrored about the edge elements, which are not repeated
//     SYMMETRIC     m = x mod 2n, then m < n ? m : 2n - 1 - m: mirrored with the edges repeated
//     WRAP          x mod n
//   PADDING1's page: padding may exceed the input size for REFLECTION and SYMMETRIC, "folding new
//   padding regions over previous padding regions" (its Examples 3 and 4): the period above.
//
// Rules: DimensionCount equals both tensors' DimensionCount and both arrays' lengths; both
// tensors have the same DataType; OutputTensor.Sizes[i] = InputTensor.Sizes[i] + StartPadding[i] +
// EndPadding[i]; PaddingMode is a DML_PADDING_MODE; PADDING1's PaddingValueDataType matches
// OutputTensor.DataType.
//
// Decisions (docs/golden.md, "Padding"):
//   - PaddingBeyondSize = Periodic: PADDING1's page, applied to PADDING too (whose page is silent).
//   - PaddingReflectSizeOne = SameElement: REFLECTION of a dimension of size 1 (period 0) reads
//     its one element, as EDGE and SYMMETRIC do.
//   - PaddingValueConversion = AsCast: PADDING's FLOAT PaddingValue is stored in the tensor's type
//     as CAST converts a FLOAT32 element (reference/cast.cpp): integers truncated toward zero and
//     saturated, NaN 0; FLOAT16 rounded to nearest-even, a NaN's sign and payload kept (quieted).
//     PADDING1's PaddingValue is already of the type: its bits are written.
//   - Values are moved as bits (Subnormals = Preserve).
#include "padding.hpp"
#include "cast.hpp"
#include "element_copy.hpp"

#include "dmlref/values.hpp"

namespace dmlref::reference {

namespace {

template <class D> void validate_padding(const D& d, Diagnostics& diags, const std::string& op) {
    const Named in{"InputTensor", d.InputTensor}, out{"OutputTensor", d.OutputTensor};
    require_same_data_type(diags, {in, out}, op + ".same-data-type");
    if (d.PaddingMode >= kPaddingModeNames.Names.size())
        diags.error(desc_path("PaddingMode"), op + ".padding-mode",
                    "PaddingMode is " + std::to_string(d.PaddingMode) +
                        "; it must be a DML_PADDING_MODE: CONSTANT, EDGE, REFLECTION, SYMMETRIC or WRAP");
    const uint32_t n = d.DimensionCount;
    bool ok = true;
    for (const Named& t : {in, out})
        if (t.desc.DimensionCount() != n) {
            ok = false;
            diags.error(desc_path("DimensionCount"), op + ".dimension-count",
                        "DimensionCount is " + std::to_string(n) + " but " + std::string(t.name) + " has " +
                            std::to_string(t.desc.DimensionCount()) +
                            " dimensions; it must be the DimensionCount of InputTensor and OutputTensor");
        }
    for (const auto& [field, a] :
         {std::pair<std::string_view, const std::vector<uint32_t>*>{"StartPadding", &d.StartPadding},
          {"EndPadding", &d.EndPadding}})
        if (a->size() != n) {
            ok = false;
            diags.error(desc_path(field), op + ".array-length",
                        std::string(field) + " has " + std::to_string(a->size()) +
                            " entries; it must have DimensionCount (" + std::to_string(n) + ") entries");
        }
    if (!ok) return;
    for (uint32_t i = 0; i < n; ++i) {
        const uint64_t want = uint64_t(d.InputTensor.Sizes[i]) + d.StartPadding[i] + d.EndPadding[i];
        if (d.OutputTensor.Sizes[i] != want)
            diags.error(pointer_append(pointer_append(desc_path("OutputTensor"), "Sizes"), i), op + ".output-size",
                        "OutputTensor.Sizes[" + std::to_string(i) + "] is " + std::to_string(d.OutputTensor.Sizes[i]) +
                            " but InputTensor.Sizes[" + std::to_string(i) + "] + StartPadding[" + std::to_string(i) +
                            "] + EndPadding[" + std::to_string(i) + "] is " + std::to_string(d.InputTensor.Sizes[i]) +
                            " + " + std::to_string(d.StartPadding[i]) + " + " + std::to_string(d.EndPadding[i]) +
                            " = " + std::to_string(want));
    }
}

int64_t floor_mod(int64_t x, int64_t p) { return ((x % p) + p) % p; }

// The padded copy: per dimension, the input index each output index reads (-1: the value).
template <class D> void evaluate_padding(const D& d, const Bindings& b, uint64_t value_bits) {
    const TensorView X(d.InputTensor, b.at("InputTensor"));
    const TensorView Y(d.OutputTensor, b.at("OutputTensor"));
    const size_t rank = d.DimensionCount;
    std::vector<std::vector<int64_t>> source(rank);
    for (size_t i = 0; i < rank; ++i)
        for (int64_t o = 0; o < int64_t(d.OutputTensor.Sizes[i]); ++o)
            source[i].push_back(padding_source(d.PaddingMode, o, d.StartPadding[i], d.InputTensor.Sizes[i]));
    by_width(d.OutputTensor.DataType, [&]<class U>() {
        U* y = Y.data<U>();
        const U* x = X.data<U>();
        const U value = U(value_bits);
        std::vector<uint32_t> c(rank, 0);
        const uint64_t count = element_count(d.OutputTensor);
        for (uint64_t k = 0; k < count; ++k) {
            int64_t yo = 0, xo = 0;
            bool pad = false;
            for (size_t i = 0; i < rank; ++i) {
                const int64_t s = source[i][c[i]];
                pad = pad || s < 0;
                yo += int64_t(c[i]) * Y.strides[i];
                xo += s * X.strides[i];
            }
            y[yo] = pad ? value : x[xo];
            for (size_t i = rank; i-- > 0;) {  // the next coordinate, row-major
                if (++c[i] < d.OutputTensor.Sizes[i]) break;
                c[i] = 0;
            }
        }
    });
}

}  // namespace

int64_t padding_source(uint32_t mode, int64_t o, int64_t start, int64_t n) {
    const int64_t x = o - start;
    if (x >= 0 && x < n) return x;
    switch (mode) {
        case DML_PADDING_MODE_CONSTANT: return -1;
        case DML_PADDING_MODE_EDGE: return x < 0 ? 0 : n - 1;
        case DML_PADDING_MODE_REFLECTION: {
            if (n == 1) return 0;  // PaddingReflectSizeOne = SameElement
            const int64_t p = 2 * (n - 1), m = floor_mod(x, p);
            return m < n ? m : p - m;
        }
        case DML_PADDING_MODE_SYMMETRIC: {
            const int64_t p = 2 * n, m = floor_mod(x, p);
            return m < n ? m : p - 1 - m;
        }
        default: return floor_mod(x, n);  // WRAP
    }
}

// ---- PADDING ------------------------------------------------------------------------------

void validate(const DML_PADDING_OPERATOR_DESC& d, Diagnostics& diags) { validate_padding(d, diags, "padding"); }

uint64_t padding_value_bits(const DML_PADDING_OPERATOR_DESC& d) {
    // PaddingValueConversion = AsCast: the FLOAT value as CAST stores a FLOAT32 element.
    return cast_bits(DataType::FLOAT32, to_bits(d.PaddingValue), d.OutputTensor.DataType);
}

void evaluate(const DML_PADDING_OPERATOR_DESC& d, const Bindings& b) { evaluate_padding(d, b, padding_value_bits(d)); }

// ---- PADDING1 -----------------------------------------------------------------------------

void validate(const DML_PADDING1_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_padding(d, diags, "padding1");
    if (d.PaddingValueDataType != d.OutputTensor.DataType)
        diags.error(desc_path("PaddingValueDataType"), "padding1.value-data-type",
                    "PaddingValueDataType is " + std::string(name(d.PaddingValueDataType)) + " but OutputTensor is " +
                        std::string(name(d.OutputTensor.DataType)) + "; they must match");
}

uint64_t padding_value_bits(const DML_PADDING1_OPERATOR_DESC& d) {
    return d.PaddingValue.as<uint64_t>() & width_mask(d.OutputTensor.DataType);
}

void evaluate(const DML_PADDING1_OPERATOR_DESC& d, const Bindings& b) { evaluate_padding(d, b, padding_value_bits(d)); }

// ---- explain (dmlref/explain.hpp, docs/explain.md) -------------------------------------------

// The input element an output element reads, per dimension, or the padding value.
bool explain_padding(const Case& c, std::string_view, uint64_t flat, FamilyExplanation& out) {
    auto go = [&](const auto& d, const std::string& value) {
        const std::vector<uint64_t> at = nd_coordinate(d.OutputTensor.Sizes, flat);
        std::vector<uint64_t> source;
        std::string text;
        bool pad = false;
        for (size_t i = 0; i < at.size(); ++i) {
            const int64_t s = padding_source(d.PaddingMode, int64_t(at[i]), d.StartPadding[i], d.InputTensor.Sizes[i]);
            pad = pad || s < 0;
            source.push_back(s < 0 ? 0 : uint64_t(s));
            text += (i ? ", " : "") + std::to_string(at[i]) + " - " + std::to_string(d.StartPadding[i]) +
                    (s < 0 ? std::string(" is outside") : " reads " + std::to_string(s));
        }
        const std::string mode(kPaddingModeNames.Names.at(d.PaddingMode));
        out.facts.emplace_back("mode", mode);
        if (pad) {
            out.facts.emplace_back("source", "the padding value " + value + " (" + text + ")");
        } else {
            out.facts.emplace_back("source", "InputTensor at (" + text + ")");
            out.inputs.push_back(input_element(c, "InputTensor", source, "source"));
            if (d.PaddingMode != DML_PADDING_MODE_CONSTANT) out.policies.push_back("PaddingBeyondSize");
            if (d.PaddingMode == DML_PADDING_MODE_REFLECTION) out.policies.push_back("PaddingReflectSizeOne");
        }
        out.policies.push_back("Subnormals");
    };
    if (const auto* d = get_if<DML_PADDING_OPERATOR_DESC>(&c.op.Desc)) {
        go(*d, display_value(DataType::FLOAT32, to_bits(d->PaddingValue)) + " stored as " +
                   std::string(name(d->OutputTensor.DataType)));
        if (d->PaddingMode == DML_PADDING_MODE_CONSTANT) out.policies.push_back("PaddingValueConversion");
    } else if (const auto* d1 = get_if<DML_PADDING1_OPERATOR_DESC>(&c.op.Desc)) {
        go(*d1, display_value(d1->OutputTensor.DataType, padding_value_bits(*d1)));
    } else {
        return false;
    }
    return true;
}

}  // namespace dmlref::reference
