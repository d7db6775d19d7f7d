/* draw.c — pipe_draw (draw.h): a decoder call in this process, or, on a deferred GPU engine,
 * in a forked child that starts the engine and sends its results back over a pipe. */
#include "draw.h"

#include "ptxgen/gpu.h"
#include "ptxgen/model.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pg_status draw_here(model_model *m, const tok_tokenizer *t, const dec_vocab *v, const pipe_draw_req *q, gen_result *outs,
                           pg_diag_sink *diag) {
    switch (q->kind) {
    case PIPE_DRAW_SAMPLE: return gen_sample(m, t, v, q->text, q->o, outs, diag);
    case PIPE_DRAW_K: return gen_sample_k(m, t, v, q->text, q->o, q->k, outs, diag);
    case PIPE_DRAW_TWIN: return gen_twin_sample(m, t, q->text, q->ptx, q->o, outs, diag);
    case PIPE_DRAW_FREE: return gen_free_sample(m, t, q->text, q->o, outs, diag);
    }
    return PG_ERR_USAGE;
}

/* ---- the wire: "PGDRAW1", the head, diagnostics, results; integers in host order (one machine) */
#define MAGIC "PGDRAW1"
typedef struct { int32_t id, line, col; char file[256]; char msg[512]; } wire_diag;

void pipe_draw_encode(pg_buf *b, const pipe_draw_head *h, const pg_diag *diags, int ndiags, const gen_result *outs) {
    pg_buf_putn(b, MAGIC, 8);
    pg_buf_putn(b, (const char *)h, sizeof *h);
    int32_t nd = ndiags;
    pg_buf_putn(b, (const char *)&nd, sizeof nd);
    for (int i = 0; i < ndiags; i++) {
        wire_diag w = {(int32_t)diags[i].id, diags[i].line, diags[i].col, "", ""};
        snprintf(w.file, sizeof w.file, "%s", diags[i].file ? diags[i].file : "");
        snprintf(w.msg, sizeof w.msg, "%s", diags[i].msg);
        pg_buf_putn(b, (const char *)&w, sizeof w);
    }
    for (int i = 0; i < h->n; i++) {
        gen_result r = outs[i];
        uint64_t len = r.ptx ? strlen(r.ptx) + 1 : 0;   /* 0: no text */
        r.ptx = NULL;
        pg_buf_putn(b, (const char *)&r, sizeof r);
        pg_buf_putn(b, (const char *)&len, sizeof len);
        if (len) pg_buf_putn(b, outs[i].ptx, (size_t)len);
    }
}

bool pipe_draw_decode(const char *buf, size_t len, int n, pipe_draw_head *h, gen_result *outs, pg_diag_sink *diag) {
    size_t at = 0;
#define TAKE(dst, sz) do { if (len - at < (sz)) goto bad; memcpy((dst), buf + at, (sz)); at += (sz); } while (0)
    char magic[8];
    int32_t nd = 0;
    int got = 0;
    if (!buf) return false;
    TAKE(magic, 8);
    if (memcmp(magic, MAGIC, 8)) goto bad;
    TAKE(h, sizeof *h);
    TAKE(&nd, sizeof nd);
    if (nd < 0 || h->n != n) goto bad;
    h->desc[sizeof h->desc - 1] = 0;
    for (int32_t i = 0; i < nd; i++) {
        wire_diag w;
        TAKE(&w, sizeof w);
        if (w.id < 0 || w.id >= PG_DIAG__COUNT) goto bad;
        w.file[sizeof w.file - 1] = w.msg[sizeof w.msg - 1] = 0;
        pg_diag_emit(diag, (pg_diag_id)w.id, w.file[0] ? w.file : NULL, w.line, w.col, "%s", w.msg);
    }
    for (; got < n; got++) {
        uint64_t tl;
        TAKE(&outs[got], sizeof outs[got]);
        outs[got].ptx = NULL;
        TAKE(&tl, sizeof tl);
        if (tl) {
            if (tl > len - at || buf[at + tl - 1] != 0) { got++; goto bad; }
            outs[got].ptx = malloc((size_t)tl);
            if (!outs[got].ptx) pg_oom();
            memcpy(outs[got].ptx, buf + at, (size_t)tl);
            at += (size_t)tl;
        }
    }
    if (at == len) return true;
bad:
    for (int i = 0; i < got && i < n; i++) gen_result_free(&outs[i]);
    return false;
#undef TAKE
}

/* ---- the child ---------------------------------------------------------------------------- */
typedef struct {
    model_model *m;
    const tok_tokenizer *t;
    const dec_vocab *v;
    const pipe_draw_req *q;
} draw_job;

typedef struct { pg_diag *d; int n, cap; } diag_list;
static void keep_diag(void *user, const pg_diag *d) {
    diag_list *l = user;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->d = realloc(l->d, (size_t)l->cap * sizeof *l->d);
        if (!l->d) pg_oom();
    }
    l->d[l->n++] = *d;
}

static void draw_child(void *arg, int fd) {
    draw_job *j = arg;
    int n = j->q->kind == PIPE_DRAW_K ? j->q->k : 1;
    diag_list dl = {0};
    pg_diag_sink q = {keep_diag, &dl, 0, 0, 0};
    gen_result *outs = calloc((size_t)n, sizeof *outs);
    if (!outs) pg_oom();
    pipe_draw_head h = {PG_OK, "", n};
    h.st = model_gpu_start(j->m, &q);
    if (h.st == PG_OK) h.st = draw_here(j->m, j->t, j->v, j->q, outs, &q);
    snprintf(h.desc, sizeof h.desc, "%s", model_device_desc(j->m));
    pg_buf b = {0};
    pipe_draw_encode(&b, &h, dl.d, dl.n, outs);
    for (size_t off = 0; off < b.len;) {   /* the parent reads as we write (a pipe holds 64 KB) */
        ssize_t k = write(fd, b.data + off, b.len - off);
        if (k <= 0) _exit(3);
        off += (size_t)k;
    }
}

pg_status pipe_draw(model_model *m, const tok_tokenizer *t, const dec_vocab *v, const pipe_draw_req *q, gen_result *outs,
                    pg_diag_sink *diag) {
    int n = q->kind == PIPE_DRAW_K ? q->k : 1;
    memset(outs, 0, (size_t)(n > 0 ? n : 0) * sizeof *outs);
    if (!model_gpu_deferred(m)) return draw_here(m, t, v, q, outs, diag);
    if (n < 1) return draw_here(m, t, v, q, outs, diag);   /* the decoder says what is wrong */
    draw_job j = {m, t, v, q};
    pg_buf b = {0};
    int ec = 0;
    gpu_isolate_buf(draw_child, &j, 7 * 24 * 3600.0, &b, &ec);   /* no watchdog: the decoder has its own budgets */
    pipe_draw_head h;
    bool ok = pipe_draw_decode(b.data, b.len, n, &h, outs, diag);
    pg_buf_free(&b);
    if (!ok) {
        pg_diag_emit(diag, PG_E_GPU, "gpu", 0, 0, "the GPU engine's child process %s without its results",
                     ec > 128 ? "was killed by a signal" : "ended");
        return PG_ERR_EXTERNAL;
    }
    model_gpu_set_desc(m, h.desc);
    return h.st;
}
