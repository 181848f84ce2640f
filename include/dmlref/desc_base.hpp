// What every desc is built from: DML_SCALAR_UNION, DML_SCALE_BIAS, enum names, and the
// `fields` convention that lets one generic pass read, write, validate and bind any desc.
#pragma once

#include "dmlref/operator_type.hpp"
#include "dmlref/tensor.hpp"
#include "dmlref/types.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace dmlref {

// DML_SCALAR_UNION: 8 bytes; the companion *DataType field says which member is meant.
// FLOAT16 has no member: dmlref reads the binary16 bits from UInt16 (bytes 0..1), the policy
// "Float16ScalarUnion: UInt16Bits" (docs/golden.md, Decisions).
struct DML_SCALAR_UNION {
    std::array<uint8_t, 8> Bytes{};

    template <class T> T as() const {  // the member for T (half: the UInt16 member's bits)
        T v;
        std::memcpy(static_cast<void*>(&v), Bytes.data(), sizeof v);
        return v;
    }
    template <class T> static DML_SCALAR_UNION of(T v) {
        DML_SCALAR_UNION u;
        std::memcpy(u.Bytes.data(), static_cast<const void*>(&v), sizeof v);
        return u;
    }
    bool operator==(const DML_SCALAR_UNION&) const = default;
};

// DML_SCALE_BIAS: f(x) = x * Scale + Bias, applied to the input before the operator.
struct DML_SCALE_BIAS {
    float Scale = 1.0f;
    float Bias = 0.0f;
    bool operator==(const DML_SCALE_BIAS&) const = default;
};

// DML_SIZE_2D: a 2-D size or scale (UPSAMPLE_2D's ScaleSize, ROI_POOLING's PooledSize). JSON spells
// it {"Width": w, "Height": h}, as DirectML names the members and DxDispatch reads them.
struct DML_SIZE_2D {
    uint32_t Width = 0;
    uint32_t Height = 0;
    bool operator==(const DML_SIZE_2D&) const = default;
};

// An enum's names in value order, and the prefix of its full spelling, so that JSON may say
// "LINEAR" or "DML_INTERPOLATION_MODE_LINEAR".
struct EnumNames {
    std::string_view Prefix;              // "DML_INTERPOLATION_MODE_"
    std::vector<std::string_view> Names;  // index = value
};

// ---- A fused activation (DirectML's `const DML_OPERATOR_DESC* FusedActivation`) ------------
// The activations DirectML allows to be fused (DirectML documentation, "Using fused
// operators for improved performance"), each a DML_ACTIVATION_*_OPERATOR_DESC whose
// InputTensor and OutputTensor are NULL. Type is the index into fused_activation_types();
// Parameters hold the desc's FLOAT fields in its struct order (names in the table).
struct FusedActivationType {
    std::string_view Name;                       // "ACTIVATION_LEAKY_RELU"
    std::array<std::string_view, 2> Parameters;  // {"Alpha", ""}: the FLOAT fields, "" when fewer
};
inline const std::array<FusedActivationType, 17>& fused_activation_types() {
    static const std::array<FusedActivationType, 17> t = {{
        {"ACTIVATION_LINEAR", {"Alpha", "Beta"}},
        {"ACTIVATION_SIGMOID", {"", ""}},
        {"ACTIVATION_HARD_SIGMOID", {"Alpha", "Beta"}},
        {"ACTIVATION_TANH", {"", ""}},
        {"ACTIVATION_SCALED_TANH", {"Alpha", "Beta"}},
        {"ACTIVATION_RELU", {"", ""}},
        {"ACTIVATION_LEAKY_RELU", {"Alpha", ""}},
        {"ACTIVATION_THRESHOLDED_RELU", {"Alpha", ""}},
        {"ACTIVATION_ELU", {"Alpha", ""}},
        {"ACTIVATION_CELU", {"Alpha", ""}},
        {"ACTIVATION_SCALED_ELU", {"Alpha", "Gamma"}},
        {"ACTIVATION_SOFTPLUS", {"Steepness", ""}},
        {"ACTIVATION_PARAMETRIC_SOFTPLUS", {"Alpha", "Beta"}},
        {"ACTIVATION_SOFTSIGN", {"", ""}},
        {"ACTIVATION_IDENTITY", {"", ""}},
        {"ACTIVATION_SHRINK", {"Bias", "Threshold"}},
        {"ACTIVATION_GELU", {"", ""}},
    }};
    return t;
}

