/* dataset.c — `ptxgen synth`: the JSONL dataset writer.
 *
 * Samples come from three sources: the hand-written corpus, the random
 * expression-tree family (expr_tree) and semantics-preserving mutants of
 * both (synth_mutate).  Candidate i is a pure function of (seed, i), so a run
 * is byte-identical for the same arguments whatever --jobs is: workers build
 * candidates of one batch in parallel, the parent merges them in index
 * order, removes duplicates and appends to OUT.partial; OUT.partial.state
 * remembers the next candidate, so an interrupted run resumes, and OUT
 * appears (by rename) only when complete. */
#define _GNU_SOURCE
#include "ptxgen/synth.h"
#include "ptxgen/synth_expr.h"
#include "ptxgen/task.h"
#include "ptxgen/synth_family.h"
#include "ptxgen/isa.h"
#include "ptxgen/ptx.h"
#include "ptxgen/expr.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int cmp(const void *a, const void *b);   /* qsort comparator */

static uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Near-duplicate key: register numbers and whitespace do not count. */
uint64_t synth_normalized_hash(const char *ptx) {
    pg_buf b = {0};
    bool space = false;
    for (const char *p = ptx; *p; p++) {
        if (*p == '/' && p[1] == '/') { while (*p && *p != '\n') p++; if (!*p) break; }
        if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') { space = true; continue; }
        if (space && b.len) pg_buf_putc(&b, ' ');
        space = false;
        if (*p == '%') {   /* %rd12 -> %rd#  */
            pg_buf_putc(&b, '%');
            p++;
            while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_') pg_buf_putc(&b, *p++);
            bool digits = false;
            while (*p >= '0' && *p <= '9') { p++; digits = true; }
            if (digits) pg_buf_putc(&b, '#');
            p--;
            continue;
        }
        pg_buf_putc(&b, *p);
    }
    uint64_t h = b.data ? pg_hash64_add(PG_HASH64_INIT_SHORT, b.data, b.len) : 0;
    pg_buf_free(&b);
    return h;
}

/* ---- descriptions -------------------------------------------------------------- */
/* One phrasing of the task: a style (terse, detailed, card, zh, prose: the
 * styles `ptxgen eval` measures) and light rewording so the model does not
 * learn one template.  A task without the drawn style falls back to terse. */
static const struct { const char *from, *to[3]; } synonyms[] = {
    {"Compute ", {"Calculate ", "Evaluate ", "Produce "}},
    {"compute ", {"calculate ", "evaluate ", "produce "}},
    {"Write ", {"Store ", "Emit ", "Output "}},
    {"elementwise", {"element-wise", "per element", "for every element"}},
    {"one thread per element", {"a thread for each element", "one element per thread", "each thread handles one element"}},
    {"Launch ", {"Use ", "Run with ", "Launch with "}},
    {"threads per block", {"threads/block", "threads in each block", "threads per CTA"}},
};

static void reword(const char *s, uint64_t r, pg_buf *out) {
    const char *p = s;
    while (*p) {
        bool done = false;
        for (size_t k = 0; k < sizeof synonyms / sizeof synonyms[0] && !done; k++) {
            size_t n = strlen(synonyms[k].from);
            if (!strncmp(p, synonyms[k].from, n)) {
                uint64_t c = mix(r ^ (uint64_t)k ^ (uint64_t)(p - s)) % 4;
                pg_buf_puts(out, c == 3 ? synonyms[k].from : synonyms[k].to[c]);
                p += n;
                done = true;
            }
        }
        if (!done) pg_buf_putc(out, *p++);
    }
}

static void signature_sentence(json_t *task, bool zh, pg_buf *out) {
    json_t *ps = json_object_get(task, "params");
    size_t n = json_array_size(ps);
    pg_buf_puts(out, zh ? "内核签名：" : "Signature: ");
    for (size_t i = 0; i < n; i++) {
        json_t *p = json_array_get(ps, i);
        const char *name = json_string_value(json_object_get(p, "name")), *type = json_string_value(json_object_get(p, "type"));
        pg_buf_printf(out, "%s%s %s", i ? ", " : "", type ? type : "?", name ? name : "?");
        const char *role = json_string_value(json_object_get(p, "role"));
        if (role && strcmp(role, "in")) pg_buf_printf(out, " (%s)", role);
    }
    pg_buf_puts(out, zh ? "。" : ".");
}

/* *frame_out: the template that rendered the text, from the task's
 * "descriptions"."frames" (describe.h), or "<style>.corpus" for hand-written
 * descriptions. */
static void synth_describe(json_t *task, uint64_t seed, pg_buf *out, const char **style_out, char *frame_out, size_t frame_n) {
    uint64_t r = mix(seed);
    int style = (int)(r % TASK_NSTYLES);
    json_t *d = json_object_get(task, "descriptions");
    const char *text = json_string_value(json_object_get(d, task_styles[style]));
    if (!text) { style = TASK_STYLE_TERSE; text = json_string_value(json_object_get(d, task_styles[style])); }
    *style_out = task_styles[style];
    const char *frame = json_string_value(json_object_get(json_object_get(d, "frames"), task_styles[style]));
    if (frame) snprintf(frame_out, frame_n, "%s", frame);
    else snprintf(frame_out, frame_n, "%s.corpus", task_styles[style]);
    bool zh = style == TASK_STYLE_ZH;
    if (style == TASK_STYLE_CARD || zh) pg_buf_puts(out, text ? text : "");   /* cards and Chinese stay verbatim */
    else reword(text ? text : "", r >> 8, out);
    /* sometimes add the signature, sometimes the launch rule, in varying order */
    uint64_t extra = (r >> 20) % 4;
    if (style != 2 && (extra == 1 || extra == 3)) { pg_buf_puts(out, zh ? "" : " "); signature_sentence(task, zh, out); }
    if (style != 2 && extra >= 2) {
        json_t *la = json_object_get(task, "launch");
        const char *b = json_string_value(json_array_get(json_object_get(la, "block"), 0));
        const char *g = json_string_value(json_array_get(json_object_get(la, "grid"), 0));
        if (b && g) pg_buf_printf(out, zh ? "启动配置：每块 %s 个线程，网格 %s。" : " Launch %s threads per block and a grid of %s blocks.", b, g);
    }
}

/* ---- candidates ---------------------------------------------------------------- */
typedef struct { char *name, *ptx; json_t *task; char *cu; } base_task;   /* a hand-written corpus task (cu: its plan.cu when
                                                                              literate, else its reference.cu, or NULL) */

/* Batched ptxas: a worker first builds its candidates without ptxas
 * (collecting the PTX), verifies them with a few ptxas runs over combined
 * modules, then builds them again with the verdicts.  ptxas start-up costs
 * more than compiling a small kernel, so this is what makes synth fast. */
typedef struct { int64_t idx; char *ptx; bool batchable; char header[160]; char entry[128]; } pend;
typedef PG_VEC(pend) pending_list;
typedef struct { int64_t idx; bool ok; ptxas_func_report f; } verdict;
typedef PG_VEC(verdict) verdict_list;

typedef struct {
    const synth_opts *o;
    base_task *hand; int nhand;
    json_t *results;   /* device results by task name (optional) */
    pending_list *pending;     /* collecting pass */
    verdict_list *verdicts;    /* building pass */
    char **excl; int nexcl;    /* held-out task identities (--exclude), sorted */
    struct fam_cache *fcache;  /* nvcc-family samples of this worker's batch, made in one nvcc run per family */
} gen_ctx;

/* nvcc families cost an nvcc run each, so a worker makes all of its batch's
 * nvcc-family samples up front (synth_family_generate_batch: one nvcc run per
 * family) and make_candidate() reads them from here. */
typedef struct { int64_t idx; synth_family_sample s; bool ok; } fam_cached;
struct fam_cache { PG_VEC(fam_cached) v; };

/* Which family, if any, candidate idx draws from (3 in 8 of the non-hand
 * candidates when families are enabled, or family_pct of them), uniformly or
 * by o->family_weight.  A pure function of (seed, idx). */
static int family_pick(const synth_opts *o, int nhand, int64_t idx, uint64_t *fseed) {
    if (!(o->sources & SYNTH_SRC_FAMILY) || synth_family_count() == 0) return -1;
    bool only_hand = !(o->sources & (SYNTH_SRC_EXPR | SYNTH_SRC_MUTANT | SYNTH_SRC_FAMILY));
    if (nhand && (o->sources & SYNTH_SRC_HAND) && (only_hand || idx % 8 == 0)) return -1;
    uint64_t r = mix(o->seed * 0x100000001b3ull ^ (uint64_t)idx);
    bool only_family = !(o->sources & (SYNTH_SRC_EXPR | SYNTH_SRC_HAND));
    int pct = o->family_pct > 0 ? o->family_pct : 0;
    if (!only_family && (pct ? (int)((r >> 44) % 100) >= pct : (r >> 44) % 8 >= 3)) return -1;
    *fseed = r ^ 0xfa3117ull;
    int n = synth_family_count();
    if (!o->family_weight) return (int)((r >> 40) % (uint64_t)n);
    /* weighted: the same bits, reduced modulo the total weight and looked up in
     * the cumulative weights, so weights all 1 give the uniform pick above */
    uint64_t total = 0;
    for (int f = 0; f < n; f++) total += (uint64_t)o->family_weight[f];
    if (total == 0) return -1;   /* refused by check_opts; a direct synth_family_pick caller gets no family */
    uint64_t t = (r >> 40) % total;
    for (int f = 0; f < n; f++) {
        if (t < (uint64_t)o->family_weight[f]) return f;
        t -= (uint64_t)o->family_weight[f];
    }
    return n - 1;   /* not reached */
}

