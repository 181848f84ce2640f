// The JOIN and SPLIT records (reference/kit/family.hpp): the facts of DML_JOIN_OPERATOR_DESC and
// DML_SPLIT_OPERATOR_DESC from their pages, coverage, and gen's derived sizes.
#include "join_split.hpp"
#include "fast/data_movement.hpp"

#include "kit/policies.hpp"

#include <nlohmann/json.hpp>

namespace dmlref::reference {

namespace rec_join_split {

using namespace kit;
using JOIN = DML_JOIN_OPERATOR_DESC;
using SPLIT = DML_SPLIT_OPERATOR_DESC;

// The pages' tables: DML_FEATURE_LEVEL_1_0 4-D in six types, 2.1 the eight 8- to 32-bit types,
// 3.0 4 to 5 dimensions; 4.1 1 to 8 dimensions and all eleven types (the feature level history's
// "types+ 4.1" for both operators).
const std::vector<DT> kSixTypes = {DT::FLOAT32, DT::FLOAT16, DT::INT32, DT::INT16, DT::UINT32, DT::UINT16};
const std::vector<SupportRow> kRows = {{0x1000, {}, 4, 4, kSixTypes},
                                       {0x2100, {}, 4, 4, kEightTypes},
                                       {0x3000, {}, 4, 5, kEightTypes},
                                       {0x4100, {}, 1, 8, kElevenTypes}};

// ---- Coverage ---------------------------------------------------------------------------------

void detect(const std::vector<TensorDesc>& array, uint32_t axis, uint32_t rank, std::vector<std::string>& f) {
    if (array.size() == 1) f.push_back("one-tensor");
    if (array.size() >= 3) f.push_back("three-or-more");
    if (axis == 0 && rank > 1) f.push_back("axis-first");
    if (axis + 1 == rank && rank > 1) f.push_back("axis-last");
    if (axis > 0 && axis + 1 < rank) f.push_back("axis-inner");
}
void detect_join(const Case& c, std::vector<std::string>& f) {
    const JOIN& d = get<JOIN>(c.op.Desc);
    detect(d.InputTensors, d.Axis, d.OutputTensor.DimensionCount(), f);
}
void detect_split(const Case& c, std::vector<std::string>& f) {
    const SPLIT& d = get<SPLIT>(c.op.Desc);
    detect(d.OutputTensors, d.Axis, d.InputTensor.DimensionCount(), f);
}

// ---- gen's derived sizes ------------------------------------------------------------------------

// An element of the tensor array given "auto" Sizes: the single tensor's Sizes, with Axis split
// as evenly as it goes (element k of n takes floor((k + 1) S / n) - floor(k S / n) of S).
bool even_split(const SizeRequest& q, std::vector<uint64_t>& out, std::string& path, std::string& error) {
    const auto e = split_tensor_array_element(q.tensor);
    if (!e) return true;
    const std::string array(e->first);
    const auto axis = q.desc.contains("Axis") && q.desc["Axis"].is_number_unsigned() ? q.desc["Axis"].get<uint64_t>()
                                                                                     : ~uint64_t(0);
    if (axis >= q.base_sizes.size()) {
        path = "/desc/Axis";
        error = "Axis must be a dimension of " + std::string(q.base) + " to derive the sizes of " + array;
        return false;
    }
    const uint64_t n = q.desc[array].size(), s = q.base_sizes[axis], k = e->second;
    if (s < n) {
        error = std::string(q.base) + ".Sizes[Axis] = " + std::to_string(s) + " cannot be split into " +
                std::to_string(n) + " parts of at least 1";
        return false;
    }
    out[axis] = (k + 1) * s / n - k * s / n;
    return true;
}

const std::vector<std::string_view> kFeatures = {"one-tensor", "three-or-more", "axis-first", "axis-last",
                                                 "axis-inner"};

OperatorRecord join() {
    auto r = operator_record<JOIN, validate, evaluate>(
        {.IntroducedIn = 0x1000, .Support = kRows, .Policies = {kSubnormals}});
    r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::Bits}};
    r.explain = explain_join_split;
    r.fast = fast_as<JOIN, fast::data_movement_fast>;
    r.features = kFeatures;
    r.detect = detect_join;
    r.BaseTensors = {"OutputTensor"};
    r.sizes = even_split;
    return r;
}

OperatorRecord split() {
    auto r = operator_record<SPLIT, validate, evaluate>(
        {.IntroducedIn = 0x1000, .Support = kRows, .Policies = {kSubnormals}});
    // Every element of OutputTensors is judged bit for bit; the rows name the array's elements
    // through the judge's lookup of "OutputTensors[k]" by its array (kit/registry.cpp).
    r.outputs = {{"OutputTensors", TypeClass::Any, ToleranceRule::Bits}};
    r.explain = explain_join_split;
    r.fast = fast_as<SPLIT, fast::data_movement_fast>;
    r.features = kFeatures;
    r.detect = detect_split;
    r.sizes = even_split;
    return r;
}

}  // namespace rec_join_split

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& join_split_family() {
    using namespace reference::rec_join_split;
    static const FamilyRecord f{"join_split", {join(), split()}};
    return f;
}
}  // namespace dmlref::kit
