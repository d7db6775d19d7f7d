/* superopt.c — the nvcc wrapper's super-optimization workflow (`ptxgen-nvcc`, ptxgen/pipeline.h):
 * for every .cu the build compiled, nvcc -ptx -O3 gives the baseline; per kernel, candidates
 * from the model (pipe_generate in a forked child, or $PTXGEN_BIN) are tried, measured (libptx
 * statistics, ptxas -v), checked (the funnel against the baseline's signature), compared (the
 * differential test on the GPU, else the gate against the baseline) and the first kept one is
 * K_superopt.ptx; ptxgen_report.{json,md} report every kernel.  Nothing here prints: the
 * wrapper's lines ("ptxgen-nvcc: ...") go to pipe_notes. */
#define _GNU_SOURCE
#include "ptxgen/pipeline.h"
#include "ptxgen/eval.h"
#include "ptxgen/gpu.h"
#include "ptxgen/isa.h"
#include "ptxgen/ptx.h"
#include "ptxgen/task.h"
#include "pipe_notes.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define TAG "ptxgen-nvcc"

typedef PG_VEC(char *) strvec;

typedef struct {
    const pipe_superopt_in *in;
    const pipe_notes *notes;
    bool *write_failed;           /* a file could not be written */
    const char *outdir, *source;
    const char *gen_bin;          /* $PTXGEN_BIN, a stand-in run as a subprocess; NULL: gen_in_child */
    const char *default_model;
    long long n;
    int block, tries, timeout_s;
    bool gpu;
    char gpu_why[256];
} run_ctx;


/* The exit status of child pid: its code, 128+signal, or 127 when it cannot be read. */
static int wait_child(pid_t pid) {
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return 127;
    if (WIFEXITED(st)) return WEXITSTATUS(st);
    if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
    return 127;
}

/* Run argv[0] (a path) with argv; stdout/stderr to files when given, else
 * inherited.  Returns the exit status, 128+signal, or 127 when it could not start. */
int pipe_spawn_wait(char *const argv[], const char *out_path, const char *err_path) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (out_path) posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (err_path) posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid;
    fflush(stdout);
    fflush(stderr);
    int e = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (e != 0) return 127;
    return wait_child(pid);
}



static bool is_exec(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

static bool self_exe(char *buf, size_t n) {
    ssize_t k = readlink("/proc/self/exe", buf, n - 1);
    if (k <= 0) return false;
    buf[k] = 0;
    return true;
}

/* The real nvcc: $PTXGEN_REAL_NVCC, else the first nvcc on PATH that is not
 * this program (ptxgen-nvcc may be installed as "nvcc"), else /usr/local/cuda/bin/nvcc. */
bool pipe_real_nvcc(char *out, size_t n) {
    const char *env = getenv("PTXGEN_REAL_NVCC");
    if (env && *env) {
        snprintf(out, n, "%s", env);
        return is_exec(out);
    }
    char self[PATH_MAX], rp[PATH_MAX];
    if (!self_exe(self, sizeof self)) self[0] = 0;
    const char *path = getenv("PATH");
    if (path) {
        char *dup = strdup(path), *save = NULL;
        for (char *d = strtok_r(dup, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
            char cand[PATH_MAX];
            snprintf(cand, sizeof cand, "%s/nvcc", *d ? d : ".");
            if (!is_exec(cand)) continue;
            if (realpath(cand, rp) && self[0] && !strcmp(rp, self)) continue;   /* ourselves */
            snprintf(out, n, "%s", cand);
            free(dup);
            return true;
        }
        free(dup);
    }
    snprintf(out, n, "/usr/local/cuda/bin/nvcc");
    return is_exec(out);
}

static char *slurp(const char *path) {
    char *s = NULL;
    size_t n;
    pg_diag_sink quiet = {0};
    if (pg_read_file(path, 64u << 20, &s, &n, &quiet) != PG_OK) return NULL;
    return s;
}



/* In the forked child, stdout and stderr are the two files the parent reads back. */
static void child_err(void *user, const char *text) { (void)user; fputs(text, stderr); }
static void child_out(void *user, const char *text) { (void)user; fputs(text, stdout); }
static void child_diag(void *user, const pg_diag *d) {
    (void)user;
    char buf[1024];
    pg_diag_format(d, buf, sizeof buf);
    fprintf(stderr, "%s\n", buf);
}
static const pipe_notes child_notes = {child_err, NULL, child_out};

/* `ptxgen gen --baseline BASE --kernel K --arch A --seed S -o CAND --json` as the library
 * call it is (pipe_generate), in a forked child of this process: the child runs it with its
 * stdout and stderr on the two files and exits with its status, so the generation (model
 * load, sampling, its own checks) runs exactly as the command would, while a crash, an abort
 * or an out-of-memory kill stays in the child: the parent reads 128+signal like any exit
 * status.  Returns as spawn_wait. */
static int superopt_gen(const run_ctx *rc, const char *base_path, const char *kernel, const char *arch, int seed, const char *cand) {
    gen_opts o;
    gen_opts_default(&o);
    o.arch = arch;
    o.sampler.seed = (uint64_t)seed;
    int sm_;
    bool as_, fam_;
    if (!isa_parse_target(arch, &sm_, &as_, &fam_)) {
        pipe_note(&child_notes, "ptxgen gen: --arch %s is not a known target (sm_50 ... sm_120a)\ntry 'ptxgen help gen'\n", arch);
        return 2;
    }
    char why[512], path[512] = "ptxas";
    if (ptx_ptxas_target_check(arch, gen_header_ptx_version(arch), why, sizeof why) == 0) {   /* as cli_arch_usable */
        ptx_ptxas_find(path, sizeof path);
        pipe_note(&child_notes, "ptxgen gen: --arch %s: the installed ptxas (%s) does not know it: %s\n"
                             "  choose a target it supports, or install a CUDA toolkit that knows %s\n", arch, path, why, arch);
        return 2;
    }
    pipe_gen_req req;
    memset(&req, 0, sizeof req);
    req.baseline = base_path;
    req.kernel = kernel;
    req.out_path = cand;
    req.json = true;
    req.samples = 4;
    req.threads = 1;
    req.default_model = rc->default_model;
    req.gen = o;
    pg_diag_sink sink = {child_diag, NULL, 0, 0, 20};
    return pipe_generate(&req, &child_notes, &sink);
}

static int gen_in_child(const run_ctx *rc, const char *base_path, const char *kernel, const char *arch, int seed, const char *cand,
                        const char *out_path, const char *err_path) {
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) return 127;
    if (pid == 0) {
        int fo = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0) _exit(127);
        close(fo);
        close(fe);
        int st = superopt_gen(rc, base_path, kernel, arch, seed, cand);
        fflush(stdout);
        fflush(stderr);
        _exit(st);   /* not exit(): the parent's atexit handlers and stdio buffers are the parent's */
    }
    return wait_child(pid);
}



