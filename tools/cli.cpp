// The command line's shared helpers (tools/cli.hpp).
#include "cli.hpp"

#include <algorithm>
#include <iostream>

namespace dmlref::cli {

std::vector<Input> collect(const std::vector<std::string>& args, std::vector<std::string>& problems) {
    std::vector<Input> out;
    for (const auto& a : args) {
        const fs::path p(a);
        std::error_code ec;
        if (fs::is_directory(p, ec)) {
            std::vector<Input> found;
            for (auto it = fs::recursive_directory_iterator(p, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
                if (it->is_regular_file() && it->path().extension() == ".json")
                    found.push_back({it->path(), it->path().lexically_relative(p)});
            std::sort(found.begin(), found.end(), [](const Input& x, const Input& y) { return x.relative < y.relative; });
            if (found.empty()) problems.push_back(a + ": no .json case files in this directory");
            out.insert(out.end(), found.begin(), found.end());
        } else if (fs::is_regular_file(p, ec)) {
            out.push_back({p, p.filename()});
        } else {
            problems.push_back(a + ": /: error: no such file or directory [file.read]");
        }
    }
    return out;
}

std::string sizes_text(const std::vector<uint32_t>& s) {
    std::string t = "[";
    for (size_t i = 0; i < s.size(); ++i) t += (i ? "," : "") + std::to_string(s[i]);
    return t + "]";
}

std::string nd_index(const std::vector<uint32_t>& sizes, uint64_t flat) {
    std::vector<uint64_t> c(sizes.size());
    for (size_t i = sizes.size(); i-- > 0;) { c[i] = flat % sizes[i]; flat /= sizes[i]; }
    std::string t = "[";
    for (size_t i = 0; i < c.size(); ++i) t += (i ? "," : "") + std::to_string(c[i]);
    return t + "]";
}

std::string pad(std::string s, size_t n) {
    if (s.size() < n) s.append(n - s.size(), ' ');
    return s;
}

// The first output's type and sizes, for the summary line.
std::string shape_text(const Case& c) {
    for (const auto& f : tensor_fields(c.op))
        if (f.role == TensorRole::Output) return std::string(name(f.desc->DataType)) + " " + sizes_text(f.desc->Sizes);
    return "";
}

Case load(const fs::path& file, uint64_t max_bytes, Diagnostics& diags) {
    try {
        LoadOptions lo;
        lo.max_bytes = max_bytes;
        return load_case(file, diags, lo);
    } catch (const CaseError& e) {
        diags = e.diagnostics();
        return {};
    }
}

void print_diagnostics(const Diagnostics& d, const std::string& file, std::ostream& os) {
    for (const auto& item : d.items()) os << format(item, file) << "\n";
}

}  // namespace dmlref::cli
