/* draft.c — the guesses of speculative decoding's drafter (gen.c make_drafts, free_spec): the
 * history's next token, a register number's next digit, the plan line a literate comment copies.
 * Guesses only: a wrong one costs a verify row, never an output byte (gen.c keeps a draft only
 * where it equals the token the model chose). */
#include "draft.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DRAFT_NMAX 8   /* longest suffix matched in the tokens so far */
/* The token after the longest earlier occurrence (at least DRAFT_MIN_MATCH tokens; ties: the most
 * recent) of the suffix of h[0..n), or -1; *len = the occurrence's length. */
int32_t gen_draft_hist_next(const int32_t *h, int n, int *len) {
    int best = 0, at = -1;
    for (int i = n - 2; i >= 0; i--) {   /* an occurrence ending at i, continued by h[i + 1] */
        if (h[i] != h[n - 1]) continue;
        int L = 1;
        while (L < DRAFT_NMAX && i - L >= 0 && h[i - L] == h[n - 1 - L]) L++;
        if (L > best) { best = L; at = i; if (L == DRAFT_NMAX) break; }
    }
    *len = best;
    return best >= DRAFT_MIN_MATCH ? h[at + 1] : -1;
}

/* Is t one of the ten digit tokens (digits NULL: none is)? */
static bool is_digit_tok(const int32_t *digits, int32_t t) {
    for (int d = 0; digits && d < 10; d++)
        if (digits[d] == t) return true;
    return false;
}

/* Do a reference token and a history token match: equal, or both digits (with digits given)? */
static bool ref_eq(const int32_t *digits, int32_t a, int32_t b) {
    return a == b || (digits && is_digit_tok(digits, a) && is_digit_tok(digits, b));
}

/* The token after the longest occurrence (DRAFT_MIN_MATCH..DRAFT_NMAX tokens) of the suffix of
 * h[0..n) inside ref[0..nref), or -1; *len = its length, *at = where its next token stands.  Ties:
 * the first occurrence at or after `from` (where the last guess left off: the text follows the
 * reference in order), else the first.  With digits, any two digit tokens match (the model numbers
 * its registers its own way, nvcc another: a match goes on across %r7 against %r9). */
int32_t gen_draft_ref_next(const int32_t *h, int n, const int32_t *ref, int nref, const int32_t *digits, int from, int *len, int *at) {
    int best = 0, pos = -1;
    bool after = false;   /* pos >= from */
    *len = 0;
    *at = -1;
    if (n < 1) return -1;
    for (int i = 0; i + 1 < nref; i++) {   /* an occurrence ending at i, continued by ref[i + 1] */
        if (!ref_eq(digits, ref[i], h[n - 1])) continue;
        int L = 1;
        while (L < DRAFT_NMAX && L < n && i - L >= 0 && ref_eq(digits, ref[i - L], h[n - 1 - L])) L++;
        bool a = i + 1 >= from;
        if (L > best || (L == best && a && !after)) { best = L; pos = i + 1; after = a; }
    }
    if (best < DRAFT_MIN_MATCH) return -1;
    *len = best;
    *at = pos;
    return ref[pos];
}

/* A register number's next digit, from the text so far s[0..n) (the line being written last):
 * the line ends in %<class><digits> (digits possibly none yet) as an instruction's first
 * operand (the destination: the class's highest number so far + 1, as nvcc numbers them) or
 * after ", " or "[" (a source: the number of the last instruction whose destination has the
 * class).  Returns the digit (0..9) that continues the guessed number, or -1; *dst = which. */
