// The backend contract that `dmlref reduce` and `dmlref test` share (docs/test.md, "The backend
// contract"): for one case, a directory holding the case and its inputs, the command run through
// the shell as `CMD CASE.json OUTDIR`, and the outputs it wrote read back.
#pragma once
#include "cli.hpp"

#include <string>

namespace dmlref::cli {

// Runs `line` through /bin/sh in a process group of its own; after `timeout` seconds the whole
// group is killed. The shell's exit status, or -1 where it was killed for time or by a signal.
int run_shell(const std::string& line, double timeout, bool& timed_out);

// `s` quoted for /bin/sh.
std::string quoted(const std::string& s);

struct BackendRun {
    int status = -1;         // the command's exit status; -1 killed (for time, or by a signal)
    bool timed_out = false;  // killed after the timeout
    fs::path out;            // DIR/out: where the command wrote <OutputField>.npy
    fs::path log;            // DIR/log.txt: its standard output and error
};

// Writes DIR/case.json (the case without expected values), DIR/inputs/<InputField>.npy (each
// input's whole buffer, 1-D, memory order), DIR/logical/<InputField>.npy (its logical elements in
// its Sizes, read through its Strides), makes DIR/out, and runs
//   DMLREF_INPUTS=DIR/inputs DMLREF_LOGICAL_INPUTS=DIR/logical CMD DIR/case.json DIR/out
// with its output in DIR/log.txt. DIR is made; nothing outside it is written.
BackendRun run_backend(const std::string& command, const Case& c, const fs::path& dir, double timeout);

// The first `limit` bytes of a log, each line printable (dmlref/printable.hpp); "(nothing)" when empty.
std::string log_excerpt(const fs::path& log, size_t limit = 64 * 1024);

}  // namespace dmlref::cli
