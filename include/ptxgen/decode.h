/* ptxgen/decode.h — constrained decoding of PTX, the prompt format, the GBNF
 * export and the `ptxgen gen` driver.
 *
 * The constraint is an incremental recognizer over characters driven by the
 * ISA table (src/isa): its state holds the symbol table of the module being
 * written (declared registers with type and range, params, variables, labels
 * defined and referenced, the current function and its signature).  A token is
 * allowed when every byte of it keeps the recognizer alive.  The model's
 * tokens are indexed in a byte trie (dec_vocab) so a full mask is one walk.
 *
 * Prompt format (training, gen and eval all call gen_prompt_build):
 *   <|task|>{description}\n<|arch|>{arch}\n<|signature|>{signature}\n<|ptx|>{ptx}<|end|>
 * {ptx} is the module as `ptxgen fmt` prints it (canonical, no comments).
 *
 * Ownership: the _new functions return objects freed with the matching _free.
 * Errors: E901 constraint-dead-state (never silently unconstrained),
 * E902 bad-prompt, E903 generation; nothing here prints.
 */
#ifndef PTXGEN_DECODE_H
#define PTXGEN_DECODE_H

#include "ptxgen/common.h"
#include "ptxgen/model.h"
#include "ptxgen/task.h"

/* ---- special tokens of the prompt format ------------------------------------------------ */
#define GEN_TOK_TASK      "<|task|>"
#define GEN_TOK_ARCH      "<|arch|>"
#define GEN_TOK_SIGNATURE "<|signature|>"
#define GEN_TOK_PTX       "<|ptx|>"
#define GEN_TOK_END       "<|end|>"
#define GEN_TOK_BASELINE  "<|baseline|>"   /* super-optimization mode: nvcc's PTX to rewrite */
#define GEN_TOK_EOT       "<|endoftext|>"  /* padding / document separator in pretraining */
/* The chat template (ChatML) of pretrained chat models (Qwen2, SmolLM2): */
#define GEN_TOK_IM_START  "<|im_start|>"
#define GEN_TOK_IM_END    "<|im_end|>"     /* ends a turn: the end of the module in the chat format */

/* ---- vocabulary trie ------------------------------------------------------ */
typedef struct dec_vocab dec_vocab;
/* Index every token's bytes (tok_token_bytes) in a trie; special tokens are
 * kept apart (only GEN_TOK_END is ever allowed, and only at the end). */
PG_API pg_status dec_vocab_new(const tok_tokenizer *t, dec_vocab **out, pg_diag_sink *diag);
PG_API void dec_vocab_free(dec_vocab *v);
PG_API int dec_vocab_size(const dec_vocab *v);
/* The same from raw byte strings (token id = index; lens NULL = NUL-terminated;
 * special may be NULL).  For tests and benchmarks with a synthetic vocabulary. */
PG_API pg_status dec_vocab_from_pieces(const char *const *pieces, const size_t *lens, const bool *special, int n,
                                dec_vocab **out, pg_diag_sink *diag);

/* ---- the constraint ------------------------------------------------------ */
/* Generated subset (everything accepted passes `ptxgen check` and ptxas; see
 * src/decode/grammar.c for the policy and why):
 *  - exactly the canonical text of `ptxgen fmt`: header for the target
 *    (.version max(8.0, the target's minimum)), optional module-scope
 *    `.shared .align A .T name[N];` (or `name;`) and one `.extern .shared .align A .T name[];`
 *    (also before a forced signature: its forcing pauses after the header, dec_forcing),
 *    one `.visible .entry NAME(params)` with
 *    .param .u64/.u32/.s32/.f32/.f64/.b32/.b64/.s64, at most one
 *    `.maxntid`/`.reqntid X, Y, Z` (product <= 1024), then the body;
 *  - body lines: `\t.reg .T %name<N>;` (letters-only names, one declaration
 *    each; with regs_named also `\t.reg .T %name;`, see dec_opts), `{ }` blocks
 *    (nvcc's fp16/bf16 helpers, with their own registers in either style), plan comments
 *    (comment_max), `\t.shared|.local .align A .T name[N];` (or a scalar `name;`), labels `NAME:`, and
 *    `\t[@[!]%pN ]opcode.mods op, op;` from the ISA table restricted to the
 *    SUBSET opcodes and modifiers of grammar.c (no call/.func, textures,
 *    tensor cores, async copies, memory-ordering/cache qualifiers);
 *  - operands: declared registers in range (with regs_grow: past the count,
 *    raised afterwards by ptx_regs_tighten_text) and of a type the slot takes,
 *    special registers (mov), decimal integers in range, 0fXXXXXXXX /
 *    0dXXXXXXXXXXXXXXXX floats, [%rd], [%rd+K], [%r+-K] (shared/local),
 *    [param], [var+K], {vectors} of the .vN arity from one declaration,
 *    %r|%p pairs, labels (forward references are owed until defined);
 *  - `}` only when no label is owed and the last statement is an unguarded
 *    ret/exit/bra; after max_statements body lines only the shortest end
 *    (owed labels, `\tret;`, `}`) is allowed, so every walk terminates.
 * A dec_state is used by one thread at a time; states may live in
 * different threads (the per-target grammar cache is locked). */
