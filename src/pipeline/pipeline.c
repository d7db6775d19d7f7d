/* pipeline.c — two-stage generation: the plan turn, nvcc on the plan, the literate
 * PTX turn.  See ptxgen/pipeline.h and docs/LITERATE.md. */
#define _GNU_SOURCE
#include "draw.h"
#include "plan.h"
#include "ptxgen/gpu.h"
#include "ptxgen/pipeline.h"
#include "ptxgen/ptx.h"
#include "ptxgen/synth_family.h"
#include "ptxgen/twin.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void pipe_out_free(pipe_out *o) {
    if (!o) return;
    free(o->plan);
    free(o->kernel);
    free(o->signature);
    free(o->ref_ptx);
    gen_result_free(&o->ptx);
    memset(o, 0, sizeof *o);
}

/* nvcc's literate PTX of the plan kept, canonical (with comments), as the training targets
 * are made (registers renumbered in first-use order first for a canonical-style model, as
 * `prompts`/`synth --regs canonical` do): the PTX turn's reference drafts.  On failure
 * out->ref_ptx stays NULL and out->ref_note says why (no error: the drafts are only guesses). */
static void make_ref_ptx(const pipe_in *in, const char *plan, const char *const *names, int np, pipe_out *out) {
    free(out->ref_ptx);
    out->ref_ptx = NULL;
    pg_buf lit = {0}, canon = {0};
    char why[300];
    const char *arch = in->gen.arch ? in->gen.arch : "sm_80";
    bool made = synth_cuda_literate_ptx(plan, out->kernel, names, np, arch, &lit, why, sizeof why);
    if (!made) snprintf(out->ref_note, sizeof out->ref_note, "%s", why);
    if (made && in->ref_regs_canonical) {
        ptx_module *m = NULL;
        pg_diag_sink q = {0};
        made = ptx_parse(lit.data, lit.len, "reference", &m, &q) == PG_OK && ptx_validate(m, &q) == PG_OK && !q.nerrors &&
               ptx_regs_renumber(m) == PG_OK;
        if (made) {
            pg_buf renum = {0};
            ptx_print(m, &renum);
            pg_buf_free(&lit);
            lit = renum;
        } else
            snprintf(out->ref_note, sizeof out->ref_note, "nvcc's PTX of the plan does not validate: its registers cannot be renumbered");
        ptx_module_free(m);
    }
    if (made && !pipe_canonical_ptx(lit.data, arch, 0, true, &canon, why, sizeof why))
        snprintf(out->ref_note, sizeof out->ref_note, "nvcc's PTX of the plan is not canonical: %.250s", why);
    else if (made) {
        out->ref_ptx = canon.data;
        canon.data = NULL;
        out->ref_note[0] = 0;
    }
    pg_buf_free(&lit);
    pg_buf_free(&canon);
}

pipe_plan_gpu pipe_plan_gpu_judge(const pipe_verdict *v, char *why, size_t n) {
    const eval_funnel_result *fr = &v->fr;
    if (!strcmp(v->gpu, "pass")) {
        snprintf(why, n, "correct on %d input set%s", fr->gpu_sets, fr->gpu_sets == 1 ? "" : "s");
        return PIPE_PLAN_GPU_RIGHT;
    }
    if (strcmp(v->check, "pass")) {   /* libptx's limits, not the plan's: nvcc wrote it */
        snprintf(why, n, "the validator refuses nvcc's PTX of the plan (%.300s)", fr->detail);
        return PIPE_PLAN_GPU_UNSETTLED;
    }
    if (strcmp(v->ptxas, "pass")) {
        snprintf(why, n, "ptxas %s nvcc's PTX of the plan (%.300s)", strcmp(v->ptxas, "fail") ? "did not run on" : "refuses",
                 v->why[0] ? v->why : fr->detail);
        return PIPE_PLAN_GPU_UNSETTLED;
    }
    if (!fr->gpu_ran || !fr->gpu_status || !strcmp(fr->gpu_status, "no-gpu") || !strcmp(fr->gpu_status, "setup-error")) {
        snprintf(why, n, "%.360s", fr->detail[0] ? fr->detail : v->why[0] ? v->why : "the harness did not run it");
        return PIPE_PLAN_GPU_UNSETTLED;
    }
    snprintf(why, n, "%s: %.360s", fr->stage, fr->detail);   /* wrong values, a fault, a hang, a module that does not load */
    return PIPE_PLAN_GPU_WRONG;
}

