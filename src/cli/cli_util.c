/* cli_util.c — what the commands share: flag values, usage errors, the diagnostics and note
 * printers, where the default model and the corpus are.  Commands call these, never each
 * other (main.c only dispatches). */
#include "cli.h"
#include "ptxgen/model.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void cli_print_note(void *user, const char *text) {
    (void)user;
    fputs(text, stderr);
}

void cli_print_out(void *user, const char *text) {
    (void)user;
    fputs(text, stdout);
}

/* The folders a checkout or an install keeps its data in, seen from the executable:
 * build/ptxgen and build/san/ptxgen -> the checkout (..); PREFIX/bin/ptxgen (make install)
 * -> PREFIX/share/ptxgen.  Fills up to 4 roots, nearest first; returns how many. */
#define EXE_ROOTS 4
static int exe_roots(char roots[EXE_ROOTS][4200]) {
    char exe[4096];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k <= 0) return 0;
    exe[k] = 0;
    int n = 0;
    for (int up = 1; up <= 2; up++) {
        char *slash = strrchr(exe, '/');
        if (!slash) break;
        *slash = 0;
        snprintf(roots[n++], sizeof roots[0], "%s/..", exe);
        snprintf(roots[n++], sizeof roots[0], "%s/../share/ptxgen", exe);
    }
    return n;
}

bool cli_near_exe(const char *rel, char *out, size_t n) {
    char roots[EXE_ROOTS][4200];
    int nr = exe_roots(roots);
    for (int i = 0; i < nr; i++) {
        snprintf(out, n, "%s/%s", roots[i], rel);
        if (access(out, R_OK) == 0) return true;
    }
    return false;
}

/* $PTXGEN_MODEL, else model_default_dir (models/qwen15-plan or models/qwen-plan with its base
 * fetched, else models/default) in the cwd, else in the checkout or install the executable sits in. */
bool cli_default_model(char *out, size_t n) {
    const char *env = getenv("PTXGEN_MODEL");
    if (env && *env) { snprintf(out, n, "%s", env); return true; }
    if (model_default_dir(NULL, out, n) == PG_OK) return true;
    char roots[EXE_ROOTS][4200];
    int nr = exe_roots(roots);
    for (int i = 0; i < nr; i++)
        if (model_default_dir(roots[i], out, n) == PG_OK) return true;
    return false;
}

bool cli_int_arg(const char *cmd, const char *flag, const char *text, long lo, long hi, int *out) {
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (end == text || *end || errno == ERANGE || v < lo || v > hi) {
        fprintf(stderr, "ptxgen %s: %s wants an integer from %ld to %ld, not '%s'\n", cmd, flag, lo, hi, text);
        fprintf(stderr, "try 'ptxgen help %s'\n", cmd);
        return false;
    }
    *out = (int)v;
    return true;
}

bool cli_float_arg(const char *cmd, const char *flag, const char *text, double lo, double hi, float *out) {
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end || !isfinite(v) || v < lo || v > hi) {
        fprintf(stderr, "ptxgen %s: %s wants a number from %g to %g, not '%s'\n", cmd, flag, lo, hi, text);
        fprintf(stderr, "try 'ptxgen help %s'\n", cmd);
        return false;
    }
    *out = (float)v;
    return true;
}

bool cli_u64_arg(const char *cmd, const char *flag, const char *text, uint64_t *out) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 0);
    if (end == text || *end || errno == ERANGE || text[strspn(text, " \t")] == '-') {
        fprintf(stderr, "ptxgen %s: %s wants a non-negative integer, not '%s'\n", cmd, flag, text);
        fprintf(stderr, "try 'ptxgen help %s'\n", cmd);
        return false;
    }
    *out = v;
    return true;
}

int cli_usage_error(const char *cmd, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "ptxgen %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\ntry 'ptxgen help %s'\n", cmd);
    return 2;
}

bool cli_arch_usable(const char *cmd, const char *arch, int ptx_version) {
    char why[512], path[512] = "ptxas";
    if (ptx_ptxas_target_check(arch, ptx_version, why, sizeof why) != 0) return true;
    ptx_ptxas_find(path, sizeof path);
    fprintf(stderr, "ptxgen %s: --arch %s: the installed ptxas (%s) does not know it: %s\n"
                    "  choose a target it supports, or install a CUDA toolkit that knows %s\n", cmd, arch, path, why, arch);
    return false;
}

int cli_cores(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 4096 ? 4096 : (int)n;
}

void cli_print_diag(void *user, const pg_diag *d) {
    (void)user;
    char buf[1024];
    pg_diag_format(d, buf, sizeof buf);
    fprintf(stderr, "%s\n", buf);
}

json_t *cli_ptxas_func_json(const ptxas_func_report *f) {
    json_t *fo = json_object();
    json_object_set_new(fo, "registers", json_integer(f->registers));
    json_object_set_new(fo, "barriers", json_integer(f->barriers));
    json_object_set_new(fo, "smem_bytes", json_integer(f->smem));
    json_object_set_new(fo, "stack_frame_bytes", json_integer(f->stack_frame));
    json_object_set_new(fo, "spill_stores_bytes", json_integer(f->spill_stores));
    json_object_set_new(fo, "spill_loads_bytes", json_integer(f->spill_loads));
    json_t *cm = json_object();
    for (int k = 0; k < 8; k++)
        if (f->cmem[k]) {
            char key[16];
            snprintf(key, sizeof key, "%d", k);
            json_object_set_new(cm, key, json_integer(f->cmem[k]));
        }
    json_object_set_new(fo, "cmem_bytes", cm);
    if (f->nextra) {
        json_t *ex = json_object();
        for (int k = 0; k < f->nextra && k < 16; k++) {
            char key[96];
            snprintf(key, sizeof key, "%s_%s", f->extra[k].name, f->extra[k].unit);
            json_object_set_new(ex, key, json_real(f->extra[k].value));
        }
        json_object_set_new(fo, "other", ex);
    }
    return fo;
}
