// One writer at a time in an output folder: an advisory lock (flock) on the folder itself, held
// while a golden and its .npy files are written and the stale ones removed (run -o), or while gen
// -o checks a case file and writes it. Two dmlref processes writing into one folder (parallel CI
// shards) then leave one writer's complete golden, never a golden naming a .npy the other removed.
// The lock is the folder's own (no lock file is left behind) and the kernel releases it when the
// holder ends, however it ends; a writer waits while another holds it.
#pragma once

#include <filesystem>

namespace dmlref {

class FolderLock {
public:
    // Waits until the folder's lock is held. Throws WriteError ("file.write") when the folder
    // cannot be opened; on a file system without flock, goes on unlocked.
    explicit FolderLock(const std::filesystem::path& folder);
    ~FolderLock();
    FolderLock(const FolderLock&) = delete;
    FolderLock& operator=(const FolderLock&) = delete;

private:
    int fd_ = -1;
};

}  // namespace dmlref
