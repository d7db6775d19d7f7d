/* draw.c — pipe_draw (draw.h): a decoder call in this process, or, on a deferred GPU engine,
 * a request to the engine's child: forked at the first draw, it starts the engine once and
 * serves every draw of the model over a socket pair until the model is freed. */
#include "draw.h"

#include "ptxgen/model.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
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

/* ---- the wire: integers in host order (parent and child are one machine).  A string is a
 * uint64 length counting its NUL, then its bytes and the NUL; length 0 is NULL. */
static void put(pg_buf *b, const void *p, size_t n) { pg_buf_putn(b, (const char *)p, n); }

static void put_str(pg_buf *b, const char *s) {
    uint64_t n = s ? strlen(s) + 1 : 0;
    put(b, &n, sizeof n);
    if (n) put(b, s, (size_t)n);
}

/* A reader over a received buffer: each take fails (and so the whole parse) past its end. */
typedef struct {
    const char *buf;
    size_t len, at;
} wire_in;

static bool take(wire_in *r, void *dst, size_t n) {
    if (r->len - r->at < n) return false;
    memcpy(dst, r->buf + r->at, n);
    r->at += n;
    return true;
}

/* A string in place: *s points into the buffer (NULL for length 0). */
static bool take_str(wire_in *r, const char **s) {
    uint64_t n;
    *s = NULL;
    if (!take(r, &n, sizeof n)) return false;
    if (!n) return true;
    if (n > r->len - r->at || r->buf[r->at + n - 1] != 0) return false;
    *s = r->buf + r->at;
    r->at += (size_t)n;
    return true;
}

/* ---- a reply: "PGDRAW1", the head, the diagnostics, then each result with its text. */
#define MAGIC "PGDRAW1"
typedef struct { int32_t id, line, col; char file[256]; char msg[512]; } wire_diag;

void pipe_draw_encode(pg_buf *b, const pipe_draw_head *h, const pg_diag *diags, int ndiags, const gen_result *outs) {
    put(b, MAGIC, 8);
    put(b, h, sizeof *h);
    int32_t nd = ndiags;
    put(b, &nd, sizeof nd);
    for (int i = 0; i < ndiags; i++) {
        wire_diag w = {(int32_t)diags[i].id, diags[i].line, diags[i].col, "", ""};
        snprintf(w.file, sizeof w.file, "%s", diags[i].file ? diags[i].file : "");
        snprintf(w.msg, sizeof w.msg, "%s", diags[i].msg);
        put(b, &w, sizeof w);
    }
    for (int i = 0; i < h->n; i++) {
        gen_result r = outs[i];
        r.ptx = NULL;   /* the text follows as a string */
        put(b, &r, sizeof r);
        put_str(b, outs[i].ptx);
    }
}

/* The head and the diagnostics (re-emitted to diag as they are read). */
static bool take_head(wire_in *r, int n, pipe_draw_head *h, pg_diag_sink *diag) {
    char magic[8];
    int32_t nd;
    if (!take(r, magic, 8) || memcmp(magic, MAGIC, 8) || !take(r, h, sizeof *h) || !take(r, &nd, sizeof nd) || nd < 0 || h->n != n)
        return false;
    h->desc[sizeof h->desc - 1] = 0;
    for (int32_t i = 0; i < nd; i++) {
        wire_diag w;
        if (!take(r, &w, sizeof w) || w.id < 0 || w.id >= PG_DIAG__COUNT) return false;
        w.file[sizeof w.file - 1] = w.msg[sizeof w.msg - 1] = 0;
        pg_diag_emit(diag, (pg_diag_id)w.id, w.file[0] ? w.file : NULL, w.line, w.col, "%s", w.msg);
    }
    return true;
}

bool pipe_draw_decode(const char *buf, size_t len, int n, pipe_draw_head *h, gen_result *outs, pg_diag_sink *diag) {
    wire_in r = {buf, buf ? len : 0, 0};
    if (!buf || !take_head(&r, n, h, diag)) return false;
    int got = 0;
    for (; got < n; got++) {
        const char *text;
        if (!take(&r, &outs[got], sizeof outs[got]) || !take_str(&r, &text)) break;
        outs[got].ptx = text ? strdup(text) : NULL;
        if (text && !outs[got].ptx) pg_oom();
    }
    if (got == n && r.at == len) return true;
    for (int i = 0; i < got; i++) gen_result_free(&outs[i]);
    if (got < n) outs[got].ptx = NULL;   /* (its other fields may hold what was read) */
    return false;
}

/* ---- a request: "PGREQ01", kind, k, the options (their pointers to the tokenizer's objects
 * mean the same in the child, a fork: the parent checks it, engine_knows), then the request's
 * strings and the options' strings.  An empty frame asks the child to exit. */