typedef struct {
    const char *arch;           /* "sm_90" (default "sm_80"); sets .target and the PTX version */
    const char *signature;      /* forced entry header ".visible .entry k(\n\t.param .u64 a,...\n)", or NULL = sampled */
    int max_statements;         /* after this many body statements only the shortest legal end is allowed (0 = 2000:
                                   the longest literate training target has ~1,000) */
    int max_regs_per_decl;      /* upper bound for N in `.reg .b32 %r<N>;` (0 = 4096: the targets' largest is 601) */
    int block[3];               /* the launch's block when known ({0} = unknown): `.reqntid` must equal it and
                                   `.maxntid` must be at least it in every dimension (product <= 1024) */
    const char *entry_name;     /* without a signature: force `.visible .entry NAME(\n` (NULL: the model names it) */
    int comment_max;            /* literate PTX (docs/LITERATE.md): a line `\t//TEXT` with 1..comment_max bytes of
                                   printable ASCII TEXT may stand before any body statement and counts as one
                                   (0 = no comments, the single-stage format); none in the closing mode */
    int regs_named;             /* also admit the named register style (docs/LITERATE.md): `.reg .T %name;` with
                                   [A-Za-z][A-Za-z0-9_]{0,30} names, at most 256 declarations (0 = numbered only,
                                   `%name<N>` with [a-z]{1,12}, at most 32, and named ones only inside `{ }` blocks,
                                   as nvcc's helpers declare them) */
    const char *plan;           /* literate PTX that follows its plan: the CUDA C plan (NUL-terminated, copied by
                                   dec_new).  With comment_max, a comment's TEXT must then be one of the plan's lines
                                   as the literate format writes them (ptx_literate_plan_lines: " " + the line, blanks
                                   collapsed), cut at comment_max bytes; lines with bytes outside printable ASCII
                                   cannot be written.  NULL or "" = any printable TEXT */
    int plan_repeat_max;        /* with plan: a plan line that runs straight (in the __global__ body, outside every
                                   loop: ptx_literate_plan_lines_ex) may head at most this many comments, 1..15, so
                                   the PTX turn cannot go back to it again and again; loop bodies and __device__
                                   functions are not capped, nor straight lines past the 128th (sorted).  The
                                   training targets head such a line at most 4 times (200 synth samples, seed 11,
                                   2026-12-05).  0 = no limit; outside 0..15: PG_ERR_USAGE from dec_new */
    int regs_grow;              /* a numbered register's index may pass its declaration's count N (up to 2N + 32),
                                   so a model that declared too few is not forced to reuse a live register (it then
                                   clobbers a value; measured: the Qwen plan model's %r<11> where nvcc needs 14).
                                   The text is then valid only once ptx_regs_tighten_text has raised the counts to
                                   what the body uses, as gen_sample does before any check.  0 = every index below
                                   N: valid by construction as it stands */
    int reads_unwritten;        /* 0 (default): a register operand that is read (a source, a guard, an address's
                                   register, a store's or bar.sync's first operand) may only name a register that an
                                   earlier, completed instruction wrote (its destination, predicated or not), unless
                                   no register of a type the slot takes is written yet (then any declared one, so no
                                   state is dead); special registers are free.  The literate training targets never
                                   read first (0 of 300); the Qwen model's failing kernels did (26 of 178, 2026-12-06).
                                   1 = any declared register (the rule before) */
} dec_opts;

typedef struct dec_state dec_state;
PG_API pg_status dec_new(const dec_vocab *v, const dec_opts *o, dec_state **out, pg_diag_sink *diag);
PG_API void dec_free(dec_state *s);
PG_API pg_status dec_clone(const dec_state *s, dec_state **out);     /* snapshot (a few KB copied) */
PG_API void dec_copy(dec_state *dst, const dec_state *src);           /* rollback into an existing state (same vocabulary) */

/* The text the constraint forces next (header lines, the given signature,
 * the only legal continuation) appended to out; 0 bytes when a choice is open. */
PG_API size_t dec_forced_text(const dec_state *s, pg_buf *out);
/* Would the bytes of token `tok` keep the recognizer alive?  (No state change.) */
PG_API bool dec_accepts(const dec_state *s, int32_t tok);
/* Full mask: bit i of bits[(vocab+31)/32] set when token i is allowed.
 * Returns the number of allowed tokens; 0 means a dead state (a bug: reported). */
PG_API int dec_mask(const dec_state *s, uint32_t *bits);
/* The allowed token ids (ascending trie order, not sorted) into ids[max] when
 * there are at most max of them: returns their count (0: dead state); -1 when
 * there are more (ids then holds garbage).  Costs no more than dec_mask and
 * far less when the mask is small, so the engine can compute only those
 * logits; gives up early (any state inside a name allows thousands).  Uses a
 * scratch bitset owned by the state (allocated on first use). */
PG_API int dec_allowed(const dec_state *s, int32_t *ids, int max);
/* Commit a token / forced text.  PG_ERR_INVALID (E901) if not allowed. */
PG_API pg_status dec_advance(dec_state *s, int32_t tok, pg_diag_sink *diag);
PG_API pg_status dec_advance_text(dec_state *s, const char *text, size_t n, pg_diag_sink *diag);
/* From the next statement boundary on allow only the shortest legal end (owed
 * labels, `ret;`, `}`): for a caller about to run out of tokens. */
