/* generate.c — `ptxgen gen` as one library call (pipe_generate, ptxgen/pipeline.h): the
 * request resolved to a signature and a kernel name, the model loaded, the two-stage plan,
 * the attempts and best-of-k, the twin, the files written and the report rendered.  Nothing
 * here prints: the lines `ptxgen gen` shows on stderr go to notes->fn, its stdout (the PTX,
 * the JSON, the explanation) to notes->out, in the order the command always printed them. */
#define _GNU_SOURCE
#include "ptxgen/pipeline.h"
#include "ptxgen/gpu.h"
#include "ptxgen/isa.h"
#include "ptxgen/ptx.h"
#include "draw.h"
#include "pipe_notes.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void out_text(const pipe_notes *n, const char *text) {
    if (n && n->out) n->out(n->user, text);
}

/* cli_usage_error's two lines */
#define USAGE_NOTE(...)                                               \
    do {                                                              \
        pipe_note(notes, "ptxgen gen: " __VA_ARGS__);                 \
        pipe_note(notes, "\ntry 'ptxgen help gen'\n");                \
    } while (0)

/* Where the attempts' time went (--json "stages"): drawing, then each attempt's funnel stages in
 * wall seconds; a candidate that was the same kernel as an earlier one ran nothing ("same_as"). */
static json_t *stages_json(const pipe_select_out *sel) {
    json_t *list = json_array();
    for (int i = 0; i < sel->nattempts; i++) {
        const pipe_attempt *a = &sel->attempts[i];
        const eval_funnel_result *f = &a->fr;
        json_t *row = json_pack("{s:i, s:s?, s:b, s:o, s:f, s:f, s:f, s:f}", "attempt", i + 1, "stage", a->stage, "passed",
                                a->passed, "same_as", a->same_as ? json_integer(a->same_as) : json_null(), "seconds", a->seconds,
                                "check_s", f->static_s, "ptxas_s", f->ptxas_s, "gpu_s", f->gpu_s);
        if (f->gpu_ran)   /* gpu_s in parts; the kernel's process in parts */
            json_object_set_new(row, "gpu", json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:i, s:i, s:i}", "probe_s", f->gpu_probe_s,
                                                      "nvcc_s", f->gpu_nvcc_s, "kernel_s", f->gpu_kernel_s, "setup_s", f->gpu_setup_s,
                                                      "sets_s", f->gpu_sets_s, "timing_s", f->gpu_timing_s, "baseline_s", f->gpu_baseline_s,
                                                      "cuda_starts", f->gpu_cuda_starts, "refs", f->gpu_refs, "baseline_runs",
                                                      f->gpu_baseline_runs));
        if (f->gpu_ran) {   /* what the checks asked of the device (issue 29 item 5) */
            json_t *g = json_object_get(row, "gpu");
            json_object_set_new(g, "htod_bytes", json_integer(f->gpu_htod_bytes));
            json_object_set_new(g, "dtoh_bytes", json_integer(f->gpu_dtoh_bytes));
            json_object_set_new(g, "dtod_bytes", json_integer(f->gpu_dtod_bytes));
            json_object_set_new(g, "allocs", json_integer(f->gpu_allocs));
            json_object_set_new(g, "syncs", json_integer(f->gpu_syncs));
            json_object_set_new(g, "resident_refreshed", json_integer(f->gpu_resident_refreshed));
            json_object_set_new(g, "prep_wait_s", json_real(f->gpu_prep_wait_s));
        }
        json_array_append_new(list, row);
    }
    json_t *st = json_pack("{s:f, s:f, s:i, s:o}", "draw_s", sel->draw_s, "verify_s", sel->verify_s, "verified", sel->nverified,
                           "attempts", list);
    /* the input sets prepared ahead (gpu_memo_prepare): where it stood when the attempts ended */
    const gpu_prep_stats *p = &sel->prep;
    json_object_set_new(st, "prepare", json_pack("{s:s, s:i, s:i, s:f, s:s?}", "state", p->state, "sets", p->sets, "total", p->total,
                                                 "seconds", p->seconds, "why", p->why[0] ? p->why : NULL));
    return st;
}

/* --verify gpu with a GPU, and no attempt reached it: what stopped them, by the stage each got to (an
 * attempt that took an earlier one's verdict counted as that one), e.g. "no candidate reached the GPU: 3
 * refused by the validator, 1 refused by ptxas". */
static void unreached_note(const pipe_select_out *sel, char *buf, size_t n) {
    int validator = 0, ptxas = 0, not_run = 0;
    for (int i = 0; i < sel->nattempts; i++) {
        const char *st = sel->attempts[i].stage ? sel->attempts[i].stage : "";
        validator += !strcmp(st, "validator");
        ptxas += !strcmp(st, "ptxas");
        not_run += !strcmp(st, "gpu-not-run");
    }
    /* ptxas ran for every attempt that passed the validator, or for none (not found): the kept one says which */
    bool no_ptxas = sel->bestv.ptxas && !strcmp(sel->bestv.ptxas, "not run");
    const char *gpu_why = strstr(sel->bestv.why, "gpu: not run (");   /* pipe_verify's "gpu: not run (<why>)" */
    char part[3][300] = {"", "", ""};
    if (validator) snprintf(part[0], sizeof part[0], "%d refused by the validator", validator);
    if (ptxas) snprintf(part[1], sizeof part[1], no_ptxas ? "%d not compiled (ptxas not found)" : "%d refused by ptxas", ptxas);
    if (not_run)
        snprintf(part[2], sizeof part[2], "%d passed ptxas, not run on the GPU%s%.200s", not_run, gpu_why ? " " : "",
                 gpu_why ? gpu_why + strlen("gpu: not run ") : "");
    size_t len = (size_t)snprintf(buf, n, "no candidate reached the GPU");
    const char *sep = ": ";
    for (int k = 0; k < 3; k++)
        if (part[k][0] && len < n) {
            len += (size_t)snprintf(buf + len, n - len, "%s%s", sep, part[k]);
            sep = ", ";
        }
}

