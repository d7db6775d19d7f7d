/* lex.c — PTX tokenizer: identifiers (with %/$ prefixes), directives and
 * modifiers (.name, .a::b), numbers (dec/hex/oct/bin ints with U suffix,
 * 0f/0d hex floats, decimal floats), strings, punctuation.  Comments are
 * skipped.  Token length is bounded by PTX_MAX_TOKEN. */
#include "lex.h"

#include <string.h>

void lex_init(lexer *L, const char *src, size_t len, const char *file, pg_diag_sink *diag) {
    memset(L, 0, sizeof *L);
    L->src = L->p = src;
    L->end = src + len;
    L->line = 1;
    L->col = 1;
    L->file = file;
    L->diag = diag;
}

/* character classes: 1 = identifier start, 2 = identifier continuation */
static const unsigned char cclass[256] = {
    ['$'] = 3, ['%'] = 3, ['_'] = 3,
    ['0'] = 2, ['1'] = 2, ['2'] = 2, ['3'] = 2, ['4'] = 2, ['5'] = 2, ['6'] = 2, ['7'] = 2, ['8'] = 2, ['9'] = 2,
#define L2(c) [c] = 3, [c - 32] = 3
    L2('a'), L2('b'), L2('c'), L2('d'), L2('e'), L2('f'), L2('g'), L2('h'), L2('i'), L2('j'), L2('k'), L2('l'), L2('m'),
    L2('n'), L2('o'), L2('p'), L2('q'), L2('r'), L2('s'), L2('t'), L2('u'), L2('v'), L2('w'), L2('x'), L2('y'), L2('z'),
#undef L2
};
static const unsigned char pclass[256] = {
    ['{'] = 1, ['}'] = 1, ['('] = 1, [')'] = 1, ['['] = 1, [']'] = 1, [';'] = 1, [':'] = 1, [','] = 1, ['+'] = 1,
    ['-'] = 1, ['!'] = 1, ['@'] = 1, ['|'] = 1, ['<'] = 1, ['>'] = 1, ['='] = 1, ['*'] = 1, ['/'] = 1, ['&'] = 1,
    ['^'] = 1, ['~'] = 1, ['?'] = 1,
};
static inline int ispunct_ptx(int c) { return pclass[(unsigned char)c]; }
static inline int isid0(int c) { return cclass[(unsigned char)c] & 1; }
static inline int isid(int c) { return cclass[(unsigned char)c] & 2; }
static int isdig(int c) { return c >= '0' && c <= '9'; }
static int ishex(int c) { return isdig(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

static void adv(lexer *L) {
    if (*L->p == '\n') { L->line++; L->col = 1; }
    else L->col++;
    L->p++;
}

/* Skip whitespace and comments; returns true if anything was skipped. */
static bool skip_space(lexer *L) {
    bool any = false;
    while (L->p < L->end) {
        char c = *L->p;
        if (c == ' ' || c == '\t') { L->p++; L->col++; any = true; continue; }
        if (c == '\n') { L->p++; L->line++; L->col = 1; any = true; continue; }
        if (c == '\r' || c == '\f' || c == '\v') { adv(L); any = true; continue; }
        if (c == '/' && L->p + 1 < L->end && L->p[1] == '/') {
            const char *q = memchr(L->p, '\n', (size_t)(L->end - L->p));
            if (!q) q = L->end;
            L->col += (int)(q - L->p);
            L->p = q;
            any = true;
            continue;
        }
        if (c == '/' && L->p + 1 < L->end && L->p[1] == '*') {
            int line = L->line, col = L->col;
            adv(L); adv(L);
            while (L->p < L->end && !(*L->p == '*' && L->p + 1 < L->end && L->p[1] == '/')) adv(L);
            if (L->p >= L->end) {
                pg_diag_emit(L->diag, PG_E_UNTERMINATED, L->file, line, col, "unterminated /* comment");
                L->failed = true;
                return true;
            }
            adv(L); adv(L);
            any = true;
            continue;
        }
        break;
    }
    return any;
}

static token lex_raw(lexer *L) {
    token t;
    memset(&t, 0, sizeof t);
    t.space_before = skip_space(L);
    t.line = L->line;
    t.col = L->col;
    t.s = L->p;
    if (L->p >= L->end) { t.kind = TK_EOF; return t; }
    char c = *L->p;
    const char *start = L->p;
    if (isid0(c)) {
        const char *q = L->p;
        while (q < L->end && isid(*q)) q++;
        L->col += (int)(q - L->p);
        L->p = q;
        /* special register components: %tid.x, %ctaid.y ... */
        if (c == '%' && L->p + 1 < L->end && L->p[0] == '.' && strchr("xyzw", L->p[1]) &&
            (L->p + 2 >= L->end || !isid(L->p[2]))) {
            adv(L); adv(L);
        }
        t.kind = TK_IDENT;
    } else if (c == '.' && L->p + 1 < L->end && (isid(L->p[1]))) {
        adv(L);
        for (;;) {
            while (L->p < L->end && isid(*L->p)) adv(L);
            if (L->p + 2 < L->end && L->p[0] == ':' && L->p[1] == ':' && isid(L->p[2])) { adv(L); adv(L); continue; }
            break;
        }
        t.kind = TK_DIR;
    } else if (isdig(c) || (c == '.' && L->p + 1 < L->end && isdig(L->p[1]))) {
        if (c == '0' && L->p + 1 < L->end && (L->p[1] == 'f' || L->p[1] == 'F' || L->p[1] == 'd' || L->p[1] == 'D') &&
            L->p + 2 < L->end && ishex(L->p[2])) {
            int want = (L->p[1] == 'f' || L->p[1] == 'F') ? 8 : 16;
            adv(L); adv(L);
            int nd = 0;
            while (L->p < L->end && ishex(*L->p)) { adv(L); nd++; }
            t.kind = nd == want ? TK_FLOAT : TK_ERROR;
        } else if (c == '0' && L->p + 1 < L->end && (L->p[1] == 'x' || L->p[1] == 'X')) {
            adv(L); adv(L);
            int nd = 0;
            while (L->p < L->end && ishex(*L->p)) { adv(L); nd++; }
            if (L->p < L->end && *L->p == 'U') adv(L);
            t.kind = nd ? TK_INT : TK_ERROR;
        } else if (c == '0' && L->p + 1 < L->end && (L->p[1] == 'b' || L->p[1] == 'B')) {
            adv(L); adv(L);
            int nd = 0;
            while (L->p < L->end && (*L->p == '0' || *L->p == '1')) { adv(L); nd++; }
            if (L->p < L->end && *L->p == 'U') adv(L);
            t.kind = nd ? TK_INT : TK_ERROR;
        } else {
            bool flt = false;
            while (L->p < L->end && isdig(*L->p)) adv(L);
            if (L->p < L->end && *L->p == '.' && !(L->p + 1 < L->end && isid0(L->p[1]) && L->p[1] != 'e' && L->p[1] != 'E')) {
                flt = true;
                adv(L);
                while (L->p < L->end && isdig(*L->p)) adv(L);
            }
            if (L->p < L->end && (*L->p == 'e' || *L->p == 'E')) {
                const char *save = L->p;
                int sl = L->line, sc = L->col;
                adv(L);
                if (L->p < L->end && (*L->p == '+' || *L->p == '-')) adv(L);
                if (L->p < L->end && isdig(*L->p)) {
                    flt = true;
                    while (L->p < L->end && isdig(*L->p)) adv(L);
                } else {
                    L->p = save; L->line = sl; L->col = sc;
                }
            }
            if (!flt && L->p < L->end && *L->p == 'U') adv(L);
            t.kind = flt ? TK_FLOAT : TK_INT;
            if (L->p < L->end && isid(*L->p)) {
                while (L->p < L->end && isid(*L->p)) adv(L);
                t.kind = TK_ERROR;
            }
        }
    } else if (c == '"') {
        adv(L);
        while (L->p < L->end && *L->p != '"' && *L->p != '\n') {
            if (*L->p == '\\' && L->p + 1 < L->end) adv(L);
            adv(L);
        }
        if (L->p >= L->end || *L->p != '"') {
            pg_diag_emit(L->diag, PG_E_UNTERMINATED, L->file, t.line, t.col, "unterminated string");
            L->failed = true;
            t.kind = TK_ERROR;
        } else {
            adv(L);
            t.kind = TK_STRING;
        }
    } else if (ispunct_ptx(c)) {
        L->p++;
        L->col++;   /* punctuation is never a newline */
        t.kind = TK_PUNCT;
        t.punct = c;
    } else {
        adv(L);
        t.kind = TK_ERROR;
    }
    t.n = (int)(L->p - start);
    if (t.n > PTX_MAX_TOKEN) {
        pg_diag_emit(L->diag, PG_E_LIMIT, L->file, t.line, t.col, "token longer than %d bytes", PTX_MAX_TOKEN);
        L->failed = true;
        t.kind = TK_ERROR;
        t.n = PTX_MAX_TOKEN;
    }
    return t;
}

token lex_next(lexer *L) {
    if (L->have_peek) { L->have_peek = false; L->cur = L->peek; return L->cur; }
    L->cur = lex_raw(L);
    return L->cur;
}

token *lex_peek(lexer *L) {
    if (!L->have_peek) { L->peek = lex_raw(L); L->have_peek = true; }
    return &L->peek;
}

bool tok_is(const token *t, const char *s) {
    return (int)strlen(s) == t->n && memcmp(t->s, s, (size_t)t->n) == 0;
}
bool tok_punct(const token *t, char c) { return t->kind == TK_PUNCT && t->punct == c; }
