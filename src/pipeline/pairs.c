/* pairs.c — the canonical text of training pairs and the super-optimization pairs of
 * `ptxgen prompts` (ptxgen/pipeline.h). */
#include "ptxgen/pipeline.h"
#include "ptxgen/gpu.h"
#include "ptxgen/ptx.h"
#include "ptxgen/task.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Canonical text with the forced header for `arch` (with the kept comments, or
 * without them); false when it does not validate. */
bool pipe_canonical_ptx(const char *src, const char *arch, int widen_regs, bool comments, pg_buf *out, char *why, size_t whyn) {
    ptx_module *m = NULL;
    pg_diag_sink q = {0};
    if (ptx_parse(src, strlen(src), "sample", &m, &q) != PG_OK || ptx_validate(m, &q) != PG_OK || q.nerrors) {
        snprintf(why, whyn, "does not parse/validate as given");
        ptx_module_free(m);
        return false;
    }
    if (!comments) ptx_comments_strip(m);
    if (widen_regs > 0) ptx_regs_widen(m, widen_regs);
    pg_buf printed = {0};
    ptx_print(m, &printed);
    ptx_module_free(m);
    const char *body = strstr(printed.data, ".address_size 64\n");
    if (!body) { snprintf(why, whyn, "no .address_size 64 line"); pg_buf_free(&printed); return false; }
    body += strlen(".address_size 64\n");
    while (*body == '\n') body++;
    gen_header_text(arch, out);
    pg_buf_puts(out, body);
    pg_buf_free(&printed);
    /* the rewritten header must still be valid (a kernel may need a newer .version) */
    m = NULL;
    pg_diag_sink q2 = {0};
    bool ok = ptx_parse(out->data, out->len, "sample", &m, &q2) == PG_OK && ptx_validate(m, &q2) == PG_OK && !q2.nerrors;
    ptx_module_free(m);
    if (!ok) snprintf(why, whyn, "invalid with the forced header for %s", arch);
    return ok;
}

/* Rename the entry's parameters of canonical text `t` to `names` (the
 * baseline's), in the signature and in [name] / [name+off] operands. */
static void rename_params(const char *t, const char *const *from, const char *const *to, int n, pg_buf *out) {
    const char *body = strstr(t, "\n{\n");
    int pi = 0;
    /* the signature: "\t.param .TYPE NAME" lines, in order */
    for (const char *p = t; *p && (!body || p < body);) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (!strncmp(p, "\t.param ", 8) && pi < n) {
            const char *sp = p + len;
            while (sp > p && sp[-1] != ' ') sp--;                 /* the last word: "x," or "x" */
            pg_buf_putn(out, p, (size_t)(sp - p));
            pg_buf_puts(out, to[pi++]);
            if (p[len - 1] == ',') pg_buf_putc(out, ',');
        } else {
            pg_buf_putn(out, p, len);
        }
        if (!nl) return;
        pg_buf_putc(out, '\n');
        p = nl + 1;
        if (body && p > body) { body = p; break; }
    }
    /* the body: [name] and [name+offset] operands */
    for (const char *p = body ? body + 0 : t + strlen(t); *p;) {
        bool done = false;
        for (int k = 0; k < n && !done && *p == '['; k++) {
            size_t fl = strlen(from[k]);
            if (!strncmp(p + 1, from[k], fl) && (p[1 + fl] == ']' || p[1 + fl] == '+')) {
                pg_buf_printf(out, "[%s", to[k]);
                p += 1 + fl;
                done = true;
            }
        }
        if (!done) pg_buf_putc(out, *p++);
    }
}

bool pipe_superopt_pair(const char *corpus, const char *name, const char *arch, double speedup, pg_buf *line, char *why, size_t whyn,
                        pg_diag_sink *sink) {
    char tp[4096], kp[4096];
    snprintf(tp, sizeof tp, "%s/%s/task.json", corpus, name);
    snprintf(kp, sizeof kp, "%s/%s/kernel.ptx", corpus, name);
    task_spec *t = NULL;
    char *base = NULL, *hand = NULL;
    size_t hn = 0;
    pg_buf bc = {0}, hc = {0}, bsig = {0}, renamed = {0}, prompt = {0};
    ptx_module *bm = NULL, *hm = NULL;
    bool good = task_load(tp, &t, sink) == PG_OK && gpu_nvcc_ptx(t, arch, &base, sink) == PG_OK &&
                pg_read_file(kp, 16 << 20, &hand, &hn, sink) == PG_OK;
    if (whyn) why[0] = 0;
    if (good) {
        pg_diag_sink q = {0};
        good = ptx_parse(base, strlen(base), "baseline", &bm, &q) == PG_OK;
        if (good) ptx_print(bm, &bc);
        good = good && pipe_canonical_ptx(hand, arch, 0, false, &hc, why, whyn) && pipe_entry_signature(bc.data, t->kernel, &bsig);
    }
    if (good) {
        /* the hand kernel's parameter names -> nvcc's (same order and types: the harness checked both) */
        pg_diag_sink q = {0};
        good = ptx_parse(hc.data, hc.len, "hand", &hm, &q) == PG_OK;
        const ptx_func *hf = NULL, *bf = NULL;
        for (int f = 0; good && f < hm->nfuncs; f++) if (hm->funcs[f].is_entry) hf = &hm->funcs[f];
        for (int f = 0; good && f < bm->nfuncs; f++)
            if (bm->funcs[f].is_entry && !strcmp(bm->funcs[f].name, t->kernel)) bf = &bm->funcs[f];
        good = good && hf && bf && hf->nparams == bf->nparams && hf->nparams <= 32;
        if (good) {
            const char *from[32], *to[32];
            for (int k2 = 0; k2 < hf->nparams; k2++) { from[k2] = hf->params[k2].name; to[k2] = bf->params[k2].name; }
            rename_params(hc.data, from, to, hf->nparams, &renamed);
        }
    }
    if (good) {
        gen_prompt_build_superopt(bc.data, arch, bsig.data, &prompt);
        pg_buf completion = {0};
        pg_buf_puts(&completion, renamed.data);
        pg_buf_puts(&completion, GEN_TOK_END);
        json_t *j = json_pack("{s:s+, s:s?, s:s, s:s, s:s, s:s, s:f}", "id", "superopt-", name, "family", t->family, "source",
                              "superopt", "split", "train", "prompt", prompt.data, "completion", completion.data,
                              "measured_speedup", speedup);
        char *txt = json_dumps(j, JSON_COMPACT | JSON_ENSURE_ASCII);
        pg_buf_printf(line, "%s\n", txt);
        free(txt);
        json_decref(j);
        pg_buf_free(&completion);
    }
    ptx_module_free(bm); ptx_module_free(hm);
    task_free(t); free(base); free(hand);
    pg_buf_free(&bc); pg_buf_free(&hc); pg_buf_free(&bsig); pg_buf_free(&renamed); pg_buf_free(&prompt);
    return good;
}

