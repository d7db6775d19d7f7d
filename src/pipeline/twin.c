/* twin.c — `gen --twin` and `ptxgen twin`: the CUDA C twin of a kernel, compiled, a task
 * inferred from it, and the PTX run against it (ptxgen/pipeline.h).  Nothing here prints. */
#define _GNU_SOURCE
#include "draw.h"
#include "ptxgen/pipeline.h"
#include "ptxgen/gpu.h"
#include "pipe_notes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* After <cu_path> is written: compile it, read its kernel, and (no task given)
 * infer <task_path> from the request, the twin and a PTX, load it and show it.
 * Sets to->verdict for the static outcomes; *inferred is the loaded task or NULL. */
void pipe_twin_prepare(const char *desc, const char *cu_text, const char *ptx, const char *arch, int block_hint,
                       const task_spec *given, pipe_twin *to, task_spec **inferred, const pipe_notes *notes, pg_diag_sink *sink) {
    *inferred = NULL;
    to->verdict = TWIN_V_NOT_COMPARED;
    twin_build b;
    if (twin_compile(to->cu_path, arch, &b, sink) != PG_OK) {
        snprintf(to->detail, sizeof to->detail, "cannot compile %.600s (temp files)", to->cu_path);
        return;
    }
    snprintf(to->nvcc, sizeof to->nvcc, "%s", b.nvcc);
    twin_kernel k;
    bool parsed = twin_parse(cu_text, to->cu_path, NULL, &k, sink) == PG_OK;
    char entry[128] = "";
    const char *ep = strstr(ptx, ".entry ");
    if (ep) snprintf(entry, sizeof entry, "%.*s", (int)strcspn(ep + 7, "( \n"), ep + 7);
    if (b.status == TWIN_BUILD_NO_NVCC) to->verdict = TWIN_V_NO_NVCC;
    else if (b.status == TWIN_BUILD_FAILED) {
        to->verdict = TWIN_V_NVCC_FAILED;
        twin_log_first_error(b.log, to->detail, sizeof to->detail);
    }
    if (parsed && strcmp(k.kernel, entry)) {
        snprintf(to->detail, sizeof to->detail, "the twin's kernel is '%.100s', the PTX's entry '%.100s': they must have one name",
                 k.kernel, entry);
    } else if (parsed && !given) {
        /* the task: inferred from the request, the twin and a PTX (nvcc's of the twin when it compiled) */
        const char *slash = strrchr(to->cu_path, '/');
        twin_infer_in in = {desc, &k, slash ? slash + 1 : to->cu_path, b.status == TWIN_BUILD_OK ? b.ptx : ptx, block_hint};
        pg_buf tj = {0};
        pg_status ts = twin_infer_task(&in, &tj, sink);
        if (ts == PG_OK && pg_write_file(to->task_path, tj.data, tj.len, to->out_flags, sink) != PG_OK) {
            to->write_failed = true;
            ts = PG_ERR_IO;
        }
        if (ts == PG_OK) {
            to->task_written = true;
            if (task_load(to->task_path, inferred, sink) == PG_OK) {   /* its "must_write": see task_ref */
                pg_buf sum = {0};
                twin_task_summary(*inferred, &sum);
                pipe_note(notes, "twin: inferred task (%s; check it, edit it, rerun with --task %s):\n%s", to->task_path,
                        to->task_path, sum.data);
                pg_buf_free(&sum);
            } else {
                snprintf(to->detail, sizeof to->detail, "the inferred task %.600s does not load (see above); edit it", to->task_path);
            }
        }
        pg_buf_free(&tj);
    } else if (!parsed && !to->detail[0]) {
        snprintf(to->detail, sizeof to->detail, "the twin has no extern \"C\" __global__ kernel ptxgen can read (see above)");
    } else if (given) {
        snprintf(to->detail, sizeof to->detail, "--task given: its reference decides; the twin is for reading");
        if (to->verdict == TWIN_V_NOT_COMPARED && b.status == TWIN_BUILD_OK) to->verdict = TWIN_V_NOT_RUN;
    }
    if (b.status != TWIN_BUILD_OK && *inferred) { task_free(*inferred); *inferred = NULL; }
    if (parsed) twin_kernel_free(&k);
    twin_build_free(&b);
}

/* Is the GPU comparison possible for this PTX (check and ptxas passed, a GPU)?  Else sets the verdict. */
bool pipe_twin_can_run(const pipe_verdict *v, pipe_twin *to) {
    char why[256];
    if (strcmp(v->check, "pass") || !strcmp(v->ptxas, "fail")) {
        to->verdict = TWIN_V_NOT_RUN;
        snprintf(to->detail, sizeof to->detail, "the PTX did not pass %s", strcmp(v->check, "pass") ? "the validator" : "ptxas");
        return false;
    }
    if (!gpu_available(why, sizeof why)) {
        to->verdict = TWIN_V_NOT_RUN;
        snprintf(to->detail, sizeof to->detail, "no GPU: %.240s", why);
        return false;
    }
    return true;
}

/* One PTX against the twin (the inferred task's reference) on the GPU.  true when
 * the comparison is settled: it agrees, or the twin/task cannot run (more
 * candidates would not help). */
