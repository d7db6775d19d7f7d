/* twin.c — CUDA C twins: reading the kernel declaration, nvcc, task inference
 * and the verdict's wording (see include/ptxgen/twin.h).
 *
 * The reader is a small C tokenizer, not a C++ parser: comments are blanked
 * (newlines kept, so lines stay right), and the kernel is found by the token
 * sequence  [extern "C"] ... __global__ [void] [__launch_bounds__(...)] NAME ( PARAMS ) { BODY }.
 * The inference reads bounds checks ("i < n", "row >= rows", "n > i") and
 * subscripts ("y[row * cols + col]") in the body; see infer_lengths. */
#include "ptxgen/twin.h"
#include "ptxgen/ptx.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *xstrdup(const char *s) {
    char *d = strdup(s ? s : "");
    if (!d) pg_oom();   /* out of memory is not a recoverable state here (as pg_arena) */
    return d;
}

static char *xstrndup(const char *s, size_t n) {
    char *d = strndup(s, n);
    if (!d) pg_oom();
    return d;
}

/* ---- tokens ---------------------------------------------------------------------- */
typedef enum { TK_IDENT, TK_NUM, TK_STR, TK_PUNCT } tk_kind;
typedef struct {
    tk_kind kind;
    const char *s;             /* into the blanked copy */
    int len, line;
} tk;
typedef PG_VEC(tk) tk_vec;

static bool tk_is(const tk *t, const char *s) { return (int)strlen(s) == t->len && !strncmp(t->s, s, (size_t)t->len); }

/* Comments become spaces (newlines kept). */
static char *blank_comments(const char *src) {
    char *b = xstrdup(src);
    for (char *p = b; *p;) {
        if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n') *p++ = ' ';
        } else if (p[0] == '/' && p[1] == '*') {
            *p++ = ' ';
            *p++ = ' ';
            while (*p && !(p[0] == '*' && p[1] == '/')) { if (*p != '\n') *p = ' '; p++; }
            if (*p) { *p++ = ' '; *p++ = ' '; }
        } else if (*p == '"' || *p == '\'') {
            char q = *p++;
            while (*p && *p != q && *p != '\n') p += (*p == '\\' && p[1]) ? 2 : 1;
            if (*p == q) p++;
        } else {
            p++;
        }
    }
    return b;
}

static void tokenize(const char *b, tk_vec *out) {
    static const char *ops[] = {"<<=", ">>=", "->", "::", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "++", "--",
                                "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", NULL};
    int line = 1;
    for (const char *p = b; *p;) {
        if (*p == '\n') { line++; p++; continue; }
        if (isspace((unsigned char)*p)) { p++; continue; }
        if (*p == '#') {   /* preprocessor line: skipped (with its continuations) */
            while (*p && *p != '\n') {
                if (*p == '\\' && p[1] == '\n') { line++; p += 2; continue; }
                p++;
            }
            continue;
        }
        tk t = {TK_PUNCT, p, 1, line};
        if (isalpha((unsigned char)*p) || *p == '_') {
            t.kind = TK_IDENT;
            while (isalnum((unsigned char)p[t.len]) || p[t.len] == '_') t.len++;
        } else if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
            t.kind = TK_NUM;
            while (isalnum((unsigned char)p[t.len]) || p[t.len] == '.' ||
                   ((p[t.len] == '+' || p[t.len] == '-') && (p[t.len - 1] == 'e' || p[t.len - 1] == 'E')))
                t.len++;
        } else if (*p == '"' || *p == '\'') {
            t.kind = TK_STR;
            char q = *p;
            while (p[t.len] && (p[t.len] != q || t.len == 0) && p[t.len] != '\n') t.len += (p[t.len] == '\\' && p[t.len + 1]) ? 2 : 1;
            if (p[t.len] == q) t.len++;
        } else {
            for (int k = 0; ops[k]; k++)
                if (!strncmp(p, ops[k], strlen(ops[k]))) { t.len = (int)strlen(ops[k]); break; }
        }
        pg_vec_push(*out, t);
        p += t.len;
    }
}

/* "#define NAME 32" lines (a number, optionally in parentheses, with integer suffixes) -> "NAME=32\n". */
static char *collect_defines(const char *b) {
    pg_buf d = {0};
    for (const char *p = b; p && *p;) {
        const char *q = p;
        while (*q == ' ' || *q == '\t') q++;
        if (*q == '#') {
            q++;
            while (*q == ' ' || *q == '\t') q++;
            if (!strncmp(q, "define", 6) && (q[6] == ' ' || q[6] == '\t')) {
                q += 6;
                while (*q == ' ' || *q == '\t') q++;
                const char *n0 = q;
                while (isalnum((unsigned char)*q) || *q == '_') q++;
                size_t nl = (size_t)(q - n0);
                while (*q == ' ' || *q == '\t' || *q == '(') q++;
                const char *v0 = q;
                while (isdigit((unsigned char)*q)) q++;
                size_t vl = (size_t)(q - v0);
                while (*q == 'u' || *q == 'U' || *q == 'l' || *q == 'L') q++;
                while (*q == ' ' || *q == '\t' || *q == ')') q++;
                if (nl && vl && (isalpha((unsigned char)*n0) || *n0 == '_') && (*q == '\n' || !*q))
                    pg_buf_printf(&d, "%.*s=%.*s\n", (int)nl, n0, (int)vl, v0);
            }
        }
        p = strchr(p, '\n');
        if (p) p++;
    }
    return d.data ? d.data : xstrdup("");
}

/* Identifiers that are numeric macros become numbers (pointing into defs). */
static void apply_defines(tk_vec *v, const char *defs) {
    for (int i = 0; defs && *defs && i < v->n; i++) {
        tk *t = &v->v[i];
        if (t->kind != TK_IDENT) continue;
        for (const char *p = defs; *p;) {
            const char *eq = strchr(p, '='), *nl = strchr(p, '\n');
            if (!eq || !nl) break;
            if ((int)(eq - p) == t->len && !strncmp(p, t->s, (size_t)t->len)) {
                t->kind = TK_NUM;
                t->s = eq + 1;
                t->len = (int)(nl - eq - 1);
                break;
            }
            p = nl + 1;
        }
    }
}

/* index of the token closing the bracket at i (same depth), or n */
static int match_close(const tk_vec *v, int i) {
    char open = v->v[i].s[0], close = open == '(' ? ')' : open == '[' ? ']' : '}';
    int depth = 0;
    for (int k = i; k < v->n; k++) {
        if (v->v[k].kind != TK_PUNCT || v->v[k].len != 1) continue;
        if (v->v[k].s[0] == open) depth++;
        else if (v->v[k].s[0] == close && --depth == 0) return k;
    }
    return v->n;
}