int synth_family_pick(const synth_opts *o, int nhand, int64_t idx) {
    uint64_t fseed;
    return family_pick(o, nhand, idx, &fseed);
}

/* Family weights: NAME=W items, comma-separated (repeated --family-weight
 * options arrive joined with commas, so a family named in two of them is a
 * duplicate like any other). */
pg_status synth_family_weights_parse(const char *spec, int *weights, pg_diag_sink *diag) {
    int n = synth_family_count();
    bool named[SYNTH_MAX_FAMILIES] = {false};
    for (int f = 0; f < n; f++) weights[f] = 1;
    const char *p = spec ? spec : "";
    for (;;) {
        size_t len = strcspn(p, ",");
        char item[128];
        snprintf(item, sizeof item, "%.*s", (int)(len < sizeof item - 1 ? len : sizeof item - 1), p);
        const char *eq = strchr(item, '=');
        if (!*item || !eq || len >= sizeof item) {
            pg_diag_emit(diag, PG_E_IO, "--family-weight", 0, 0, "'%s': %s; want NAME=W (e.g. softmax=10)", item,
                         !*item ? "an empty item" : !eq ? "no '='" : "too long");
            return PG_ERR_USAGE;
        }
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(eq - item), item);
        int f = synth_family_find(name);
        if (f < 0) {
            pg_buf known = {0};
            for (int k = 0; k < n; k++) pg_buf_printf(&known, "%s%s", k ? " " : "", synth_family_name(k));
            pg_diag_emit(diag, PG_E_IO, "--family-weight", 0, 0, "'%s': unknown family '%s' (families: %s)", item, name,
                         known.data ? known.data : "none");
            pg_buf_free(&known);
            return PG_ERR_USAGE;
        }
        /* digits only (no sign, no spaces, no exponent), at most 3 of them, then the range */
        const char *w = eq + 1;
        size_t nd = strspn(w, "0123456789");
        int v = nd && nd <= 3 && !w[nd] ? atoi(w) : -1;
        if (v < 0 || v > SYNTH_FAMILY_WEIGHT_MAX) {
            pg_diag_emit(diag, PG_E_BAD_NUMBER, "--family-weight", 0, 0, "'%s': the weight of %s wants an integer from 0 to %d",
                         item, name, SYNTH_FAMILY_WEIGHT_MAX);
            return PG_ERR_USAGE;
        }
        if (named[f]) {
            pg_diag_emit(diag, PG_E_IO, "--family-weight", 0, 0, "'%s': family %s is named twice", item, name);
            return PG_ERR_USAGE;
        }
        named[f] = true;
        weights[f] = v;
        if (!p[len]) break;
        p += len + 1;
    }
    bool any = false;
    for (int f = 0; f < n; f++) any = any || weights[f] > 0;
    if (!any) {
        pg_diag_emit(diag, PG_E_IO, "--family-weight", 0, 0, "every family has weight 0, so none could be drawn: '%s'", spec);
        return PG_ERR_USAGE;
    }
    return PG_OK;
}

static void canon_expr(const expr_tree *e, pg_buf *out);
static bool is_excluded(const gen_ctx *g, const char *identity);

/* Where candidate idx comes from: a pure function of (seed, idx).  Every 8th
 * candidate a hand kernel (cycling), else a parametric family
 * (synth_family.h), an expression tree, or a mutant of either. */
typedef struct {
    uint64_t r;          /* the candidate's random bits */
    bool hand, only_hand, mutant, expr_base;
    int fam;             /* family index, or -1 */
    uint64_t fseed;      /* the family's seed */
} cand_src;
static cand_src cand_source(const gen_ctx *g, int64_t idx) {
    const synth_opts *o = g->o;
    cand_src c = {0};
    c.r = mix(o->seed * 0x100000001b3ull ^ (uint64_t)idx);
    c.only_hand = !(o->sources & (SYNTH_SRC_EXPR | SYNTH_SRC_MUTANT | SYNTH_SRC_FAMILY));
    c.hand = g->nhand && (o->sources & SYNTH_SRC_HAND) && (c.only_hand || idx % 8 == 0);
    c.fam = c.hand ? -1 : family_pick(o, g->nhand, idx, &c.fseed);
    c.mutant = !c.hand && (o->sources & SYNTH_SRC_MUTANT) && (c.r % 2 == 0 || !(o->sources & (SYNTH_SRC_EXPR | SYNTH_SRC_FAMILY)));
    c.expr_base = c.fam < 0 && !c.hand && (o->sources & SYNTH_SRC_EXPR) && (!c.mutant || g->nhand == 0 || (c.r >> 8) % 2 == 0);
    return c;
}

/* The expression-tree kernel of a candidate (r: its random bits): name, the
 * tree's identity ("expr:<prefix>"), PTX (the generator's own; NULL to skip),
 * CUDA C plan and task.json.  *held_out: the tree is a task of an excluded
 * suite (up to operand order; only looked at with --exclude, so runs without it
 * are unchanged).  False when the generator fails. */
static bool expr_candidate(const gen_ctx *g, uint64_t r, char *name, size_t namen, char *identity, size_t idn, pg_buf *ptx,
                           pg_buf *cu, pg_buf *tjs, bool *held_out) {
    int nin = 1 + (int)((r >> 12) % 4), depth = 2 + (int)((r >> 16) % 4), per = ((r >> 20) % 2) ? 4 : 1;
    int block = 128 << ((r >> 24) % 3);
    expr_tree *e = synth_expr_random(r ^ 0xe4e4, nin, depth, NULL);
    snprintf(name, namen, "expr_%016llx", (unsigned long long)(r & 0xffffffffffffull));
    float sv[EXPR_MAX_SCALARS];   /* values of alpha/beta in the task.json (not part of the identity) */
    synth_expr_scalar_values(r ^ 0x5ca1, e ? expr_nscalars(e) : 0, sv);
    pg_diag_sink q = {0};
    pg_status st = e ? synth_expr_kernel(e, name, nin, sv, block, per, ptx, cu, tjs, &q) : PG_ERR_USAGE;
    *held_out = false;
    if (e) {
        pg_buf pre = {0};
        expr_to_prefix(e, &pre);
        snprintf(identity, idn, "expr:%s", pre.data ? pre.data : "");
        if (g->nexcl) {
            pre.len = 0;
            pg_buf_puts(&pre, "expr:");
            canon_expr(e, &pre);
            *held_out = is_excluded(g, pre.data);
        }
        pg_buf_free(&pre);
    }
    expr_free(e);
    return st == PG_OK;
}

/* Literate PTX of the expression kernels of a worker's batch: their CUDA C
 * plans compiled together by nvcc (synth_cuda_ptx_batch), kept in the family
 * cache under family -1. */
static void expr_cache_fill(const gen_ctx *g, int64_t first, int batch, int w, int nw) {
    PG_VEC(const char *) cus = {0};
    PG_VEC(const char *) names = {0};
    PG_VEC(int64_t) idxs = {0};
    PG_VEC(char *) owned = {0};
    PG_VEC(const char *) tasks = {0};
    for (int k = w; k < batch; k += nw) {
        cand_src c = cand_source(g, first + k);
        if (!c.expr_base) continue;
        char name[96], identity[600];
        pg_buf cu = {0}, tjs = {0};
        bool held = false;
        if (expr_candidate(g, c.r, name, sizeof name, identity, sizeof identity, NULL, &cu, &tjs, &held) && !held && cu.len) {
            pg_vec_push(cus, cu.data);
            pg_vec_push(owned, cu.data);
            pg_vec_push(tasks, tjs.data);
            pg_vec_push(owned, tjs.data);
            tjs.data = NULL;
            pg_vec_push(names, strdup(name));
            pg_vec_push(idxs, first + k);
        } else pg_buf_free(&cu);
        pg_buf_free(&tjs);
    }
    if (idxs.n) {
        pg_buf *ptx = calloc((size_t)idxs.n, sizeof *ptx);
        pg_diag_sink q = {0};
        synth_cuda_ptx_batch(cus.v, names.v, tasks.v, idxs.n, g->o->arch, SYNTH_FMT_LITERATE, ptx, &q);
        for (int i = 0; i < idxs.n; i++) {
            fam_cached c;
            memset(&c, 0, sizeof c);
            c.idx = idxs.v[i];
            c.ok = ptx[i].len > 0;
            c.s.ptx = ptx[i];
            pg_vec_push(g->fcache->v, c);
        }
        free(ptx);
    }
    for (int i = 0; i < owned.n; i++) free(owned.v[i]);
    for (int i = 0; i < names.n; i++) free((char *)names.v[i]);
    pg_vec_free(cus);
    pg_vec_free(names);
    pg_vec_free(idxs);
    pg_vec_free(owned);
    pg_vec_free(tasks);
}

/* The families' format: the sample format with the plan style flag. */
static int fam_format(const synth_opts *o) { return o->format | (o->plan_style == SYNTH_PLAN_VARIED ? SYNTH_FMT_PLAN_VARIED : 0); }

