/* bench_ptx.c — parse+validate throughput on a set of PTX files, and the
 * time ptxas needs for the same files (for the "50x faster than ptxas" bar).
 * usage: bench_ptx [--ptxas] [--min-seconds S] FILE...   (JSON on stdout) */
#define _POSIX_C_SOURCE 200809L
#include "ptxgen/ptx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
    /* warm-up, then repeat whole passes until min_secs */
    int passes = 0, invalid = 0;
    double t0 = now(), t1;
    do {
        for (int i = 0; i < srcs.n; i++) {
            pg_diag_sink sink = {0};
            ptx_module *m = NULL;
            if (ptx_parse(srcs.v[i], lens.v[i], paths.v[i], &m, &sink) != PG_OK || ptx_validate(m, &sink) != PG_OK)
                invalid += passes == 0;
            ptx_module_free(m);
        }
        passes++;
        t1 = now();
    } while (t1 - t0 < min_secs);
    double secs = (t1 - t0) / passes;
    double mbps = (double)total / secs / 1e6;
    double ptxas_secs = 0;
    int ptxas_files = 0;
    if (with_ptxas) {
        for (int i = 0; i < paths.n; i++) {
            ptxas_report r;
            if (ptxas_run(paths.v[i], NULL, strstr(srcs.v[i], ".extern .func") || strstr(srcs.v[i], ".weak"), &r, NULL) == PG_OK) {
                ptxas_secs += r.seconds;
                ptxas_files++;
            }
            ptxas_report_free(&r);
        }
    }
    printf("{\n  \"files\": %d,\n  \"bytes\": %zu,\n  \"passes\": %d,\n  \"invalid_files\": %d,\n"
           "  \"seconds_per_pass\": %.6f,\n  \"parse_validate_mb_per_s\": %.1f",
           srcs.n, total, passes, invalid, secs, mbps);
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
