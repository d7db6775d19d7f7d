/* lex.c — PTX tokenizer: identifiers (with %/$ prefixes), directives and
 * modifiers (.name, .a::b), numbers (dec/hex/oct/bin ints with U suffix,
 * 0f/0d hex floats, decimal floats), strings, punctuation.  Comments are
 * skipped; the span of the full-line `//` comments before each token is
 * recorded (lexer.cmt_s/cmt_e).  Token length is bounded by PTX_MAX_TOKEN. */
#include "lex.h"

#include <stddef.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* character classes: 1 = identifier start, 2 = identifier continuation, 4 = a blank
 * other than a newline, 8 = a hex digit (a table lookup: the three range tests of a hex
 * digit were a branch mispredicted on most 0f3F800000 literals) */
#define HX(c) [c] = 8 | 3, [c - 32] = 8 | 3
static const unsigned char cclass[256] = {
    [' '] = 4, ['\t'] = 4, ['\r'] = 4, ['\f'] = 4, ['\v'] = 4,
    ['$'] = 3, ['%'] = 3, ['_'] = 3,
    ['0'] = 8 | 2, ['1'] = 8 | 2, ['2'] = 8 | 2, ['3'] = 8 | 2, ['4'] = 8 | 2, ['5'] = 8 | 2, ['6'] = 8 | 2, ['7'] = 8 | 2,
    ['8'] = 8 | 2, ['9'] = 8 | 2,
    HX('a'), HX('b'), HX('c'), HX('d'), HX('e'), HX('f'),
#define L2(c) [c] = 3, [c - 32] = 3
    L2('g'), L2('h'), L2('i'), L2('j'), L2('k'), L2('l'), L2('m'),
    L2('n'), L2('o'), L2('p'), L2('q'), L2('r'), L2('s'), L2('t'), L2('u'), L2('v'), L2('w'), L2('x'), L2('y'), L2('z'),
#undef L2
};
#undef HX
static const unsigned char pclass[256] = {
    ['{'] = 1, ['}'] = 1, ['('] = 1, [')'] = 1, ['['] = 1, [']'] = 1, [';'] = 1, [':'] = 1, [','] = 1, ['+'] = 1,
    ['-'] = 1, ['!'] = 1, ['@'] = 1, ['|'] = 1, ['<'] = 1, ['>'] = 1, ['='] = 1, ['*'] = 1, ['/'] = 1, ['&'] = 1,
    ['^'] = 1, ['~'] = 1, ['?'] = 1,
};

void ptx_lex_init(lexer *L, const char *src, size_t len, const char *file, pg_diag_sink *diag) {
    memset(L, 0, sizeof *L);
    L->src = L->p = src;
    L->end = src + len;
    L->line = 1;
    L->col = 1;
    L->file = file;
    L->diag = diag;
    const char *q = L->end;
    while (q > src && (cclass[(unsigned char)q[-1]] & 2)) q--;
    L->id_end = q;
}

static inline int ispunct_ptx(int c) { return pclass[(unsigned char)c]; }
static inline int isid0(int c) { return cclass[(unsigned char)c] & 1; }
static inline int isid(int c) { return cclass[(unsigned char)c] & 2; }
static int isdig(int c) { return c >= '0' && c <= '9'; }
static int ishex(int c) { return cclass[(unsigned char)c] & 8; }

static void adv(lexer *L) {
    if (*L->p == '\n') { L->line++; L->col = 1; }
    else L->col++;
    L->p++;
}

/* A block comment starting at L->p (slash, star); false if it is unterminated
 * (reported; L->p is then at the end). */
static bool skip_block_comment(lexer *L) {
    int line = L->line, col = L->col;
    adv(L); adv(L);
    while (L->p < L->end && !(*L->p == '*' && L->p + 1 < L->end && L->p[1] == '/')) adv(L);
    if (L->p >= L->end) {
        pg_diag_emit(L->diag, PG_E_UNTERMINATED, L->file, line, col, "unterminated /* comment");
        L->failed = true;
        return false;
    }
    adv(L); adv(L);
    return true;
}