#define REQ_MAGIC "PGREQ01"
#define OPT_STRINGS(X) X(arch) X(signature) X(baseline_ptx) X(entry_name) X(plan) X(prompt) X(draft_ref)

void pipe_draw_req_encode(pg_buf *b, const pipe_draw_req *q) {
    int32_t kind = (int32_t)q->kind, k = q->k;
    put(b, REQ_MAGIC, 8);
    put(b, &kind, sizeof kind);
    put(b, &k, sizeof k);
    put(b, q->o, sizeof *q->o);
    put_str(b, q->text);
    put_str(b, q->ptx);
#define PUT(f) put_str(b, q->o->f);
    OPT_STRINGS(PUT)
#undef PUT
}

bool pipe_draw_req_decode(const char *buf, size_t len, pipe_draw_req *q, gen_opts *o) {
    wire_in r = {buf, buf ? len : 0, 0};
    char magic[8];
    int32_t kind, k;
    if (!take(&r, magic, 8) || memcmp(magic, REQ_MAGIC, 8) || !take(&r, &kind, sizeof kind) || !take(&r, &k, sizeof k) ||
        !take(&r, o, sizeof *o))
        return false;
    if (kind < PIPE_DRAW_SAMPLE || kind > PIPE_DRAW_FREE || k < 1 || k > PIPE_DRAW_K_MAX) return false;
    *q = (pipe_draw_req){(pipe_draw_kind)kind, NULL, NULL, o, k};
    bool ok = take_str(&r, &q->text) && take_str(&r, &q->ptx);
#define TAKE_STR(f) ok = ok && take_str(&r, &o->f);
    OPT_STRINGS(TAKE_STR)
#undef TAKE_STR
    return ok && r.at == len;
}

/* ---- frames on a socket: a length, then that many bytes ---------------------------------- */
static bool write_frame(int fd, const pg_buf *b) {
    uint64_t n = b->len;
    return pg_send_full(fd, &n, sizeof n) && (!n || pg_send_full(fd, b->data, b->len));
}
#define FRAME_MAX (256u << 20)
static bool read_frame(int fd, pg_buf *b) {
    uint64_t n;
    b->len = 0;
    if (!pg_read_full(fd, &n, sizeof n) || n > FRAME_MAX) return false;
    if (b->cap < n + 1) {
        char *d = realloc(b->data, (size_t)n + 1);
        if (!d) pg_oom();
        b->data = d;
        b->cap = (size_t)n + 1;
    }
    if (n && !pg_read_full(fd, b->data, (size_t)n)) return false;
    b->len = (size_t)n;
    b->data[n] = 0;
    return true;
}

/* ---- the engine's child -------------------------------------------------------------------- */
/* The objects draws may name: the bound ones (pipe_draw_bind) and those of the draw that forked
 * the child.  A fork has them at the same addresses, unchanged (draw.h's contract). */
typedef struct {
    const tok_tokenizer *t;
    const dec_vocab *v;
    const dec_bias *bias;
    const gen_ngram *ngram;
} draw_objs;

typedef struct {
    draw_objs known;
    pid_t pid;                 /* 0: not started */
    int fd;                    /* the parent's end: requests out, replies in */
} draw_engine;

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

/* Start the engine, then answer requests until an empty frame or the parent's end.  The start's
 * diagnostics go with the first reply (with every reply when it failed: each draw says why). */
static _Noreturn void engine_serve(model_model *m, const draw_objs *ob, int fd) {
    diag_list start = {0};
    pg_diag_sink sq = {keep_diag, &start, 0, 0, 0};
    pg_status st0 = model_gpu_start(m, &sq);
    pg_buf req = {0};
    for (bool first = true; read_frame(fd, &req) && req.len > 0; first = false) {
        pipe_draw_req q;
        gen_opts o;
        if (!pipe_draw_req_decode(req.data, req.len, &q, &o)) _exit(4);
        diag_list dl = {0};
        pg_diag_sink ds = {keep_diag, &dl, 0, 0, 0};
        for (int i = 0; i < start.n && (first || st0 != PG_OK); i++) keep_diag(&dl, &start.d[i]);
        int n = q.kind == PIPE_DRAW_K ? q.k : 1;
        gen_result *outs = calloc((size_t)n, sizeof *outs);
        if (!outs) pg_oom();
        pipe_draw_head h = {st0, "", n};
        if (st0 == PG_OK) h.st = draw_here(m, ob->t, ob->v, &q, outs, &ds);
        snprintf(h.desc, sizeof h.desc, "%s", model_device_desc(m));
        pg_buf b = {0};
        pipe_draw_encode(&b, &h, dl.d, dl.n, outs);
        bool sent = write_frame(fd, &b);
        for (int i = 0; i < n; i++) gen_result_free(&outs[i]);
        free(outs);
        free(dl.d);
        pg_buf_free(&b);
        if (!sent) _exit(3);
    }
    _exit(0);
}

