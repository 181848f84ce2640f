// Throughput of dmlref's element-wise kernels against peers measured in the same run:
//   memcpy    copying dY into dX: the copy speed that PyTorch's CPU threshold_backward reaches
//   raw loop  out[i] = x[i] > 0 ? dy[i] : 0 over raw restrict pointers, as a compare and a bit
//             mask (the shape of PyTorch's vectorised kernel)
// dmlref runs through its public API (validate once, then evaluate into preallocated buffers),
// so the numbers include its shared strided machinery. One thread. Prints G elements/s and the
// ratio to each peer; it asserts nothing about time (tests never do).
//
//   bench_elementwise [elements=16777216] [repeats=20]
#include "dmlref/case.hpp"
#include "dmlref/descs/activation.hpp"
#include "dmlref/descs/element_wise_clip.hpp"
#include "dmlref/descs/max_pooling.hpp"
#include "dmlref/descs/resample.hpp"
#include "dmlref/descs/slice.hpp"
#include "dmlref/descs/average_pooling.hpp"
#include "dmlref/descs/local_response_normalization.hpp"
#include "dmlref/descs/batch_normalization.hpp"
#include "dmlref/descs/roi_align.hpp"
#include "dmlref/operators.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace dmlref;

namespace {

double best_seconds(int repeats, const std::function<void()>& f) {
    f();  // warm up: page in the buffers
    double best = 1e30;
    for (int r = 0; r < repeats; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        f();
        const auto t1 = std::chrono::steady_clock::now();
        best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
    }
    return best;
}

// The peer kernel: what PyTorch's threshold_backward does per element (a compare and a blend),
// branch-free on the bits so that it vectorises, over raw restrict pointers.
template <class T> void raw_relu_grad(const T* __restrict x, const T* __restrict dy, T* __restrict dx, size_t n) {
    using B = bits_t<T>;
    const B* __restrict dyb = reinterpret_cast<const B*>(dy);
    B* __restrict dxb = reinterpret_cast<B*>(dx);
    for (size_t i = 0; i < n; ++i) dxb[i] = dyb[i] & B(B(0) - B(x[i] > T(0)));
}

template <class T> void run(const char* type_name, size_t n, int repeats) {
    const DataType t = data_type_of<T>();
    DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC d;
    d.InputTensor.DataType = t;
    d.InputTensor.Sizes = {uint32_t(n)};
    d.InputGradientTensor = d.OutputGradientTensor = d.InputTensor;
    const Operator op{OperatorType::ACTIVATION_RELU_GRAD, d};
    if (validate(op).has_errors()) {
        std::fprintf(stderr, "invalid desc\n");
        std::exit(2);
    }
    std::vector<T> x(n), dy(n), dx(n);
    std::mt19937 rng(1);
    for (size_t i = 0; i < n; ++i) {
        x[i] = T(double(int(rng() % 200) - 100));
        dy[i] = T(double(rng() % 100));
    }
    auto bytes = [](std::vector<T>& v) {
        return std::span<std::byte>(reinterpret_cast<std::byte*>(v.data()), v.size() * sizeof(T));
    };
    Bindings b;
    b.bind("InputTensor", bytes(x));
    b.bind("InputGradientTensor", bytes(dy));
    b.bind("OutputGradientTensor", bytes(dx));
    const double t_dmlref = best_seconds(repeats, [&] { evaluate(op, b); });
    const double t_copy = best_seconds(repeats, [&] { std::memcpy(dx.data(), dy.data(), n * sizeof(T)); });
    const double t_raw = best_seconds(repeats, [&] { raw_relu_grad(x.data(), dy.data(), dx.data(), n); });
    const double g = double(n) / 1e9;
    std::printf("%-8s %12.2f %12.2f %12.2f %14.2f %14.2f\n", type_name, g / t_dmlref, g / t_copy, g / t_raw,
                t_copy / t_dmlref, t_raw / t_dmlref);
}

}  // namespace

int main(int argc, char** argv) {
    const size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (size_t(1) << 24);
    const int repeats = argc > 2 ? std::atoi(argv[2]) : 20;
    std::printf(
        "ACTIVATION_RELU_GRAD, %zu elements, best of %d, one thread (G elements/s; ratio = dmlref / peer speed)\n", n,
        repeats);
    std::printf("%-8s %12s %12s %12s %14s %14s\n", "type", "dmlref", "memcpy", "raw loop", "vs memcpy", "vs raw loop");
    run<float>("FLOAT32", n, repeats);
    run<half>("FLOAT16", n, repeats);
    run<double>("FLOAT64", n, repeats);
    run<int32_t>("INT32", n, repeats);
    run<int8_t>("INT8", n, repeats);
    return 0;
}
