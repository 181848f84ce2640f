// dmlref explain GOLDEN INDEX [ACTUAL]: one output element of a golden, explained (docs/explain.md);
// the explanation itself is lib/judge/explain.cpp and each family's hook.
#include "cli.hpp"

#include "dmlref/explain.hpp"
#include "dmlref/values.hpp"

#include <iostream>
#include <memory>

namespace dmlref::cli {

namespace {

struct ExplainCmdOptions {
    std::string golden, index, actual, output;
    bool json = false;
    uint64_t max_bytes = uint64_t(4) << 30;
    std::string accumulate = "any", coordinates = "any";  // the arithmetic profile, as diff takes it
    bool flushed = false;
    bool tf32 = false;
    bool winograd = false;
    std::string statistics = "any";
};

int cmd_explain(const ExplainCmdOptions& o) {
    Diagnostics diags;
    LoadOptions lo;
    lo.max_bytes = o.max_bytes;
    const Case c = load(o.golden, lo, diags);
    if (diags.has_errors()) {
        print_diagnostics(diags, o.golden, std::cerr);
        return 2;
    }
    try {
        if (c.expected.empty())
            throw ExplainError(o.golden +
                               ": /expected: error: the case has no expected values; explain needs a golden "
                               "(dmlref run CASE -o DIR writes one) [explain.not-a-golden]");
        // The output: --output, or the first one.
        std::string output = o.output;
        const TensorDesc* desc = nullptr;
        for (const auto& f : tensor_fields(c.op))
            if (f.role == TensorRole::Output && (output.empty() || f.name == output)) {
                output = std::string(f.name);
                desc = f.desc;
                break;
            }
        if (!desc)
            throw ExplainError(o.golden + ": /expected: error: the operator has no output " + printable(output) +
                               " [explain.no-output]");
        const uint64_t flat = parse_element_index(o.index, desc->Sizes, o.golden);
        std::vector<std::byte> actual;
        if (!o.actual.empty()) {
            const fs::path a = o.actual;
            try {
                actual = a.extension() == ".npy" ? read_actual_npy(a, *desc, o.max_bytes)
                                                 : read_actual_raw(a, *desc, o.max_bytes);
            } catch (const std::exception& e) {
                throw ExplainError(std::string(e.what()) + " [explain.actual]");
            }
        }
        DiffOptions options;
        // CLI11's IsMember checks have admitted only these names.
        options.profile.accumulate = parse_accumulate(o.accumulate).value_or(Accumulate::Any);
        options.profile.coordinates = parse_coordinates(o.coordinates).value_or(Coordinates::Any);
        options.profile.flush_subnormals = o.flushed;
        options.profile.tf32_operands = o.tf32;
        options.profile.winograd = o.winograd;
        options.profile.statistics = parse_statistics(o.statistics).value_or(Statistics::Any);
        std::optional<uint64_t> bits;
        if (!o.actual.empty()) bits = load_bits(desc->DataType, actual.data() + flat * element_size(desc->DataType));
        const Explanation e = explain_element(c, output, flat, bits, o.actual, options);
        std::cout << (o.json ? explanation_json({e}) : explanation_text(e));
        return 0;
    } catch (const ExplainError& e) {
        std::cerr << e.what() << "\n";
        return 2;
    }
}

}  // namespace

Command add_explain_command(CLI::App& app) {
    auto o = std::make_shared<ExplainCmdOptions>();
    auto* cmd = app.add_subcommand("explain",
                                   "Explain one output element of a golden: its inputs, terms, policies, boundary "
                                   "and bound, against an actual value (docs/explain.md).");
    cmd->add_option("GOLDEN", o->golden, "a golden case file")->required();
    cmd->add_option("INDEX", o->index, "the element: N-d (0,1,2,3) or flat (7)")->required();
    cmd->add_option("ACTUAL", o->actual,
                    "the actual output: a .npy file (its shape, or the whole 1-D buffer) or a raw buffer");
    cmd->add_option("--output", o->output, "the output field (default: the operator's first output)");
    cmd->add_flag("--json", o->json, "JSON on standard output instead of the table");
    cmd->add_option("--max-bytes", o->max_bytes, "largest file to read, in bytes (default 4 GiB)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--accumulate", o->accumulate,
                    "precision of a backend's sums, for the bound (as diff: any, output, float32, float64)")
        ->check(CLI::IsMember({"any", "output", "float32", "float64"}));
    cmd->add_option("--coordinates", o->coordinates, "resample coordinate arithmetic, for the bound (as diff)")
        ->check(CLI::IsMember({"any", "float64", "float32-division", "float32-reciprocal", "float32-reciprocal-fma"}));
    cmd->add_flag("--allow-flushed-subnormals", o->flushed, "the bound admits flushing of subnormals (as diff)");
    cmd->add_flag("--allow-tf32", o->tf32, "the bound admits FLOAT32 product operands rounded to TF32 (as diff)");
    cmd->add_flag("--allow-winograd", o->winograd, "the bound admits Winograd convolutions (as diff)");
    cmd->add_option("--statistics", o->statistics,
                    "batch statistics' forms, for the bound (as diff: any, stable, two-pass, online, one-pass)")
        ->check(CLI::IsMember({"any", "stable", "two-pass", "online", "one-pass"}));
    return {cmd, [o] { return cmd_explain(*o); }};
}

}  // namespace dmlref::cli
