/* eval.c — `ptxgen eval`: the held-out suite through the whole funnel
 *   generated -> validator -> ptxas -> loads -> correct on every input set -> speed vs nvcc
 * for each task x description style x config (full, no-constraint, no-bias)
 * x sample, following the protocol in docs/DESIGN.md.  Results are one JSON
 * document rewritten atomically after every case, so a run resumes where it
 * stopped and an interrupted run still leaves a readable file. */
#include "ptxgen/eval.h"
#include "ptxgen/twin.h"
#include "ptxgen/gpu.h"
#include "ptxgen/ptx.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void eval_opts_default(eval_opts *o) {
    memset(o, 0, sizeof *o);
    o->samples = 1;
    o->configs = (1u << EVAL_NCONFIGS) - 1;
    o->timing = true;
    o->styles = (1u << TASK_NSTYLES) - 1;
    gen_opts_default(&o->gen);
}


unsigned eval_styles_parse(const char *list, char *bad, size_t badsz) {
    unsigned m = 0;
    if (bad && badsz) bad[0] = 0;
    for (const char *p = list; p && *p;) {
        size_t n = strcspn(p, ",");
        int k = 0;
        while (k < TASK_NSTYLES && !(strlen(task_styles[k]) == n && !strncmp(p, task_styles[k], n))) k++;
        if (k == TASK_NSTYLES) {
            if (bad && badsz) snprintf(bad, badsz, "%.*s", (int)(n < 64 ? n : 64), p);
            return 0;
        }
        m |= 1u << k;
        p += n + (p[n] == ',');
    }
    return m;
}

const char *const eval_configs[EVAL_NCONFIGS] = {"full", "no_constraint", "no_bias"};

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* task folders of the suite, sorted, filtered by --only and --shard */
static int list_tasks(const eval_opts *o, char ***out, pg_diag_sink *diag) {
    DIR *d = opendir(o->suite_dir);
    if (!d) { pg_diag_emit(diag, PG_E_EVAL, o->suite_dir, 0, 0, "cannot open the suite folder"); return -1; }
    PG_VEC(char *) v = {0};
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s/task.json", o->suite_dir, e->d_name);
        if (access(p, R_OK) != 0) continue;
        if (o->only) {
            size_t n = strlen(e->d_name);
            const char *s = o->only;
            bool hit = false;
            while (*s && !hit) {
                size_t k = strcspn(s, ",");
                hit = k == n && !strncmp(s, e->d_name, n);
                s += k + (s[k] == ',');
            }
            if (!hit) continue;
        }
        pg_vec_push(v, strdup(e->d_name));
    }
    closedir(d);
    if (v.n > 1) qsort(v.v, (size_t)v.n, sizeof *v.v, cmp_str);   /* v.v is NULL when nothing matched */
    if (o->nshards > 1) {
        int k = 0;
        for (int i = 0; i < v.n; i++) {
            if (i % o->nshards == o->shard) v.v[k++] = v.v[i];
            else free(v.v[i]);
        }
        v.n = k;
    }
    *out = v.v;
    return v.n;
}


static json_t *find_row(json_t *rows, const char *task, const char *style, const char *cfg, int sample) {
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r) {
        if (!strcmp(json_string_value(json_object_get(r, "task")), task) &&
            !strcmp(json_string_value(json_object_get(r, "description")), style) &&
            !strcmp(json_string_value(json_object_get(r, "config")), cfg) &&
            json_integer_value(json_object_get(r, "sample")) == sample)
            return r;
    }
    return NULL;
}

static void funnel_timing_json(const eval_funnel_result *r, json_t *row) {
    json_object_set_new(row, "speedup", json_real(r->speedup));
    json_object_set_new(row, "ms", json_real(r->ms));
    json_object_set_new(row, "baseline_ms", json_real(r->baseline_ms));
    json_object_set_new(row, "pct_of_ceiling", json_real(r->pct_of_ceiling));
    json_object_set_new(row, "faster_than_light", json_boolean(r->faster_than_light));
    json_object_set_new(row, "memory_bound", json_boolean(r->memory_bound));
}

void eval_funnel_json(const eval_funnel_result *r, json_t *row) {
    if (r->registers >= 0) json_object_set_new(row, "registers", json_integer(r->registers));
    if (r->spill_bytes >= 0) json_object_set_new(row, "spill_bytes", json_integer(r->spill_bytes));
    if (r->gpu_status) json_object_set_new(row, "gpu_status", json_string(r->gpu_status));
    json_object_set_new(row, "check", json_boolean(r->check));
    json_object_set_new(row, "ptxas", r->ptxas_ran ? json_boolean(r->ptxas_ok) : json_string("not run"));
    json_object_set_new(row, "loads", r->gpu_ran ? json_boolean(r->loads) : json_string("not run"));
    json_object_set_new(row, "correct", r->gpu_ran ? json_boolean(r->correct) : json_string("not run"));
    if (r->correct) json_object_set_new(row, "worst_rel_l2", json_real(r->worst_rel_l2));
    if (r->speedup > 0) funnel_timing_json(r, row);
    if (r->hygiene) json_object_set_new(row, "hygiene", json_string(r->hygiene));
    json_object_set_new(row, "last_stage", json_string(r->stage));
    json_object_set_new(row, "detail", json_string(r->detail));
    /* where a verification's time goes (wall clock: named *_seconds, as every timing field is) */
    json_object_set_new(row, "static_seconds", json_real(r->static_s));
    json_object_set_new(row, "ptxas_seconds", json_real(r->ptxas_s));
    json_object_set_new(row, "gpu_seconds", json_real(r->gpu_s));
    if (r->gpu_ran) {   /* what this check started and built itself (0 where a task's memo had them already) */
        json_object_set_new(row, "gpu_cuda_starts", json_integer(r->gpu_cuda_starts));
        json_object_set_new(row, "gpu_refs_built", json_integer(r->gpu_refs));
    }
}

/* A kernel generated elsewhere (eval_opts.kernels_dir) as if gen_sample had
 * made it: PG_ERR_IO when there is none (a "generation" failure). */
static pg_status read_generated(const char *dir, const char *task, const char *style, const char *cfg, int sample,
                                gen_result *r) {
    memset(r, 0, sizeof *r);
    pg_buf p = {0};
    pg_buf_printf(&p, "%s/%s.%s.%s.%d.ptx", dir, task, style, cfg, sample);
    char *text = NULL;
    size_t len = 0;
    pg_diag_sink quiet = {0};
    pg_status st = pg_read_file(p.data, 16u << 20, &text, &len, &quiet);
    if (st == PG_OK) {
        r->ptx = text;
        /* the generator's sidecar: {"gen_tokens", "forced_tokens", "seconds", "finished"} */
        p.len -= 4;
        p.data[p.len] = 0;
        pg_buf_puts(&p, ".json");
        json_t *j = json_load_file(p.data, 0, NULL);
        if (json_is_object(j)) {
            r->gen_tokens = (int)json_integer_value(json_object_get(j, "gen_tokens"));
            r->forced_tokens = (int)json_integer_value(json_object_get(j, "forced_tokens"));
            r->seconds = json_number_value(json_object_get(j, "seconds"));
            r->finished = json_is_true(json_object_get(j, "finished"));
        }
        json_decref(j);
    }
    pg_buf_free(&p);
    return st == PG_OK ? PG_OK : PG_ERR_IO;
}

/* A twin beside a kernel of --kernels (<case>.cu): with a GPU the PTX runs against it on the
 * task's own sizes (twin_task_view: the task with the twin as its cu reference), so the row
 * says whether PTX and twin agree next to whether the PTX is correct against the real
 * reference; without a GPU only whether nvcc compiles the twin.  Row field "twin":
 * {"verdict": twin_verdict_name, "detail"}; nothing when there is no twin. */
/* --twin-own: the twin's own nvcc PTX against the task's real reference (GPU only).  When nvcc
 * rejects the twin, nvcc_err gets its first error line (twin_case reuses it: no second compile). */