/* The C signature and the launch of a synth sample's task (its "task" object); both "" when it
 * does not load. */
static void sample_task_text(json_t *r, pg_buf *csig, pg_buf *launch) {
    char *text = json_dumps(json_object_get(r, "task"), JSON_COMPACT);
    task_spec *t = NULL;
    if (text && task_load_text(text, strlen(text), "sample-task.json", &t, NULL) == PG_OK) {
        gen_c_signature_from_task(t, csig);
        gen_launch_from_task(t, launch);
    }
    task_free(t);
    free(text);
}

static void put_pair(pg_buf *o, json_t *r, const char *id, const char *turn, const pg_buf *prompt, const pg_buf *completion) {
    json_t *j = json_pack("{s:s, s:s?, s:s?, s:s?, s:s?, s:s, s:s, s:s}", "id", id,
                          "family", json_string_value(json_object_get(r, "family")),
                          "source", json_string_value(json_object_get(r, "source")),
                          "split", json_string_value(json_object_get(r, "split")),
                          "description_style", json_string_value(json_object_get(r, "description_style")),
                          "turn", turn, "prompt", prompt->data, "completion", completion->data);
    char *s = json_dumps(j, JSON_COMPACT | JSON_ENSURE_ASCII);
    if (!s) pg_oom();
    pg_buf_puts(o, s);
    pg_buf_putc(o, '\n');
    free(s);
    json_decref(j);
}

long pipe_stage_pairs(const pipe_stage_in *in, pg_buf *out, char *note, size_t noten) {
    long n = 0;
    if (noten) note[0] = 0;
    pg_buf plan = {0};
    pg_buf_puts(&plan, in->plan ? in->plan : "");
    while (plan.len && (plan.data[plan.len - 1] == '\n' || plan.data[plan.len - 1] == ' ')) plan.data[--plan.len] = 0;
    /* the nearest kernels of the library, never the sample's own task */
    gen_retr_hit hits[8];
    int nh = 0;
    if (in->retr) {
        gen_retr_filter f = {.exclude_task = json_string_value(json_object_get(json_object_get(in->sample, "task"), "name"))};
        nh = gen_retr_query(in->retr, in->request, &f, in->retr_k < 1 ? 1 : in->retr_k > 8 ? 8 : in->retr_k, hits);
    }
    /* a task gives both turns its signature and launch; a free-form request (with_signature off) neither */
    pg_buf csig = {0}, launch = {0};
    if (in->with_signature) sample_task_text(in->sample, &csig, &launch);
    if (in->with_signature && !csig.len) snprintf(note, noten, "its task does not load; pairs without a signature or launch");
    if (in->stage & 1) {
        pg_buf prompt = {0}, completion = {0};
        gen_prompt_build_plan_ex(in->request, in->arch, launch.data, csig.data, hits, nh, &prompt);
        pg_buf_printf(&completion, "%s\n%s", plan.data ? plan.data : "", gen_end_token(GEN_FMT_CHATML));
        put_pair(out, in->sample, in->id, "plan", &prompt, &completion);
        n++;
        pg_buf_free(&prompt); pg_buf_free(&completion);
    }
    if (in->stage & 2) {
        pg_buf prompt = {0}, completion = {0};
        gen_prompt_build_ptx_plan_ex(in->request, in->arch, launch.data, plan.data ? plan.data : "", in->signature, hits, nh, &prompt);
        pg_buf_printf(&completion, "%s%s", in->module, gen_end_token(GEN_FMT_CHATML));
        put_pair(out, in->sample, in->id, "ptx", &prompt, &completion);
        n++;
        pg_buf_free(&prompt); pg_buf_free(&completion);
    }
    pg_buf_free(&csig); pg_buf_free(&launch);
    pg_buf_free(&plan);
    return n;
}