PG_API void dec_force_end(dec_state *s);
/* The module is complete (entry closed); GEN_TOK_END is then the only allowed token. */
PG_API bool dec_done(const dec_state *s);
/* Is forced text due (dec_forced_text): the header, or a forced signature once the model began `.visible` after
 * the module-scope declarations it chose to write?  A sampler feeds it whole rather than token by token. */
PG_API bool dec_forcing(const dec_state *s);
/* Bytes of the forced text not written yet (the signature while module-scope declarations are being written):
 * a sampler's reserve for dec_force_end must cover them on top of the shortest end. */
PG_API size_t dec_forced_left(const dec_state *s);
/* Bytes the shortest end takes from the next statement boundary (the owed labels' definitions, the open
 * blocks' braces, `ret;` and the entry's '}'): a sampler's reserve for dec_force_end must cover them too, one
 * token a byte at worst.  Hundreds of labels may be owed (nvcc's 3-D stencils reference 162). */
PG_API size_t dec_end_bytes(const dec_state *s);
/* Text accepted so far (the PTX module). */
PG_API const char *dec_text(const dec_state *s, size_t *len);

/* ---- performance bias ------------------------------------------------------ */
/* A JSON table (docs/BIAS.md) of context-dependent logit adjustments, e.g.
 * prefer fma over mul+add, ld.global.v4 when the address is 16-byte aligned,
 * ld.shared inside a loop over a shared tile. */
typedef struct dec_bias dec_bias;
PG_API pg_status dec_bias_load(const char *path, const dec_vocab *v, dec_bias **out, pg_diag_sink *diag);
PG_API pg_status dec_bias_default(const dec_vocab *v, dec_bias **out, pg_diag_sink *diag);  /* the built-in table */
PG_API void dec_bias_free(dec_bias *b);
/* Add the table's adjustments for the current context to logits[vocab]. */
PG_API void dec_bias_apply(const dec_bias *b, const dec_state *s, float *logits);
/* The same adjustments as a list, for a caller that holds only some logits (a row's top-K
 * candidates): logits[id[i]] += delta[i] for i = 0..n-1 in this order is exactly what
 * dec_bias_apply does (an id may come more than once; float sums in the same order).  out's
 * arrays grow as needed (n reset first); free them with dec_bias_adds_free. */
typedef struct {
    int32_t *id;
    float *delta;
    int n, cap;
} dec_bias_adds;
PG_API void dec_bias_collect(const dec_bias *b, const dec_state *s, dec_bias_adds *out);
PG_API void dec_bias_adds_free(dec_bias_adds *a);

/* ---- GBNF export (llama.cpp) ------------------------------------------------- */
/* A grammar for the syntactic subset, generated from the ISA table. */
PG_API void dec_gbnf_write(pg_buf *out);

/* ---- prompt format ------------------------------------------------------------ */
/* The forced module header for an arch: ".version V\n.target ARCH\n.address_size 64\n\n"
 * with V = max(8.0, the first PTX version that knows the target).  The
 * constraint forces exactly this text, and `ptxgen prompts` rewrites every
 * training sample's header to it, so the model never sees another. */
PG_API void gen_header_text(const char *arch, pg_buf *out);
/* V of that header as 10 * major + minor (80 for 8.0). */
PG_API int gen_header_ptx_version(const char *arch);
/* Two prompt formats, one builder.  GEN_FMT_PTXGEN is the format above (the
 * from-scratch model's own special tokens).  GEN_FMT_CHATML is the chat
 * template of pretrained chat models (Qwen2.5, SmolLM2):
 *   <|im_start|>system\n{GEN_SYSTEM_PROMPT}<|im_end|>\n
 *   <|im_start|>user\n{description}\n\nTarget: {arch}\nSignature:\n{signature}<|im_end|>\n
 *   <|im_start|>assistant\n{ptx}<|im_end|>
 * (without a signature the user turn says so and the model writes it).  The
 * module ends with the format's end token (gen_end_token). */
typedef enum { GEN_FMT_PTXGEN, GEN_FMT_CHATML } gen_prompt_fmt;
#define GEN_SYSTEM_PROMPT "You are ptxgen, a compiler that writes NVIDIA PTX. Reply with one complete PTX module " \
                          "for the requested kernel (header, one .visible .entry with the given signature, body) and nothing else."
PG_API const char *gen_prompt_fmt_name(gen_prompt_fmt f);              /* "ptxgen", "chatml" */
PG_API bool gen_prompt_fmt_parse(const char *name, gen_prompt_fmt *f); /* false for an unknown name */
/* The format a tokenizer was trained for: ptxgen's <|task|> token, else ChatML. */
PG_API gen_prompt_fmt gen_prompt_fmt_of(const tok_tokenizer *t);
PG_API const char *gen_end_token(gen_prompt_fmt f);                    /* GEN_TOK_END or GEN_TOK_IM_END */
/* signature may be NULL or "" (then the model writes it). */
PG_API void gen_prompt_build_fmt(gen_prompt_fmt f, const char *description, const char *arch, const char *signature, pg_buf *out);
PG_API void gen_prompt_build(const char *description, const char *arch, const char *signature, pg_buf *out);   /* GEN_FMT_PTXGEN */
/* Super-optimization mode: the prompt carries nvcc's PTX of one kernel instead of a description. */
PG_API void gen_prompt_build_superopt_fmt(gen_prompt_fmt f, const char *baseline_ptx, const char *arch, const char *signature, pg_buf *out);
PG_API void gen_prompt_build_superopt(const char *baseline_ptx, const char *arch, const char *signature, pg_buf *out);
/* The twin turn (a second turn after the PTX): description + PTX -> the CUDA C
 * twin.  The prompt is the first turn's prompt (gen_prompt_build_fmt), the PTX
 * as its answer with the format's end token, then a request for the twin
 * (GEN_TWIN_REQUEST): ptxgen format "<|task|>REQUEST\n", chatml a user turn and
 * the assistant's start.  The completion is the CUDA C, then gen_end_token(f).
 * `ptxgen prompts --twin` writes training pairs in exactly this form. */