static void twin_own_case(const eval_opts *o, bool have_ptxas, const task_spec *t, const char *cu_path, json_t *row,
                          char *nvcc_err, size_t cap) {
    pg_diag_sink quiet = {0};
    twin_build b;
    if (twin_compile(cu_path, o->gen.arch ? o->gen.arch : "sm_80", &b, &quiet) != PG_OK) b.status = TWIN_BUILD_FAILED;
    json_t *own;
    if (b.status != TWIN_BUILD_OK) {
        own = json_pack("{s:b, s:s}", "correct", 0, "stage", b.status == TWIN_BUILD_NO_NVCC ? "no-nvcc" : "nvcc");
        if (b.status == TWIN_BUILD_FAILED) {
            if (b.log && *b.log) twin_log_first_error(b.log, nvcc_err, cap);
            else snprintf(nvcc_err, cap, "nvcc rejects the twin");
        }
    } else {
        /* ptxas too: the funnel runs the GPU only after ptxas passed (without it the twin was never run) */
        eval_funnel_opts fo = {.arch = o->gen.arch, .ptxas = have_ptxas, .gpu = true};
        eval_funnel_in fi = {b.ptx, NULL, NULL, "<twin ptx>"};
        eval_funnel_result r;
        eval_funnel(&fi, t, &fo, &r);
        own = json_pack("{s:b, s:s, s:s}", "correct", r.correct, "stage", r.stage ? r.stage : "?", "detail", r.detail);
        eval_funnel_result_free(&r);
    }
    json_object_set_new(row, "twin_own", own);
    twin_build_free(&b);
}

static void twin_case(const eval_ctx *c, const task_spec *t, const char *style, int cfg, int sample, const char *ptx_path,
                      const eval_funnel_result *fr, json_t *row) {
    const eval_opts *o = c->o;
    pg_buf name = {0}, path = {0};
    pg_buf_printf(&name, "%s.%s.%s.%d.cu", t->name, style, eval_configs[cfg], sample);
    pg_buf_printf(&path, "%s/%s", o->kernels_dir, name.data);
    if (access(path.data, R_OK) != 0) { pg_buf_free(&name); pg_buf_free(&path); return; }
    twin_verdict v;
    char detail[700] = "";
    pg_diag_sink quiet = {0};
    if (!fr->check || (fr->ptxas_ran && !fr->ptxas_ok)) {
        v = TWIN_V_NOT_RUN;
        snprintf(detail, sizeof detail, "the PTX did not pass %s", fr->check ? "ptxas" : "the validator");
    } else if (!c->have_gpu) {
        twin_build b;
        if (twin_compile(path.data, o->gen.arch ? o->gen.arch : "sm_80", &b, &quiet) != PG_OK) b.status = TWIN_BUILD_FAILED;
        v = b.status == TWIN_BUILD_NO_NVCC ? TWIN_V_NO_NVCC : b.status == TWIN_BUILD_FAILED ? TWIN_V_NVCC_FAILED : TWIN_V_NOT_RUN;
        if (v == TWIN_V_NOT_RUN) snprintf(detail, sizeof detail, "no GPU");
        else if (v == TWIN_V_NVCC_FAILED && b.log && *b.log) twin_log_first_error(b.log, detail, sizeof detail);
        twin_build_free(&b);
    } else {
        task_spec view;
        twin_task_view(t, o->kernels_dir, name.data, &view);
        eval_funnel_opts fo = {.arch = o->gen.arch, .ptxas = false, .gpu = true};
        eval_funnel_in fi = {NULL, NULL, ptx_path, NULL};
        char *text = NULL;
        size_t n = 0;
        eval_funnel_result tr;
        memset(&tr, 0, sizeof tr);
        char own_err[700] = "";
        if (o->twin_own) twin_own_case(o, c->have_ptxas, t, path.data, row, own_err, sizeof own_err);
        if (pg_read_file(ptx_path, 16u << 20, &text, &n, &quiet) == PG_OK) {
            fi.text = text;
            fo.ptxas = c->have_ptxas;
            eval_funnel(&fi, &view, &fo, &tr);
            if (tr.correct) v = TWIN_V_AGREES;
            else if (tr.gpu_status && !strcmp(tr.gpu_status, "setup-error")) v = TWIN_V_NOT_COMPARED;
            else v = TWIN_V_DIFFERS;
            snprintf(detail, sizeof detail, "%.600s", tr.detail);
            /* the harness words its setup errors for a task's reference.cu; here the oracle is the twin */
            const char *oracle = "reference.cu oracle: ";
            if (v == TWIN_V_NOT_COMPARED && strstr(detail, "reference.cu could not be compiled") && own_err[0]) {
                v = TWIN_V_NVCC_FAILED;   /* --twin-own compiled it already */
                snprintf(detail, sizeof detail, "%s", own_err);
            } else if (v == TWIN_V_NOT_COMPARED && strstr(detail, "reference.cu could not be compiled")) {
                twin_build b;   /* compiled again only to show nvcc's message */
                if (twin_compile(path.data, o->gen.arch ? o->gen.arch : "sm_80", &b, &quiet) != PG_OK) b.status = TWIN_BUILD_FAILED;
                v = TWIN_V_NVCC_FAILED;
                if (b.log && *b.log) twin_log_first_error(b.log, detail, sizeof detail);
                else snprintf(detail, sizeof detail, "nvcc rejects the twin");
                twin_build_free(&b);
            } else if (v == TWIN_V_NOT_COMPARED && !strncmp(detail, oracle, strlen(oracle))) {
                char rest[700];
                snprintf(rest, sizeof rest, "%s", detail + strlen(oracle));
                snprintf(detail, sizeof detail, "the twin itself fails: %.600s", rest);
            }
            if (v == TWIN_V_AGREES) json_object_set_new(row, "twin_input_sets", json_integer(tr.gpu_sets));
            eval_funnel_result_free(&tr);
        } else {
            v = TWIN_V_NOT_COMPARED;
            snprintf(detail, sizeof detail, "cannot read the kernel");
        }
        free(text);
    }
    json_t *tw = json_pack("{s:s, s:s}", "verdict", twin_verdict_name(v), "file", name.data);
    if (detail[0]) json_object_set_new(tw, "detail", json_string(detail));
    json_object_set_new(row, "twin", tw);
    pg_buf_free(&name);
    pg_buf_free(&path);
}

/* One case: generate (or read what was generated elsewhere), then the funnel; returns the row. */
static json_t *run_case(const eval_ctx *c, const task_spec *t, const char *desc, const char *style, int cfg, int sample, bool time_it,
                        pg_diag_sink *diag) {
    const eval_opts *o = c->o;
    gen_opts g = o->gen;
    pg_buf sig = {0};
    gen_signature_from_task(t, &sig);
    g.signature = sig.data;
    task_block_max(t, g.block);   /* no .maxntid/.reqntid the launch would break */
    g.constrained = cfg != EVAL_NO_CONSTRAINT;
    g.bias = cfg == EVAL_FULL ? c->bias : NULL;   /* no_bias and no_constraint run without it */
    g.sampler.seed = o->gen.sampler.seed + (uint64_t)sample * 7919u;
    json_t *row = json_object();
    gen_result r;
    pg_diag_sink q = {0};
    pg_status st = o->kernels_dir ? read_generated(o->kernels_dir, t->name, style, eval_configs[cfg], sample, &r)
                                  : gen_sample(c->model, c->tok, c->vocab, desc, &g, &r, &q);
    pg_buf_free(&sig);
    json_object_set_new(row, "tokens", json_integer(r.gen_tokens + r.forced_tokens));
    json_object_set_new(row, "gen_seconds", json_real(r.seconds));
    json_object_set_new(row, "mask_calls", json_integer(r.mask_calls));
    json_object_set_new(row, "mask_seconds", json_real(r.mask_seconds));
    json_object_set_new(row, "finished", json_boolean(r.finished));
    eval_funnel_result fr;
    memset(&fr, 0, sizeof fr);
    fr.registers = fr.spill_bytes = -1;
    fr.stage = "generation";
    char path[4200];
    snprintf(path, sizeof path, "%s/%s.ptx", c->tmpdir, t->kernel);
    if (st != PG_OK || !r.ptx) {
        if (o->kernels_dir) snprintf(fr.detail, sizeof fr.detail, "no kernel in %.600s", o->kernels_dir);
        else snprintf(fr.detail, sizeof fr.detail, "generation failed (%s)", pg_status_str(st));
    } else if (pg_write_file_atomic(path, r.ptx, strlen(r.ptx), diag) == PG_OK) {
        if (o->keep_dir && !o->kernels_dir) {   /* every generated kernel, for the issue note and for inspection */
            pg_buf kp = {0};
            pg_buf_printf(&kp, "%s/%s.%s.%s.%d.ptx", o->keep_dir, t->name, style, eval_configs[cfg], sample);
            pg_write_file_atomic(kp.data, r.ptx, strlen(r.ptx), diag);
            pg_buf_free(&kp);
        }
        eval_funnel_opts fo = {.arch = o->gen.arch, .ptxas = c->have_ptxas, .gpu = c->have_gpu, .time_it = time_it, .ridge = c->ridge,
                               .gpu_memo = c->memo};
        eval_funnel_in fi = {r.ptx, NULL, path, NULL};
        eval_funnel(&fi, t, &fo, &fr);
        if (o->kernels_dir && !o->no_twins) twin_case(c, t, style, cfg, sample, path, &fr, row);
        unlink(path);   /* the temp folder must be empty at the end */
    }
    eval_funnel_json(&fr, row);
    eval_funnel_result_free(&fr);
    gen_result_free(&r);
    return row;
}