struct DML_FUSED_ACTIVATION {
    uint32_t Type = 0;                  // index into fused_activation_types()
    std::array<float, 2> Parameters{};  // unused entries are 0
    std::string_view name() const { return fused_activation_types().at(Type).Name; }
    bool operator==(const DML_FUSED_ACTIVATION&) const = default;
};

// ---- The schema of a desc ----------------------------------------------------------------
// Every desc struct names its fields once, in DirectML.h's order, in a static member
//   template <class S, class V> static void fields(S& self, V& visitor)
// calling one method of the visitor per field. That list is the desc's schema: the JSON reader
// and writer, tensor validation and binding, the descriptors, DxDispatch import and export and
// coverage all walk it through a FieldVisitor, so that no pass recognises a desc by its field
// names and no pass is compiled once per desc (OperatorDesc::fields instantiates `fields` once
// per desc, with V = FieldVisitor). Arrays are read as given (any length); each operator's
// validate checks their lengths against DimensionCount, so that the error names its rule.
//
// A visitor that only reads still receives non-const references (one interface for both); it
// must not write through them.
class FieldVisitor {
public:
    virtual ~FieldVisitor() = default;
    virtual void tensor(std::string_view name, TensorDesc& d, TensorRole role) = 0;
    virtual void optional_tensor(std::string_view name, std::optional<TensorDesc>& d, TensorRole role) = 0;
    virtual void data_type(std::string_view name, DataType& t) = 0;
    // DML_SCALAR_UNION, with the DataType of the desc field that says which member is meant.
    virtual void scalar(std::string_view name, DML_SCALAR_UNION& u, DataType t) = 0;
    virtual void float32(std::string_view name, float& v) = 0;
    virtual void scale_bias(std::string_view name, std::optional<DML_SCALE_BIAS>& sb) = 0;
    virtual void uint(std::string_view name, uint32_t& v) = 0;        // UINT fields: DimensionCount, LocalSize, ...
    virtual void int32(std::string_view name, int32_t& v) = 0;        // INT fields: DIAGONAL_MATRIX's Offset
    virtual void size_2d(std::string_view name, DML_SIZE_2D& v) = 0;  // DML_SIZE_2D fields
    virtual void uint_array(std::string_view name, std::vector<uint32_t>& v) = 0;
    virtual void int_array(std::string_view name, std::vector<int32_t>& v) = 0;
    virtual void float_array(std::string_view name, std::vector<float>& v) = 0;
    virtual void enumeration(std::string_view name, uint32_t& v, const EnumNames& e) = 0;  // the value indexes e.Names
    virtual void fused_activation(std::string_view name, std::optional<DML_FUSED_ACTIVATION>& fa) = 0;
    // An array of tensor descs and the UINT field that counts it (JOIN's InputCount and
    // InputTensors, SPLIT's OutputCount and OutputTensors): the count is the array's length, and
    // each element is a tensor of its own, named "InputTensors[0]", "InputTensors[1]", ...
    // (tensor_array_element). The inputs, expected outputs, bindings and .npy files of a case name
    // the elements so. A visitor that does not override this sees each element through tensor().
    virtual void tensor_array(std::string_view count_name, std::string_view name, std::vector<TensorDesc>& d,
                              TensorRole role);
};

// The name of element `index` of the tensor array `array`: "InputTensors[2]". The view stays valid
// for the life of the program (names are interned).
std::string_view tensor_array_element(std::string_view array, size_t index);
// The array and index an element name holds ("InputTensors[2]" -> {"InputTensors", 2}); nullopt
// for a plain field name.
std::optional<std::pair<std::string_view, size_t>> split_tensor_array_element(std::string_view name);

inline void FieldVisitor::tensor_array(std::string_view, std::string_view name, std::vector<TensorDesc>& d,
                                       TensorRole role) {
    for (size_t i = 0; i < d.size(); ++i) tensor(tensor_array_element(name, i), d[i], role);
}

// A visitor that ignores every field but those it overrides.
class FieldVisitorBase : public FieldVisitor {
public:
    void tensor(std::string_view, TensorDesc&, TensorRole) override {}
    void optional_tensor(std::string_view, std::optional<TensorDesc>&, TensorRole) override {}
    void data_type(std::string_view, DataType&) override {}
    void scalar(std::string_view, DML_SCALAR_UNION&, DataType) override {}
    void float32(std::string_view, float&) override {}
    void scale_bias(std::string_view, std::optional<DML_SCALE_BIAS>&) override {}
    void uint(std::string_view, uint32_t&) override {}
    void int32(std::string_view, int32_t&) override {}
    void size_2d(std::string_view, DML_SIZE_2D&) override {}
    void uint_array(std::string_view, std::vector<uint32_t>&) override {}
    void int_array(std::string_view, std::vector<int32_t>&) override {}
    void float_array(std::string_view, std::vector<float>&) override {}
    void enumeration(std::string_view, uint32_t&, const EnumNames&) override {}
    void fused_activation(std::string_view, std::optional<DML_FUSED_ACTIVATION>&) override {}
};