static void fam_cache_fill(const gen_ctx *g, int64_t first, int batch, int w, int nw) {
    struct fam_cache *fc = g->fcache;
    if (g->o->format == SYNTH_FMT_LITERATE) expr_cache_fill(g, first, batch, w, nw);
    for (int f = 0; f < synth_family_count(); f++) {
        if (!synth_family_uses_nvcc(f)) continue;
        PG_VEC(uint64_t) seeds = {0};
        PG_VEC(int64_t) idxs = {0};
        for (int k = w; k < batch; k += nw) {
            uint64_t fs;
            if (family_pick(g->o, g->nhand, first + k, &fs) == f) { pg_vec_push(seeds, fs); pg_vec_push(idxs, first + k); }
        }
        if (seeds.n) {
            synth_family_sample *out = calloc((size_t)seeds.n, sizeof *out);
            pg_diag_sink q = {0};
            synth_family_generate_batch(f, seeds.v, seeds.n, g->o->arch, fam_format(g->o), out, &q);
            for (int i = 0; i < seeds.n; i++) {
                fam_cached c = {idxs.v[i], out[i], out[i].ptx.len > 0};
                pg_vec_push(fc->v, c);
            }
            free(out);
        }
        pg_vec_free(seeds);
        pg_vec_free(idxs);
    }
}

static void fam_cache_free(struct fam_cache *fc) {
    for (int i = 0; i < fc->v.n; i++) synth_family_sample_free(&fc->v.v[i].s);
    pg_vec_free(fc->v);
}

/* ---- held-out exclusion ---------------------------------------------------------- */
/* Canonical key of an expression: prefix text with the operands of the
 * commutative operators (add, mul, min, max, and the two factors of fma)
 * sorted, so trees that differ only by operand order are one task.  Leaves
 * (inputs, constants, the scalars alpha/beta) print as in the prefix form; a
 * select keeps its operand order (sel c x y). */
static void canon_expr(const expr_tree *e, pg_buf *out) {
    if (e->nkids == 0) { expr_to_prefix(e, out); return; }
    pg_buf k[3] = {{0}, {0}, {0}};
    for (int i = 0; i < e->nkids; i++) canon_expr(e->kid[i], &k[i]);
    bool comm = e->op == EXPR_ADD || e->op == EXPR_MUL || e->op == EXPR_MIN ||
                e->op == EXPR_MAX || e->op == EXPR_FMA;
    if (comm && strcmp(k[0].data, k[1].data) > 0) { pg_buf t = k[0]; k[0] = k[1]; k[1] = t; }
    pg_buf_printf(out, "(%s", expr_op_name(e->op));
    for (int i = 0; i < e->nkids; i++) {
        pg_buf_printf(out, " %s", k[i].data);
        pg_buf_free(&k[i]);
    }
    pg_buf_putc(out, ')');
}

static int cmp_strp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static bool is_excluded(const gen_ctx *g, const char *identity) {
    return g->nexcl && bsearch(&identity, g->excl, (size_t)g->nexcl, sizeof(char *), cmp_strp) != NULL;
}

typedef PG_VEC(char *) id_list;

/* Identities of every task folder of dir, appended to ids: "hand:<name>" and,
 * for specs with an "expr" field, "expr:<canonical key>". */
static pg_status load_exclude_dir(const char *dir, id_list *ids, pg_diag_sink *diag) {
    DIR *d = opendir(dir);
    if (!d) {
        pg_diag_emit(diag, PG_E_IO, dir, 0, 0, "cannot read the --exclude folder: %s", strerror(errno));
        return PG_ERR_IO;
    }
    pg_status st = PG_OK;
    struct dirent *ent;
    while ((ent = readdir(d))) {
        if (ent->d_name[0] == '.') continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s/task.json", dir, ent->d_name);
        if (access(p, F_OK) != 0) continue;   /* not a task folder */
        json_error_t jerr;
        json_t *t = json_load_file(p, 0, &jerr);
        const char *name = json_string_value(json_object_get(t, "name"));
        if (!t || !name) {
            pg_diag_emit(diag, PG_E_TASK, p, t ? 0 : jerr.line, 0, "%s", t ? "$.name: missing string" : jerr.text);
            json_decref(t);
            st = PG_ERR_INVALID;
            continue;
        }
        pg_buf id = {0};
        pg_buf_printf(&id, "hand:%s", name);
        pg_vec_push(*ids, strdup(id.data));
        json_t *jx = json_object_get(t, "expr");
        if (jx) {
            char err[160];
            expr_tree *e = json_is_string(jx) ? expr_parse(json_string_value(jx), err, sizeof err) : NULL;
            if (!e) {
                pg_diag_emit(diag, PG_E_TASK, p, 0, 0, "$.expr: %s", json_is_string(jx) ? err : "must be a string");
                st = PG_ERR_INVALID;
            } else {
                id.len = 0;
                pg_buf_puts(&id, "expr:");
                canon_expr(e, &id);
                pg_vec_push(*ids, strdup(id.data));
                expr_free(e);
            }
        }
        pg_buf_free(&id);
        json_decref(t);
    }
    closedir(d);
    return st;
}

/* The identities of every suite in `dirs`, one folder or a comma-separated
 * list ("bench/suite,bench/suite-prose"), sorted into g->excl.  Every folder
 * is read even after a bad one, so all problems are reported; an empty entry
 * is an error (a stray comma must not silently drop a suite). */
static pg_status load_exclude(gen_ctx *g, const char *dirs, pg_diag_sink *diag) {
    id_list ids = {0};
    pg_status st = PG_OK;
    for (const char *p = dirs;;) {
        size_t n = strcspn(p, ",");
        char *dir = strndup(p, n);
        pg_status ds = dir ? PG_ERR_IO : PG_ERR_NOMEM;
        if (dir && !*dir) pg_diag_emit(diag, PG_E_IO, dirs, 0, 0, "empty folder name in the --exclude list");
        else if (dir) ds = load_exclude_dir(dir, &ids, diag);
        if (ds != PG_OK && st == PG_OK) st = ds;
        free(dir);
        if (!p[n]) break;
        p += n + 1;
    }
    if (ids.n) qsort(ids.v, (size_t)ids.n, sizeof(char *), cmp_strp);   /* ids.v is NULL when empty */
    g->excl = ids.v;
    g->nexcl = ids.n;
    return st;
}

/* A module can share a ptxas run when it is only .entry functions (no .func,
 * no module-level variables or directives): then renaming the entries
 * cannot break a reference. */
static void pending_add(pending_list *l, int64_t idx, const char *ptx, const ptx_module *m) {
    pend p;
    memset(&p, 0, sizeof p);
    p.idx = idx;
    p.ptx = strdup(ptx);
    p.batchable = m->nfuncs == 1 && m->ntops == 1 && m->funcs[0].is_entry && m->funcs[0].has_body && m->ntargets == 1;
    if (p.batchable) {
        snprintf(p.header, sizeof p.header, "%s|%s|%d", m->version_text ? m->version_text : "", m->targets[0], m->address_size);
        snprintf(p.entry, sizeof p.entry, "%s", m->funcs[0].name);
    }
    pg_vec_push(*l, p);
}

static const verdict *verdict_find(const verdict_list *v, int64_t idx) {
    for (int i = 0; i < v->n; i++)
        if (v->v[i].idx == idx) return &v->v[i];
    return NULL;
}

/* A temporary file that cannot be written makes ptxas "fail" on nothing: pg_write_tmp
 * counts it (pg_io_failures), and the worker's exit status stops the run (see WORKER_IO). */
static bool run_ptxas_text(const char *text, const char *arch, ptxas_report *rep) {
    char tmp[600];
    if (pg_write_tmp("ptxgen-synth-XXXXXX", text, strlen(text), tmp, sizeof tmp, NULL) != PG_OK) return false;
    bool ok = ptx_ptxas_run(tmp, arch, false, rep, NULL) == PG_OK && rep->ok;
    unlink(tmp);
    return ok;
}

static void verdict_single(verdict_list *out, const pend *p, const char *arch) {
    ptxas_report rep;
    memset(&rep, 0, sizeof rep);
    verdict v;
    memset(&v, 0, sizeof v);
    v.idx = p->idx;
    v.ok = run_ptxas_text(p->ptx, arch, &rep);
    if (v.ok && rep.nfuncs) v.f = rep.funcs[0];
    ptx_ptxas_report_free(&rep);
    pg_vec_push(*out, v);
}

/* Verify every pending module: batchable ones in groups of up to 16 per
 * ptxas run (entries renamed __s<k>), the rest one by one; a group that
 * fails is retried one by one so the verdicts stay exact. */
static void verify_pending(pending_list *l, const char *arch, verdict_list *out) {
    bool *done = calloc((size_t)l->n + 1, 1);
    for (int i = 0; i < l->n; i++) {
        if (done[i]) continue;
        if (!l->v[i].batchable) { verdict_single(out, &l->v[i], arch); done[i] = true; continue; }
        int group[16], ng = 0;
        for (int k = i; k < l->n && ng < 16; k++)
            if (!done[k] && l->v[k].batchable && !strcmp(l->v[k].header, l->v[i].header)) group[ng++] = k;
        pg_buf text = {0};
        for (int g = 0; g < ng; g++) {
            pend *p = &l->v[group[g]];
            ptx_module *m = NULL;
            pg_diag_sink q = {0};
            ptx_parse(p->ptx, strlen(p->ptx), "batch", &m, &q);
            char nm[160];
            snprintf(nm, sizeof nm, "%s__s%d", p->entry, g);
            m->funcs[0].name = pg_arena_strdup(&m->arena, nm);
            pg_buf one = {0};
            ptx_print(m, &one);
            const char *body = strstr(one.data, "\n\n");
            if (g == 0) pg_buf_putn(&text, one.data, body ? (size_t)(body - one.data) : 0);
            if (body) pg_buf_puts(&text, body);
            pg_buf_free(&one);
            ptx_module_free(m);
        }
        ptxas_report rep;
        memset(&rep, 0, sizeof rep);
        bool ok = run_ptxas_text(text.data ? text.data : "", arch, &rep);
        for (int g = 0; g < ng; g++) {
            pend *p = &l->v[group[g]];
            char nm[160];
            snprintf(nm, sizeof nm, "%s__s%d", p->entry, g);
            const ptxas_func_report *f = NULL;
            for (int k = 0; ok && k < rep.nfuncs; k++)
                if (!strcmp(rep.funcs[k].func, nm)) f = &rep.funcs[k];
            if (ok && f) {
                verdict v;
                memset(&v, 0, sizeof v);
                v.idx = p->idx;
                v.ok = true;
                v.f = *f;
                snprintf(v.f.func, sizeof v.f.func, "%s", p->entry);
                pg_vec_push(*out, v);
            } else {
                verdict_single(out, p, arch);
            }
            done[group[g]] = true;
        }
        ptx_ptxas_report_free(&rep);
        pg_buf_free(&text);
    }
    free(done);
}

