// The NONZERO_COORDINATES record (reference/kit/family.hpp): the facts of
// DML_NONZERO_COORDINATES_OPERATOR_DESC from its page ("Availability", "Tensor support"; no
// in-place execution), the policies its goldens record and coverage features. The count and the
// coordinates are exact integers: Bits, with the coordinate rows past the count DontCare
// (case_dont_care: which rows depends on the input values).
#include "nonzero_coordinates.hpp"

#include "kit/policies.hpp"

#include "dmlref/bits.hpp"
#include "dmlref/values.hpp"

namespace dmlref::reference {

namespace rec_nonzero_coordinates {

using namespace kit;
using NZ = DML_NONZERO_COORDINATES_OPERATOR_DESC;

// The policies of docs/golden.md, "Nonzero coordinates" (Subnormals is the kit's).
constexpr Policy kNonzeroNaN{"NonzeroNaN", "Nonzero"};
constexpr Policy kNonzeroRowsPastCount{"NonzeroRowsPastCount", "DontCare"};
const std::vector<std::string_view> kInput = {"InputTensor"};
const std::vector<std::string_view> kOutputs = {"OutputCountTensor", "OutputCoordinatesTensor"};

// No non-zero element, every element non-zero, a -0 or a NaN in the input, N above the effective
// rank (leading columns of zeros), N below the DimensionCount (leading 1s dropped).
void detect(const Case& c, std::vector<std::string>& f) {
    const NZ& d = get<NZ>(c.op.Desc);
    const uint32_t rank = d.InputTensor.DimensionCount(),
                   n = d.OutputCoordinatesTensor.Sizes.empty() ? 0 : d.OutputCoordinatesTensor.Sizes.back();
    uint32_t lead = 0;
    while (lead < rank && d.InputTensor.Sizes[lead] == 1) ++lead;
    if (n > rank - lead) f.push_back("columns-above-effective-rank");
    if (n < rank) f.push_back("columns-below-dimension-count");
    const auto in = c.inputs.find("InputTensor");
    if (in == c.inputs.end() || in->second.size() < buffer_size(d.InputTensor)) return;
    const uint64_t count = nonzero_indices(d.InputTensor, in->second).size();
    if (count == 0) f.push_back("all-zero");
    if (count == element_count(d.InputTensor)) f.push_back("all-nonzero");
    if (!is_float(d.InputTensor.DataType)) return;
    const std::vector<std::byte> bytes = gather_logical(d.InputTensor, in->second);
    const DataType t = d.InputTensor.DataType;
    const size_t w = element_size(t);
    bool nz = false, nan = false;
    for (size_t i = 0; i * w < bytes.size(); ++i) {
        const uint64_t bits = load_bits(t, bytes.data() + i * w), sign = uint64_t(1) << (8 * w - 1);
        nz = nz || bits == sign;
        nan = nan || is_nan_bits(t, bits);
    }
    if (nz) f.push_back("negative-zero");
    if (nan) f.push_back("nan");
}

// OutputCountTensor all 1s; OutputCoordinatesTensor {1,...,1,M,DimensionCount}.
bool derived_sizes(const SizeRequest& q, std::vector<uint64_t>& out, std::string&, std::string&) {
    uint64_t m = 1;
    for (uint64_t s : q.base_sizes) m *= s;
    const size_t rank = q.base_sizes.size();
    if (q.tensor == "OutputCountTensor") out.assign(rank, 1);
    if (q.tensor == "OutputCoordinatesTensor" && rank >= 2) {
        out.assign(rank, 1);
        out[rank - 2] = m;
        out[rank - 1] = rank;
    }
    return true;
}

OperatorRecord nonzero_coordinates() {
    // DML_FEATURE_LEVEL_3_0: InputTensor 4 or 5 dimensions, eight types; the outputs UINT32.
    auto r = operator_record<NZ, validate, evaluate>({
        .IntroducedIn = 0x3000,
        .Support = {{0x3000, kInput, 4, 5, kEightTypes}, {0x3000, kOutputs, 4, 5, kU32}},
        .Policies = {kNonzeroNaN, kNonzeroRowsPastCount, kSubnormals},
    });
    r.outputs = {{"OutputCountTensor", TypeClass::Any, ToleranceRule::Bits},
                 {"OutputCoordinatesTensor", TypeClass::Any, ToleranceRule::Bits}};
    r.case_dont_care = nonzero_rows_past_count;
    r.explain = explain_nonzero_coordinates;
    r.MinRank = 2;
    r.features = {"columns-above-effective-rank",
                  "columns-below-dimension-count",
                  "all-zero",
                  "all-nonzero",
                  "negative-zero",
                  "nan"};
    r.detect = detect;
    r.BaseTensors = {"InputTensor"};
    r.sizes = derived_sizes;
    return r;
}

}  // namespace rec_nonzero_coordinates

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& nonzero_coordinates_family() {
    using namespace reference::rec_nonzero_coordinates;
    static const FamilyRecord f{"nonzero_coordinates", {nonzero_coordinates()}};
    return f;
}
}  // namespace dmlref::kit