/* The GPU check of one plan (pipe_plan with gpu_check). */
typedef struct {
    bool on;                   /* run the plan (else nothing below is used) */
    gpu_memo *memo;            /* the GPU answers: pipe_in.memo, else the stage's own (NULL: asked every time) */
    bool own;                  /* memo is the stage's: freed when it ends */
    bool ran;                  /* nvcc's PTX of the plan went through the funnel: v holds its verdict */
    bool no_ptx;               /* nvcc is missing: no PTX to run */
    bool write_failed;
    pipe_verdict v;
} plan_gpu;

/* Check one plan: its kernel can be read (with a task: the task's kernel), nvcc compiles
 * it.  On success fills kernel/signature/nvcc_ran (and ref_ptx, drafting) and returns true;
 * else writes why into out->plan_note.  With g->on, nvcc's PTX of a plan that passed then runs
 * on the GPU against the task (the candidates' funnel, pipe_verify at level 2, g->memo): g->v. */
static bool check_plan(const char *plan, const pipe_in *in, pipe_out *out, plan_gpu *g, pg_diag_sink *diag) {
    g->ran = g->no_ptx = g->write_failed = false;
    twin_kernel tk;
    memset(&tk, 0, sizeof tk);
    pg_diag_sink quiet = {0};
    if (twin_parse(plan, "plan.cu", in->task ? in->task->kernel : NULL, &tk, &quiet) != PG_OK) {
        snprintf(out->plan_note, sizeof out->plan_note, "the plan has no extern \"C\" __global__ kernel%s%s ptxgen can read",
                 in->task ? " named " : "", in->task ? in->task->kernel : "");
        twin_kernel_free(&tk);
        return false;
    }
    char dir[512], path[600];
    pg_tmp_path(dir, sizeof dir, "ptxgen-plan-XXXXXX");
    if (!mkdtemp(dir)) {
        pg_diag_emit(diag, PG_E_IO, NULL, 0, 0, "cannot make a temporary folder for the plan");
        twin_kernel_free(&tk);
        return false;
    }
    snprintf(path, sizeof path, "%s/plan.cu", dir);
    twin_build b;
    memset(&b, 0, sizeof b);
    bool ok = pg_write_file_atomic(path, plan, strlen(plan), diag) == PG_OK && twin_compile(path, in->gen.arch, &b, diag) == PG_OK;
    if (ok && b.status == TWIN_BUILD_FAILED) {
        char first[300];
        twin_log_first_error(b.log ? b.log : "", first, sizeof first);
        snprintf(out->plan_note, sizeof out->plan_note, "nvcc rejects the plan: %s", first);
        ok = false;
    } else if (ok && b.status == TWIN_BUILD_OK && !strstr(b.ptx ? b.ptx : "", ".entry")) {
        /* a plan of comments only compiles to an empty module (round 6: 29 of the 32 cut suite plans) */
        snprintf(out->plan_note, sizeof out->plan_note, "nvcc's PTX of the plan has no kernel (.entry)");
        ok = false;
    } else if (ok && b.status == TWIN_BUILD_NO_NVCC && in->need_nvcc) {
        snprintf(out->plan_note, sizeof out->plan_note, "nvcc not found: the plan cannot be checked");
        ok = false;
    }
    if (ok && g->on && b.status == TWIN_BUILD_OK) {
        char ppath[620];
        snprintf(ppath, sizeof ppath, "%s/plan.ptx", dir);
        if (pg_write_file_atomic(ppath, b.ptx, strlen(b.ptx), diag) == PG_OK) {
            pipe_verify(b.ptx, ppath, in->gen.arch, in->task, 2, false, g->memo, &g->v);
            g->ran = true;
            unlink(ppath);
        } else g->write_failed = true;
    } else if (ok && g->on) g->no_ptx = true;
    if (ok) {
        out->nvcc_ran = b.status == TWIN_BUILD_OK;
        free(out->kernel);
        out->kernel = strdup(tk.kernel);
        pg_buf sig = {0};
        if (in->task) gen_signature_from_task(in->task, &sig);
        else if (!twin_ptx_signature(&tk, &sig)) pg_buf_free(&sig);   /* a type PTX cannot say: the model writes it */
        free(out->signature);
        out->signature = sig.data;
        if (in->gen.draft_max > 0 && !in->no_draft_ref) {   /* the reference drafts, parameters named as the signature names them */
            int np = !out->signature ? 0 : in->task ? in->task->nparams : tk.nparams;
            const char **names = calloc(np ? (size_t)np : 1, sizeof *names);
            for (int i = 0; names && i < np; i++) names[i] = in->task ? in->task->params[i].name : tk.params[i].name;
            make_ref_ptx(in, plan, names, names ? np : 0, out);
            free(names);
        }
    }
    twin_build_free(&b);
    twin_kernel_free(&tk);
    unlink(path);
    rmdir(dir);
    return ok;
}

