/* cmd_nvcc.c — `ptxgen nvcc ARGS...` / `ptxgen-nvcc ARGS...`: a drop-in nvcc.  This file
 * parses the arguments and runs the real nvcc with exactly the given arguments (stdio
 * inherited), keeping its exit status: the build is never altered, whatever happens next.
 * If that succeeded and .cu files were compiled, the library's super-optimization workflow
 * (pipe_superopt_run, src/pipeline/superopt.c) writes K_baseline.ptx, K_superopt.ptx (or
 * .rejected.ptx) per kernel and ptxgen_report.{json,md}, and only reports on stderr.
 *
 * Own flags (stripped before nvcc sees the arguments):
 *   --ptxgen-out DIR     where the PTX files and the report go (default: the
 *                        folder of -o, else the current folder)
 *   --ptxgen-n N         elements per buffer in the differential test (1<<20)
 *   --ptxgen-block B     threads per block there (default: .reqntid/.maxntid or 256)
 *   --ptxgen-tries T     candidates per kernel (seeds 1, 17, 33 ...): the first one that
 *                        passes every check is kept (default 3)
 *   --ptxgen-timeout S   watchdog on one candidate's differential test, baseline and
 *                        candidate runs included (default 20 s: a hanging candidate
 *                        should not hold the build for minutes)
 * Environment: PTXGEN_REAL_NVCC (the nvcc to run), PTXGEN_BIN (a program run
 * as `PTXGEN_BIN gen ...` instead of the in-process generation: tests use it to
 * stand in for the model), PTXGEN_NVCC_OFF=1 (pass-through only). */
#define _GNU_SOURCE
#include "cli.h"
#include "ptxgen/pipeline.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TAG "ptxgen-nvcc"

/* ---- nvcc arguments ------------------------------------------------------------- */

/* Options whose value is the next argument when written alone. */
static const char *const value_opts[] = {
    "-o", "--output-file", "-I", "--include-path", "-D", "--define-macro", "-U", "--undefine-macro",
    "-isystem", "--system-include", "-include", "--pre-include", "-arch", "--gpu-architecture",
    "-gencode", "--generate-code", "-code", "--gpu-code", "-std", "--std", "-ccbin", "--compiler-bindir",
    "-x", "--x", "-Xcompiler", "--compiler-options", "-Xptxas", "--ptxas-options", "-Xlinker", "--linker-options",
    "-Xnvlink", "--nvlink-options", "-L", "--library-path", "-l", "--library", "-maxrregcount", "--maxrregcount",
    "-odir", "--output-directory", "-MF", "--dependency-output", "-MT", "--dependency-target-name",
    "-t", "--threads", "-ftz", "-prec-div", "-prec-sqrt", "-fmad", "--ftz", "--prec-div", "--prec-sqrt", "--fmad",
    "-rdc", "--relocatable-device-code", "-cudart", "--cudart", NULL};

/* Options that change the device code and so go to the baseline -ptx run
 * (with their value).  -arch/-gencode are handled apart (one arch only). */
static const char *const ptx_opts[] = {
    "-I", "--include-path", "-D", "--define-macro", "-U", "--undefine-macro", "-isystem", "--system-include",
    "-include", "--pre-include", "-std", "--std", "-ccbin", "--compiler-bindir", "-maxrregcount", "--maxrregcount",
    "-ftz", "-prec-div", "-prec-sqrt", "-fmad", "--ftz", "--prec-div", "--prec-sqrt", "--fmad", "-rdc",
    "--relocatable-device-code", NULL};
static const char *const ptx_flags[] = {
    "-use_fast_math", "--use_fast_math", "--expt-relaxed-constexpr", "--expt-extended-lambda", "--extended-lambda",
    "-extended-lambda", "-expt-relaxed-constexpr", "-lineinfo", "--generate-line-info", "-G", "--device-debug",
    "-dc", "--device-c", NULL};
/* Runs that compile nothing (or only preprocess): no extra step. */
static const char *const no_build[] = {
    "-E", "--preprocess", "-M", "-MM", "--generate-dependencies", "--generate-nonsystem-dependencies",
    "--version", "-V", "--help", "-h", "--dryrun", "-dryrun", "--list-gpu-arch", "--list-gpu-code",
    "-arch-ls", "-code-ls", NULL};

static int in_list(const char *const *l, const char *a) {
    for (int i = 0; l[i]; i++)
        if (!strcmp(l[i], a)) return i;
    return -1;
}

/* "-I/x" or "-Ifoo" or "--include-path=x": option name and value, when `a`
 * is one of list's options in joined form.  For "-x..." short forms only
 * -I -D -U are joined without '='. */
static const char *joined_value(const char *const *list, const char *a, const char **opt) {
    for (int i = 0; list[i]; i++) {
        size_t n = strlen(list[i]);
        if (strncmp(a, list[i], n)) continue;
        if (a[n] == '=') { *opt = list[i]; return a + n + 1; }
        if (a[n] && (!strcmp(list[i], "-I") || !strcmp(list[i], "-D") || !strcmp(list[i], "-U"))) {
            *opt = list[i];
            return a + n;
        }
    }
    return NULL;
}

