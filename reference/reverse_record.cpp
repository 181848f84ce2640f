// The REVERSE_SUBSEQUENCES record (reference/kit/family.hpp): the facts of
// DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC from its page ("Availability", "Tensor support"; no
// in-place execution), the policies its goldens record, coverage features and gen's derived
// sizes. Every output element is an input element, copied: Bits.
#include "reverse.hpp"

#include "kit/policies.hpp"

#include "dmlref/values.hpp"

#include <nlohmann/json.hpp>

namespace dmlref::reference {

namespace rec_reverse {

using namespace kit;
using REVERSE = DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC;

// The policies of docs/golden.md, "Reverse subsequences".
constexpr Policy kSequenceLengthBeyondSize{"SequenceLengthBeyondSize", "Clamped"};
constexpr Policy kNegativeSequenceLength{"NegativeSequenceLength", "Refused"};
const std::vector<std::string_view> kData = {"InputTensor", "OutputTensor"};
const std::vector<std::string_view> kLengths = {"SequenceLengthsTensor"};

// The lengths' type, and lengths of zero, of the whole axis and beyond it.
void detect(const Case& c, std::vector<std::string>& f) {
    const REVERSE& d = get<REVERSE>(c.op.Desc);
    const DataType t = d.SequenceLengthsTensor.DataType;
    if (t == DataType::INT32) f.push_back("lengths-int32");
    if (t == DataType::INT64) f.push_back("lengths-int64");
    if (t == DataType::UINT64) f.push_back("lengths-uint64");
    const auto in = c.inputs.find("SequenceLengthsTensor");
    if (in == c.inputs.end() || d.Axis >= d.InputTensor.Sizes.size() || element_size(t) == 0) return;
    const uint64_t size = d.InputTensor.Sizes[d.Axis];
    const std::vector<std::byte> logical = gather_logical(d.SequenceLengthsTensor, in->second);
    const size_t w = element_size(t);
    bool zero = false, beyond = false;
    for (size_t i = 0; i + w <= logical.size(); i += w) {
        const uint64_t bits = load_bits(t, logical.data() + i);
        const auto length = sequence_length(t, logical.data() + i, size);
        zero = zero || bits == 0;
        beyond = beyond || (length && bits > size);
    }
    if (zero) f.push_back("length-zero");
    if (beyond) f.push_back("length-beyond-size");
}

// SequenceLengthsTensor: InputTensor's sizes with 1 at Axis.
bool lengths_sizes(const SizeRequest& q, std::vector<uint64_t>& out, std::string& path, std::string& error) {
    if (q.tensor != "SequenceLengthsTensor") return true;
    const auto axis = q.desc.find("Axis");
    if (axis == q.desc.end() || !axis->is_number_unsigned() || axis->get<uint64_t>() >= out.size()) {
        path = "/desc/Axis";
        error =
            "Axis must be given, less than InputTensor's DimensionCount, for SequenceLengthsTensor's \"auto\" sizes";
        return false;
    }
    out[axis->get<uint64_t>()] = 1;
    return true;
}

OperatorRecord reverse_subsequences() {
    // DML_FEATURE_LEVEL_2_1: 4-D, the eight 8- to 32-bit types, UINT32 lengths; 3.0 4 to 5
    // dimensions; 4.0 1 to 8 (the page's tables).
    auto r = operator_record<REVERSE, validate, evaluate>({
        .IntroducedIn = 0x2100,
        .Support = {{0x2100, kData, 4, 4, kEightTypes},
                    {0x2100, kLengths, 4, 4, kU32},
                    {0x3000, kData, 4, 5, kEightTypes},
                    {0x3000, kLengths, 4, 5, kU32},
                    {0x4000, kData, 1, 8, kEightTypes},
                    {0x4000, kLengths, 1, 8, kU32}},
        .Policies = {kSequenceLengthBeyondSize, kNegativeSequenceLength, kSubnormals},
    });
    r.validate_values = validate_values_as<REVERSE, validate_values>;
    r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::Bits}};
    r.explain = explain_reverse;
    r.features = {"lengths-int32", "lengths-int64", "lengths-uint64", "length-zero", "length-beyond-size"};
    r.detect = detect;
    r.sizes = lengths_sizes;
    return r;
}

}  // namespace rec_reverse

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& reverse_family() {
    using namespace reference::rec_reverse;
    static const FamilyRecord f{"reverse", {reverse_subsequences()}};
    return f;
}
}  // namespace dmlref::kit
