// Whether a file a case or model names stays inside its own folder tree (docs/rules.md,
// input.npy-path and dxdispatch.source-path): no NUL byte, no absolute path, no .. climbing out,
// no symbolic link leading out.
#pragma once

#include <filesystem>
#include <string>

namespace dmlref {

// True when `name`, relative to `dir`, names a file inside `dir`'s tree (following links).
inline bool path_inside(const std::filesystem::path& folder, const std::string& name) {
    namespace fs = std::filesystem;
    const fs::path dir = folder.empty() ? fs::path(".") : folder;
    if (name.empty() || name.find('\0') != std::string::npos || fs::path(name).is_absolute()) return false;
    std::error_code ec1, ec2;
    const fs::path root = fs::weakly_canonical(fs::absolute(dir), ec1);
    const fs::path real = fs::weakly_canonical(fs::absolute(dir / name), ec2);
    if (ec1 || ec2) return false;
    const fs::path rel = real.lexically_relative(root);
    return !rel.empty() && *rel.begin() != ".." && rel != ".";
}

}  // namespace dmlref
