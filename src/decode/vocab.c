/* vocab.c — the vocabulary trie: every token's bytes in one byte trie, so a
 * full mask is one depth-first walk that drops whole subtrees as soon as a
 * prefix is rejected.  Special tokens stay out of the trie; only GEN_TOK_END
 * is ever allowed (dec_mask/dec_accepts handle it).  Per character class
 * (name bytes, lowercase letters) the trie also carries the tables of the
 * mask's fast path (dv_class). */
#include "dec_internal.h"

#include <stdlib.h>
#include <string.h>

/* Tokens are inserted in byte order (ptok sorted), so a node's newest child
 * is the only one a later token can share: compare with it, else append. */
typedef struct { const char *b; size_t len; int id; } ptok;
static int ptok_cmp(const void *x, const void *y) {
    const ptok *a = x, *b = y;
    int c = memcmp(a->b, b->b, a->len < b->len ? a->len : b->len);
    if (c) return c;
    if (a->len != b->len) return a->len < b->len ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}
static int child_sorted(dec_vocab *v, int node, unsigned char c) {
    int k = v->nodes.v[node].first_child;
    if (k >= 0 && v->nodes.v[k].c == c) return k;
    dv_node nd = {-1, k, -1, 0, c};
    pg_vec_push(v->nodes, nd);
    k = v->nodes.n - 1;
    v->nodes.v[node].first_child = k;
    return k;
}

static int child(dec_vocab *v, int node, unsigned char c, bool create) {
    for (int k = v->nodes.v[node].first_child; k >= 0; k = v->nodes.v[k].next_sibling)
        if (v->nodes.v[k].c == c) return k;
    if (!create) return -1;
    dv_node nd = {-1, v->nodes.v[node].first_child, -1, 0, c};
    pg_vec_push(v->nodes, nd);
    int k = v->nodes.n - 1;
    v->nodes.v[node].first_child = k;
    return k;
}

/* Token i as cover + pure run: the length of the run of class bytes after the
 * cover's prefix when the whole rest is such a run (up to DV_MAXRUN), else 0. */
static int pure_run(const dec_vocab *v, int cls, int i, int *cov) {
    size_t len = v->lens[i], at = 0;
    if (v->special[i] || !len) return 0;
    *cov = DV_COVER_ROOT;
    if (v->bytes[i][0] == ' ') { *cov = DV_COVER_SPACE; at = 1; }
    if (len == at || len - at > DV_MAXRUN) return 0;
    for (size_t m = at; m < len; m++)
        if (!dv_in_class(cls, (unsigned char)v->bytes[i][m])) return 0;
    return (int)(len - at);
}

/* The fast-path tables of one character class (dv_class in dec_internal.h).
 * Children have larger indices than their parents, so one backward pass
 * sees every child before its parent. */
static bool class_index(dec_vocab *v, int cls) {
    dv_class *k = &v->cls[cls];
    int nn = v->nodes.n;
    k->term = calloc((size_t)nn, sizeof *k->term);
    k->reach = malloc((size_t)nn);
    if (!k->term || !k->reach) return false;
    for (int i = nn - 1; i >= 0; i--) {
        const dv_node *nd = &v->nodes.v[i];
        int r = nd->tok >= 0 ? 0 : -1;
        uint64_t t = 0;
        for (int j = nd->first_child; j >= 0; j = v->nodes.v[j].next_sibling) {
            unsigned char ch = v->nodes.v[j].c;
            if (!dv_in_class(cls, ch)) {
                /* bytes >= 128 never end a run (the language is ASCII); counting them would
                 * alias ':' and friends (dv_term_bit is mod 64) all over a UTF-8-rich vocabulary */
                if (ch < 128) t |= dv_term_bit(ch);
                continue;
            }
            t |= k->term[j];
            if (k->reach[j] >= 0 && k->reach[j] + 1 > r) r = k->reach[j] + 1 < 127 ? k->reach[j] + 1 : 127;
        }
        k->term[i] = t;
        k->reach[i] = (int8_t)r;
    }
    /* cumulative bitsets of the pure runs by length, per cover */
    k->maxlen = 0;
    for (int i = 0; i < v->n; i++) {
        int cov, run = pure_run(v, cls, i, &cov);
        if (run > k->maxlen) k->maxlen = run;
    }
    size_t w = (size_t)v->words, rows = (size_t)k->maxlen + 1;
    k->bits = calloc((size_t)DV_NCOVER * 2 * rows * w, sizeof *k->bits);
    k->count = calloc((size_t)DV_NCOVER * 2 * rows, sizeof *k->count);
    if (!k->bits || !k->count) return false;
    for (int i = 0; i < v->n; i++) {
        int cov, run = pure_run(v, cls, i, &cov);
        if (run <= 0) continue;
        bool id0 = dv_first_ok(cls, (unsigned char)v->bytes[i][v->lens[i] - (size_t)run]);
        for (int L = run; L <= k->maxlen; L++)
            for (int z = 0; z <= (int)id0; z++) {
                size_t row = dv_class_row(v, cls, cov, z, L);
                k->bits[row * w + (size_t)(i >> 5)] |= 1u << (i & 31);
                k->count[row]++;
            }
    }
    return true;
}