/* ---- diagnostics into a string ------------------------------------------------------ */
static void diag_to_buf(void *user, const pg_diag *d) {
    pg_buf *b = user;
    char line[1024];
    pg_diag_format(d, line, sizeof line);
    if (b->len < 16384) pg_buf_printf(b, "%s\n", line);
}

/* ---- static measures of one kernel ----------------------------------------------------- */
typedef struct {
    bool have_stats, have_ptxas;
    int instructions, mem_global, mem_shared;
    int registers, spill_bytes, stack;
    int64_t smem;                 /* static shared memory (ptxas), else the declared bytes */
    double ptxas_seconds;
} kmeasure;

static const ptx_func *find_entry(const ptx_module *m, const char *name) {
    for (int i = 0; m && i < m->nfuncs; i++)
        if (m->funcs[i].is_entry && m->funcs[i].has_body && !strcmp(m->funcs[i].name, name)) return &m->funcs[i];
    return NULL;
}

static void measure_stats(const ptx_module *m, const char *kernel, kmeasure *k) {
    const ptx_func *f = find_entry(m, kernel);
    ptx_func_stats fs;
    if (!f || ptx_func_stats_compute(m, f, &fs) != PG_OK) return;
    k->have_stats = true;
    k->instructions = fs.total;
    k->mem_global = fs.mem_by_space[PTX_SS_GLOBAL];
    k->mem_shared = fs.mem_by_space[PTX_SS_SHARED];
    k->smem = fs.shared_bytes;
}

/* The kernel's figures from a ptxas -v report. */
static void measure_report(const ptxas_report *rep, const char *kernel, kmeasure *k) {
    for (int i = 0; i < rep->nfuncs; i++)
        if (!strcmp(rep->funcs[i].func, kernel)) {
            k->have_ptxas = true;
            k->registers = rep->funcs[i].registers;
            k->spill_bytes = rep->funcs[i].spill_stores + rep->funcs[i].spill_loads;
            k->stack = rep->funcs[i].stack_frame;
            k->smem = rep->funcs[i].smem;
        }
    k->ptxas_seconds = rep->seconds;
}

/* ptxas -v on the baseline's file: the kernel's figures. */
static void measure_ptxas(const char *path, const ptx_module *m, const char *kernel, kmeasure *k) {
    ptxas_report rep;
    memset(&rep, 0, sizeof rep);
    ptx_ptxas_run(path, NULL, ptx_needs_relocatable(m), &rep, NULL);
    measure_report(&rep, kernel, k);
    ptx_ptxas_report_free(&rep);
}

/* ---- one kernel ------------------------------------------------------------------------- */

static json_t *measure_json(const kmeasure *k) {
    json_t *o = json_object();
    if (k->have_stats) {
        json_object_set_new(o, "instructions", json_integer(k->instructions));
        json_object_set_new(o, "global_accesses", json_integer(k->mem_global));
        json_object_set_new(o, "shared_accesses", json_integer(k->mem_shared));
    }
    if (k->have_ptxas) {
        json_object_set_new(o, "registers", json_integer(k->registers));
        json_object_set_new(o, "spill_bytes", json_integer(k->spill_bytes));
        json_object_set_new(o, "stack_bytes", json_integer(k->stack));
    }
    if (k->have_stats || k->have_ptxas) json_object_set_new(o, "smem_bytes", json_integer(k->smem));
    return o;
}

