// Writing a case file and the .npy files its golden names beside it, as one unit under the
// folder's lock (dmlref/folder_lock.hpp): what `run -o` (write_golden_files) and `gen -o`
// (gen::write_case) share.
#pragma once

#include "dmlref/case.hpp"

#include <filesystem>
#include <string>

namespace dmlref {

// What to do with a case file already at the target: write over it (run -o); or leave the same
// case (its bytes, and every .npy file it names) as it is and replace one with other bytes (gen -o
// --overwrite), or refuse it (gen -o).
enum class ExistingFile { Replace, KeepSame, Refuse };

// Writes the golden of `c` with `outputs` as write_golden_files does, treating a file already at
// `out_file` as `existing` says; false when it refuses one (nothing is written then). Throws
// WriteError or NpyError.
bool write_golden_files(const Case& c, const Outputs& outputs, const std::filesystem::path& out_file,
                        uint64_t npy_threshold, ExistingFile existing);

// A case file without expected outputs (gen --no-expected, an error case): `text`, by the same
// rules, under the same lock; the .npy files an earlier golden of this name wrote are removed.
bool write_case_file(const std::string& text, const std::filesystem::path& out_file, ExistingFile existing);

}  // namespace dmlref