void eval_keep_first_error(void *user, const pg_diag *d) {
    pg_diag *f = user;
    if (d->sev == PG_SEV_ERROR && !f->code) *f = *d;
}

static int is_true(json_t *v) { return json_is_true(v); }

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The unbiased pass@k estimator (Chen et al. 2021) averaged over cases: with n
 * samples of which c are correct, pass@k = 1 - C(n-c, k) / C(n, k), for
 * k = 1, 2, 4, 8, 16 up to the smallest n of any case. */
static json_t *pass_at_k_curve(json_t *rows, const char *cfg) {
    json_t *cases = json_object();   /* "task\nstyle" -> [n, c] */
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r) {
        if (strcmp(json_string_value(json_object_get(r, "config")), cfg)) continue;
        char key[600];
        snprintf(key, sizeof key, "%s\n%s", json_string_value(json_object_get(r, "task")),
                 json_string_value(json_object_get(r, "description")));
        json_t *e = json_object_get(cases, key);
        if (!e) { e = json_pack("[i, i]", 0, 0); json_object_set_new(cases, key, e); }
        json_array_set_new(e, 0, json_integer(json_integer_value(json_array_get(e, 0)) + 1));
        if (json_is_true(json_object_get(r, "correct")))
            json_array_set_new(e, 1, json_integer(json_integer_value(json_array_get(e, 1)) + 1));
    }
    json_int_t nmin = -1;
    const char *key;
    json_t *e;
    json_object_foreach(cases, key, e) {
        json_int_t n = json_integer_value(json_array_get(e, 0));
        if (nmin < 0 || n < nmin) nmin = n;
    }
    json_t *curve = json_object();
    for (int k = 1; k <= 16 && nmin >= k && json_object_size(cases); k *= 2) {
        double sum = 0;
        json_object_foreach(cases, key, e) {
            json_int_t n = json_integer_value(json_array_get(e, 0)), c = json_integer_value(json_array_get(e, 1));
            double fail = 1.0;   /* C(n-c, k) / C(n, k) as a product, exact for small n */
            if (n - c < k) fail = 0.0;
            else
                for (json_int_t j = 0; j < k; j++) fail *= (double)(n - c - j) / (double)(n - j);
            sum += 1.0 - fail;
        }
        char kk[16];
        snprintf(kk, sizeof kk, "%d", k);
        json_object_set_new(curve, kk, json_real(sum / (double)json_object_size(cases)));
    }
    json_decref(cases);
    return curve;
}

/* Aggregates of one config over its rows. */
static json_t *aggregate(json_t *rows, const char *cfg, bool have_gpu) {
    long n = 0, chk = 0, pas = 0, ld = 0, cor = 0, timed = 0, f1 = 0, f12 = 0, mem = 0, mem90 = 0;
    json_int_t samples = 0;     /* k of pass@k: from the rows, since merged runs may differ per config */
    long cases = 0, cases_passk = 0;
    PG_VEC(double) sp = {0};
    size_t i;
    json_t *r;
    /* per-case pass@k: group by task+description */
    json_t *seen = json_object();
    json_array_foreach(rows, i, r) {
        if (strcmp(json_string_value(json_object_get(r, "config")), cfg)) continue;
        n++;
        if (json_integer_value(json_object_get(r, "sample")) + 1 > samples)
            samples = json_integer_value(json_object_get(r, "sample")) + 1;
        chk += is_true(json_object_get(r, "check"));
        pas += is_true(json_object_get(r, "ptxas"));
        ld += is_true(json_object_get(r, "loads"));
        bool c = is_true(json_object_get(r, "correct"));
        cor += c;
        char key[512];
        snprintf(key, sizeof key, "%s/%s", json_string_value(json_object_get(r, "task")),
                 json_string_value(json_object_get(r, "description")));
        json_t *k = json_object_get(seen, key);
        if (!k) { json_object_set_new(seen, key, json_integer(0)); k = json_object_get(seen, key); cases++; }
        if (c && json_integer_value(k) == 0) { json_integer_set(k, 1); cases_passk++; }
        double s = json_real_value(json_object_get(r, "speedup"));
        if (c && json_integer_value(json_object_get(r, "sample")) == 0) {
            if (s > 0) {
                timed++;
                pg_vec_push(sp, s);
                if (s > 1.0) f1++;
                if (s > 1.2) f12++;
            }
            if (is_true(json_object_get(r, "memory_bound"))) {
                mem++;
                if (json_real_value(json_object_get(r, "pct_of_ceiling")) >= 90) mem90++;
            }
        }
    }
    json_decref(seen);
    json_t *curve = pass_at_k_curve(rows, cfg);
    /* pass@1 is the unbiased estimate (the mean of c/n over cases, the curve's k = 1), not
     * "sample 0 was correct": it uses every sample drawn and agrees with the curve */
    double pass1 = json_real_value(json_object_get(curve, "1"));
    json_t *a = json_object();
#define RATE(x, d) ((d) ? (double)(x) / (double)(d) : 0.0)
    json_object_set_new(a, "samples", json_integer(n));
    json_object_set_new(a, "cases", json_integer(cases));
    json_object_set_new(a, "k", json_integer(samples));
    json_object_set_new(a, "hygiene", eval_hygiene_counts(rows, cfg));   /* rejected/flagged by reward hygiene */
    json_object_set_new(a, "validator_pass_rate", json_real(RATE(chk, n)));
    json_object_set_new(a, "ptxas_pass_rate", json_real(RATE(pas, n)));
    if (have_gpu) {
        json_object_set_new(a, "load_rate", json_real(RATE(ld, n)));
        json_object_set_new(a, "correct_rate", json_real(RATE(cor, n)));
        json_object_set_new(a, "pass_at_1", json_real(pass1));
        json_object_set_new(a, "pass_at_k", json_real(RATE(cases_passk, cases)));
        json_object_set_new(a, "pass_at", curve);   /* {"1": .., "2": .., "4": .., "8": .., "16": ..} up to the samples drawn */
        curve = NULL;
        json_object_set_new(a, "fast_1", json_real(RATE(f1, cases)));
        json_object_set_new(a, "fast_1_2", json_real(RATE(f12, cases)));
        double g = 0, med = 0;
        if (sp.n) {
            for (int j = 0; j < sp.n; j++) g += log(sp.v[j]);
            g = exp(g / sp.n);
            qsort(sp.v, (size_t)sp.n, sizeof(double), cmp_double);
            med = sp.n % 2 ? sp.v[sp.n / 2] : 0.5 * (sp.v[sp.n / 2 - 1] + sp.v[sp.n / 2]);
        }
        json_object_set_new(a, "timed_cases", json_integer(timed));
        json_object_set_new(a, "geomean_speedup", sp.n ? json_real(g) : json_null());
        json_object_set_new(a, "median_speedup", sp.n ? json_real(med) : json_null());
        json_object_set_new(a, "memory_bound_cases", json_integer(mem));
        json_object_set_new(a, "memory_bound_at_90pct", json_real(RATE(mem90, mem)));
    } else {
        const char *nr = "not run";
        json_object_set_new(a, "load_rate", json_string(nr));
        json_object_set_new(a, "correct_rate", json_string(nr));
        json_object_set_new(a, "pass_at_1", json_string(nr));
        json_object_set_new(a, "pass_at_k", json_string(nr));
        json_object_set_new(a, "fast_1", json_string(nr));
        json_object_set_new(a, "fast_1_2", json_string(nr));
        json_object_set_new(a, "geomean_speedup", json_string(nr));
    }
#undef RATE
    json_decref(curve);
    pg_vec_free(sp);
    return a;
}

/* pass@1 / pass@k / valid per value of one row field ("description" = style,
 * "family" = category) for one config: the tables that show what an average hides. */
