// DxDispatch interop (docs/dxdispatch.md): a DxDispatch JSON model's DirectML dispatchable and the
// resources bound to it, read into a dmlref case; and a case written as a model DxDispatch runs,
// with writeFile commands that dump each output's buffer for `dmlref diff`.
#pragma once

#include "dmlref/case.hpp"
#include "dmlref/npy.hpp"

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace dmlref {

struct DxImportOptions {
    std::string dispatchable;                // which dispatchable; "" = the model's only one dmlref knows
    std::string name;                        // the case's name; "" = the model's file name without .json
    uint64_t max_bytes = uint64_t(4) << 30;  // per resource and per file read
    bool allow_paths = false;                // sourcePath may leave the model's folder (dxdispatch.source-path)
};

// Reads the model and returns the case file's text (no expected values: `dmlref run` adds them).
// Problems go to `diags` with JSON pointers into the model; the text is "" when there are errors.
// Values keep the model's notation where dmlref reads them to the same bits DxDispatch uploads,
// and are written as those exact bits otherwise (a warning says which).
std::string import_dxdispatch(const std::filesystem::path& model, Diagnostics& diags,
                              const DxImportOptions& options = {});

struct DxExport {
    std::string model;                                    // the model's JSON text
    std::vector<std::pair<std::string, NpyArray>> files;  // input buffers DxDispatch's JSON cannot spell, by file name
};

// The case as a DxDispatch model: one resource per input buffer (its whole TotalTensorSizeInBytes)
// and per output, the dispatchable, a dispatch command, and a writeFile command per output that
// writes `<output_dir>/<OutputField>.npy` (1-D, the output's whole buffer). Input buffers with
// values DxDispatch's JSON cannot spell (NaN payloads, negative or signalling NaNs) go to
// `<file_stem>.<InputField>.npy` beside the model. Throws CaseError for a desc value that
// DxDispatch cannot spell.
DxExport export_dxdispatch(const Case& c, const std::string& file_stem, const std::string& output_dir);

}  // namespace dmlref
