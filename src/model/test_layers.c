/* test_layers.c — the model module's files form no circle (issue 31): neither the graph of
 * their quoted #includes nor the graph of which library file calls a function another one
 * defines (read with nm from the sanitizer build's objects) has a cycle, and the layers of
 * model_internal.h hold: the leaves (numfmt.h, cpu.h) include nothing of the module, the
 * readers (gguf, safetensors) and the kernels (quant, kernels, pool) include nothing of the
 * model, and only load.c includes the readers (tokenizer.c aside: it reads GGUF metadata); of the
 * other modules the model's files include only the gpu module's libcuda loader (gpu_cuda.h, whose
 * cuda.c includes no module either).
 * Run from the repository root after the sanitizer build made its objects (build/san/src/model). */
#include "common/test.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXF 64
#define DIR_ "src/model"
static char names[MAXF][64];
static int nf;
static bool edge[MAXF][MAXF];

static int file_id(const char *n) {
    for (int i = 0; i < nf; i++)
        if (!strcmp(names[i], n)) return i;
    return -1;
}

static bool lib_file(const char *n) {
    size_t l = strlen(n);
    return l > 2 && (!strcmp(n + l - 2, ".c") || !strcmp(n + l - 2, ".h")) && strncmp(n, "test_", 5) && strncmp(n, "fuzz_", 5) &&
           strncmp(n, "bench_", 6);
}

/* a cycle through i in edge[][]: depth-first, state 1 = on the stack; the cycle is printed */
static int st[MAXF], path[MAXF], np;
static bool cyc(int u) {
    st[u] = 1;
    path[np++] = u;
    for (int v = 0; v < nf; v++) {
        if (!edge[u][v]) continue;
        if (st[v] == 1) {
            printf("  cycle:");
            for (int k = 0; k < np; k++) printf(" %s", names[path[k]]);
            printf(" -> %s\n", names[v]);
            return true;
        }
        if (!st[v] && cyc(v)) return true;
    }
    st[u] = 2;
    np--;
    return false;
}
static bool has_cycle(void) {
    memset(st, 0, sizeof st);
    for (int i = 0; i < nf; i++) {
        np = 0;
        if (!st[i] && cyc(i)) return true;
    }
    return false;
}

static bool includes(const char *from, const char *to) {
    int a = file_id(from), b = file_id(to);
    return a >= 0 && b >= 0 && edge[a][b];
}