int pipe_generate(const pipe_gen_req *req, const pipe_notes *notes, pg_diag_sink *diag) {
    const char *desc = req->request, *desc_file = req->request_file, *task_path = req->task_path, *model_dir = req->model_dir;
    const char *adapter = req->adapter, *outp = req->out_path, *bias_path = req->bias_path, *baseline = req->baseline;
    const char *kernel_opt = req->kernel, *name_opt = req->name;
    int samples = req->samples, threads = req->threads, level = req->level;
    bool explain = req->explain, json = req->json, no_bias = req->no_bias, no_adapter = req->no_adapter, force = req->force;
    bool twin = req->twin || req->twin_file;
    const char *twin_file = req->twin_file, *plan_file = req->plan_file, *ngram_path = req->ngram_path;
    bool plain = req->plain, single = req->single_stage;
    bool to_stdout = pg_out_is_stdout(outp);
    char *twin_src = NULL, *plan_src = NULL;
    gen_ngram *ngram = NULL;
    gen_retr *retr = NULL;
    pipe_in pin;
    pipe_out pout;
    pg_buf ptx_prompt = {0};
    memset(&pin, 0, sizeof pin);
    memset(&pout, 0, sizeof pout);
    pipe_twin tout;
    bool twin_ran = false;
    memset(&tout, 0, sizeof tout);
    gen_opts o = req->gen;
    /* --verify gpu without a GPU: candidates are still drawn and checked (validator, ptxas), the
     * best is written, and the verdict and exit status 3 say the semantics were not verified */
    char nogpu_why[256] = "";
    bool nogpu = level == 2 && !gpu_available(nogpu_why, sizeof nogpu_why);
    if (nogpu) pipe_note(notes, "ptxgen gen: --verify gpu needs a GPU (%s): checking up to ptxas only, semantics not verified\n", nogpu_why);
    int vlevel = nogpu ? 1 : level;
    bool best_of = level == 2 && !nogpu;   /* verified best-of-k: draw all k, keep the fastest correct */
        int rc = 2;
    char *desc_buf = NULL, *base_text = NULL;
    task_spec *task = NULL;
    gpu_memo *memo = NULL;   /* --verify gpu: the harness's memo, its input sets prepared ahead (the plans' checks and
                              * pipe_select's use it: one memo, one set of input sets, for the whole gen) */
    int prep_threads = 0;    /* the cores it prepares them with while the model draws */
    model_model *model = NULL;
    tok_tokenizer *tok = NULL;
    dec_vocab *vocab = NULL;
    dec_bias *bias = NULL;
    pg_buf sig = {0}, canon_base = {0}, tokpath = {0};
    gen_card card = {0};
    char mdir[4096], kernel[128] = "";
    pipe_select_out sel;   /* the kept candidate, its verdicts and attempt (pipe_select) */
    memset(&sel, 0, sizeof sel);
    const char *sig_source = "model";   /* who gave the signature: task, baseline, card, twin, plan or the model */

    if (desc_file) {
        size_t n;
        if (pg_read_file(desc_file, 1 << 20, &desc_buf, &n, diag) != PG_OK) goto out;
        desc = desc_buf;
        if (!desc[strspn(desc, " \t\r\n")]) { pipe_note(notes, "ptxgen gen: -f %s: the description is empty\n", desc_file); goto out; }
    }
    if (desc && !desc[strspn(desc, " \t\r\n")]) { pipe_note(notes, "ptxgen gen: the description is empty\n"); goto out; }
    if (task_path) {
        if (task_load(task_path, &task, diag) != PG_OK) goto out;
        /* no description given: the task's own, the most exact style it has */
        const char *own[] = {task->desc[TASK_STYLE_DETAILED], task->desc[TASK_STYLE_CARD], task->desc[TASK_STYLE_PROSE], task->desc[TASK_STYLE_ZH], task->desc[TASK_STYLE_TERSE]};
        for (size_t k = 0; !desc && k < sizeof own / sizeof own[0]; k++) desc = own[k];
        gen_signature_from_task(task, &sig);
        sig_source = "task";
        snprintf(kernel, sizeof kernel, "%s", task->kernel);
        if (name_opt && strcmp(name_opt, task->kernel)) {
            pipe_note(notes, "ptxgen gen: --name %s: the task names its kernel %s\n", name_opt, task->kernel);
            goto out;
        }
        task_block_max(task, o.block);   /* the constraint keeps .maxntid/.reqntid compatible with it */
        /* --verify gpu: the harness's input sets and their C references built now, in a process of their own,
         * while the model loads and writes the plan and the candidates (gpu_memo_prepare); the checks then
         * find them ready.  A CPU engine keeps its --threads cores. */
        if (vlevel >= 2 && (memo = gpu_memo_new())) {
            gpu_run_opts ro;
            gpu_run_opts_default(&ro);
            int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
            bool cpu_engine = !req->device || strcmp(req->device, "gpu");
            prep_threads = cpu_engine ? (ncpu - threads > 1 ? ncpu - threads : 1) : 0;
            gpu_memo_prepare(memo, task, &ro, prep_threads);
        }
    }
    if (baseline) {
        size_t n;
        ptx_module *bm = NULL;
        if (pg_read_file(baseline, 64 << 20, &base_text, &n, diag) != PG_OK) goto out;
        if (ptx_parse(base_text, n, baseline, &bm, diag) != PG_OK) { rc = 1; goto out; }
        ptx_print(bm, &canon_base);
        ptx_module_free(bm);
        if (!sig.len && !pipe_entry_signature(canon_base.data, kernel_opt, &sig)) {
            pipe_note(notes, "ptxgen gen: %s: no entry %s%s\n", baseline, kernel_opt ? "named " : "", kernel_opt ? kernel_opt : "");
            goto out;
        }
        o.baseline_ptx = canon_base.data;
        if (!strcmp(sig_source, "model")) sig_source = "baseline";
        if (!desc) desc = "";
    }
    if (!desc) { USAGE_NOTE("no description (give text, -f FILE, --task or --baseline)"); goto out; }
    if (twin && baseline) { pipe_note(notes, "ptxgen gen: --twin/--twin-file are for descriptions, not --baseline (its twin is the .cu it came from)\n"); goto out; }
    gen_card_parse(desc, &card);
    if (card.ok) desc = card.text;   /* a card on one line prompts as %%ptxgen sends it: one "- Key:" per line */
    if (!sig.len && card.ok) {
        char why[300];
        if (gen_signature_from_card(&card, &sig, why, sizeof why)) {
            sig_source = "card";
            const char *p = strstr(sig.data, ".entry ");
            if (p) snprintf(kernel, sizeof kernel, "%.*s", (int)strcspn(p + 7, "("), p + 7);
        } else {
            pipe_note(notes, "gen: note: the card's signature was not used (%s); the model writes it\n", why);
            sig.len = 0;
        }
    }
    if (sig.len && name_opt && strcmp(kernel, name_opt)) {   /* --name renames the card's kernel */
        pg_buf renamed = {0};
        const char *p = strstr(sig.data, ".entry ");
        if (p) {
            pg_buf_printf(&renamed, "%.*s.entry %s%s", (int)(p - sig.data), sig.data, name_opt, p + 7 + strlen(kernel));
            pg_buf_free(&sig);
            sig = renamed;
            snprintf(kernel, sizeof kernel, "%s", name_opt);
        }
    }
    char name_from_twin[128];   /* the twin's kernel name when its signature cannot be forced */
    if (twin_file) {   /* the user's twin: its signature is forced when nothing else gives one */
        size_t n;
        twin_kernel tk;
        if (pg_read_file(twin_file, 4 << 20, &twin_src, &n, diag) != PG_OK) goto out;
        const char *want = kernel[0] ? kernel : name_opt;
        if (twin_parse(twin_src, twin_file, want, &tk, diag) != PG_OK) goto out;
        if (!pipe_name_ok(tk.kernel)) {
            pipe_note(notes, "ptxgen gen: %s:%d: kernel name '%s': want an identifier of at most 32 letters, digits and '_'\n",
                    twin_file, tk.line, tk.kernel);
            twin_kernel_free(&tk);
            goto out;
        }
        if (!sig.len) {
            if (name_opt && strcmp(name_opt, tk.kernel)) {
                pipe_note(notes, "ptxgen gen: --name %s: the twin %s names its kernel %s\n", name_opt, twin_file, tk.kernel);
                twin_kernel_free(&tk);
                goto out;
            }
            if (twin_ptx_signature(&tk, &sig)) { snprintf(kernel, sizeof kernel, "%s", tk.kernel); sig_source = "twin"; }
            else {
                pipe_note(notes, "gen: note: the twin's signature has a parameter of unknown type; the model writes the signature\n");
                sig.len = 0;
                if (!name_opt) name_opt = name_from_twin, snprintf(name_from_twin, sizeof name_from_twin, "%s", tk.kernel);
            }
        }
        twin_kernel_free(&tk);
    }
    if (sig.len) o.signature = sig.data;
    else {   /* the model writes the parameters; the name comes from --name, the card or the request */
        if (name_opt) snprintf(kernel, sizeof kernel, "%s", name_opt);
        else if (card.ok && pipe_name_ok(card.kernel)) snprintf(kernel, sizeof kernel, "%s", card.kernel);
        else pipe_name_from_request(desc, kernel, sizeof kernel);
        o.entry_name = kernel;
    }

    /* without -o, --json and --twin write <kernel>.ptx (and its twin files): never over an existing file unless --force */
    char defpath[200];
    snprintf(defpath, sizeof defpath, "%s.ptx", pipe_name_ok(kernel) ? kernel : "generated");
    unsigned def_flags = force ? 0 : PG_OUT_NO_CLOBBER;
    tout.out_flags = outp ? 0 : def_flags;
    if (!outp && (json || twin) && !force) {
        char sib[2][220];
        pipe_sibling_path(defpath, ".cu", sib[0], sizeof sib[0]);
        pipe_sibling_path(defpath, ".task.json", sib[1], sizeof sib[1]);
        const char *clash = access(defpath, F_OK) == 0 ? defpath
                            : twin && access(sib[0], F_OK) == 0 && !(twin_file && pipe_same_file(twin_file, sib[0])) ? sib[0]
                            : twin && !task_path && access(sib[1], F_OK) == 0 ? sib[1] : NULL;
        if (clash) {
            pipe_note(notes, "ptxgen gen: %s exists; not overwritten: name the output with -o, or pass --force to replace it\n", clash);
            goto out;
        }
    }

    if (model_dir) snprintf(mdir, sizeof mdir, "%s", model_dir);
    else if (req->default_model) snprintf(mdir, sizeof mdir, "%s", req->default_model);
    else {
        pipe_note(notes, "ptxgen gen: no model: pass --model DIR, set $PTXGEN_MODEL, or run from the repository root (models/qwen15-plan, models/qwen-plan or models/default)\n");
        goto out;
    }
    /* Super-optimization mode: the default model brings its own adapter
     * (models/superopt, trained on nvcc-baseline -> faster-kernel pairs). */
    char sodir[4200];
    if (baseline && !adapter && !no_adapter) {
        const char *env = getenv("PTXGEN_SUPEROPT_ADAPTER");
        if (env && *env) adapter = env;
        else if (!model_dir) {
            snprintf(sodir, sizeof sodir, "%s/../superopt/adapter_config.json", mdir);
            if (access(sodir, R_OK) == 0) {
                sodir[strlen(sodir) - strlen("/adapter_config.json")] = 0;
                adapter = sodir;
                /* it was trained over the 15M models/default: the default there, not the two-stage adapter */
                char dd[4200];
                snprintf(dd, sizeof dd, "%s/../default/config.json", mdir);
                const char *base = strrchr(mdir, '/');
                if (strcmp(base ? base + 1 : mdir, "default") && access(dd, R_OK) == 0)
                    snprintf(mdir, sizeof mdir, "%.4000s/../default", req->default_model);
            }
        }
    }
    if (baseline && adapter) pipe_note(notes, "gen: super-optimization mode, adapter %s\n", adapter);
    /* the default model's base is pinned: a base file with another sha256 is refused */
    /* the GPU engine starts in the children that draw (draw.h): this process runs the GPU harness */
    model_load_opts lo = {adapter, threads, NULL, !model_dir, false, req->device, true};
    if (model_load(mdir, &lo, &model, diag) != PG_OK) goto out;
    char tpath[8400];
    if (model_tokenizer_path(mdir, tpath, sizeof tpath, diag) != PG_OK) goto out;
    pg_buf_printf(&tokpath, "%s", tpath);
    if (tok_load(tokpath.data, &tok, diag) != PG_OK) goto out;
    if (dec_vocab_new(tok, &vocab, diag) != PG_OK) goto out;
    o.format = gen_prompt_fmt_of(tok);
    {   /* the n-gram table of training kernels: --ngram, else ngram.bin beside the model's adapter */
        char np[4200];
        snprintf(np, sizeof np, "%s/ngram.bin", mdir);
        const char *use = ngram_path ? ngram_path : access(np, R_OK) == 0 ? np : NULL;
        if (use && gen_ngram_load(use, tok, &ngram, diag) != PG_OK) goto out;
        o.ngram = ngram;
    }
    if (!no_bias && o.constrained) {
        pg_status bs = bias_path ? dec_bias_load(bias_path, vocab, &bias, diag) : dec_bias_default(vocab, &bias, diag);
        if (bs != PG_OK) goto out;
        o.bias = bias;
    }
    pipe_draw_bind(model, tok, vocab, bias, ngram);   /* a deferred GPU engine: one child serves every draw (draw.h) */

    /* the two-stage model (docs/LITERATE.md): its plan in CUDA C first, checked by nvcc; the PTX turns follow it */
    bool two = !baseline && !single && (pipe_model_is_two_stage(mdir) || plan_file);
    /* the register style the constraint admits: the model's (base.json "regs") unless --regs says which */
    o.regs_named = req->regs == PIPE_REGS_NAMED || (req->regs == PIPE_REGS_MODEL && pipe_model_regs_named(mdir));
    if (plan_file && !pipe_model_is_two_stage(mdir)) {
        pipe_note(notes, "ptxgen gen: --plan needs a two-stage model (base.json \"pipeline\": \"plan-literate\"); %s is not one\n", mdir);
        goto out;
    }
    if (req->retrieve_path && !two) {
        pipe_note(notes, "ptxgen gen: --retrieve needs a two-stage model (base.json \"pipeline\": \"plan-literate\")%s\n",
                  single ? " without --single-stage" : "");
        goto out;
    }
    if (two) {
        if (plan_file) {
            size_t n;
            if (pg_read_file(plan_file, 4 << 20, &plan_src, &n, diag) != PG_OK) goto out;
        }
        char rpath[4300];
        const char *rp = req->retrieve_path ? req->retrieve_path : pipe_model_retrieval(mdir, rpath, sizeof rpath) ? rpath : NULL;
        if (rp) {   /* the library the model's prompts were trained with (docs/LITERATE.md "Retrieval") */
            if (gen_retr_load(rp, &retr, diag) != PG_OK) goto out;
            gen_retr_hit h[8];
            int k = req->retrieve_k > 0 ? req->retrieve_k : 2, nh = gen_retr_query(retr, desc ? desc : "", NULL, k > 8 ? 8 : k, h);
            pipe_note(notes, "gen: retrieval: %d of %d kernels of %s in the prompts%s%s%s%s\n", nh, gen_retr_count(retr), rp,
                      nh ? " (" : "", nh ? h[0].task : "", nh > 1 ? ", ..." : "", nh ? ")" : "");
            pin.retr = retr;
            pin.retr_k = req->retrieve_k;
        }
        pin.request = desc;
        pin.task = task;
        pin.plan = plan_src;
        pin.gen = o;
        pin.plan_samples = samples;
        pin.no_draft_ref = req->no_draft_ref;
        pin.ref_regs_canonical = pipe_model_regs_canonical(mdir);   /* the reference drafts written as the model numbers */
        /* --verify gpu --task: each plan nvcc compiles also runs against the task's reference, a wrong one is
         * drawn again (pipe_plan); a plan that runs wrong almost never gives a right kernel (round 12: 0 of 21) */
        pin.gpu_check = level == 2 && task && !req->no_plan_check;
        /* with gen's memo: the sets its preparation builds serve the plans and the candidates, built once
         * (NULL, PTXGEN_GPU_MEMO=0: the stage asks every time too) */
        pin.memo = memo;
        rc = 1;
        pg_status pst = pipe_plan(model, tok, &pin, &pout, diag);
        /* a plan's check gave the preparation every core: the draws come first again */
        if (pin.gpu_check) gpu_memo_prepare_threads(memo, prep_threads);
        if (pst != PG_OK) goto out;
        char gpu_part[120] = "";
        if (pout.plan_gpu_checked)
            snprintf(gpu_part, sizeof gpu_part, ", %s on the GPU (%d plan%s run, %d wrong)",
                     !strcmp(pout.plan_gpu, "pass") ? "runs right" : !strcmp(pout.plan_gpu, "fail") ? "RUNS WRONG" : "not judged",
                     pout.plan_gpu_checked, pout.plan_gpu_checked == 1 ? "" : "s", pout.plan_gpu_wrong);
        else if (pin.gpu_check)
            snprintf(gpu_part, sizeof gpu_part, ", not run on the GPU");
        pipe_note(notes, "gen: plan: kernel %s, %s%s%s (%d attempt%s, %d tokens, %.1f s)\n", pout.kernel,
                plan_src ? "given" : "the model's", pout.nvcc_ran ? ", nvcc compiles it" : ", not compiled (no nvcc)", gpu_part,
                pout.plan_attempts, pout.plan_attempts == 1 ? "" : "s", pout.plan_tokens, pout.plan_seconds);
        if (pout.plan_gpu_note[0])
            pipe_note(notes, "gen: plan: %s%s\n", !strcmp(pout.plan_gpu, "fail") ? "warning: " : "", pout.plan_gpu_note);
        else if (level == 2 && task && req->no_plan_check)
            pipe_note(notes, "gen: plan: not run on the GPU (--no-plan-check)\n");
        if (o.draft_max > 0 && !req->no_draft_ref && pout.ref_ptx)
            pipe_note(notes, "gen: drafts: nvcc's literate PTX of the plan is the reference (%zu bytes%s)\n", strlen(pout.ref_ptx),
                      pin.ref_regs_canonical ? ", registers renumbered in first-use order as the model writes them" : "");
        else if (o.draft_max > 0 && !req->no_draft_ref)
            pipe_note(notes, "gen: drafts: no reference PTX of the plan (%s)\n", pout.ref_note);
        if (!sig.len && pout.signature) {   /* a free-form request: the plan names the kernel and its parameters */
            pg_buf_puts(&sig, pout.signature);
            snprintf(kernel, sizeof kernel, "%s", pout.kernel);
            sig_source = "plan";
        }
        pipe_ptx_opts(&pin, &pout, &o, &ptx_prompt);
        if (sig.len) o.signature = sig.data;
        if (twin && !twin_src) twin_src = strdup(pout.plan);   /* the plan is the twin */
    }

    char tmpdir[600];
    pg_tmp_path(tmpdir, sizeof tmpdir, "ptxgen-gen-XXXXXX");
    if (!mkdtemp(tmpdir)) { pipe_note(notes, "ptxgen gen: cannot create a temp dir: %s\n", strerror(errno)); goto out; }
    uint64_t seed0 = o.sampler.seed;
    rc = 1;
    pipe_select_in si = {desc, task, samples, vlevel, best_of, tmpdir, memo};
    pg_status sst = pipe_select(model, tok, vocab, &o, &si, &sel, notes, diag);
    if (!strcmp(sel.prep.state, "failed"))   /* reported, not swallowed: the checks that reached that size said it too */
        pipe_note(notes, "gen: note: preparing the input sets ahead failed (%s); each check built the sets it reached itself\n", sel.prep.why);
    if (sst != PG_OK) { rc = sel.write_failed ? 2 : 1; goto cleanup; }
    if (sel.passed) rc = 0;
    if (nogpu) rc = 3;
    if (!kernel[0] && sel.best.ptx) {
        const char *p = strstr(sel.best.ptx, ".entry ");
        if (p) snprintf(kernel, sizeof kernel, "%.*s", (int)strcspn(p + 7, "( \n"), p + 7);
    }
    unsigned out_flags = outp ? 0 : def_flags;
    if (!outp && twin && sel.best.ptx) { snprintf(defpath, sizeof defpath, "%s.ptx", pipe_name_ok(kernel) ? kernel : "generated"); outp = defpath; }
    if (twin && sel.best.ptx) {
        pipe_twin_in ti = {desc, samples, seed0, outp, twin_src, twin_file, task, tmpdir};
        pipe_twin_phase(model, tok, vocab, &o, &ti, &sel, &tout, notes, diag);
        twin_ran = true;
        if (tout.write_failed) { rc = 2; goto cleanup; }
        if (tout.verdict == TWIN_V_DIFFERS) rc = 1;
        else if (tout.verdict == TWIN_V_AGREES && rc == 1) rc = 0;
    }
    if (!outp && json) { snprintf(defpath, sizeof defpath, "%s.ptx", pipe_name_ok(kernel) ? kernel : "generated"); outp = defpath; }
    if (plain && sel.best.ptx) pipe_strip_plan_lines(sel.best.ptx);
    if (outp) {
        if (pg_write_file(outp, sel.best.ptx, strlen(sel.best.ptx), out_flags, diag) != PG_OK) { rc = 2; goto cleanup; }
    } else if (!json) {
        out_text(notes, sel.best.ptx);
        to_stdout = true;
    }
    char plan_path[4200] = "";
    if (two && outp && !to_stdout && !twin_ran) {   /* the plan beside the kernel: its CUDA C twin (--twin writes it as <out>.cu itself) */
        const char *dot = strrchr(outp, '.');
        snprintf(plan_path, sizeof plan_path, "%.*s.cu", (int)(dot && !strchr(dot, '/') ? dot - outp : (long)strlen(outp)), outp);
        if (pg_write_file(plan_path, pout.plan, strlen(pout.plan), out_flags, diag) != PG_OK) { rc = 2; goto cleanup; }
        pipe_note(notes, "gen: plan -> %s\n", plan_path);
    }
    int toks = sel.best.gen_tokens + sel.best.forced_tokens;
    double tps = sel.best.seconds > 0 ? toks / sel.best.seconds : 0;
    /* what was verified, said plainly: only the GPU run against a task's reference checks what it computes */
    const char *semantics = !strcmp(sel.bestv.gpu, "pass") ? "correct" : !strcmp(sel.bestv.gpu, "fail") ? "wrong" : "not verified";
    char nogpu_note[300];
    snprintf(nogpu_note, sizeof nogpu_note, "no GPU: %s", nogpu_why);
    char unreached[400];   /* --verify gpu ran, no candidate got that far */
    unreached_note(&sel, unreached, sizeof unreached);
    const char *sem_note = !strcmp(sel.bestv.gpu, "pass") ? "matches the task's reference on every input set (GPU)"
                           : !strcmp(sel.bestv.gpu, "fail") ? "differs from the task's reference or did not run (GPU)"
                           : !task && twin_ran ? "no task says what it should compute; compared with its CUDA twin instead (the twin line)"
                           : !task ? "no task says what it should compute; use --task spec.json --verify gpu"
                           : nogpu ? nogpu_note : level < 2 ? "--verify gpu was not requested" : unreached;
    pipe_note(notes, "gen: %s: %d tokens (%d forced%s) in %.2f s (%.0f tok/s, %s), model %s, %d registers; validator %s, ptxas %s, gpu %s; "
                    "semantics %s (%s); attempt %d/%d%s%s\n",
            kernel[0] ? kernel : "?", toks, sel.best.forced_tokens, sel.best.cut ? "; cut short by the token budget" : "", sel.best.seconds,
            tps, model_device(model), mdir, sel.bestv.registers, sel.bestv.check, sel.bestv.ptxas,
            sel.bestv.gpu, semantics, sem_note, sel.best_attempt, samples, outp ? " -> " : "", outp ? outp : "");
    /* what the line above cannot say on its own */
    bool unfinished = sel.best.ptx && sel.best.cut && strcmp(sel.bestv.gpu, "pass") && !(twin_ran && tout.verdict == TWIN_V_AGREES);
    if (unfinished)
        pipe_note(notes, "gen: UNFINISHED: the token budget (--max-tokens %d) ran out before the model ended the kernel, so %s "
                        "is a stub, not a finished kernel (exit 1): raise --max-tokens\n",
                o.max_tokens, outp ? outp : "the output");
    if (sel.best.ptx && sel.bestv.unwritten[0])
        pipe_note(notes, "gen: WRONG: %s reads %s before any instruction writes it, so it computes with whatever the register "
                        "held (exit 1): a load or an initial value is missing; raise --samples for more attempts\n",
                outp ? outp : "the kernel", sel.bestv.unwritten);
    if (!strcmp(sig_source, "model")) {   /* with how many names were renamed, when any were */
        char renamed[96] = "";
        if (sel.best.params_renamed)
            snprintf(renamed, sizeof renamed, ": %d parameter name(s) not in the request renamed a<k>", sel.best.params_renamed);
        pipe_note(notes, "gen: the signature was invented by the model (no card, --task or twin gave one)%s; give the "
                        "parameters with a Markdown kernel card (see examples/saxpy.card.md) or --task spec.json\n", renamed);
    }
    pg_buf actual_sig = {0};
    if (sel.best.ptx) gen_signature_from_module(sel.best.ptx, &actual_sig);
    pg_buf twin_line = {0};
    if (twin_ran) {
        pipe_utf8_clean(tout.detail);
        twin_verdict_line(tout.verdict, tout.sets, tout.detail, &twin_line);
        pipe_note(notes, "gen: twin %s -> %s%s%s: %s\n", tout.generated ? "(second turn of the model)" : "(given)", tout.cu_path,
                tout.task_written ? ", task " : "", tout.task_written ? tout.task_path : "", twin_line.data);
    }
    if (json) {
        json_t *j = json_pack("{s:s?, s:s, s:s?, s:s, s:i, s:i, s:i, s:f, s:f, s:i, s:{s:s, s:s, s:s}, s:i, s:b, s:i, s:f, s:s}",
                              "ptx_file", outp, "kernel", kernel, "signature", actual_sig.data, "model",
                              model_get_config(model)->model_id, "tokens", toks, "forced_tokens", sel.best.forced_tokens,
                              "prompt_tokens", sel.best.prompt_tokens, "seconds", sel.best.seconds, "tokens_per_s", tps,
                              "registers", sel.bestv.registers, "verdicts", "check", sel.bestv.check, "ptxas", sel.bestv.ptxas, "gpu",
                              sel.bestv.gpu, "attempts", sel.best_attempt, "finished", sel.best.finished, "mask_calls", sel.best.mask_calls,
                              "mask_seconds", sel.best.mask_seconds, "why", sel.bestv.why);
        /* the decoding alone, after the prompt's prefill (the CPU engine's samples): wall and process CPU */
        json_object_set_new(j, "decode_seconds", json_real(sel.best.decode_seconds));
        json_object_set_new(j, "decode_cpu_seconds", json_real(sel.best.decode_cpu_seconds));
        json_object_set_new(j, "device", json_pack("{s:s, s:s}", "name", model_device(model), "detail", model_device_desc(model)));
        json_object_set_new(j, "semantics", json_string(semantics));
        json_object_set_new(j, "model_dir", json_string(mdir));   /* the folder: --model, $PTXGEN_MODEL or the search's */
        json_object_set_new(j, "reads_unwritten", sel.bestv.unwritten[0] ? json_string(sel.bestv.unwritten) : json_null());
        if (two) {
            json_t *pl = json_pack("{s:s, s:b, s:i, s:i, s:f, s:f, s:{s:i, s:i, s:i}}", "source", plan_src ? "given" : "model",
                                   "nvcc_compiles", pout.nvcc_ran, "attempts", pout.plan_attempts, "tokens", pout.plan_tokens, "seconds",
                                   pout.plan_seconds, "decode_seconds", pout.plan_decode_seconds, "speculative", "model_steps",
                                   pout.plan_steps, "drafted", pout.plan_drafted, "accepted", pout.plan_accepted);
            if (plan_path[0]) json_object_set_new(pl, "file", json_string(plan_path));
            json_object_set_new(pl, "loops", json_integer(pout.plan_loops));
            /* the plans' GPU check (--verify gpu --task): how many ran, how many ran wrong, the kept one's verdict */
            json_object_set_new(pl, "gpu_check", json_boolean(pin.gpu_check));
            json_object_set_new(pl, "gpu_checked", json_integer(pout.plan_gpu_checked));
            json_object_set_new(pl, "gpu_wrong", json_integer(pout.plan_gpu_wrong));
            json_object_set_new(pl, "gpu", json_string(pout.plan_gpu ? pout.plan_gpu : "not run"));
            json_object_set_new(pl, "gpu_note", pout.plan_gpu_note[0] ? json_string(pout.plan_gpu_note) : json_null());
            /* what the plans' checks cost the harness (gen's memo: the candidates' "stages" counts go on from here) */
            json_object_set_new(pl, "gpu_cuda_starts", json_integer(pout.plan_gpu_cuda_starts));
            json_object_set_new(pl, "gpu_refs", json_integer(pout.plan_gpu_refs));
            json_object_set_new(j, "pipeline", json_string("plan-literate"));
            json_object_set_new(j, "plan", pl);
        }
        json_object_set_new(j, "signature_source", json_string(sig_source));   /* "model": invented, not asked for */
        json_object_set_new(j, "regs", json_string(o.regs_named ? "named" : "numbered"));   /* the style the constraint admitted */
        json_object_set_new(j, "params_renamed", json_integer(sel.best.params_renamed));
        json_object_set_new(j, "unfinished", json_boolean(unfinished));
        json_t *spec = json_pack("{s:i, s:i, s:i, s:i, s:i}", "draft_max", o.draft_max, "model_steps", sel.best.forwards, "drafted",
                                 sel.best.drafted, "accepted", sel.best.accepted, "jumped", sel.best.jumped);
        json_t *by = json_object();   /* per draft source: [drafted, accepted] */
        for (int s = 0; s < GEN_DRAFT_NSRC; s++)
            json_object_set_new(by, gen_draft_src_name((gen_draft_src)s), json_pack("[i, i]", sel.best.drafted_by[s], sel.best.accepted_by[s]));
        json_object_set_new(spec, "by_source", by);
        json_object_set_new(spec, "rows", json_integer(sel.best.forwards + sel.best.drafted));   /* rows forwarded: one a step + the drafts */
        json_object_set_new(spec, "fallbacks", json_integer(sel.best.draft_fallbacks));
        json_object_set_new(spec, "renamed", json_integer(sel.best.draft_renamed));
        json_object_set_new(j, "speculative", spec);
        /* draws made from each row's top 64 (the GPU engine keeps the rows on the device), and those that needed the row */
        json_object_set_new(j, "top_candidates", json_pack("{s:i, s:i}", "decided", sel.best.top_decided, "whole_row", sel.best.top_full));
        json_object_set_new(j, "semantics_note", json_string(sem_note));
        if (twin_ran) {
            json_t *tw = json_pack("{s:s, s:b, s:s, s:s, s:i, s:i}", "file", tout.cu_path, "generated", tout.generated, "verdict",
                                   twin_verdict_name(tout.verdict), "line", twin_line.data, "input_sets", tout.sets, "attempts",
                                   tout.attempts);
            if (tout.task_written) json_object_set_new(tw, "task_file", json_string(tout.task_path));
            if (tout.detail[0]) json_object_set_new(tw, "detail", json_string(tout.detail));
            json_object_set_new(tw, "nvcc", tout.nvcc[0] ? json_string(tout.nvcc) : json_null());
            json_object_set_new(j, "twin", tw);
        }
        if (best_of) {   /* verified best-of-k: what was drawn and what was kept */
            json_t *b = json_pack("{s:i, s:i, s:i, s:s}", "drawn", samples, "correct", sel.ncorrect, "verified", sel.nverified,
                                  "kept_stage", sel.bestv.fr.stage);
            if (sel.bestv.fr.speedup > 0) json_object_set_new(b, "speedup", json_real(sel.bestv.fr.speedup));
            if (sel.bestv.fr.hygiene) json_object_set_new(b, "hygiene", json_string(sel.bestv.fr.hygiene));
            json_object_set_new(j, "best_of", b);
        }
        json_object_set_new(j, "stages", stages_json(&sel));
        char *s = json_dumps(j, JSON_INDENT(2));
        out_text(notes, s);
        out_text(notes, "\n");
        free(s);
        json_decref(j);
    } else if (explain && !strcmp(sel.bestv.check, "pass")) {
        ptx_module *m = NULL;
        pg_diag_sink q = {0};
        /* the explainer reads the forms the validator matched */
        if (ptx_parse(sel.best.ptx, strlen(sel.best.ptx), outp ? outp : "generated", &m, &q) == PG_OK &&
            ptx_validate(m, &q) == PG_OK) {
            pg_buf e = {0};
            ptx_explain_module(m, &e);
            if (to_stdout) pipe_note(notes, "%s", e.data);   /* never into PTX on stdout */
            else out_text(notes, e.data);
            pg_buf_free(&e);
        }
        ptx_module_free(m);
    }
    pg_buf_free(&twin_line);
    pg_buf_free(&actual_sig);
cleanup:
    rmdir(tmpdir);
out:
    pipe_select_out_free(&sel);
    gpu_memo_free(memo);   /* before the task it prepares */
    gen_card_free(&card);
    dec_bias_free(bias);
    gen_ngram_free(ngram);
    gen_retr_free(retr);
    dec_vocab_free(vocab);
    tok_free(tok);
    model_free(model);
    task_free(task);
    free(desc_buf);
    free(base_text);
    free(twin_src);
    free(plan_src);
    pipe_out_free(&pout);
    pg_buf_free(&ptx_prompt);
    pg_buf_free(&sig);
    pg_buf_free(&canon_base);
    pg_buf_free(&tokpath);
    return rc;
}

