// The command line's shared helpers (tools/cli.hpp).
#include "cli.hpp"

#include <algorithm>
#include <iostream>
#include <map>

namespace dmlref::cli {

namespace {

std::string problem(const fs::path& p, const std::string& rule, const std::string& message) {
    return shown(p) + ": /: error: " + message + " [" + rule + "]";
}

// Adds the *.json files under `dir` (following links to folders once each) to `found`.
void walk(const fs::path& dir, const fs::path& top, std::vector<Input>& found, std::vector<std::string>& problems,
          std::vector<fs::path>& visited) {
    std::error_code ec;
    const fs::path real = fs::canonical(dir, ec);
    if (!ec) {
        if (std::find(visited.begin(), visited.end(), real) != visited.end()) return;  // a link loop, or seen already
        visited.push_back(real);
    }
    std::vector<fs::directory_entry> entries;
    fs::directory_iterator it(dir, ec);
    for (; !ec && it != fs::directory_iterator(); it.increment(ec)) entries.push_back(*it);
    if (ec) {
        problems.push_back(problem(dir, "file.read", "cannot read the folder: " + ec.message()));
        return;
    }
    for (const auto& e : entries) {
        const fs::path p = e.path();
        if (!is_utf8(p.filename().string())) {
            problems.push_back(
                problem(p, "file.name", "the name is not UTF-8; dmlref reads and writes UTF-8 names only (rename it)"));
            continue;
        }
        std::error_code lec, sec;
        const auto link = e.symlink_status(lec);
        const auto st = e.status(sec);
        if (fs::is_symlink(link) && !fs::exists(st)) {
            problems.push_back(
                problem(p, "file.read", "a symbolic link to nothing (dangling); remove it or fix its target"));
        } else if (lec || (sec && !fs::is_symlink(link))) {
            problems.push_back(problem(p, "file.read", "cannot read: " + (lec ? lec : sec).message()));
        } else if (fs::is_directory(st)) {
            walk(p, top, found, problems, visited);
        } else if (p.extension() == ".json") {
            if (fs::is_regular_file(st)) found.push_back({p, p.lexically_relative(top)});
            else problems.push_back(problem(p, "file.read", "not a regular file"));
        }
    }
}

}  // namespace

std::string shown(const fs::path& p) { return printable(p.string()); }

bool make_output_folder(const fs::path& root, const fs::path& folder, std::string& error) {
    std::error_code ec;
    fs::create_directories(root, ec);
    const fs::path rel = folder.lexically_normal().lexically_relative(root.lexically_normal());
    if (rel.empty() || rel == ".") return true;
    if (*rel.begin() == "..") {  // not inside root: as before, made as asked
        fs::create_directories(folder, ec);
        return true;
    }
    fs::path p = root;
    for (const auto& part : rel) {
        p /= part;
        const fs::file_status st = fs::symlink_status(p, ec);
        if (fs::is_symlink(st)) {
            error = shown(p) +
                    " is a symbolic link; dmlref writes only into real folders inside the output [file.not-regular]";
            return false;
        }
        if (!fs::exists(st)) {
            if (!fs::create_directory(p, ec) && ec) {
                error = shown(p) + ": cannot make the folder: " + ec.message() + " [file.write]";
                return false;
            }
        } else if (!fs::is_directory(st)) {
            error = shown(p) + " is not a folder [file.not-regular]";
            return false;
        }
    }
    return true;
}

std::vector<Input> collect(const std::vector<std::string>& args, std::vector<std::string>& problems) {
    std::vector<Input> out;
    for (const auto& a : args) {
        const fs::path p(a);
        std::error_code ec;
        if (!is_utf8(a)) {
            problems.push_back(
                problem(p, "file.name", "the name is not UTF-8; dmlref reads and writes UTF-8 names only (rename it)"));
        } else if (fs::is_directory(p, ec)) {
            std::vector<Input> found;
            std::vector<fs::path> visited;
            walk(p, p, found, problems, visited);
            std::sort(found.begin(), found.end(),
                      [](const Input& x, const Input& y) { return x.relative < y.relative; });
            if (found.empty()) problems.push_back(problem(p, "file.read", "no .json case files in this directory"));
            out.insert(out.end(), found.begin(), found.end());
        } else if (fs::is_regular_file(p, ec)) {
            out.push_back({p, p.filename()});
        } else {
            problems.push_back(problem(p, "file.read", "no such file or directory"));
        }
    }
    return out;
}

void drop_colliding_outputs(std::vector<Input>& inputs, std::vector<std::string>& problems) {
    std::map<fs::path, fs::path> first;  // output path -> the case file that has it
    std::vector<Input> kept;
    for (auto& in : inputs) {
        const fs::path key = in.relative.lexically_normal();
        auto [it, fresh] = first.emplace(key, in.file);
        if (fresh) {
            kept.push_back(std::move(in));
            continue;
        }
        problems.push_back(problem(in.file, "output.collision",
                                   "its output " + shown(key) + " is also the output of " + shown(it->second) +
                                       "; run them separately or into different -o folders (nothing is overwritten)"));
    }
    inputs = std::move(kept);
}

void add_load_options(CLI::App& app, LoadOptions& lo) {
    app.add_option("--max-bytes", lo.max_bytes, "largest buffer a case may allocate, in bytes (default 4 GiB)")
        ->check(CLI::NonNegativeNumber);
    app.add_option("--max-work", lo.max_work, "most work a case may take, in element reads and writes (default 2^32)")
        ->check(CLI::NonNegativeNumber);
    app.add_flag("--allow-paths", lo.allow_paths,
                 "let cases read .npy files outside their own folder (absolute paths, .., links)");
}

std::string nd_index(const std::vector<uint32_t>& sizes, uint64_t flat) {
    std::vector<uint64_t> c(sizes.size());
    for (size_t i = sizes.size(); i-- > 0;) {
        c[i] = flat % sizes[i];
        flat /= sizes[i];
    }
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

Case load(const fs::path& file, const LoadOptions& lo, Diagnostics& diags) {
    try {
        return load_case(file, diags, lo);
    } catch (const CaseError& e) {
        diags = e.diagnostics();
    } catch (const std::bad_alloc&) {
        diags = {};
        diags.error("", "limit.memory",
                    "out of memory reading the case (lower --max-bytes, or give dmlref more memory)");
    } catch (const std::exception&) {
        // Never a library's exception text: it names neither the JSON path nor the rule.
        diags = {};
        diags.error("", "internal.error",
                    "dmlref could not read this case because of an internal error; please report it with the file");
    }
    return {};
}

void print_diagnostics(const Diagnostics& d, const std::string& file, std::ostream& os) {
    for (const auto& item : d.items()) os << printable(format(item, file)) << "\n";
}

}  // namespace dmlref::cli