int main(void) {
    DIR *d = opendir(DIR_);
    CHECK(d != NULL, "open %s (run from the repository root)", DIR_);
    if (!d) return TEST_DONE();
    for (struct dirent *e; (e = readdir(d)) && nf < MAXF;)
        if (lib_file(e->d_name)) snprintf(names[nf++], sizeof names[0], "%.63s", e->d_name);
    closedir(d);
    /* the include graph */
    for (int i = 0; i < nf; i++) {
        char p[200], line[512];
        snprintf(p, sizeof p, DIR_ "/%s", names[i]);
        FILE *f = fopen(p, "r");
        if (!f) continue;
        while (fgets(line, sizeof line, f)) {
            char inc[128];
            if (sscanf(line, "#include \"%127[^\"]\"", inc) != 1) continue;
            int j = file_id(inc);
            if (j >= 0) edge[i][j] = true;
        }
        fclose(f);
    }
    CHECK(!has_cycle(), "the #include graph of src/model has no cycle");
    const char *leaves[] = {"numfmt.h", "cpu.h"}, *below_model[] = {"gguf.h", "gguf.c", "safetensors.h", "safetensors.c", "quant.h",
                                                                    "quant.c", "kernels.h", "kernels.c", "pool.c", "cpu.c"};
    for (size_t i = 0; i < 2; i++) {
        int a = file_id(leaves[i]);
        bool none = a >= 0;
        for (int j = 0; none && j < nf; j++) none = !edge[a][j];
        CHECK(none, "%s is a leaf (includes nothing of the module)", leaves[i]);
    }
    for (size_t i = 0; i < sizeof below_model / sizeof *below_model; i++)
        CHECK(!includes(below_model[i], "model_internal.h") && !includes(below_model[i], "load.c"), "%s is below the model", below_model[i]);
    for (int i = 0; i < nf; i++) {
        bool reader = includes(names[i], "gguf.h") || includes(names[i], "safetensors.h");
        bool ok = !reader || !strcmp(names[i], "load.c") || !strcmp(names[i], "tokenizer.c") || !strcmp(names[i], "tok_internal.h") ||
                  !strcmp(names[i], "gguf.c") || !strcmp(names[i], "safetensors.c");
        CHECK(ok, "%s reaches a weight reader directly (only load.c builds models from files)", names[i]);
    }
    CHECK(!includes("quant.c", "kernels.h") && !includes("quant.h", "kernels.h"), "the block kernels do not ask the matmul");
    /* of the other modules, the library files use only the gpu module's libcuda loader (the GPU
     * engine's driver), and that loader uses no module itself: the model stays below task and ptx */
    const char *dirs[] = {DIR_, "src/gpu"};
    for (int k = 0; k < 2; k++) {
        DIR *dd = opendir(dirs[k]);
        for (struct dirent *e; dd && (e = readdir(dd));) {
            if (!lib_file(e->d_name) || (k == 1 && strcmp(e->d_name, "cuda.c"))) continue;
            char p[300], line[512];
            snprintf(p, sizeof p, "%s/%s", dirs[k], e->d_name);
            FILE *f = fopen(p, "r");
            while (f && fgets(line, sizeof line, f)) {
                char inc[128];
                if (sscanf(line, "#include \"ptxgen/%127[^\"]\"", inc) != 1) continue;
                bool ok = !strcmp(inc, "common.h") || !strcmp(inc, "gpu_cuda.h") || (k == 0 && !strcmp(inc, "model.h"));
                CHECK(ok, "%s includes ptxgen/%s (the model module uses no module but common and gpu_cuda.h)", p, inc);
            }
            if (f) fclose(f);
        }
        CHECK(dd != NULL, "open %s", dirs[k]);
        if (dd) closedir(dd);
    }
    /* the call graph: who calls a function another library file defines */
    memset(edge, 0, sizeof edge);
    static char defs[4096][64];
    static int owner[4096];
    int nd = 0, nobj = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < nf; i++) {
            size_t l = strlen(names[i]);
            if (strcmp(names[i] + l - 2, ".c")) continue;
            char cmd[300], line[300];
            snprintf(cmd, sizeof cmd, "nm -P build/san/src/model/%.*s.o 2>/dev/null", (int)(l - 2), names[i]);
            FILE *f = popen(cmd, "r");
            if (!f) continue;
            int got = 0;
            while (fgets(line, sizeof line, f)) {
                char sym[200], type[8];
                if (sscanf(line, "%199s %7s", sym, type) != 2) continue;
                got++;
                if (pass == 0 && !strcmp(type, "T") && nd < 4096) {
                    snprintf(defs[nd], sizeof defs[0], "%.63s", sym);
                    owner[nd++] = i;
                } else if (pass == 1 && !strcmp(type, "U")) {
                    for (int k = 0; k < nd; k++)
                        if (!strcmp(defs[k], sym) && owner[k] != i) edge[i][owner[k]] = true;
                }
            }
            pclose(f);
            if (pass == 0 && got) nobj++;
        }
    if (nobj < 10) {
        printf("call graph: SKIPPED (no nm, or build/san/src/model/*.o not built)\n");
    } else {
        CHECK(!has_cycle(), "the call graph of src/model's %d objects has no cycle", nobj);
        CHECK(!(file_id("quant.c") >= 0 && file_id("kernels.c") >= 0 && edge[file_id("quant.c")][file_id("kernels.c")]),
              "quant.c calls nothing in kernels.c");
    }
    return TEST_DONE();
}
