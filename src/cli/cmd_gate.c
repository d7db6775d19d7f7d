/* cmd_gate.c — `ptxgen gate`: the CI performance gate (docs/GATE.md).
 *
 *   ptxgen gate --baseline A.ptx --candidate B.ptx [rule flags] [--json F] [--markdown F]
 *   ptxgen gate --from-cu K.cu [--arch sm_80] [--candidate B.ptx]
 *
 * --from-cu builds the baseline with `nvcc -ptx -O3` and, unless a candidate
 * is given, the candidate with `ptxgen gen --superopt` (this executable). */
#include "cli.h"
#include "ptxgen/eval.h"

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const char *gate_usage =
    "usage: ptxgen gate --baseline A.ptx --candidate B.ptx [options]\n"
    "       ptxgen gate --from-cu FILE.cu [--arch sm_80] [--candidate B.ptx] [options]\n"
    "  compare kernels (matched by entry name; the only kernel of each file is compared whatever\n"
    "  its name; --pair A=B compares baseline kernel A with candidate kernel B); Markdown report on stdout.\n"
    "  --from-cu without --candidate asks `gen --superopt` for one candidate per kernel of the file.\n"
    "  exit 0: pass; 1: fail (regression, missing kernel, invalid candidate, precision change);\n"
    "  2: usage or I/O error, unusable baseline\n"
    "  --max-inst-ratio R    improvement when instructions <= R x baseline (0.95)\n"
    "  --max-reg-ratio R     ... and registers <= R x baseline (1.05)\n"
    "  --fail-inst-ratio R   fail when instructions > R x baseline (1.05)\n"
    "  --allow-precision-change  do not fail when a new float width appears (f32 -> f64)\n"
    "  --arch sm_XX          ptxas/nvcc target (default: the module's .target; sm_80 for nvcc)\n"
    "  --no-ptxas            use libptx estimates only\n"
    "  --pair A=B            compare baseline kernel A with candidate kernel B (repeatable)\n"
    "  --json FILE           also write the result as JSON\n"
    "  --markdown FILE       also write the Markdown report to FILE\n"
    "  --quiet               no report on stdout\n";

static bool parse_ratio(const char *s, double *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v > 0) || v > 100) return false;
    *out = v;
    return true;
}

/* Find a CUDA tool: $NVCC for nvcc, PATH, $CUDA_HOME/bin, /usr/local/cuda/bin. */
static bool find_tool(const char *tool, const char *envvar, char *out, size_t n) {
    const char *e = envvar ? getenv(envvar) : NULL;
    if (e && *e && access(e, X_OK) == 0) { snprintf(out, n, "%s", e); return true; }
    const char *path = getenv("PATH");
    if (path) {
        const char *p = path;
        while (*p) {
            const char *c = strchr(p, ':');
            size_t len = c ? (size_t)(c - p) : strlen(p);
            snprintf(out, n, "%.*s/%s", (int)len, p, tool);
            if (len && access(out, X_OK) == 0) return true;
            p = c ? c + 1 : p + len;
        }
    }
    const char *home = getenv("CUDA_HOME");
    if (home && *home) {
        snprintf(out, n, "%s/bin/%s", home, tool);
        if (access(out, X_OK) == 0) return true;
    }
    snprintf(out, n, "/usr/local/cuda/bin/%s", tool);
    return access(out, X_OK) == 0;
}

/* Run argv with stdout sent to stderr (our stdout carries the report). */
static int run_child(char *const argv[]) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, 2, 1);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) { fprintf(stderr, "ptxgen gate: cannot run %s: %s\n", argv[0], strerror(rc)); return -1; }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

static int write_out(const char *path, const pg_buf *b) {
    pg_diag_sink sink = {cli_print_diag, NULL, 0, 0, 10};
    return pg_write_file_atomic(path, b->data ? b->data : "", b->len, &sink) == PG_OK ? 0 : 2;
}