/* Write a whole token with the two stores lex.h's token comment describes. */
static inline void tok_store(token *t, const char *s, int line, int col, int n, int kind, bool space, char punct) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    typedef unsigned long long v2u64 __attribute__((vector_size(16)));
    _Static_assert(sizeof(token) == 24 && offsetof(token, line) == 8 && offsetof(token, col) == 12 && offsetof(token, n) == 16 &&
                       offsetof(token, kind) == 20 && offsetof(token, space_before) == 21 && offsetof(token, punct) == 22,
                   "token layout");
    v2u64 v = {(unsigned long long)(uintptr_t)s, (unsigned long long)(uint32_t)line | (unsigned long long)(uint32_t)col << 32};
    uint64_t nf = (uint64_t)(uint32_t)n | (uint64_t)(unsigned char)kind << 32 | (uint64_t)space << 40 |
                  (uint64_t)(unsigned char)punct << 48;   /* spare: 0 */
    memcpy(t, &v, 16);
    memcpy((char *)t + 16, &nf, 8);
#else
    t->s = s;
    t->line = line;
    t->col = col;
    t->n = n;
    t->kind = (unsigned char)kind;
    t->space_before = space;
    t->punct = punct;
    t->spare = 0;
#endif
}

static void too_long(lexer *L, token *t) {
    pg_diag_emit(L->diag, PG_E_LIMIT, L->file, t->line, t->col, "token longer than %d bytes", PTX_MAX_TOKEN);
    L->failed = true;
    t->kind = TK_ERROR;
    t->n = PTX_MAX_TOKEN;
}

/* ".5" is a number (ptxas: div.f64 %fd1, -.5, %fd2), ".5d" a modifier: digits, then no name character. */
static bool dot_number(const char *p, const char *end) {
    while (p < end && isdig(*p)) p++;
    if (p + 1 < end && (*p == 'e' || *p == 'E')) {   /* .5e1, .5e-3 */
        const char *q = p + 1;
        if (q + 1 < end && (*q == '+' || *q == '-')) q++;
        if (isdig(*q)) {
            while (q < end && isdig(*q)) q++;
            p = q;
        }
    }
    return p >= end || !isid(*p);
}

/* Numbers, strings and stray bytes: the rarer tokens, kept out of
 * ptx_lex_scan so that its fast path stays small.  Starts at L->p. */
static void lex_other(lexer *L, token *t) {
    const char *p = L->p, *end = L->end;
    char c = *p;
    const char *start = p;
    if (isdig(c) || (c == '.' && p + 1 < end && isdig(p[1]))) {
        if (c == '0' && p + 1 < end && (p[1] == 'f' || p[1] == 'F' || p[1] == 'd' || p[1] == 'D') &&
            p + 2 < end && ishex(p[2])) {
            int want = (p[1] == 'f' || p[1] == 'F') ? 8 : 16;
            p += 2;
            const char *d0 = p;
            while (p < end && ishex(*p)) p++;
            t->kind = p - d0 == want ? TK_FLOAT : TK_ERROR;
        } else if (c == '0' && p + 1 < end && (p[1] == 'x' || p[1] == 'X')) {
            p += 2;
            const char *d0 = p;
            while (p < end && ishex(*p)) p++;
            bool nd = p > d0;
            if (p < end && *p == 'U') p++;
            t->kind = nd ? TK_INT : TK_ERROR;
        } else if (c == '0' && p + 1 < end && (p[1] == 'b' || p[1] == 'B')) {
            p += 2;
            const char *d0 = p;
            while (p < end && (*p == '0' || *p == '1')) p++;
            bool nd = p > d0;
            if (p < end && *p == 'U') p++;
            t->kind = nd ? TK_INT : TK_ERROR;
        } else {
            bool flt = false;
            while (p < end && isdig(*p)) p++;
            if (p < end && *p == '.' && !(p + 1 < end && isid0(p[1]) && p[1] != 'e' && p[1] != 'E')) {
                flt = true;
                p++;
                while (p < end && isdig(*p)) p++;
            }
            if (p < end && (*p == 'e' || *p == 'E')) {
                const char *save = p;
                p++;
                if (p < end && (*p == '+' || *p == '-')) p++;
                if (p < end && isdig(*p)) {
                    flt = true;
                    while (p < end && isdig(*p)) p++;
                } else {
                    p = save;
                }
            }
            if (!flt && p < end && *p == 'U') p++;
            t->kind = flt ? TK_FLOAT : TK_INT;
            if (p < end && isid(*p)) {
                while (p < end && isid(*p)) p++;
                t->kind = TK_ERROR;
            }
        }
    } else if (c == '"') {
        /* a backslash may escape a newline: track lines with adv() */
        adv(L);
        while (L->p < end && *L->p != '"' && *L->p != '\n') {
            if (*L->p == '\\' && L->p + 1 < end) adv(L);
            adv(L);
        }
        if (L->p >= end || *L->p != '"') {
            pg_diag_emit(L->diag, PG_E_UNTERMINATED, L->file, t->line, t->col, "unterminated string");
            L->failed = true;
            t->kind = TK_ERROR;
        } else {
            adv(L);
            t->kind = TK_STRING;
        }
        p = L->p;
        goto done;   /* line/col already tracked */
    } else {
        adv(L);   /* never a newline: ptx_lex_scan consumed those */
        p = L->p;
        t->kind = TK_ERROR;
        goto done;
    }
    L->col += (int)(p - L->p);
    L->p = p;
done:
    t->n = (int)(p - start);
    if (t->n > PTX_MAX_TOKEN) too_long(L, t);
}