static json_t *group_stats(json_t *rows, const char *cfg, const char *field, bool have_gpu) {
    json_t *cases = json_object();   /* "value\ntask\nstyle" -> [samples n, correct c, value] */
    json_t *g = json_object();
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r) {
        if (strcmp(json_string_value(json_object_get(r, "config")), cfg)) continue;
        const char *v = json_string_value(json_object_get(r, field));
        if (!v || !*v) v = "(none)";
        json_t *e = json_object_get(g, v);
        if (!e) {
            e = json_pack("{s:i, s:i, s:i, s:i, s:i}", "samples", 0, "valid", 0, "correct", 0, "cases", 0, "passk", 0);
            json_object_set_new(g, v, e);
        }
        bool c = is_true(json_object_get(r, "correct"));
#define BUMP(k) json_object_set_new(e, k, json_integer(json_integer_value(json_object_get(e, k)) + 1))
        BUMP("samples");
        if (is_true(json_object_get(r, "check")) && is_true(json_object_get(r, "ptxas"))) BUMP("valid");
        if (c) BUMP("correct");
        char key[600];
        snprintf(key, sizeof key, "%s\n%s\n%s", v, json_string_value(json_object_get(r, "task")),
                 json_string_value(json_object_get(r, "description")));
        json_t *k = json_object_get(cases, key);
        if (!k) { BUMP("cases"); k = json_pack("[i, i, s]", 0, 0, v); json_object_set_new(cases, key, k); }
        json_array_set_new(k, 0, json_integer(json_integer_value(json_array_get(k, 0)) + 1));
        if (c) {
            if (!json_integer_value(json_array_get(k, 1))) BUMP("passk");
            json_array_set_new(k, 1, json_integer(json_integer_value(json_array_get(k, 1)) + 1));
        }
#undef BUMP
    }
    /* pass@1 per group: the unbiased estimate, the mean of c/n over the group's cases */
    const char *key;
    json_t *e;
    json_object_foreach(cases, key, e) {
        json_t *grp = json_object_get(g, json_string_value(json_array_get(e, 2)));
        double f = (double)json_integer_value(json_array_get(e, 1)) / (double)json_integer_value(json_array_get(e, 0));
        json_object_set_new(grp, "pass1_sum", json_real(json_real_value(json_object_get(grp, "pass1_sum")) + f));
    }
    json_decref(cases);
    json_object_foreach(g, key, e) {
        double n = (double)json_integer_value(json_object_get(e, "samples")), nc = (double)json_integer_value(json_object_get(e, "cases"));
        json_object_set_new(e, "valid_rate", json_real(n ? json_integer_value(json_object_get(e, "valid")) / n : 0));
        double p1 = json_real_value(json_object_get(e, "pass1_sum"));
        json_object_del(e, "pass1_sum");
        if (have_gpu) {
            json_object_set_new(e, "pass_at_1", json_real(nc ? p1 / nc : 0));
            json_object_set_new(e, "pass_at_k", json_real(nc ? json_integer_value(json_object_get(e, "passk")) / nc : 0));
        } else {
            json_object_set_new(e, "pass_at_1", json_string("not run"));
            json_object_set_new(e, "pass_at_k", json_string("not run"));
        }
    }
    return g;
}

/* How far "agrees with its CUDA twin" can be trusted, from rows that have a twin verdict
 * (eval --kernels with <case>.cu beside the PTX): among the compared cases, agreement
 * against correctness on the real reference.  precision = agrees and correct / agrees.
 * Per config, description style and category ("family").  Without a GPU the counts
 * that need it are "not run". */
static json_t *twin_counts(void) {
    return json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i}", "with_twin", 0, "compared", 0, "agrees", 0, "agrees_correct", 0,
                     "agrees_wrong", 0, "differs_correct", 0, "differs_wrong", 0, "own_run", 0, "own_correct", 0);
}
static void twin_bump(json_t *e, const char *k) { json_object_set_new(e, k, json_integer(json_integer_value(json_object_get(e, k)) + 1)); }
static void twin_finish(json_t *e, bool have_gpu) {
    long long a = json_integer_value(json_object_get(e, "agrees")), tp = json_integer_value(json_object_get(e, "agrees_correct"));
    long long cor = tp + json_integer_value(json_object_get(e, "differs_correct"));
    if (!have_gpu) {
        const char *ks[] = {"compared", "agrees", "agrees_correct", "agrees_wrong", "differs_correct", "differs_wrong"};
        for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) json_object_set_new(e, ks[i], json_string("not run"));
        json_object_set_new(e, "precision", json_string("not run"));
        json_object_set_new(e, "recall", json_string("not run"));
        return;
    }
    json_object_set_new(e, "precision", a ? json_real((double)tp / (double)a) : json_null());   /* P(correct | agrees) */
    json_object_set_new(e, "recall", cor ? json_real((double)tp / (double)cor) : json_null());   /* P(agrees | correct) */
}
static json_t *twin_stats(json_t *rows, const char *cfg, bool have_gpu) {
    json_t *all = twin_counts(), *by_style = json_object(), *by_cat = json_object();
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r) {
        json_t *tw = json_object_get(r, "twin");
        if (!json_is_object(tw) || strcmp(json_string_value(json_object_get(r, "config")), cfg)) continue;
        const char *st = json_string_value(json_object_get(r, "description")), *fam = json_string_value(json_object_get(r, "family"));
        json_t *es = json_object_get(by_style, st ? st : "?"), *ec = json_object_get(by_cat, fam && *fam ? fam : "?");
        if (!es) json_object_set_new(by_style, st ? st : "?", es = twin_counts());
        if (!ec) json_object_set_new(by_cat, fam && *fam ? fam : "?", ec = twin_counts());
        json_t *es3[3] = {all, es, ec};
        const char *v = json_string_value(json_object_get(tw, "verdict"));
        bool agrees = v && !strcmp(v, "agrees"), differs = v && !strcmp(v, "differs");
        bool correct = json_is_true(json_object_get(r, "correct"));
        json_t *own = json_object_get(r, "twin_own");   /* --twin-own: the twin against the real reference */
        for (int k = 0; k < 3; k++) {
            twin_bump(es3[k], "with_twin");
            if (json_is_object(own)) {
                twin_bump(es3[k], "own_run");
                if (json_is_true(json_object_get(own, "correct"))) twin_bump(es3[k], "own_correct");
            }
            if (!agrees && !differs) continue;
            twin_bump(es3[k], "compared");
            if (agrees) twin_bump(es3[k], "agrees");
            twin_bump(es3[k], agrees ? (correct ? "agrees_correct" : "agrees_wrong") : (correct ? "differs_correct" : "differs_wrong"));
        }
    }
    if (!json_integer_value(json_object_get(all, "with_twin"))) {
        json_decref(all); json_decref(by_style); json_decref(by_cat);
        return NULL;
    }
    twin_finish(all, have_gpu);
    const char *k;
    json_t *e;
    json_object_foreach(by_style, k, e) twin_finish(e, have_gpu);
    json_object_foreach(by_cat, k, e) twin_finish(e, have_gpu);
    json_object_set_new(all, "by_style", by_style);
    json_object_set_new(all, "by_category", by_cat);
    return all;
}

void eval_finalize(json_t *doc) {
    json_t *rows = json_object_get(doc, "rows");
    bool have_gpu = is_true(json_object_get(doc, "gpu_ran"));
    json_t *cfgs = json_object();
    for (int c = 0; c < EVAL_NCONFIGS; c++) {
        json_t *a = aggregate(rows, eval_configs[c], have_gpu);
        if (json_integer_value(json_object_get(a, "samples")) == 0) { json_decref(a); continue; }
        json_t *tw = twin_stats(rows, eval_configs[c], have_gpu);
        if (tw) json_object_set_new(a, "twin", tw);
        json_object_set_new(cfgs, eval_configs[c], a);
    }
    /* the headline numbers are the full config's */
    json_t *full = json_object_get(cfgs, "full");
    const char *keys[] = {"validator_pass_rate", "ptxas_pass_rate", "load_rate", "correct_rate", "pass_at_1",
                          "pass_at_k", "fast_1", "fast_1_2", "geomean_speedup", "median_speedup", "memory_bound_at_90pct"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        json_t *v = full ? json_object_get(full, keys[k]) : NULL;
        json_object_set_new(doc, keys[k], v ? json_incref(v) : json_string("not run"));
    }
    json_object_set_new(doc, "configs", cfgs);
    /* per description style and per category, for the headline config */
    const char *head = NULL;
    for (int c = 0; c < EVAL_NCONFIGS && !head; c++)
        if (json_object_get(cfgs, eval_configs[c])) head = eval_configs[c];
    if (head) {
        json_object_set_new(doc, "by_style", group_stats(rows, head, "description", have_gpu));
        json_object_set_new(doc, "by_category", group_stats(rows, head, "family", have_gpu));
        json_object_set_new(doc, "by_config_of", json_string(head));
    }
    /* first failing stage per task (full config, sample 0, over descriptions) */
    json_t *fails = json_object();
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r) {
        if (strcmp(json_string_value(json_object_get(r, "config")), "full")) continue;
        if (is_true(json_object_get(r, "correct"))) continue;
        const char *task = json_string_value(json_object_get(r, "task"));
        json_t *l = json_object_get(fails, task);
        if (!l) { l = json_array(); json_object_set_new(fails, task, l); }
        json_array_append_new(l, json_pack("{s:O, s:O, s:O}", "description", json_object_get(r, "description"), "stage",
                                           json_object_get(r, "last_stage"), "detail", json_object_get(r, "detail")));
    }
    json_object_set_new(doc, "failures", fails);
}