typedef struct {
    bool ok;
    char family[32], source[16], reason[200], identity[300];
    char *line;        /* the JSONL line (malloc'd) when ok */
    uint64_t hash;
} cand;

static const char *perf_note(const gen_ctx *g, const char *task, bool mutated, const ptxas_report *rep, json_t *tj, pg_buf *out) {
    json_t *row = g->results ? json_object_get(g->results, task) : NULL;
    if (row) {
        json_t *k = json_object_get(row, "kernel");
        double gbps = json_number_value(json_object_get(k, "gbps")), pct = json_number_value(json_object_get(k, "pct_of_ceiling"));
        double sp = json_number_value(json_object_get(row, "speedup_vs_nvcc"));
        pg_buf_printf(out, "%sMeasured on %s (%s): %.3f ms at %s, %.0f GB/s, %.0f%% of the measured bound, %.2fx nvcc -O3.",
                      mutated ? "Estimated from the unmutated kernel. " : "", json_string_value(json_object_get(g->results, "__device")),
                      json_string_value(json_object_get(g->results, "__date")), json_number_value(json_object_get(k, "ms_median")),
                      json_string_value(json_object_get(row, "timing_size")), gbps, pct, sp);
        return out->data;
    }
    int regs = rep->nfuncs ? rep->funcs[0].registers : 0;
    const char *cb = json_string_value(json_object_get(json_object_get(tj, "cost"), "bytes"));
    const char *cf = json_string_value(json_object_get(json_object_get(tj, "cost"), "flops"));
    /* arithmetic intensity at the timing size decides the bound (H200 ridge: ~13 flop/byte FP32) */
    expr_env env = {{0}, {0}, 0};
    json_t *sizes = json_object_get(tj, "sizes"), *ts = json_array_get(sizes, 0);
    for (size_t i = 0; i < json_array_size(sizes); i++)
        if (json_is_true(json_object_get(json_array_get(sizes, i), "time"))) ts = json_array_get(sizes, i);
    const char *key;
    json_t *v;
    json_object_foreach(ts, key, v) {
        if (json_is_integer(v) && env.n < EXPR_MAX_VARS) { env.name[env.n] = key; env.val[env.n++] = json_integer_value(v); }
    }
    int64_t bytes = 0, flops = 0;
    bool known = cb && cf && expr_size_eval(cb, &env, &bytes, NULL, 0) && expr_size_eval(cf, &env, &flops, NULL, 0) && bytes > 0;
    double ai = known ? (double)flops / (double)bytes : 0;
    pg_buf_printf(out, "Estimated, not measured: %d registers, %lld bytes of shared memory. ", regs,
                  rep->nfuncs ? (long long)rep->funcs[0].smem : 0LL);
    if (!known) pg_buf_puts(out, "No cost model, so no bound is estimated.");
    else if (ai < 13)
        pg_buf_printf(out, "Arithmetic intensity %.2f flop/byte: memory-bound; the ceiling is the DRAM copy bandwidth "
                           "(%.1f MB moved at the timing size).", ai, (double)bytes / 1e6);
    else
        pg_buf_printf(out, "Arithmetic intensity %.1f flop/byte: compute-bound on FP32 (%.2f GFLOP at the timing size).", ai,
                      (double)flops / 1e9);
    return out->data;
}

/* The text without the plan lines a PTX template writes ("\t//..." lines, the literate
 * format's; its header comments and trailing comments stay). */
static void drop_plan_lines(pg_buf *text) {
    pg_buf out = {0};
    for (const char *r = text->data ? text->data : ""; *r;) {
        const char *nl = strchr(r, '\n');
        size_t n = nl ? (size_t)(nl - r) + 1 : strlen(r);
        const char *t = r;
        while (t < r + n && *t == '\t') t++;
        if (!(t > r && t + 1 < r + n && t[0] == '/' && t[1] == '/')) pg_buf_putn(&out, r, n);
        r += n;
    }
    pg_buf_free(text);
    *text = out;
}

/* The text printed without its kept comments (text that does not parse stays
 * as it is: the mutation reports it). */
static void strip_comments_text(pg_buf *text) {
    ptx_module *m = NULL;
    pg_diag_sink q = {0};
    if (ptx_parse(text->data, text->len, "base", &m, &q) == PG_OK) {
        ptx_comments_strip(m);
        pg_buf out = {0};
        ptx_print(m, &out);
        pg_buf_free(text);
        *text = out;
    }
    ptx_module_free(m);
}

/* The named register style (docs/LITERATE.md): the kernel's registers renamed after its plan `cu`
 * and declared at first use; false when the text does not parse. */
static bool name_registers(pg_buf *text, const pg_buf *cu, const char *name, int regs) {
    ptx_module *m = NULL;
    pg_diag_sink q = {0};
    bool ok = ptx_parse(text->data, text->len, name, &m, &q) == PG_OK;
    if (ok && regs == SYNTH_REGS_CANONICAL) ok = ptx_validate(m, &q) == PG_OK && ptx_regs_renumber(m) == PG_OK;
    else if (ok) ok = ptx_regs_name(m, cu->data, cu->len, &q) == PG_OK;
    if (ok) {
        /* the file's leading comment lines (a corpus kernel's design notes) stay, as the numbered sample has them */
        size_t head = 0;
        for (size_t i = 0; i < text->len;) {
            size_t e = i;
            while (e < text->len && text->data[e] != '\n') e++;
            size_t k = i;
            while (k < e && (text->data[k] == ' ' || text->data[k] == '\t')) k++;
            if (k < e && !(e - k >= 2 && text->data[k] == '/' && text->data[k + 1] == '/')) break;
            i = head = e < text->len ? e + 1 : e;
        }
        pg_buf out = {0};
        if (head) pg_buf_putn(&out, text->data, head);
        ptx_print(m, &out);
        pg_buf_free(text);
        *text = out;
    }
    ptx_module_free(m);
    return ok;
}

