/* plan_defines.c — the "#define" plan style of the nvcc families (docs/LITERATE.md, "Plan styles").
 *
 * Hand-written CUDA names its block size or tile once (`#define NT 256`, `#define TILE 32`) and
 * writes `j += NT`, `blockIdx.x * NT`, `__shared__ float s[NT + 4]`; the synth's plans wrote the
 * number.  Round 13's translations (bench/results/2026-12-07-translation-h108-cpu.md) failed on
 * all 9 suite tasks whose reference.cu has such a constant: the PTX turn had never seen a plan
 * line whose number is a name, and wrote `j += cols` for `j += NT`.
 *
 * synth_plan_defines rewrites a plan so: the literal that is the launch's block.x (the tile of a
 * 2-D launch) becomes a macro where it stands for that size, and `#define NAME V` goes before
 * the kernel.  The macro expands to the very token it replaced, so the preprocessed plan is the
 * plan before the rewrite, token for token: nvcc makes the same instructions, only the plan
 * comments of the literate PTX (the plan's lines) carry the name.  Nothing here prints. */
#include "family_internal.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool pd_id(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

/* Does identifier w occur in t as a whole token (comments included)? */
static bool pd_has(const char *t, const char *w) {
    size_t m = strlen(w);
    for (const char *p = t; (p = strstr(p, w)) != NULL; p++)
        if ((p == t || !pd_id(p[-1])) && !pd_id(p[m])) return true;
    return false;
}

/* block[i] of the task's launch as a positive integer, 0 when absent or not a plain number */
static long pd_block(const char *task_json, int i) {
    json_error_t e;
    json_t *root = task_json ? json_loads(task_json, 0, &e) : NULL;
    json_t *b = root ? json_object_get(json_object_get(root, "launch"), "block") : NULL;
    json_t *v = json_is_array(b) ? json_array_get(b, (size_t)i) : NULL;
    long out = 0;
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        char *end = NULL;
        long x = s[0] >= '1' && s[0] <= '9' ? strtol(s, &end, 10) : 0;
        if (end && !*end && x > 0 && x <= 4096) out = x;
    } else if (json_is_integer(v) && json_integer_value(v) > 0 && json_integer_value(v) <= 4096) {
        out = (long)json_integer_value(v);
    }
    json_decref(root);
    return out;
}

/* Is [s, s+n) one literal number after trimming blanks and parentheses ("0", "(16)")? */
static bool pd_literal(const char *s, size_t n) {
    while (n && (*s == ' ' || *s == '(')) s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == ')')) n--;
    if (!n || !(s[0] >= '0' && s[0] <= '9')) return false;
    for (size_t i = 0; i < n; i++)
        if (!pd_id(s[i])) return false;
    return true;
}

/* The text before position k of line [b, e), blanks at its end skipped: does it end with w? */
static bool pd_before(const char *b, const char *k, const char *w) {
    while (k > b && (k[-1] == ' ' || k[-1] == '\t')) k--;
    size_t m = strlen(w);
    return (size_t)(k - b) >= m && !strncmp(k - m, w, m) && (k - m == b || !pd_id(k[-m - 1]) || !pd_id(w[0]));
}
static char pd_after(const char *k, const char *e) {
    while (k < e && (*k == ' ' || *k == '\t')) k++;
    return k < e ? *k : '\n';
}

/* Where a literal at [k, k+len) of line [b, e) stands for the size V (see the file comment):
 * what = 1 the literal is V, 2 it is V/32, 3 it is V + 1.  Returns `what` where the literal is
 * rewritten (`NAME`, `NAME / 32` after `lane <` and before `?`, `NAME + 1` as a __shared__
 * extent: the padded tile), else 0. */
static int pd_context(const char *b, const char *e, const char *k, size_t len, int what) {
    const char *t = b;
    while (t < e && (*t == ' ' || *t == '\t')) t++;
    char next = pd_after(k + len, e);
    if (what == 2) return pd_before(b, k, "lane <") && next == '?' ? 2 : 0;
    /* a __shared__ array's extent: inside its brackets, alone there for V + 1 */
    const char *sh = strstr(b, "__shared__");
    if (sh && sh < e && sh < k) {
        int depth = 0;
        for (const char *q = sh; q < k; q++) depth += *q == '[' ? 1 : *q == ']' ? -1 : 0;
        if (depth > 0 && (what == 1 || (pd_before(b, k, "[") && next == ']'))) return what;
    }
    if (what != 1) return 0;
    if (pd_before(b, k, "blockIdx.x *") || pd_before(b, k, "blockIdx.y *") || pd_before(b, k, "gridDim.x *")) return 1;
    bool for_line = !strncmp(t, "for", 3) && (t[3] == ' ' || t[3] == '(');
    if (!for_line) return 0;
    const char *o = strchr(t, '('), *s1 = o && o < e ? memchr(o, ';', (size_t)(e - o)) : NULL;
    const char *s2 = s1 ? memchr(s1 + 1, ';', (size_t)(e - s1 - 1)) : NULL;
    if (!s2) return 0;
    if (k > s2 && pd_before(b, k, "+=") && next == ')') return 1;   /* the step: `j += V)` */
    if (k > s1 && k < s2 && (pd_before(b, k, "<") || pd_before(b, k, "<=")) && next == ';') {
        /* the bound, unless the loop runs a constant number of times (a literal start: nvcc
         * unrolls it, synth_literate_prepare then writes no `#pragma unroll 1`; a name there
         * would change that) */
        const char *eq = memchr(o, '=', (size_t)(s1 - o));
        return eq && !pd_literal(eq + 1, (size_t)(s1 - eq - 1)) ? 1 : 0;
    }
    return 0;
}

