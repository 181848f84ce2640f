// parallel_for: the fast paths' one way of spreading work over cores (OpenMP when the build has
// it, else a plain loop). Each index is handled by exactly one thread. Internal to dmlref.
#pragma once

#include "switch.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace dmlref::reference {

// A thread_local's address, taken once for the loops that use it: in a shared library each use of
// a thread_local may be a call to __tls_get_addr, and GCC, inlining a loop into the body that bound
// a reference to it, can compute the address again at every use rather than keep it (MAX_POOLING2
// FLOAT32 ran 10% slower so). The empty asm hides where the pointer comes from.
template <class V> inline V& tls_once(V& v) {
    V* p = &v;
#if defined(__GNUC__)
    asm("" : "+r"(p));
#endif
    return *p;
}

// The threads for a call of `work` units where a thread pays for its start only with at least
// `grain` units of its own: work / grain, at least 1. For parallel_for's `most`; the grain is the
// caller's, measured (reference/fast/average_pooling.cpp).
inline int threads_for_work(int64_t work, int64_t grain) {
    return int(std::clamp<int64_t>(work / std::max<int64_t>(grain, 1), 1, int64_t(1) << 16));
}

// The threads parallel_for(count, f, most) runs on: the switch's count, else OpenMP's (all cores
// or OMP_NUM_THREADS), at most `most` where it is positive, at most count, at least 1.
inline int parallel_threads(int64_t count, int most = 0) {
#if defined(_OPENMP)
    if (count <= 1 || most == 1) return 1;
    int n = fast_path_threads();
    if (n <= 0) n = omp_get_max_threads();
    if (most > 0) n = std::min(n, most);
    return std::max(1, int(std::min<int64_t>(n, count)));
#else
    (void)count;
    (void)most;
    return 1;
#endif
}

// Rows per task where `rows` rows of `row_work` units each go to `threads` threads in tasks of
// about `task_work` units: all rows in one task on one thread; else tasks of at most about
// task_work units (at least a row), as many as a multiple of the threads allows, so that rows of
// equal work end together (19 tasks on 16 threads take two tasks' time; 32 take one of half the
// size). Every row is in exactly one task: ceil(rows / per) tasks of per rows, the last shorter.
inline int64_t rows_per_task(int64_t rows, int64_t row_work, int64_t task_work, int threads) {
    rows = std::max<int64_t>(rows, 1);
    if (threads <= 1) return rows;
    const int64_t per = std::clamp<int64_t>(task_work / std::max<int64_t>(row_work, 1), 1, rows);
    const int64_t rounds = ((rows + per - 1) / per + threads - 1) / threads;  // tasks per thread
    const int64_t tasks = std::min(rows, rounds * threads);
    return (rows + tasks - 1) / tasks;
}

// f(i) for every i < count on parallel_threads(count, most) threads (no parallel region for one), each index to
// the next free thread (OpenMP's dynamic schedule).
template <class F> void parallel_for(int64_t count, F&& f, int most = 0) {
#if defined(_OPENMP)
    const int n = parallel_threads(count, most);
    if (n > 1) {
#pragma omp parallel for schedule(dynamic) num_threads(n)
        for (int64_t i = 0; i < count; ++i) f(i);
        return;
    }
#endif
    (void)most;
    for (int64_t i = 0; i < count; ++i) f(i);
}

// The same with each thread given one block of consecutive indices (thread t of n: t count / n to (t + 1) count / n
// - 1), taken in order, so that a thread takes the same indices on the next call of the same count and threads
// (their data may still be in its cache); a thread done with its block then takes the others' next indices, one
// at a time, until none is left. Each block has its own counter, so the threads share one only where one helps
// another: on a machine where a core is slowed or taken away for a while (16 threads on a 1x64x112x112
// batch-normalization grad: some threads ran 1.5 times slower than the others, some stopped for 20 to 26 us),
// the others finish its block.
template <class F> void parallel_for_blocks(int64_t count, F&& f, int most = 0) {
#if defined(_OPENMP)
    const int n = parallel_threads(count, most);
    if (n > 1) {
        struct alignas(64) Next {
            std::atomic<int64_t> i;
        };
        std::unique_ptr<Next[]> next(new Next[size_t(n)]);
        for (int t = 0; t < n; ++t) next[size_t(t)].i.store(int64_t(t) * count / n, std::memory_order_relaxed);
        auto end = [&](int t) { return int64_t(t + 1) * count / n; };
#pragma omp parallel num_threads(n)
        {
            const int t = omp_get_thread_num();
            for (int s = 0; s < n; ++s) {
                const int v = (t + s) % n;  // its own block first, then the next threads'
                for (int64_t i; (i = next[size_t(v)].i.fetch_add(1, std::memory_order_relaxed)) < end(v);) f(i);
            }
        }
        return;
    }
#endif
    (void)most;
    for (int64_t i = 0; i < count; ++i) f(i);
}

}  // namespace dmlref::reference
