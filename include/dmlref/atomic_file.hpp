// Writing a file all at once: to a temporary file in the same folder, flushed to disk, then
// renamed into place, so that the file is always the old one or the new one, never a broken one.
#pragma once

#include <filesystem>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>

namespace dmlref {

// Thrown with a sentence (what()) and the rule id of docs/rules.md: "file.write" (the disk is
// full, the folder is not writable...) or "file.not-regular" (the path is a symbolic link, a
// device or a folder: dmlref never writes through a link and never replaces anything but a file).
class WriteError : public std::runtime_error {
public:
    WriteError(std::string rule, const std::string& message) : std::runtime_error(message), rule_(std::move(rule)) {}
    const std::string& rule() const { return rule_; }

private:
    std::string rule_;
};

// Writes `bytes` to `file` atomically (see above). On any error the temporary file is removed,
// `file` is left as it was, and WriteError is thrown.
//
// Test hook (test/robustness.sh, the kill -9 checks): when the environment variable
// DMLREF_TEST_STOP_WRITE is "partial", the process stops itself (SIGSTOP) after writing the first
// half of the temporary file; when it is "before-rename", after the temporary file is written
// whole and flushed, just before the rename. The test then kills it with SIGKILL at that known
// point. Unset (as always outside the tests), it changes nothing.
void write_file_atomic(const std::filesystem::path& file, std::string_view bytes);
// The same with the bytes given in parts (a header and a large buffer, without joining them).
void write_file_atomic(const std::filesystem::path& file, std::initializer_list<std::string_view> parts);

}  // namespace dmlref