/* The retrieved kernels of the request (none without a library). */
static int nearest(const pipe_in *in, gen_retr_hit hits[8]) {
    if (!in->retr) return 0;
    int k = in->retr_k <= 0 ? 2 : in->retr_k > 8 ? 8 : in->retr_k;
    return gen_retr_query(in->retr, in->request ? in->request : "", NULL, k, hits);
}

/* The model's plan k (pipe_plan's source): false when the draw failed (st says how); skip when
 * it was cut (looped, or the token limit): drawn again, not checked. */
typedef struct {
    model_model *m;
    const tok_tokenizer *t;
    const pipe_in *in;
    pipe_out *out;
    const char *prompt;
    pg_diag_sink *diag;
    pg_status st;
    bool skip;
} model_source;

static bool draw_plan(void *user, int k, pg_buf *plan) {
    model_source *ms = user;
    const pipe_in *in = ms->in;
    pipe_out *out = ms->out;
    gen_opts o = in->gen;
    o.max_tokens = in->plan_max_tokens > 0 ? in->plan_max_tokens : 1024;
    o.sampler.seed = in->gen.sampler.seed + (uint64_t)k;
    o.loop_stop = true;   /* a looping plan would run to the limit and be drawn again anyway: end it early */
    gen_result r;
    ms->skip = false;
    pg_status gs = pipe_draw(ms->m, ms->t, NULL, &(pipe_draw_req){PIPE_DRAW_FREE, ms->prompt, NULL, &o, 1}, &r, ms->diag);
    out->plan_decode_seconds += r.seconds;
    out->plan_steps += r.forwards;
    out->plan_drafted += r.drafted;
    out->plan_accepted += r.accepted;
    if (gs != PG_OK) { gen_result_free(&r); ms->st = gs; return false; }
    twin_strip_fence(r.ptx ? r.ptx : "", plan);
    out->plan_tokens = r.gen_tokens;
    out->plan_loops += r.looped;
    if (r.looped) snprintf(out->plan_note, sizeof out->plan_note, "the plan looped (%d tokens): ended early", r.gen_tokens);
    else if (!r.finished) snprintf(out->plan_note, sizeof out->plan_note, "the plan was cut at the token limit (%d)", o.max_tokens);
    ms->skip = !r.finished;
    gen_result_free(&r);
    return true;
}

