/* params.c — the parameter names of a signature the model wrote itself.
 *
 * Without a card, a task or a twin, the model writes the entry's parameter
 * list, and a small model samples names like `S2_LOOP4666651211266667771166667`.
 * A name is kept when it is a word of the request ("y = a*x + y": x, y, a);
 * every other parameter is renamed a<k> by its position.  The renaming is an
 * alpha-renaming of whole identifier tokens outside comments (the signature
 * and every use: ld.param [name], [name+8]), so what the kernel computes is
 * unchanged and a module that validated still validates. */
#include "ptxgen/decode.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXP 64

static bool id_start(int c) { return isalpha(c) || c == '_' || c == '$'; }
static bool id_char(int c) { return isalnum(c) || c == '_' || c == '$'; }

/* Is `name` (n bytes) a whole ASCII word of the request? */
static bool word_of(const char *request, const char *name, size_t n) {
    for (const char *p = request ? request : ""; *p;) {
        if (!id_start((unsigned char)*p)) { p++; continue; }
        const char *w = p;
        while (id_char((unsigned char)*p)) p++;
        if ((size_t)(p - w) == n && !memcmp(w, name, n)) return true;
    }
    return false;
}

/* Walks the identifier tokens of PTX text outside comments.  Registers (%r1) and
 * directives (.param) are one token with their prefix and are never names. */
typedef struct {
    const char *s;
    size_t i;
} tok_walk;

/* Next name token: *at and *len; false at the end.  Copies the text it passes over into out (when given). */
static bool next_name(tok_walk *w, size_t *at, size_t *len, pg_buf *out) {
    const char *s = w->s;
    while (s[w->i]) {
        size_t i = w->i;
        if (s[i] == '/' && s[i + 1] == '/') {
            size_t e = i + strcspn(s + i, "\n");
            if (out) pg_buf_putn(out, s + i, e - i);
            w->i = e;
        } else if (s[i] == '/' && s[i + 1] == '*') {
            const char *e = strstr(s + i + 2, "*/");
            size_t end = e ? (size_t)(e - s) + 2 : strlen(s);
            if (out) pg_buf_putn(out, s + i, end - i);
            w->i = end;
        } else if (s[i] == '%' || s[i] == '.' || isdigit((unsigned char)s[i])) {
            size_t e = i + 1;   /* "%rd1", ".param", "0f3F800000", "1.5": one token, not a name */
            while (id_char((unsigned char)s[e]) || (s[i] != '%' && s[e] == '.')) e++;
            if (out) pg_buf_putn(out, s + i, e - i);
            w->i = e;
        } else if (id_start((unsigned char)s[i])) {
            size_t e = i + 1;
            while (id_char((unsigned char)s[e])) e++;
            *at = i;
            *len = e - i;
            w->i = e;
            return true;
        } else {
            if (out) pg_buf_putc(out, s[i]);
            w->i = i + 1;
        }
    }
    return false;
}

static bool used_anywhere(const char *ptx, const char *name) {
    tok_walk w = {ptx, 0};
    size_t at, len, n = strlen(name);
    while (next_name(&w, &at, &len, NULL))
        if (len == n && !memcmp(ptx + at, name, n)) return true;
    return false;
}

int gen_params_plain(const char *ptx, const char *request, pg_buf *out) {
    pg_buf_puts(out, "");
    const char *entry = ptx ? strstr(ptx, ".entry") : NULL;
    const char *open = entry ? strchr(entry, '(') : NULL;
    const char *close = open ? strchr(open, ')') : NULL;
    if (!close) { pg_buf_puts(out, ptx ? ptx : ""); return 0; }
    /* the entry's name (never renamed, even when a parameter has the same name) */
    size_t en_at = 0;
    {
        const char *p = entry + 6;
        while (*p == ' ' || *p == '\t') p++;
        en_at = (size_t)(p - ptx);
    }
    /* the parameters: the first name token after each ".param" and its type words */
    char old[MAXP][64], neu[MAXP][72];
    int np = 0, renamed = 0;
    for (const char *p = open; np < MAXP && (p = strstr(p, ".param")) && p < close; p += 6) {
        const char *q = p + 6;
        for (;;) {
            while (*q == ' ' || *q == '\t') q++;
            if (*q != '.') break;
            while (*q && *q != ' ' && *q != '\t' && *q != ',' && *q != ')') q++;   /* ".u64", ".ptr", ".align 8" */
            while (*q == ' ' || *q == '\t') q++;
            while (isdigit((unsigned char)*q)) q++;
        }
        const char *a = q;
        while (id_char((unsigned char)*q)) q++;
        size_t n = (size_t)(q - a);
        if (!n || !id_start((unsigned char)*a) || n >= sizeof old[0]) continue;
        memcpy(old[np], a, n);
        old[np][n] = 0;
        neu[np][0] = 0;
        if (!word_of(request, a, n)) renamed++;
        np++;
    }
    if (!renamed) { pg_buf_puts(out, ptx); return 0; }
    /* new names: a<k>, made unique against every name in the module and the kept names */
    for (int k = 0; k < np; k++) {
        if (word_of(request, old[k], strlen(old[k]))) { snprintf(neu[k], sizeof neu[k], "%s", old[k]); continue; }
        snprintf(neu[k], sizeof neu[k], "a%d", k);
        for (;;) {
            bool clash = used_anywhere(ptx, neu[k]) && strcmp(neu[k], old[k]);
            for (int j = 0; j < np && !clash; j++) clash = j != k && !strcmp(neu[j], neu[k]);
            for (int j = k + 1; j < np && !clash; j++) clash = !strcmp(old[j], neu[k]) && word_of(request, old[j], strlen(old[j]));
            if (!clash) break;
            size_t l = strlen(neu[k]);
            if (l + 1 >= sizeof neu[k]) break;
            neu[k][l] = '_';
            neu[k][l + 1] = 0;
        }
    }
    /* rewrite every name token equal to a renamed parameter */
    out->len = 0;
    tok_walk w = {ptx, 0};
    size_t at, len;
    while (next_name(&w, &at, &len, out)) {
        const char *rep = NULL;
        for (int k = 0; k < np && !rep && at != en_at; k++)
            if (strlen(old[k]) == len && !memcmp(ptx + at, old[k], len) && strcmp(old[k], neu[k])) rep = neu[k];
        if (rep) pg_buf_puts(out, rep);
        else pg_buf_putn(out, ptx + at, len);
    }
    return renamed;
}
