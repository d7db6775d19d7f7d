/* ptxgen/model.h — HF byte-level BPE tokenizer and the Qwen2 inference engine.
 *
 * Files are Hugging Face's: config.json (model_type "qwen2"), model.safetensors
 * or shards listed in model.safetensors.index.json (f32, bf16 or f16 tensors),
 * tokenizer.json (byte-level BPE), and PEFT LoRA adapters
 * (adapter_config.json + adapter_model.safetensors).  Nothing here needs
 * Python; train/ writes the files, this reads them.
 *
 * Ownership: the _load and _new functions return objects owned by the caller, freed with the
 * matching _free function.  Strings returned by accessors live as long as the object.
 * Errors: pg_status plus diagnostics (E801 model-file, E802 model-config,
 * E803 model-tensor, E804 tokenizer, E805 adapter) naming the file and the
 * cause ("models/x/model.safetensors: tensor 'model.norm.weight': shape [96],
 * config wants [128]").  Nothing here prints.
 */
#ifndef PTXGEN_MODEL_H
#define PTXGEN_MODEL_H

#include "ptxgen/common.h"

/* ---- tokenizer ------------------------------------------------------------ */
typedef struct tok_tokenizer tok_tokenizer;

/* Read a tokenizer.json (or a GGUF file, below): model.type "BPE" with byte-level decoding, merges in
 * either format ("a b" strings or ["a","b"] pairs), added_tokens (special or
 * not), pre_tokenizer Sequence[Split(regex), ByteLevel] as Qwen2 writes it, or
 * a plain ByteLevel pre-tokenizer (GPT-2 regex). */
PG_API pg_status tok_load(const char *path, tok_tokenizer **out, pg_diag_sink *diag);
/* The tokenizer stored in a GGUF model file's metadata (llama.cpp's
 * tokenizer.ggml.* keys); tok_load calls it for any file starting with the
 * magic "GGUF".  Supported: tokenizer.ggml.model "gpt2" (byte-level BPE) with
 * tokens, token_type and merges, and tokenizer.ggml.pre "qwen2" (Qwen2's Split
 * regex) or "smollm" (digits split one by one, then GPT-2's regex).  Token
 * types: 3 (control) become special added tokens and 4 (user-defined)
 * non-special added tokens, both matched whole in text like HF's added
 * tokens; the others (normal, unknown, unused, byte) are plain vocab entries.
 * No normalizer (as llama.cpp and transformers build it; Qwen's own
 * tokenizer.json adds NFC, which changes nothing on NFC text).  Errors: E801
 * for a malformed GGUF, E804 for a tokenizer it cannot build (unknown model
 * or pre-tokenizer, merge of an unknown token, ...). */
PG_API pg_status tok_load_gguf(const char *path, tok_tokenizer **out, pg_diag_sink *diag);
PG_API void tok_free(tok_tokenizer *t);

PG_API int tok_vocab_size(const tok_tokenizer *t);            /* max id + 1 over vocab and added tokens */
/* Encode UTF-8 text; added tokens in the text are matched first (as HF does),
 * the rest is pre-tokenized and BPE-merged.  *ids is malloc'd.  This is HF's
 * encode(text, add_special_tokens=False): post-processors are not applied.
 * PG_ERR_INVALID when the tokenizer normalizes with NFC and the text holds
 * characters NFC could change; PG_ERR_LIMIT if a regex hits PCRE2's match limit. */
PG_API pg_status tok_encode(const tok_tokenizer *t, const char *text, size_t len, int32_t **ids, size_t *n);
/* The raw bytes a token stands for (byte-level decoded), e.g. "ld.global" or
 * "\n\t"; special tokens give their literal text.  Not NUL-terminated. */
PG_API const char *tok_token_bytes(const tok_tokenizer *t, int32_t id, size_t *len);
/* The token id of an added/special token's exact text, or -1. */
PG_API int32_t tok_special_id(const tok_tokenizer *t, const char *text);
PG_API bool tok_is_special(const tok_tokenizer *t, int32_t id);
/* A placeholder id no text encodes to: GGUF token_type 5 (UNUSED), e.g. Qwen's
 * [PAD151665].. filling the embedding up to 151,936 rows.  The constraint
 * leaves these out (their embeddings are untrained). */