static void make_candidate(const gen_ctx *g, int64_t idx, cand *c) {
    memset(c, 0, sizeof *c);
    const synth_opts *o = g->o;
    bool literate = o->format == SYNTH_FMT_LITERATE;
    cand_src src = cand_source(g, idx);
    uint64_t r = src.r, fseed = src.fseed;
    bool only_hand = src.only_hand, hand = src.hand, mutant = src.mutant, expr_base = src.expr_base;
    int fam = src.fam;
    if (fam < 0 && !hand && !expr_base && !(mutant && g->nhand)) { snprintf(c->reason, sizeof c->reason, "no source enabled"); return; }
    pg_buf ptx = {0}, tjs = {0}, cu = {0};   /* cu: the CUDA C twin when there is one (nvcc families, corpus) */
    json_t *task = NULL;
    char name[96], fam_name[32], variant[32] = "";
    const char *family;
    if (expr_base) {
        bool held_out = false;
        /* literate: the plan's PTX from nvcc (expr_cache_fill); plain: the generator's own PTX */
        bool ok = expr_candidate(g, r, name, sizeof name, c->identity, sizeof c->identity, literate ? NULL : &ptx,
                                 literate ? &cu : NULL, &tjs, &held_out);
        if (held_out) { snprintf(c->reason, sizeof c->reason, "excluded: held-out suite task %.160s", c->identity); goto out; }
        if (!ok) { snprintf(c->reason, sizeof c->reason, "expr family: generator failed (seed bits %llx)", (unsigned long long)r); goto out; }
        if (literate) {
            const fam_cached *fc = NULL;
            for (int i = 0; g->fcache && i < g->fcache->v.n && !fc; i++)
                if (g->fcache->v.v[i].idx == idx) fc = &g->fcache->v.v[i];
            if (!fc || !fc->ok) { snprintf(c->reason, sizeof c->reason, "expr family: nvcc did not compile the plan"); goto out; }
            pg_buf_puts(&ptx, fc->s.ptx.data);
        }
        task = json_loads(tjs.data, 0, NULL);
        family = "expr";
        snprintf(c->source, sizeof c->source, literate ? "nvcc" : "ptx-template");
    } else if (fam >= 0) {
        synth_family_sample fs_local, *fs = NULL;
        memset(&fs_local, 0, sizeof fs_local);
        if (synth_family_uses_nvcc(fam)) {
            for (int i = 0; g->fcache && i < g->fcache->v.n && !fs; i++)
                if (g->fcache->v.v[i].idx == idx) fs = g->fcache->v.v[i].ok ? &g->fcache->v.v[i].s : NULL;
        } else {
            pg_diag_sink q = {0};
            if (synth_family_generate(fam, fseed, o->arch, fam_format(o), &fs_local, &q) == PG_OK) fs = &fs_local;
        }
        if (!fs) {
            snprintf(c->reason, sizeof c->reason, "family %s: generator failed", synth_family_name(fam));
            synth_family_sample_free(&fs_local);
            goto out;
        }
        pg_buf_puts(&ptx, fs->ptx.data);
        if (fs->cu.len) pg_buf_puts(&cu, fs->cu.data);
        if (!literate && !synth_family_uses_nvcc(fam)) {   /* plain: a template's kernel as it was before its plan */
            drop_plan_lines(&ptx);
            pg_buf_free(&cu);
        }
        task = json_loads(fs->task_json.data, 0, NULL);
        snprintf(name, sizeof name, "%s", fs->name);
        snprintf(c->identity, sizeof c->identity, "%s", fs->identity);
        snprintf(c->source, sizeof c->source, "%s", fs->source);
        snprintf(fam_name, sizeof fam_name, "%s", fs->family);
        snprintf(variant, sizeof variant, "%s", fs->plan_variant);
        family = fam_name;
        bool held_out = is_excluded(g, c->identity);
        synth_family_sample_free(&fs_local);
        if (held_out) { snprintf(c->reason, sizeof c->reason, "excluded: held-out suite task %.160s", c->identity); goto out; }
        if (!task) { snprintf(c->reason, sizeof c->reason, "family %s: task JSON does not parse", synth_family_name(fam)); goto out; }
    } else {
        const base_task *b = &g->hand[(hand ? (only_hand ? idx : idx / 8) : (int64_t)((r >> 28) % (uint64_t)g->nhand)) % g->nhand];
        pg_buf_puts(&ptx, b->ptx);
        if (b->cu) pg_buf_puts(&cu, b->cu);
        task = json_deep_copy(b->task);
        snprintf(name, sizeof name, "%s", b->name);
        snprintf(c->identity, sizeof c->identity, "hand:%s", b->name);
        if (is_excluded(g, c->identity)) { snprintf(c->reason, sizeof c->reason, "excluded: held-out suite task %.160s", c->identity); goto out; }
        family = json_string_value(json_object_get(task, "family"));
        if (!family) family = "hand";
        snprintf(c->source, sizeof c->source, "hand");
    }
    snprintf(c->family, sizeof c->family, "%s", family);
    json_t *mut = NULL;
    if (mutant) {
        synth_mut_kind k = (synth_mut_kind)((r >> 36) % SYNTH_MUT__COUNT);
        pg_buf m = {0};
        int changes = 0;
        pg_diag_sink q = {0};
        if (!literate) strip_comments_text(&ptx);   /* plain mutants print no comments, as they always did */
        if (synth_mutate(ptx.data, ptx.len, k, r >> 3, &m, &changes, &q) != PG_OK || changes == 0) {
            snprintf(c->reason, sizeof c->reason, "mutation %s: %s", synth_mut_name(k), changes ? "failed" : "nothing to change");
            pg_buf_free(&m);
            goto out;
        }
        pg_buf_free(&ptx);
        ptx = m;
        snprintf(c->source, sizeof c->source, "mutant");
        mut = json_pack("{s:s, s:i}", "kind", synth_mut_name(k), "changes", changes);
    }
    if (((literate && o->regs == SYNTH_REGS_NAMED) || o->regs == SYNTH_REGS_CANONICAL) && !name_registers(&ptx, &cu, name, o->regs)) {
        snprintf(c->reason, sizeof c->reason, "%s registers: the kernel does not %s", o->regs == SYNTH_REGS_NAMED ? "named" : "canonical",
                 o->regs == SYNTH_REGS_NAMED ? "parse" : "validate");
        json_decref(mut);
        goto out;
    }
    /* verify: the validator (no errors, no warnings) and ptxas for the arch */
    pg_diag_sink sink = {0};
    ptx_module *m = NULL;
    pg_status ps = ptx_parse(ptx.data, ptx.len, name, &m, &sink);
    if (ps == PG_OK) ps = ptx_validate(m, &sink);
    if (ps != PG_OK || sink.nwarnings) {
        snprintf(c->reason, sizeof c->reason, "check: %d errors, %d warnings", sink.nerrors, sink.nwarnings);
        ptx_module_free(m);
        json_decref(mut);
        goto out;
    }
    ptxas_report rep;
    memset(&rep, 0, sizeof rep);
    if (g->pending) {   /* first pass of a batch: only collect the PTX for one batched ptxas run */
        pending_add(g->pending, idx, ptx.data, m);
        snprintf(c->reason, sizeof c->reason, "pending");
        ptx_module_free(m);
        json_decref(mut);
        goto out;
    }
    const verdict *vd = g->verdicts ? verdict_find(g->verdicts, idx) : NULL;
    if (vd) {
        rep.ran = true;
        rep.ok = vd->ok;
        if (vd->ok) {
            rep.funcs = calloc(1, sizeof(ptxas_func_report));
            rep.nfuncs = 1;
            rep.funcs[0] = vd->f;
        }
    } else {
        char tmp[600];
        if (pg_write_tmp("ptxgen-synth-XXXXXX", ptx.data, ptx.len, tmp, sizeof tmp, NULL) != PG_OK) rep.ok = false;
        else {
            if (ptx_ptxas_run(tmp, o->arch, false, &rep, NULL) != PG_OK) rep.ok = false;
            unlink(tmp);
        }
    }
    if (!rep.ok) {
        snprintf(c->reason, sizeof c->reason, "ptxas: %s", !rep.ran ? "not run" : "rejected");
        ptx_ptxas_report_free(&rep);
        ptx_module_free(m);
        json_decref(mut);
        goto out;
    }
    /* the sample */
    pg_buf summary = {0}, desc = {0}, note = {0};
    for (int i = 0; i < m->nfuncs; i++)
        if (m->funcs[i].is_entry) { ptx_explain_summary(m, &m->funcs[i], &summary); break; }
    const char *style;
    char frame[64];
    synth_describe(task, r >> 40, &desc, &style, frame, sizeof frame);
    perf_note(g, name, mutant, &rep, task, &note);
    json_t *j = json_object();
    char id[64];
    snprintf(id, sizeof id, "%llx-%lld", (unsigned long long)(o->seed & 0xffffffff), (long long)idx);
    json_object_set_new(j, "id", json_string(id));
    json_object_set_new(j, "family", json_string(c->family));
    json_object_set_new(j, "source", json_string(c->source));
    json_object_set_new(j, "arch", json_string(o->arch));
    json_object_set_new(j, "task", task);
    task = NULL;
    json_object_set_new(j, "description", json_string(desc.data ? desc.data : ""));
    json_object_set_new(j, "description_style", json_string(style));
    json_object_set_new(j, "description_frame", json_string(frame));
    json_object_set_new(j, "instruction_level_desc", json_string(summary.data ? summary.data : ""));
    json_object_set_new(j, "ptx_code", json_string(ptx.data));
    if (literate) json_object_set_new(j, "format", json_string("literate"));
    if (literate && o->regs == SYNTH_REGS_NAMED) json_object_set_new(j, "regs", json_string("named"));
    if (o->regs == SYNTH_REGS_CANONICAL) json_object_set_new(j, "regs", json_string("canonical"));
    if (variant[0]) json_object_set_new(j, "plan_style", json_string(variant));   /* varied plan styles only */
    if (cu.len) json_object_set_new(j, "cuda_c", json_string(cu.data));   /* the twin: `ptxgen prompts --twin` */
    json_object_set_new(j, "performance_note", json_string(note.data ? note.data : ""));
    json_t *px = json_object();
    if (rep.nfuncs) {
        json_object_set_new(px, "registers", json_integer(rep.funcs[0].registers));
        json_object_set_new(px, "smem_bytes", json_integer(rep.funcs[0].smem));
        json_object_set_new(px, "spill_stores_bytes", json_integer(rep.funcs[0].spill_stores));
        json_object_set_new(px, "spill_loads_bytes", json_integer(rep.funcs[0].spill_loads));
    }
    json_object_set_new(j, "ptxas", px);
    if (mut) json_object_set_new(j, "mutation", mut);
    /* split by task identity: a task (or expression) is entirely train or val */
    uint64_t ih = pg_hash64_add(PG_HASH64_INIT_SHORT, c->identity, strlen(c->identity));
    json_object_set_new(j, "split", json_string(ih % 20 == 0 ? "val" : "train"));
    c->line = json_dumps(j, JSON_COMPACT | JSON_ENSURE_ASCII);
    c->hash = synth_normalized_hash(ptx.data);
    c->ok = true;
    json_decref(j);
    pg_buf_free(&summary);
    pg_buf_free(&desc);
    pg_buf_free(&note);
    ptx_ptxas_report_free(&rep);
    ptx_module_free(m);
out:
    json_decref(task);
    pg_buf_free(&ptx);
    pg_buf_free(&tjs);
    pg_buf_free(&cu);
}

