// dmlref: the command line (run, validate, diff, one file each in tools/cmd_*.cpp).
//
// Exit codes (docs/cli.md):
//   0  every case ran (and matched its expected values, where it had some) / validated
//   1  a case's computed outputs differ from the expected values it holds (run), or a backend's
//      outputs are over tolerance (diff)
//   2  a case or an actual file is invalid or unreadable, or the command line is wrong
#include "cli.hpp"

#include <iostream>

using namespace dmlref;

int main(int argc, char** argv) {
    CLI::App app{
        "dmlref: the bit-exact CPU reference for DirectML operators.\n"
        "Exit codes: 0 success, 1 outputs differ from a case's expected values, 2 invalid input or usage."};
    app.set_version_flag("--version", std::string(dmlref_version()));
    app.require_subcommand(1);

    // One line per subcommand (tools/cmd_*.cpp).
    const std::vector<cli::Command> commands = {
        cli::add_run_command(app),
        cli::add_validate_command(app),
        cli::add_diff_command(app),
        cli::add_test_command(app),
        cli::add_import_dxdispatch_command(app),
        cli::add_export_dxdispatch_command(app),
        cli::add_reduce_command(app),
        cli::add_gen_command(app),
        cli::add_coverage_command(app),
        cli::add_explain_command(app),
        cli::add_clarifications_command(app),
    };

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return code == 0 ? 0 : 2;
    }
    try {
        for (const auto& c : commands)
            if (*c.app) return c.run();
    } catch (const std::exception& e) {
        std::cerr << "dmlref: error: " << e.what() << "\n";
        return 2;
    }
    return 2;
}