PG_API bool tok_is_unused(const tok_tokenizer *t, int32_t id);
/* Decode ids to UTF-8 bytes (appends to out). */
PG_API void tok_decode(const tok_tokenizer *t, const int32_t *ids, size_t n, pg_buf *out);

/* ---- model ------------------------------------------------------------------ */
#define MODEL_MAX_EOS 8
typedef struct {
    int vocab_size, hidden_size, intermediate_size;
    int num_hidden_layers, num_attention_heads, num_key_value_heads, head_dim;
    int max_position_embeddings;
    double rope_theta, rms_norm_eps;
    bool tie_word_embeddings;
    int bos_token_id, eos_token_id;        /* -1 when absent; eos_token_id = eos_token_ids[0] */
    int eos_token_ids[MODEL_MAX_EOS];      /* config's eos_token_id, an int or a list */
    int n_eos_token_ids;
    char dtype[16];                        /* torch_dtype / dtype as written ("bfloat16"), or "" */
    char model_id[128];                    /* config "_name_or_path", or the directory basename */
} model_config;

typedef struct model_model model_model;
typedef struct model_ctx model_ctx;        /* one sequence: KV cache + scratch */

typedef struct {
    const char *adapter_dir;   /* PEFT LoRA adapter: merged at load (HF models), a side path (GGUF); NULL = none */
    int threads;               /* 0 = number of online cores */
    const char *weight_dtype;  /* HF models' compute copy of the weights: "f32" (default), "bf16", "q8";
                                * GGUF models keep their stored types and take NULL, "f32" or "gguf" */
    bool verify_base;          /* shipped-model directory: check the base GGUF's sha256 (about 1.5 s for 491 MB) */
    bool exact;                /* GGUF: decode with dequantized rows x f32 activations (no int8 rounding of x) */
    const char *device;        /* "cpu" (NULL: the same) or "gpu": the forward pass on an NVIDIA GPU (libcuda and
                                * cuBLAS through dlopen, weights in f16 with LoRA merged; E702 when it cannot start) */
    bool gpu_defer;            /* device "gpu": check the driver and device at load (in a forked probe) but start the
                                * engine only at model_gpu_start, in the forked child that generates, so this process
                                * never initialises CUDA and can still fork the GPU harness's children (a child
                                * forked after cuInit cannot use CUDA) */
} model_load_opts;

/* Load a model.  `path` is one of:
 *  (a) a .gguf file (llama.cpp's format; architectures qwen2 and llama): the
 *      configuration comes from its metadata and the weights stay in the file
 *      mapping in their stored types (F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q8_0,
 *      Q4_K, Q6_K), computed from directly; an adapter runs as a side path
 *      y = W x + s * B (A x) (s = alpha / r, or alpha / sqrt(r) with use_rslora)
 *      and is never merged into the blocks;
 *  (b) a shipped-model directory: base.json {"gguf": "<path relative to the directory>",
 *      "sha256": "<hex>"} plus a PEFT adapter (adapter_config.json +
 *      adapter_model.safetensors) beside it, used unless o->adapter_dir names another
 *      (models/qwen-plan names ../base/qwen2.5-coder-0.5b-instruct.gguf, fetched by
 *      models/fetch_base.sh; with verify_base the sha256 must match, where a
 *      GGUF.sha256 stamp "<hex> <size> <mtime>" written after hashing saves the re-hash);
 *  (c) a Hugging Face directory: config.json and model.safetensors (or its
 *      shards); the adapter is merged and the weights converted to the compute dtype.
 * o may be NULL (defaults).  The model owns a thread pool; run one model_forward
 * at a time per model.
 * End-of-sequence ids: a GGUF's tokenizer.ggml.eos_token_id is copied into
 * eos_token_id(s) as written, but files get it wrong (a chat model ends its turns
 * with <|im_end|>, not the id the file names), so callers that stop on end tokens
 * look up "<|im_end|>" / "<|endoftext|>" in the tokenizer (tok_special_id). */
PG_API pg_status model_load(const char *dir, const model_load_opts *o, model_model **out, pg_diag_sink *diag);
/* The file a model's tokenizer is read from (for tok_load): `path` itself when it is a
 * .gguf file, else DIR/tokenizer.json when present, else a shipped directory's base GGUF
 * (base.json's "gguf", relative to DIR).  Writes it to out[n]; E80x when there is none. */
