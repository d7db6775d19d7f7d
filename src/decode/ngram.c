/* ngram.c — the n-gram table of training kernels for speculative decoding (gen_ngram_*).
 *
 * For each context of 1..order tokens seen in the training completions, the token that most
 * often came next (ties: the lower id) and how often, if at least min_count times.  The
 * drafter (gen.c) asks it for the next token of its longest context and chains the answers.
 *
 * File format, version 1 (all integers little-endian; docs/DESIGN.md "Speculative decoding"):
 *   offset 0   8 bytes  magic "PTXGNGR1"
 *          8   u32      version = 1
 *         12   u32      order: the longest context, 1..GEN_NGRAM_MAX_ORDER
 *         16   u32      vocab: the tokenizer's tok_vocab_size
 *         20   u32      nentries
 *         24   u64      tokenizer fingerprint (gen_ngram_fingerprint)
 *         32   u64      tokens the table was built from
 *         40   entries: nentries x (order + 2) u32: ctx[order], next, count.  A context of L <
 *                       order tokens fills the last L slots (oldest first) and has 0xFFFFFFFF in
 *                       the others.  Sorted ascending by ctx (word by word), no ctx twice,
 *                       every id < vocab, count >= 1.
 *          end u64      FNV-1a 64 of every byte before it
 * The reader checks every one of these and refuses the file (E903, naming the file and the
 * cause) otherwise; a table for another tokenizer is refused by the fingerprint. */
#include "ptxgen/decode.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC "PTXGNGR1"
#define HDR 40
#define NONE 0xFFFFFFFFu

struct gen_ngram {
    int order, vocab;
    uint32_t *e;          /* [n][order + 2] */
    size_t n;
    uint64_t fingerprint, tokens;
};


uint64_t gen_ngram_fingerprint(const tok_tokenizer *t) {
    uint64_t h = PG_HASH64_INIT;
    int nv = tok_vocab_size(t);
    for (int32_t i = 0; i < nv; i++) {
        size_t len = 0;
        const char *b = tok_token_bytes(t, i, &len);
        uint32_t l = (uint32_t)len;
        h = pg_hash64_add(h, &l, 4);
        if (len) h = pg_hash64_add(h, b, len);
    }
    return h;
}

static void put32(pg_buf *b, uint32_t v) {
    unsigned char c[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16), (unsigned char)(v >> 24)};
    pg_buf_putn(b, (const char *)c, 4);
}
static void put64(pg_buf *b, uint64_t v) {
    put32(b, (uint32_t)v);
    put32(b, (uint32_t)(v >> 32));
}
static uint32_t get32(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t get64(const unsigned char *p) { return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32; }

/* ---- building ---------------------------------------------------------------------------- */
/* (context, next) occurrences, counted after a sort: [n][order + 1] words. */
typedef struct { uint32_t *w; size_t n, cap; int width; } occ_vec;

static int g_width;   /* qsort's comparator width (the build is single-threaded) */
static int cmp_words(const void *a, const void *b) {
    const uint32_t *x = a, *y = b;
    for (int i = 0; i < g_width; i++)
        if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
    return 0;
}

static bool occ_add(occ_vec *v, const uint32_t *w) {
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 1 << 16;
        uint32_t *nw = realloc(v->w, cap * (size_t)v->width * 4);
        if (!nw) return false;
        v->w = nw;
        v->cap = cap;
    }
    memcpy(v->w + v->n * (size_t)v->width, w, (size_t)v->width * 4);
    v->n++;
    return true;
}

