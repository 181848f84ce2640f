// The backend contract of `dmlref reduce` and `dmlref test` (tools/backend.hpp, docs/test.md).
#include "backend.hpp"

#include "dmlref/npy.hpp"
#include "dmlref/reduce.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <fstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace dmlref::cli {

int run_shell(const std::string& line, double timeout, bool& timed_out) {
    timed_out = false;
    const pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        setpgid(0, 0);
        execl("/bin/sh", "sh", "-c", line.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    setpgid(pid, pid);  // also here: the group exists whichever process runs first
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
    int status = 0;
    for (;;) {
        const pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid) break;
        if (r < 0 && errno != EINTR) return -1;
        if (std::chrono::steady_clock::now() >= deadline) {
            timed_out = true;
            kill(-pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
            }
            return -1;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string quoted(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

BackendRun run_backend(const std::string& command, const Case& c, const fs::path& dir, double timeout) {
    BackendRun r;
    r.out = dir / "out";
    r.log = dir / "log.txt";
    std::error_code ec;
    fs::create_directories(r.out, ec);
    fs::create_directories(dir / "inputs", ec);
    fs::create_directories(dir / "logical", ec);
    std::ofstream(dir / "case.json", std::ios::binary) << case_text(c);
    for (const auto& f : tensor_fields(c.op)) {
        if (f.role != TensorRole::Input) continue;
        const auto& b = c.inputs.at(std::string(f.name));
        const DataType t = f.desc->DataType;
        write_npy(dir / "inputs" / (std::string(f.name) + ".npy"), NpyArray{t, {b.size() / element_size(t)}, b});
        const std::vector<uint64_t> shape(f.desc->Sizes.begin(), f.desc->Sizes.end());
        write_npy(dir / "logical" / (std::string(f.name) + ".npy"), t, shape, gather_logical(*f.desc, b));
    }
    // The variables on the command line, not in dmlref's environment: test runs cases on threads.
    const std::string line = "( DMLREF_INPUTS=" + quoted((dir / "inputs").string()) +
                             " DMLREF_LOGICAL_INPUTS=" + quoted((dir / "logical").string()) +
                             "; export DMLREF_INPUTS DMLREF_LOGICAL_INPUTS; " + command + " " +
                             quoted((dir / "case.json").string()) + " " + quoted(r.out.string()) + " ) > " +
                             quoted(r.log.string()) + " 2>&1";
    r.status = run_shell(line, timeout, r.timed_out);
    return r;
}

std::string log_excerpt(const fs::path& log, size_t limit) {
    // Read as text up to `limit`: streaming an empty file into std::cerr would set its failbit and
    // silence every later message.
    std::ifstream in(log, std::ios::binary);
    std::string text(limit, '\0');
    in.read(text.data(), std::streamsize(text.size()));
    text.resize(size_t(in.gcount()));
    if (text.empty()) return "(nothing)";
    std::string out;  // each line printable, the line breaks kept
    for (size_t at = 0; at < text.size();) {
        const size_t end = std::min(text.find('\n', at), text.size());
        out += printable(text.substr(at, end - at)) + (end < text.size() ? "\n" : "");
        at = end + 1;
    }
    return out;
}

}  // namespace dmlref::cli
