/* gguf_kernels_vs_ggml.c — decode's inner kernel, ptxgen's quant.c against ggml's
 * own vec_dot for the same GGUF blocks, one thread, per weight type.
 * Built and run by bench/bench_gguf_kernels.sh (needs a llama.cpp tree whose
 * ggml-base and ggml-cpu libraries are built).
 *
 * For each type: ROWS rows of K elements of random blocks (finite f16 scales),
 * one activation vector; ggml quantizes it with its vec_dot_type's from_float,
 * ptxgen with model_quant_act32/256; then every row is dotted, best of REPS passes.
 * Two sizes: L2-resident (compute-bound: the kernels' instruction cost) and a
 * 64 MB matrix (streamed from memory as decode does).  Also checks the two
 * agree (relative difference of the row results; both round x to int8 per
 * block, ggml with an f16 scale, so they differ by a little). */
#include "model/gguf.h"
#include "model/model_internal.h"

#include "ggml.h"
#include "ggml-cpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static uint64_t rs = 88172645463325252ull;
static uint32_t rnd(void) {
    rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17;
    return (uint32_t)(rs >> 11);
}

static void put16(uint8_t *p, float f) {
    ggml_fp16_t h = ggml_fp32_to_fp16(f);
    memcpy(p, &h, 2);
}

static void fill(int type, uint8_t *d, size_t bytes) {
    for (size_t i = 0; i < bytes; i++) d[i] = (uint8_t)rnd();
    size_t bb = model_gguf_type_block_bytes(type);
    for (size_t b = 0; b < bytes / bb; b++) {
        uint8_t *p = d + b * bb;
        float s = (float)(rnd() % 1000 + 1) * 1e-5f;
        switch (type) {
        case GGUF_T_Q4_1: put16(p, s); put16(p + 2, -s * 8); break;
        case GGUF_T_Q4_K: put16(p, s * 0.1f); put16(p + 2, s * 0.1f); break;
        case GGUF_T_Q6_K: put16(p + 208, s * 0.1f); break;
        default: put16(p, s); break;
        }
    }
}

int main(int argc, char **argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 5;
    const int types[] = {GGUF_T_Q4_0, GGUF_T_Q4_1, GGUF_T_Q5_0, GGUF_T_Q8_0, GGUF_T_Q4_K, GGUF_T_Q6_K};
    const int K = 4864;   /* Qwen2.5-0.5B's FFN width: whole blocks of every type */
    ggml_cpu_init();
    printf("{\"k\": %d, \"kernels\": \"%s\", \"rows\": [\n", K, model_kernels_isa());
    for (size_t ti = 0; ti < sizeof types / sizeof *types; ti++) {
        int type = types[ti];
        const struct ggml_type_traits_cpu *tr = ggml_get_type_traits_cpu((enum ggml_type)type);
        const struct ggml_type_traits_cpu *vt = ggml_get_type_traits_cpu(tr->vec_dot_type);
        size_t rb = model_quant_row_bytes(type, K);
        float *x = malloc(K * sizeof *x);
        for (int i = 0; i < K; i++) x[i] = ((float)(rnd() % 2001) - 1000.0f) / 1000.0f;
        void *xg = malloc(ggml_row_size(tr->vec_dot_type, K));
        vt->from_float(x, xg, K);
        qa32 *q32 = malloc(K / 32 * sizeof *q32);
        qa256 *q256 = malloc(K / 256 * sizeof *q256);
        model_quant_act32(x, K, q32);
        model_quant_act256(x, K, q256);
        const void *xq = model_quant_act_kind(type) == QACT_32 ? (const void *)q32 : (const void *)q256;
        for (int big = 0; big < 2; big++) {
            int rows = big ? (int)((64u << 20) / rb) : (int)((256u << 10) / rb);
            uint8_t *w = malloc(rb * rows);
            fill(type, w, rb * rows);
            float *a = malloc(rows * sizeof *a), *b = malloc(rows * sizeof *b);
            double ta = 1e9, tb = 1e9;
            int inner = big ? 1 : 50;
            for (int r = 0; r < reps; r++) {
                double t0 = now();
                for (int it = 0; it < inner; it++) model_quant_dot_rows(type, w, rb, rows, xq, K, a);
                double t1 = now();
                for (int it = 0; it < inner; it++)
                    for (int i = 0; i < rows; i++) tr->vec_dot(K, &b[i], 0, w + rb * i, 0, xg, 0, 1);
                double t2 = now();
                if (t1 - t0 < ta) ta = t1 - t0;
                if (t2 - t1 < tb) tb = t2 - t1;
            }
            double diff = 0, mag = 0;
            for (int i = 0; i < rows; i++) { diff = fmax(diff, fabs(a[i] - b[i])); mag = fmax(mag, fabs(b[i])); }
            double n = (double)rows * K * inner;
            printf("  {\"type\": \"%s\", \"matrix_mb\": %.2f, \"ptxgen_ns_per_weight\": %.4f, \"ggml_ns_per_weight\": %.4f, "
                   "\"ptxgen_over_ggml_speed\": %.3f, \"max_rel_diff\": %.2e}%s\n",
                   model_gguf_type_name(type), rb * rows / 1048576.0, ta / n * 1e9, tb / n * 1e9, tb / ta, diff / mag,
                   ti + 1 == sizeof types / sizeof *types && big ? "" : ",");
            free(w); free(a); free(b);
        }
        free(x); free(xg); free(q32); free(q256);
    }
    printf("]}\n");
    return 0;
}
