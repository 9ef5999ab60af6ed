// The one place LightWork asks the CPU what it has, and the one switch that makes every kernel run its
// baseline path, so tests can hold each fast path to its baseline's bits.
#include "lw_cpu.h"
#include <cpuid.h>
#include <stdatomic.h>

enum { AVX2 = 1, F16C = 2, SHA = 4 };

static atomic_int detected = -1;        // bits of the features above; -1 before the first question
static atomic_int forced_baseline = 0;

// Asked through CPUID (leaf 7, EBX bit 29), as not every compiler's __builtin_cpu_supports knows "sha"; SSE4.1 and SSSE3 too.
static int has_sha(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_SSE4_1) || !(c & bit_SSSE3)) return 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    return (b & (1u << 29)) != 0;
}

static int features(void) {
    if (atomic_load_explicit(&forced_baseline, memory_order_relaxed)) return 0;
    int f = atomic_load_explicit(&detected, memory_order_relaxed);
    if (f < 0) {
        // Every thread computes the same answer, so a race here only repeats the question.
        __builtin_cpu_init();
        f = (__builtin_cpu_supports("avx2") ? AVX2 : 0)
          | (__builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx") ? F16C : 0)
          | (has_sha() ? SHA : 0);
        atomic_store_explicit(&detected, f, memory_order_relaxed);
    }
    return f;
}

int lw_cpu_avx2(void) { return (features() & AVX2) != 0; }
int lw_cpu_f16c(void) { return (features() & F16C) != 0; }
int lw_cpu_sha(void) { return (features() & SHA) != 0; }
void lw_cpu_force_baseline(int on) { atomic_store_explicit(&forced_baseline, on ? 1 : 0, memory_order_relaxed); }
