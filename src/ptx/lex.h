/* lex.h — PTX tokenizer (internal to src/ptx). */
#ifndef PTX_LEX_H
#define PTX_LEX_H
#include "ptxgen/ptx.h"

#include <string.h>

typedef enum {
    TK_EOF, TK_IDENT, TK_DIR, TK_INT, TK_FLOAT, TK_STRING, TK_PUNCT, TK_ERROR
} tok_kind;

/* 24 bytes with no padding: tokens are copied by value all over the
 * parser, and a struct without holes is copied in whole words (a copy that
 * skips a hole byte by byte makes the next wide load of it stall).  The
 * scanner writes a token with one 16-byte store (s, line, col) and one
 * 8-byte store (n and the flags): every load the parser's copies and field
 * reads make (16 bytes at 0, the line/col pair, n, a flag) then lies inside
 * one store and is forwarded from it; a load spanning two narrower stores
 * waits for them to reach the cache (that wait was most of the parser's
 * own time). */
typedef struct {
    const char *s;  /* points into the source */
    int line, col;
    int n;          /* length */
    unsigned char kind;  /* tok_kind */
    bool space_before;   /* whitespace or comment precedes the token */
    char punct;          /* TK_PUNCT: the character */
    char spare;          /* always 0 */
} token;

typedef struct {
    const char *src, *end, *p;
    const char *id_end;   /* a run of identifier characters that starts before id_end ends before it
                           * (byte id_end - 1 is no identifier character): scans there need no end test */
    int line, col;
    const char *file;
    pg_diag_sink *diag;
    token peek;
    bool have_peek;
    bool failed;
    /* The run of full-line `//` comments (a `//` with only blanks before it on
     * its line) between the last scanned token and the one before it:
     * [cmt_s, cmt_e), NULL when none.  The parser attaches it to the statement
     * that token starts (ptx_stmt.comment); trailing comments are not kept. */
    const char *cmt_s, *cmt_e;
} lexer;

void ptx_lex_init(lexer *L, const char *src, size_t len, const char *file, pg_diag_sink *diag);
/* Scan the next token from the source into *t (ignores peek).  Writing the
 * fields in place, rather than returning a struct that is then copied,
 * keeps the CPU from stalling on partially forwarded stores. */
void ptx_lex_scan(lexer *L, token *t);

/* consume and return; inline because the parser calls these for every token.
 * The token always comes from L->peek (one source, written by the scanner's
 * two wide stores), not from either of two places the compiler would merge
 * through narrow spills of its own. */
static inline token lex_next(lexer *L) {
    if (!L->have_peek) ptx_lex_scan(L, &L->peek);
    L->have_peek = false;
    return L->peek;
}
/* look at the next token */
static inline token *lex_peek(lexer *L) {
    if (!L->have_peek) { ptx_lex_scan(L, &L->peek); L->have_peek = true; }
    return &L->peek;
}
/* Hash of a name, 8 bytes at a time (names run from "%r1" to 100-byte C++
 * manglings); used by the parser's intern table and the validator's symbol
 * tables.  The tail is read with fixed-size loads, not a variable memcpy. */
static inline uint32_t ptx_name_hash(const char *s, size_t n) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)n;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
        s += 8;
        n -= 8;
    }
    uint64_t w = 0;
    if (n >= 4) {   /* 4..7 bytes: two overlapping 4-byte loads */
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        w = a | (uint64_t)b << 32;
    } else if (n > 0) {
        w = (uint64_t)(unsigned char)s[0] | (uint64_t)(unsigned char)s[n / 2] << 8 | (uint64_t)(unsigned char)s[n - 1] << 16;
    }
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
    /* finalize (murmur3 fmix64): the tables index with the low bits */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return (uint32_t)h;
}

/* a[0..n) == b[0..n) for the short names of the intern and symbol tables, with
 * fixed-size loads that stay inside both ranges (no call to memcmp). */
static inline bool ptx_name_eq(const char *a, const char *b, size_t n) {
    if (n >= 8) {
        uint64_t x, y;
        for (size_t i = 0; i + 8 <= n; i += 8) {
            memcpy(&x, a + i, 8);
            memcpy(&y, b + i, 8);
            if (x != y) return false;
        }
        memcpy(&x, a + n - 8, 8);   /* the tail, overlapping */
        memcpy(&y, b + n - 8, 8);
        return x == y;
    }
    if (n >= 4) {
        uint32_t x, y, u, v;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        memcpy(&u, a + n - 4, 4);
        memcpy(&v, b + n - 4, 4);
        return x == y && u == v;
    }
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i]) return false;
    return true;
}

static inline bool tok_is(const token *t, const char *s) {
    size_t n = strlen(s);   /* folded by the compiler: s is always a literal */
    return (size_t)t->n == n && memcmp(t->s, s, n) == 0;
}
static inline bool tok_punct(const token *t, char c) { return t->kind == TK_PUNCT && t->punct == c; }
#endif