/* The results after a case (resumable), or at the end (final).  Only a regular file is rewritten
 * after every case: stdout, a FIFO or a device gets the results once, at the end. */
static pg_status save(json_t *doc, const char *path, bool final, pg_diag_sink *diag) {
    bool is_file = false;
    if (!path || (!final && (pg_out_check(path, 0, &is_file, NULL) != PG_OK || !is_file))) return PG_OK;
    eval_finalize(doc);
    char *s = json_dumps(doc, JSON_INDENT(1) | JSON_ENSURE_ASCII);
    pg_status st = pg_write_file_atomic(path, s, strlen(s), diag);
    free(s);
    return st;
}

pg_status eval_run(const eval_ctx *c0, pg_diag_sink *diag) {
    eval_ctx c = *c0;
    const eval_opts *o = c.o;
    char **names = NULL;
    int nt = list_tasks(o, &names, diag);
    if (nt < 0) return PG_ERR_IO;
    if (nt == 0) {
        if (o->only) pg_diag_emit(diag, PG_E_EVAL, o->suite_dir, 0, 0, "--only %s: no such task folder here", o->only);
        else pg_diag_emit(diag, PG_E_EVAL, o->suite_dir, 0, 0, "no task folders (DIR/NAME/task.json)");
        return PG_ERR_USAGE;
    }
    char ptxas_path[512];
    c.have_ptxas = ptx_ptxas_find(ptxas_path, sizeof ptxas_path);
    char why[256] = "";
    c.have_gpu = !o->no_gpu && gpu_available(why, sizeof why);
    gpu_devinfo di;
    memset(&di, 0, sizeof di);
    if (c.have_gpu && gpu_devinfo_get(false, &di, diag) == PG_OK && di.copy_gbps > 0)
        c.ridge = di.fp32_tflops * 1e3 / di.copy_gbps;   /* flop/byte where the roofline bends */
    if (o->keep_dir && mkdir(o->keep_dir, 0755) != 0 && errno != EEXIST) {
        pg_diag_emit(diag, PG_E_IO, o->keep_dir, 0, 0, "cannot create: %s", strerror(errno));
        return PG_ERR_IO;
    }
    char tmpl[600];
    pg_tmp_path(tmpl, sizeof tmpl, "ptxgen-eval-XXXXXX");
    if (!mkdtemp(tmpl)) { pg_diag_emit(diag, PG_E_EVAL, NULL, 0, 0, "cannot create a temp dir"); return PG_ERR_IO; }
    c.tmpdir = tmpl;

    json_t *doc = NULL;
    if (o->out_path && access(o->out_path, R_OK) == 0 && o->resume) {
        json_error_t e;
        doc = json_load_file(o->out_path, 0, &e);
        char bad[200];
        if (!doc || !eval_doc_check(doc, bad, sizeof bad)) {
            pg_diag_emit(diag, PG_E_EVAL, o->out_path, e.line, e.column, "cannot resume from this file: %s",
                         doc ? bad : e.text);
            json_decref(doc);
            rmdir(tmpl);
            return PG_ERR_PARSE;
        }
    }
    if (!doc) {
        doc = json_object();
        json_object_set_new(doc, "rows", json_array());
    }
    time_t tt = time(NULL);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%d", gmtime(&tt));
    json_object_set_new(doc, "device", json_string(c.have_gpu ? di.name : "none (static checks only)"));
    json_object_set_new(doc, "gpu_ran", json_boolean(c.have_gpu));
    if (!c.have_gpu) json_object_set_new(doc, "gpu_not_run_because", json_string(o->no_gpu ? "--no-gpu" : why));
    json_object_set_new(doc, "model", json_string(c.model ? model_get_config(c.model)->model_id
                                                           : o->model_name ? o->model_name : "unknown"));
    if (o->kernels_dir) json_object_set_new(doc, "kernels_from", json_string(o->kernels_dir));
    json_object_set_new(doc, "date", json_string(date));
    json_object_set_new(doc, "suite", json_string(o->suite_dir));
    json_object_set_new(doc, "tasks", json_integer(nt));
    json_object_set_new(doc, "arch", json_string(o->gen.arch));
    json_t *set;
    if (o->kernels_dir)   /* eval did not sample these kernels: their sampler's settings are not ours to state */
        set = json_pack("{s:i, s:s, s:i}", "samples", o->samples, "sampled_by", "the generator of kernels_from",
                        "configs", (int)o->configs);
    else
        set = json_pack("{s:i, s:i, s:f, s:i, s:b, s:i, s:I}", "samples", o->samples, "top_k", o->gen.sampler.top_k,
                        "temperature", o->gen.sampler.temperature, "max_tokens", o->gen.max_tokens, "bias_in_full", 1,
                        "configs", (int)o->configs, "seed", (json_int_t)o->gen.sampler.seed);
    json_t *styles = json_array();
    for (int k = 0; k < TASK_NSTYLES; k++)
        if (o->styles >> k & 1) json_array_append_new(styles, json_string(task_styles[k]));
    json_object_set_new(set, "styles", styles);
    json_object_set_new(doc, "settings", set);
    json_t *rows = json_object_get(doc, "rows");
    int ncfg = 0, first_cfg = -1;
    for (int k = 0; k < EVAL_NCONFIGS; k++)
        if (o->configs >> k & 1) { ncfg++; if (first_cfg < 0) first_cfg = k; }
    long total = (long)nt * TASK_NSTYLES * ncfg * o->samples, done = 0;
    /* What this run means to verify, written before the first verdict: a run cut short (a
     * shard killed by its time limit) then shows which samples have no verdict, instead of
     * a report that quietly counts only the ones that finished. */
    json_t *planned = json_object();
    json_int_t nplanned = 0;
    for (int ti = 0; ti < nt; ti++) {
        char p[4200];
        snprintf(p, sizeof p, "%s/%s/task.json", o->suite_dir, names[ti]);
        task_spec *t = NULL;
        if (task_load(p, &t, diag) != PG_OK) continue;   /* the main loop reports it */
        json_int_t n = 0;
        for (int sty = 0; sty < TASK_NSTYLES; sty++) {
            const char *desc = t->desc[sty];
            if (desc && *desc && (o->styles >> sty & 1)) n += (json_int_t)ncfg * o->samples;
        }
        json_object_set_new(planned, t->name, json_integer(n));
        nplanned += n;
        task_free(t);
    }
    json_object_set_new(doc, "planned", json_pack("{s:I, s:o}", "samples", nplanned, "tasks", planned));
    double t0 = now_s();
    pg_status st = PG_OK;
    for (int ti = 0; ti < nt && st == PG_OK; ti++) {
        char p[4200];
        snprintf(p, sizeof p, "%s/%s/task.json", o->suite_dir, names[ti]);
        task_spec *t = NULL;
        if (task_load(p, &t, diag) != PG_OK) { st = PG_ERR_INVALID; break; }
        /* one memo a task: a worker whose input sets suit only this task's kernels */
        c.memo = c.have_gpu ? gpu_memo_new() : NULL;   /* NULL under $PTXGEN_GPU_MEMO=0 too */
        for (int cfg = 0; cfg < EVAL_NCONFIGS && st == PG_OK; cfg++) {
            if (!(o->configs >> cfg & 1)) continue;
            for (int sty = 0; sty < TASK_NSTYLES && st == PG_OK; sty++) {
                const char *desc = t->desc[sty];
                if (!desc || !*desc || !(o->styles >> sty & 1)) { done += o->samples; continue; }
                for (int s = 0; s < o->samples; s++, done++) {
                    if (find_row(rows, t->name, task_styles[sty], eval_configs[cfg], s)) continue;
                    /* timing for the headline config's first sample only (pass@1 speed) */
                    bool time_it = o->timing && cfg == first_cfg && s == 0;
                    unsigned io0 = pg_io_failures();
                    json_t *row = run_case(&c, t, desc, task_styles[sty], cfg, s, time_it, diag);
                    if (pg_io_failures() != io0) {   /* its verdict may come from a file never written: not recorded */
                        json_decref(row);
                        pg_diag_emit(diag, PG_E_IO, o->out_path, 0, 0, "a file could not be written while checking %s/%s/%s/%d; "
                                     "stopped (rerun with --resume to go on from the cases recorded)", t->name,
                                     task_styles[sty], eval_configs[cfg], s);
                        st = PG_ERR_IO;
                        break;
                    }
                    json_object_set_new(row, "task", json_string(t->name));
                    json_object_set_new(row, "dir", json_string(names[ti]));
                    json_object_set_new(row, "family", json_string(t->family ? t->family : ""));
                    json_object_set_new(row, "description", json_string(task_styles[sty]));
                    json_object_set_new(row, "config", json_string(eval_configs[cfg]));
                    json_object_set_new(row, "sample", json_integer(s));
                    json_array_append_new(rows, row);
                    if (o->progress) {
                        double el = now_s() - t0, eta = done + 1 < total ? el / (double)(done + 1) * (double)(total - done - 1) : 0;
                        fprintf(stderr, "\r[%ld/%ld] %-28.28s %-8s %-13s %-11s eta %4.0fs ", done + 1, total, t->name,
                                task_styles[sty], eval_configs[cfg], json_string_value(json_object_get(row, "last_stage")), eta);
                    }
                    if ((st = save(doc, o->out_path, false, diag)) != PG_OK) break;
                }
            }
        }
        gpu_memo_free(c.memo);   /* its worker ends before the next task's starts */
        c.memo = NULL;
        task_free(t);
    }
    if (o->progress) fprintf(stderr, "\n");
    if (st == PG_OK) st = save(doc, o->out_path, true, diag);
    if (!o->out_path) eval_finalize(doc);
    if (c0->result) *c0->result = json_incref(doc);
    json_decref(doc);
    for (int i = 0; i < nt; i++) free(names[i]);
    free(names);
    rmdir(tmpl);
    return st;
}