/* ---- C types ----------------------------------------------------------------------- */
static task_dtype ctype_dtype(const char *t) {
    static const struct { const char *c; task_dtype d; } map[] = {
        {"float", TASK_T_F32}, {"double", TASK_T_F64}, {"__half", TASK_T_F16}, {"half", TASK_T_F16},
        {"__nv_bfloat16", TASK_T_BF16}, {"nv_bfloat16", TASK_T_BF16},
        {"int", TASK_T_S32}, {"signed", TASK_T_S32}, {"signed int", TASK_T_S32}, {"int32_t", TASK_T_S32},
        {"unsigned", TASK_T_U32}, {"unsigned int", TASK_T_U32}, {"uint32_t", TASK_T_U32},
        {"long long", TASK_T_S64}, {"long long int", TASK_T_S64}, {"long", TASK_T_S64}, {"long int", TASK_T_S64},
        {"int64_t", TASK_T_S64}, {"ptrdiff_t", TASK_T_S64},
        {"unsigned long long", TASK_T_U64}, {"unsigned long long int", TASK_T_U64}, {"unsigned long", TASK_T_U64},
        {"uint64_t", TASK_T_U64}, {"size_t", TASK_T_U64},
        {"short", TASK_T_S16}, {"int16_t", TASK_T_S16}, {"unsigned short", TASK_T_U16}, {"uint16_t", TASK_T_U16},
        {"char", TASK_T_S8}, {"signed char", TASK_T_S8}, {"int8_t", TASK_T_S8},
        {"unsigned char", TASK_T_U8}, {"uint8_t", TASK_T_U8}, {"bool", TASK_T_U8},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(map[i].c, t)) return map[i].d;
    return TASK_T_NONE;
}

static bool dtype_is_int(task_dtype d) { return d != TASK_T_NONE && !task_dtype_is_float(d); }

/* ---- the kernel declaration ----------------------------------------------------------- */
void twin_kernel_free(twin_kernel *k) {
    for (int i = 0; i < k->nparams; i++) { free(k->params[i].name); free(k->params[i].ctype); }
    free(k->params);
    free(k->kernel);
    free(k->body);
    free(k->defines);
    memset(k, 0, sizeof *k);
}

static bool parse_param(const tk_vec *v, int a, int b, twin_param *p, char *why, size_t whyn) {
    memset(p, 0, sizeof *p);
    p->line = a < v->n ? v->v[a].line : 0;
    int stars = 0, name_at = -1;
    bool const_before_star = false;
    pg_buf words = {0}, ctype = {0};
    for (int k = a; k < b; k++) {
        const tk *t = &v->v[k];
        if (t->kind == TK_PUNCT && tk_is(t, "*")) { stars++; pg_buf_puts(&ctype, ctype.len ? " *" : "*"); continue; }
        if (t->kind == TK_PUNCT && (tk_is(t, "&") || tk_is(t, "<") || tk_is(t, "[") || tk_is(t, "::"))) {
            snprintf(why, whyn, "'%.*s' in a parameter: only scalars and pointers to scalars are supported", t->len, t->s);
            pg_buf_free(&words); pg_buf_free(&ctype);
            return false;
        }
        if (t->kind != TK_IDENT) continue;
        if (tk_is(t, "__restrict__") || tk_is(t, "__restrict") || tk_is(t, "restrict") || tk_is(t, "volatile")) continue;
        if (tk_is(t, "const")) {
            if (!stars) const_before_star = true;
            pg_buf_printf(&ctype, "%sconst", ctype.len ? " " : "");
            continue;
        }
        name_at = k;
    }
    if (name_at < 0 || stars > 1) {
        snprintf(why, whyn, stars > 1 ? "a pointer to a pointer is not supported" : "a parameter without a name");
        pg_buf_free(&words); pg_buf_free(&ctype);
        return false;
    }
    /* the type words: identifiers other than the name and the qualifiers */
    for (int k = a; k < b; k++) {
        const tk *t = &v->v[k];
        if (t->kind != TK_IDENT || k == name_at || tk_is(t, "const") || tk_is(t, "__restrict__") || tk_is(t, "__restrict") ||
            tk_is(t, "restrict") || tk_is(t, "volatile"))
            continue;
        pg_buf_printf(&words, "%s%.*s", words.len ? " " : "", t->len, t->s);
    }
    p->name = xstrndup(v->v[name_at].s, (size_t)v->v[name_at].len);
    p->is_pointer = stars == 1;
    p->is_const = p->is_pointer && const_before_star;
    p->dtype = words.len ? ctype_dtype(words.data) : TASK_T_NONE;
    if (!words.len) {
        snprintf(why, whyn, "parameter '%s' has no type", p->name);
        pg_buf_free(&words); pg_buf_free(&ctype);
        return false;
    }
    if (!p->is_pointer && p->dtype == TASK_T_NONE) {
        snprintf(why, whyn, "parameter '%s': by-value type '%s' is not a scalar ptxgen knows", p->name, words.data);
        pg_buf_free(&words); pg_buf_free(&ctype);
        return false;
    }
    /* normalized C type: "const float *" */
    pg_buf full = {0};
    if (const_before_star) pg_buf_puts(&full, "const ");
    pg_buf_puts(&full, words.data);
    if (p->is_pointer) pg_buf_puts(&full, " *");
    p->ctype = full.data;
    pg_buf_free(&words); pg_buf_free(&ctype);
    return true;
}

