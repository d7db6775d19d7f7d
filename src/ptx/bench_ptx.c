/* bench_ptx.c — parse+validate throughput on a set of PTX files, and the
 * time ptxas needs for the same files (for the "50x faster than ptxas" bar).
 * usage: bench_ptx [--ptxas] [--min-seconds S] FILE...   (JSON on stdout)
 *
 * Whole passes over the files repeat until S seconds have passed.  The
 * headline throughput uses the median pass, which other processes on a
 * shared machine disturb less than the mean; the mean is reported too.
 * min_file_cpu_mb_per_s: the bytes over the sum of each file's least thread-CPU
 * time over the passes (other processes only add time, so on a loaded machine the
 * minimum is the closest to the code's own cost; compare builds with it, alternating). */
#define _POSIX_C_SOURCE 200809L
#include "ptxgen/ptx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double thread_cpu(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    bool with_ptxas = false;
    double min_secs = 3.0;
    PG_VEC(char *) srcs = {0};
    PG_VEC(size_t) lens = {0};
    PG_VEC(const char *) paths = {0};
    size_t total = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--ptxas")) { with_ptxas = true; continue; }
        if (!strcmp(argv[i], "--min-seconds") && i + 1 < argc) { min_secs = atof(argv[++i]); continue; }
        char *s;
        size_t n;
        pg_diag_sink sink = {0};
        if (pg_read_file(argv[i], PTX_MAX_FILE_BYTES, &s, &n, &sink) != PG_OK) { fprintf(stderr, "cannot read %s\n", argv[i]); return 2; }
        pg_vec_push(srcs, s);
        pg_vec_push(lens, n);
        pg_vec_push(paths, argv[i]);
        total += n;
    }
    if (!srcs.n) { fprintf(stderr, "usage: bench_ptx [--ptxas] FILE...\n"); return 2; }
    isa_init(NULL);
    /* repeat whole passes until min_secs */
    int passes = 0, invalid = 0;
    PG_VEC(double) pass_secs = {0};
    double *file_min = malloc(sizeof(double) * (size_t)srcs.n);
    if (!file_min) return 2;
    for (int i = 0; i < srcs.n; i++) file_min[i] = 1e30;
    double t0 = now(), t1, tp = t0;
    do {
        for (int i = 0; i < srcs.n; i++) {
            pg_diag_sink sink = {0};
            ptx_module *m = NULL;
            double c0 = thread_cpu();
            if (ptx_parse(srcs.v[i], lens.v[i], paths.v[i], &m, &sink) != PG_OK || ptx_validate(m, &sink) != PG_OK)
                invalid += passes == 0;
            ptx_module_free(m);
            double c = thread_cpu() - c0;
            if (c < file_min[i]) file_min[i] = c;
        }
        passes++;
        t1 = now();
        pg_vec_push(pass_secs, t1 - tp);
        tp = t1;
    } while (t1 - t0 < min_secs);
    qsort(pass_secs.v, (size_t)pass_secs.n, sizeof(double), cmp_double);
    double secs = pass_secs.n % 2 ? pass_secs.v[pass_secs.n / 2]
                                  : (pass_secs.v[pass_secs.n / 2 - 1] + pass_secs.v[pass_secs.n / 2]) / 2;
    double mean = (t1 - t0) / passes;
    double mbps = (double)total / secs / 1e6, min_sum = 0;
    for (int i = 0; i < srcs.n; i++) min_sum += file_min[i];
    free(file_min);
    pg_vec_free(pass_secs);
    double ptxas_secs = 0;
    int ptxas_files = 0;
    if (with_ptxas) {
        for (int i = 0; i < paths.n; i++) {
            ptxas_report r;
            if (ptx_ptxas_run(paths.v[i], NULL, strstr(srcs.v[i], ".extern .func") || strstr(srcs.v[i], ".weak"), &r, NULL) == PG_OK) {
                ptxas_secs += r.seconds;
                ptxas_files++;
            }
            ptx_ptxas_report_free(&r);
        }
    }
    printf("{\n  \"files\": %d,\n  \"bytes\": %zu,\n  \"passes\": %d,\n  \"invalid_files\": %d,\n"
           "  \"seconds_per_pass\": %.6f,\n  \"parse_validate_mb_per_s\": %.1f,\n"
           "  \"mean_seconds_per_pass\": %.6f,\n  \"mean_mb_per_s\": %.1f,\n  \"min_file_cpu_mb_per_s\": %.1f",
           srcs.n, total, passes, invalid, secs, mbps, mean, (double)total / mean / 1e6,
           min_sum > 0 ? (double)total / min_sum / 1e6 : 0.0);
    if (with_ptxas && ptxas_files)
        printf(",\n  \"ptxas_files\": %d,\n  \"ptxas_seconds\": %.3f,\n  \"speedup_vs_ptxas\": %.1f", ptxas_files,
               ptxas_secs, ptxas_secs / (secs * ptxas_files / srcs.n));
    printf("\n}\n");
    for (int i = 0; i < srcs.n; i++) free(srcs.v[i]);
    pg_vec_free(srcs);
    pg_vec_free(lens);
    pg_vec_free(paths);
    return 0;
}