static void fmt_rate(json_t *v, char *b, size_t n) {
    if (json_is_number(v)) snprintf(b, n, "%.1f%%", 100 * json_number_value(v));
    else snprintf(b, n, "%s", json_is_string(v) ? json_string_value(v) : "-");
}

/* "N of M planned samples have no verdict", and per task how many rows it has, when the
 * run (or one of the merged shards) stopped before the end; nothing when it is complete or
 * the file predates "planned". */
static void missing_verdicts(json_t *doc, pg_buf *out) {
    json_t *pl = json_object_get(doc, "planned"), *rows = json_object_get(doc, "rows");
    json_int_t want = json_integer_value(json_object_get(pl, "samples")), have = (json_int_t)json_array_size(rows);
    if (!json_is_object(pl) || have >= want) return;
    json_t *per = json_object(), *r, *v;
    size_t i;
    const char *key;
    json_array_foreach(rows, i, r) {
        const char *t = json_string_value(json_object_get(r, "task"));
        json_object_set_new(per, t, json_integer(json_integer_value(json_object_get(per, t)) + 1));
    }
    pg_buf_printf(out, "**%lld of %lld planned samples have no verdict** (the run stopped before the end); "
                  "the rates below count only the samples that have one. Tasks short of their samples:",
                  (long long)(want - have), (long long)want);
    const char *sep = " ";
    json_object_foreach(json_object_get(pl, "tasks"), key, v) {
        json_int_t got = json_integer_value(json_object_get(per, key));
        if (got >= json_integer_value(v)) continue;
        pg_buf_printf(out, "%s%s %lld/%lld", sep, key, (long long)got, (long long)json_integer_value(v));
        sep = ", ";
    }
    pg_buf_puts(out, ".\n\n");
    json_decref(per);
}

