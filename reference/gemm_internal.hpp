// What reference/gemm.cpp and reference/gemm_integer.cpp share: the shape rules of the three
// matrix products, the zero point and scale shapes, the profile's working types, and explain's
// rows for the integer products. Internal to dmlref.
#pragma once

#include "gemm.hpp"

#include "dmlref/working_types.hpp"  // working_types: the working precisions the profile admits

#include <string>
#include <vector>

namespace dmlref::reference {

// A per-tensor (one value) or per-row or per-column vector's entry i.
inline double per(const std::vector<double>& v, uint64_t i) { return v.size() == 1 ? v[0] : v[i]; }

std::string rank_text(const TensorDesc& d);

// GEMM's A, B and C as logical doubles (row-major, through their strides), and its shape.
struct GemmData {
    GemmShape s;
    bool ta = false, tb = false;
    std::vector<double> a, b, c;
};
GemmData read_gemm(const DML_GEMM_OPERATOR_DESC& d, std::span<const std::byte> a, std::span<const std::byte> b,
                   const std::span<const std::byte>* c);
// Output element e's exact value rounded once to T, before any FusedActivation: the plain loop's
// per-element path, which GEMM's fast path (reference/fast/gemm_f64.cpp) takes for the elements
// it cannot decide. Instantiated for float and half.
template <class T> T gemm_element(const DML_GEMM_OPERATOR_DESC& d, const GemmData& g, uint64_t e);

// A, B and Output have 2 to 4 dimensions, one count for all; the inner sizes agree; M and N are
// Output's; the batch dimensions equal Output's (rule ids `<op>.dimension-count`,
// .same-dimension-count, .inner-size, .output-sizes, .batch-sizes). False when the shape can't be
// read.
bool validate_shapes(Diagnostics& diags, std::string_view op, const TensorDesc& a, bool trans_a, const TensorDesc& b,
                     bool trans_b, const TensorDesc& out);

// A zero point's or scale's shape (`<stem>-dimension-count`, `<stem>-sizes`): see reference/gemm.cpp.
void validate_quantization(Diagnostics& diags, const std::string& stem, const TensorDesc& z, std::string_view name,
                           uint32_t from_end, uint32_t count, std::string_view what, std::string_view page);
// z has data's DataType, or the error `rule` at z's DataType.
void require_data_type(Diagnostics& diags, const TensorDesc& z, std::string_view name, const TensorDesc& data,
                       std::string_view data_name, const std::string& rule);
// A zero point's value for row m (per row) or column n (per column), as an integer; 0 without one.
int64_t zero_point_at(const std::vector<double>& z, uint64_t i);

// explain's rows for the integer products: the first 16 (a, b) pairs, the zero points of the row
// and column, and the product fact.
void explain_integer_pairs(const Case& c, const TensorDesc& a, const TensorDesc& b, const TensorDesc& out_desc,
                           const std::optional<TensorDesc>& za, const std::optional<TensorDesc>& zb, uint64_t flat,
                           FamilyExplanation& out);

}  // namespace dmlref::reference
