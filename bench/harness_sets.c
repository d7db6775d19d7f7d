/* bench/harness_sets.c — the CPU side of the GPU harness's input sets for one task, without a GPU:
 * what gen's preparation (gpu_memo_prepare) builds ahead, and the host compares each check does per set.
 *
 *   cc -std=c11 -O2 -Iinclude -D_POSIX_C_SOURCE=200809L -o build/harness_sets bench/harness_sets.c \
 *      build/libptxgen.a -ljansson -lpcre2-8 -ldl -lm -lpthread
 *   build/harness_sets bench/suite/bias_gelu_residual/task.json
 *
 * Per size (all distributions x 5 seeds, one thread): task_inst_make and task_reference_run, the calls
 * a worker and the preparation make.  On the largest size's first set: the output compare
 * (task_compare) and the inputs-unchanged compare (task_inputs_unchanged), one after the other and
 * overlapped (the compare on a second thread, as check_kernel does now), and the copy of the set into
 * fresh MAP_SHARED pages (what a retiring worker's publish_sets did per set before the preparation). */
#define _GNU_SOURCE
#include "ptxgen/task.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct {
    const task_spec *t;
    const task_inst *got, *ref;
} job;
static void *compare(void *arg) {
    job *j = arg;
    for (int p = 0; p < j->t->nparams; p++)
        if (j->t->params[p].is_pointer && j->t->params[p].role != TASK_ROLE_IN) (void)task_compare(j->t, p, &j->got->args[p], &j->ref->args[p]);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: harness_sets TASK.json\n");
        return 2;
    }
    pg_diag_sink q = {0};
    task_spec *t;
    if (task_load(argv[1], &t, &q) != PG_OK) {
        fprintf(stderr, "%s: does not load\n", argv[1]);
        return 1;
    }
    int big = 0;
    double best = 0, all_in = 0, all_ref = 0;
    for (int s = 0; s < t->nsizes; s++) {
        double mk = 0, rf = 0, cost = 1;
        for (int v = 0; v < t->sizes[s].env.n; v++) cost *= t->sizes[s].env.val[v] > 1 ? (double)t->sizes[s].env.val[v] : 1;
        if (cost > best) best = cost, big = s;
        for (int d = 0; d < t->ndists; d++)
            for (int k = 1; k <= 5; k++) {
                task_inst in, ref;
                double a = now();
                if (task_inst_make(t, s, d, (uint64_t)k, &in, &q) != PG_OK) return 1;
                double b = now();
                if (task_reference_run(&in, &ref, &q) != PG_OK) return 1;
                mk += b - a;
                rf += now() - b;
                task_inst_free(&in);
                task_inst_free(&ref);
            }
        printf("size %d: %d sets: inputs %.3f s, C references %.3f s (one thread)\n", s, t->ndists * 5, mk, rf);
        all_in += mk;
        all_ref += rf;
    }
    printf("all %d sets: inputs %.2f s, C references %.2f s, %.2f s of CPU\n", t->nsizes * t->ndists * 5, all_in, all_ref, all_in + all_ref);
    task_inst in, ref, got;
    if (task_inst_make(t, big, 0, 1, &in, &q) != PG_OK || task_reference_run(&in, &ref, &q) != PG_OK || task_inst_clone(&ref, &got) != PG_OK) return 1;
    for (int p = 0; p < t->nparams; p++)   /* inputs as uploaded, outputs as the reference wrote them: a correct kernel */
        if (t->params[p].is_pointer && t->params[p].role == TASK_ROLE_IN) memcpy(got.args[p].data, in.args[p].data, in.args[p].bytes);
    job j = {t, &got, &ref};
    int bad;
    double seq = 1e9, ovl = 1e9, cmp = 1e9, unch = 1e9;
    for (int r = 0; r < 3; r++) {   /* the best of three */
        double a = now();
        compare(&j);
        double b = now();
        (void)task_inputs_unchanged(t, &in, &got, &bad);
        double c = now();
        pthread_t th;
        pthread_create(&th, NULL, compare, &j);
        (void)task_inputs_unchanged(t, &in, &got, &bad);
        pthread_join(th, NULL);
        double e = now();
        if (b - a < cmp) cmp = b - a;
        if (c - b < unch) unch = c - b;
        if (c - a < seq) seq = c - a;
        if (e - c < ovl) ovl = e - c;
    }
    size_t bytes = 0;
    for (int p = 0; p < t->nparams; p++) bytes += in.args[p].bytes + ref.args[p].bytes;
    char *sh = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    double a = now();
    size_t off = 0;
    for (int p = 0; sh != MAP_FAILED && p < t->nparams; p++) {
        memcpy(sh + off, in.args[p].data, in.args[p].bytes);
        off += in.args[p].bytes;
        memcpy(sh + off, ref.args[p].data, ref.args[p].bytes);
        off += ref.args[p].bytes;
    }
    double copy = now() - a;
    if (sh != MAP_FAILED) munmap(sh, bytes);
    printf("size %d, one set: output compare %.3f s, inputs-unchanged %.3f s; both one after the other %.3f s, overlapped %.3f s; "
           "copy of the set and its reference into fresh shared pages %.3f s (%.0f MB)\n",
           big, cmp, unch, seq, ovl, copy, (double)bytes / 1e6);
    task_inst_free(&in);
    task_inst_free(&ref);
    task_inst_free(&got);
    task_free(t);
    return 0;
}