static void path_join(char *out, size_t n, const char *dir, const char *name, const char *suffix) {
    snprintf(out, n, "%s/%s%s", dir, name, suffix);
}

/* Write `text` to path atomically; false with a note (and *rc->write_failed: the build's exit
 * status becomes 2, a full disk fails the build rather than leave a report that says less
 * than it should). */
static bool write_text(const run_ctx *rc, const char *path, const char *text) {
    pg_buf log = {0};
    pg_diag_sink sink = {diag_to_buf, &log, 0, 0, 5};
    pg_status st = pg_write_file_atomic(path, text, strlen(text), &sink);
    if (st != PG_OK) pipe_note(rc->notes, TAG ": cannot write %s: %s", path, log.data ? log.data : "\n");
    if (st != PG_OK) *rc->write_failed = true;
    pg_buf_free(&log);
    return st == PG_OK;
}

/* Without a GPU (or when the differential test is inconclusive: `unverified` says which)
 * there is no evidence that a candidate computes the same thing or runs faster, so it
 * must at least pass `ptxgen gate` against the baseline (eval_gate_compare: instructions,
 * registers, spills, shared memory, float precision) with a verdict of improved or
 * neutral; regressed or failed candidates are discarded.  Adds "gate" to k; on
 * rejection the reason goes to reason[].  true: keep. */
static bool gate_against_baseline(json_t *k, const char *unverified, const char *base_text, const char *base_path,
                                  const char *ctext, const char *cand_path, const char *kernel, char *reason, size_t rn,
                                  char *label, size_t ln) {
    char pair[600];
    snprintf(pair, sizeof pair, "%s=%s", kernel, kernel);
    const char *pairs[1] = {pair};
    eval_gate_opts go;
    eval_gate_opts_default(&go);
    go.pairs = pairs;
    go.npairs = 1;
    go.only_paired = true;   /* the baseline module's other kernels are not this comparison */
    go.baseline_name = base_path;
    go.candidate_name = cand_path;
    eval_gate_result gr;
    pg_buf log = {0};
    pg_diag_sink sink = {diag_to_buf, &log, 0, 0, 5};
    pg_status st = eval_gate_compare(base_text, strlen(base_text), ctext, strlen(ctext), &go, &gr, &sink);
    const eval_gate_kernel *gk = gr.nkernels == 1 ? &gr.kernels[0] : NULL;
    json_t *g = json_object();
    bool keep = st == PG_OK && gr.pass && gk && (gk->verdict == EVAL_GATE_IMPROVED || gk->verdict == EVAL_GATE_NEUTRAL);
    if (gk) {
        json_object_set_new(g, "verdict", json_string(eval_gate_verdict_name(gk->verdict)));
        json_object_set_new(g, "inst_ratio", json_real(gk->inst_ratio));
        json_object_set_new(g, "reg_ratio", json_real(gk->reg_ratio));
        if (gk->reasons[0]) json_object_set_new(g, "reasons", json_string(gk->reasons));
    } else {
        json_object_set_new(g, "verdict", json_string("not compared"));
    }
    json_object_set_new(g, "ptxas", json_boolean(gr.ptxas_used));
    if (gr.error[0] || log.len) json_object_set_new(g, "error", json_string(gr.error[0] ? gr.error : log.data));
    json_object_set_new(k, "gate", g);
    if (keep) {
        snprintf(label, ln, "unverified (%.200s); passes the gate: %s, instructions %.2fx, registers %.2fx of the baseline",
                 unverified, eval_gate_verdict_name(gk->verdict), gk->inst_ratio, gk->reg_ratio);
    } else if (gk) {
        snprintf(reason, rn, "unverified (%.200s), and the gate against the baseline says %s: %.600s", unverified,
                 eval_gate_verdict_name(gk->verdict), gk->reasons[0] ? gk->reasons : "not an improvement");
    } else {
        snprintf(reason, rn, "unverified (%.200s), and the gate could not compare it with the baseline: %.600s", unverified,
                 gr.error[0] ? gr.error : log.data ? log.data : "no verdict");
    }
    eval_gate_result_free(&gr);
    pg_buf_free(&log);
    return keep;
}

