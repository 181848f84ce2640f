// Every registered operator is complete (docs/adding-an-operator.md): its record has every
// required part (reference/kit/registry.cpp refuses one that lacks them), an explain hook and
// coverage features; the repository has a bundled case for it (which the DxDispatch round trip
// of test_dxdispatch.cpp and the regeneration test then cover), a sweep, error cases (an
// "errors/..." sweep), and a one-line descriptor that round-trips (case_descriptor gives one only
// when the case it makes has the same tensors and fields).
#include "support.hpp"

#include "dmlref/coverage.hpp"
#include "dmlref/descriptor.hpp"
#include "dmlref/gen.hpp"

#include "../reference/kit/family.hpp"

#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <sstream>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_registry {

using namespace dmlref;
using namespace dmlref::test;
namespace fs = std::filesystem;

namespace {

const fs::path kRoot = fs::path(DMLREF_TEST_DATA).parent_path().parent_path();

std::string slurp(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

}  // namespace

TEST_CASE("the registry: every family's operators are complete") {
    // The bundled cases by operator.
    std::map<std::string, std::vector<fs::path>> cases;
    for (const auto& e : fs::recursive_directory_iterator(kRoot / "cases"))
        if (e.path().extension() == ".json") {
            Diagnostics d;
            const Case c = load_case(e.path(), d);
            if (!d.has_errors()) cases[std::string(info(c.op.Type).Name)].push_back(e.path());
        }
    // The operators the sweeps generate cases of, and those with error cases ("errors/..." sweeps).
    std::set<std::string> swept, errors;
    for (const auto& e : fs::directory_iterator(kRoot / "sweeps"))
        if (e.path().extension() == ".json") {
            const nlohmann::json spec = nlohmann::json::parse(slurp(e.path()));
            for (const auto& s : spec["sweeps"]) {
                const std::string op = s["base"]["operator"].get<std::string>();
                (s["name"].get<std::string>().rfind("errors/", 0) == 0 ? errors : swept).insert(op);
            }
        }

    size_t operators = 0;
    for (const kit::FamilyRecord* f : kit::families()) {
        REQUIRE_FALSE(f->operators.empty());
        for (const kit::OperatorRecord& r : f->operators) {
            ++operators;
            const std::string name(r.info.Name);
            const std::string where = std::string(f->name) + ": " + name;
            INFO(where);
            CHECK(kit::record_gaps(r).empty());
            CHECK(bool(r.explain));
            CHECK(applicable_features(r.info.Type).size() >= 5);  // the generic ones, then the family's
            CHECK(info(r.info.Type).Type == r.info.Type);
            CHECK(parse_operator_type("DML_OPERATOR_" + name) == r.info.Type);
            CHECK_FALSE(cases[name].empty());
            CHECK(swept.count(name));
            CHECK(errors.count(name));
            // A descriptor of some bundled case round-trips (docs/gen.md, "Descriptors").
            bool said = false;
            for (const auto& file : cases[name]) {
                Diagnostics d;
                const Case c = load_case(file, d);
                std::string why;
                const std::string text = case_descriptor(c, why);
                if (text.empty()) continue;
                Diagnostics pd;
                const auto planned = descriptor_to_planned(text, pd);
                said = planned.has_value() && !pd.has_errors();
                if (said) break;
            }
            CHECK(said);
        }
    }
    CHECK(operators == all_operators().size());
}

TEST_CASE("a computed operator states its rounding cost for --max-work") {
    // Every OperatorStated output needs the record's rounding_cost (docs/rules.md, limit.work): a
    // record without it is incomplete, so the registry refuses to start with it.
    kit::OperatorRecord r = kit::record(OperatorType::ACTIVATION_SIGMOID);
    CHECK(kit::record_gaps(r).empty());
    CHECK(r.rounding_cost(r.make()) == 700);
    r.rounding_cost = nullptr;
    const auto gaps = kit::record_gaps(r);
    REQUIRE(gaps.size() == 1);
    CHECK(gaps[0].find("rounding_cost") != std::string::npos);
    // A Bits-only operator needs none.
    CHECK(kit::record_gaps(kit::record(OperatorType::ACTIVATION_RELU)).empty());
    CHECK_FALSE(bool(kit::record(OperatorType::ACTIVATION_RELU).rounding_cost));
}

TEST_CASE("the registry refuses what DirectML does not have, and names what dmlref lacks") {
    CHECK(directml_operator_type("DML_OPERATOR_GEMM") == OperatorType::GEMM);
    CHECK(directml_operator_type("SCATTER") == OperatorType::SCATTER_ELEMENTS);
    CHECK_FALSE(directml_operator_type("GEMM2").has_value());
    CHECK(operator_type_name(OperatorType::UNFOLD) == "UNFOLD");
    CHECK(uint32_t(OperatorType::UNFOLD) == kOperatorTypeCount);
    // An operator of DirectML's that dmlref does not evaluate: an error naming it, not a crash.
    if (!evaluates(OperatorType::GEMM)) {
        const Operator gemm{OperatorType::GEMM, {}};
        CHECK(has_error(gemm, "operator.unknown", "/operator"));
    }
    // A desc of another operator's struct is refused (Operator{Type, Desc} must agree).
    const Operator mismatched{OperatorType::ACTIVATION_RELU_GRAD, DML_ACTIVATION_RELU_OPERATOR_DESC{}};
    CHECK(has_error(mismatched, "operator.desc-type", "/desc"));
}

}  // namespace dmlref_test_registry