int cmd_gate(int argc, char **argv) {
    eval_gate_opts o;
    eval_gate_opts_default(&o);
    const char *base = NULL, *cand = NULL, *cu = NULL, *json_path = NULL, *md_path = NULL;
    bool quiet = false;
    PG_VEC(const char *) pairs = {0};
    PG_VEC(char *) kernels = {0};   /* --from-cu: the baseline's kernels, one candidate each */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has = i + 1 < argc;
        if (!strcmp(a, "--baseline") && has) base = argv[++i];
        else if (!strcmp(a, "--candidate") && has) cand = argv[++i];
        else if (!strcmp(a, "--from-cu") && has) cu = argv[++i];
        else if (!strcmp(a, "--arch") && has) o.arch = argv[++i];
        else if (!strcmp(a, "--json") && has) json_path = argv[++i];
        else if (!strcmp(a, "--markdown") && has) md_path = argv[++i];
        else if ((!strcmp(a, "--max-inst-ratio") || !strcmp(a, "--max-reg-ratio") || !strcmp(a, "--fail-inst-ratio")) && has) {
            double *dst = !strcmp(a, "--max-inst-ratio") ? &o.max_inst_ratio
                        : !strcmp(a, "--max-reg-ratio") ? &o.max_reg_ratio : &o.fail_inst_ratio;
            if (!parse_ratio(argv[++i], dst)) {
                cli_usage_error("gate", "%s wants a positive number, got '%s'", a, argv[i]);
                goto usage;
            }
        }
        else if (!strcmp(a, "--pair") && has) {
            const char *v = argv[++i], *eq = strchr(v, '=');
            if (!eq || eq == v || !eq[1]) { cli_usage_error("gate", "--pair wants BASELINE_KERNEL=CANDIDATE_KERNEL, not '%s'", v); goto usage; }
            pg_vec_push(pairs, v);
        }
        else if (!strcmp(a, "--no-ptxas")) o.no_ptxas = true;
        else if (!strcmp(a, "--allow-precision-change")) o.allow_precision_change = true;
        else if (!strcmp(a, "--quiet")) quiet = true;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { fputs(gate_usage, stdout); pg_vec_free(pairs); return 0; }
        else { cli_usage_error("gate", "unknown or incomplete argument '%s'", a); goto usage; }
    }
    if (cu && base) { cli_usage_error("gate", "--from-cu builds the baseline; do not also pass --baseline"); goto usage; }
    if (!cu && (!base || !cand)) { cli_usage_error("gate", "need --baseline and --candidate (or --from-cu)"); goto usage; }
    if (o.max_inst_ratio > o.fail_inst_ratio) {
        fprintf(stderr, "ptxgen gate: --max-inst-ratio (%g) must not exceed --fail-inst-ratio (%g)\n", o.max_inst_ratio, o.fail_inst_ratio);
        goto usage;
    }
    if (0) {
usage:
        pg_vec_free(pairs);
        return 2;
    }
    o.pairs = pairs.v;
    o.npairs = pairs.n;

    char tmpdir[600] = "", base_path[700], cand_path[700], base_name[600];
    if (cu) {
        if (access(cu, R_OK) != 0) { fprintf(stderr, "ptxgen gate: cannot read %s: %s\n", cu, strerror(errno)); return 2; }
        pg_tmp_path(tmpdir, sizeof tmpdir, "ptxgen-gate-cu-XXXXXX");
        if (!mkdtemp(tmpdir)) { fprintf(stderr, "ptxgen gate: cannot create a temporary directory\n"); return 2; }
        snprintf(base_path, sizeof base_path, "%s/baseline.ptx", tmpdir);
        snprintf(cand_path, sizeof cand_path, "%s/candidate.ptx", tmpdir);
        char nvcc[512], archarg[64];
        if (!find_tool("nvcc", "NVCC", nvcc, sizeof nvcc)) {
            fprintf(stderr, "ptxgen gate: --from-cu needs nvcc (looked in $NVCC, PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)\n");
            rmdir(tmpdir);
            return 2;
        }
        snprintf(archarg, sizeof archarg, "-arch=%s", o.arch ? o.arch : "sm_80");
        char *nv[] = {nvcc, "-ptx", "-O3", archarg, (char *)cu, "-o", base_path, NULL};
        int rc = run_child(nv);
        if (rc != 0) {
            fprintf(stderr, "ptxgen gate: nvcc -ptx -O3 %s %s failed (exit %d)\n", archarg, cu, rc);
            unlink(base_path);
            rmdir(tmpdir);
            return 2;
        }
        snprintf(base_name, sizeof base_name, "nvcc -O3 %s", cu);
        base = base_path;
        o.baseline_name = base_name;
        if (!cand) {
            /* every kernel of the .cu gets its own candidate (gen --superopt rewrites one
             * kernel and keeps its name), compared with its baseline kernel below */
            ptx_module *bm = NULL;
            pg_diag_sink q = {0};
            if (ptx_parse_file(base_path, &bm, &q) == PG_OK)
                for (int f = 0; f < bm->nfuncs; f++)
                    if (bm->funcs[f].is_entry && bm->funcs[f].has_body) pg_vec_push(kernels, strdup(bm->funcs[f].name));
            ptx_module_free(bm);
            if (!kernels.n) { fprintf(stderr, "ptxgen gate: nvcc's PTX of %s has no kernels\n", cu); rc = 2; }
            for (int k = 0; k < kernels.n && rc == 0; k++) {
                char *gv[12];
                int n = 0;
                snprintf(cand_path, sizeof cand_path, "%s/candidate%d.ptx", tmpdir, k);
                gv[n++] = "/proc/self/exe";
                gv[n++] = "gen";
                gv[n++] = "--superopt";
                gv[n++] = base_path;
                gv[n++] = "--kernel";
                gv[n++] = kernels.v[k];
                if (o.arch) { gv[n++] = "--arch"; gv[n++] = (char *)o.arch; }
                gv[n++] = "-o";
                gv[n++] = cand_path;
                gv[n] = NULL;
                rc = run_child(gv);
                if (rc != 0)
                    fprintf(stderr, "ptxgen gate: the candidate for %s could not be generated: `ptxgen gen --superopt %s --kernel %s "
                                    "-o %s` exited %d (is the super-optimizer built and a model available?); pass --candidate "
                                    "to gate a given file against nvcc's PTX\n", kernels.v[k], base_path, kernels.v[k], cand_path, rc);
            }
            if (rc != 0) {
                for (int k = 0; k < kernels.n; k++) {
                    snprintf(cand_path, sizeof cand_path, "%s/candidate%d.ptx", tmpdir, k);
                    unlink(cand_path);
                    free(kernels.v[k]);
                }
                pg_vec_free(kernels);
                pg_vec_free(pairs);
                unlink(base_path);
                rmdir(tmpdir);
                return 2;
            }
            o.candidate_name = "ptxgen gen --superopt";
        }
    }

    pg_diag_sink sink = {cli_print_diag, NULL, 0, 0, 50};
    eval_gate_result r;
    pg_status st;
    if (!kernels.n) {
        st = eval_gate_compare_files(base, cand, &o, &r, &sink);
    } else {   /* one comparison per generated candidate, one report */
        memset(&r, 0, sizeof r);
        st = PG_OK;
        o.only_paired = true;
        o.npairs = 1;
        for (int k = 0; k < kernels.n && st == PG_OK; k++) {
            char pair[600];
            const char *pp[1] = {pair};
            snprintf(pair, sizeof pair, "%s=%s", kernels.v[k], kernels.v[k]);
            snprintf(cand_path, sizeof cand_path, "%s/candidate%d.ptx", tmpdir, k);
            o.pairs = pp;
            eval_gate_result one;
            st = eval_gate_compare_files(base, cand_path, &o, &one, &sink);
            if (k == 0) { r = one; r.kernels = NULL; r.nkernels = 0; r.nimproved = r.nneutral = r.nregressed = r.nfailed = 0; r.pass = true; }
            if (st == PG_OK) eval_gate_result_append(&r, &one);
            eval_gate_result_free(&one);
            unlink(cand_path);
        }
        snprintf(r.candidate_name, sizeof r.candidate_name, "ptxgen gen --superopt (one candidate per kernel)");
        for (int k = 0; k < kernels.n; k++) free(kernels.v[k]);
        pg_vec_free(kernels);
    }
    r.opts.pairs = NULL;   /* the copy in the result must not point at freed flags */
    r.opts.npairs = 0;
    pg_vec_free(pairs);
    if (tmpdir[0]) {
        unlink(base_path);
        unlink(cand_path);
        rmdir(tmpdir);
    }
    if (st != PG_OK) {
        eval_gate_result_free(&r);
        return 2;
    }
    if (r.error[0]) fprintf(stderr, "ptxgen gate: %s\n", r.error);
    pg_buf md = {0}, js = {0};
    eval_gate_markdown(&r, &md);
    int rc = r.pass ? 0 : 1;
    if (!quiet) fwrite(md.data, 1, md.len, stdout);
    if (md_path && write_out(md_path, &md)) rc = 2;
    if (json_path) {
        eval_gate_json(&r, &js);
        if (write_out(json_path, &js)) rc = 2;
    }
    pg_buf_free(&md);
    pg_buf_free(&js);
    eval_gate_result_free(&r);
    return rc;
}