static json_t *try_kernel(const run_ctx *rc, const char *base_path, const char *base_text, const ptx_module *bm,
                          const char *kernel, int seed, const char *try_label) {
    json_t *k = json_object();
    json_object_set_new(k, "kernel", json_string(kernel));
    json_object_set_new(k, "source", json_string(rc->source));
    json_object_set_new(k, "baseline_ptx", json_string(base_path));
    kmeasure bmeas = {0}, cmeas = {0};
    measure_stats(bm, kernel, &bmeas);
    measure_ptxas(base_path, bm, kernel, &bmeas);
    json_object_set_new(k, "baseline", measure_json(&bmeas));
    const ptx_func *bf0 = find_entry(bm, kernel);
    if (bf0) {   /* what the differential test passes: element types read off the baseline */
        task_ptx_param *sp0 = calloc((size_t)bf0->nparams + 1, sizeof *sp0);
        task_ptx_params(bf0, sp0);
        json_t *sig = json_array();
        for (int i = 0; i < bf0->nparams && i < TASK_PTX_MAX_PARAMS; i++) {
            char t[32];
            snprintf(t, sizeof t, "%s%s", sp0[i].unsupported ? "unsupported" : task_dtype_name(sp0[i].dtype),
                     sp0[i].is_pointer ? "*" : "");
            json_array_append_new(sig, json_string(t));
        }
        free(sp0);
        json_object_set_new(k, "diff_signature", sig);
    }

    char cand[PATH_MAX], kept[PATH_MAX], rej[PATH_MAX], gout[PATH_MAX], gerr[PATH_MAX];
    snprintf(cand, sizeof cand, "%s/.%s_superopt.gen.ptx", rc->outdir, kernel);
    path_join(kept, sizeof kept, rc->outdir, kernel, "_superopt.ptx");
    path_join(rej, sizeof rej, rc->outdir, kernel, "_superopt.rejected.ptx");
    snprintf(gout, sizeof gout, "%s/.%s_gen.out", rc->outdir, kernel);
    snprintf(gerr, sizeof gerr, "%s/.%s_gen.err", rc->outdir, kernel);
    unlink(cand);
    const char *arch = bm->ntargets ? bm->targets[0] : "sm_80";
    char seedtxt[32];
    snprintf(seedtxt, sizeof seedtxt, "%d", seed);
    char *gargv[] = {(char *)rc->gen_bin, "gen", "--baseline", (char *)base_path, "--kernel", (char *)kernel,
                     "--arch", (char *)arch, "--seed", seedtxt, "-o", cand, "--json", NULL};
    int grc = rc->gen_bin ? pipe_spawn_wait(gargv, gout, gerr) : gen_in_child(rc, base_path, kernel, arch, seed, cand, gout, gerr);
    char *gtext = slurp(gout), *etext = slurp(gerr);
    unlink(gout);
    unlink(gerr);
    json_error_t je;
    json_t *gj = gtext && *gtext ? json_loads(gtext, 0, &je) : NULL;
    json_t *gen = json_object();
    json_object_set_new(gen, "exit_code", json_integer(grc));
    if (gj) json_object_set_new(gen, "result", gj);
    if (etext && *etext) json_object_set_new(gen, "stderr", json_stringn(etext, strlen(etext) > 2000 ? 2000 : strlen(etext)));
    json_object_set_new(k, "gen", gen);

    char *ctext = slurp(cand);
    unlink(cand);
    const char *status, *reason = "";
    char reason_buf[1024] = "", label[512] = "";
    pg_buf diags = {0};
    bool keep = false, sig_mismatch = false;
    eval_funnel_result fr;
    memset(&fr, 0, sizeof fr);
    if (!ctext) {
        status = "not generated";
        snprintf(reason_buf, sizeof reason_buf, "ptxgen gen exited %d without writing a candidate%s%.300s", grc,
                 etext && *etext ? ": " : "", etext ? etext : "");
        size_t L = strlen(reason_buf);
        while (L && (reason_buf[L - 1] == '\n' || reason_buf[L - 1] == ' ')) reason_buf[--L] = 0;
        reason = reason_buf;
        json_object_set_new(k, "check", json_string("not run"));
        json_object_set_new(k, "ptxas", json_string("not run"));
    } else {
        /* 1.-2. the funnel: libptx check, the baseline's signature (callers pass the same
         * arguments), ptxas.  ptxas reads a file: the candidate goes where it stays if rejected. */
        const ptx_func *bf = find_entry(bm, kernel);
        pg_diag_sink sink = {diag_to_buf, &diags, 0, 0, 50};
        eval_funnel_opts fo = {.ptxas = write_text(rc, rej, ctext), .diag = &sink, .same_as = bf};
        eval_funnel_in fi = {ctext, NULL, rej, NULL};
        eval_funnel(&fi, NULL, &fo, &fr);
        const ptx_module *cm = fr.module;
        bool check_ok = fr.check;
        if (fr.missing_entry) pg_buf_printf(&diags, "%s: the candidate has no .entry %s\n", rej, kernel);
        if (fr.signature_differs) {
            const ptx_func *cf = find_entry(cm, kernel);
            sig_mismatch = true;
            pg_buf_printf(&diags, "%s:%d:%d: the candidate's parameters differ from the baseline's signature\n", rej,
                          cf->loc.line, cf->loc.col);
        }
        json_object_set_new(k, "check", json_string(check_ok ? "pass" : "fail"));
        bool ptxas_ok = check_ok && fr.ptxas_ok;
        if (check_ok) {
            measure_stats(cm, kernel, &cmeas);
            measure_report(&fr.ptxas, kernel, &cmeas);
            if (!ptxas_ok && !fr.ptxas.ran) pg_buf_puts(&diags, "ptxas not found\n");
            if (!ptxas_ok && fr.ptxas.ran && fr.ptxas.log) pg_buf_printf(&diags, "%.4000s", fr.ptxas.log);
            json_object_set_new(k, "ptxas", json_string(ptxas_ok ? "pass" : "fail"));
        } else {
            json_object_set_new(k, "ptxas", json_string("not run"));
        }
        json_object_set_new(k, "candidate", measure_json(&cmeas));
        if (!check_ok || !ptxas_ok) {
            status = "rejected";
            snprintf(reason_buf, sizeof reason_buf, "%s", check_ok ? "ptxas rejected it"
                     : sig_mismatch ? "its signature differs from the baseline's (callers pass the same arguments)"
                     : "libptx check failed");
            reason = reason_buf;
        } else if (!rc->gpu) {
            keep = gate_against_baseline(k, "no GPU", base_text, base_path, ctext, rej, kernel, reason_buf, sizeof reason_buf,
                                         label, sizeof label);
            status = keep ? "kept" : "rejected";
            reason = keep ? "" : reason_buf;
        } else {
            /* 3. the differential test against the baseline */
            task_ptx_param *sp = calloc((size_t)bf->nparams + 1, sizeof *sp);
            task_ptx_params(bf, sp);
            int unsup = -1;
            for (int i = 0; i < bf->nparams; i++)
                if (sp[i].unsupported) unsup = i;
            json_t *gd = json_object();
            int block = rc->block ? rc->block : task_ptx_block(bf, 256);
            task_spec *ss = NULL;
            if (unsup >= 0 || task_from_ptx(bf, sp, rc->n, block, &ss, NULL) != PG_OK) {
                json_object_set_new(gd, "status", json_string("inconclusive"));
                json_object_set_new(gd, "detail", json_string("a by-value struct/array parameter: the synthetic inputs do not cover it"));
            } else {
                bool timed_out = false;
                json_t *r = gpu_run_diff(ss, base_text, ctext, 5, rc->timeout_s, &timed_out);
                if (timed_out) {
                    char why[96];
                    snprintf(why, sizeof why, "killed by the watchdog after %d s (--ptxgen-timeout)", rc->timeout_s);
                    json_object_set_new(r, "detail", json_string(why));
                }
                json_object_update(gd, r);
                json_decref(r);
                json_t *params = json_array();
                for (int i = 0; i < bf->nparams; i++)
                    json_array_append_new(params, json_string(sp[i].is_pointer ? task_dtype_name(sp[i].dtype) : "scalar"));
                json_object_set_new(gd, "pointer_types", params);
                json_object_set_new(gd, "n", json_integer(rc->n));
                json_object_set_new(gd, "block", json_integer(block));
                json_object_set_new(gd, "seeds", json_integer(5));
            }
            task_free(ss);
            free(sp);
            const char *gs = json_string_value(json_object_get(gd, "status"));
            const char *det = json_string_value(json_object_get(gd, "detail"));
            double bms = json_number_value(json_object_get(gd, "baseline_ms"));
            double cms = json_number_value(json_object_get(gd, "candidate_ms"));
            if (bms > 0 && cms > 0) json_object_set_new(gd, "speedup", json_real(bms / cms));
            json_object_set_new(k, "gpu", gd);
            if (gs && !strcmp(gs, "pass")) {
                status = "kept";
                keep = true;
                snprintf(label, sizeof label, "verified (GPU, 5 seeds, matches the baseline)");
            } else if (gs && (!strcmp(gs, "baseline-fault") || !strcmp(gs, "inconclusive") || !strcmp(gs, "setup-error") ||
                              !strcmp(gs, "no-gpu"))) {
                char why[300];
                snprintf(why, sizeof why, "differential test inconclusive: %.200s", det ? det : gs);
                keep = gate_against_baseline(k, why, base_text, base_path, ctext, rej, kernel, reason_buf, sizeof reason_buf, label,
                                             sizeof label);
                status = keep ? "kept" : "rejected";
                reason = keep ? "" : reason_buf;
            } else {
                status = "rejected";
                snprintf(reason_buf, sizeof reason_buf, "differential test: %s: %.400s", gs ? gs : "?", det ? det : "");
                reason = reason_buf;
            }
        }
        if (keep) {
            if (write_text(rc, kept, ctext)) unlink(rej);
        } else {
            write_text(rc, rej, ctext);
            unlink(kept);   /* a stale kept file from an earlier build would mislead */
        }
    }
    json_object_set_new(k, "status", json_string(status));
    if (keep) {
        json_object_set_new(k, "candidate_ptx", json_string(kept));
        json_object_set_new(k, "label", json_string(label));
    } else {
        json_object_set_new(k, "candidate_ptx", ctext ? json_string(rej) : json_null());
        json_object_set_new(k, "label", json_string(status));
        json_object_set_new(k, "reason", json_string(reason));
    }
    if (diags.len) json_object_set_new(k, "diagnostics", json_string(diags.data));
    if (bmeas.have_stats && cmeas.have_stats && bmeas.instructions > 0)
        json_object_set_new(k, "inst_count_ratio", json_real((double)cmeas.instructions / bmeas.instructions));
    if (bmeas.have_ptxas && cmeas.have_ptxas && bmeas.registers > 0)
        json_object_set_new(k, "reg_usage_ratio", json_real((double)cmeas.registers / bmeas.registers));
    pipe_note(rc->notes, TAG ": %s%s: %s%s%s\n", kernel, try_label, status, keep ? ", " : (reason[0] ? ": " : ""),
            keep ? label : reason);
    pg_buf_free(&diags);
    eval_funnel_result_free(&fr);
    free(ctext);
    free(gtext);
    free(etext);
    return k;
}

