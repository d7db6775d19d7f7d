/* cpu.c — the CPU's kernel family (cpu.h): detected once with __builtin_cpu_supports (the binary
 * is built for plain x86-64 and carried to other machines), forced down by tests. */
#include "cpu.h"

#include <pthread.h>
#include <stdatomic.h>

static atomic_int family = -1;
static cpu_family detected = CPU_SCALAR;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void detect(void) {
    cpu_family f = CPU_SCALAR;
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) f = CPU_AVX2;
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vnni"))
        f = CPU_AVX512;
#endif
    detected = f;
    atomic_store(&family, (int)f);
}

cpu_family model_cpu_family(void) {
    int f = atomic_load_explicit(&family, memory_order_relaxed);
    if (f < 0) {
        pthread_once(&once, detect);
        f = atomic_load(&family);
    }
    return (cpu_family)f;
}

const char *model_cpu_family_name(cpu_family f) {
    return f == CPU_AVX512 ? "avx512" : f == CPU_AVX2 ? "avx2" : "scalar";
}

bool model_cpu_force(cpu_family f) {
    pthread_once(&once, detect);
    if (f > detected) return false;
    atomic_store(&family, (int)f);
    return true;
}
