// .npy and golden-JSON throughput inside one process: write_npy (atomic, flushed to
// disk) and read_npy of one large FLOAT32 array, with and without its SHA-256, against a plain
// fwrite/fread of the same bytes measured in the same run. Usage: whole_process_npy DIR [MiB]
#include "dmlref/npy.hpp"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

using namespace dmlref;
namespace fs = std::filesystem;

template <class F> double seconds(F&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: whole_process_npy DIR [MiB]\n");
        return 2;
    }
    const fs::path dir = argv[1];
    const size_t mib = argc > 2 ? std::stoul(argv[2]) : 256;
    std::vector<std::byte> data(mib << 20);
    for (size_t i = 0; i < data.size(); ++i) data[i] = std::byte(i * 2654435761u >> 13);
    const std::vector<uint64_t> shape{data.size() / 4};
    const double gb = double(data.size()) / 1e9;
    std::string sum;
    // Peer: the same bytes with one fwrite (no fsync) and one fread into a new buffer.
    const double raw_w = seconds([&] {
        std::FILE* f = std::fopen((dir / "raw.bin").c_str(), "wb");
        std::fwrite(data.data(), 1, data.size(), f);
        std::fclose(f);
    });
    std::vector<std::byte> back;
    const double raw_r = seconds([&] {  // a reader allocates its buffer too
        back.resize(data.size());
        std::FILE* f = std::fopen((dir / "raw.bin").c_str(), "rb");
        if (std::fread(back.data(), 1, back.size(), f) != back.size()) std::abort();
        std::fclose(f);
    });
    const double w = seconds([&] { write_npy(dir / "a.npy", DataType::FLOAT32, shape, data); });
    const double ws = seconds([&] { write_npy(dir / "b.npy", DataType::FLOAT32, shape, data, &sum); });
    NpyArray a, b;
    const double r = seconds([&] { a = read_npy(dir / "a.npy", uint64_t(1) << 40); });
    std::string sum2;
    const double rs = seconds([&] { b = read_npy(dir / "b.npy", uint64_t(1) << 40, &sum2); });
    if (a.data != data || b.data != data || sum != sum2) {
        std::fprintf(stderr, "round trip failed\n");
        return 1;
    }
    std::printf("| %zu MiB FLOAT32 | GB/s | peer fwrite/fread GB/s |\n|---|---|---|\n", mib);
    std::printf("| write_npy (atomic, fsync) | %.2f | %.2f (no fsync) |\n", gb / w, gb / raw_w);
    std::printf("| write_npy + SHA-256 | %.2f | |\n", gb / ws);
    std::printf("| read_npy | %.2f | %.2f |\n", gb / r, gb / raw_r);
    std::printf("| read_npy + SHA-256 | %.2f | |\n", gb / rs);
    for (const char* n : {"raw.bin", "a.npy", "b.npy"}) fs::remove(dir / n);
    return 0;
}