/* Up to rc->tries candidates (gen seeds 1, 17, 33 ...; gen itself resamples on a failed
 * check with the seeds in between): the first one kept wins, and the report lists every try. */
static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static json_t *do_kernel(const run_ctx *rc, const char *base_path, const char *base_text, const ptx_module *bm,
                         const char *kernel) {
    double t0 = now_s();
    json_t *k = NULL, *tries = json_array();
    int n = rc->tries > 0 ? rc->tries : 1;
    for (int t = 0; t < n; t++) {
        char lbl[48] = "";
        if (n > 1) snprintf(lbl, sizeof lbl, " (try %d/%d)", t + 1, n);
        json_decref(k);
        k = try_kernel(rc, base_path, base_text, bm, kernel, 1 + 16 * t, lbl);
        const char *st = json_string_value(json_object_get(k, "status"));
        json_t *reason = json_object_get(k, "reason");
        json_array_append_new(tries, json_pack("{s:i, s:s, s:O?}", "seed", 1 + 16 * t, "status", st ? st : "?", "reason",
                                               json_is_string(reason) ? reason : NULL));
        if (st && !strcmp(st, "kept")) break;
    }
    json_object_set_new(k, "tries", tries);
    /* what the wrapper cost this build for this kernel: generation, checks, gate or GPU test */
    double secs = now_s() - t0;
    json_object_set_new(k, "added_seconds", json_real(secs));
    pipe_note(rc->notes, TAG ": %s: the extra step added %.1f s to the build\n", kernel, secs);
    return k;
}