void eval_markdown(json_t *doc, pg_buf *out) {
    json_t *cfgs = json_object_get(doc, "configs");
    pg_buf_printf(out, "# ptxgen eval: %s on %s (%s)\n\n", json_string_value(json_object_get(doc, "model")),
                  json_string_value(json_object_get(doc, "device")), json_string_value(json_object_get(doc, "date")));
    json_t *set = json_object_get(doc, "settings"), *sty = json_object_get(set, "styles");
    pg_buf sl = {0};   /* the styles evaluated (files before "styles" was recorded: all five) */
    for (size_t k = 0; k < (json_is_array(sty) ? json_array_size(sty) : 0); k++)
        pg_buf_printf(&sl, "%s%s", k ? ", " : "", json_string_value(json_array_get(sty, k)));
    pg_buf_printf(out, "%lld tasks x %s description styles, k samples per case as in the table, ",
                  (long long)json_integer_value(json_object_get(doc, "tasks")), sl.len ? sl.data : "5");
    if (json_object_get(set, "temperature"))
        pg_buf_printf(out, "top-k %lld, temperature %.2f, ", (long long)json_integer_value(json_object_get(set, "top_k")),
                      json_number_value(json_object_get(set, "temperature")));
    else
        pg_buf_printf(out, "kernels generated outside ptxgen eval (%s: its sampling settings), ",
                      json_string_value(json_object_get(doc, "kernels_from")) ? json_string_value(json_object_get(doc, "kernels_from")) : "?");
    pg_buf_printf(out, "arch %s.\n\n", json_string_value(json_object_get(doc, "arch")));
    pg_buf_free(&sl);
    missing_verdicts(doc, out);
    pg_buf_puts(out, "| config | samples | k | validator | ptxas | loads | correct | pass@1 | pass@k | fast_1.0 | fast_1.2 | geomean | median | mem-bound >=90% BW |\n");
    pg_buf_puts(out, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    const char *key;
    json_t *a;
    json_object_foreach(cfgs, key, a) {
        char r[11][32];
        const char *ks[] = {"validator_pass_rate", "ptxas_pass_rate", "load_rate", "correct_rate", "pass_at_1", "pass_at_k",
                            "fast_1", "fast_1_2"};
        for (int i = 0; i < 8; i++) fmt_rate(json_object_get(a, ks[i]), r[i], sizeof r[i]);
        json_t *g = json_object_get(a, "geomean_speedup"), *m = json_object_get(a, "median_speedup");
        if (json_is_number(g)) snprintf(r[8], sizeof r[8], "%.3fx", json_number_value(g));
        else snprintf(r[8], sizeof r[8], "%s", json_is_string(g) ? json_string_value(g) : "-");
        if (json_is_number(m)) snprintf(r[9], sizeof r[9], "%.3fx", json_number_value(m));
        else snprintf(r[9], sizeof r[9], "-");
        fmt_rate(json_object_get(a, "memory_bound_at_90pct"), r[10], sizeof r[10]);
        pg_buf_printf(out, "| %s | %lld | %lld | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", key,
                      (long long)json_integer_value(json_object_get(a, "samples")),
                      (long long)json_integer_value(json_object_get(a, "k")), r[0], r[1], r[2], r[3], r[4], r[5], r[6],
                      r[7], r[8], r[9], r[10]);
    }
    /* CUDA twins: does agreement with the twin coincide with correctness? */
    json_object_foreach(cfgs, key, a) {
        json_t *tw = json_object_get(a, "twin");
        if (!json_is_object(tw)) continue;
        pg_buf_printf(out, "\nCUDA twins (%s): %lld cases with a twin; ", key, (long long)json_integer_value(json_object_get(tw, "with_twin")));
        if (!json_is_integer(json_object_get(tw, "compared"))) {
            pg_buf_puts(out, "not run (no GPU): agreement and its precision need one.\n");
            continue;
        }
        pg_buf_puts(out, "precision = P(correct on the real reference | agrees with the twin), recall = P(agrees | correct).\n\n");
        pg_buf_puts(out, "| group | with twin | compared | agrees | agrees+correct | agrees+wrong | differs+correct | differs+wrong | precision | recall |\n");
        pg_buf_puts(out, "|---|---|---|---|---|---|---|---|---|---|\n");
        json_t *groups[3] = {tw, json_object_get(tw, "by_style"), json_object_get(tw, "by_category")};
        for (int g = 0; g < 3; g++) {
            const char *gk;
            json_t *e;
            json_t *one = g == 0 ? json_pack("{s:O}", "all", tw) : json_incref(groups[g]);
            json_object_foreach(one, gk, e) {
                char pr[32] = "-", rc[32] = "-";
                if (json_is_number(json_object_get(e, "precision"))) snprintf(pr, sizeof pr, "%.2f", json_number_value(json_object_get(e, "precision")));
                if (json_is_number(json_object_get(e, "recall"))) snprintf(rc, sizeof rc, "%.2f", json_number_value(json_object_get(e, "recall")));
                pg_buf_printf(out, "| %s%s | %lld | %lld | %lld | %lld | %lld | %lld | %lld | %s | %s |\n", g == 1 ? "style " : g == 2 ? "category " : "",
                              gk, (long long)json_integer_value(json_object_get(e, "with_twin")),
                              (long long)json_integer_value(json_object_get(e, "compared")),
                              (long long)json_integer_value(json_object_get(e, "agrees")),
                              (long long)json_integer_value(json_object_get(e, "agrees_correct")),
                              (long long)json_integer_value(json_object_get(e, "agrees_wrong")),
                              (long long)json_integer_value(json_object_get(e, "differs_correct")),
                              (long long)json_integer_value(json_object_get(e, "differs_wrong")), pr, rc);
            }
            json_decref(one);
        }
        long long orun = json_integer_value(json_object_get(tw, "own_run"));
        if (orun) {   /* --twin-own */
            pg_buf_printf(out, "\nThe twins themselves against the real reference (--twin-own): %lld of %lld correct (%.1f%%)",
                          (long long)json_integer_value(json_object_get(tw, "own_correct")), orun,
                          100.0 * (double)json_integer_value(json_object_get(tw, "own_correct")) / (double)orun);
            const char *sk;
            json_t *se;
            const char *sep = "; by style:";
            json_object_foreach(json_object_get(tw, "by_style"), sk, se) {
                if (!json_integer_value(json_object_get(se, "own_run"))) continue;
                pg_buf_printf(out, "%s %s %lld/%lld", sep, sk, (long long)json_integer_value(json_object_get(se, "own_correct")),
                              (long long)json_integer_value(json_object_get(se, "own_run")));
                sep = ",";
            }
            pg_buf_puts(out, ".\n");
        }
    }
    /* pass@k curves (unbiased estimator over the samples drawn) */
    json_object_foreach(cfgs, key, a) {
        json_t *curve = json_object_get(a, "pass_at");
        if (!json_is_object(curve) || json_object_size(curve) < 2) continue;
        pg_buf_printf(out, "\npass@k (%s):", key);
        const char *kk;
        json_t *v;
        json_object_foreach(curve, kk, v) pg_buf_printf(out, " k=%s %.1f%%", kk, 100 * json_number_value(v));
        pg_buf_puts(out, "\n");
    }
    eval_hygiene_markdown(doc, out);
    /* per description style and per category (what an average hides) */
    const char *gtitle[2] = {"description style", "category"}, *gkey[2] = {"by_style", "by_category"};
    for (int gi = 0; gi < 2; gi++) {
        json_t *gs = json_object_get(doc, gkey[gi]);
        if (!json_is_object(gs)) continue;
        pg_buf_printf(out, "\n| %s (%s config) | cases | samples | valid | pass@1 | pass@k |\n|---|---|---|---|---|---|\n", gtitle[gi],
                      json_string_value(json_object_get(doc, "by_config_of")));
        const char *sk;
        json_t *e;
        json_object_foreach(gs, sk, e) {
            char v[32], p1[32], pk[32];
            fmt_rate(json_object_get(e, "valid_rate"), v, sizeof v);
            fmt_rate(json_object_get(e, "pass_at_1"), p1, sizeof p1);
            fmt_rate(json_object_get(e, "pass_at_k"), pk, sizeof pk);
            pg_buf_printf(out, "| %s | %lld | %lld | %s | %s | %s |\n", sk, (long long)json_integer_value(json_object_get(e, "cases")),
                          (long long)json_integer_value(json_object_get(e, "samples")), v, p1, pk);
        }
    }
    /* per task, full config, sample 0 */
    pg_buf_puts(out, "\n| task | family | valid | ptxas | correct | best speedup | first failure (per description) |\n|---|---|---|---|---|---|---|\n");
    json_t *rows = json_object_get(doc, "rows");
    json_t *tasks = json_object();
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r) {
        if (strcmp(json_string_value(json_object_get(r, "config")), "full") || json_integer_value(json_object_get(r, "sample")))
            continue;
        const char *t = json_string_value(json_object_get(r, "task"));
        json_t *e = json_object_get(tasks, t);
        if (!e) {
            e = json_pack("{s:O, s:i, s:i, s:i, s:i, s:f, s:s}", "family", json_object_get(r, "family"), "n", 0, "valid", 0,
                          "ptxas", 0, "correct", 0, "best", 0.0, "fail", "");
            json_object_set_new(tasks, t, e);
        }
        json_object_set_new(e, "n", json_integer(json_integer_value(json_object_get(e, "n")) + 1));
        if (json_is_true(json_object_get(r, "check"))) json_object_set_new(e, "valid", json_integer(json_integer_value(json_object_get(e, "valid")) + 1));
        if (json_is_true(json_object_get(r, "ptxas"))) json_object_set_new(e, "ptxas", json_integer(json_integer_value(json_object_get(e, "ptxas")) + 1));
        if (json_is_true(json_object_get(r, "correct"))) json_object_set_new(e, "correct", json_integer(json_integer_value(json_object_get(e, "correct")) + 1));
        double s = json_real_value(json_object_get(r, "speedup"));
        if (s > json_real_value(json_object_get(e, "best"))) json_object_set_new(e, "best", json_real(s));
        if (!json_is_true(json_object_get(r, "correct"))) {
            pg_buf f = {0};
            pg_buf_printf(&f, "%s%s: %s", json_string_value(json_object_get(e, "fail")),
                          json_string_value(json_object_get(r, "description")), json_string_value(json_object_get(r, "last_stage")));
            pg_buf_puts(&f, "; ");
            json_object_set_new(e, "fail", json_string(f.data));
            pg_buf_free(&f);
        }
    }
    bool gpu_ran = json_is_true(json_object_get(doc, "gpu_ran"));
    json_object_foreach(tasks, key, a) {
        long long n = json_integer_value(json_object_get(a, "n"));
        double best = json_real_value(json_object_get(a, "best"));
        char bs[32] = "-", cor[48] = "not run";   /* without a GPU nothing was run, so nothing was "0/5 correct" */
        if (best > 0) snprintf(bs, sizeof bs, "%.3fx", best);
        if (gpu_ran) snprintf(cor, sizeof cor, "%lld/%lld", (long long)json_integer_value(json_object_get(a, "correct")), n);
        pg_buf_printf(out, "| %s | %s | %lld/%lld | %lld/%lld | %s | %s | %s |\n", key,
                      json_string_value(json_object_get(a, "family")), (long long)json_integer_value(json_object_get(a, "valid")), n,
                      (long long)json_integer_value(json_object_get(a, "ptxas")), n, cor, bs,
                      json_string_value(json_object_get(a, "fail")));
    }
    json_decref(tasks);
}

/* Timing pass: generation and correctness can run in parallel shards, but
 * timing must not share the GPU.  This times, one at a time, every correct
 * sample-0 kernel of the first config in a (merged) results file, from the
 * kernels kept with --keep, against the nvcc baseline. */