/* The plan loop: a given plan, else up to plan_samples plans from next (the model's, or a test's). */
static pg_status plan_loop(pipe_plan_source next, void *user, model_source *ms, const pipe_in *in, pipe_out *out, pg_diag_sink *diag) {
    double t0 = now_s();
    int samples = in->plan ? 1 : in->plan_samples > 0 ? in->plan_samples : 4;
    pg_status st = PG_ERR_INVALID;
    plan_gpu g;
    memset(&g, 0, sizeof g);
    out->plan_gpu = "not run";
    char *fallback = NULL;   /* gpu_check: the last plan nvcc compiled that ran wrong (out->kernel ... are its) */
    int fallback_tokens = 0;
    char last_wrong[400] = "";
    bool gpu_on = in->gpu_check && in->task;
    for (int k = 0; k < samples && st != PG_OK; k++) {
        pg_buf plan = {0};
        if (in->plan) {
            pg_buf_puts(&plan, in->plan);
        } else {
            out->plan_attempts++;
            if (ms) ms->skip = false;
            if (!next(user, k, &plan)) { pg_buf_free(&plan); st = ms ? ms->st : PG_ERR_EXTERNAL; break; }
            if (ms && ms->skip) { pg_buf_free(&plan); continue; }
        }
        /* the harness for the first plan that reaches it: the request's memo, else one of the stage's own
         * (PTXGEN_GPU_MEMO=0: none, every check asks again, as pipe_select does) */
        if (gpu_on && !g.on) {
            char why[256] = "";
            g.own = !in->memo;
            g.memo = in->memo ? in->memo : gpu_memo_new();
            g.on = true;
            if (!gpu_memo_available(g.memo, why, sizeof why)) {
                snprintf(out->plan_gpu_note, sizeof out->plan_gpu_note, "the plan was not run on the GPU: no GPU (%.300s)", why);
                gpu_on = false;
            }
        }
        plan_gpu off;
        memset(&off, 0, sizeof off);
        plan_gpu *gp = gpu_on ? &g : &off;
        if (check_plan(plan.data ? plan.data : "", in, out, gp, diag)) {
            bool keep = true;
            if (gp->ran) {
                char why[400];
                out->plan_gpu_cuda_starts += gp->v.fr.gpu_cuda_starts;
                out->plan_gpu_refs += gp->v.fr.gpu_refs;
                pipe_plan_gpu j = pipe_plan_gpu_judge(&gp->v, why, sizeof why);
                out->plan_gpu_checked += j != PIPE_PLAN_GPU_UNSETTLED;   /* plans the GPU gave a verdict on */
                if (j == PIPE_PLAN_GPU_RIGHT) out->plan_gpu = "pass";
                else if (j == PIPE_PLAN_GPU_WRONG) {
                    out->plan_gpu_wrong++;
                    out->plan_gpu = "fail";
                    snprintf(last_wrong, sizeof last_wrong, "%.390s", why);
                    snprintf(out->plan_note, sizeof out->plan_note, "the plan ran wrong on the GPU: %.360s", why);
                    if (in->plan)   /* the user's plan: kept, with the warning */
                        snprintf(out->plan_gpu_note, sizeof out->plan_gpu_note, "the given plan ran wrong on the GPU (kept: you gave it): %.320s", why);
                    else {
                        keep = false;
                        free(fallback);
                        fallback_tokens = out->plan_tokens;
                        fallback = plan.data;
                        plan.data = NULL;
                    }
                } else {
                    out->plan_gpu = "not run";
                    snprintf(out->plan_gpu_note, sizeof out->plan_gpu_note, "the plan was not run on the GPU: %.360s", why);
                    gpu_on = false;   /* the next plans would meet the same limit */
                }
            } else if (gp->no_ptx) {
                snprintf(out->plan_gpu_note, sizeof out->plan_gpu_note, "the plan was not run on the GPU: nvcc not found (no PTX of the plan)");
                gpu_on = false;
            } else if (gp->write_failed) {
                snprintf(out->plan_gpu_note, sizeof out->plan_gpu_note, "the plan was not run on the GPU: cannot write nvcc's PTX of it to a temp file");
            }
            if (keep) {
                free(out->plan);
                out->plan = plan.data;
                plan.data = NULL;
                out->plan_note[0] = 0;
                st = PG_OK;
            }
        }
        pg_buf_free(&plan);
    }
    if (st == PG_ERR_INVALID && fallback) {   /* no plan ran right: the last one nvcc compiled, with a warning */
        out->plan = fallback;
        out->plan_tokens = fallback_tokens;
        fallback = NULL;
        out->plan_gpu = "fail";
        snprintf(out->plan_gpu_note, sizeof out->plan_gpu_note,
                 "no plan ran right on the GPU (%d of %d ran wrong): kept the last one nvcc compiles, which ran wrong (%.250s); "
                 "the kernel's own verification decides", out->plan_gpu_wrong, out->plan_gpu_checked, last_wrong);
        out->plan_note[0] = 0;
        st = PG_OK;
    }
    free(fallback);
    if (g.own) gpu_memo_free(g.memo);   /* the stage's own: its worker ends here, before the PTX turn's draws */
    if (st == PG_ERR_INVALID)
        pg_diag_emit(diag, PG_E_GEN, NULL, 0, 0, "no plan passed after %d attempt%s: %s", samples, samples > 1 ? "s" : "",
                     out->plan_note[0] ? out->plan_note : "(no reason recorded)");
    out->plan_seconds = now_s() - t0;
    return st;
}

pg_status pipe_plan_from(pipe_plan_source next, void *user, const pipe_in *in, pipe_out *out, pg_diag_sink *diag) {
    return plan_loop(next, user, NULL, in, out, diag);
}

