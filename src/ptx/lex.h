/* lex.h — PTX tokenizer (internal to src/ptx). */
#ifndef PTX_LEX_H
#define PTX_LEX_H
#include "ptxgen/ptx.h"

typedef enum {
    TK_EOF, TK_IDENT, TK_DIR, TK_INT, TK_FLOAT, TK_STRING, TK_PUNCT, TK_ERROR
} tok_kind;

typedef struct {
    tok_kind kind;
    const char *s;  /* points into the source */
    int n;          /* length */
    int line, col;
    bool space_before;   /* whitespace or comment precedes the token */
    char punct;          /* TK_PUNCT: the character */
} token;

typedef struct {
    const char *src, *end, *p;
    int line, col;
    const char *file;
    pg_diag_sink *diag;
    token cur, peek;
    bool have_peek;
    bool failed;
} lexer;

void lex_init(lexer *L, const char *src, size_t len, const char *file, pg_diag_sink *diag);
token lex_next(lexer *L);     /* consume and return */
token *lex_peek(lexer *L);    /* look at the next token */
/* Read "modifier tails" that follow an opcode with no space: ".global.v4.f32".
 * Returns the number of modifiers stored (pointers into the source). */
bool tok_is(const token *t, const char *s);
bool tok_punct(const token *t, char c);
#endif