pg_status twin_parse(const char *src, const char *file, const char *kernel, twin_kernel *out, pg_diag_sink *diag) {
    memset(out, 0, sizeof *out);
    const char *fname = file ? file : "<twin>";
    char *b = blank_comments(src ? src : "");
    tk_vec v = {0};
    tokenize(b, &v);
    pg_status st = PG_ERR_PARSE;
    int found = 0, first_line = 0, nonextern_line = 0;
    char nonextern_name[128] = "";
    /* extern "C" { ... } blocks: the depth of '{' at which each opened */
    int depth = 0, cblock[64], ncblock = 0;
    for (int i = 0; i < v.n; i++) {
        const tk *t = &v.v[i];
        if (t->kind == TK_PUNCT && tk_is(t, "{")) {
            bool ext = i >= 2 && tk_is(&v.v[i - 2], "extern") && tk_is(&v.v[i - 1], "\"C\"");
            depth++;
            if (ext && ncblock < 64) cblock[ncblock++] = depth;
            continue;
        }
        if (t->kind == TK_PUNCT && tk_is(t, "}")) {
            if (ncblock && cblock[ncblock - 1] == depth) ncblock--;
            depth--;
            continue;
        }
        if (!(t->kind == TK_IDENT && tk_is(t, "__global__"))) continue;
        /* extern "C" in this declaration (back to the previous ; { or }) or an enclosing block */
        bool ext = ncblock > 0;
        for (int k = i - 1; k >= 0 && !ext; k--) {
            if (v.v[k].kind == TK_PUNCT && (tk_is(&v.v[k], ";") || tk_is(&v.v[k], "{") || tk_is(&v.v[k], "}"))) break;
            if (tk_is(&v.v[k], "extern") && k + 1 < v.n && tk_is(&v.v[k + 1], "\"C\"")) ext = true;
        }
        int k = i + 1, lb = 0;
        while (k < v.n && v.v[k].kind == TK_IDENT && !(k + 1 < v.n && tk_is(&v.v[k + 1], "("))) k++;   /* void, static, ... */
        if (k < v.n && tk_is(&v.v[k], "__launch_bounds__") && k + 1 < v.n && tk_is(&v.v[k + 1], "(")) {
            int c = match_close(&v, k + 1);
            if (k + 2 < v.n && v.v[k + 2].kind == TK_NUM) lb = atoi(v.v[k + 2].s);
            k = c + 1;
            while (k < v.n && v.v[k].kind == TK_IDENT && !(k + 1 < v.n && tk_is(&v.v[k + 1], "("))) k++;
        }
        if (k + 1 >= v.n || v.v[k].kind != TK_IDENT || !tk_is(&v.v[k + 1], "(")) continue;
        char name[128];
        snprintf(name, sizeof name, "%.*s", v.v[k].len < 127 ? v.v[k].len : 127, v.v[k].s);
        if (kernel && strcmp(kernel, name)) continue;
        int close = match_close(&v, k + 1);
        if (close + 1 >= v.n || !tk_is(&v.v[close + 1], "{")) continue;   /* a declaration: the definition follows */
        if (!ext) {
            if (!nonextern_line) { nonextern_line = t->line; snprintf(nonextern_name, sizeof nonextern_name, "%s", name); }
            continue;
        }
        if (found++) {
            pg_diag_emit(diag, PG_E_TWIN, fname, t->line, 1,
                         "a second extern \"C\" __global__ kernel '%s' (the first is '%s' on line %d): name the one to use",
                         name, out->kernel, first_line);
            goto done;
        }
        first_line = t->line;
        out->kernel = xstrdup(name);
        out->line = t->line;
        out->launch_bounds = lb;
        int bend = match_close(&v, close + 1);
        if (bend >= v.n) { pg_diag_emit(diag, PG_E_TWIN, fname, t->line, 1, "the body of '%s' is not closed", name); goto done; }
        out->body = xstrndup(v.v[close + 1].s + 1, (size_t)(v.v[bend].s - v.v[close + 1].s - 1));
        /* parameters: split at top-level commas */
        int a = k + 2;
        if (a == close || (close == a + 1 && tk_is(&v.v[a], "void"))) a = close;
        int pd = 0;
        for (int q = a; q <= close && a < close; q++) {
            const tk *x = &v.v[q];
            if (x->kind == TK_PUNCT && (tk_is(x, "(") || tk_is(x, "["))) pd++;
            if (x->kind == TK_PUNCT && (tk_is(x, ")") || tk_is(x, "]")) && q < close) pd--;
            if (q == close || (pd == 0 && tk_is(x, ","))) {
                twin_param p;
                char why[200];
                if (!parse_param(&v, a, q, &p, why, sizeof why)) {
                    pg_diag_emit(diag, PG_E_TWIN, fname, v.v[a < v.n ? a : 0].line, 1, "kernel '%s': %s", name, why);
                    goto done;
                }
                out->params = pg_xrealloc(out->params, sizeof *out->params * (size_t)(out->nparams + 1));
                out->params[out->nparams++] = p;
                a = q + 1;
            }
        }
        i = bend;
    }
    if (!found) {
        if (nonextern_line)
            pg_diag_emit(diag, PG_E_TWIN, fname, nonextern_line, 1,
                         "kernel '%s' is not extern \"C\": nvcc would mangle its name; write extern \"C\" __global__",
                         nonextern_name);
        else if (kernel)
            pg_diag_emit(diag, PG_E_TWIN, fname, 0, 0, "no extern \"C\" __global__ kernel named '%s'", kernel);
        else
            pg_diag_emit(diag, PG_E_TWIN, fname, 0, 0, "no extern \"C\" __global__ kernel with a body");
        goto done;
    }
    out->dynamic_smem = strstr(b, "extern __shared__") != NULL || strstr(b, "extern  __shared__") != NULL;
    out->defines = collect_defines(b);
    st = PG_OK;
done:
    if (st != PG_OK) twin_kernel_free(out);
    pg_vec_free(v);
    free(b);
    return st;
}

/* [a, b) is a fence line: blanks, ```, (with a tag when open) [A-Za-z0-9_+#.-]*, blanks */
static bool fence_line(const char *a, const char *b, bool open) {
    while (a < b && (*a == ' ' || *a == '\t')) a++;
    if (b - a < 3 || strncmp(a, "```", 3)) return false;
    a += 3;
    while (open && a < b && (isalnum((unsigned char)*a) || (*a && strchr("_+#.-", *a)))) a++;
    while (a < b && (*a == ' ' || *a == '\t')) a++;
    return a == b;
}

void twin_strip_fence(const char *text, pg_buf *out) {
    const char *end = text + strlen(text);
    for (const char *l = text; l < end;) {
        const char *nl = memchr(l, '\n', (size_t)(end - l)), *le = nl ? nl : end;
        if (fence_line(l, le, true)) {
            const char *body = nl ? nl + 1 : end, *stop = end;
            for (const char *m = body; m < end;) {
                const char *mn = memchr(m, '\n', (size_t)(end - m)), *me = mn ? mn : end;
                if (fence_line(m, me, false)) { stop = m; break; }
                m = mn ? mn + 1 : end;
            }
            while (stop > body && stop[-1] == '\n') stop--;
            pg_buf_putn(out, body, (size_t)(stop - body));
            pg_buf_puts(out, "\n");
            return;
        }
        l = nl ? nl + 1 : end;
    }
    pg_buf_putn(out, text, (size_t)(end - text));
}

bool twin_ptx_signature(const twin_kernel *k, pg_buf *out) {
    for (int i = 0; i < k->nparams; i++)
        if (!k->params[i].is_pointer && k->params[i].dtype == TASK_T_NONE) return false;
    pg_buf_printf(out, ".visible .entry %s(", k->kernel);
    for (int i = 0; i < k->nparams; i++) {
        const twin_param *p = &k->params[i];
        /* bool is a byte in C: .u8 would not take an 8-bit load the way nvcc writes it; keep the width */
        pg_buf_printf(out, "%s.param .%s %s", i ? ",\n\t" : "\n\t", p->is_pointer ? "u64" : task_dtype_name(p->dtype), p->name);
    }
    pg_buf_puts(out, k->nparams ? "\n)" : ")");
    return true;
}

/* ---- nvcc --------------------------------------------------------------------------- */
void twin_build_free(twin_build *b) {
    free(b->ptx);
    free(b->log);
    memset(b, 0, sizeof *b);
}