#define GEN_TWIN_REQUEST "Write the CUDA C twin of this kernel: one extern \"C\" __global__ function with the same name and parameters that computes the same thing."
PG_API void gen_prompt_build_twin_fmt(gen_prompt_fmt f, const char *description, const char *arch, const char *signature,
                                      const char *ptx, pg_buf *out);
/* ---- two stages: a CUDA C plan, then literate PTX (docs/LITERATE.md) ----
 * One model, two ChatML turns (the ptxgen format has no plan turn: models with
 * their own tokenizer are single-stage).  The plan turn:
 *   system GEN_SYSTEM_PROMPT_PLAN;
 *   user   {request}\n\nTarget: {arch}\n[Launch: {launch}\n]Step 1 of 2: ... (GEN_PLAN_REQUEST) with this signature:\n{C signature}
 *          (or, without one, "...; choose its name and parameters.");
 *   assistant {the plan: CUDA C}<|im_end|>
 * The PTX turn:
 *   system GEN_SYSTEM_PROMPT_PLAN;
 *   user   {request}\n\nTarget: {arch}\n[Launch: {launch}\n]The plan (CUDA C):\n{plan}\n\nStep 2 of 2: ... (GEN_PTX_REQUEST)\nSignature:\n{PTX signature}
 *   assistant {literate PTX, header and signature forced}<|im_end|>
 * `ptxgen prompts --stage plan|ptx|both` writes training pairs in exactly these
 * forms; gen, eval and train/generate.py build them here. */
#define GEN_SYSTEM_PROMPT_PLAN "You are ptxgen, a compiler that writes NVIDIA GPU kernels in two steps: first the plan, the kernel " \
                               "in CUDA C, then literate PTX that follows the plan."
#define GEN_PLAN_REQUEST "Step 1 of 2: write the plan, the kernel in CUDA C: one extern \"C\" __global__ function"
#define GEN_PTX_REQUEST "Step 2 of 2: write the plan as literate PTX: each block of instructions starts with a // line " \
                        "holding the plan statement it implements."
PG_API void gen_prompt_build_plan(const char *request, const char *arch, const char *c_signature, pg_buf *out);
PG_API void gen_prompt_build_ptx_plan(const char *request, const char *arch, const char *plan, const char *signature, pg_buf *out);
/* ---- retrieval: the nearest verified kernels, placed in the two turns' prompts ----------
 * (src/decode/retrieve.c; docs/LITERATE.md "Retrieval").  A library of kernels that passed
 * synth's verification (task name, family, every description of the task, plan, literate
 * PTX), ranked against a request by BM25 over its words (ASCII words and CJK characters and
 * character pairs).  `ptxgen retrieve build` writes a library from synth samples, `ptxgen
 * prompts --retrieve LIB` and `gen --retrieve LIB` put the nearest kernels in the prompts:
 * the plan turn gets up to k plans, the PTX turn the nearest kernel's literate PTX.
 * Ownership: gen_retr_free frees a library and everything its hits point to.  Errors of the
 * file (E903, naming the line and the cause) go to the sink; nothing here prints. */
typedef struct gen_retr gen_retr;
typedef struct {
    int index;                 /* the kernel's position in the library */
    const char *task, *family, *plan, *ptx;   /* owned by the library */
    double score;              /* BM25; > 0 */
} gen_retr_hit;
typedef struct {
    const char *exclude_task;  /* never this task (a training sample's own kernel); NULL: none */
    size_t max_plan_bytes;     /* skip kernels whose plan / PTX is longer (0: no limit), */
    size_t max_ptx_bytes;      /* so a prompt stays within the model's context */
} gen_retr_filter;
PG_API gen_retr *gen_retr_new(void);
/* Adds one kernel with its descriptions (descs[i] in style styles[i]): PG_ERR_INVALID when
 * the task is already there, PG_ERR_USAGE for a NULL or empty field (ndescs >= 1).  The
 * library copies every string. */
PG_API pg_status gen_retr_add(gen_retr *r, const char *task, const char *family, const char *const *styles, const char *const *descs,
                              int ndescs, const char *plan, const char *ptx);
PG_API int gen_retr_count(const gen_retr *r);
/* The library file (JSONL, one kernel a line: task, family, descriptions {style: text}, plan, ptx). */
PG_API pg_status gen_retr_load(const char *path, gen_retr **out, pg_diag_sink *diag);
PG_API pg_status gen_retr_parse(const char *text, const char *path, gen_retr **out, pg_diag_sink *diag);
PG_API void gen_retr_print(const gen_retr *r, pg_buf *out);   /* the file's text; parse(print(r)) == r */
/* The k best kernels for `request` into hits[0..k), best first (ties: the earlier kernel);
 * returns how many (kernels sharing no word with the request are never returned). */
