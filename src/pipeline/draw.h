/* draw.h — the pipeline's one way to sample from the model (internal): the decoder's four
 * entry points (gen_sample, gen_sample_k, gen_twin_sample, gen_free_sample) behind one call.
 *
 * On the CPU engine, and on a GPU engine started in this process, it is the decoder call
 * itself.  On a deferred GPU engine (model_load_opts.gpu_defer, what `gen --device gpu`
 * loads) the call runs in a child process forked for it (gpu_isolate): the child starts the
 * engine (model_gpu_start), draws, and writes its results and diagnostics to the pipe; the
 * parent reads them back.  So the process that runs the GPU harness never initialises CUDA,
 * and the harness's own children (run.c, devinfo.c: cuInit in a fork) keep working: a child
 * forked after its parent's cuInit cannot use CUDA.  The child is a fork of this process at
 * the call, with the same options, so the draws are the ones an in-process engine makes.
 * Cost: each call starts the engine again (weights converted and uploaded). */
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

/* outs[q->k] (1 unless K) receive the decoder's results, as the decoder call would give them;
 * the child's diagnostics go to diag.  A child that dies or says nothing is PG_ERR_EXTERNAL
 * with an E702 naming how it ended. */
pg_status pipe_draw(model_model *m, const tok_tokenizer *t, const dec_vocab *v, const pipe_draw_req *q, gen_result *outs,
                    pg_diag_sink *diag);

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