pg_status eval_time_pass(const eval_opts *o, pg_diag_sink *diag) {
    json_error_t e;
    json_t *doc = json_load_file(o->out_path, 0, &e);
    char bad[200];
    if (!doc || !eval_doc_check(doc, bad, sizeof bad)) {
        pg_diag_emit(diag, PG_E_EVAL, o->out_path, e.line, e.column, "%s", doc ? bad : e.text);
        json_decref(doc);
        return PG_ERR_PARSE;
    }
    char why[256];
    if (!gpu_available(why, sizeof why)) {
        pg_diag_emit(diag, PG_E_EVAL, NULL, 0, 0, "timing pass needs a GPU: %s", why);
        json_decref(doc);
        return PG_ERR_EXTERNAL;
    }
    gpu_devinfo di;
    memset(&di, 0, sizeof di);
    double ridge = 0;
    if (gpu_devinfo_get(false, &di, diag) == PG_OK && di.copy_gbps > 0) ridge = di.fp32_tflops * 1e3 / di.copy_gbps;
    json_t *rows = json_object_get(doc, "rows");
    const char *cfg = NULL;
    for (int k = 0; k < EVAL_NCONFIGS && !cfg; k++)
        if (o->configs >> k & 1) cfg = eval_configs[k];
    size_t i;
    json_t *r;
    int timed = 0, other_cfg = 0;
    pg_status st = PG_OK;
    json_array_foreach(rows, i, r) {
        if (!json_is_true(json_object_get(r, "correct")) || json_integer_value(json_object_get(r, "sample")) != 0 ||
            json_object_get(r, "speedup"))
            continue;
        if (strcmp(json_string_value(json_object_get(r, "config")), cfg)) { other_cfg++; continue; }
        const char *task = json_string_value(json_object_get(r, "task"));
        char tp[4200], kp[4200];
        const char *dir = json_string_value(json_object_get(r, "dir"));
        snprintf(tp, sizeof tp, "%s/%s/task.json", o->suite_dir, dir ? dir : task);
        snprintf(kp, sizeof kp, "%s/%s.%s.%s.0.ptx", o->keep_dir, task, json_string_value(json_object_get(r, "description")), cfg);
        task_spec *t = NULL;
        if (task_load(tp, &t, diag) != PG_OK) { st = PG_ERR_INVALID; break; }
        char *text = NULL;
        size_t len = 0;
        eval_funnel_result fr;
        memset(&fr, 0, sizeof fr);
        if (pg_read_file(kp, 16u << 20, &text, &len, diag) == PG_OK) {
            eval_funnel_opts fo = {.ptxas = true, .gpu = true, .time_it = true, .ridge = ridge};
            eval_funnel_in fi = {text, NULL, kp, NULL};
            eval_funnel(&fi, t, &fo, &fr);
        } else {
            snprintf(fr.detail, sizeof fr.detail, "cannot read the kept kernel (%.600s)", kp);
        }
        free(text);
        if (fr.speedup > 0) {
            funnel_timing_json(&fr, r);
            if (fr.hygiene) json_object_set_new(r, "hygiene", json_string(fr.hygiene));
            json_object_set_new(r, "last_stage", json_string("timed"));
            timed++;
        } else {
            json_object_set_new(r, "timing_error", json_string(fr.detail[0] ? fr.detail : fr.stage ? fr.stage : "?"));
        }
        eval_funnel_result_free(&fr);
        task_free(t);
        if (o->progress) fprintf(stderr, "\rtimed %d kernels (%s)          ", timed, task);
        /* saved after every kernel: a pass cut short by a time limit keeps what it timed */
        json_object_set_new(doc, "device", json_string(di.name));
        if ((st = save(doc, o->out_path, false, diag)) != PG_OK) break;
    }
    if (o->progress) fprintf(stderr, "\n");
    if (st == PG_OK) {
        json_object_set_new(doc, "device", json_string(di.name));
        st = save(doc, o->out_path, true, diag);
    }
    if (st == PG_OK && !timed && other_cfg) {   /* an error, not a quiet fast_1 of 0 */
        pg_diag_emit(diag, PG_E_EVAL, o->out_path, 0, 0,
                     "timing pass: no correct sample-0 row of config '%s'; %d of another config were left untimed "
                     "(--no-bias / --no-constraint select the config)", cfg, other_cfg);
        st = PG_ERR_USAGE;
    }
    json_decref(doc);
    return st;
}

/* See eval.h: the plans add up, except that a task with replaced rows takes the largest
 * plan of any one document, since a re-verification run plans those samples again. */
static void merge_planned(json_t *const *docs, int n, json_t *replaced_tasks) {
    json_t *sum = json_object(), *max = json_object(), *v;
    json_int_t total = 0;
    const char *task;
    for (int d = 0; d < n; d++) {
        json_t *pl = json_object_get(docs[d], "planned");
        if (!json_is_object(pl)) { json_object_del(docs[0], "planned"); goto out; }
        total += json_integer_value(json_object_get(pl, "samples"));
        json_object_foreach(json_object_get(pl, "tasks"), task, v) {
            json_int_t x = json_integer_value(v);
            json_object_set_new(sum, task, json_integer(json_integer_value(json_object_get(sum, task)) + x));
            if (!json_object_get(max, task) || x > json_integer_value(json_object_get(max, task)))
                json_object_set_new(max, task, json_integer(x));
        }
    }
    json_object_foreach(replaced_tasks, task, v) {
        json_t *m = json_object_get(max, task);
        if (!m) continue;
        total -= json_integer_value(json_object_get(sum, task)) - json_integer_value(m);
        json_object_set(sum, task, m);
    }
    json_object_set_new(docs[0], "planned", json_pack("{s:I, s:O}", "samples", total, "tasks", sum));
out:
    json_decref(sum);
    json_decref(max);
}

bool eval_merge(json_t *const *docs, int n, bool replace, eval_merge_info *info) {
    memset(info, 0, sizeof *info);
    json_t *rows = json_array();
    json_t *seen = json_object();            /* key -> [index in rows, document] */
    json_t *replaced_tasks = json_object();  /* tasks with a row a later document replaced */
    pg_buf key = {0};
    bool ok = true;
    for (int d = 0; d < n && ok; d++) {
        size_t i;
        json_t *r;
        json_array_foreach(json_object_get(docs[d], "rows"), i, r) {
            /* eval_doc_check keeps these names free of '/': the key is unambiguous */
            key.len = 0;
            pg_buf_printf(&key, "%s/%s/%s/%lld", json_string_value(json_object_get(r, "task")),
                          json_string_value(json_object_get(r, "description")),
                          json_string_value(json_object_get(r, "config")),
                          (long long)json_integer_value(json_object_get(r, "sample")));
            json_t *at = json_object_get(seen, key.data);
            if (!at) {
                json_object_set_new(seen, key.data, json_pack("[I,i]", (json_int_t)json_array_size(rows), d));
                json_array_append(rows, r);
                continue;
            }
            int owner = (int)json_integer_value(json_array_get(at, 1));
            if (!replace) {
                info->first = owner;
                info->second = d;
                snprintf(info->key, sizeof info->key, "%s", key.data);
                ok = false;
                break;
            }
            /* the later verdict takes the earlier one's place: the order stays the run's */
            json_array_set(rows, (size_t)json_integer_value(json_array_get(at, 0)), r);
            json_array_set_new(at, 1, json_integer(d));
            if (owner != d) json_object_set_new(replaced_tasks, json_string_value(json_object_get(r, "task")), json_true());
            info->replaced++;
        }
    }
    if (ok) {
        json_object_set(docs[0], "rows", rows);
        merge_planned(docs, n, replaced_tasks);
    }
    pg_buf_free(&key);
    json_decref(replaced_tasks);
    json_decref(seen);
    json_decref(rows);
    return ok;
}

/* The shape every reader of a results document relies on (see eval.h). */
bool eval_doc_check(json_t *doc, char *why, size_t n) {
    if (!json_is_object(doc)) { snprintf(why, n, "$: not a JSON object"); return false; }
    json_t *rows = json_object_get(doc, "rows");
    if (!json_is_array(rows)) { snprintf(why, n, "$.rows: missing array"); return false; }
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r) {
        const char *keys[] = {"task", "description", "config", "family", "last_stage"};
        if (!json_is_object(r)) { snprintf(why, n, "$.rows[%zu]: not an object", i); return false; }
        for (int k = 0; k < 5; k++)
            if (!json_is_string(json_object_get(r, keys[k]))) { snprintf(why, n, "$.rows[%zu].%s: missing string", i, keys[k]); return false; }
        /* --time-pass builds file names from these: each must stay one plain path component */
        const char *names[] = {"task", "description", "config", "dir"};
        for (int k = 0; k < 4; k++) {
            const char *v = json_string_value(json_object_get(r, names[k]));
            if (v && (!*v || *v == '.' || strchr(v, '/'))) {
                snprintf(why, n, "$.rows[%zu].%s: '%.60s' is not a plain name", i, names[k], v);
                return false;
            }
        }
        if (!json_is_integer(json_object_get(r, "sample")) || json_integer_value(json_object_get(r, "sample")) < 0) {
            snprintf(why, n, "$.rows[%zu].sample: missing non-negative integer", i);
            return false;
        }
    }
    const char *strs[] = {"model", "device", "date", "arch"};
    for (int k = 0; k < 4; k++) {
        json_t *v = json_object_get(doc, strs[k]);
        if (!json_is_string(v)) { snprintf(why, n, "$.%s: missing string", strs[k]); return false; }
    }
    return true;
}