int synth_plan_defines(uint64_t seed, const char *task_json, pg_buf *cu, char *name, size_t namen) {
    if (name && namen) name[0] = 0;
    if (!cu || !cu->data || !cu->len) return 0;
    long bx = pd_block(task_json, 0), by = pd_block(task_json, 1);
    if (bx < (by > 1 ? 8 : 64)) return 0;   /* a 1-D block of one warp: its 32 is the warp's */
    fam_rng r = {seed ^ 0x706c616e64656673ull};   /* "plandefs": no family draws from this stream */
    if (synth_fam_pick(&r, 5) >= 2) return 0;      /* two plans in five that have the forms */
    static const char *const BLOCK_NAMES[] = {"NT", "BLOCK", "THREADS", "BLOCK_SIZE", "NTHREADS", "BS", "TPB"};
    static const char *const TILE_NAMES[] = {"TILE", "TILE_DIM", "TS", "BDIM"};
    const char *nm = by > 1 ? FAM_PICK(&r, TILE_NAMES) : FAM_PICK(&r, BLOCK_NAMES);
    if (pd_has(cu->data, nm)) return 0;   /* the name is taken */
    char v[24], w[24], v1[24];
    snprintf(v, sizeof v, "%ld", bx);
    snprintf(w, sizeof w, "%ld", bx % 32 == 0 && bx / 32 >= 2 ? bx / 32 : 0);
    snprintf(v1, sizeof v1, "%ld", bx + 1);
    size_t vn = strlen(v), wn = strlen(w), v1n = strlen(v1);
    pg_buf o = {0};
    int body = 0, all = 0;
    bool placed = false;
    const char *p = cu->data, *end = cu->data + cu->len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        const char *t = p;
        while (t < e && (*t == ' ' || *t == '\t')) t++;
        bool pre = t < e && *t == '#', com = e - t >= 2 && t[0] == '/' && t[1] == '/', blank = t == e;
        if (!placed && !com && !blank && !(pre && !strncmp(t, "#include", 8))) {   /* before the first code line */
            pg_buf_printf(&o, "#define %s %s\n", nm, v);
            placed = true;
        }
        bool shared_line = false;
        for (const char *q = p; q + 10 <= e; q++)
            if (!strncmp(q, "__shared__", 10)) { shared_line = true; break; }
        const char *k = p;
        while (k < e) {
            if (pre) { pg_buf_putn(&o, k, (size_t)(e - k)); k = e; break; }
            if (k + 1 < e && k[0] == '/' && k[1] == '/') { pg_buf_putn(&o, k, (size_t)(e - k)); k = e; break; }
            if (*k == '"') {   /* a string (extern "C"): as it is */
                const char *z = memchr(k + 1, '"', (size_t)(e - k - 1));
                z = z ? z + 1 : e;
                pg_buf_putn(&o, k, (size_t)(z - k));
                k = z;
                continue;
            }
            if (pd_id(*k) || *k == '.') {
                const char *z = k;
                while (z < e && (pd_id(*z) || *z == '.')) z++;
                bool number = *k >= '0' && *k <= '9' && (k == p || (k[-1] != '.' && !pd_id(k[-1])));
                size_t len = (size_t)(z - k);
                int ctx = 0;
                if (number && len == vn && !strncmp(k, v, vn)) ctx = pd_context(p, e, k, len, 1);
                else if (number && strcmp(w, "0") && len == wn && !strncmp(k, w, wn)) ctx = pd_context(p, e, k, len, 2);
                else if (number && shared_line && len == v1n && !strncmp(k, v1, v1n)) ctx = pd_context(p, e, k, len, 3);
                if (ctx == 1) pg_buf_puts(&o, nm);
                else if (ctx == 2) pg_buf_printf(&o, "%s / 32", nm);
                else if (ctx == 3) pg_buf_printf(&o, "%s + 1", nm);
                else pg_buf_putn(&o, k, len);
                if (ctx) { all++; body += !shared_line; }
                k = z;
                continue;
            }
            pg_buf_putc(&o, *k++);
        }
        if (nl) pg_buf_putc(&o, '\n');
        p = nl ? nl + 1 : end;
    }
    if (!body || !placed) {   /* no statement would carry the name: the plan stays as it was */
        pg_buf_free(&o);
        return 0;
    }
    pg_buf_free(cu);
    *cu = o;
    if (name && namen) snprintf(name, namen, "%s", nm);
    return all;
}
