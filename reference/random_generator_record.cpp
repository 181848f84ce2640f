// The RANDOM_GENERATOR record (reference/kit/family.hpp): the facts of
// DML_RANDOM_GENERATOR_OPERATOR_DESC from its page ("Availability", "Tensor support"; no in-place
// execution), the policies its goldens record and coverage features. Every output word is
// Philox 4x32-10's, an exact function of the state, and the new state is an exact sum: Bits.
#include "random_generator.hpp"

#include "kit/policies.hpp"

namespace dmlref::reference {

namespace rec_random_generator {

using namespace kit;
using RNG = DML_RANDOM_GENERATOR_OPERATOR_DESC;

// The policies of docs/golden.md, "Random generator".
constexpr Policy kPhiloxCounterWords{"PhiloxCounterWords", "Element0Lowest"};
constexpr Policy kPhiloxOutputOrder{"PhiloxOutputOrder", "BlockPerFourElements"};
constexpr Policy kCounterWrap{"CounterWrap", "Modulo2To128"};
constexpr Policy kRandomStateKey{"RandomStateKey", "Copied"};

// An output that ends inside a block, a counter that carries out of word 0 within the output or
// the increment, one that wraps past 2^128 - 1, the new state asked for.
void detect(const Case& c, std::vector<std::string>& f) {
    const RNG& d = get<RNG>(c.op.Desc);
    const uint64_t n = element_count(d.OutputTensor);
    if (n % 4) f.push_back("partial-block");
    if (d.OutputStateTensor) f.push_back("output-state");
    const auto in = c.inputs.find("InputStateTensor");
    if (in == c.inputs.end() || in->second.size() < buffer_size(d.InputStateTensor)) return;
    const std::array<uint32_t, 6> s = random_state(d, in->second);
    const uint64_t blocks = n / 4 + (n % 4 != 0);
    if (uint64_t(s[0]) + blocks >= (uint64_t(1) << 32)) f.push_back("counter-carry");
    uint64_t carry = blocks;  // what carries out of word 3 of counter + blocks
    for (size_t w = 0; w < 4; ++w) carry = (carry >> 32) + ((uint64_t(s[w]) + (carry & 0xffffffffu)) >> 32);
    if (carry) f.push_back("counter-wraps");
}

OperatorRecord random_generator() {
    // DML_FEATURE_LEVEL_3_0: the three tensors UINT32, 4 dimensions.
    auto r = operator_record<RNG, validate, evaluate>({
        .IntroducedIn = 0x3000,
        .Support = {{0x3000, {}, 4, 4, kU32}},
        .Policies = {kPhiloxCounterWords, kPhiloxOutputOrder, kCounterWrap, kRandomStateKey},
    });
    r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::Bits},
                 {"OutputStateTensor", TypeClass::Any, ToleranceRule::Bits}};
    r.explain = explain_random_generator;
    r.ScopeTypes = {DataType::UINT32};
    r.features = {"partial-block", "output-state", "counter-carry", "counter-wraps"};
    r.detect = detect;
    r.BaseTensors = {"OutputTensor"};
    return r;
}

}  // namespace rec_random_generator

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& random_generator_family() {
    using namespace reference::rec_random_generator;
    static const FamilyRecord f{"random_generator", {random_generator()}};
    return f;
}
}  // namespace dmlref::kit