// ---- One desc of any operator ---------------------------------------------------------------
// DML_OPERATOR_DESC's Desc: a value of one desc struct, which names its operator type in a
// static member `static constexpr OperatorType kType`. Copying copies the desc.
struct DescKind {
    OperatorType type;
    void* (*clone)(const void*);
    void (*destroy)(void*);
    void (*fields)(void*, FieldVisitor&);
};

template <class D> const DescKind& desc_kind() {
    static const DescKind k{
        D::kType,
        [](const void* p) -> void* { return new D(*static_cast<const D*>(p)); },
        [](void* p) { delete static_cast<D*>(p); },
        [](void* p, FieldVisitor& v) { D::fields(*static_cast<D*>(p), v); },
    };
    return k;
}

class OperatorDesc {
public:
    OperatorDesc() = default;
    template <class D>
    requires requires { D::kType; }
    OperatorDesc(D d) : kind_(&desc_kind<D>()), p_(new D(std::move(d))) {}
    OperatorDesc(const OperatorDesc& o) : kind_(o.kind_), p_(o.p_ ? o.kind_->clone(o.p_) : nullptr) {}
    OperatorDesc(OperatorDesc&& o) noexcept
        : kind_(std::exchange(o.kind_, nullptr)), p_(std::exchange(o.p_, nullptr)) {}
    OperatorDesc& operator=(OperatorDesc o) noexcept {
        std::swap(kind_, o.kind_);
        std::swap(p_, o.p_);
        return *this;
    }
    ~OperatorDesc() {
        if (p_) kind_->destroy(p_);
    }

    bool empty() const { return p_ == nullptr; }
    // The operator type the desc struct belongs to; INVALID when empty.
    OperatorType type() const { return p_ ? kind_->type : OperatorType::INVALID; }
    // Walks the fields (see FieldVisitor); nothing when empty.
    void fields(FieldVisitor& v) {
        if (p_) kind_->fields(p_, v);
    }
    void fields(FieldVisitor& v) const {
        if (p_) kind_->fields(p_, v);
    }

    template <class D> D* get_if() { return p_ && kind_->type == D::kType ? static_cast<D*>(p_) : nullptr; }
    template <class D> const D* get_if() const {
        return p_ && kind_->type == D::kType ? static_cast<const D*>(p_) : nullptr;
    }

private:
    const DescKind* kind_ = nullptr;
    void* p_ = nullptr;
};

template <class D> bool holds(const OperatorDesc& d) { return d.get_if<D>() != nullptr; }

// A family visiting its own descs: calls f with the desc as whichever of Ds it is (f takes each
// of them); std::invalid_argument when it is none of them.
template <class... Ds, class OD, class F> decltype(auto) visit_as(OD& d, F&& f) {
    using First = std::tuple_element_t<0, std::tuple<Ds...>>;
    using R = decltype(f(*d.template get_if<First>()));
    if constexpr (std::is_void_v<R>) {
        const bool done = ((d.template get_if<Ds>() ? (f(*d.template get_if<Ds>()), true) : false) || ...);
        if (!done) throw std::invalid_argument("visit_as: the desc is not one of the family's");
    } else {
        std::optional<R> r;
        (void)((d.template get_if<Ds>() ? (r.emplace(f(*d.template get_if<Ds>())), true) : false) || ...);
        if (!r) throw std::invalid_argument("visit_as: the desc is not one of the family's");
        return R(std::move(*r));
    }
}

// std::get and std::get_if's spellings for a desc (found by argument-dependent lookup).
template <class D> D* get_if(OperatorDesc* d) { return d ? d->get_if<D>() : nullptr; }
template <class D> const D* get_if(const OperatorDesc* d) { return d ? d->get_if<D>() : nullptr; }
template <class D> D& get(OperatorDesc& d) {
    if (D* p = d.get_if<D>()) return *p;
    throw std::invalid_argument("the desc is not a " + std::string(operator_type_name(D::kType)) + " desc");
}
template <class D> const D& get(const OperatorDesc& d) {
    if (const D* p = d.get_if<D>()) return *p;
    throw std::invalid_argument("the desc is not a " + std::string(operator_type_name(D::kType)) + " desc");
}

}  // namespace dmlref