int gen_draft_reg_digit(const char *s, size_t n, bool *dst) {
    size_t ls = n;
    while (ls > 0 && s[ls - 1] != '\n') ls--;
    size_t d = n;
    while (d > ls && s[d - 1] >= '0' && s[d - 1] <= '9') d--;
    size_t c = d;
    while (c > ls && s[c - 1] >= 'a' && s[c - 1] <= 'z') c--;
    if (c == d || d - c > 2 || n - d > 6 || c == ls || s[c - 1] != '%') return -1;
    const char *cls = s + c;
    size_t cl = d - c;
    /* what stands before the %: the opcode after the line's indent and guard, or ", " / "[" */
    size_t b = ls;
    while (b < c - 1 && (s[b] == ' ' || s[b] == '\t')) b++;
    if (s[b] == '/' || s[b] == '.') return -1;   /* a comment or a directive */
    if (s[b] == '@') {   /* the guard @%pN / @!%pN */
        while (b < c - 1 && s[b] != ' ') b++;
        while (b < c - 1 && s[b] == ' ') b++;
    }
    size_t op = b;
    while (b < c - 1 && s[b] != ' ' && s[b] != ',') b++;
    *dst = b > op && b + 1 == c - 1 && s[b] == ' ';
    if (!*dst && !(c >= 3 && s[c - 3] == ',' && s[c - 2] == ' ') && s[c - 2] != '[') return -1;
    /* the class's highest number, and its last destination, in the body so far (lines before this) */
    long hi = 0, last = -1;
    const char *body = memchr(s, '{', ls);
    for (size_t i = body ? (size_t)(body - s) : ls; i < ls; i++) {
        /* %<cls><digit>: a digit right after the class (%r12 is not %rd12's class) */
        if (s[i] != '%' || i + 1 + cl >= ls || memcmp(s + i + 1, cls, cl) || !(s[i + 1 + cl] >= '0' && s[i + 1 + cl] <= '9')) continue;
        long v = 0;
        size_t k = i + 1 + cl;
        while (k < ls && s[k] >= '0' && s[k] <= '9' && v < 100000) v = v * 10 + (s[k++] - '0');
        if (v > hi) hi = v;
        /* a destination: the first operand of its line */
        size_t j = i;
        while (j > 0 && s[j - 1] != '\n' && s[j - 1] != ',' && s[j - 1] != '[') j--;
        if (j > 0 && s[j - 1] == '\n') {
            size_t q = j;
            while (q < i && (s[q] == ' ' || s[q] == '\t')) q++;
            if (q < i && s[q] == '@') { while (q < i && s[q] != ' ') q++; while (q < i && s[q] == ' ') q++; }
            size_t o0 = q;
            while (q < i && s[q] != ' ') q++;
            if (q > o0 && q + 1 == i && s[o0] != '/' && s[o0] != '.') last = v;
        }
    }
    long want = *dst ? hi + 1 : last;
    if (want < 0) return -1;
    char num[24];
    int len = snprintf(num, sizeof num, "%ld", want);
    size_t typed = n - d;
    if ((size_t)len <= typed || memcmp(num, s + d, typed)) return -1;
    return num[typed] - '0';
}

/* Drafts after the chosen token (the last of g->hist): up to want tokens into d, each the
 * constraint's only continuation or, where it has a choice, an n-gram guess it accepts.
 * *ncertain = how many of the first drafts were the only continuation (no guess among them). */
const char *gen_draft_src_name(gen_draft_src s) {
    return s == GEN_DRAFT_FORCED ? "forced" : s == GEN_DRAFT_HISTORY ? "history" : s == GEN_DRAFT_TABLE ? "table"
           : s == GEN_DRAFT_REGISTER ? "register" : s == GEN_DRAFT_PLAN ? "plan" : s == GEN_DRAFT_REF ? "reference" : "?";
}

/* A line with its blanks collapsed and trimmed (as literate PTX comments hold plan lines) into b. */
static void line_norm(const char *p, size_t n, pg_buf *b) {
    b->len = 0;
    bool sp = false;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (c == ' ' || c == '\t' || c == '\r') { sp = b->len > 0; continue; }
        if (sp) pg_buf_putc(b, ' ');
        sp = false;
        pg_buf_putc(b, c);
    }
}

/* The plan line a new comment most likely copies: in the prompt, the first line after the one the
 * last comment (text s[0..n), the body so far) copied that can be a comment (not only braces, not
 * the __global__ line), blanks collapsed, into out; false when there is none. */
bool gen_draft_plan_next(const char *prompt, const char *s, size_t n, pg_buf *out) {
    /* the last whole comment line of the text */
    size_t e = n;
    while (e > 0 && s[e - 1] != '\n') e--;   /* the current line is not whole */
    const char *last = NULL;
    size_t lastn = 0;
    while (e > 0 && !last) {
        size_t b = e - 1;
        while (b > 0 && s[b - 1] != '\n') b--;
        size_t q = b;
        while (q < e - 1 && (s[q] == ' ' || s[q] == '\t')) q++;
        if (q + 2 < e && s[q] == '/' && s[q + 1] == '/' && s[q + 2] == ' ') last = s + q + 3, lastn = e - 1 - (q + 3);
        e = b;
    }
    if (!last || !prompt) return false;
    pg_buf want = {0}, cur = {0};
    line_norm(last, lastn, &want);
    bool found = false, ok = false;
    for (const char *p = prompt; *p && !ok;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        line_norm(p, len, &cur);
        if (found && cur.len && strspn(cur.data, "{} ") < cur.len && !strstr(cur.data, "__global__")) {
            pg_buf_putn(out, cur.data, cur.len < PTX_LITERATE_LINE_MAX ? cur.len : PTX_LITERATE_LINE_MAX);
            ok = true;
        }
        if (!found && want.len && cur.len == want.len && !memcmp(cur.data, want.data, cur.len)) found = true;
        p = nl ? nl + 1 : p + len;
    }
    pg_buf_free(&want);
    pg_buf_free(&cur);
    return ok;
}