/* Build from byte strings (ids = positions); special[i] marks special tokens
 * (may be NULL).  Used by dec_vocab_new and by tests with a fake vocabulary. */
pg_status dec_vocab_from_pieces(const char *const *pieces, const size_t *lens, const bool *special, int n,
                                dec_vocab **out, pg_diag_sink *diag) {
    *out = NULL;
    if (n <= 0) {
        pg_diag_emit(diag, PG_E_DEAD_STATE, NULL, 0, 0, "empty vocabulary");
        return PG_ERR_USAGE;
    }
    dec_vocab *v = calloc(1, sizeof *v);
    if (!v) return PG_ERR_NOMEM;
    v->n = n;
    v->bytes = calloc((size_t)n, sizeof *v->bytes);
    v->lens = calloc((size_t)n, sizeof *v->lens);
    v->special = calloc((size_t)n, sizeof *v->special);
    v->dup_next = malloc(sizeof(int) * (size_t)n);
    v->end_id = -1;
    if (!v->bytes || !v->lens || !v->special || !v->dup_next) { dec_vocab_free(v); return PG_ERR_NOMEM; }
    dv_node root = {-1, -1, -1, 0, 0};
    pg_vec_push(v->nodes, root);
    for (int i = 0; i < n; i++) {
        size_t len = lens ? lens[i] : (pieces[i] ? strlen(pieces[i]) : 0);
        v->lens[i] = len;
        v->bytes[i] = malloc(len + 1);
        if (!v->bytes[i]) { dec_vocab_free(v); return PG_ERR_NOMEM; }
        if (len) memcpy(v->bytes[i], pieces[i], len);
        v->bytes[i][len] = 0;
        v->special[i] = special && special[i];
        v->dup_next[i] = -1;
        if (v->special[i]) {
            /* the end of a module: ptxgen's own <|end|>, or the chat template's
             * <|im_end|> for chat models (Qwen2, SmolLM2); <|end|> wins */
            if (len == strlen(GEN_TOK_END) && !memcmp(v->bytes[i], GEN_TOK_END, len)) v->end_id = i;
            else if (v->end_id < 0 && len == strlen(GEN_TOK_IM_END) && !memcmp(v->bytes[i], GEN_TOK_IM_END, len)) v->end_id = i;
        }
    }
    ptok *order = malloc(sizeof *order * (size_t)n);
    if (!order) { dec_vocab_free(v); return PG_ERR_NOMEM; }
    int no = 0;
    for (int i = 0; i < n; i++)
        if (!v->special[i] && v->lens[i]) order[no++] = (ptok){v->bytes[i], v->lens[i], i};
    qsort(order, (size_t)no, sizeof *order, ptok_cmp);
    for (int j = 0; j < no; j++) {
        int i = order[j].id, nd = 0;
        for (size_t k = 0; k < v->lens[i]; k++) nd = child_sorted(v, nd, (unsigned char)v->bytes[i][k]);
        /* identical byte strings (BPE can have them): chain them, lowest id first */
        if (v->nodes.v[nd].tok < 0) v->nodes.v[nd].tok = i;
        else {
            int t = v->nodes.v[nd].tok;
            while (v->dup_next[t] >= 0) t = v->dup_next[t];
            v->dup_next[t] = i;
        }
    }
    free(order);
    v->words = (n + 31) / 32;
    v->cover_node[DV_COVER_ROOT] = 0;
    v->cover_node[DV_COVER_SPACE] = child(v, 0, ' ', false);
    for (int cls = 0; cls < DV_NCLASS; cls++)
        if (!class_index(v, cls)) { dec_vocab_free(v); return PG_ERR_NOMEM; }
    *out = v;
    return PG_OK;
}

void dec_vocab_free(dec_vocab *v) {
    if (!v) return;
    for (int i = 0; v->bytes && i < v->n; i++) free(v->bytes[i]);   /* a vocabulary cut short by malloc: calloc'd, NULL-filled */
    free(v->bytes);
    free(v->lens);
    free(v->special);
    free(v->dup_next);
    for (int cls = 0; cls < DV_NCLASS; cls++) {
        free(v->cls[cls].term);
        free(v->cls[cls].reach);
        free(v->cls[cls].bits);
        free(v->cls[cls].count);
    }
    pg_vec_free(v->nodes);
    free(v);
}

int dec_vocab_size(const dec_vocab *v) { return v->n; }
