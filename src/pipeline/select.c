/* select.c — one candidate's verdicts, best-of-k selection over the attempts, kernel
 * names and paths: the verification choices of `ptxgen gen` as library functions
 * (ptxgen/pipeline.h).  Nothing here prints; progress goes to pipe_notes. */
#define _GNU_SOURCE
#include "draw.h"
#include "ptxgen/pipeline.h"
#include "ptxgen/gpu.h"
#include "ptxgen/ptx.h"
#include "pipe_notes.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A kernel name from the words of a free-text request: "tiled 16x16 SGEMM with
 * shared memory" -> "tiled_16x16_sgemm".  ASCII words of 2+ characters, filler
 * words dropped, at most 3 words and 32 bytes (the constraint's name limit);
 * "kernel" when nothing is left (a description only in Chinese, say). */
void pipe_name_from_request(const char *d, char *out, size_t n) {
    static const char *const skip[] = {"a", "an", "the", "of", "with", "for", "to", "and", "in", "on", "by", "each",
                                       "every", "kernel", "compute", "computes", "calculate", "using", "use", "that",
                                       "which", "is", "are", "into", "from", "as", "at", "write", "writes", "please",
                                       "ptx", "cuda", "gpu", "one", "thread", "threads", "per", "element", "where", NULL};
    size_t len = 0;
    int words = 0;
    out[0] = 0;
    for (const char *p = d; *p && words < 3;) {
        while (*p && !isalnum((unsigned char)*p)) p++;
        const char *w = p;
        while (isalnum((unsigned char)*p)) p++;
        size_t wl = (size_t)(p - w);
        if (wl < 2) continue;
        bool filler = false;
        for (int k = 0; skip[k] && !filler; k++) filler = strlen(skip[k]) == wl && !strncasecmp(skip[k], w, wl);
        if (filler || (words == 0 && isdigit((unsigned char)*w))) continue;
        if (len + (len ? 1 : 0) + wl > 32 || len + 1 + wl >= n) break;
        if (len) out[len++] = '_';
        for (size_t k = 0; k < wl; k++) out[len++] = (char)tolower((unsigned char)w[k]);
        out[len] = 0;
        words++;
    }
    if (!len) snprintf(out, n, "kernel");
}

/* A kernel name the constraint accepts: an identifier of at most 32 bytes. */
bool pipe_name_ok(const char *s) {
    if (!*s || strlen(s) > 32 || !(isalpha((unsigned char)*s) || *s == '_')) return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_') return false;
    return true;
}

/* One attempt through eval's funnel (validator + the task's signature -> ptxas -> the
 * GPU at level 2), reduced to gen's three verdicts and one reason. */
void pipe_verify(const char *ptx, const char *path, const char *arch, const task_spec *task, int level,
                          bool time_it, gpu_memo *memo, pipe_verdict *v) {
    memset(v, 0, sizeof *v);
    char ptxas_path[512], whyg[256] = "";
    bool have_ptxas = ptx_ptxas_find(ptxas_path, sizeof ptxas_path);   /* run whenever present: a rejection never passes */
    bool want_gpu = level >= 2 && task;
    bool have_gpu = want_gpu && gpu_memo_available(memo, whyg, sizeof whyg);
    eval_funnel_opts fo = {.arch = arch, .ptxas = have_ptxas, .gpu = have_gpu, .time_it = time_it && have_gpu, .gpu_memo = memo};
    eval_funnel_in fi = {ptx, NULL, path, NULL};
    eval_funnel_result fr;
    eval_funnel(&fi, task, &fo, &fr);
    v->fr = fr;   /* the verdict fields only: the module and the ptxas report stay with fr (freed below) */
    v->fr.module = NULL;
    memset(&v->fr.ptxas, 0, sizeof v->fr.ptxas);
    v->check = fr.check ? "pass" : "fail";
    v->ptxas = fr.ptxas_ran ? (fr.ptxas_ok ? "pass" : "fail") : "not run";
    v->gpu = fr.gpu_ran ? (fr.correct ? "pass" : "fail") : "not run";
    v->registers = fr.registers;
    /* a register read before any write: ptxas takes it, the value is garbage (a load the model left out) */
    for (int i = 0; fr.check && fr.module && i < fr.module->nfuncs && !v->unwritten[0]; i++) {
        const ptx_func *f = &fr.module->funcs[i];
        ptx_cfg *cfg = NULL;
        const char *name[1];
        if (ptx_cfg_build(fr.module, f, &cfg, NULL) == PG_OK && ptx_unwritten_reads(fr.module, f, cfg, name, 1) > 0)
            snprintf(v->unwritten, sizeof v->unwritten, "%.30s in %.40s", name[0], f->name);
        ptx_cfg_free(cfg);
    }
    if (!fr.check) snprintf(v->why, sizeof v->why, "check: %.580s", fr.detail);
    else if (v->unwritten[0])
        snprintf(v->why, sizeof v->why, "reads %s before any instruction writes it (a load or an initial value left out)", v->unwritten);
    else if (fr.ptxas_ran && !fr.ptxas_ok) snprintf(v->why, sizeof v->why, "%.590s", fr.detail);   /* "ptxas: ..." */
    else if (!have_ptxas && level >= 1) snprintf(v->why, sizeof v->why, "ptxas: not found (install the CUDA toolkit or set $PTXAS)");
    else if (want_gpu && !have_gpu) snprintf(v->why, sizeof v->why, "gpu: not run (%s)", whyg);
    else if (fr.gpu_ran && !fr.correct) snprintf(v->why, sizeof v->why, "gpu: %s: %.560s", fr.stage, fr.detail);
    eval_funnel_result_free(&fr);
}

bool pipe_passed(const pipe_verdict *v, int level) {
    if (strcmp(v->check, "pass") || v->unwritten[0]) return false;
    if (level >= 1 && strcmp(v->ptxas, "pass")) return false;
    if (!strcmp(v->ptxas, "fail")) return false;   /* ptxas ran and rejected it: never a pass */
    if (level >= 2 && strcmp(v->gpu, "pass")) return false;
    return true;
}

/* The header of entry `kernel` in canonical text. */
bool pipe_entry_signature(const char *canon, const char *kernel, pg_buf *out) {
    if (!kernel) return gen_signature_from_module(canon, out);
    pg_buf pat = {0};
    pg_buf_printf(&pat, ".entry %s(", kernel);
    const char *p = strstr(canon, pat.data);
    pg_buf_free(&pat);
    if (!p) return false;
    while (p > canon && p[-1] != '\n') p--;
    return gen_signature_from_module(p, out);
}

/* Bytes that are not UTF-8 (a model's noise quoted back by nvcc) become '?', so the text can go into JSON. */
void pipe_utf8_clean(char *s) {
    unsigned char *p = (unsigned char *)s;
    while (p && *p) {
        int n = *p < 0x80 ? 1 : (*p >> 5) == 6 ? 2 : (*p >> 4) == 14 ? 3 : (*p >> 3) == 30 ? 4 : 0;
        bool ok = n > 0;
        for (int k = 1; ok && k < n; k++) ok = (p[k] & 0xc0) == 0x80;
        if (!ok) { *p++ = '?'; continue; }
        p += n;
    }
}

/* "dir/base.ptx" -> "dir/base" + ext */
void pipe_sibling_path(const char *ptx_path, const char *ext, char *out, size_t n) {
    size_t l = strlen(ptx_path);
    if (l > 4 && !strcmp(ptx_path + l - 4, ".ptx")) l -= 4;
    snprintf(out, n, "%.*s%s", (int)l, ptx_path, ext);
}

bool pipe_same_file(const char *a, const char *b) {
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* --plain: the literate kernel without its plan lines (the constraint writes them as whole
 * "\t//..." lines; the GENERATED_BY line at the top stays). */
void pipe_strip_plan_lines(char *ptx) {
    char *w = ptx;
    for (char *r = ptx; *r;) {
        char *nl = strchr(r, '\n');
        size_t n = nl ? (size_t)(nl - r) + 1 : strlen(r);
        bool plan = n >= 3 && r[0] == '\t' && r[1] == '/' && r[2] == '/';
        if (!plan) { memmove(w, r, n); w += n; }
        r += n;
    }
    *w = 0;
}

void pipe_note(const pipe_notes *n, const char *fmt, ...) {
    if (!n || !n->fn) return;
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *text = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (!text) return;
    va_start(ap, fmt);
    vsnprintf(text, (size_t)len + 1, fmt, ap);
    va_end(ap);
    n->fn(n->user, text);
    free(text);
}

/* The temperature of sequential attempt `at` (1-based): a retry after a failed check draws a little
 * hotter (t, t + 0.2, t + 0.4, ... up to 1.0), since a confident model at a low temperature writes
 * the same mistake under every seed (2026-12-06: four seeds, four copies of saxpy without y's
 * load at 0.3; at 0.8 the first draw loads it).  Greedy (t 0) and t >= 1 stay as asked. */
float pipe_retry_temperature(float t, int at) {
    if (t <= 0 || t >= 1 || at <= 1) return t;
    float r = t + 0.2f * (float)(at - 1);
    return r < 1 ? r : 1;
}

static double wall_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The next line of `p` that is not blank and not a whole-line `//` comment; its length in *n
 * (without the '\n'); NULL at the end. */
static const char *kernel_line(const char *p, size_t *n) {
    while (*p) {
        size_t len = strcspn(p, "\n");
        const char *q = p;
        while (q < p + len && (*q == ' ' || *q == '\t' || *q == '\r')) q++;
        bool skip = q == p + len || (q + 1 < p + len && q[0] == '/' && q[1] == '/');
        if (!skip) { *n = len; return p; }
        p += len + (p[len] == '\n');
    }
    return NULL;
}

bool pipe_same_kernel(const char *a, const char *b) {
    size_t na = 0, nb = 0;
    for (;;) {
        a = kernel_line(a, &na);
        b = kernel_line(b, &nb);
        if (!a || !b) return !a && !b;
        if (na != nb || memcmp(a, b, na)) return false;
        a += na;
        b += nb;
    }
}

void pipe_select_out_free(pipe_select_out *out) {
    gen_result_free(&out->best);
    free(out->attempts);
    out->attempts = NULL;
    out->nattempts = 0;
}

/* An earlier attempt (1-based) whose verdict attempt `at` may take: the same kernel, and either
 * the same bytes or a kernel that passed the validator and ptxas (their messages cite lines,
 * which comment lines move; the GPU's verdict and timing do not depend on them).  0: none. */
static int same_kernel_as(char *const *texts, const pipe_verdict *vs, int at, const char *ptx) {
    for (int k = 0; k < at - 1; k++)
        if (texts[k] && (!strcmp(texts[k], ptx) || (vs[k].fr.check && vs[k].fr.ptxas_ok && pipe_same_kernel(texts[k], ptx))))
            return k + 1;
    return 0;
}

pg_status pipe_select(model_model *model, const tok_tokenizer *tok, const dec_vocab *vocab, gen_opts *o, const pipe_select_in *in,
                      pipe_select_out *out, const pipe_notes *notes, pg_diag_sink *sink) {
    memset(out, 0, sizeof *out);
    const char *desc = in->request;
    int samples = in->samples, vlevel = in->level;
    bool best_of = in->best_of;
    uint64_t seed0 = o->sampler.seed;
    float temp0 = o->sampler.temperature;
    pg_status st = PG_OK;
    gpu_memo *memo = NULL;
    gen_result *drawn = NULL;   /* verified best-of-k: every candidate, drawn together (gen_sample_k) */
    /* each attempt's PTX and verdict (before the "unfinished" wording), to verify a kernel once */
    char **texts = calloc((size_t)samples, sizeof *texts);
    pipe_verdict *vs = calloc((size_t)samples, sizeof *vs);
    out->attempts = calloc((size_t)samples, sizeof *out->attempts);
    if (!texts || !vs || !out->attempts) { st = PG_ERR_NOMEM; goto done; }
    /* the GPU probe, the device query and nvcc's baseline timing once for all attempts, not per
     * attempt (~11 s of fixed cost each on an H100, 2026-12-06); PTXGEN_GPU_MEMO=0 asks every time */
    if (in->memo) memo = in->memo;
    else if (vlevel >= 2 && in->task) memo = gpu_memo_new();
    if (best_of && samples > 1) {   /* all k are drawn anyway: they share each forward step */
        drawn = calloc((size_t)samples, sizeof *drawn);
        if (!drawn) { st = PG_ERR_NOMEM; goto done; }
        double t0 = wall_s();
        pipe_draw_req q = {PIPE_DRAW_K, desc, NULL, o, samples};
        st = pipe_draw(model, tok, vocab, &q, drawn, sink);
        out->draw_s += wall_s() - t0;
        if (st != PG_OK) goto done;
        pipe_note(notes, "gen: %d candidates drawn in %.1f s\n", samples, out->draw_s);
    }
    for (int at = 1; at <= samples; at++) {
        gen_result r;
        o->sampler.seed = seed0 + (uint64_t)(at - 1);
        if (drawn) {   /* candidate at - 1 was drawn with this seed */
            r = drawn[at - 1];
            memset(&drawn[at - 1], 0, sizeof r);
        } else {
            o->sampler.temperature = pipe_retry_temperature(temp0, at);
            double t0 = wall_s();
            st = pipe_draw(model, tok, vocab, &(pipe_draw_req){PIPE_DRAW_SAMPLE, desc, NULL, o, 1}, &r, sink);
            out->draw_s += wall_s() - t0;
            o->sampler.temperature = temp0;
            if (st != PG_OK) {
                gen_result_free(&r);
                goto done;
            }
        }
        double t1 = wall_s();
        pipe_verdict v;
        int same = same_kernel_as(texts, vs, at, r.ptx);
        if (same) {   /* verified already: the same verdict and timing, nothing run again */
            v = vs[same - 1];
            memset(&out->attempts[at - 1].fr, 0, sizeof out->attempts[at - 1].fr);
        } else {
            pg_buf path = {0};
            pg_buf_printf(&path, "%s/attempt%d.ptx", in->tmpdir, at);
            if ((st = pg_write_file_atomic(path.data, r.ptx, strlen(r.ptx), sink)) != PG_OK) {
                pg_buf_free(&path);
                gen_result_free(&r);
                out->write_failed = true;
                goto done;
            }
            pipe_verify(r.ptx, path.data, o->arch, in->task, vlevel, best_of, memo, &v);
            unlink(path.data);
            pg_buf_free(&path);
            out->nverified++;
            out->attempts[at - 1].fr = v.fr;
        }
        out->attempts[at - 1].seconds = wall_s() - t1;
        out->verify_s += out->attempts[at - 1].seconds;
        vs[at - 1] = v;
        texts[at - 1] = strdup(r.ptx);   /* NULL (out of memory): only no later reuse */
        out->nattempts = at;
        out->attempts[at - 1].stage = v.fr.stage;
        out->attempts[at - 1].same_as = same;
        char same_note[48] = "", took[96] = "";
        if (same) snprintf(same_note, sizeof same_note, "same kernel as attempt %d", same);
        else if (best_of)   /* where the time goes, also when a slow run is stopped before its --json */
            snprintf(took, sizeof took, " in %.1f s (ptxas %.2f s, GPU %.1f s)", out->attempts[at - 1].seconds, v.fr.ptxas_s, v.fr.gpu_s);
        /* a kernel the token budget closed is a stub: a failure, unless the GPU showed it correct */
        bool unfinished = r.cut && strcmp(v.gpu, "pass");
        if (unfinished) {   /* the cause first; what the checks then said after it */
            char then[sizeof v.why];
            snprintf(then, sizeof then, "%s", v.why);
            snprintf(v.why, sizeof v.why, "unfinished: the token budget (--max-tokens %d) ran out before the model ended the kernel%s%.480s",
                     o->max_tokens, then[0] ? "; " : "", then);
        }
        bool ok = pipe_passed(&v, vlevel) && !unfinished;
        out->attempts[at - 1].passed = ok;
        out->ncorrect += ok && best_of;
        if (!ok) {
            char next[80] = "";
            if (at < samples && drawn) snprintf(next, sizeof next, "; resampling with the next seed");
            else if (at < samples)
                snprintf(next, sizeof next, "; resampling with the next seed at temperature %.1f",
                         (double)pipe_retry_temperature(temp0, at + 1));
            pipe_note(notes, "gen: attempt %d/%d failed (%s%s%s)%s%s\n", at, samples, same_note, same ? ": " : "",
                      v.why[0] ? v.why : "did not finish", took, next);
        } else if (best_of)
            pipe_note(notes, "gen: attempt %d/%d correct%s%.3fx nvcc%s%s%s%s%s\n", at, samples, v.fr.speedup > 0 ? ", " : " (not timed) ",
                      v.fr.speedup, v.fr.hygiene ? "; flagged: " : "", v.fr.hygiene ? v.fr.hygiene : "", took, same ? "; " : "", same_note);
        /* a reused verdict ties with its first attempt's, and a tie keeps the earlier one */
        if (best_of ? eval_better(&v.fr, out->best.ptx ? &out->bestv.fr : NULL) : (ok || !out->best.ptx)) {
            gen_result_free(&out->best);
            out->best = r;
            out->bestv = v;
            out->best_attempt = at;
        } else {
            gen_result_free(&r);
        }
        if (ok) { out->passed = true; if (!best_of) break; }
    }
done:
    gpu_memo_prep_stats(memo, false, &out->prep);
    if (st == PG_ERR_NOMEM) pipe_note(notes, "ptxgen gen: out of memory for %d candidates\n", samples);
    for (int i = 0; drawn && i < samples; i++) gen_result_free(&drawn[i]);
    free(drawn);
    for (int i = 0; texts && i < samples; i++) free(texts[i]);
    free(texts);
    free(vs);
    if (memo != in->memo) gpu_memo_free(memo);
    return st;
}
