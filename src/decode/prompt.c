/* prompt.c — the prompt format shared by training (`ptxgen prompts`), `ptxgen
 * gen` and `ptxgen eval`, and entry signatures from task specs (cards: card.c).
 * One implementation, so the three can never drift apart. */
#include "ptxgen/decode.h"
#include "ptxgen/isa.h"

#include <ctype.h>
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *gen_prompt_fmt_name(gen_prompt_fmt f) { return f == GEN_FMT_CHATML ? "chatml" : "ptxgen"; }

bool gen_prompt_fmt_parse(const char *name, gen_prompt_fmt *f) {
    if (name && !strcmp(name, "ptxgen")) { *f = GEN_FMT_PTXGEN; return true; }
    if (name && !strcmp(name, "chatml")) { *f = GEN_FMT_CHATML; return true; }
    return false;
}

gen_prompt_fmt gen_prompt_fmt_of(const tok_tokenizer *t) {
    return tok_special_id(t, GEN_TOK_TASK) < 0 && tok_special_id(t, GEN_TOK_IM_START) >= 0 ? GEN_FMT_CHATML : GEN_FMT_PTXGEN;
}

const char *gen_end_token(gen_prompt_fmt f) { return f == GEN_FMT_CHATML ? GEN_TOK_IM_END : GEN_TOK_END; }

/* Free text without trailing whitespace, so "card\n" and "card" prompt identically. */
static void put_trimmed(pg_buf *out, const char *s) {
    size_t n = s ? strlen(s) : 0;
    while (n && isspace((unsigned char)s[n - 1])) n--;
    if (n) pg_buf_putn(out, s, n);
}

static void chatml(const char *request, const char *intro, const char *arch, const char *signature, pg_buf *out) {
    pg_buf_puts(out, GEN_TOK_IM_START "system\n" GEN_SYSTEM_PROMPT GEN_TOK_IM_END "\n" GEN_TOK_IM_START "user\n");
    if (intro) pg_buf_puts(out, intro);
    put_trimmed(out, request);
    pg_buf_printf(out, "\n\nTarget: %s\n", arch && *arch ? arch : "sm_80");
    if (signature && *signature) pg_buf_printf(out, "Signature:\n%s", signature);
    else pg_buf_puts(out, "Signature: not given; write the entry's parameters yourself.");
    pg_buf_puts(out, GEN_TOK_IM_END "\n" GEN_TOK_IM_START "assistant\n");
}

void gen_prompt_build_fmt(gen_prompt_fmt f, const char *description, const char *arch, const char *signature, pg_buf *out) {
    if (f == GEN_FMT_CHATML) { chatml(description, NULL, arch, signature, out); return; }
    pg_buf_puts(out, GEN_TOK_TASK);
    put_trimmed(out, description);
    pg_buf_printf(out, "\n" GEN_TOK_ARCH "%s\n" GEN_TOK_SIGNATURE "%s\n" GEN_TOK_PTX, arch && *arch ? arch : "sm_80",
                  signature ? signature : "");
}

void gen_prompt_build(const char *description, const char *arch, const char *signature, pg_buf *out) {
    gen_prompt_build_fmt(GEN_FMT_PTXGEN, description, arch, signature, out);
}

void gen_prompt_build_superopt_fmt(gen_prompt_fmt f, const char *baseline_ptx, const char *arch, const char *signature, pg_buf *out) {
    if (f == GEN_FMT_CHATML) {
        chatml(baseline_ptx, "Rewrite this PTX (nvcc's) into a faster kernel that computes exactly the same thing:\n\n", arch,
               signature, out);
        return;
    }
    pg_buf_puts(out, GEN_TOK_BASELINE);
    put_trimmed(out, baseline_ptx);
    pg_buf_printf(out, "\n" GEN_TOK_ARCH "%s\n" GEN_TOK_SIGNATURE "%s\n" GEN_TOK_PTX, arch && *arch ? arch : "sm_80",
                  signature ? signature : "");
}

void gen_prompt_build_superopt(const char *baseline_ptx, const char *arch, const char *signature, pg_buf *out) {
    gen_prompt_build_superopt_fmt(GEN_FMT_PTXGEN, baseline_ptx, arch, signature, out);
}