pg_status pipe_plan(model_model *m, const tok_tokenizer *t, const pipe_in *in, pipe_out *out, pg_diag_sink *diag) {
    if (in->gen.format != GEN_FMT_CHATML) {
        pg_diag_emit(diag, PG_E_GEN, NULL, 0, 0, "the two-stage pipeline needs a chat model (ChatML prompts)");
        return PG_ERR_USAGE;
    }
    pg_buf csig = {0}, launch = {0}, prompt = {0};
    if (in->task) gen_c_signature_from_task(in->task, &csig);
    if (in->task) gen_launch_from_task(in->task, &launch);
    gen_retr_hit hits[8];
    int nh = nearest(in, hits);
    gen_prompt_build_plan_ex(in->request ? in->request : "", in->gen.arch, launch.data, csig.data, hits, nh, &prompt);
    pg_buf_free(&launch);
    /* the request's memo keeps its worker past this stage: the engine's child first, so it never holds the
     * worker's socket (the plan turn's first draw would fork it, but a given plan is checked before any draw) */
    if (in->memo && in->gpu_check && in->task) pipe_draw_start(m, t, NULL, &in->gen);
    model_source ms = {m, t, in, out, prompt.data, diag, PG_OK, false};
    pg_status st = plan_loop(draw_plan, &ms, &ms, in, out, diag);
    pg_buf_free(&csig);
    pg_buf_free(&prompt);
    return st;
}

pg_status pipe_ptx(model_model *m, const tok_tokenizer *t, const dec_vocab *v, const pipe_in *in, pipe_out *out,
                   pg_diag_sink *diag) {
    if (!out->plan) {
        pg_diag_emit(diag, PG_E_GEN, NULL, 0, 0, "no plan: run the plan stage first");
        return PG_ERR_USAGE;
    }
    pg_buf prompt = {0};
    gen_opts o;
    pipe_ptx_opts(in, out, &o, &prompt);
    pg_status st = pipe_draw(m, t, v, &(pipe_draw_req){PIPE_DRAW_SAMPLE, in->request ? in->request : "", NULL, &o, 1}, &out->ptx, diag);
    pg_buf_free(&prompt);
    return st;
}

void pipe_ptx_opts(const pipe_in *in, const pipe_out *out, gen_opts *o, pg_buf *prompt) {
    prompt->len = 0;
    gen_retr_hit hits[8];
    int nh = nearest(in, hits);
    pg_buf launch = {0};
    if (in->task) gen_launch_from_task(in->task, &launch);
    gen_prompt_build_ptx_plan_ex(in->request ? in->request : "", in->gen.arch, launch.data, out->plan ? out->plan : "", out->signature,
                                 hits, nh, prompt);
    pg_buf_free(&launch);
    *o = in->gen;
    o->prompt = prompt->data;
    o->signature = out->signature;
    o->entry_name = out->signature ? NULL : out->kernel;
    o->comment_max = PTX_LITERATE_LINE_MAX + 1;   /* " " + a plan line cut at PTX_LITERATE_LINE_MAX bytes, as the targets have it */
    o->plan = out->plan;   /* the comments quote the plan's own lines (dec_opts.plan) */
    o->draft_ref = o->draft_max > 0 ? out->ref_ptx : NULL;   /* nvcc's PTX of the plan: the turn follows it closely */
}

/* A string of the model folder's base.json into out ("" when the folder, the file or the key is missing). */
static void base_json_string(const char *model_path, const char *key, char *out, size_t n) {
    struct stat st;
    out[0] = 0;
    if (!model_path || stat(model_path, &st) != 0 || !S_ISDIR(st.st_mode)) return;
    char p[4200];
    snprintf(p, sizeof p, "%s/base.json", model_path);
    json_t *j = json_load_file(p, 0, NULL);
    const char *v = json_string_value(json_object_get(j, key));
    if (v && strlen(v) < n) snprintf(out, n, "%s", v);
    json_decref(j);
}

bool pipe_model_retrieval(const char *model_path, char *out, size_t n) {
    char name[256];
    base_json_string(model_path, "retrieval", name, sizeof name);
    return name[0] && !strchr(name, '/') && strcmp(name, "..") && strcmp(name, ".") &&
           (size_t)snprintf(out, n, "%s/%s", model_path, name) < n;
}

bool pipe_model_regs_named(const char *model_path) {
    char r[32];
    base_json_string(model_path, "regs", r, sizeof r);
    return !strcmp(r, "named");
}

bool pipe_model_regs_canonical(const char *model_path) {
    char r[32];
    base_json_string(model_path, "regs", r, sizeof r);
    return !strcmp(r, "canonical");
}

bool pipe_model_is_two_stage(const char *model_path) {
    char pl[64];
    base_json_string(model_path, "pipeline", pl, sizeof pl);
    return !strcmp(pl, "plan-literate");
}