static bool ends_with(const char *s, const char *suf) {
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

typedef PG_VEC(char *) strvec;

typedef struct {
    strvec pass;          /* arguments for the real nvcc (our own flags removed) */
    strvec cu;            /* .cu inputs */
    strvec ptxflags;      /* flags for the baseline -ptx run */
    char arch[64];        /* one architecture for -ptx ("" = nvcc's default) */
    const char *output;   /* -o value */
    const char *outdir;   /* --ptxgen-out */
    long long n;          /* --ptxgen-n */
    int block;            /* --ptxgen-block (0 = derive) */
    int tries;            /* --ptxgen-tries */
    int timeout_s;        /* --ptxgen-timeout */
    bool build;           /* compiles something (no -E/-M/--version ...) */
    char err[256];
} nvcc_args;

/* "arch=compute_90,code=[sm_90,compute_90]" -> "sm_90" */
static void arch_from_gencode(const char *v, char *out, size_t n) {
    const char *c = strstr(v, "code=");
    const char *sm = c ? strstr(c, "sm_") : NULL;
    if (!sm) sm = strstr(v, "compute_");
    if (!sm) return;
    size_t k = strcspn(sm, ",] ");
    if (k >= n) k = n - 1;
    memcpy(out, sm, k);
    out[k] = 0;
    if (!strncmp(out, "compute_", 8)) {   /* compute_90 -> sm_90 */
        memmove(out + 3, out + 8, strlen(out + 8) + 1);
        memcpy(out, "sm_", 3);
    }
}

static bool parse_args(int argc, char **argv, nvcc_args *a) {
    memset(a, 0, sizeof *a);
    a->n = 1 << 20;
    a->tries = 3;
    a->timeout_s = 20;
    a->build = true;
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i];
        /* our own flags */
        const char *ours[] = {"--ptxgen-out", "--ptxgen-n", "--ptxgen-block", "--ptxgen-tries", "--ptxgen-timeout"};
        int which = -1;
        const char *val = NULL;
        for (int k = 0; k < 5; k++) {
            size_t n = strlen(ours[k]);
            if (!strncmp(s, ours[k], n) && (s[n] == 0 || s[n] == '=')) {
                which = k;
                if (s[n] == '=') val = s + n + 1;
                else if (i + 1 < argc) val = argv[++i];
                else { snprintf(a->err, sizeof a->err, "%s needs a value", ours[k]); return false; }
            }
        }
        if (which == 0) { a->outdir = val; continue; }
        if (which >= 1) {
            char *end;
            long long v = strtoll(val, &end, 0);
            if (*end || v < 1 || v > (1LL << 31)) {
                snprintf(a->err, sizeof a->err, "%s: '%s' is not a positive integer", ours[which], val);
                return false;
            }
            if (which == 1) a->n = v;
            else if (which == 2) a->block = (int)(v > 1024 ? 1024 : v);
            else if (which == 3) a->tries = (int)(v > 64 ? 64 : v);
            else a->timeout_s = (int)(v > 3600 ? 3600 : v);
            continue;
        }
        pg_vec_push(a->pass, argv[i]);
        if (in_list(no_build, s) >= 0 || !strncmp(s, "-M", 2)) a->build = false;
        if (s[0] != '-') {
            if (ends_with(s, ".cu")) pg_vec_push(a->cu, argv[i]);
            continue;
        }
        const char *opt = NULL, *v = NULL;
        if (in_list(value_opts, s) >= 0 && i + 1 < argc) {
            opt = s;
            v = argv[i + 1];
            pg_vec_push(a->pass, argv[++i]);
        } else {
            v = joined_value(value_opts, s, &opt);
        }
        if (!opt) {
            if (in_list(ptx_flags, s) >= 0) pg_vec_push(a->ptxflags, (char *)s);
            continue;
        }
        if (!strcmp(opt, "-o") || !strcmp(opt, "--output-file")) a->output = v;
        else if (!strcmp(opt, "-arch") || !strcmp(opt, "--gpu-architecture")) {
            if (!a->arch[0] && strcmp(v, "all") && strcmp(v, "all-major")) {
                snprintf(a->arch, sizeof a->arch, "%s", v);
            }
        } else if (!strcmp(opt, "-gencode") || !strcmp(opt, "--generate-code")) {
            if (!a->arch[0]) arch_from_gencode(v, a->arch, sizeof a->arch);
        } else if (in_list(ptx_opts, opt) >= 0) {
            /* keep the joined spelling: "-I" "dir" -> "-Idir" is not valid for
             * long options, so store "opt=value" for those */
            char *f;
            if (opt[1] == '-' || strlen(opt) > 2) {
                f = malloc(strlen(opt) + strlen(v) + 2);
                sprintf(f, "%s=%s", opt, v);
            } else {
                f = malloc(strlen(opt) + strlen(v) + 1);
                sprintf(f, "%s%s", opt, v);
            }
            pg_vec_push(a->ptxflags, f);
        }
    }
    return true;
}