/* A name that starts with '%' (c) and ends at p may go on with a special register's component
 * (%tid.x, %ctaid.y ...): the end past it.  One branch for both first tests (each alone is a coin
 * toss: %r1 vs ld, then ',' vs ".global"). */
static inline const char *skip_sreg_comp(char c, const char *p, const char *end) {
    if (p + 1 < end && ((c == '%') & (p[0] == '.')) && (p[1] == 'x' || p[1] == 'y' || p[1] == 'z' || p[1] == 'w' || p[1] == 0) &&
        (p + 2 >= end || !isid(p[2])))
        return p + 2;
    return p;
}

/* The end of the identifier characters at p (see lexer.id_end). */
static inline const char *skip_id(const lexer *L, const char *p) {
#if defined(__SSE2__)
    /* 16 bytes at a time: a byte loop's exit branch is mispredicted at the end of
     * nearly every name (they are 2-20 bytes long); this has no branch that depends
     * on the length below 16.  The classes are cclass's bit 2: letters, digits, $ % _. */
    while (L->end - p >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i f = _mm_or_si128(v, _mm_set1_epi8(0x20));   /* A-Z -> a-z; nothing else lands on a-z */
        __m128i letter = _mm_and_si128(_mm_cmpgt_epi8(f, _mm_set1_epi8('a' - 1)), _mm_cmplt_epi8(f, _mm_set1_epi8('z' + 1)));
        __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)), _mm_cmplt_epi8(v, _mm_set1_epi8('9' + 1)));
        __m128i other = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('_')), _mm_cmpeq_epi8(v, _mm_set1_epi8('$'))),
                                     _mm_cmpeq_epi8(v, _mm_set1_epi8('%')));
        unsigned stop = ~(unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(letter, digit), other)) & 0xffffu;
        if (stop) return p + __builtin_ctz(stop);
        p += 16;
    }
#endif
    if (p < L->id_end) {
        while (isid(*p)) p++;
        return p;
    }
    while (p < L->end && isid(*p)) p++;
    return p;
}

/* The end of a directive's name after its '.' at p (names joined by "::" count as one). */
static inline const char *skip_dir_name(const lexer *L, const char *p, const char *end) {
    for (;;) {
        p = skip_id(L, p);
        if (p + 2 < end && p[0] == ':' && p[1] == ':' && isid(p[2])) { p += 2; continue; }
        return p;
    }
}

/* Identifiers, directives and numbers never contain a newline, so their
 * scanners advance the column by the token length instead of calling adv()
 * per character.  Every token kind; ptx_lex_scan below takes the common ones. */