pg_status gen_ngram_build(const tok_tokenizer *t, const char *const *texts, int ntexts, int order, int min_count, pg_buf *out,
                          pg_diag_sink *diag) {
    if (order < 1 || order > GEN_NGRAM_MAX_ORDER || min_count < 1) {
        pg_diag_emit(diag, PG_E_GEN, NULL, 0, 0, "n-gram order %d (1..%d) and minimum count %d (>= 1)", order, GEN_NGRAM_MAX_ORDER,
                     min_count);
        return PG_ERR_USAGE;
    }
    occ_vec v = {NULL, 0, 0, order + 1};
    uint64_t tokens = 0;
    pg_status st = PG_OK;
    uint32_t w[GEN_NGRAM_MAX_ORDER + 1];
    for (int k = 0; k < ntexts && st == PG_OK; k++) {
        int32_t *ids = NULL;
        size_t n = 0;
        if ((st = tok_encode(t, texts[k], strlen(texts[k]), &ids, &n)) != PG_OK) {
            pg_diag_emit(diag, PG_E_GEN, NULL, 0, 0, "text %d cannot be tokenized", k);
            break;
        }
        tokens += n;
        for (size_t i = 1; i < n && st == PG_OK; i++)   /* next = ids[i]; contexts end at i - 1 */
            for (int L = 1; L <= order && (size_t)L <= i; L++) {
                for (int j = 0; j < order; j++) w[j] = j < order - L ? NONE : (uint32_t)ids[i - (size_t)(order - j)];
                w[order] = (uint32_t)ids[i];
                if (!occ_add(&v, w)) st = PG_ERR_NOMEM;
            }
        free(ids);
    }
    if (st != PG_OK) { free(v.w); return st; }
    g_width = order + 1;
    if (v.n) qsort(v.w, v.n, (size_t)v.width * 4, cmp_words);
    /* per context: the most frequent next (runs of equal (ctx, next) are counted; the first of
     * the longest runs wins, which is the lowest id among ties, since next sorts ascending) */
    pg_buf body = {0};
    uint32_t nent = 0;
    for (size_t i = 0; i < v.n;) {
        const uint32_t *c0 = v.w + i * (size_t)v.width;
        uint32_t best = 0, bestn = 0;
        size_t j = i;
        while (j < v.n && !memcmp(v.w + j * (size_t)v.width, c0, (size_t)order * 4)) {
            size_t r = j;
            while (r < v.n && !memcmp(v.w + r * (size_t)v.width, v.w + j * (size_t)v.width, (size_t)v.width * 4)) r++;
            if (r - j > bestn) { bestn = (uint32_t)(r - j); best = v.w[j * (size_t)v.width + order]; }
            j = r;
        }
        if (bestn >= (uint32_t)min_count) {
            for (int q = 0; q < order; q++) put32(&body, c0[q]);
            put32(&body, best);
            put32(&body, bestn);
            nent++;
        }
        i = j;
    }
    free(v.w);
    out->len = 0;
    pg_buf_putn(out, MAGIC, 8);
    put32(out, 1);
    put32(out, (uint32_t)order);
    put32(out, (uint32_t)tok_vocab_size(t));
    put32(out, nent);
    put64(out, gen_ngram_fingerprint(t));
    put64(out, tokens);
    if (body.len) pg_buf_putn(out, body.data, body.len);
    pg_buf_free(&body);
    put64(out, pg_hash64(out->data, out->len));
    return PG_OK;
}