/* ---- register renames (gen.c: learned from chosen text, drafted from the reference) ---- */
bool gen_draft_reg_at(const char *s, size_t n, size_t q, char cls[4], long *num, size_t *ds, size_t *de) {
    if (q > n) return false;
    size_t a = q, b = q;
    while (a > 0 && s[a - 1] >= '0' && s[a - 1] <= '9') a--;
    while (b < n && s[b] >= '0' && s[b] <= '9') b++;
    if (a == b || b - a > 6) return false;
    size_t c = a;
    while (c > 0 && a - c < 4 && s[c - 1] >= 'a' && s[c - 1] <= 'z') c--;
    if (c == a || a - c > 3 || c == 0 || s[c - 1] != '%') return false;
    memcpy(cls, s + c, a - c);
    cls[a - c] = 0;
    long v = 0;
    for (size_t i = a; i < b; i++) v = v * 10 + (s[i] - '0');
    *num = v;
    *ds = a;
    *de = b;
    return true;
}

static int regmap_cls(const gen_regmap *m, const char *cls) {
    for (int i = 0; i < m->ncls; i++)
        if (!strcmp(m->cls[i], cls)) return i;
    return -1;
}

void gen_regmap_set(gen_regmap *m, const char *cls, long from, long to) {
    if (from < 0 || from >= DRAFT_REGMAP_N || to < 0 || to >= INT32_MAX || strlen(cls) > 3) return;
    int c = regmap_cls(m, cls);
    if (c < 0) {
        if (m->ncls == DRAFT_REGMAP_CLS) return;
        c = m->ncls++;
        strcpy(m->cls[c], cls);
    }
    m->to[c][from] = (int32_t)to + 1;
}

long gen_regmap_get(const gen_regmap *m, const char *cls, long from) {
    int c = regmap_cls(m, cls);
    return c < 0 || from < 0 || from >= DRAFT_REGMAP_N ? -1 : (long)m->to[c][from] - 1;
}

bool gen_regmap_learn(gen_regmap *m, const char *t, size_t n, size_t bl, const int32_t *h, int nh, const int32_t *ref, int nref,
                      const size_t *ref_off, const char *rtext, const int32_t *digits, int *from) {
    if (bl == 0 || n < bl || (t[n - bl] >= '0' && t[n - bl] <= '9') || nref < 2) return false;
    char hc[4], rc[4];
    long nh_num, nr;
    size_t hs, he, rs, re;
    if (!gen_draft_reg_at(t, n - bl, n - bl, hc, &nh_num, &hs, &he)) return false;
    int k = (int)(he - hs);   /* the number's digit tokens, before the last token */
    if (nh < k + 2) return false;
    for (int i = 0; i < k; i++)
        if (!is_digit_tok(digits, h[nh - 2 - i])) return false;
    int L = 0, at = -1;
    if (gen_draft_ref_next(h, nh - 1 - k, ref, nref, digits, *from, &L, &at) < 0 || L < 3) return false;
    size_t q = ref_off[at];
    if (!gen_draft_reg_at(rtext, ref_off[nref], q, rc, &nr, &rs, &re) || rs != q || strcmp(rc, hc)) return false;
    gen_regmap_set(m, rc, nr, nh_num);
    *from = at;
    return true;
}

int gen_regmap_next(const gen_regmap *m, const char *ref, size_t rn, size_t q, const char *h, size_t hn, size_t *skip) {
    char rc[4], hc[4];
    long nr, nh;
    size_t rs, re, hs, he;
    *skip = 0;
    if (!gen_draft_reg_at(ref, rn, q, rc, &nr, &rs, &re)) return -1;
    /* the text's register being written: its class, and the digits typed so far (maybe none) */
    size_t typed = 0;
    if (hn > 0 && h[hn - 1] >= '0' && h[hn - 1] <= '9') {
        if (!gen_draft_reg_at(h, hn, hn, hc, &nh, &hs, &he)) return -1;
        typed = he - hs;
    } else {
        size_t c = hn;
        while (c > 0 && hn - c < 4 && h[c - 1] >= 'a' && h[c - 1] <= 'z') c--;
        if (c == hn || hn - c > 3 || c == 0 || h[c - 1] != '%') return -1;
        memcpy(hc, h + c, hn - c);
        hc[hn - c] = 0;
    }
    if (strcmp(rc, hc)) return -1;
    long to = gen_regmap_get(m, rc, nr);
    if (to < 0) return -1;
    char num[24];
    int len = snprintf(num, sizeof num, "%ld", to);
    if ((size_t)len < typed || memcmp(num, h + hn - typed, typed)) return -1;
    if ((size_t)len == typed) {
        *skip = re > q ? re - q : 0;
        return -2;
    }
    return num[typed] - '0';
}
