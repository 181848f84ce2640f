// dmlref import-dxdispatch / export-dxdispatch: a DxDispatch model to a case, and a case to a model
// DxDispatch runs with writeFile commands for the outputs (docs/dxdispatch.md; lib/interop/dxdispatch_*.cpp).
#include "cli.hpp"

#include "dmlref/atomic_file.hpp"

#include "dmlref/dxdispatch.hpp"

#include <fstream>
#include <iostream>
#include <memory>

namespace dmlref::cli {

namespace {

struct ImportOptions {
    std::string model, out;
    DxImportOptions dx;
    bool overwrite = false;
};

// Writes `text` to `file` whole, or removes what it wrote; false (with a message) on failure.
bool write_file(const fs::path& file, const std::string& text) {
    std::error_code ec;
    if (file.has_parent_path()) fs::create_directories(file.parent_path(), ec);
    try {
        write_file_atomic(file, text);  // whole or not at all (dmlref/atomic_file.hpp)
    } catch (const WriteError& e) {
        std::cerr << shown(file) << ": /: error: cannot write the file: " << printable(e.what()) << " [" << e.rule()
                  << "]\n";
        return false;
    }
    return true;
}

int cmd_import(const ImportOptions& o) {
    Diagnostics diags;
    std::string text;
    try {
        text = import_dxdispatch(o.model, diags, o.dx);
    } catch (const CaseError& e) {
        diags = e.diagnostics();
    }
    print_diagnostics(diags, o.model, std::cerr);
    if (diags.has_errors()) return 2;
    if (o.out.empty() || o.out == "-") {
        std::cout << text;
        return 0;
    }
    if (fs::exists(o.out) && !o.overwrite) {
        std::cerr << o.out
                  << ": /: error: the file exists; dmlref does not overwrite it without --overwrite [file.write]\n";
        return 2;
    }
    if (!write_file(o.out, text)) return 2;
    std::cerr << "wrote " << o.out << " (run `dmlref run " << o.out << " -o DIR` for its golden)\n";
    return 0;
}

struct ExportOptions {
    std::string case_file, out, output_dir;
    bool overwrite = false;
    uint64_t max_bytes = uint64_t(4) << 30;
};

int cmd_export(const ExportOptions& o) {
    Diagnostics diags;
    Case c = load(o.case_file, o.max_bytes, diags);
    print_diagnostics(diags, o.case_file, std::cerr);
    if (diags.has_errors()) return 2;
    const fs::path out = o.out.empty() ? fs::path(fs::path(o.case_file).stem().string() + ".dxdispatch.json")
                                       : fs::path(o.out);
    const std::string stem = out.stem().string();
    DxExport x;
    try {
        x = export_dxdispatch(c, stem, o.output_dir.empty() ? stem : o.output_dir);
    } catch (const CaseError& e) {
        print_diagnostics(e.diagnostics(), o.case_file, std::cerr);
        return 2;
    }
    for (const fs::path& p : [&] {
             std::vector<fs::path> all{out};
             for (const auto& [file, array] : x.files) all.push_back(out.parent_path() / file);
             return all;
         }())
        if (fs::exists(p) && !o.overwrite) {
            std::cerr << p.string()
                      << ": /: error: the file exists; dmlref does not overwrite it without --overwrite [file.write]\n";
            return 2;
        }
    std::vector<fs::path> written;
    auto undo = [&] {
        std::error_code ec;
        for (const auto& p : written) fs::remove(p, ec);
    };
    for (const auto& [file, array] : x.files) {
        const fs::path p = out.parent_path() / file;
        try {
            write_npy(p, array);
            written.push_back(p);
        } catch (const NpyError& e) {
            std::cerr << p.string() << ": /: error: " << e.what() << " [file.write]\n";
            undo();
            return 2;
        }
    }
    if (!write_file(out, x.model)) {
        undo();
        return 2;
    }
    std::cerr << "wrote " << out.string()
              << (x.files.empty() ? "" : " and " + std::to_string(x.files.size()) + " .npy input file(s) beside it")
              << "; run it with DxDispatch, then `dmlref diff GOLDEN " << (o.output_dir.empty() ? stem : o.output_dir)
              << "`\n";
    return 0;
}

}  // namespace

Command add_import_dxdispatch_command(CLI::App& app) {
    auto o = std::make_shared<ImportOptions>();
    auto* cmd = app.add_subcommand(
        "import-dxdispatch",
        "Read a DxDispatch model's DirectML dispatchable and its bound resources as a case (docs/dxdispatch.md).");
    cmd->add_option("MODEL", o->model, "the DxDispatch model (.json)")->required();
    cmd->add_option("-o,--output", o->out,
                    "the case file to write (default: standard output); an existing one only with --overwrite");
    cmd->add_flag("--overwrite", o->overwrite, "replace an existing output file (written whole, through a temporary)");
    cmd->add_option("--dispatchable", o->dx.dispatchable,
                    "the dispatchable to read when the model has several dmlref evaluates");
    cmd->add_option("--name", o->dx.name, "the case's name (default: the model's file name)");
    cmd->add_option("--max-bytes", o->dx.max_bytes, "largest resource or file to read, in bytes (default 4 GiB)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_flag(
        "--allow-paths", o->dx.allow_paths,
        "let sourcePath read files outside the model's folder (absolute paths, .., links, the current directory)");
    return {cmd, [o] { return cmd_import(*o); }};
}

Command add_export_dxdispatch_command(CLI::App& app) {
    auto o = std::make_shared<ExportOptions>();
    auto* cmd = app.add_subcommand(
        "export-dxdispatch",
        "Write a case as a DxDispatch model with writeFile commands for its outputs (docs/dxdispatch.md).");
    cmd->add_option("CASE", o->case_file, "the case or golden file")->required();
    cmd->add_option("-o,--output", o->out,
                    "the model file to write (default: CASE's name with .dxdispatch.json, here)");
    cmd->add_flag("--overwrite", o->overwrite,
                  "replace an existing model file and .npy files (each written whole, through a temporary)");
    cmd->add_option("--outputs-dir", o->output_dir,
                    "the directory the writeFile commands write <OutputField>.npy to (default: the model's name)");
    cmd->add_option("--max-bytes", o->max_bytes, "largest buffer the case may allocate, in bytes (default 4 GiB)")
        ->check(CLI::NonNegativeNumber);
    return {cmd, [o] { return cmd_export(*o); }};
}

}  // namespace dmlref::cli
