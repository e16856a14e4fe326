/*
 * Shared by the native benchmarks (bench_boot, bench_launch, bench_entry; docs/benchmarks.md): monotonic clock
 * readings in ms and ns, and the comparator that sorts an array of doubles for its median.
 */
#ifndef ZLUDA_BENCH_UTIL_H
#define ZLUDA_BENCH_UTIL_H
#include <time.h>

/** CLOCK_MONOTONIC in milliseconds. */
static inline double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/** CLOCK_MONOTONIC in nanoseconds. */
static inline double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/** qsort comparator for doubles, ascending. */
static inline int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
#endif