PG_API pg_status model_tokenizer_path(const char *path, char *out, size_t n, pg_diag_sink *diag);
/* The model `ptxgen gen` takes without --model, searched under ROOT (NULL or "": the current
 * directory, and out stays relative): the first of ROOT/models/qwen15-plan (the 1.5B base) and
 * ROOT/models/qwen-plan (the 0.5B) whose base.json names a "gguf" file (relative to that folder)
 * that exists, i.e. once models/fetch_base.sh fetched that base; else ROOT/models/default when it
 * holds base.json or config.json.  Writes the folder to
 * out[n].  PG_ERR_IO when neither is there (out ""), PG_ERR_LIMIT when the path does not fit,
 * PG_ERR_USAGE for no buffer.  No diagnostics: the caller says what is missing.  Callers check
 * $PTXGEN_MODEL first; it overrides this search. */
PG_API pg_status model_default_dir(const char *root, char *out, size_t n);
PG_API void model_free(model_model *m);
PG_API const model_config *model_get_config(const model_model *m);
PG_API size_t model_param_count(const model_model *m);
PG_API size_t model_weight_bytes(const model_model *m);   /* resident bytes of the compute weights (GGUF: the
                                                    * stored blocks in the mapping, plus f32 norms, biases, LoRA) */
PG_API int model_threads(const model_model *m);           /* threads model_forward uses */
PG_API const char *model_weight_dtype(const model_model *m); /* "f32", "bf16", "q8", or "gguf" (stored types) */
/* Where the forward pass runs: "cpu" or "gpu"; model_device_desc says more ("avx512, 2 threads",
 * "NVIDIA H200 (f16 weights, 942 MB; cuBLAS libcublas.so.12; graphs)").  The GPU engine's logits
 * equal the CPU engine's to f16 weight rounding (tests/gpu/engine_gpu.sh measures it). */
PG_API const char *model_device(const model_model *m);
PG_API const char *model_device_desc(const model_model *m);
/* A verify step's fixed cost in rows: a model_forward_exact of n rows costs about (this + n)
 * times what one more row adds (gen's drafter weighs each draft's odds against it).  It depends
 * on the kernels: on AVX-512 (VNNI) a further row is cheap (~4 of ~37 ms: 8), on AVX2 each row
 * unpacks the weight blocks' arithmetic again (~19 of ~62 ms CPU at 2 threads: 2). */
PG_API double model_exact_fixed_rows(const model_model *m);
/* A model loaded with gpu_defer whose engine has not started in this process: its forward
 * calls would fail (E702) until model_gpu_start. */
PG_API bool model_gpu_deferred(const model_model *m);
/* Start a deferred engine here (no-op otherwise).  Meant for a child forked after the load:
 * the model gets a new thread pool first (the parent's workers do not exist in a forked child;
 * the old pool is left untouched, the child exits without freeing it). */
PG_API pg_status model_gpu_start(model_model *m, pg_diag_sink *diag);
/* What a child's started engine said of itself (model_device_desc in the parent then). */
PG_API void model_gpu_set_desc(model_model *m, const char *desc);
/* The process that serves a deferred engine (the pipeline's engine child, src/pipeline/draw.c),
 * kept with the model so that it lives as long as the model: setting another (or NULL) calls
 * the previous one's close_fn, and so does model_free.  The model never looks inside. */
PG_API void model_gpu_set_server(model_model *m, void *server, void (*close_fn)(void *));
PG_API void *model_gpu_server(const model_model *m);
/* The GPU engine's switches (bench_gpu): "attn_split" 1 = split-KV attention (pg_attn_split +
 * pg_attn_merge: a row's positions in slices over many blocks, the query heads of a KV head
 * together; a load's default since 2026-12-07 where a KV head has at most 8 query heads), 0 =
 * pg_attention (a load's with $PTXGEN_GPU_ATTN=full; "split" or unset is the default, any other
 * value fails the load with PG_ERR_USAGE; setting 1 is PG_ERR_INVALID when a KV head has more than
 * 8 query heads); model_device_desc ends "; pg_attn_split)" or "; pg_attention)", the attention the
 * steps run; "q8" 1 = the matvec rows (one-row and exact steps) read the int8 copies through
 * pg_matvec_q8, 0 = the f16 weights through pg_matvec (a load with $PTXGEN_GPU_WEIGHTS=q8 makes the
 * copies and starts with 1; "f16" or unset: no copies, and setting 1 is PG_ERR_INVALID; any other
 * value fails the load with PG_ERR_USAGE); the description then has "; pg_matvec_q8" before the
 * attention; "profile" 1 = start a per-kernel profile
 * (the steps then run launch by launch, not as graphs, an event pair around each launch and
 * cuBLAS call; counts cleared), 0 = stop.  PG_ERR_USAGE for the CPU engine or another key. */