PG_API int gen_retr_query(const gen_retr *r, const char *request, const gen_retr_filter *f, int k, gen_retr_hit *hits);
PG_API void gen_retr_free(gen_retr *r);
/* Adds the kernels of a synth dataset (JSONL, `ptxgen synth --format literate`): per line its task
 * (name, every description style), family, plan (cuda_c) and literate PTX (ptx_code).  Lines are
 * skipped, and counted in rep, that are not split "train", have no plan, a PTX longer than
 * max_ptx_bytes, a task (or kernel) named in the exclude folders (a comma list of suites, so a
 * held-out task never reaches a prompt), a task already there, or a family already holding
 * per_family kernels (0: no cap).  A malformed line is PG_ERR_INVALID naming it. */
typedef struct {
    int per_family;
    size_t max_ptx_bytes;
    const char *exclude;
} gen_retr_build;
typedef struct {
    long lines, added, not_train, no_plan, too_long, excluded, duplicates, family_full;
    int families;
} gen_retr_build_report;
/* Leave one out, per description style: every description of every kernel queries the library
 * without its own kernel; how often the best hit (any of the k best) is of the kernel's family.
 * Fills out[0..max_styles), returns the styles seen (at most max_styles; k from 1 to 64). */
typedef struct {
    char style[32];
    long queries, family_at1, family_atk, none;
} gen_retr_style_eval;
PG_API int gen_retr_eval(const gen_retr *r, int k, gen_retr_style_eval *out, int max_styles);
PG_API pg_status gen_retr_add_synth(gen_retr *r, const char *path, const gen_retr_build *b, gen_retr_build_report *rep,
                                    pg_diag_sink *diag);
/* The two turns with retrieved kernels (nex = 0 and no launch: byte for byte gen_prompt_build_plan and
 * gen_prompt_build_ptx_plan).  The plan turn lists the hits' plans after the target, the
 * PTX turn the first hit's literate PTX before the plan:
 *   {request}\n\nTarget: {arch}\nSimilar verified kernels (they may differ from this request):\n
 *   // {task}\n{plan}\n\n ... then the turn's usual text. */
/* launch (gen_launch_from_task; NULL or "": no line) follows the target in both turns:
 *   Target: {arch}\nLaunch: {launch}\n */
PG_API void gen_prompt_build_plan_ex(const char *request, const char *arch, const char *launch, const char *c_signature,
                                     const gen_retr_hit *ex, int nex, pg_buf *out);
PG_API void gen_prompt_build_ptx_plan_ex(const char *request, const char *arch, const char *launch, const char *plan,
                                         const char *signature, const gen_retr_hit *ex, int nex, pg_buf *out);
/* The task's launch rule as the prompts state it: "block 256, grid cdiv(n,256)", 2-D "block
 * 16 x 16, grid cdiv(w,16) x cdiv(h,16)", plus ", dynamic shared memory {smem} bytes" when
 * the task asks for some.  The expressions are the task's own (docs/TASKS.md). */
PG_API void gen_launch_from_task(const task_spec *t, pg_buf *out);

/* The task's signature in CUDA C: `extern "C" __global__ void NAME(const float* x,
 * float* y, unsigned int n)` (inputs const; f16 __half, bf16 __nv_bfloat16). */
PG_API void gen_c_signature_from_task(const task_spec *t, pg_buf *out);
/* The C type of a task dtype ("float", "unsigned int", "__nv_bfloat16"). */
PG_API const char *gen_c_type(task_dtype t);

/* ".visible .entry NAME(\n\t.param .u64 a,\n\t.param .u32 n\n)" from a task's params. */
PG_API void gen_signature_from_task(const task_spec *t, pg_buf *out);
/* The first entry's header in canonical PTX text (as `ptxgen fmt` prints it), up to its ')'. */
PG_API bool gen_signature_from_module(const char *canonical_ptx, pg_buf *out);

/* Markdown kernel card (src/decode/card.c, the one parser: `ptxgen gen` and, through
 * gen_card_json, the Python package): "## name", "- Input: ...", "- Output: ...",
 * "- In/out: ...", "- Goal: ...", "- Constraint: ...", "- Launch: ..." (also Notes:,
 * Technique:), one per line or all on one line ("## k - Input: ... - Output: ...").
 * Typed items ("`float3* positions` (N atoms)", "`float cutoff_sq = 100.0f`") give the
 * parameters: pointers in order of appearance (Input, In/out, Output), then scalars,
 * then the size symbols of the parentheses that were not declared (.u32). */
