/* model_internal.h — the model itself, shared by the forward pass (model.c) and the loader
 * (load.c): the model object, config parsers, the profile.  Not a public header: only
 * src/model/ includes it (and the tests/fuzz targets).
 *
 * The module's files in layers, each including only headers of the layers below (no circle):
 *   numfmt.h, cpu.h            number formats; the CPU's kernel family (leaves)
 *   gguf.h, safetensors.h      the weight readers (file formats), over numfmt.h
 *   quant.h                    GGUF block dot products (quant.c), over numfmt.h, cpu.h
 *   kernels.h                  compute weights, matmul, elementwise kernels, thread pool
 *                              (kernels.c, pool.c), over quant.h
 *   model_internal.h           the model object (model.c: forward; load.c: loading, the one
 *                              user of the readers), over kernels.h
 * The tokenizer (tokenizer.c, tok_internal.h) reads GGUF metadata through gguf.h. */
#ifndef PTXGEN_MODEL_INTERNAL_H
#define PTXGEN_MODEL_INTERNAL_H

#include "ptxgen/model.h"
#include "kernels.h"

#include <stddef.h>
#include <stdint.h>

/* ---- config ---------------------------------------------------------------- */
/* Parse config.json text; E802 on anything the engine cannot run. */
pg_status model_config_parse(const char *json, size_t len, const char *file, model_config *cfg,
                             pg_diag_sink *diag);

typedef struct {
    int r;
    double alpha, scale;       /* scale = alpha / r (or alpha / sqrt(r) with use_rslora) */
    char targets[16][32];      /* target_modules, e.g. "q_proj" */
    int ntargets;
    char base_class[64];       /* auto_mapping.base_model_class ("Qwen2ForCausalLM"), "" when not given */
} lora_config;
/* Parse adapter_config.json text; E805 on what we cannot merge. */
pg_status model_lora_config_parse(const char *json, size_t len, const char *file, lora_config *lc,
                            pg_diag_sink *diag);

/* Seconds per stage of the forward steps run while a profile is attached (bench_model
 * --profile).  A stage's time includes its pool dispatch and the caller's wait for the
 * workers (pool.sync_s counts that wait across all stages). */
enum { PROF_EMBED, PROF_EW, PROF_QKV, PROF_ATTN, PROF_O, PROF_GATE_UP, PROF_DOWN, PROF_HEAD, PROF_LORA, PROF_N };
typedef struct {
    double stage_s[PROF_N];
    pool_prof pool;
    long rows;            /* token rows run (a decode step is one) */
    bool thread_cpu;      /* stage times in the calling thread's CPU time, not wall time: with one
                           * thread that is the stage's work, whatever else runs on the machine */
} model_prof;
extern const char *const model_prof_names[PROF_N];
void model_prof_attach(model_model *m, model_prof *p);   /* NULL detaches */
/* Weight bytes a one-token decode step reads for stage st (PROF_QKV .. PROF_HEAD, LoRA
 * side paths under PROF_LORA, norms and biases under PROF_EW, one embedding row under
 * PROF_EMBED); 0 for the others.  Their sum is model_decode_bytes. */
size_t model_stage_bytes(const model_model *m, int st);
/* Bytes of weights one decode step streams: every matrix but the embedding table, of
 * which it reads one row (model_weight_bytes counts the whole table; with tied
 * embeddings the table is the head and is streamed whole). */
size_t model_decode_bytes(const model_model *m);

/* ---- the model object (model.c runs it, load.c builds it) ---- */
#define CHUNK 128   /* prefill runs in batches of at most this many tokens (bounds scratch memory) */

/* LoRA kept beside quantized weights (GGUF models): y += s * B (A x) for the
 * modules of one matmul (q|k|v, o, gate|up, down, the output head).  Their A
 * share the matmul's input, so they are stacked and run as one small matmul. */
typedef struct {
    int nmod, R;          /* adapted modules; their ranks summed */
    wmat A;               /* [R][in] f32: the modules' A stacked */
    struct { int t0, out0; wmat B; } mod[3];   /* B [out][r] f32, scaled by s: adds B t[t0 .. t0+r) to output rows out0.. */
} lora_side;

typedef struct {
    float *ln1, *ln2;     /* [H] */
    wmat qkv;             /* [QD + 2*KVD][H] */
    float *bqkv;          /* [QD + 2*KVD]; NULL when the model has no q/k/v biases (llama) */
    wmat o;               /* [H][QD] */
    wmat gate_up;         /* [2*I][H]: gate rows then up rows */
    wmat down;            /* [H][I] */
    lora_side lqkv, lo, lgu, ldown;
} layer;

struct model_model {
    model_config cfg;
    wtype wt;
    layer *L;
    wmat embed;           /* [V][H], compute dtype; also the lm_head when tied */
    wmat lm_head;         /* [V][H] when not tied */
    float *norm;          /* [H] */
    pg_pool *pool;
    size_t nparams;
    struct gguf_file *gg;        /* GGUF models: the mapping the WT_GG weights point into */
    bool rope_adjacent;   /* rotate pairs (2i, 2i+1) (ggml's llama on Q/K rows its converter permuted), else (i, i + hd/2) */
    char arch[32];        /* "qwen2" or "llama" */
    lora_side lhead;      /* GGUF models: LoRA on the output head */
    int lora_rmax, lora_outmax;   /* largest R and B output over the layers' side paths (context scratch) */
    model_prof *prof;     /* bench_model --profile: stage times (NULL: off) */
    struct gpu_model *gpu;   /* the GPU engine (gpu.c) when loaded with device "gpu": every forward step runs there */
    bool gpu_deferred;       /* loaded with gpu_defer, engine not started in this process (model_gpu_start) */
    char gpu_desc[512];      /* a deferred engine's description (model_gpu_set_desc) */
    void *gpu_server;        /* a deferred engine's serving process, the caller's (model_gpu_set_server) */
    void (*gpu_server_close)(void *);
};

/* SHA-256 of n bytes as 64 lowercase hex digits (sha256.c). */
void model_sha256_buf(const void *data, size_t n, char hex[65]);
bool model_sha256_file(const char *path, char hex[65]);   /* false when the file cannot be read */

#endif
