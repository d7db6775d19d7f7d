/* test_nvcc_cache.c — PTXGEN_NVCC_CACHE (no GPU; skipped without nvcc): a reference is
 * compiled once and then read from the cache; a changed source is a new entry; a source
 * with a local include is never cached; without the variable nothing is written. */
#define _GNU_SOURCE
#include "common/test.h"
#include "ptxgen/gpu.h"
#include "ptxgen/ptx.h"
#include "ptxgen/task.h"

#include <dirent.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char root[] = "/tmp/ptxgen-nvcc-cache-XXXXXX";
static char taskdir[600], cachedir[600];

static void put(const char *name, const char *text) {
    char p[800];
    snprintf(p, sizeof p, "%s/%s", taskdir, name);
    FILE *f = fopen(p, "w");
    if (f) { fputs(text, f); fclose(f); }
}

/* the .ptx files in the cache folder; *one gets the path of the last seen */
static int entries(char *one, size_t cap) {
    int n = 0;
    DIR *d = opendir(cachedir);
    if (!d) return 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t l = strlen(e->d_name);
        if (l > 4 && !strcmp(e->d_name + l - 4, ".ptx")) {
            n++;
            if (one) snprintf(one, cap, "%s/%s", cachedir, e->d_name);
        }
    }
    closedir(d);
    return n;
}

static char *compile(task_spec *t) {
    char *ptx = NULL;
    pg_diag_sink q = test_sink();
    return gpu_nvcc_ptx(t, "sm_80", &ptx, &q) == PG_OK ? ptx : NULL;
}

#define KERNEL(body) "extern \"C\" __global__ void k(float* y, unsigned int n) {\n" \
    "    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) " body ";\n}\n"
#define TASK "{\"name\": \"k\", \"kernel\": \"k\", \"descriptions\": {\"terse\": \"t\"}," \
    "\"params\": [{\"name\": \"y\", \"type\": \"f32*\", \"role\": \"out\", \"len\": \"n\"}, {\"name\": \"n\", \"type\": \"u32\", \"value\": \"n\"}]," \
    "\"sizes\": [{\"n\": 10}, {\"n\": 3}], \"launch\": {\"block\": [\"32\"], \"grid\": [\"cdiv(n,32)\"]}," \
    "\"distributions\": [\"uniform(-1,1)\", \"normal(0,1)\"], \"reference\": {\"kind\": \"cu\"}}"

int main(void) {
    char nvcc[1024];
    if (!ptx_cuda_tool_find("nvcc", "NVCC", nvcc, sizeof nvcc)) {
        printf("skipped: no nvcc\n0 passed, 0 failed\n");
        return 0;
    }
    CHECK(mkdtemp(root) != NULL, "mkdtemp");
    snprintf(taskdir, sizeof taskdir, "%s/task", root);
    snprintf(cachedir, sizeof cachedir, "%s/cache", root);
    CHECK(mkdir(taskdir, 0755) == 0 && mkdir(cachedir, 0755) == 0, "folders");
    put("task.json", TASK);
    put("reference.cu", KERNEL("y[i] = 1.0f"));
    char tp[800];
    snprintf(tp, sizeof tp, "%s/task.json", taskdir);
    task_spec *t = NULL;
    pg_diag_sink q = test_sink();
    CHECK(task_load(tp, &t, &q) == PG_OK, "task: %s", test_diag_log());
    if (!t) return TEST_DONE();

    /* without the variable: compiled, nothing cached */
    unsetenv("PTXGEN_NVCC_CACHE");
    char *a = compile(t);
    CHECK(a && strstr(a, ".entry k"), "compiled without a cache");
    CHECK(entries(NULL, 0) == 0, "no cache entry without PTXGEN_NVCC_CACHE");

    /* with it: one entry, its text nvcc's */
    setenv("PTXGEN_NVCC_CACHE", cachedir, 1);
    char *b = compile(t), entry[1200] = "";
    CHECK(b && a && !strcmp(a, b), "the same PTX through the cache");
    CHECK(entries(entry, sizeof entry) == 1, "one entry after the first compile");
    /* the next call reads the entry: mark it and see the mark come back */
    pg_diag_sink q2 = test_sink();
    CHECK(pg_write_file(entry, "// marked\n", 10, 0, &q2) == PG_OK, "mark");
    char *c = compile(t);
    CHECK(c && !strcmp(c, "// marked\n"), "second compile read from the cache, got %.40s", c ? c : "(null)");

    /* another source: another entry, nvcc's own PTX */
    put("reference.cu", KERNEL("y[i] = 2.0f"));
    char *d = compile(t);
    CHECK(d && strstr(d, ".entry k") && entries(NULL, 0) == 2, "a changed source compiles again");

    /* a local include: compiled, never cached */
    put("k.h", "#define V 3.0f\n");
    put("reference.cu", "#include \"k.h\"\n" KERNEL("y[i] = V"));
    char *e = compile(t);
    CHECK(e && strstr(e, ".entry k") && entries(NULL, 0) == 2, "a local include is not cached");

    /* a cache folder that cannot be written: still compiled, a warning */
    setenv("PTXGEN_NVCC_CACHE", "/nonexistent-ptxgen-cache/x", 1);
    pg_diag_sink q3 = test_sink();
    char *f = NULL;
    put("reference.cu", KERNEL("y[i] = 4.0f"));
    CHECK(gpu_nvcc_ptx(t, "sm_80", &f, &q3) == PG_OK && f && strstr(f, ".entry k"), "compiled");
    CHECK(strstr(test_diag_log(), "PTXGEN_NVCC_CACHE"), "the failed cache write is said: %s", test_diag_log());

    /* without the variable, one process compiles a reference once (gen's best-of-k verifies every
     * candidate against it): an nvcc that counts its runs sees one run for two calls, then one more
     * for a changed source */
    unsetenv("PTXGEN_NVCC_CACHE");
    char counter[800], script[2048], log[800];
    snprintf(counter, sizeof counter, "%s/nvcc-count", root);
    snprintf(log, sizeof log, "%s/nvcc-runs", root);
    snprintf(script, sizeof script, "#!/bin/sh\necho run >> '%s'\nexec '%s' \"$@\"\n", log, nvcc);
    pg_diag_sink q4 = test_sink();
    CHECK(pg_write_file(counter, script, strlen(script), 0, &q4) == PG_OK && chmod(counter, 0755) == 0, "counting nvcc");
    setenv("NVCC", counter, 1);
    put("reference.cu", KERNEL("y[i] = 5.0f"));
    char *g = compile(t), *h = compile(t);
    char *runs = NULL;
    CHECK(g && h && !strcmp(g, h) && strstr(g, ".entry k"), "the same PTX twice");
    runs = test_slurp(log);
    CHECK(runs && !strcmp(runs, "run\n"), "two calls, one nvcc run: %s", runs ? runs : "(none)");
    free(runs);
    put("reference.cu", KERNEL("y[i] = 6.0f"));
    char *i2 = compile(t);
    runs = test_slurp(log);
    CHECK(i2 && strstr(i2, ".entry k") && runs && !strcmp(runs, "run\nrun\n"), "a changed source runs nvcc again: %s", runs ? runs : "(none)");
    free(runs);
    unsetenv("NVCC");
    free(g); free(h); free(i2);

    free(a); free(b); free(c); free(d); free(e); free(f);
    task_free(t);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root);
    return TEST_DONE();
}