typedef struct {
    char name[64];
    char ptx_type[8];          /* "u64" for pointers, else the scalar's type ("f32", "s32", ...) */
    char ctype[32];            /* the C type as written ("float3"); "" for implicit size symbols */
    bool pointer;
    char role[8];              /* "in", "out", "inout" (the line it is on); "size" for implicit size symbols */
    char size[128];            /* pointers: element count over the size symbols ("N", "N*3"); "" unknown */
    char def[32];              /* scalars: the default of "= 100.0f" ("100.0"); "" none */
} gen_card_param;
typedef struct {
    char *name;                /* the "## ..." heading as written */
    char *inputs, *outputs, *inouts, *goal, *constraints, *launch;   /* field values, "; "-joined when repeated */
    bool ok;                   /* looked like a card (a "## name" line and at least one "- Key:" line) */
    char kernel[64];           /* a PTX identifier made from name ("GPU Kernel: LJ" -> "GPU_Kernel_LJ"); "" when none */
    gen_card_param *params; int nparams;   /* signature order */
    char **sizes; int nsizes;  /* size symbols in order of appearance ("N"), declared or not */
    char *text;                /* the card normalized: one "- Key:" per line */
    char error[256];           /* why there is no signature ("" when there is) */
} gen_card;
/* Everything above is malloc'd and freed by gen_card_free; never fails (see ok, error). */
PG_API void gen_card_parse(const char *text, gen_card *out);
PG_API void gen_card_free(gen_card *c);
/* The forced signature from a parsed card, or false with why (not a card, a name with no
 * identifier, no typed pointer: then the model writes the signature). */
PG_API bool gen_signature_from_card(const gen_card *c, pg_buf *out, char *why, size_t whyn);
/* A name as a PTX identifier (letters, digits, '_'; other runs become one '_'); false when none. */
PG_API bool gen_card_kernel_name(const char *name, char *out, size_t n);
/* The whole parse as one JSON object appended to out, for callers in other languages
 * (python/ptxgen/card.py, through ctypes): {"ok", "error", "name", "kernel", "fields": {inputs,
 * outputs, inouts, goal, constraints, launch}, "params": [{name, ptx_type, ctype, pointer, role,
 * size, default}], "sizes", "text", "signature"}; ok is true when a signature was derived.
 * false only when out of memory. */
PG_API bool gen_card_json(const char *text, pg_buf *out);

/* Parameter names of a signature the model wrote (no card, task or twin gave one):
 * a name that is a whole ASCII word of `request` is kept, every other parameter k
 * is renamed a<k> (made unique with trailing '_'), in the signature and in every
 * use outside comments; the entry's own name is never touched.  The rewritten
 * module goes to out (a copy when nothing changes); returns how many were renamed.
 * gen_sample applies it whenever o->signature is empty (not in --baseline mode). */
PG_API int gen_params_plain(const char *ptx, const char *request, pg_buf *out);

/* ---- `ptxgen gen` ------------------------------------------------------------- */
typedef struct {
    const char *arch;          /* default "sm_80" */
    const char *signature;     /* forced signature or NULL */
    const char *baseline_ptx;  /* super-optimization mode: rewrite this (canonical) module instead of a description */
    bool constrained;          /* default true */
    const dec_bias *bias;      /* NULL = off */
    model_sampler_opts sampler;/* defaults: top_k 5, temperature 0.3 */
    int max_tokens;            /* default 2048; near the end the constraint closes the kernel (dec_force_end) */
    gen_prompt_fmt format;     /* the model's prompt format (gen_prompt_fmt_of its tokenizer) */
    int block[3];              /* the task's launch block ({0} = unknown): see dec_opts.block */
    const char *entry_name;    /* without a signature: the kernel's name (see dec_opts.entry_name) */
    int comment_max;           /* literate PTX: dec_opts.comment_max (0 = none) */
    int regs_named;            /* dec_opts.regs_named: named registers admitted (a model trained on that style) */
    const char *plan;          /* dec_opts.plan: comments quote this CUDA C plan's lines (NULL = any text) */
    int plan_repeat_max;       /* dec_opts.plan_repeat_max: comments a straight plan line may head (0 = no limit) */
    int regs_grow;             /* dec_opts.regs_grow: register indices past the declared count (the counts are
                                  raised before the result is returned); gen_opts_default turns it on */
    const char *prompt;        /* the whole prompt text instead of one built from the description (the two-stage
                                  model's PTX turn, gen_prompt_build_ptx_plan); NULL = built */
    int draft_max;             /* speculative decoding: up to this many drafted tokens (n-gram lookup in the
                                * prompt, the output so far and `ngram`; each checked by the constraint first)
                                * verified per forward; 0 (the default) = one token per forward.  The output is
                                * byte-identical either way (see gen_sample) */
    const struct gen_ngram *ngram;   /* optional n-gram table of training kernels (gen_ngram_load) for the drafts */
    const char *draft_ref;     /* optional reference text for the drafts (NULL = none; borrowed: the caller keeps it
                                * alive until gen_sample returns): the output is expected to follow it closely (the
                                * two-stage model's PTX turn: nvcc's literate PTX of the plan, pipe_ptx_opts).
                                * Tokenized once; a guess is the token after the longest match (2..8 tokens) of
                                * the output's suffix in it (GEN_DRAFT_REF).  Only with draft_max > 0, and only for
                                * gen_sample / gen_sample_k (the constrained turns); never changes the output */
    double draft_fixed;        /* speculative decoding: what a verify step costs beyond its rows, in rows, against
                                * which each draft's odds are weighed (0, the default = the engine's measure,
                                * model_exact_fixed_rows; `ptxgen gen --draft-fixed X`); moves the steps, never the output */
    bool loop_stop;            /* gen_free_sample only (the plan turn): end the text early, unfinished (looped set),
                                  when gen_text_loops says it loops; checked after each token that holds a newline */
    int reads_unwritten;       /* dec_opts.reads_unwritten: 1 = a read register may be one nothing wrote yet (the rule
                                  before 2026-12-06); 0 (the default) = read before write */
} gen_opts;