/* Run argv, output (stdout+stderr) appended to log; exit code, or -1 when it could not run. */
static int run_tool(char *const argv[], pg_buf *log, double limit_s) {
    int pfd[2];
    if (pipe(pfd) != 0) return -1;
    pid_t pid = fork();
    if (pid < 0) { close(pfd[0]); close(pfd[1]); return -1; }
    if (pid == 0) {
        dup2(pfd[1], 1);
        dup2(pfd[1], 2);
        close(pfd[0]);
        close(pfd[1]);
        execv(argv[0], argv);
        _exit(127);
    }
    close(pfd[1]);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    bool killed = false;
    char chunk[4096];
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double left = limit_s - ((double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
        if (left <= 0) { killed = true; break; }
        struct pollfd pf = {pfd[0], POLLIN, 0};
        int pr = poll(&pf, 1, (int)(left * 1000) + 1);
        if (pr < 0 && errno == EINTR) continue;
        if (pr == 0) continue;
        ssize_t k = read(pfd[0], chunk, sizeof chunk);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        pg_buf_putn(log, chunk, (size_t)k);
    }
    close(pfd[0]);
    if (killed) {
        kill(pid, SIGKILL);
        pg_buf_printf(log, "nvcc did not finish within %g s and was stopped\n", limit_s);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (killed) return 124;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

pg_status twin_compile(const char *cu_path, const char *arch, twin_build *out, pg_diag_sink *diag) {
    memset(out, 0, sizeof *out);
    pg_buf log = {0};
    if (!ptx_cuda_tool_find("nvcc", "NVCC", out->nvcc, sizeof out->nvcc)) {
        out->nvcc[0] = 0;
        out->status = TWIN_BUILD_NO_NVCC;
        out->log = xstrdup("");
        return PG_OK;
    }
    char dir[600], ptxp[700], cubinp[700], archarg[64];
    pg_tmp_path(dir, sizeof dir, "ptxgen-twin-XXXXXX");
    if (!mkdtemp(dir)) {
        pg_diag_emit(diag, PG_E_IO, dir, 0, 0, "cannot create a temp dir: %s", strerror(errno));
        return PG_ERR_IO;
    }
    snprintf(ptxp, sizeof ptxp, "%s/twin.ptx", dir);
    snprintf(cubinp, sizeof cubinp, "%s/twin.cubin", dir);
    snprintf(archarg, sizeof archarg, "-arch=%s", arch && *arch ? arch : "sm_80");
    double limit = ptx_ptxas_timeout_seconds();
    char *a1[] = {out->nvcc, "-ptx", "-O3", archarg, "-o", ptxp, (char *)cu_path, NULL};
    int rc = run_tool(a1, &log, limit);
    if (rc == 0) {
        char *a2[] = {out->nvcc, "-cubin", "-O3", archarg, "-o", cubinp, (char *)cu_path, NULL};
        rc = run_tool(a2, &log, limit);
    }
    if (rc == 0) {
        size_t n = 0;
        pg_diag_sink q = {0};
        if (pg_read_file(ptxp, 64 << 20, &out->ptx, &n, &q) != PG_OK) rc = -1;
    }
    if (rc == -1) pg_buf_printf(&log, "could not run %s\n", out->nvcc);
    out->status = rc == 0 ? TWIN_BUILD_OK : TWIN_BUILD_FAILED;
    out->log = log.data ? log.data : xstrdup("");
    unlink(ptxp);
    unlink(cubinp);
    rmdir(dir);
    return PG_OK;
}

/* ---- task inference ------------------------------------------------------------------- */
enum { MAXV = 256 };
typedef struct {
    char name[64];
    char bound[160];           /* product of size parameters ("rows*cols"), "" when unbounded */
    int deps[16]; int ndeps;   /* variables its assignments read */
    bool bidx_x, bidx_y, bdim_x, bdim_y, tidx;   /* its assignments read blockIdx.x ... threadIdx */
    long mul_x, mul_y;         /* blockIdx.x * N (a literal, or a numeric macro): N */
    long lbound;               /* bounded by a literal ("k < 8"): 8; 0 when not */
    int alias;                 /* a pointer into parameter `alias` (p + offset, &p[offset]); -1 when not */
    int off_a, off_b;          /* the offset's tokens */
} var_info;

typedef struct {
    const twin_kernel *k;
    tk_vec t;
    var_info v[MAXV]; int nv;
} body_ctx;

static bool is_size_param(const twin_kernel *k, const tk *t) {
    for (int i = 0; i < k->nparams; i++)
        if (!k->params[i].is_pointer && dtype_is_int(k->params[i].dtype) && tk_is(t, k->params[i].name)) return true;
    return false;
}

static bool is_keyword(const tk *t) {
    static const char *kw[] = {"int", "unsigned", "float", "double", "const", "long", "short", "char", "bool", "auto",
                               "size_t", "if", "for", "while", "return", "else", "__shared__", "extern", "blockIdx",
                               "blockDim", "threadIdx", "gridDim", "int64_t", "uint32_t", "int32_t",
                               "uint64_t", "__syncthreads", "signed", "void", NULL};
    for (int i = 0; kw[i]; i++)
        if (tk_is(t, kw[i])) return true;
    return false;
}

static int var_find(body_ctx *c, const tk *t, bool add) {
    for (int i = 0; i < c->nv; i++)
        if (tk_is(t, c->v[i].name)) return i;
    if (!add || c->nv >= MAXV || t->len >= 64) return -1;
    memset(&c->v[c->nv], 0, sizeof c->v[c->nv]);
    c->v[c->nv].alias = -1;
    snprintf(c->v[c->nv].name, sizeof c->v[c->nv].name, "%.*s", t->len, t->s);
    return c->nv++;
}

static bool delim(const tk *t) {
    return t->kind == TK_PUNCT && (tk_is(t, ";") || tk_is(t, "&&") || tk_is(t, "||") || tk_is(t, ",") || tk_is(t, "?") ||
                                   tk_is(t, ":") || tk_is(t, "{") || tk_is(t, "}"));
}

/* Tokens [a,b) as a size bound: only size parameters, numbers and + - * ( ); the
 * product of the size parameters in order ("rows*cols"), or false. */
static bool size_bound(body_ctx *c, int a, int b, char *out, size_t n) {
    out[0] = 0;
    int nsz = 0;
    for (int i = a; i < b; i++) {
        const tk *t = &c->t.v[i];
        if (t->kind == TK_NUM) continue;
        if (t->kind == TK_PUNCT && (tk_is(t, "+") || tk_is(t, "-") || tk_is(t, "*") || tk_is(t, "(") || tk_is(t, ")"))) continue;
        if (t->kind == TK_IDENT && (tk_is(t, "int") || tk_is(t, "unsigned") || tk_is(t, "size_t") || tk_is(t, "long") ||
                                    tk_is(t, "int64_t") || tk_is(t, "uint32_t") || tk_is(t, "uint64_t") || tk_is(t, "int32_t")))
            continue;   /* a cast: (int)n */
        if (t->kind == TK_IDENT && is_size_param(c->k, t)) {
            size_t l = strlen(out);
            snprintf(out + l, n - l, "%s%.*s", nsz++ ? "*" : "", t->len, t->s);
            continue;
        }
        return false;
    }
    return nsz > 0;
}

static void scan_body(body_ctx *c) {
    tk_vec *T = &c->t;
    for (int i = 0; i < T->n; i++) {
        const tk *t = &T->v[i];
        /* assignments: NAME = expr (also in a for's init) */
        if (t->kind == TK_IDENT && i + 1 < T->n && tk_is(&T->v[i + 1], "=") && !is_keyword(t) && !is_size_param(c->k, t) &&
            !(i > 0 && (tk_is(&T->v[i - 1], ".") || tk_is(&T->v[i - 1], "->")))) {
            int vi = var_find(c, t, true);
            int depth = 0;
            /* a pointer into a parameter: NAME = p + off, NAME = &p[off], NAME = p */
            if (vi >= 0 && i + 2 < T->n) {
                int a = i + 2;
                bool amp = tk_is(&T->v[a], "&");
                if (amp) a++;
                for (int q = 0; a < T->n && q < c->k->nparams; q++) {
                    if (!c->k->params[q].is_pointer || !tk_is(&T->v[a], c->k->params[q].name)) continue;
                    const tk *nx = a + 1 < T->n ? &T->v[a + 1] : NULL;
                    if (nx && ((!amp && tk_is(nx, "+")) || (amp && tk_is(nx, "[")))) {
                        int e = a + 2, d2 = 0;
                        for (; e < T->n; e++) {
                            const tk *x = &T->v[e];
                            if (tk_is(x, "(") || tk_is(x, "[")) d2++;
                            if ((tk_is(x, ")") || tk_is(x, "]")) && --d2 < 0) break;
                            if (d2 == 0 && (tk_is(x, ";") || tk_is(x, ","))) break;
                        }
                        c->v[vi].alias = q;
                        c->v[vi].off_a = a + 2;
                        c->v[vi].off_b = e;
                    } else if (nx && !amp && (tk_is(nx, ";") || tk_is(nx, ","))) {
                        c->v[vi].alias = q;
                        c->v[vi].off_a = c->v[vi].off_b = a + 1;
                    }
                }
            }
            for (int k = i + 2; k < T->n && vi >= 0; k++) {
                const tk *x = &T->v[k];
                if (x->kind == TK_PUNCT && (tk_is(x, "(") || tk_is(x, "["))) depth++;
                if (x->kind == TK_PUNCT && (tk_is(x, ")") || tk_is(x, "]")) && --depth < 0) break;
                if (depth == 0 && x->kind == TK_PUNCT && (tk_is(x, ";") || tk_is(x, ","))) break;
                if (x->kind != TK_IDENT) continue;
                bool dotx = k + 2 < T->n && tk_is(&T->v[k + 1], ".") && tk_is(&T->v[k + 2], "x");
                bool doty = k + 2 < T->n && tk_is(&T->v[k + 1], ".") && tk_is(&T->v[k + 2], "y");
                if (tk_is(x, "blockIdx")) {
                    c->v[vi].bidx_x |= dotx;
                    c->v[vi].bidx_y |= doty;
                    long mul = 0;   /* blockIdx.x * N or N * blockIdx.x */
                    if (k + 4 < T->n && tk_is(&T->v[k + 3], "*") && T->v[k + 4].kind == TK_NUM) mul = strtol(T->v[k + 4].s, NULL, 10);
                    else if (k >= 2 && tk_is(&T->v[k - 1], "*") && T->v[k - 2].kind == TK_NUM) mul = strtol(T->v[k - 2].s, NULL, 10);
                    if (mul > 1 && dotx) c->v[vi].mul_x = mul;
                    if (mul > 1 && doty) c->v[vi].mul_y = mul;
                    continue;
                }
                if (tk_is(x, "blockDim")) { c->v[vi].bdim_x |= dotx; c->v[vi].bdim_y |= doty; continue; }
                if (tk_is(x, "threadIdx")) { c->v[vi].tidx = true; continue; }
                if (is_keyword(x) || is_size_param(c->k, x) || (k > 0 && tk_is(&T->v[k - 1], "."))) continue;
                int d = var_find(c, x, true);
                if (d >= 0 && d != vi && c->v[vi].ndeps < 16) {
                    bool have = false;
                    for (int q = 0; q < c->v[vi].ndeps; q++) have |= c->v[vi].deps[q] == d;
                    if (!have) c->v[vi].deps[c->v[vi].ndeps++] = d;
                }
            }
        }
        /* comparisons: VAR op SIZE-EXPR or SIZE-EXPR op VAR */
        if (t->kind == TK_PUNCT && (tk_is(t, "<") || tk_is(t, "<=") || tk_is(t, ">") || tk_is(t, ">="))) {
            /* right side: up to a delimiter or an unmatched ')' */
            int e = i + 1, depth = 0;
            for (; e < T->n; e++) {
                const tk *x = &T->v[e];
                if (tk_is(x, "(")) depth++;
                if (tk_is(x, ")") && --depth < 0) break;
                if (depth == 0 && delim(x)) break;
            }
            int s = i - 1;
            depth = 0;
            for (; s >= 0; s--) {
                const tk *x = &T->v[s];
                if (tk_is(x, ")")) depth++;
                if (tk_is(x, "(") && --depth < 0) break;
                if (depth == 0 && (delim(x) || tk_is(x, "return") || tk_is(x, "if"))) break;
            }
            s++;
            char b[160];
            /* "base + k < n": the bound is the first variable's (an offset from it stays below it) */
            bool compound = i - s > 1 && T->v[s].kind == TK_IDENT;
            for (int q = s + 1; q < i && compound; q++)
                compound = tk_is(&T->v[q], "+") || tk_is(&T->v[q], "-") || T->v[q].kind == TK_NUM || T->v[q].kind == TK_IDENT;
            if (i - s == 1 && e - i == 2 && T->v[s].kind == TK_IDENT && !is_size_param(c->k, &T->v[s]) &&
                !is_keyword(&T->v[s]) && T->v[i + 1].kind == TK_NUM && (tk_is(t, "<") || tk_is(t, "<="))) {
                int vi = var_find(c, &T->v[s], true);   /* "k < 8": a literal bound (small fixed arrays) */
                long lb = strtol(T->v[i + 1].s, NULL, 10) + (tk_is(t, "<=") ? 1 : 0);
                if (vi >= 0 && !c->v[vi].lbound && lb > 0 && lb <= 1 << 20) c->v[vi].lbound = lb;
            } else if ((i - s == 1 || compound) && T->v[s].kind == TK_IDENT && !is_size_param(c->k, &T->v[s]) && !is_keyword(&T->v[s]) &&
                size_bound(c, i + 1, e, b, sizeof b)) {
                int vi = var_find(c, &T->v[s], true);
                if (vi >= 0 && !c->v[vi].bound[0]) snprintf(c->v[vi].bound, sizeof c->v[vi].bound, "%s", b);
            } else if (e - i == 2 && T->v[i + 1].kind == TK_IDENT && !is_size_param(c->k, &T->v[i + 1]) &&
                       !is_keyword(&T->v[i + 1]) && size_bound(c, s, i, b, sizeof b)) {
                int vi = var_find(c, &T->v[i + 1], true);
                if (vi >= 0 && !c->v[vi].bound[0]) snprintf(c->v[vi].bound, sizeof c->v[vi].bound, "%s", b);
            }
        }
    }
}

/* The bounded variables reached from tokens [a,b) through assignments. */
typedef struct { int v[16]; int n; bool blockidx; long lit; } reach;   /* lit: product of literal bounds reached */
static void reach_var(body_ctx *c, int vi, reach *r, int depth) {
    if (vi < 0 || depth > 8) return;
    if (c->v[vi].bidx_x && !c->v[vi].bdim_x && !c->v[vi].tidx) r->blockidx = true;
    if (c->v[vi].bound[0]) {
        for (int q = 0; q < r->n; q++)
            if (r->v[q] == vi) return;
        if (r->n < 16) r->v[r->n++] = vi;
        return;
    }
    if (c->v[vi].lbound > 0) {
        r->lit = (r->lit ? r->lit : 1) * c->v[vi].lbound;
        if (r->lit > 1 << 24) r->lit = 1 << 24;
        return;
    }
    for (int q = 0; q < c->v[vi].ndeps; q++) reach_var(c, c->v[vi].deps[q], r, depth + 1);
}
static void reach_tokens(body_ctx *c, int a, int b, reach *r) {
    for (int i = a; i < b; i++) {
        const tk *t = &c->t.v[i];
        if (t->kind != TK_IDENT || is_size_param(c->k, t)) continue;
        if (i > 0 && (tk_is(&c->t.v[i - 1], ".") || tk_is(&c->t.v[i - 1], "->"))) continue;   /* a member */
        if (tk_is(t, "blockIdx") && i + 2 < b && tk_is(&c->t.v[i + 2], "x")) { r->blockidx = true; continue; }
        if (is_keyword(t)) continue;
        reach_var(c, var_find(c, t, false), r, 0);
    }
}

static int count_factors(const char *e) {
    int n = *e ? 1 : 0;
    for (; *e; e++) n += *e == '*';
    return n;
}

/* The grid rule for one dimension (dim 'x' or 'y'): a variable assigned from
 * blockIdx.<dim> with a bound: cdiv(bound, block) when it also reads blockDim
 * or threadIdx (one thread per item), the bound itself when not (one block
 * per item); "" when none is found. */
typedef struct { bool bidx, per_thread; long mul; } grid_src;
static void grid_src_of(body_ctx *c, int vi, char dim, grid_src *g, int depth) {
    if (vi < 0 || depth > 6) return;
    var_info *v = &c->v[vi];
    if (dim == 'x' ? v->bidx_x : v->bidx_y) {
        g->bidx = true;
        long m = dim == 'x' ? v->mul_x : v->mul_y;
        if (m > 1 && !g->mul) g->mul = m;
    }
    if ((dim == 'x' ? v->bdim_x : v->bdim_y) || v->tidx) g->per_thread = true;
    for (int q = 0; q < v->ndeps; q++) grid_src_of(c, v->deps[q], dim, g, depth + 1);
}

/* The grid rule for one dimension (dim 'x' or 'y'): the first variable with a bound
 * that is computed from blockIdx.<dim> (directly or through other variables):
 * cdiv(bound, N) for blockIdx * N, cdiv(bound, block) when it also reads blockDim or
 * threadIdx (one thread per item), the bound itself when not (one block per item);
 * "" when none is found. */
static void grid_rule(body_ctx *c, char dim, int block, char *out, size_t n) {
    out[0] = 0;
    for (int i = 0; i < c->nv; i++) {
        var_info *v = &c->v[i];
        if (!v->bound[0]) continue;
        grid_src g = {false, false, 0};
        grid_src_of(c, i, dim, &g, 0);
        if (!g.bidx) continue;
        if (g.mul > 1) snprintf(out, n, "cdiv(%s,%ld)", v->bound, g.mul);
        else if (g.per_thread) snprintf(out, n, "cdiv(%s,%d)", v->bound, block);
        else snprintf(out, n, "%s", v->bound);
        return;
    }
}

static void json_add_note(json_t *notes, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void json_add_note(json_t *notes, const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    json_array_append_new(notes, json_string(buf));
}

static bool plain_file_name(const char *s) {
    if (!s || !*s || *s == '.' || strlen(s) > 200) return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' && *s != '.') return false;
    return true;
}

pg_status twin_infer_task(const twin_infer_in *in, pg_buf *out, pg_diag_sink *diag) {
    const twin_kernel *k = in->twin;
    if (!plain_file_name(in->twin_file)) {
        pg_diag_emit(diag, PG_E_TWIN, in->twin_file, 0, 0,
                     "the twin's file name must be one plain file name beside the task.json (letters, digits, '_', '-', '.')");
        return PG_ERR_USAGE;
    }
    if (k->nparams > TASK_PTX_MAX_PARAMS) {
        pg_diag_emit(diag, PG_E_TWIN, in->twin_file, k->line, 1, "'%s' has %d parameters (at most %d)", k->kernel, k->nparams,
                     TASK_PTX_MAX_PARAMS);
        return PG_ERR_USAGE;
    }
    /* the PTX side: roles and element types from its loads and stores */
    task_ptx_param pp[TASK_PTX_MAX_PARAMS];
    bool have_ptx = false;
    ptx_module *m = NULL;
    if (in->ptx) {
        pg_diag_sink q = {0};
        if (ptx_parse(in->ptx, strlen(in->ptx), "twin-ptx", &m, &q) == PG_OK) {
            for (int f = 0; f < m->nfuncs && !have_ptx; f++)
                if (m->funcs[f].is_entry && !strcmp(m->funcs[f].name, k->kernel) && m->funcs[f].nparams == k->nparams) {
                    task_ptx_params(&m->funcs[f], pp);
                    have_ptx = true;
                }
        }
    }
    body_ctx c;
    memset(&c, 0, sizeof c);
    c.k = k;
    char *body = blank_comments(k->body ? k->body : "");
    tokenize(body, &c.t);
    apply_defines(&c.t, k->defines);
    scan_body(&c);
    bool two_d = strstr(body, "blockIdx.y") || strstr(body, "threadIdx.y");

    /* the block: __launch_bounds__, the PTX's .reqntid/.maxntid, else 16x16 (2-D) or 256 */
    int bx = 0, by = 1;
    json_t *notes = json_array();
    int pblock = 0;
    if (m)
        for (int f = 0; f < m->nfuncs; f++)
            if (m->funcs[f].is_entry && !strcmp(m->funcs[f].name, k->kernel)) pblock = task_ptx_block(&m->funcs[f], 0);
    if (two_d) {
        bx = by = 16;
        json_add_note(notes, "launch: 2-D (the twin reads blockIdx.y/threadIdx.y), block 16x16");
    } else if (k->launch_bounds > 0 && k->launch_bounds <= 1024) {
        bx = k->launch_bounds;
        json_add_note(notes, "launch: block %d from __launch_bounds__", bx);
    } else if (pblock > 0) {
        bx = pblock;
        json_add_note(notes, "launch: block %d from the PTX's .reqntid/.maxntid", bx);
    } else {
        bx = in->block_hint > 0 && in->block_hint <= 1024 ? in->block_hint : 256;
        json_add_note(notes, "launch: block %d (nothing in the twin fixes it)", bx);
    }
    /* size variables: the integer scalar parameters */
    const char *sizev[EXPR_MAX_VARS];
    int nsize = 0;
    for (int i = 0; i < k->nparams; i++)
        if (!k->params[i].is_pointer && dtype_is_int(k->params[i].dtype) && nsize < EXPR_MAX_VARS) sizev[nsize++] = k->params[i].name;
    const char *first_size = nsize ? sizev[0] : "n";
    if (!nsize) json_add_note(notes, "the twin has no integer size parameter: a size variable 'n' was made up; check the lengths");

    char gx[200], gy[200];
    grid_rule(&c, 'x', bx, gx, sizeof gx);
    if (!gx[0]) {
        snprintf(gx, sizeof gx, "cdiv(%s,%d)", first_size, bx);
        json_add_note(notes, "launch: grid x %s (a guess: no index variable from blockIdx.x with a bounds check was found)", gx);
    }
    grid_rule(&c, 'y', by, gy, sizeof gy);
    if (!two_d) snprintf(gy, sizeof gy, "1");
    else if (!gy[0]) {
        snprintf(gy, sizeof gy, "cdiv(%s,%d)", nsize > 1 ? sizev[1] : first_size, by);
        json_add_note(notes, "launch: grid y %s (a guess)", gy);
    }

    /* element counts */
    char lens[TASK_PTX_MAX_PARAMS][200];
    for (int i = 0; i < k->nparams; i++) {
        lens[i][0] = 0;
        const twin_param *p = &k->params[i];
        if (!p->is_pointer) continue;
        char best[200] = "", lits[32] = "";
        long litmax = 0;   /* subscripts bounded only by literals (w[3 * i + j], i, j < 3): the largest product */
        bool bare = false, blockidx = false, subscripted = false;
        for (int t = 0; t < c.t.n; t++) {
            if (t > 0 && tk_is(&c.t.v[t - 1], ".")) continue;
            /* p itself, or a local pointer into p (xr = x + row * cols; xr[j]) */
            int off_a = 0, off_b = 0;
            if (!tk_is(&c.t.v[t], p->name)) {
                int vi = c.t.v[t].kind == TK_IDENT ? var_find(&c, &c.t.v[t], false) : -1;
                if (vi < 0 || c.v[vi].alias != i) continue;
                if (t + 1 < c.t.n && tk_is(&c.t.v[t + 1], "=")) continue;   /* its definition */
                off_a = c.v[vi].off_a;
                off_b = c.v[vi].off_b;
            }
            int sa = -1, sb = -1, vec = 1;
            if (t + 1 < c.t.n && tk_is(&c.t.v[t + 1], "[")) {
                sa = t + 2;
                sb = match_close(&c.t, t + 1);
            } else if (t + 2 < c.t.n && tk_is(&c.t.v[t + 1], ")") && tk_is(&c.t.v[t + 2], "[") && t >= 3 &&
                       tk_is(&c.t.v[t - 1], "(") && tk_is(&c.t.v[t - 2], ">")) {
                /* reinterpret_cast<const float4*>(p)[k]: k counts float4s */
                for (int q = t - 3; q >= 0 && q > t - 8; q--)
                    if (c.t.v[q].kind == TK_IDENT && c.t.v[q].len >= 2 && isdigit((unsigned char)c.t.v[q].s[c.t.v[q].len - 1])) {
                        vec = c.t.v[q].s[c.t.v[q].len - 1] - '0';
                        break;
                    }
                if (vec < 1 || vec > 4) vec = 1;
                sa = t + 3;
                sb = match_close(&c.t, t + 2);
            } else if (t + 1 < c.t.n && tk_is(&c.t.v[t + 1], "+") && !(t > 0 && tk_is(&c.t.v[t - 1], "="))) {
                /* p + e0 (an address: reinterpret_cast<const float4*>(x + e0)) */
                int e = t + 2, d2 = 0;
                for (; e < c.t.n; e++) {
                    const tk *x = &c.t.v[e];
                    if (tk_is(x, "(") || tk_is(x, "[")) d2++;
                    if ((tk_is(x, ")") || tk_is(x, "]")) && --d2 < 0) break;
                    if (d2 == 0 && (tk_is(x, ";") || tk_is(x, ","))) break;
                }
                sa = t + 2;
                sb = e;
            }
            if (sa >= 0) {
                subscripted = true;
                reach r = {{0}, 0, false, 0};
                reach_tokens(&c, off_a, off_b, &r);
                reach_tokens(&c, sa, sb, &r);
                blockidx |= r.blockidx;
                char prod[200] = "";
                if (vec > 1 && r.n) snprintf(prod, sizeof prod, "%d", vec);
                for (int q = 0; q < r.n; q++) {
                    size_t l = strlen(prod);
                    snprintf(prod + l, sizeof prod - l, "%s%s", prod[0] ? "*" : "", c.v[r.v[q]].bound);
                }
                if (!r.n && sb == sa + 1 && c.t.v[sa].kind == TK_NUM && vec == 1) {   /* p[7]: at least 8 elements */
                    long ix = strtol(c.t.v[sa].s, NULL, 10) + 1;
                    if (ix > 1 && ix <= 1 << 20 && ix > litmax) r.lit = ix;
                }
                if (!r.n && r.lit > 1 && !best[0]) snprintf(lits, sizeof lits, "%ld", r.lit > litmax ? (litmax = r.lit) : litmax);
                if (count_factors(prod) > count_factors(best)) snprintf(best, sizeof best, "%s", prod);
            } else if (off_a == 0 && off_b == 0) {
                bare = true;
            }
        }
        if (best[0]) {
            snprintf(lens[i], sizeof lens[i], "%s", best);
            json_add_note(notes, "%s: %s elements (its subscripts and the bounds checks on them)", p->name, best);
        } else if (lits[0]) {
            snprintf(lens[i], sizeof lens[i], "%s", lits);
            json_add_note(notes, "%s: %s elements (subscripts bounded by constants)", p->name, lits);
        } else if (blockidx) {
            snprintf(lens[i], sizeof lens[i], "%s", gx);
            json_add_note(notes, "%s: %s elements, one per block (indexed by blockIdx.x)", p->name, gx);
        } else if (bare || subscripted) {
            snprintf(lens[i], sizeof lens[i], "1");
            json_add_note(notes, "%s: 1 element (used without a bounded subscript)", p->name);
        } else {
            snprintf(lens[i], sizeof lens[i], "%s", first_size);
            json_add_note(notes, "%s: %s elements (a guess: the body does not index it)", p->name, first_size);
        }
    }

    /* the spec */
    json_t *root = json_object();
    json_object_set_new(root, "name", json_string(k->kernel));
    json_object_set_new(root, "kernel", json_string(k->kernel));
    json_object_set_new(root, "family", json_string("inferred"));
    json_t *desc = json_object();
    const char *req = in->request && in->request[strspn(in->request, " \t\r\n")] ? in->request : NULL;
    bool card = req && strstr(req, "## ") && strstr(req, "\n- ");
    bool cjk = false;
    for (const unsigned char *p = (const unsigned char *)(req ? req : ""); *p && !cjk; p++) cjk = *p >= 0xe4 && *p <= 0xe9;
    json_object_set_new(desc, card ? "card" : cjk ? "zh" : "prose",
                        json_string(req ? req : "(no request given: the kernel of the CUDA C twin)"));
    json_object_set_new(root, "descriptions", desc);
    json_t *params = json_array();
    const char *fvals[] = {"1.5", "-0.75", "0.25", "2"};
    int nf = 0;
    pg_buf minlen = {0};   /* the shortest float buffer: integer inputs stay valid indices into it */
    for (int i = 0; i < k->nparams; i++) {
        const twin_param *p = &k->params[i];
        if (!p->is_pointer || !task_dtype_is_float(p->dtype != TASK_T_NONE ? p->dtype : TASK_T_F32)) continue;
        if (!minlen.len) pg_buf_puts(&minlen, lens[i]);
        else if (strcmp(minlen.data, lens[i]) && minlen.len < 300) {
            pg_buf m2 = {0};
            pg_buf_printf(&m2, "min(%s,%s)", minlen.data, lens[i]);
            pg_buf_free(&minlen);
            minlen = m2;
        }
    }
    pg_status st = PG_OK;
    for (int i = 0; i < k->nparams; i++) {
        const twin_param *p = &k->params[i];
        json_t *jp = json_object();
        json_object_set_new(jp, "name", json_string(p->name));
        task_dtype dt = p->dtype;
        if (p->is_pointer) {
            if (dt == TASK_T_NONE) {
                dt = have_ptx && pp[i].is_pointer ? pp[i].dtype : TASK_T_F32;
                json_add_note(notes, "%s: element type %s from the PTX's accesses (the twin says '%s')", p->name,
                              task_dtype_name(dt), p->ctype);
            }
            char ty[16];
            snprintf(ty, sizeof ty, "%s*", task_dtype_name(dt));
            json_object_set_new(jp, "type", json_string(ty));
            const char *role;
            if (p->is_const) role = "in";
            else if (have_ptx && pp[i].is_pointer) {
                role = !pp[i].stored ? "in" : pp[i].loaded ? "inout" : "out";
                if (!pp[i].stored)
                    json_add_note(notes, "%s: not const in the twin, but its PTX never stores through it: an input", p->name);
            } else {
                role = "inout";
                json_add_note(notes, "%s: not const and no PTX to read its stores from: in/out", p->name);
            }
            json_object_set_new(jp, "role", json_string(role));
            json_object_set_new(jp, "len", json_string(lens[i]));
            if (dtype_is_int(dt) && strcmp(role, "out")) {   /* integers may be indices: keep them in range */
                pg_buf g = {0};
                if (minlen.len) pg_buf_printf(&g, "int(0,%s-1)", minlen.data);
                else pg_buf_puts(&g, "int(0,100)");
                json_object_set_new(jp, "dist", json_pack("[s,s]", g.data, g.data));
                json_add_note(notes, "%s: integers drawn as %.300s (they may be indices)", p->name, g.data);
                pg_buf_free(&g);
            }
        } else {
            json_object_set_new(jp, "type", json_string(task_dtype_name(dt)));
            if (dtype_is_int(dt)) json_object_set_new(jp, "value", json_string(p->name));
            else json_object_set_new(jp, "value", json_string(fvals[nf++ % 4]));
        }
        json_array_append_new(params, jp);
    }
    json_object_set_new(root, "params", params);
    /* sizes: the smallest, one odd and one larger, none a multiple of the block */
    static const int64_t v1[3] = {1, 1000, 100003}, v2[3][2] = {{1, 1}, {33, 70}, {257, 1000}},
                         v3[3][3] = {{1, 1, 1}, {17, 33, 9}, {100, 65, 130}};
    json_t *sizes = json_array();
    const char *sv[EXPR_MAX_VARS];
    int ns = nsize;
    for (int i = 0; i < nsize; i++) sv[i] = sizev[i];
    if (!ns) sv[ns++] = "n";
    for (int s = 0; s < 3; s++) {
        json_t *o = json_object();
        for (int i = 0; i < ns; i++) {
            int64_t v = ns == 1 ? v1[s] : ns == 2 ? v2[s][i] : ns == 3 ? v3[s][i] : s == 0 ? 1 : s == 1 ? 3 + 2 * i : 9 + 2 * i;
            json_object_set_new(o, sv[i], json_integer(v));
        }
        if (s == 2) json_object_set_new(o, "time", json_true());
        json_array_append_new(sizes, o);
    }
    json_object_set_new(root, "sizes", sizes);
    json_t *launch = json_object();
    char b1[16], b2[16];
    snprintf(b1, sizeof b1, "%d", bx);
    snprintf(b2, sizeof b2, "%d", by);
    json_object_set_new(launch, "block", two_d ? json_pack("[s,s]", b1, b2) : json_pack("[s]", b1));
    json_object_set_new(launch, "grid", two_d ? json_pack("[s,s]", gx, gy) : json_pack("[s]", gx));
    char smem[32] = "0";
    if (k->dynamic_smem) {
        snprintf(smem, sizeof smem, "%d", bx * by * 8);
        json_add_note(notes, "launch: the twin uses extern __shared__ memory: %s bytes (8 per thread, a guess)", smem);
    }
    json_object_set_new(launch, "smem", json_string(smem));
    json_object_set_new(root, "launch", launch);
    json_object_set_new(root, "distributions", json_pack("[s,s]", "uniform(-1,1)", "normal(0,10)"));
    json_object_set_new(root, "reference", json_pack("{s:s, s:s, s:b}", "kind", "cu", "file", in->twin_file, "must_write", 1));
    json_object_set_new(root, "inferred", json_pack("{s:s, s:o}", "from",
                                                   "the request and the CUDA C twin by ptxgen; check every line, edit, "
                                                   "and rerun with --task",
                                                   "notes", notes));
    char *txt = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
    pg_buf_puts(out, txt);
    pg_buf_putc(out, '\n');
    free(txt);
    json_decref(root);
    pg_vec_free(c.t);
    pg_buf_free(&minlen);
    free(body);
    ptx_module_free(m);
    return st;
}

void twin_task_summary(const task_spec *t, pg_buf *out) {
    for (int i = 0; i < t->nparams; i++) {
        const task_param *p = &t->params[i];
        if (p->is_pointer)
            pg_buf_printf(out, "  %-12s %s*  %-5s  %s elements\n", p->name, task_dtype_name(p->dtype),
                          p->role == TASK_ROLE_IN ? "in" : p->role == TASK_ROLE_OUT ? "out" : "inout", p->len);
        else
            pg_buf_printf(out, "  %-12s %s   = %s\n", p->name, task_dtype_name(p->dtype), p->value);
    }
    pg_buf_printf(out, "  launch: grid (%s, %s, %s) x block (%s, %s, %s), %s bytes dynamic shared memory\n", t->grid[0],
                  t->grid[1], t->grid[2], t->block[0], t->block[1], t->block[2], t->smem);
    pg_buf_puts(out, "  sizes:");
    for (int s = 0; s < t->nsizes; s++) {
        pg_buf_puts(out, s ? ";" : "");
        for (int v = 0; v < t->sizes[s].env.n; v++)
            pg_buf_printf(out, " %s=%lld", t->sizes[s].env.name[v], (long long)t->sizes[s].env.val[v]);
    }
    pg_buf_putc(out, '\n');
}

void twin_task_view(const task_spec *t, const char *dir, const char *file, task_spec *view) {
    *view = *t;
    view->dir = (char *)dir;
    view->ref.kind = (char *)"cu";
    view->ref.name = NULL;
    view->ref.file = (char *)file;
    view->ref.high_precision = false;
    view->ref.must_write = true;
}

void twin_log_first_error(const char *log, char *out, size_t n) {
    if (!log) log = "";
    const char *e = strstr(log, "error");
    if (!e) e = log;
    while (e > log && e[-1] != '\n') e--;   /* from the start of its line (file(line): error ...) */
    snprintf(out, n, "%.*s", (int)strcspn(e, "\n"), e);
}

/* ---- the verdict ------------------------------------------------------------------------ */
const char *twin_verdict_name(twin_verdict v) {
    switch (v) {
    case TWIN_V_NO_NVCC: return "no-nvcc";
    case TWIN_V_NVCC_FAILED: return "nvcc-failed";
    case TWIN_V_NOT_RUN: return "not-run";
    case TWIN_V_AGREES: return "agrees";
    case TWIN_V_DIFFERS: return "differs";
    case TWIN_V_NOT_COMPARED: return "not-compared";
    }
    return "?";
}

void twin_verdict_line(twin_verdict v, int sets, const char *detail, pg_buf *out) {
    const char *d = detail && *detail ? detail : NULL;
    switch (v) {
    case TWIN_V_NO_NVCC: pg_buf_puts(out, "twin written; nvcc not found; not compiled"); break;
    case TWIN_V_NVCC_FAILED:
        pg_buf_printf(out, "twin written; nvcc rejects it%s%.300s; not run", d ? ": " : "", d ? d : "");
        break;
    case TWIN_V_NOT_RUN: pg_buf_printf(out, "twin compiles; not run%s%.300s%s", d ? " (" : "", d ? d : "", d ? ")" : ""); break;
    case TWIN_V_AGREES:
        pg_buf_printf(out, "agrees with its CUDA twin on %d input set%s (semantics as the twin's; the twin is not checked "
                           "against anything else)", sets, sets == 1 ? "" : "s");
        break;
    case TWIN_V_DIFFERS: pg_buf_printf(out, "differs from its CUDA twin: %.400s", d ? d : "(no detail)"); break;
    case TWIN_V_NOT_COMPARED:
        pg_buf_printf(out, "not compared with its CUDA twin: %.400s", d ? d : "(no detail)");
        break;
    }
}