void gen_prompt_build_twin_fmt(gen_prompt_fmt f, const char *description, const char *arch, const char *signature,
                               const char *ptx, pg_buf *out) {
    gen_prompt_build_fmt(f, description, arch, signature, out);
    put_trimmed(out, ptx);
    pg_buf_puts(out, "\n");
    pg_buf_puts(out, gen_end_token(f));
    if (f == GEN_FMT_CHATML) pg_buf_puts(out, "\n" GEN_TOK_IM_START "user\n" GEN_TWIN_REQUEST GEN_TOK_IM_END "\n" GEN_TOK_IM_START "assistant\n");
    else pg_buf_puts(out, "\n" GEN_TOK_TASK GEN_TWIN_REQUEST "\n");
}

/* ---- two stages (docs/LITERATE.md) ---- */
/* The launch line tells both turns how the kernel will be launched: a plan written without it
 * guesses, and a grid-stride loop whose step ignores the grid is the commonest wrong plan
 * (bench/results/2026-12-07-plan-round11-qwen15-h100/why-reduction-histogram.md). */
static void plan_user_start(const char *request, const char *arch, const char *launch, pg_buf *out) {
    pg_buf_puts(out, GEN_TOK_IM_START "system\n" GEN_SYSTEM_PROMPT_PLAN GEN_TOK_IM_END "\n" GEN_TOK_IM_START "user\n");
    put_trimmed(out, request);
    pg_buf_printf(out, "\n\nTarget: %s\n", arch && *arch ? arch : "sm_80");
    if (launch && *launch) {
        pg_buf_puts(out, "Launch: ");
        put_trimmed(out, launch);
        pg_buf_puts(out, "\n");
    }
}

/* Retrieved kernels (docs/LITERATE.md "Retrieval"): plans for the plan turn, literate PTX for
 * the PTX turn, each headed by its task's name. */
static void examples(const gen_retr_hit *ex, int nex, bool ptx, pg_buf *out) {
    if (nex <= 0) return;
    pg_buf_puts(out, ptx ? "A similar verified kernel in literate PTX (it may differ from this plan):\n"
                         : "Similar verified kernels (they may differ from this request):\n");
    for (int i = 0; i < nex; i++) {
        pg_buf_printf(out, "// %s\n", ex[i].task);
        put_trimmed(out, ptx ? ex[i].ptx : ex[i].plan);
        pg_buf_puts(out, "\n\n");
    }
}

void gen_prompt_build_plan_ex(const char *request, const char *arch, const char *launch, const char *c_signature,
                              const gen_retr_hit *ex, int nex, pg_buf *out) {
    plan_user_start(request, arch, launch, out);
    examples(ex, nex, false, out);
    if (c_signature && *c_signature) {
        pg_buf_puts(out, GEN_PLAN_REQUEST " with this signature:\n");
        put_trimmed(out, c_signature);
    } else pg_buf_puts(out, GEN_PLAN_REQUEST "; choose its name and parameters.");
    pg_buf_puts(out, GEN_TOK_IM_END "\n" GEN_TOK_IM_START "assistant\n");
}

void gen_prompt_build_plan(const char *request, const char *arch, const char *c_signature, pg_buf *out) {
    gen_prompt_build_plan_ex(request, arch, NULL, c_signature, NULL, 0, out);
}

void gen_prompt_build_ptx_plan_ex(const char *request, const char *arch, const char *launch, const char *plan,
                                  const char *signature, const gen_retr_hit *ex, int nex, pg_buf *out) {
    plan_user_start(request, arch, launch, out);
    examples(ex, nex > 1 ? 1 : nex, true, out);   /* one kernel: literate PTX is long */
    pg_buf_puts(out, "The plan (CUDA C):\n");
    put_trimmed(out, plan);
    pg_buf_puts(out, "\n\n" GEN_PTX_REQUEST "\n");
    if (signature && *signature) pg_buf_printf(out, "Signature:\n%s", signature);
    else pg_buf_puts(out, "Signature: the plan's.");
    pg_buf_puts(out, GEN_TOK_IM_END "\n" GEN_TOK_IM_START "assistant\n");
}

void gen_prompt_build_ptx_plan(const char *request, const char *arch, const char *plan, const char *signature, pg_buf *out) {
    gen_prompt_build_ptx_plan_ex(request, arch, NULL, plan, signature, NULL, 0, out);
}

