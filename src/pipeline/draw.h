/* draw.h — the pipeline's one way to sample from the model (internal): the decoder's four
 * entry points (gen_sample, gen_sample_k, gen_twin_sample, gen_free_sample) behind one call.
 *
 * On the CPU engine, and on a GPU engine started in this process, it is the decoder call
 * itself.  On a deferred GPU engine (model_load_opts.gpu_defer, what `gen --device gpu`
 * loads) the draws run in one child process, the engine's: forked at the model's first draw,
 * it starts the engine (model_gpu_start) once and serves every later draw -- the plan turn,
 * the PTX turn, best-of-k, the twin turn -- over two pipes (a request: the options and their
 * strings; a reply: the results and diagnostics), until the model is freed (model_gpu_server
 * keeps it with the model).  So the process that runs the GPU harness never initialises
 * CUDA, and the harness's own children (run.c, devinfo.c: cuInit in a fork) keep working: a
 * child forked after its parent's cuInit cannot use CUDA.  The child is a fork of this process,
 * so a draw there is the one an in-process engine makes, as long as the objects it names (the
 * tokenizer, the vocabulary, the bias, the n-gram table) are those the fork has: objects bound
 * with pipe_draw_bind, or named by the draw that forked it.  A draw naming another starts a new
 * child; an object must not change or be freed and replaced while the model lives. */
#ifndef PTXGEN_PIPE_DRAW_H
#define PTXGEN_PIPE_DRAW_H
#include "ptxgen/decode.h"

typedef enum { PIPE_DRAW_SAMPLE, PIPE_DRAW_K, PIPE_DRAW_TWIN, PIPE_DRAW_FREE } pipe_draw_kind;

typedef struct {
    pipe_draw_kind kind;
    const char *text;     /* SAMPLE, K, TWIN: the request's description; FREE: the whole prompt */
    const char *ptx;      /* TWIN: the kernel the twin is written for */
    const gen_opts *o;
    int k;                /* K: candidates (outs[k]); else 1 */
} pipe_draw_req;
#define PIPE_DRAW_K_MAX 4096   /* candidates a request to the engine's child may ask for */

/* outs[q->k] (1 unless K) receive the decoder's results, as the decoder call would give them;
 * the child's diagnostics go to diag.  A child that dies or says nothing is PG_ERR_EXTERNAL
 * with an E702 naming how it ended. */
pg_status pipe_draw(model_model *m, const tok_tokenizer *t, const dec_vocab *v, const pipe_draw_req *q, gen_result *outs,
                    pg_diag_sink *diag);

/* Name the objects later draws of a deferred model will use, before the first draw, so that one
 * child serves them all (a two-stage model's plan turn names no vocabulary).  No-op on other
 * models. */
void pipe_draw_bind(model_model *m, const tok_tokenizer *t, const dec_vocab *v, const dec_bias *bias, const gen_ngram *ngram);

/* Fork a deferred model's engine child now, for a draw naming these objects (v may be NULL), when it
 * has none yet: before the caller starts a process whose descriptors the child must not inherit (the
 * GPU harness's worker, whose socket held open in the child would hide its EOF).  No-op on other models;
 * a fork that fails is left to the first draw, which tries again and says why. */
void pipe_draw_start(model_model *m, const tok_tokenizer *t, const dec_vocab *v, const gen_opts *o);

/* A request on the wire (tested in test_pipeline.c): decode fills q and o, the strings pointing
 * into buf; false on a short or malformed buffer. */
void pipe_draw_req_encode(pg_buf *b, const pipe_draw_req *q);
bool pipe_draw_req_decode(const char *buf, size_t len, pipe_draw_req *q, gen_opts *o);

/* The wire format between child and parent (tested in test_pipeline.c): the child's
 * diagnostics, its status, its engine's description and its results, in one buffer. */
typedef struct {
    pg_status st;
    char desc[512];
    int n;                /* results */
} pipe_draw_head;
void pipe_draw_encode(pg_buf *b, const pipe_draw_head *h, const pg_diag *diags, int ndiags, const gen_result *outs);
/* Parses what encode wrote: diagnostics re-emitted to diag, results into outs[n] (n must equal
 * h->n; their ptx malloc'd).  False on a short or malformed buffer (nothing kept then). */
bool pipe_draw_decode(const char *buf, size_t len, int n, pipe_draw_head *h, gen_result *outs, pg_diag_sink *diag);
#endif