/* ---- the batch loop ---------------------------------------------------------------- */
static bool load_hand(gen_ctx *g, const char *dir, pg_diag_sink *diag) {
    DIR *d = opendir(dir);
    if (!d) return false;
    struct dirent *e;
    PG_VEC(char *) names = {0};
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') pg_vec_push(names, strdup(e->d_name));
    closedir(d);
    if (names.n > 1) qsort(names.v, (size_t)names.n, sizeof(char *), cmp);   /* names.v is NULL when empty */
    g->hand = calloc((size_t)names.n + 1, sizeof(base_task));
    for (int i = 0; i < names.n; i++) {
        char p[4096];
        snprintf(p, sizeof p, "%s/%s/task.json", dir, names.v[i]);
        json_t *t = json_load_file(p, 0, NULL);
        snprintf(p, sizeof p, "%s/%s/kernel.ptx", dir, names.v[i]);
        char *src;
        size_t n;
        pg_diag_sink q = {0};
        if (t && pg_read_file(p, 1 << 24, &src, &n, &q) == PG_OK) {
            char *cu = NULL;
            size_t cn;
            /* the CUDA C of the task: literate samples take the kernel's plan (plan.cu, whose lines head its
             * blocks), plain ones the task's reference.cu as before; either is optional */
            if (g->o->format == SYNTH_FMT_LITERATE) {
                snprintf(p, sizeof p, "%s/%s/plan.cu", dir, names.v[i]);
                if (pg_read_file(p, 1 << 22, &cu, &cn, &q) != PG_OK) cu = NULL;
            }
            snprintf(p, sizeof p, "%s/%s/reference.cu", dir, names.v[i]);
            if (!cu && pg_read_file(p, 1 << 22, &cu, &cn, &q) != PG_OK) cu = NULL;
            g->hand[g->nhand++] = (base_task){strdup(names.v[i]), src, t, cu};
        } else {
            json_decref(t);
            pg_diag_emit(diag, PG_W_IGNORED, p, 0, 0, "corpus task skipped (unreadable task.json or kernel.ptx)");
        }
        free(names.v[i]);
    }
    pg_vec_free(names);
    return true;
}
static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static pg_status load_results(gen_ctx *g, const char *path, pg_diag_sink *diag) {
    if (!path) return PG_OK;
    json_error_t je;
    json_t *r = json_load_file(path, 0, &je);
    if (!r || !json_is_array(json_object_get(r, "tasks"))) {   /* never ignored silently: the notes would be estimates */
        pg_diag_emit(diag, PG_E_IO, path, r ? 0 : je.line, r ? 0 : je.column, "--results: %s", r ? "no \"tasks\" array (want the output of `ptxgen run --suite`)" : je.text);
        json_decref(r);
        return PG_ERR_IO;
    }
    g->results = json_object();
    json_t *dev = json_object_get(r, "device");
    json_object_set_new(g->results, "__device", json_string(json_string_value(json_object_get(dev, "name")) ? json_string_value(json_object_get(dev, "name")) : "the device"));
    json_object_set_new(g->results, "__date", json_string(json_string_value(json_object_get(r, "date")) ? json_string_value(json_object_get(r, "date")) : "?"));
    json_t *tasks = json_object_get(r, "tasks");
    for (size_t i = 0; i < json_array_size(tasks); i++) {
        json_t *t = json_array_get(tasks, i);
        const char *n = json_string_value(json_object_get(t, "task"));
        if (n && json_is_true(json_object_get(json_object_get(t, "kernel"), "correct"))) json_object_set(g->results, n, t);
    }
    json_decref(r);
    return PG_OK;
}

typedef struct { int64_t next; int written; char args[2048]; } state;

/* The arguments that decide the output, stored in the state file so that a
 * resume with other ones is refused instead of mixing two datasets.  Family
 * weights other than 1 are appended (in table order) only when there are any:
 * weights all 1 draw what no weights draw, and state files written before the
 * option existed still match. */
static void state_args(const synth_opts *o, char *out, size_t n) {
    int len = snprintf(out, n, "--count %d --seed %llu --arch %s --sources %u --family-pct %d --corpus %.300s --exclude %.300s --results %.300s",
                       o->count, (unsigned long long)o->seed, o->arch, o->sources, o->family_pct, o->corpus_dir ? o->corpus_dir : "-",
                       o->exclude_dir ? o->exclude_dir : "-", o->results ? o->results : "-");
    const char *sep = " --family-weight ";
    for (int f = 0; o->family_weight && f < synth_family_count() && len > 0 && (size_t)len < n; f++) {
        if (o->family_weight[f] == 1) continue;
        len += snprintf(out + len, n - (size_t)len, "%s%s=%d", sep, synth_family_name(f), o->family_weight[f]);
        sep = ",";
    }
    if (o->format == SYNTH_FMT_LITERATE && len > 0 && (size_t)len < n)
        len += snprintf(out + len, n - (size_t)len, " --format literate");
    if (o->regs == SYNTH_REGS_NAMED && len > 0 && (size_t)len < n) len += snprintf(out + len, n - (size_t)len, " --regs named");
    if (o->regs == SYNTH_REGS_CANONICAL && len > 0 && (size_t)len < n) len += snprintf(out + len, n - (size_t)len, " --regs canonical");
    if (o->plan_style == SYNTH_PLAN_VARIED && len > 0 && (size_t)len < n) snprintf(out + len, n - (size_t)len, " --plan-style varied");
}

/* "NEXT WRITTEN\nargs ...\n"; false when absent or unreadable. */
static bool read_state(const char *path, state *s) {
    FILE *f = fopen(path, "r");
    if (!f) return false;
    long long a = 0;
    int b = 0;
    bool ok = fscanf(f, "%lld %d\n", &a, &b) == 2;
    s->args[0] = 0;
    if (ok && fgets(s->args, sizeof s->args, f) && !strncmp(s->args, "args ", 5)) {
        memmove(s->args, s->args + 5, strlen(s->args + 5) + 1);
        s->args[strcspn(s->args, "\n")] = 0;
    } else {
        s->args[0] = 0;
    }
    fclose(f);
    s->next = a;
    s->written = b;
    return ok;
}

/* Everything that would make the run fail after the work is checked first. */
static pg_status check_opts(const synth_opts *o, pg_diag_sink *diag) {
    int sm;
    bool as, fam;
    if (!o->arch || !isa_parse_target(o->arch, &sm, &as, &fam)) {
        pg_diag_emit(diag, PG_E_UNKNOWN_TARGET, NULL, 0, 0, "--arch %s: not a known target (sm_50 ... sm_120a)", o->arch ? o->arch : "(none)");
        return PG_ERR_USAGE;
    }
    if (o->family_weight) {   /* what synth_family_weights_parse guarantees, for callers that fill the array themselves */
        int total = 0;
        for (int f = 0; f < synth_family_count(); f++) {
            int w = o->family_weight[f];
            if (w < 0 || w > SYNTH_FAMILY_WEIGHT_MAX) {
                pg_diag_emit(diag, PG_E_BAD_NUMBER, "--family-weight", 0, 0, "%s=%d: a weight is an integer from 0 to %d",
                             synth_family_name(f), w, SYNTH_FAMILY_WEIGHT_MAX);
                return PG_ERR_USAGE;
            }
            total += w;
        }
        if (total == 0) {
            pg_diag_emit(diag, PG_E_IO, "--family-weight", 0, 0, "every family has weight 0, so none could be drawn");
            return PG_ERR_USAGE;
        }
    }
    char px[512];
    if (!ptx_ptxas_find(px, sizeof px)) {
        pg_diag_emit(diag, PG_E_PTXAS, NULL, 0, 0, "every sample is verified by ptxas, and none was found ($PTXAS, PATH, $CUDA_HOME/bin)");
        return PG_ERR_EXTERNAL;
    }
    struct stat st;
    if (!o->out || !*o->out || (stat(o->out, &st) == 0 && S_ISDIR(st.st_mode))) {
        pg_diag_emit(diag, PG_E_IO, o->out, 0, 0, "--out must name a file, not a folder");
        return PG_ERR_USAGE;
    }
    return pg_out_check(o->out, 0, NULL, diag);   /* its folder exists and takes files: before the work, not after */
}

/* A worker whose temporary files could not all be written exits with this status: its
 * verdicts may come from missing files, so the run stops (resumable) instead of counting them. */
#define WORKER_IO 3