pg_status gen_ngram_build_jsonl(const tok_tokenizer *t, const char *jsonl, int order, int min_count, const char *out_path,
                                int *nkernels, pg_diag_sink *diag) {
    FILE *f = fopen(jsonl, "r");
    if (!f) {
        pg_diag_emit(diag, PG_E_GEN, jsonl, 0, 0, "cannot read the file");
        return PG_ERR_IO;
    }
    PG_VEC(char *) texts = {0};
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    pg_status st = PG_OK;
    ssize_t len;
    while (st == PG_OK && (len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (len == 0 || line[0] == '\n') continue;
        json_error_t e;
        json_t *j = json_loadb(line, (size_t)len, 0, &e);
        if (!j || !json_is_object(j)) {
            pg_diag_emit(diag, PG_E_GEN, jsonl, (int)lineno, e.column, "not a JSON object%s%s", j ? "" : ": ", j ? "" : e.text);
            json_decref(j);
            st = PG_ERR_INVALID;
            break;
        }
        /* training kernels only: pairs' "completion" (the module as the model writes it) or a
         * synth sample's "ptx_code"; twin turns (CUDA C) and other splits stay out */
        const char *turn = json_string_value(json_object_get(j, "turn")), *split = json_string_value(json_object_get(j, "split"));
        const char *txt = json_string_value(json_object_get(j, "completion"));
        if (!txt) txt = json_string_value(json_object_get(j, "ptx_code"));
        if (!txt) {
            pg_diag_emit(diag, PG_E_GEN, jsonl, (int)lineno, 0, "the line has neither \"completion\" (pairs) nor \"ptx_code\" (synth)");
            json_decref(j);
            st = PG_ERR_INVALID;
            break;
        }
        if ((!turn || strcmp(turn, "twin")) && (!split || !strcmp(split, "train"))) {
            char *c = strdup(txt);
            if (!c) st = PG_ERR_NOMEM;
            else pg_vec_push(texts, c);
        }
        json_decref(j);
    }
    free(line);
    if (ferror(f) && st == PG_OK) {
        pg_diag_emit(diag, PG_E_GEN, jsonl, 0, 0, "read error");
        st = PG_ERR_IO;
    }
    fclose(f);
    if (st == PG_OK && texts.n == 0) {
        pg_diag_emit(diag, PG_E_GEN, jsonl, 0, 0, "no training kernels in the file (lines with split \"train\" or no split)");
        st = PG_ERR_INVALID;
    }
    pg_buf out = {0};
    if (st == PG_OK) st = gen_ngram_build(t, (const char *const *)texts.v, texts.n, order, min_count, &out, diag);
    if (st == PG_OK) st = pg_write_file_atomic(out_path, out.data, out.len, diag);
    if (nkernels) *nkernels = st == PG_OK ? texts.n : 0;
    for (int i = 0; i < texts.n; i++) free(texts.v[i]);
    pg_vec_free(texts);
    pg_buf_free(&out);
    return st;
}

/* ---- reading ----------------------------------------------------------------------------- */
pg_status gen_ngram_parse(const void *data, size_t size, const char *name, const tok_tokenizer *t, gen_ngram **out,
                          pg_diag_sink *diag) {
    *out = NULL;
    const unsigned char *p = data;
#define BAD(...) do { pg_diag_emit(diag, PG_E_GEN, name, 0, 0, __VA_ARGS__); return PG_ERR_INVALID; } while (0)
    if (size < HDR + 8 || memcmp(p, MAGIC, 8)) BAD("not an n-gram table (want the magic \"%s\" and at least %d bytes)", MAGIC, HDR + 8);
    if (get32(p + 8) != 1) BAD("n-gram table version %u; this build reads version 1", get32(p + 8));
    uint32_t order = get32(p + 12), vocab = get32(p + 16), n = get32(p + 20);
    if (order < 1 || order > GEN_NGRAM_MAX_ORDER) BAD("order %u is outside 1..%d", order, GEN_NGRAM_MAX_ORDER);
    size_t width = (size_t)order + 2;
    if ((size - HDR - 8) / 4 / width < n || HDR + (size_t)n * width * 4 + 8 != size)
        BAD("%u entries of %zu bytes do not fill the file's %zu bytes", n, width * 4, size);
    if (get64(p + size - 8) != pg_hash64(p, size - 8)) BAD("checksum mismatch (the file is damaged)");
    if (t && (vocab != (uint32_t)tok_vocab_size(t) || get64(p + 24) != gen_ngram_fingerprint(t)))
        BAD("built for another tokenizer (vocabulary %u, fingerprint %016llx; this model's: %d, %016llx)", vocab,
            (unsigned long long)get64(p + 24), tok_vocab_size(t), (unsigned long long)gen_ngram_fingerprint(t));
    gen_ngram *g = calloc(1, sizeof *g);
    if (!g || !(g->e = malloc(n ? (size_t)n * width * 4 : 4))) { free(g); return PG_ERR_NOMEM; }
    g->order = (int)order;
    g->vocab = (int)vocab;
    g->n = n;
    g->fingerprint = get64(p + 24);
    g->tokens = get64(p + 32);
    for (size_t i = 0; i < (size_t)n * width; i++) g->e[i] = get32(p + HDR + 4 * i);
    g_width = (int)order;
    for (size_t i = 0; i < n; i++) {
        const uint32_t *e = g->e + i * width;
        int L = 0;
        bool shape = true;
        for (uint32_t j = 0; j < order; j++) {
            if (e[j] == NONE) { shape &= L == 0; continue; }
            L++;
            shape &= e[j] < vocab;
        }
        const char *why = !shape || L == 0 ? "a malformed context" : e[order] >= vocab ? "a next token outside the vocabulary"
                        : e[order + 1] == 0 ? "a count of 0"
                        : i > 0 && cmp_words(e - width, e) >= 0 ? "a context out of order (or twice)" : NULL;
        if (why) {
            gen_ngram_free(g);
            BAD("entry %zu has %s", i, why);
        }
    }
#undef BAD
    *out = g;
    return PG_OK;
}

pg_status gen_ngram_load(const char *path, const tok_tokenizer *t, gen_ngram **out, pg_diag_sink *diag) {
    char *data = NULL;
    size_t len = 0;
    *out = NULL;
    pg_status st = pg_read_file(path, 1u << 30, &data, &len, diag);
    if (st != PG_OK) return st;
    st = gen_ngram_parse(data, len, path, t, out, diag);
    free(data);
    return st;
}

void gen_ngram_free(gen_ngram *g) {
    if (!g) return;
    free(g->e);
    free(g);
}

int gen_ngram_order(const gen_ngram *g) { return g->order; }
size_t gen_ngram_entries(const gen_ngram *g) { return g->n; }

int32_t gen_ngram_next(const gen_ngram *g, const int32_t *ctx, int n, int min_count) {
    size_t width = (size_t)g->order + 2;
    uint32_t key[GEN_NGRAM_MAX_ORDER];
    for (int L = n < g->order ? n : g->order; L >= 1; L--) {   /* the longest context the table knows */
        for (int j = 0; j < g->order; j++) key[j] = j < g->order - L ? NONE : (uint32_t)ctx[n - (g->order - j)];
        size_t lo = 0, hi = g->n;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            const uint32_t *e = g->e + mid * width;
            int c = 0;
            for (int j = 0; j < g->order && !c; j++) c = e[j] < key[j] ? -1 : e[j] > key[j];
            if (c < 0) lo = mid + 1;
            else if (c > 0) hi = mid;
            else return e[g->order + 1] >= (uint32_t)min_count ? (int32_t)e[g->order] : -1;
        }
    }
    return -1;
}