static void engine_close(void *p) {
    draw_engine *e = p;
    if (e->pid > 0) {
        pg_buf quit = {0};
        write_frame(e->fd, &quit);   /* an empty frame: exit (the harness's children may hold the socket too) */
        close(e->fd);
        while (waitpid(e->pid, NULL, 0) < 0 && errno == EINTR) {}
    }
    free(e);
}

static bool engine_fork(draw_engine *e, model_model *m) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return false;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(sv[0]);
        close(sv[1]);
        return false;
    }
    if (pid == 0) {
        close(sv[0]);
        engine_serve(m, &e->known, sv[1]);
    }
    close(sv[1]);
    e->pid = pid;
    e->fd = sv[0];
    return true;
}

/* Is every object the draw names one the child has?  A child not started yet takes them on. */
static bool engine_knows(draw_engine *e, const tok_tokenizer *t, const dec_vocab *v, const gen_opts *o) {
    bool started = e->pid > 0;
#define KNOWS(field, x)                                  \
    if ((x) && e->known.field != (x)) {                  \
        if (started) return false;                       \
        e->known.field = (x);                            \
    }
    KNOWS(t, t)
    KNOWS(v, v)
    KNOWS(bias, o->bias)
    KNOWS(ngram, o->ngram)
#undef KNOWS
    return true;
}

void pipe_draw_bind(model_model *m, const tok_tokenizer *t, const dec_vocab *v, const dec_bias *bias, const gen_ngram *ngram) {
    if (!model_gpu_deferred(m)) return;
    draw_engine *e = calloc(1, sizeof *e);
    if (!e) pg_oom();
    e->known = (draw_objs){t, v, bias, ngram};
    model_gpu_set_server(m, e, engine_close);
}

/* The engine that serves a draw naming these objects: the model's, or a new one (not forked yet) when
 * the model has none or its child lacks one of them. */
static draw_engine *engine_for(model_model *m, const tok_tokenizer *t, const dec_vocab *v, const gen_opts *o) {
    draw_engine *e = model_gpu_server(m);
    if (e && !engine_knows(e, t, v, o)) {   /* an object the child lacks: a new child */
        model_gpu_set_server(m, NULL, NULL);
        e = NULL;
    }
    if (!e) {
        pipe_draw_bind(m, t, v, o->bias, o->ngram);
        e = model_gpu_server(m);
        engine_knows(e, t, v, o);
    }
    return e;
}

void pipe_draw_start(model_model *m, const tok_tokenizer *t, const dec_vocab *v, const gen_opts *o) {
    if (!model_gpu_deferred(m)) return;
    draw_engine *e = engine_for(m, t, v, o);
    if (e->pid == 0) engine_fork(e, m);   /* a failure is the first draw's to report: it forks again */
}

pg_status pipe_draw(model_model *m, const tok_tokenizer *t, const dec_vocab *v, const pipe_draw_req *q, gen_result *outs,
                    pg_diag_sink *diag) {
    int n = q->kind == PIPE_DRAW_K ? q->k : 1;
    memset(outs, 0, (size_t)(n > 0 ? n : 0) * sizeof *outs);
    if (!model_gpu_deferred(m)) return draw_here(m, t, v, q, outs, diag);
    if (n < 1 || n > PIPE_DRAW_K_MAX) return draw_here(m, t, v, q, outs, diag);   /* the decoder says what is wrong */
    draw_engine *e = engine_for(m, t, v, q->o);
    if (e->pid == 0 && !engine_fork(e, m)) {
        pg_diag_emit(diag, PG_E_GPU, "gpu", 0, 0, "cannot start the GPU engine's child process: %s", strerror(errno));
        return PG_ERR_EXTERNAL;
    }
    pg_buf b = {0};
    pipe_draw_req_encode(&b, q);
    bool ok = write_frame(e->fd, &b) && read_frame(e->fd, &b);
    pipe_draw_head h;
    ok = ok && pipe_draw_decode(b.data, b.len, n, &h, outs, diag);
    pg_buf_free(&b);
    if (!ok) {   /* the child is gone (or said nothing we can read): the next draw starts another */
        int status = 0;
        kill(e->pid, SIGKILL);
        while (waitpid(e->pid, &status, 0) < 0 && errno == EINTR) {}
        e->pid = -1;   /* engine_close: nothing left to wait for */
        close(e->fd);
        model_gpu_set_server(m, NULL, NULL);
        pg_diag_emit(diag, PG_E_GPU, "gpu", 0, 0, "the GPU engine's child process %s without its results",
                     WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL ? "was killed by a signal" : "ended");
        return PG_ERR_EXTERNAL;
    }
    model_gpu_set_desc(m, h.desc);
    return h.st;
}