bool pipe_twin_judge(const char *ptx, const char *arch, const task_spec *inferred, const char *tmpdir, int at,
                       pipe_twin *to, pipe_verdict *v, pg_diag_sink *sink) {
    pg_buf path = {0};
    pg_buf_printf(&path, "%s/twin%d.ptx", tmpdir, at);
    memset(v, 0, sizeof *v);
    v->check = v->ptxas = v->gpu = "not run";
    bool wrote = pg_write_file_atomic(path.data, ptx, strlen(ptx), sink) == PG_OK;
    if (wrote) pipe_verify(ptx, path.data, arch, inferred, 2, false, NULL, v);
    unlink(path.data);
    pg_buf_free(&path);
    if (!wrote) { snprintf(to->detail, sizeof to->detail, "cannot write a temp file in %.500s", tmpdir); return true; }
    to->attempts++;
    if (!strcmp(v->gpu, "pass")) {
        to->verdict = TWIN_V_AGREES;
        to->sets = v->fr.gpu_sets;
        return true;
    }
    if (v->fr.gpu_status && !strcmp(v->fr.gpu_status, "setup-error")) {
        to->verdict = TWIN_V_NOT_COMPARED;
        snprintf(to->detail, sizeof to->detail, "%.600s", v->fr.detail);
        return true;
    }
    if (!strcmp(v->check, "pass") && strcmp(v->ptxas, "fail")) {
        if (to->verdict != TWIN_V_DIFFERS)   /* report the first difference */
            snprintf(to->detail, sizeof to->detail, "attempt %d: %s: %.560s", at, v->fr.stage, v->fr.detail);
        to->verdict = TWIN_V_DIFFERS;
    }
    return false;
}

/* Writes <base>.cu (the user's twin or the model's second turn), compiles it,
 * infers <base>.task.json when no task was given, and with a GPU runs the PTX
 * against the twin; a difference draws the next candidates (within `samples`)
 * until one agrees.  *best may be replaced by an agreeing candidate. */
void pipe_twin_phase(model_model *model, const tok_tokenizer *tok, const dec_vocab *vocab, gen_opts *o, const pipe_twin_in *in,
                     pipe_select_out *sel, pipe_twin *to, const pipe_notes *notes, pg_diag_sink *sink) {
    const char *desc = in->request, *twin_src = in->twin_src, *twin_file = in->twin_file, *tmpdir = in->tmpdir;
    const task_spec *given = in->given;
    int samples = in->samples;
    uint64_t seed0 = in->seed0;
    int *best_attempt = &sel->best_attempt;
    gen_result *best = &sel->best;
    pipe_verdict *bestv = &sel->bestv;
    unsigned out_flags = to->out_flags;
    memset(to, 0, sizeof *to);
    to->out_flags = out_flags;
    to->verdict = TWIN_V_NOT_COMPARED;
    pipe_sibling_path(in->outp, ".cu", to->cu_path, sizeof to->cu_path);
    pipe_sibling_path(in->outp, ".task.json", to->task_path, sizeof to->task_path);
    pg_buf cu = {0};
    if (twin_src) {
        pg_buf_puts(&cu, twin_src);
    } else {
        gen_result tr;
        to->generated = true;
        pg_status st = pipe_draw(model, tok, vocab, &(pipe_draw_req){PIPE_DRAW_TWIN, desc, best->ptx, o, 1}, &tr, sink);
        if (st != PG_OK) {
            snprintf(to->detail, sizeof to->detail, "the model could not write a twin (%s)", pg_status_str(st));
            gen_result_free(&tr);
            return;
        }
        pg_buf_printf(&cu, "// GENERATED_BY: ptxgen %s (CUDA C twin, the model's second turn; review it before relying on it)\n",
                      model_get_config(model)->model_id);
        twin_strip_fence(tr.ptx, &cu);   /* the C inside a ``` fence, when the model fenced it */
        if (!tr.finished) pipe_note(notes, "gen: the twin stopped at the token limit (%d tokens)\n", tr.gen_tokens);
        gen_result_free(&tr);
    }
    if (!(twin_file && pipe_same_file(twin_file, to->cu_path)) &&
        pg_write_file(to->cu_path, cu.data ? cu.data : "", cu.len, to->out_flags, sink) != PG_OK) {
        snprintf(to->detail, sizeof to->detail, "cannot write %.600s", to->cu_path);
        to->write_failed = true;
        pg_buf_free(&cu);
        return;
    }
    task_spec *inferred = NULL;
    pipe_twin_prepare(desc, cu.data ? cu.data : "", best->ptx, o->arch, o->block[0], given, to, &inferred, notes, sink);
    if (inferred && pipe_twin_can_run(bestv, to)) {
        for (int at = *best_attempt; at <= samples; at++) {
            gen_result r = {0};
            gen_result *cand = best;
            if (at > *best_attempt) {   /* a difference: the next candidate */
                o->sampler.seed = seed0 + (uint64_t)(at - 1);
                if (pipe_draw(model, tok, vocab, &(pipe_draw_req){PIPE_DRAW_SAMPLE, desc, NULL, o, 1}, &r, sink) != PG_OK) { gen_result_free(&r); break; }
                cand = &r;
            }
            pipe_verdict v;
            bool settled = pipe_twin_judge(cand->ptx, o->arch, inferred, tmpdir, at, to, &v, sink);
            if (to->verdict == TWIN_V_AGREES && cand != best) {
                gen_result_free(best);
                *best = r;
                *bestv = v;
                bestv->gpu = "not run";   /* it ran against the twin, not a task's reference: the twin line says so */
                *best_attempt = at;
                r.ptx = NULL;
            }
            if (!settled)
                pipe_note(notes, "gen: attempt %d/%d %s its twin (%s)%s\n", at, samples,
                        strcmp(v.check, "pass") || !strcmp(v.ptxas, "fail") ? "failed before meeting" : "differs from",
                        v.why[0] ? v.why : v.fr.detail, at < samples ? "; resampling with the next seed" : "");
            gen_result_free(&r);
            if (settled) break;
        }
    }
    task_free(inferred);
    pg_buf_free(&cu);
}