/* ---- pipe_generate_json: the same call for bindings (ctypes) ---------------------------- */

typedef struct {
    pg_buf *out, *log;
} json_sinks;

static void to_out(void *user, const char *text) { pg_buf_puts(((json_sinks *)user)->out, text); }
static void to_log(void *user, const char *text) { pg_buf_puts(((json_sinks *)user)->log, text); }
static void diag_to_log(void *user, const pg_diag *d) {
    char buf[1024];
    pg_diag_format(d, buf, sizeof buf);
    pg_buf_printf(((json_sinks *)user)->log, "%s\n", buf);
}

static const char *jstr(json_t *r, const char *k) { return json_string_value(json_object_get(r, k)); }
static bool jbool(json_t *r, const char *k) { return json_is_true(json_object_get(r, k)); }

int pipe_generate_json(const char *request_json, pg_buf *out, pg_buf *log) {
    json_sinks js = {out, log};
    pipe_notes nb = {to_log, &js, to_out};
    const pipe_notes *notes = &nb;
    json_error_t e;
    json_t *r = request_json ? json_loads(request_json, 0, &e) : NULL;
    if (!json_is_object(r)) {
        pg_buf_printf(log, "ptxgen gen: the request is not a JSON object%s%s\n", r ? "" : ": ", r ? "" : e.text);
        json_decref(r);
        return 2;
    }
    pipe_gen_req req;
    memset(&req, 0, sizeof req);
    gen_opts_default(&req.gen);
    req.request = jstr(r, "request");
    req.request_file = jstr(r, "request_file");
    req.task_path = jstr(r, "task");
    req.model_dir = jstr(r, "model");
    req.adapter = jstr(r, "adapter");
    req.no_adapter = jbool(r, "no_adapter");
    req.out_path = jstr(r, "out");
    req.force = jbool(r, "force");
    req.bias_path = jstr(r, "bias");
    req.no_bias = jbool(r, "no_bias");
    req.baseline = jstr(r, "baseline");
    req.kernel = jstr(r, "kernel");
    req.name = jstr(r, "name");
    req.twin = jbool(r, "twin");
    req.twin_file = jstr(r, "twin_file");
    req.plan_file = jstr(r, "plan");
    req.ngram_path = jstr(r, "ngram");
    req.retrieve_path = jstr(r, "retrieve");
    req.plain = jbool(r, "plain");
    req.single_stage = jbool(r, "single_stage");
    req.no_draft_ref = jbool(r, "no_draft_ref");
    req.no_plan_check = jbool(r, "no_plan_check");
    req.device = jstr(r, "device");
    const char *regs = jstr(r, "regs");
    req.regs = !regs ? PIPE_REGS_MODEL : !strcmp(regs, "named") ? PIPE_REGS_NAMED : !strcmp(regs, "numbered") ? PIPE_REGS_NUMBERED : -1;
    req.json = !json_is_false(json_object_get(r, "json"));   /* default: the JSON report */
    req.explain = jbool(r, "explain");
    req.samples = json_is_integer(json_object_get(r, "samples")) ? (int)json_integer_value(json_object_get(r, "samples")) : 4;
    req.threads = json_is_integer(json_object_get(r, "threads")) ? (int)json_integer_value(json_object_get(r, "threads")) : 1;
    if (jstr(r, "arch")) req.gen.arch = jstr(r, "arch");
    if (json_is_integer(json_object_get(r, "seed"))) req.gen.sampler.seed = (uint64_t)json_integer_value(json_object_get(r, "seed"));
    if (json_is_number(json_object_get(r, "temperature"))) req.gen.sampler.temperature = (float)json_number_value(json_object_get(r, "temperature"));
    if (json_is_integer(json_object_get(r, "top_k"))) req.gen.sampler.top_k = (int)json_integer_value(json_object_get(r, "top_k"));
    if (json_is_integer(json_object_get(r, "max_tokens"))) req.gen.max_tokens = (int)json_integer_value(json_object_get(r, "max_tokens"));
    if (json_is_integer(json_object_get(r, "draft"))) req.gen.draft_max = (int)json_integer_value(json_object_get(r, "draft"));
    if (jbool(r, "no_constraint")) req.gen.constrained = false;
    const char *verify = jstr(r, "verify") ? jstr(r, "verify") : "check";
    req.level = !strcmp(verify, "check") ? 0 : !strcmp(verify, "ptxas") ? 1 : !strcmp(verify, "gpu") ? 2 : -1;
    char mdir[4096];
    const char *env = getenv("PTXGEN_MODEL");
    if (jstr(r, "default_model")) req.default_model = jstr(r, "default_model");   /* the caller's search (pinned base) */
    else if (env && *env) req.default_model = env;
    else if (model_default_dir(NULL, mdir, sizeof mdir) == PG_OK) req.default_model = mdir;   /* the cwd's */
    int sm_;
    bool as_, fam_;
    int rc = 2;
    if (req.level < 0) USAGE_NOTE("--verify wants check, ptxas or gpu, not '%s'", verify);
    else if (req.level == 2 && !req.task_path) USAGE_NOTE("--verify gpu needs --task (the reference to check against)");
    else if (req.regs < 0) USAGE_NOTE("--regs wants named or numbered, not '%s'", regs);
    else if (req.samples < 1 || req.samples > 1000 || req.threads < 1) USAGE_NOTE("--samples wants 1 to 1000 and --threads at least 1");
    else if (!isa_parse_target(req.gen.arch, &sm_, &as_, &fam_)) USAGE_NOTE("--arch %s is not a known target (sm_50 ... sm_120a)", req.gen.arch);
    else if (req.name && !pipe_name_ok(req.name)) USAGE_NOTE("--name %s: want an identifier of at most 32 letters, digits and '_'", req.name);
    else if (!req.out_path && !req.json) USAGE_NOTE("name the output (\"out\") or ask for the JSON report");
    else {
        pg_diag_sink sink = {diag_to_log, &js, 0, 0, 20};
        rc = pipe_generate(&req, notes, &sink);
    }
    json_decref(r);
    return rc;
}