PG_API pg_status model_gpu_option(model_model *m, const char *key, int value, pg_diag_sink *diag);
/* The running profile as JSON: {"steps", "launches", "launches_per_step", "kernel_ms",
 * "kernel_ms_per_step", "kernels": [{"name", "calls", "ms", "ms_per_step", "share"}, ...]},
 * largest time first; a matmul's name says its matrix ("pg_matvec qkv", "cublasGemmEx down"). */
PG_API pg_status model_gpu_profile(const model_model *m, char *json, size_t n, pg_diag_sink *diag);
/* Kernels (and cuBLAS calls) the GPU engine has enqueued since load, a graph's replay counted as
 * the kernels in it; -1 for the CPU engine. */
PG_API long model_gpu_kernel_launches(const model_model *m);

/* A context holds the KV cache for up to max_seq positions. */
PG_API pg_status model_ctx_new(model_model *m, int max_seq, model_ctx **out, pg_diag_sink *diag);
PG_API void model_ctx_free(model_ctx *c);
PG_API int model_ctx_pos(const model_ctx *c);               /* tokens in the cache */
PG_API void model_ctx_rewind(model_ctx *c, int pos);        /* drop cache entries >= pos (pos <= current) */

/* Run n tokens at the current position (prefill when n > 1).  logits[vocab]
 * receives the next-token logits after the last token (may be NULL; all_logits,
 * if non-NULL, receives [n][vocab]).  PG_ERR_LIMIT past max_seq. */
PG_API pg_status model_forward(model_ctx *c, const int32_t *toks, int n, float *logits, float *all_logits,
                        pg_diag_sink *diag);

/* One decode step for nseq sequences together: sequence i (context ctxs[i], at its
 * own position model_ctx_pos(ctxs[i]) with its own KV cache) takes the one new token
 * toks[i]; logits [nseq][vocab] (may be NULL) receives row i = ctxs[i]'s next-token
 * logits, and each context then behaves as after model_forward(ctxs[i], &toks[i], 1)
 * (position + 1, model_logits_subset reads its last state).  The linear layers run
 * once over the nseq rows stacked (model_forward's prefill kernels when nseq >= 4,
 * so every weight is read once per step, not nseq times); RoPE and attention are per
 * sequence.  Logits equal nseq separate one-token model_forward calls to the
 * tolerance the engine's prefill path holds against its decode path (bit for bit
 * for nseq < 4, the decode kernels; see src/model/test_model.c for the bounds).
 * The contexts stay the caller's; all must belong to one model and be distinct.
 * Errors, with a diagnostic (E802) and no context changed: PG_ERR_USAGE for
 * nseq < 1, contexts of different models, a context named twice, a token outside
 * the vocabulary; PG_ERR_LIMIT when a context is full.  One call at a time per
 * model (the model's thread pool), as for model_forward. */
PG_API pg_status model_forward_batch(model_ctx *const *ctxs, int nseq, const int32_t *toks, float *logits,
                                     pg_diag_sink *diag);

/* Speculative decoding's verify step: n tokens (1..MODEL_EXACT_MAX) at the current position
 * run together, each row computed exactly as a one-token step would compute it (the decode
 * kernels whatever n; the weights are still read once for all rows), so row i's logits
 * (model_logits_rows) equal, bit for bit, those of model_forward(c, &toks[i], 1, ..) after
 * toks[0..i) -- in every weight format.  No logits are computed here; every row's
 * final-normed state is kept for model_logits_rows.  A caller that keeps only the first k
 * rows rewinds with model_ctx_rewind(c, pos + k).  Errors as model_forward (and
 * PG_ERR_USAGE for n outside 1..MODEL_EXACT_MAX). */
#define MODEL_EXACT_MAX 128
PG_API pg_status model_forward_exact(model_ctx *c, const int32_t *toks, int n, pg_diag_sink *diag);
/* Logits of rows of the last step: row r of a model_forward_exact of n tokens (r < n), or row
 * 0 after model_forward / model_forward_hidden / model_forward_batch (the last token's).
 * ids NULL: out[nrows][vocab], every logit (one matmul over the rows: the head is read once);
 * else out[nrows][nids], the logits of those ids only (model_logits_subset's arithmetic).
 * GGUF models: bit for bit the values of a one-token model_forward step's logits.
 * PG_ERR_USAGE for a row the last step did not have (none after a rewind), an id outside
 * the vocabulary, nrows outside 1..128. */