/* ---- the report ---------------------------------------------------------------------------- */
static void md_num(pg_buf *md, json_t *o, const char *key) {
    json_t *v = json_object_get(o, key);
    if (json_is_integer(v)) pg_buf_printf(md, "%lld", (long long)json_integer_value(v));
    else pg_buf_puts(md, "–");
}

static void md_escape(pg_buf *md, const char *s) {
    for (; s && *s; s++) {
        if (*s == '|') pg_buf_puts(md, "\\|");
        else if (*s == '\n') pg_buf_puts(md, "<br>");
        else pg_buf_putc(md, *s);
    }
}

static bool write_markdown(const run_ctx *rc, json_t *rep, const char *path) {
    pg_buf md = {0};
    pg_buf_printf(&md, "# ptxgen-nvcc report\n\nGenerated %s by `ptxgen-nvcc` (ptxgen %s). GPU: %s.\n\n",
                  json_string_value(json_object_get(rep, "date")), rc->in->version,
                  json_string_value(json_object_get(rep, "gpu")));
    size_t i;
    json_t *k;
    double total = 0;
    json_array_foreach(json_object_get(rep, "kernels"), i, k) total += json_number_value(json_object_get(k, "added_seconds"));
    size_t nk = json_array_size(json_object_get(rep, "kernels"));
    pg_buf_printf(&md, "The extra step (baseline, generation, checks) added %.1f s to the build for %zu kernel%s (%.1f s per kernel).\n\n",
                  total, nk, nk == 1 ? "" : "s", nk ? total / (double)nk : 0.0);
    pg_buf_puts(&md, "| kernel | verdict | check | ptxas | instructions (base → cand) | registers | smem bytes | spill bytes | time ms (base → cand) | added s |\n");
    pg_buf_puts(&md, "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    json_array_foreach(json_object_get(rep, "kernels"), i, k) {
        json_t *b = json_object_get(k, "baseline"), *c = json_object_get(k, "candidate"), *g = json_object_get(k, "gpu");
        pg_buf_puts(&md, "| `");
        md_escape(&md, json_string_value(json_object_get(k, "kernel")));
        pg_buf_puts(&md, "` | ");
        md_escape(&md, json_string_value(json_object_get(k, "label")));
        pg_buf_printf(&md, " | %s | %s |", json_string_value(json_object_get(k, "check")),
                      json_string_value(json_object_get(k, "ptxas")));
        const char *keys[] = {"instructions", "registers", "smem_bytes", "spill_bytes"};
        for (int q = 0; q < 4; q++) {
            pg_buf_putc(&md, ' ');
            md_num(&md, b, keys[q]);
            pg_buf_puts(&md, " → ");
            md_num(&md, c, keys[q]);
            pg_buf_puts(&md, " |");
        }
        double bms = json_number_value(json_object_get(g, "baseline_ms")), cms = json_number_value(json_object_get(g, "candidate_ms"));
        if (bms > 0 && cms > 0) pg_buf_printf(&md, " %.4f → %.4f (%.2f×) |", bms, cms, bms / cms);
        else pg_buf_puts(&md, " not measured |");
        pg_buf_printf(&md, " %.1f |\n", json_number_value(json_object_get(k, "added_seconds")));
    }
    json_array_foreach(json_object_get(rep, "kernels"), i, k) {
        const char *reason = json_string_value(json_object_get(k, "reason"));
        const char *diags = json_string_value(json_object_get(k, "diagnostics"));
        json_t *g = json_object_get(k, "gpu");
        pg_buf_printf(&md, "\n## `%s`\n\n- source: `%s`\n- baseline: `%s`\n", json_string_value(json_object_get(k, "kernel")),
                      json_string_value(json_object_get(k, "source")), json_string_value(json_object_get(k, "baseline_ptx")));
        const char *cp = json_string_value(json_object_get(k, "candidate_ptx"));
        pg_buf_printf(&md, "- candidate: %s%s%s\n- verdict: %s\n", cp ? "`" : "", cp ? cp : "none", cp ? "`" : "",
                      json_string_value(json_object_get(k, "label")));
        if (reason && *reason) pg_buf_printf(&md, "- reason: %s\n", reason);
        json_t *tries = json_object_get(k, "tries"), *tr;
        size_t ti;
        if (json_array_size(tries) > 1) {
            pg_buf_printf(&md, "- tries: %zu;", json_array_size(tries));
            json_array_foreach(tries, ti, tr)
                pg_buf_printf(&md, "%s seed %lld %s", ti ? "," : "", (long long)json_integer_value(json_object_get(tr, "seed")),
                              json_string_value(json_object_get(tr, "status")));
            pg_buf_puts(&md, "\n");
        }
        json_t *r1 = json_object_get(k, "inst_count_ratio"), *r2 = json_object_get(k, "reg_usage_ratio");
        if (r1) pg_buf_printf(&md, "- inst_count_ratio: %.3f\n", json_number_value(r1));
        json_t *gt = json_object_get(k, "gate");
        if (gt) {
            pg_buf_printf(&md, "- gate against the baseline: %s", json_string_value(json_object_get(gt, "verdict")));
            const char *gr = json_string_value(json_object_get(gt, "reasons"));
            if (gr && *gr) pg_buf_printf(&md, " (%s)", gr);
            pg_buf_puts(&md, "\n");
        }
        if (r2) pg_buf_printf(&md, "- reg_usage_ratio: %.3f\n", json_number_value(r2));
        if (g) {
            pg_buf_printf(&md, "- differential test: %s", json_string_value(json_object_get(g, "status")));
            const char *det = json_string_value(json_object_get(g, "detail"));
            if (det && *det) pg_buf_printf(&md, " (%s)", det);
            pg_buf_printf(&md, "; n = %lld, block = %lld\n", (long long)json_integer_value(json_object_get(g, "n")),
                          (long long)json_integer_value(json_object_get(g, "block")));
        }
        if (diags && *diags) pg_buf_printf(&md, "\n```\n%s```\n", diags);
    }
    bool ok = write_text(rc, path, md.data);
    pg_buf_free(&md);
    return ok;
}