static __attribute__((noinline)) void lex_scan_full(lexer *L, token *tp) {
    /* whitespace and comments, with the position in locals */
    const char *p = L->p, *end = L->end;
    int line = L->line, col = L->col;
    bool any = false, fresh = p == L->src;   /* fresh: only blanks since the last newline */
    L->cmt_s = NULL;
    while (p < end) {
        char c = *p;
        if (cclass[(unsigned char)c] & 4) { p++; col++; any = true; continue; }
        if (c == '\n') { p++; line++; col = 1; any = true; fresh = true; continue; }
        if (c == '/' && p + 1 < end && p[1] == '/') {
            const char *q = memchr(p, '\n', (size_t)(end - p));
            if (!q) q = end;
            if (fresh) {
                if (!L->cmt_s) L->cmt_s = p;
                L->cmt_e = q;
            }
            col += (int)(q - p);
            p = q;
            any = true;
            continue;
        }
        if (c == '/' && p + 1 < end && p[1] == '*') {
            L->p = p; L->line = line; L->col = col;
            bool closed = skip_block_comment(L);
            p = L->p; line = L->line; col = L->col;
            any = true;
            if (!closed) break;
            continue;
        }
        break;
    }
    L->p = p;
    L->line = line;
    L->col = col;
    if (p >= end) { tok_store(tp, p, line, col, 0, TK_EOF, any, 0); return; }
    char c = *p;
    const char *start = p;
    int kind;
    if (isid0(c)) {
        p = skip_sreg_comp(c, skip_id(L, p + 1), end);
        kind = TK_IDENT;
    } else if (c == '.' && p + 1 < end && isid(p[1]) && !(isdig(p[1]) && dot_number(p + 1, end))) {
        p = skip_dir_name(L, p + 1, end);
        kind = TK_DIR;
    } else if (ispunct_ptx(c)) {   /* never a digit, '.' or '"': the order of the tests does not matter */
        L->col++;
        L->p = p + 1;
        tok_store(tp, start, line, col, 1, TK_PUNCT, any, c);
        return;
    } else {
        token t = {start, line, col, 0, 0, any, 0, 0};
        lex_other(L, &t);
        tok_store(tp, t.s, t.line, t.col, t.n, t.kind, any, 0);
        return;
    }
    L->col += (int)(p - L->p);
    L->p = p;
    int n = (int)(p - start);
    if (n > PTX_MAX_TOKEN) {
        token t = {start, line, col, n, (unsigned char)kind, any, 0, 0};
        too_long(L, &t);
        n = t.n;
        kind = t.kind;
    }
    tok_store(tp, start, line, col, n, kind, any, 0);
}

/* The common tokens (names, directives without digits after the dot, punctuation, after
 * blanks and newlines) with few live values, so that the call per token saves no registers;
 * anything else (a comment, a number, a string, the end, a long token, the file's first
 * token) goes to lex_scan_full from the same place: L is not written before that. */
void ptx_lex_scan(lexer *L, token *tp) {
    const char *p = L->p, *end = L->end;
    if (p == L->src) { lex_scan_full(L, tp); return; }
    int line = L->line, col = L->col;
    bool any = false;
    unsigned char c;
    for (;;) {
        if (p >= end) { lex_scan_full(L, tp); return; }
        c = (unsigned char)*p;
        if (cclass[c] & 4) { p++; col++; any = true; continue; }
        if (c == '\n') { p++; line++; col = 1; any = true; continue; }
        break;
    }
    const char *start = p;
    int kind;
    if (isid0(c)) {
        p = skip_sreg_comp(c, skip_id(L, p + 1), end);
        kind = TK_IDENT;
    } else if (c == '.' && p + 1 < end && isid0(p[1])) {   /* .5: lex_scan_full (dot_number) */
        p = skip_dir_name(L, p + 1, end);
        kind = TK_DIR;
    } else if (ispunct_ptx(c) && c != '/') {   /* '/': perhaps a comment */
        L->cmt_s = NULL;
        L->p = p + 1;
        L->line = line;
        L->col = col + 1;
        tok_store(tp, start, line, col, 1, TK_PUNCT, any, (char)c);
        return;
    } else {
        lex_scan_full(L, tp);
        return;
    }
    int n = (int)(p - start);
    if (n > PTX_MAX_TOKEN) { lex_scan_full(L, tp); return; }
    L->cmt_s = NULL;
    L->p = p;
    L->line = line;
    L->col = col + n;
    tok_store(tp, start, line, col, n, kind, any, 0);
}