/* All of buf to fd; 0 or the errno of the failure. */
static int write_all_fd(int fd, const char *buf, size_t n) {
    for (size_t off = 0; off < n;) {
        ssize_t w = write(fd, buf + off, n - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return w < 0 ? errno : EIO;
        off += (size_t)w;
    }
    return 0;
}

pg_status synth_dataset_write(const synth_opts *o, synth_report *rep, pg_diag_sink *diag) {
    memset(rep, 0, sizeof *rep);
    pg_status cs = check_opts(o, diag);
    if (cs != PG_OK) return cs;
    gen_ctx g = {o, NULL, 0, NULL, NULL, NULL, NULL, 0, NULL};
    if ((o->sources & (SYNTH_SRC_HAND | SYNTH_SRC_MUTANT)) && o->corpus_dir && !load_hand(&g, o->corpus_dir, diag)) {
        pg_diag_emit(diag, PG_E_IO, o->corpus_dir, 0, 0, "cannot read the corpus folder");
        return PG_ERR_IO;
    }
    if (o->exclude_dir) {
        pg_status xs = load_exclude(&g, o->exclude_dir, diag);
        if (xs != PG_OK) {
            for (int i = 0; i < g.nexcl; i++) free(g.excl[i]);
            free(g.excl);
            for (int i = 0; i < g.nhand; i++) { free(g.hand[i].name); free(g.hand[i].ptx); free(g.hand[i].cu); json_decref(g.hand[i].task); }
            free(g.hand);
            return xs;
        }
    }
    /* the journal: OUT.partial (+ .state) beside a file output, so a rerun resumes; for stdout or
     * a special file (no folder to keep it in) a private temporary, so no resume */
    char partial[4096], statef[4200];
    bool out_is_file = false;
    pg_out_check(o->out, 0, &out_is_file, NULL);
    if (out_is_file) snprintf(partial, sizeof partial, "%s.partial", o->out);
    else {
        char name[64];
        snprintf(name, sizeof name, "ptxgen-synth-%ld.jsonl.partial", (long)getpid());
        pg_tmp_path(partial, sizeof partial, name);
        unlink(partial);
    }
    snprintf(statef, sizeof statef, "%s.state", partial);
    state s = {0, 0, ""};
    char args[sizeof s.args];
    state_args(o, args, sizeof args);
    pg_status ls = load_results(&g, o->results, diag);
    if (ls == PG_OK && read_state(statef, &s) && strcmp(s.args, args)) {
        pg_diag_emit(diag, PG_E_IO, partial, 0, 0,
                     "an interrupted run with other arguments (%s) can be resumed only with the same ones; this run has %s. "
                     "Rerun with those, or delete %s and its .state file to start over",
                     s.args[0] ? s.args : "unknown: an older state file", args, partial);
        ls = PG_ERR_USAGE;
    }
    if (ls != PG_OK) {
        for (int i = 0; i < g.nhand; i++) { free(g.hand[i].name); free(g.hand[i].ptx); free(g.hand[i].cu); json_decref(g.hand[i].task); }
        free(g.hand);
        for (int i = 0; i < g.nexcl; i++) free(g.excl[i]);
        free(g.excl);
        json_decref(g.results);
        return ls;
    }
    s.next = 0;
    s.written = 0;
    /* resume: keep the complete lines an interrupted run wrote (and their
     * duplicate keys); a crash mid-line leaves garbage after them, so the
     * kept prefix is rewritten */
    PG_VEC(uint64_t) seen = {0};
    pg_buf kept = {0};
    if (read_state(statef, &s)) {
        FILE *f = fopen(partial, "r");
        char *line = NULL;
        size_t cap = 0;
        int nk = 0;
        ssize_t len;
        while (f && nk < s.written && (len = getline(&line, &cap, f)) > 0) {
            json_t *j = json_loads(line, 0, NULL);
            const char *code = json_string_value(json_object_get(j, "ptx_code"));
            if (!code) { json_decref(j); break; }
            pg_vec_push(seen, synth_normalized_hash(code));
            pg_buf_putn(&kept, line, (size_t)len);
            json_decref(j);
            nk++;
        }
        free(line);
        if (f) fclose(f);
        if (nk != s.written) { s.next = 0; s.written = 0; seen.n = 0; kept.len = 0; }   /* inconsistent: start over */
        rep->resumed_from = s.written;
    }
    /* the kept prefix stays in place: the file is cut after it (garbage of a crash mid-line) and appended to */
    int out = open(partial, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    int werr = out < 0 ? errno : ftruncate(out, (off_t)kept.len) != 0 || lseek(out, 0, SEEK_END) < 0 ? errno : 0;
    pg_buf_free(&kept);
    pg_status result = PG_OK;
    if (werr) {
        pg_diag_emit(diag, PG_E_IO, partial, 0, 0, "cannot write: %s", strerror(werr));
        result = PG_ERR_IO;
    }
    pg_buf lines = {0};   /* a batch's lines, appended at once */
    /* big batches let each nvcc run compile several family kernels; small runs
     * keep small batches so progress (and the resume state) moves often */
    int jobs = o->jobs > 0 ? o->jobs : 1, batch = (o->count >= 2048 ? 64 : 16) * jobs;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int64_t max_candidates = (int64_t)o->count * 20 + 1000;
    while (result == PG_OK && s.written < o->count && s.next < max_candidates) {
        /* workers: each builds the candidates idx = next + j, next + j + jobs, ... */
        char dir[600];
        pg_tmp_path(dir, sizeof dir, "ptxgen-synth-batch-XXXXXX");
        if (!mkdtemp(dir)) {
            pg_diag_emit(diag, PG_E_IO, dir, 0, 0, "cannot create a temporary folder: %s", strerror(errno));
            result = PG_ERR_IO;
            break;
        }
        pid_t pids[64];
        int nw = jobs > 64 ? 64 : jobs;
        unsigned io0 = pg_io_failures();
        for (int w = 0; w < nw; w++) {
            pids[w] = fork();
            if (pids[w] == 0) {
                char p[700];
                snprintf(p, sizeof p, "%s/%d", dir, w);
                FILE *f = fopen(p, "w");
                bool wok = f != NULL;
                /* pass 1: collect PTX; batched ptxas; pass 2: build with the verdicts */
                pending_list pl = {0};
                verdict_list vl = {0};
                struct fam_cache fc = {{0}};
                g.fcache = &fc;
                fam_cache_fill(&g, s.next, batch, w, nw);
                g.pending = &pl;
                for (int k = w; k < batch; k += nw) {
                    cand c;
                    make_candidate(&g, s.next + k, &c);
                    free(c.line);
                }
                g.pending = NULL;
                verify_pending(&pl, o->arch, &vl);
                g.verdicts = &vl;
                for (int k = w; k < batch && f; k += nw) {
                    cand c;
                    make_candidate(&g, s.next + k, &c);
                    json_t *rec = json_pack("{s:I, s:b, s:s, s:s, s:s, s:s, s:I}", "idx", (json_int_t)(s.next + k), "ok", c.ok,
                                            "family", c.family, "source", c.source, "reason", c.reason, "identity", c.identity,
                                            "hash", (json_int_t)c.hash);
                    if (c.line) json_object_set_new(rec, "line", json_string(c.line));
                    char *txt = json_dumps(rec, JSON_COMPACT);
                    wok = wok && txt && fprintf(f, "%s\n", txt) >= 0;
                    free(txt);
                    json_decref(rec);
                    free(c.line);
                }
                if (f) wok = !ferror(f) && fclose(f) == 0 && wok;   /* ferror: a failed write the buffer hid */
                fam_cache_free(&fc);
                _exit(wok && pg_io_failures() == io0 ? 0 : WORKER_IO);
            }
        }
        int io_workers = 0;
        for (int w = 0; w < nw; w++) {
            int st = 0;
            if (pids[w] < 0) { io_workers++; continue; }   /* fork failed: its candidates were never built */
            while (waitpid(pids[w], &st, 0) < 0 && errno == EINTR) {}
            if (WIFEXITED(st) && WEXITSTATUS(st) == WORKER_IO) io_workers++;
        }
        /* merge in index order */
        json_t **recs = calloc((size_t)batch, sizeof(json_t *));
        for (int w = 0; w < nw; w++) {
            char p[700];
            snprintf(p, sizeof p, "%s/%d", dir, w);
            FILE *f = fopen(p, "r");
            char *line = NULL;
            size_t cap = 0;
            while (f && getline(&line, &cap, f) > 0) {
                json_t *rec = json_loads(line, 0, NULL);
                int64_t idx = rec ? json_integer_value(json_object_get(rec, "idx")) : -1;
                if (idx >= s.next && idx < s.next + batch) recs[idx - s.next] = rec;
                else json_decref(rec);
            }
            free(line);
            if (f && ferror(f)) io_workers++;
            if (f) fclose(f);
            unlink(p);
        }
        rmdir(dir);
        if (io_workers) {   /* the batch is incomplete for a reason outside the candidates: stop, resumable */
            pg_diag_emit(diag, PG_E_IO, dir, 0, 0, "%d worker(s) could not write their temporary files (a full disk?); "
                         "the run stops here and resumes from %s", io_workers, partial);
            for (int k = 0; k < batch; k++) json_decref(recs[k]);
            free(recs);
            result = PG_ERR_IO;
            break;
        }
        for (int k = 0; k < batch; k++) {
            json_t *rec = recs[k];
            rep->candidates++;
            if (!rec) {   /* a worker died: counted (family "?"), never written */
                int fd = synth_family_slot(rep, "?");
                rep->failed++;
                if (fd >= 0) rep->fam_failed[fd]++;
                continue;
            }
            const char *fam = json_string_value(json_object_get(rec, "family"));
            int fi = synth_family_slot(rep, fam && *fam ? fam : "?");
            if (!json_is_true(json_object_get(rec, "ok"))) {
                const char *why0 = json_string_value(json_object_get(rec, "reason"));
                if (why0 && !strncmp(why0, "excluded:", 9)) {   /* a held-out task: neither written nor a failure */
                    rep->excluded++;
                    json_decref(rec);
                    continue;
                }
                const char *why = json_string_value(json_object_get(rec, "reason"));
                /* a mutant identical to its base is skipped, not a failure: every count
                 * (the summary line, the meta file, per family) says the same */
                if (why && !strncmp(why, "mutation", 8) && strstr(why, "nothing to change")) rep->nothing_to_change++;
                else {
                    rep->failed++;
                    if (fi >= 0) rep->fam_failed[fi]++;
                    if (rep->nfail_examples < 8) snprintf(rep->fail_examples[rep->nfail_examples++], 200, "%s", why ? why : "?");
                }
                json_decref(rec);
                continue;
            }
            uint64_t h = (uint64_t)json_integer_value(json_object_get(rec, "hash"));
            bool dup = false;
            for (int i = 0; i < seen.n && !dup; i++) dup = seen.v[i] == h;
            if (dup || s.written >= o->count) {
                if (dup) rep->duplicates++;
                json_decref(rec);
                continue;
            }
            pg_vec_push(seen, h);
            pg_buf_printf(&lines, "%s\n", json_string_value(json_object_get(rec, "line")));
            s.written++;
            if (fi >= 0) rep->fam_written[fi]++;
            json_decref(rec);
        }
        free(recs);
        s.next += batch;
        /* the lines reach the disk before the state that counts them: a crash between the two
         * leaves lines the state does not count, and a resume cuts them off */
        werr = write_all_fd(out, lines.data, lines.len);
        if (!werr && fsync(out) != 0) werr = errno;
        lines.len = 0;
        if (werr) {
            pg_diag_emit(diag, PG_E_IO, partial, 0, 0, "write failed: %s", strerror(werr));
            result = PG_ERR_IO;
            break;
        }
        pg_buf st = {0};
        pg_buf_printf(&st, "%lld %d\nargs %s\n", (long long)s.next, s.written, args);
        result = pg_write_file_atomic(statef, st.data, st.len, diag);
        pg_buf_free(&st);
        if (result != PG_OK) break;
        struct timespec t1;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double dt = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
        rep->seconds = dt;
        if (o->progress) {
            double rate = (s.written - rep->resumed_from) / (dt > 0 ? dt : 1);
            int width = 30, fill = (int)((double)s.written / o->count * width);
            fprintf(stderr, "\r[%.*s%*s] %d/%d  %.1f samples/s  ETA %.0fs   ", fill, "==============================", width - fill, "",
                    s.written, o->count, rate, rate > 0 ? (o->count - s.written) / rate : 0);
        }
    }
    if (o->progress) fputc('\n', stderr);
    if (out >= 0 && close(out) != 0 && result == PG_OK) {
        pg_diag_emit(diag, PG_E_IO, partial, 0, 0, "close failed: %s", strerror(errno));
        result = PG_ERR_IO;
    }
    pg_buf_free(&lines);
    pg_vec_free(seen);
    rep->written = s.written;
    for (int i = 0; i < g.nhand; i++) { free(g.hand[i].name); free(g.hand[i].ptx); free(g.hand[i].cu); json_decref(g.hand[i].task); }
    free(g.hand);
    for (int i = 0; i < g.nexcl; i++) free(g.excl[i]);
    free(g.excl);
    json_decref(g.results);
    if (result != PG_OK) {   /* a file journal stays for the resume; a private one goes */
        if (!out_is_file) { unlink(partial); unlink(statef); }
        return result;
    }
    if (s.written < o->count) {
        pg_diag_emit(diag, PG_E_IO, o->out, 0, 0, "only %d of %d samples after %lld candidates (see the failure counts)", s.written,
                     o->count, (long long)s.next);
        if (!out_is_file) { unlink(partial); unlink(statef); }
        return PG_ERR_INVALID;
    }
    /* the journal becomes the output (renamed onto a file, a link's target; copied to stdout or a device) */
    if (pg_out_move(o->out, partial, 0, diag) != PG_OK) {
        if (!out_is_file) { unlink(partial); unlink(statef); }
        return PG_ERR_IO;
    }
    unlink(statef);
    return PG_OK;
}

int synth_family_slot(synth_report *r, const char *fam) {
    for (int i = 0; i < r->nfam; i++)
        if (!strcmp(r->fam[i], fam)) return i;
    if (r->nfam >= SYNTH_MAX_FAMILIES) return -1;
    snprintf(r->fam[r->nfam], sizeof r->fam[0], "%s", fam);
    return r->nfam++;
}

/* ---- --stats -------------------------------------------------------------------------- */
static int cmpd(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
static double pct(double *v, int n, double p) { return n ? v[(int)fmin(n - 1, floor(p * (n - 1) + 0.5))] : 0; }

pg_status synth_dataset_stats(const char *path, pg_buf *out, pg_diag_sink *diag) {
    FILE *f = fopen(path, "r");
    if (!f) { pg_diag_emit(diag, PG_E_IO, path, 0, 0, "cannot open: %s", strerror(errno)); return PG_ERR_IO; }
    json_t *fam = json_object(), *src = json_object(), *spl = json_object(), *sty = json_object();
    /* per family and style: the sets of frames and of description texts (by hash) */
    json_t *dsets = json_object();
    PG_VEC(double) lines = {0}, bytes = {0}, words = {0};
    char *line = NULL;
    size_t cap = 0;
    int n = 0, lineno = 0, bad = 0;
    while (getline(&line, &cap, f) > 0) {
        lineno++;
        json_t *j = json_loads(line, 0, NULL);
        if (!j) { if (bad++ < 3) pg_diag_emit(diag, PG_E_TASK, path, lineno, 1, "not a JSON object"); continue; }
        n++;
        const char *keys[4] = {"family", "source", "split", "description_style"};
        json_t *tabs[4] = {fam, src, spl, sty};
        for (int k = 0; k < 4; k++) {
            const char *v = json_string_value(json_object_get(j, keys[k]));
            if (!v) v = "?";
            json_object_set_new(tabs[k], v, json_integer(json_integer_value(json_object_get(tabs[k], v)) + 1));
        }
        const char *fm = json_string_value(json_object_get(j, "family")), *st = json_string_value(json_object_get(j, "description_style"));
        const char *fr = json_string_value(json_object_get(j, "description_frame")), *de = json_string_value(json_object_get(j, "description"));
        json_t *byf = json_object_get(dsets, fm ? fm : "?");
        if (!byf) json_object_set_new(dsets, fm ? fm : "?", byf = json_object());
        json_t *bys = json_object_get(byf, st ? st : "?");
        if (!bys) json_object_set_new(byf, st ? st : "?", bys = json_pack("{s:i, s:o, s:o}", "samples", 0, "frames", json_object(), "texts", json_object()));
        json_object_set_new(bys, "samples", json_integer(json_integer_value(json_object_get(bys, "samples")) + 1));
        json_object_set_new(json_object_get(bys, "frames"), fr ? fr : "?", json_true());
        char hx[20];
        snprintf(hx, sizeof hx, "%016llx", (unsigned long long)(de ? pg_hash64_add(PG_HASH64_INIT_SHORT, de, strlen(de)) : 0));
        json_object_set_new(json_object_get(bys, "texts"), hx, json_true());
        const char *code = json_string_value(json_object_get(j, "ptx_code"));
        if (code) {
            int nl = 0, nw = 0;
            bool inw = false;
            for (const char *p = code; *p; p++) {
                if (*p == '\n') nl++;
                bool sp = *p == ' ' || *p == '\t' || *p == '\n' || *p == ',';
                if (!sp && !inw) nw++;
                inw = !sp;
            }
            pg_vec_push(lines, nl);
            pg_vec_push(bytes, (double)strlen(code));
            pg_vec_push(words, nw);
        }
        json_decref(j);
    }
    free(line);
    fclose(f);
    if (lines.n) {   /* qsort(NULL, 0, ...) is undefined behaviour: an empty dataset sorts nothing */
        qsort(lines.v, (size_t)lines.n, sizeof(double), cmpd);
        qsort(bytes.v, (size_t)bytes.n, sizeof(double), cmpd);
        qsort(words.v, (size_t)words.n, sizeof(double), cmpd);
    }
    json_t *o = json_object();
    json_object_set_new(o, "samples", json_integer(n));
    json_object_set_new(o, "unreadable_lines", json_integer(bad));
    json_object_set_new(o, "by_family", fam);
    json_object_set_new(o, "by_source", src);
    json_object_set_new(o, "by_split", spl);
    json_object_set_new(o, "by_description_style", sty);
    /* {"map": {"terse": {"samples": 40, "frames": 18, "distinct": 39}, ...}, ...}: frames = distinct
     * templates ("description_frame"), distinct = distinct description texts */
    json_t *dstat = json_object();
    const char *fk, *sk;
    json_t *fv, *sv;
    json_object_foreach(dsets, fk, fv) {
        json_t *per = json_object();
        json_object_foreach(fv, sk, sv)
            json_object_set_new(per, sk, json_pack("{s:O, s:i, s:i}", "samples", json_object_get(sv, "samples"), "frames",
                                                   (int)json_object_size(json_object_get(sv, "frames")), "distinct",
                                                   (int)json_object_size(json_object_get(sv, "texts"))));
        json_object_set_new(dstat, fk, per);
    }
    json_decref(dsets);
    json_object_set_new(o, "descriptions_by_family", dstat);
    json_t *len = json_object();
    json_object_set_new(len, "ptx_lines_p50", json_real(pct(lines.v, lines.n, 0.5)));
    json_object_set_new(len, "ptx_lines_p95", json_real(pct(lines.v, lines.n, 0.95)));
    json_object_set_new(len, "ptx_lines_max", json_real(lines.n ? lines.v[lines.n - 1] : 0));
    json_object_set_new(len, "ptx_bytes_p50", json_real(pct(bytes.v, bytes.n, 0.5)));
    json_object_set_new(len, "ptx_bytes_p95", json_real(pct(bytes.v, bytes.n, 0.95)));
    json_object_set_new(len, "ptx_words_p95", json_real(pct(words.v, words.n, 0.95)));
    json_object_set_new(len, "note", json_string("words = whitespace/comma-separated pieces; token counts need the model's tokenizer"));
    json_object_set_new(o, "lengths", len);
    /* verification rates from the run's sidecar, when present */
    char meta[4200];
    snprintf(meta, sizeof meta, "%s.meta.json", path);
    json_t *mj = json_load_file(meta, 0, NULL);
    if (mj) json_object_set_new(o, "run", mj);
    char *txt = json_dumps(o, JSON_INDENT(2));
    pg_buf_puts(out, txt);
    pg_buf_putc(out, '\n');
    free(txt);
    json_decref(o);
    pg_vec_free(lines);
    pg_vec_free(bytes);
    pg_vec_free(words);
    return bad ? PG_ERR_INVALID : PG_OK;
}

/* canon_expr for other modules (taskonly.c's held-out exclusion). */
void synth_expr_canonical(const expr_tree *e, pg_buf *out) { canon_expr(e, out); }