/* Merge this run's kernels into an existing report of the same folder (a
 * build compiles files one by one), replacing entries of the same kernel. */
static void write_report(const char *outdir, json_t *kernels, const run_ctx *rc) {
    char jpath[PATH_MAX + 32], mpath[PATH_MAX + 32];
    snprintf(jpath, sizeof jpath, "%s/ptxgen_report.json", outdir);
    snprintf(mpath, sizeof mpath, "%s/ptxgen_report.md", outdir);
    json_error_t e;
    json_t *old = json_load_file(jpath, 0, &e);
    json_t *all = json_array();
    json_t *oldk = old ? json_object_get(old, "kernels") : NULL;
    size_t i, j;
    json_t *x, *y;
    json_array_foreach(oldk, i, x) {
        bool replaced = false;
        json_array_foreach(kernels, j, y)
            if (json_equal(json_object_get(x, "kernel"), json_object_get(y, "kernel"))) replaced = true;
        if (!replaced && json_is_object(x)) json_array_append(all, x);
    }
    json_array_extend(all, kernels);
    json_decref(old);
    json_t *rep = json_object();
    time_t now = time(NULL);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    json_object_set_new(rep, "tool", json_string("ptxgen-nvcc"));
    json_object_set_new(rep, "version", json_string(rc->in->version));
    json_object_set_new(rep, "date", json_string(date));
    json_object_set_new(rep, "nvcc", json_string(rc->in->nvcc));
    json_t *args = json_array();
    for (int k = 0; k < rc->in->nnvcc_args; k++) json_array_append_new(args, json_string(rc->in->nvcc_args[k]));
    json_object_set_new(rep, "nvcc_args", args);
    char g[320];
    snprintf(g, sizeof g, "%s", rc->gpu ? "present" : rc->gpu_why);
    json_object_set_new(rep, "gpu", json_string(g));
    json_object_set_new(rep, "kernels", all);
    char *s = json_dumps(rep, JSON_INDENT(2));
    pg_buf b = {0};
    pg_buf_printf(&b, "%s\n", s);
    free(s);
    bool ok = write_text(rc, jpath, b.data);
    pg_buf_free(&b);
    ok = write_markdown(rc, rep, mpath) && ok;
    json_decref(rep);
    if (ok) pipe_note(rc->notes, TAG ": report: %s\n", mpath);
}