PG_API pg_status model_logits_rows(model_ctx *c, const int *rows, int nrows, const int32_t *ids, int nids, float *out,
                                   pg_diag_sink *diag);

/* Run n tokens like model_forward but compute no logits (prefill for a caller
 * that only wants a few of them next). */
PG_API pg_status model_forward_hidden(model_ctx *c, const int32_t *toks, int n, pg_diag_sink *diag);
/* out[i] = the next-token logit of token ids[i] after the last model_forward or
 * model_forward_hidden (the LoRA head side path included): the vocabulary's output
 * rows are read only for these ids, so a step that allows few tokens skips most of
 * the largest matrix.  The same values as model_forward's logits, bit for bit, where
 * those came from a one-token step (HF models compute the 32-row panel holding each
 * id).  PG_ERR_USAGE for an id outside the vocabulary or before any forward (or
 * after a rewind).  model_logits_rows(c, &last_row, 1, ids, n, out) is the same. */
PG_API pg_status model_logits_subset(model_ctx *c, const int32_t *ids, int n, float *out, pg_diag_sink *diag);

/* ---- sampling ------------------------------------------------------------------ */
typedef struct {
    float temperature;   /* 0 = greedy */
    int top_k;           /* 0 = off */
    float top_p;         /* 1 = off */
    uint64_t seed;
} model_sampler_opts;

typedef struct { model_sampler_opts o; uint64_t rng; } model_sampler;
PG_API void model_sampler_init(model_sampler *s, const model_sampler_opts *o);
/* Sample from logits[n]; entries set to -INFINITY are never chosen.  Returns
 * -1 when every entry is -INFINITY. */
PG_API int32_t model_sample(model_sampler *s, const float *logits, int n);
PG_API uint64_t model_rng_next(uint64_t *state);             /* xorshift64* */
/* A row's top-K candidates, as the GPU engine's top-K selection gives them so a step copies K
 * (logit, id) pairs per row instead of the whole vocabulary: vals[K]/ids[K] = the K first
 * finite entries of row[n] by logit descending, ties lower id first (model_sample's order).
 * Returns how many (< K only when the row has fewer finite entries).  The CPU reference. */
PG_API int model_topk_ref(const float *row, int n, int K, float *vals, int32_t *ids);
/* The MODEL_TOPK largest logits of the last logits row of each context cs[i] (i < n; one
 * model, one engine) with their ids: vals[n][64], ids[n][64], model_topk_ref's order, padded
 * with (-inf, -1).  The GPU engine selects them on the device (the pg_topk kernel), so a
 * batched step copies n x 64 pairs instead of n x vocab floats; the CPU engine reads the row. */
#define MODEL_TOPK 64
PG_API pg_status model_topk_rows(model_ctx *const *cs, int n, float *vals, int32_t *ids, pg_diag_sink *diag);
/* model_forward(c, toks, n, NULL, NULL) then model_topk_rows(&c, 1, vals, ids): on the GPU engine
 * in one submission (a one-token step: its graph with pg_topk in it) and one synchronize, so a
 * decode step sends 64 (logit, id) pairs to the host instead of a vocabulary of logits.  The
 * greedy token is ids[0]. */
PG_API pg_status model_forward_top(model_ctx *c, const int32_t *toks, int n, float *vals, int32_t *ids, pg_diag_sink *diag);
/* model_sample on the candidates (vals, ids)[nc] of a row, under the mask allow (bit id % 32 of
 * word id / 32 set: allowed, dec_mask's layout; NULL: all), exactly as model_sample on the full row with every
 * disallowed entry -INFINITY (sample.c says why) -- or *need_full and -1, the sampler
 * untouched, when the candidates cannot decide it: fewer allowed among them than the draw
 * reads (greedy 1, else top_k), or top_k 0 / above 64 / top_p < 1.  Then sample the full row. */
PG_API int32_t model_sample_top(model_sampler *s, const float *vals, const int32_t *ids, int nc, const uint32_t *allow,
                                bool *need_full);

#endif