const char *gen_c_type(task_dtype t) {
    switch (t) {
    case TASK_T_F16: return "__half";
    case TASK_T_BF16: return "__nv_bfloat16";
    case TASK_T_F32: return "float";
    case TASK_T_F64: return "double";
    case TASK_T_S8: return "signed char";
    case TASK_T_S16: return "short";
    case TASK_T_S32: return "int";
    case TASK_T_S64: return "long long";
    case TASK_T_U8: return "unsigned char";
    case TASK_T_U16: return "unsigned short";
    case TASK_T_U32: return "unsigned int";
    case TASK_T_U64: return "unsigned long long";
    default: return "void";
    }
}

void gen_c_signature_from_task(const task_spec *t, pg_buf *out) {
    pg_buf_printf(out, "extern \"C\" __global__ void %s(", t->kernel);
    for (int i = 0; i < t->nparams; i++) {
        const task_param *p = &t->params[i];
        if (p->is_pointer)
            pg_buf_printf(out, "%s%s%s* %s", i ? ", " : "", p->role == TASK_ROLE_IN ? "const " : "", gen_c_type(p->dtype), p->name);
        else pg_buf_printf(out, "%s%s %s", i ? ", " : "", gen_c_type(p->dtype), p->name);
    }
    pg_buf_puts(out, ")");
}

/* One launch dimension list: "256" or "16 x 16" (trailing "1"s dropped, at least one kept). */
static void launch_dims(char *const dims[3], pg_buf *out) {
    int n = 3;
    while (n > 1 && (!dims[n - 1] || !strcmp(dims[n - 1], "1"))) n--;
    for (int i = 0; i < n; i++) pg_buf_printf(out, "%s%s", i ? " x " : "", dims[i] ? dims[i] : "1");
}

void gen_launch_from_task(const task_spec *t, pg_buf *out) {
    pg_buf_puts(out, "block ");
    launch_dims(t->block, out);
    pg_buf_puts(out, ", grid ");
    launch_dims(t->grid, out);
    if (t->smem && *t->smem && strcmp(t->smem, "0")) pg_buf_printf(out, ", dynamic shared memory %s bytes", t->smem);
}

/* The canonical printer's parameter list (src/ptx/print.c print_params). */
static void sig_open(pg_buf *out, const char *name) { pg_buf_printf(out, ".visible .entry %s(", name); }
static void sig_param(pg_buf *out, int i, const char *type, const char *name) {
    pg_buf_printf(out, "%s.param .%s %s", i ? ",\n\t" : "\n\t", type, name);
}
static void sig_close(pg_buf *out, int n) { pg_buf_puts(out, n ? "\n)" : ")"); }

void gen_signature_from_task(const task_spec *t, pg_buf *out) {
    sig_open(out, t->kernel);
    for (int i = 0; i < t->nparams; i++) {
        const task_param *p = &t->params[i];
        sig_param(out, i, p->is_pointer ? "u64" : task_dtype_name(p->dtype), p->name);
    }
    sig_close(out, t->nparams);
}

bool gen_signature_from_module(const char *canonical_ptx, pg_buf *out) {
    /* the first line starting an entry, up to the ')' closing its params */
    const char *p = canonical_ptx;
    while (p && *p) {
        if (!strncmp(p, ".visible .entry ", 16) || !strncmp(p, ".entry ", 7)) break;
        p = strchr(p, '\n');
        if (p) p++;
    }
    if (!p || !*p) return false;
    const char *open = strchr(p, '('), *nl = strchr(p, '\n');
    if (!open || (nl && nl < open)) {   /* `.entry k` without a parameter list */
        pg_buf_putn(out, p, nl ? (size_t)(nl - p) : strlen(p));
        return true;
    }
    const char *close = strchr(open, ')');
    if (!close) return false;
    pg_buf_putn(out, p, (size_t)(close - p + 1));
    return true;
}

int gen_header_ptx_version(const char *arch) {
    int sm = 80;
    bool a = false, f = false;
    if (!arch || !isa_parse_target(arch, &sm, &a, &f)) sm = 80;
    int v = isa_target_min_ptx(sm);
    return v < 80 ? 80 : v;   /* 8.0: what every hand-written corpus kernel declares */
}

void gen_header_text(const char *arch, pg_buf *out) {
    int sm = 80;
    bool a = false, f = false;
    if (!arch || !isa_parse_target(arch, &sm, &a, &f)) arch = "sm_80";
    int v = gen_header_ptx_version(arch);
    pg_buf_printf(out, ".version %d.%d\n.target %s\n.address_size 64\n\n", v / 10, v % 10, arch);
}