/* ---- the extra step for one .cu file ---------------------------------------------------- */
static void superopt_source(const char *cu, const run_ctx *base_rc, json_t *kernels) {
    const pipe_superopt_in *a = base_rc->in;
    char tmp[PATH_MAX], log[PATH_MAX + 8];
    snprintf(tmp, sizeof tmp, "%s/.ptxgen-baseline-XXXXXX", base_rc->outdir);
    int fd = mkstemp(tmp);
    if (fd < 0) { pipe_note(base_rc->notes, TAG ": cannot create a file in %s: %s\n", base_rc->outdir, strerror(errno)); return; }
    close(fd);
    snprintf(log, sizeof log, "%s.log", tmp);
    strvec av = {0};
    pg_vec_push(av, (char *)a->nvcc);
    pg_vec_push(av, "-ptx");
    pg_vec_push(av, "-O3");
    char archf[80];
    if (a->arch && a->arch[0]) {
        snprintf(archf, sizeof archf, "-arch=%s", a->arch);
        pg_vec_push(av, archf);
    }
    for (int i = 0; i < a->nptxflags; i++) pg_vec_push(av, (char *)a->ptxflags[i]);
    pg_vec_push(av, "-o");
    pg_vec_push(av, tmp);
    pg_vec_push(av, (char *)cu);
    pg_vec_push(av, NULL);
    int rc = pipe_spawn_wait(av.v, log, log);
    pg_vec_free(av);
    char *text = rc == 0 ? slurp(tmp) : NULL;
    if (!text) {
        char *l = slurp(log);
        pipe_note(base_rc->notes, TAG ": %s: nvcc -ptx failed (%d); no baseline: %.500s\n", cu, rc, l ? l : "");
        free(l);
    }
    unlink(tmp);
    unlink(log);
    if (!text) return;
    ptx_module *m = NULL;
    pg_buf d = {0};
    pg_diag_sink sink = {diag_to_buf, &d, 0, 0, 20};
    if (ptx_parse(text, strlen(text), cu, &m, &sink) != PG_OK || ptx_validate(m, &sink) != PG_OK)
        pipe_note(base_rc->notes, TAG ": %s: libptx does not accept nvcc's PTX (a libptx gap, please report):\n%s", cu, d.data ? d.data : "");
    pg_buf_free(&d);
    run_ctx rc2 = *base_rc;
    rc2.source = cu;
    int nentries = 0;
    for (int i = 0; m && i < m->nfuncs; i++) {
        const ptx_func *f = &m->funcs[i];
        if (!f->is_entry || !f->has_body) continue;
        nentries++;
        char bpath[PATH_MAX];
        path_join(bpath, sizeof bpath, base_rc->outdir, f->name, "_baseline.ptx");
        if (!write_text(base_rc, bpath, text)) continue;
        json_array_append_new(kernels, do_kernel(&rc2, bpath, text, m, f->name));
    }
    if (!nentries) pipe_note(base_rc->notes, TAG ": %s: no kernels (.entry) in nvcc's PTX\n", cu);
    ptx_module_free(m);
    free(text);
}


int pipe_superopt_run(const pipe_superopt_in *in, const pipe_notes *notes, bool *write_failed) {
    run_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    bool failed = false;
    ctx.in = in;
    ctx.notes = notes;
    ctx.write_failed = &failed;
    ctx.outdir = in->outdir;
    ctx.n = in->n;
    ctx.block = in->block;
    ctx.tries = in->tries;
    ctx.timeout_s = in->timeout_s;
    ctx.gen_bin = in->gen_bin && *in->gen_bin ? in->gen_bin : NULL;
    ctx.default_model = in->default_model;
    ctx.gpu = gpu_available(ctx.gpu_why, sizeof ctx.gpu_why);
    json_t *kernels = json_array();
    unsigned io0 = pg_io_failures();
    for (int i = 0; i < in->ncu; i++) superopt_source(in->cu[i], &ctx, kernels);
    int nk = (int)json_array_size(kernels);
    unsigned io = pg_io_failures() - io0;
    if (io && !failed) {   /* a temporary file for ptxas or the gate was not written: its verdict is no verdict */
        pipe_note(notes, TAG ": %u temporary file%s could not be written during the extra step (a full disk?); no report, "
                         "the build's exit status is 2\n", io, io == 1 ? "" : "s");
        failed = true;
    }
    if (nk && !failed) write_report(in->outdir, kernels, &ctx);   /* not a report of a run cut short */
    json_decref(kernels);
    if (write_failed) *write_failed = failed;
    return nk;
}