static void free_args(nvcc_args *a) {
    for (int i = 0; i < a->ptxflags.n; i++)
        if (in_list(ptx_flags, a->ptxflags.v[i]) < 0) free(a->ptxflags.v[i]);
    pg_vec_free(a->pass);
    pg_vec_free(a->cu);
    pg_vec_free(a->ptxflags);
}

static const char *nvcc_usage =
    "usage: ptxgen nvcc NVCC_ARGS... [--ptxgen-out DIR] [--ptxgen-tries T] [--ptxgen-n N] [--ptxgen-block B]\n"
    "                   [--ptxgen-timeout S]     (also installed as ptxgen-nvcc; --help goes to the real nvcc)\n"
    "  A drop-in nvcc: the real nvcc runs with the given arguments, unchanged, and its exit status is\n"
    "  returned.  After a successful build of .cu files, every kernel gets K_baseline.ptx (nvcc -ptx -O3)\n"
    "  and a super-optimization candidate from the model.  A candidate is kept as K_superopt.ptx only when\n"
    "  it passes libptx check, keeps the baseline's signature, passes ptxas and then, with a GPU, agrees\n"
    "  with the baseline on 5 seeds of random inputs; without a GPU (or when that test is inconclusive) it\n"
    "  must pass `ptxgen gate` against the baseline instead (instructions, registers, precision).\n"
    "  Anything else is reported and discarded (K_superopt.rejected.ptx).  ptxgen_report.{md,json} list\n"
    "  every kernel's verdict and the seconds the extra step added to the build.\n"
    "  Environment: PTXGEN_REAL_NVCC (the nvcc to run), PTXGEN_NVCC_OFF=1 (pass-through only).\n";

int cmd_nvcc(int argc, char **argv) {
    if (argc == 2 && !strcmp(argv[1], "--ptxgen-help")) { fputs(nvcc_usage, stdout); return 0; }
    nvcc_args a;
    if (!parse_args(argc - 1, argv + 1, &a)) {
        fprintf(stderr, TAG ": %s\n", a.err);
        free_args(&a);
        return 2;
    }
    char nvcc[PATH_MAX];
    if (!pipe_real_nvcc(nvcc, sizeof nvcc)) {
        fprintf(stderr, TAG ": cannot find the real nvcc (set PTXGEN_REAL_NVCC, or put the CUDA toolkit's bin on PATH)\n");
        free_args(&a);
        return 127;
    }
    /* 1. the normal build, untouched */
    strvec av = {0};
    pg_vec_push(av, nvcc);
    for (int i = 0; i < a.pass.n; i++) pg_vec_push(av, a.pass.v[i]);
    pg_vec_push(av, NULL);
    int rc = pipe_spawn_wait(av.v, NULL, NULL);
    pg_vec_free(av);
    if (rc == 127) fprintf(stderr, TAG ": could not start %s\n", nvcc);
    const char *off = getenv("PTXGEN_NVCC_OFF");
    if (rc != 0 || !a.build || !a.cu.n || (off && *off && strcmp(off, "0"))) {
        free_args(&a);
        return rc;
    }
    /* 2-4. baseline, candidate, verification, report: never change rc, except that a file
     * that could not be written (a full disk) is exit 2 */
    char outdir[PATH_MAX];
    if (a.outdir) snprintf(outdir, sizeof outdir, "%s", a.outdir);
    else if (a.output && strchr(a.output, '/')) {
        snprintf(outdir, sizeof outdir, "%s", a.output);
        *strrchr(outdir, '/') = 0;
        if (!outdir[0]) snprintf(outdir, sizeof outdir, "/");
    } else snprintf(outdir, sizeof outdir, ".");
    if (mkdir(outdir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, TAG ": cannot create %s: %s (no baseline/superopt files)\n", outdir, strerror(errno));
        free_args(&a);
        return rc;
    }
    char mdir[4096];
    const char *bin = getenv("PTXGEN_BIN");
    pipe_superopt_in in = {nvcc, (const char *const *)a.cu.v, a.cu.n, a.arch, (const char *const *)a.ptxflags.v, a.ptxflags.n,
                           (const char *const *)a.pass.v, a.pass.n, outdir, a.n, a.block, a.tries, a.timeout_s,
                           bin && *bin ? bin : NULL, cli_default_model(mdir, sizeof mdir) ? mdir : NULL, PTXGEN_VERSION};
    pipe_notes notes = {cli_print_note, NULL, cli_print_out};
    bool write_failed = false;
    pipe_superopt_run(&in, &notes, &write_failed);
    free_args(&a);
    if (write_failed) {
        fprintf(stderr, TAG ": the build succeeded, but files above could not be written: exit 2\n");
        return 2;
    }
    return rc;
}
