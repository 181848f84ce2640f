// Atomic file writing (dmlref/atomic_file.hpp): temporary file, write, fsync, rename.
#include "dmlref/atomic_file.hpp"
#include "dmlref/folder_lock.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace dmlref {

namespace {

[[noreturn]] void write_failure(const std::string& rule, const std::string& message) {
    throw WriteError(rule, message);
}

std::string errno_text(int e) { return std::strerror(e); }

// The test hook of dmlref/atomic_file.hpp: stop here when DMLREF_TEST_STOP_WRITE names this point.
void test_stop(const char* point) {
    const char* want = std::getenv("DMLREF_TEST_STOP_WRITE");
    if (want && std::strcmp(want, point) == 0) ::raise(SIGSTOP);
}

// The temporary files of earlier writers of the same file that are gone (killed mid-write): named
// PREFIX<pid>-XXXXXX, removed when no process has that pid. A live writer's, another file's, or
// anything that is not a regular file is left alone.
void remove_stale_temporaries(const std::filesystem::path& dir, const std::string& prefix) {
    std::error_code ec;
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.rfind(prefix, 0) != 0) continue;
        const std::string rest = name.substr(prefix.size());
        const size_t dash = rest.find('-');
        if (dash == 0 || dash == std::string::npos || rest.size() - dash != 7) continue;  // "-XXXXXX"
        if (rest.find_first_not_of("0123456789") != dash || dash > 9) continue;
        const long pid = std::strtol(rest.substr(0, dash).c_str(), nullptr, 10);
        if (pid <= 0 || pid == long(::getpid()) || ::kill(pid_t(pid), 0) == 0 || errno != ESRCH) continue;
        struct stat st {};
        if (::lstat(it->path().c_str(), &st) == 0 && S_ISREG(st.st_mode)) ::unlink(it->path().c_str());
    }
}

}  // namespace

void write_file_atomic(const std::filesystem::path& file, std::string_view bytes) { write_file_atomic(file, {bytes}); }

void write_file_atomic(const std::filesystem::path& file, std::initializer_list<std::string_view> parts) {
    const std::string target = file.string();
    if (target.find('\0') != std::string::npos) write_failure("file.write", "the file name holds a NUL byte");
    struct stat st {};
    if (::lstat(target.c_str(), &st) == 0) {
        if (S_ISLNK(st.st_mode))
            write_failure("file.not-regular",
                          "is a symbolic link; dmlref does not write through links (remove it first)");
        if (!S_ISREG(st.st_mode))
            write_failure("file.not-regular",
                          "exists and is not a regular file (a folder or a device); dmlref replaces only files");
    }
    const std::filesystem::path dir = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
    const std::string prefix = "." + file.filename().string() + ".tmp-";
    remove_stale_temporaries(dir, prefix);
    std::string temp = (dir / (prefix + std::to_string(::getpid()) + "-XXXXXX")).string();
    const int fd = ::mkstemp(temp.data());
    if (fd < 0)
        write_failure("file.write", "cannot create a temporary file in " + dir.string() + ": " + errno_text(errno));
    auto abandon = [&](const std::string& what, int e) {
        ::close(fd);
        ::unlink(temp.c_str());
        write_failure("file.write", what + ": " + errno_text(e) + " (the file was left as it was)");
    };
    // mkstemp makes the file 0600; give it the permissions a plain open would (0666 less umask).
    const mode_t mask = ::umask(0);
    ::umask(mask);
    if (::fchmod(fd, 0666 & ~mask) != 0) abandon("cannot set the permissions", errno);
    // The test hook "partial" stops the writer once half of all the bytes are written.
    size_t total = 0;
    for (const std::string_view bytes : parts) total += bytes.size();
    size_t written = 0;
    bool halfway = false;
    for (const std::string_view bytes : parts) {
        size_t done = 0;
        while (done < bytes.size()) {
            if (!halfway && written >= total / 2) {
                halfway = true;
                test_stop("partial");
            }
            size_t chunk = bytes.size() - done;
            if (!halfway) chunk = std::min(chunk, total / 2 - written);
            if (chunk == 0) continue;  // halfway is set on the next turn
            const ssize_t n = ::write(fd, bytes.data() + done, chunk);
            if (n < 0) {
                if (errno == EINTR) continue;
                abandon("cannot write", errno);
            }
            done += size_t(n);
            written += size_t(n);
        }
    }
    if (!halfway) test_stop("partial");  // an empty file
    if (::fsync(fd) != 0) abandon("cannot flush to disk", errno);
    test_stop("before-rename");
    if (::close(fd) != 0) {
        const int e = errno;
        ::unlink(temp.c_str());
        write_failure("file.write", "cannot close the file: " + errno_text(e) + " (the file was left as it was)");
    }
    if (::rename(temp.c_str(), target.c_str()) != 0) {
        const int e = errno;
        ::unlink(temp.c_str());
        write_failure("file.write", "cannot rename the temporary file into place: " + errno_text(e) +
                                        " (the file was left as it was)");
    }
}

FolderLock::FolderLock(const std::filesystem::path& folder) {
    const std::string dir = folder.empty() ? std::string(".") : folder.string();
    if (dir.find('\0') != std::string::npos) write_failure("file.write", "the folder name holds a NUL byte");
    fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd_ < 0) write_failure("file.write", "cannot open the folder " + dir + " to lock it: " + errno_text(errno));
    while (::flock(fd_, LOCK_EX) != 0)
        if (errno != EINTR) break;  // a file system without flock (ENOLCK, EOPNOTSUPP): unlocked
}

FolderLock::~FolderLock() {
    if (fd_ >= 0) ::close(fd_);  // releases the lock
}

}  // namespace dmlref