/* Where a drafted token came from (gen_result.drafted_by / accepted_by): the constraint's only
 * continuation (certain), the token after the longest earlier occurrence of the current suffix in
 * the prompt and output (history), the n-gram table of training kernels (table), a register
 * number's digit (the next unused number of its class for a destination, the last destination
 * of its class for a source), literate PTX's comment copying a plan line (plan: the line after the
 * one the last comment copied, in the prompt's plan), the reference text gen_opts.draft_ref (reference:
 * the token after the longest match of the current suffix in it, taken over the history's guess
 * when its match is at least as long). */
typedef enum { GEN_DRAFT_FORCED, GEN_DRAFT_HISTORY, GEN_DRAFT_TABLE, GEN_DRAFT_REGISTER, GEN_DRAFT_PLAN, GEN_DRAFT_REF,
               GEN_DRAFT_NSRC } gen_draft_src;
PG_API const char *gen_draft_src_name(gen_draft_src s);   /* "forced", "history", "table", "register", "plan", "reference" */

typedef struct {
    char *ptx;                 /* the module, starting with the GENERATED_BY comment (malloc'd) */
    int prompt_tokens, gen_tokens, forced_tokens;
    int mask_calls;            /* full masks computed (sample-then-verify rejections) */
    double seconds, mask_seconds;
    bool finished;             /* the model ended the kernel itself: GEN_TOK_END before the token budget ran out */
    bool cut;                  /* the token budget ran out: the constraint closed the kernel early (or it stopped
                                  unclosed), so the body is cut short; then finished is false */
    int params_renamed;        /* parameters the model named that gen_params_plain renamed a<k> */
    int forwards;              /* model steps run for the output (prompt prefill not counted) */
    int drafted, accepted;     /* speculative decoding: drafted tokens verified, and accepted */
    int jumped;                /* tokens taken as the constraint's only legal continuation, without sampling */
    int drafted_by[GEN_DRAFT_NSRC], accepted_by[GEN_DRAFT_NSRC];   /* the same per draft source (gen_draft_src) */
    int draft_fallbacks;       /* drafts made after the constraint refused a more trusted guess at their place */
    int draft_renamed;         /* register-number drafts from the reference's register renamed as the model numbers it */
    bool looped;               /* gen_free_sample with loop_stop: the text looped (gen_text_loops) and was ended
                                  there; finished is false */
    int top_decided, top_full; /* draws made from a row's top candidates (the GPU engine: model_topk_rows), and
                                  draws that had them but needed the whole row (they could not decide it) */
    double decode_seconds, decode_cpu_seconds;   /* gen_sample: the output's decoding after the prompt's prefill,
                                                    wall and process CPU (all threads); 0 elsewhere */
} gen_result;

PG_API void gen_opts_default(gen_opts *o);
/* One sample.  `model_id` goes into the GENERATED_BY line.
 * Each token is chosen by one rule: when the constraint allows exactly one token it is taken
 * without sampling (no random draw); when it allows at most GEN_SUBSET_MAX, only those
 * tokens' logits are computed (model_logits_rows with ids) and the sampler draws from them
 * (the masked distribution, performance bias added); otherwise from all the logits,
 * sample-then-verify (a refused token is redrawn from the masked logits).
 * With o->draft_max > 0 (speculative decoding), drafted tokens and forced ones ride along in
 * one model_forward_exact step, and at each position the token is chosen by that same rule,
 * with the same random draw, from that row's logits (equal bit for bit to a one-token step's):
 * a draft is kept while it equals the chosen token; at the first difference the chosen token
 * is kept, the rest dropped (the cache rewound).  So the output is byte-identical to
 * draft_max 0, for greedy and for seeded sampling alike; only `forwards`, `seconds` and the
 * draft counts differ. */
#define GEN_SUBSET_MAX 1024
PG_API pg_status gen_sample(model_model *m, const tok_tokenizer *t, const dec_vocab *v, const char *description,
                     const gen_opts *o, gen_result *out, pg_diag_sink *diag);
PG_API void gen_result_free(gen_result *r);
/* Best-of-k: k samples of one prompt, candidate i (0-based) drawn with seed
 * o->sampler.seed + i, the seed gen's attempt loop gives attempt i + 1.  Each has its
 * own context, constraint state and sampler, exactly as gen_sample; they step through
 * the model together, up to GEN_BATCH_MAX at a time (GEN_BATCH_GPU on the GPU engine;
 * model_forward_batch: the weights
 * are read once per step for all of them, not once per candidate).  outs[k] receives
 * gen_sample's result for each seed: the same tokens, as long as the batched logits'
 * rounding (model_forward_batch) does not move a sampling draw across a boundary.
 * A candidate's `seconds` runs from the call's start to its last token.  On an error
 * (the first candidate's, as gen_sample reports it) every outs[i] is freed and zeroed. */
#define GEN_BATCH_MAX 8   /* candidates in flight at once: each holds a context (KV cache) of prompt + max_tokens */
#define GEN_BATCH_GPU 32  /* the same on the GPU engine (model_device "gpu"): a step of 32 rows costs little more than one */
PG_API pg_status gen_sample_k(model_model *m, const tok_tokenizer *t, const dec_vocab *v, const char *description,
                              const gen_opts *o, int k, gen_result *outs, pg_diag_sink *diag);
/* The twin turn: sample the CUDA C twin of `ptx` (unconstrained: the constraint
 * knows PTX, not C) until the format's end token or o->max_tokens; uses o's
 * format, arch, signature, sampler and max_tokens.  out->ptx holds the CUDA C
 * text (no header; the caller adds its GENERATED_BY line); out->finished says
 * whether the end token came.  Models not trained on twin pairs write
 * something, not a twin: nvcc and the GPU are what judge it. */
/* ---- speculative decoding: the n-gram table of training kernels ----------------------------
 * For each context of 1..order tokens in the training completions, the most frequent next token
 * (ties: the lower id) with its count, kept when seen at least min_count times.  The binary
 * format (src/decode/ngram.c, docs/DESIGN.md) records the tokenizer's fingerprint: a table
 * built for another tokenizer is refused.  Shipped beside an adapter as ngram.bin
 * (`ptxgen ngram --in PAIRS.jsonl --model DIR --out DIR/ngram.bin`; `gen` loads DIR/ngram.bin). */
typedef struct gen_ngram gen_ngram;
#define GEN_NGRAM_MAX_ORDER 8
/* FNV-1a 64 over every token's byte length and bytes, in id order. */
PG_API uint64_t gen_ngram_fingerprint(const tok_tokenizer *t);
/* The table file's bytes (into out, replaced) for texts tokenized with t. */
PG_API pg_status gen_ngram_build(const tok_tokenizer *t, const char *const *texts, int ntexts, int order, int min_count,
                                 pg_buf *out, pg_diag_sink *diag);
/* From a JSONL: `ptxgen prompts` pairs ("completion") or a synth dataset ("ptx_code"); lines with a
 * "split" other than "train" and twin turns are left out.  Written atomically to out_path;
 * *nkernels (may be NULL) = texts used.  E903 naming the file and line for a bad line. */
PG_API pg_status gen_ngram_build_jsonl(const tok_tokenizer *t, const char *jsonl, int order, int min_count,
                                       const char *out_path, int *nkernels, pg_diag_sink *diag);
/* Read a table (t NULL: no tokenizer check); every field checked, E903 with the cause otherwise. */
PG_API pg_status gen_ngram_parse(const void *data, size_t size, const char *name, const tok_tokenizer *t, gen_ngram **out,
                                 pg_diag_sink *diag);
PG_API pg_status gen_ngram_load(const char *path, const tok_tokenizer *t, gen_ngram **out, pg_diag_sink *diag);
PG_API void gen_ngram_free(gen_ngram *g);
PG_API int gen_ngram_order(const gen_ngram *g);
PG_API size_t gen_ngram_entries(const gen_ngram *g);
/* The next token after the n tokens at ctx, from the longest of their suffixes the table holds,
 * if its count is at least min_count; else -1. */
PG_API int32_t gen_ngram_next(const gen_ngram *g, const int32_t *ctx, int n, int min_count);

PG_API pg_status gen_twin_sample(model_model *m, const tok_tokenizer *t, const char *description, const char *ptx,
                                 const gen_opts *o, gen_result *out, pg_diag_sink *diag);
/* Unconstrained sampling of `prompt` (the whole prompt text) until the format's end
 * token, a NUL byte, o->max_tokens or the model's context: the twin turn and the
 * two-stage model's plan turn.  out->ptx holds the text (C, not PTX); out->finished
 * says whether the end token came.  o->draft_max > 0: speculative decoding with drafts
 * from the prompt, the text so far and o->ngram, as gen_sample's (no constraint); the
 * text is byte-identical to draft_max 0 for greedy and seeded sampling alike. */
PG_API pg_status gen_free_sample(model_model *m, const tok_tokenizer *t, const char *prompt, const gen_opts *o, gen_result *out,
                                 pg_diag_sink *diag);

/* The plan turn's loop stop (gen_opts.loop_stop; train/plan_loop.py is the same rule for the GPU
 * driver).  A looping plan repeats itself up to the token limit: round 6 (H100, 2026-12-06) had 32
 * of 270 suite plans cut at 1024 tokens, most of them one comment line, or one paragraph wrapped
 * at other places each time, over and over.  text[0..len) loops when its complete lines (up to the
 * last newline) end in
 *   - the same non-blank line (surrounding whitespace ignored) GEN_LOOP_LINE_REPEATS times in a row, or
 *   - GEN_LOOP_PERIOD_REPS repetitions of a period of 1..GEN_LOOP_PERIOD_WORDS_MAX words (runs of
 *     non-whitespace; "//" not counted), and GEN_LOOP_PERIOD_SPAN_MIN words at least (a short period
 *     repeats more): a paragraph rewritten, wrapped at other places each time, repeats as words.
 * The numbers leave room over what finished plans and training CUDA do (bench/results/
 * 2026-12-06-plan-loops-cpu.json): a line at most 5 times in a row ("}" of nested blocks; 4 in
 * round 6's compiled plans), a periodic word tail at most 3.7 times.  why (optional) says which. */
#define GEN_LOOP_LINE_REPEATS 8
#define GEN_LOOP_PERIOD_REPS 6
#define GEN_LOOP_PERIOD_WORDS_MAX 64
#define GEN_LOOP_PERIOD_SPAN_MIN 32
PG_API bool gen_text_loops(const char *text, size_t len, char *why, size_t whyn);

#endif
