/* family.c — the parametric family registry, shared helpers (PRNG, JSON
 * layout, immediates, register declarations) and the nvcc batch driver that
 * compiles many CUDA-C instantiations in one run and splits nvcc's module
 * into one module per kernel.  See ptxgen/synth_family.h. */
#define _GNU_SOURCE
#include "family_internal.h"
#include "ptxgen/ptx.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* ---- registry -------------------------------------------------------------------- */
static const struct { const char *name; fam_gen_fn fn; const char *ref; bool nvcc; } FAMS[] = {
#define SYNTH_FAMILY(name, fn, ref, nvcc) {name, fn, #ref, nvcc},
#include "families_all.def"
#undef SYNTH_FAMILY
};
enum { NFAMS = (int)(sizeof FAMS / sizeof FAMS[0]) };

int synth_family_count(void) { return NFAMS; }
const char *synth_family_name(int f) { return f >= 0 && f < NFAMS ? FAMS[f].name : NULL; }
bool synth_family_uses_nvcc(int f) { return f >= 0 && f < NFAMS && FAMS[f].nvcc; }
const char *synth_family_reference(int f) { return f >= 0 && f < NFAMS ? FAMS[f].ref : NULL; }
const char *synth_fam_ref(fam_gen_fn generator) {
    for (int i = 0; i < NFAMS; i++)
        if (FAMS[i].fn == generator) return FAMS[i].ref;
    return "";
}
int synth_family_find(const char *name) {
    for (int i = 0; name && i < NFAMS; i++)
        if (!strcmp(FAMS[i].name, name)) return i;
    return -1;
}

pg_status synth_fam_draw(const char *name, uint64_t seed, synth_family_sample *s) {
    int f = synth_family_find(name);
    return f < 0 ? PG_ERR_USAGE : FAMS[f].fn(seed, s);
}

void synth_family_sample_free(synth_family_sample *s) {
    if (!s) return;
    pg_buf_free(&s->task_json);
    pg_buf_free(&s->ptx);
    pg_buf_free(&s->cu);
    memset(s, 0, sizeof *s);
}

/* ---- helpers --------------------------------------------------------------------- */
uint64_t synth_fam_next(fam_rng *r) {   /* splitmix64 */
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
int synth_fam_pick(fam_rng *r, int n) { return n > 0 ? (int)(synth_fam_next(r) % (uint64_t)n) : 0; }
const char *synth_fam_choice(fam_rng *r, const char *const *v, int n) { return v[synth_fam_pick(r, n)]; }

void synth_fam_imm(char *t, size_t n, double v, bool f64) {
    if (f64) {
        uint64_t u;
        memcpy(&u, &v, sizeof u);
        snprintf(t, n, "0d%016llX", (unsigned long long)u);
    } else {
        float f = (float)v;
        uint32_t u;
        memcpy(&u, &f, sizeof u);
        snprintf(t, n, "0f%08X", (unsigned)u);
    }
}

void synth_fam_lit(char *t, size_t n, double v) {
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(t, n, "%.*g", prec, v);
        if (strtod(t, NULL) == v) break;
    }
    if (!strchr(t, '.') && !strchr(t, 'e') && strlen(t) + 3 < n) strcat(t, ".0");
}

void synth_fam_decls(const fam_regs *g, pg_buf *out) {
    if (g->p) pg_buf_printf(out, "\t.reg .pred %%p<%d>;\n", g->p + 1);
    if (g->h) pg_buf_printf(out, "\t.reg .b16 %%h<%d>;\n", g->h + 1);
    if (g->r) pg_buf_printf(out, "\t.reg .b32 %%r<%d>;\n", g->r + 1);
    if (g->f) pg_buf_printf(out, "\t.reg .f32 %%f<%d>;\n", g->f + 1);
    if (g->rd) pg_buf_printf(out, "\t.reg .b64 %%rd<%d>;\n", g->rd + 1);
    if (g->fd) pg_buf_printf(out, "\t.reg .f64 %%fd<%d>;\n", g->fd + 1);
}

/* ---- kernel names ------------------------------------------------------------------ */
/* Long words of the families' names and their short forms, matched as whole words.  No
 * short form is a word a family uses for something else (lj, ip, mv, grav, incl, excl and
 * ell are in use, with the same meaning, where no two names can meet), so shortening keeps
 * distinct names distinct.  Phrases of several words come before the words. */
static const struct { const char *lo, *sh; } ABBREV[] = {
    {"lennard_jones", "lj"}, {"cross_entropy", "xentr"}, {"layer_norm", "lnorm"}, {"stream_compact", "scompact"},
    {"leaky_relu", "lrelu"}, {"quick_gelu", "qgelu"},
    {"residual", "res"}, {"inplace", "ip"}, {"colbias", "cbias"}, {"rowbias", "rbias"}, {"unscale", "unsc"},
    {"stencil1d", "st1d"}, {"stencil2d", "st2d"}, {"stencil3d", "st3d"}, {"pairdist", "pdist"}, {"sqeuclid", "sqeuc"},
    {"euclid", "euc"}, {"direct", "dir"}, {"periodic", "peri"}, {"reflect", "refl"}, {"embedding", "emb"},
    {"transposed", "tr"}, {"matvec", "mv"}, {"coulomb", "coul"}, {"energy", "enrg"}, {"potential", "pot"},
    {"gravity", "grav"}, {"momentum", "mom"}, {"nesterov", "nest"}, {"normclip", "nclip"}, {"update", "upd"},
    {"welford", "welf"}, {"softmax", "smax"}, {"logsoftmax", "lsmax"}, {"lastdim", "ldim"}, {"masked", "msk"},
    {"online", "onl"}, {"inclusive", "incl"}, {"exclusive", "excl"}, {"prefix", "pfx"}, {"partials", "parts"},
    {"atomic", "atom"}, {"ellpack", "ell"}, {"rowmajor", "rmaj"}, {"colmajor", "cmaj"}, {"blockrow", "brow"},
    {"rowscale", "rsc"}, {"scaled", "scl"}, {"skipoob", "skip"}, {"hardswish", "hswish"}, {"hardsigmoid", "hsigmoid"},
    {"interleaved", "intl"}, {"tridiag", "tdiag"}, {"warpsmem", "wsmem"},
};

/* Every word (between '_') or phrase of ABBREV in its short form, in place (never longer). */
static void abbreviate(char *name) {
    char *w = name;
    for (const char *r = name; *r;) {   /* r: the start of a word */
        const char *src = r;
        size_t len = strcspn(r, "_"), adv = len;
        for (size_t k = 0; k < sizeof ABBREV / sizeof ABBREV[0]; k++) {
            size_t lo = strlen(ABBREV[k].lo);
            if (!strncmp(r, ABBREV[k].lo, lo) && (r[lo] == '_' || !r[lo])) {
                src = ABBREV[k].sh;
                len = strlen(src);
                adv = lo;
                break;
            }
        }
        memmove(w, src, len);   /* w <= r: the text not read yet is never overwritten */
        w += len;
        r += adv;
        if (*r == '_') *w++ = *r++;
    }
    *w = 0;
}

/* Drop whole trailing words until the name has at most max bytes (a single word is cut). */
static void cut_words(char *name, size_t max) {
    size_t n = strlen(name);
    while (n > max) {
        char *u = strrchr(name, '_');
        if (!u || u == name) { name[max] = 0; n = max; break; }
        *u = 0;
        n = (size_t)(u - name);
    }
    while (n && name[n - 1] == '_') name[--n] = 0;
}

void synth_fam_shorten(char *name, size_t max) {
    if (strlen(name) <= max) return;
    abbreviate(name);
    cut_words(name, max);
}

void synth_fam_fit_name(char *name) {
    if (strlen(name) <= PG_NAME_MAX) return;
    uint64_t h = pg_hash64_add(PG_HASH64_INIT_SHORT, name, strlen(name));   /* the whole name: its words that are cut stay in the hash */
    abbreviate(name);
    if (strlen(name) <= PG_NAME_MAX) return;
    cut_words(name, PG_NAME_MAX - 7);
    size_t l = strlen(name);
    snprintf(name + l, 8, "_%06x", (unsigned)(h & 0xffffff));   /* fits: the name was longer than PG_NAME_MAX */
}

/* The corpus layout: one top-level field per line, "descriptions" one entry
 * per line, "params" one element per line. */

/* ---- nvcc ------------------------------------------------------------------------ */
static bool find_nvcc(char *path, size_t n) {
    const char *e = getenv("NVCC");
    if (e && *e && access(e, X_OK) == 0) { snprintf(path, n, "%s", e); return true; }
    const char *pth = getenv("PATH");
    if (pth) {
        char *dup = strdup(pth), *save = NULL;
        for (char *d = strtok_r(dup, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
            snprintf(path, n, "%s/nvcc", d);
            if (access(path, X_OK) == 0) { free(dup); return true; }
        }
        free(dup);
    }
    const char *ch = getenv("CUDA_HOME");
    if (ch) {
        snprintf(path, n, "%s/bin/nvcc", ch);
        if (access(path, X_OK) == 0) return true;
    }
    snprintf(path, n, "/usr/local/cuda/bin/nvcc");
    return access(path, X_OK) == 0;
}

static bool arch_ok(const char *a) {
    if (!a || strncmp(a, "sm_", 3) || strlen(a) > 12 || !a[3]) return false;
    for (const char *p = a + 3; *p; p++)
        if (!((*p >= '0' && *p <= '9') || *p == 'a' || *p == 'f')) return false;
    return true;
}

/* nvcc -ptx -O3 -arch=ARCH [-lineinfo] -o OUT CU; stderr to LOG.  True on exit status 0. */
static bool run_nvcc(const char *nvcc, const char *arch, bool lineinfo, const char *cu, const char *out, const char *log) {
    char archf[40];
    snprintf(archf, sizeof archf, "-arch=%s", arch);
    char *argv[] = {(char *)nvcc, "-ptx", "-O3", archf, "-o", (char *)out, (char *)cu, NULL, NULL};
    if (lineinfo) { argv[7] = argv[6]; argv[6] = argv[5]; argv[5] = argv[4]; argv[4] = "-lineinfo"; }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid;
    int rc = posix_spawn(&pid, nvcc, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) return false;
    int st;
    if (waitpid(pid, &st, 0) < 0) return false;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* Does the function's printed text mention symbol `name` as a whole word? */
static bool mentions(const char *text, const char *name) {
    size_t n = strlen(name);
    for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
        char a = p == text ? ' ' : p[-1], b = p[n];
        bool wa = (a >= 'a' && a <= 'z') || (a >= 'A' && a <= 'Z') || (a >= '0' && a <= '9') || a == '_' || a == '$';
        bool wb = (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') || b == '_' || b == '$';
        if (!wa && !wb) return true;
    }
    return false;
}

static bool ident_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

/* Is `q` (an occurrence of a word of length n in text) the identifier itself?  Not when it is
 * part of a longer word, a register (%r) or a suffix (%tid.x, .f32). */
static bool ident_at(const char *text, const char *q, size_t n) {
    char a = q == text ? ' ' : q[-1];
    return !ident_char(a) && a != '.' && a != '%' && !ident_char(q[n]);
}

/* Is q inside a `//` comment (a literate plan line names the CUDA variables, which the
 * PTX is free to use as its own names)? */
static bool in_comment(const char *text, const char *q) {
    for (const char *p = q; p > text && p[-1] != '\n'; p--)
        if (p[-1] == '/' && p - 1 > text && p[-2] == '/') return true;
    return false;
}

static bool has_ident(const char *text, const char *name) {
    size_t n = strlen(name);
    for (const char *q = strstr(text, name); q; q = strstr(q + 1, name))
        if (ident_at(text, q, n) && !in_comment(text, q)) return true;
    return false;
}

/* Every identifier `from` in text -> `to`. */
static void replace_ident(pg_buf *text, const char *from, const char *to) {
    size_t n = strlen(from);
    pg_buf out = {0};
    const char *p = text->data, *q;
    while ((q = strstr(p, from))) {
        bool whole = ident_at(text->data, q, n) && !in_comment(text->data, q);
        pg_buf_putn(&out, p, (size_t)(q - p));
        pg_buf_puts(&out, whole ? to : from);
        p = q + n;
    }
    pg_buf_puts(&out, p);
    pg_buf_free(text);
    *text = out;
}

/* nvcc names the parameters <entry>_param_<i> and mangles a kernel's shared arrays as
 * _ZZ<len><entry>E<len><var>.  Both are long (every ld.param repeats the entry's name, at ~1.4
 * characters a token for a pretrained tokenizer) and say nothing to a model that reads the
 * prompt's signature, while the suites' signatures carry the tasks' own names.  So: parameter i
 * takes the task's name for it, a shared array the CUDA variable's name, unless that name is
 * taken already (then the nvcc name stays; ptxas checks the result like any other sample). */
static void nvcc_names_to_task_names(const char *name, const char *const *pnames, size_t np, pg_buf *ptx) {
    char from[200], to[140];
    snprintf(from, sizeof from, "%s_param_%zu", name, np);
    bool count_ok = np > 0 && !has_ident(ptx->data, from);   /* no parameter beyond the task's */
    for (size_t i = 0; count_ok && i < np; i++) {
        snprintf(from, sizeof from, "%s_param_%zu", name, i);
        if (!has_ident(ptx->data, from)) count_ok = false;
    }
    for (size_t i = 0; count_ok && i < np; i++) {
        const char *nm = pnames[i];
        if (!nm || !*nm || strlen(nm) >= sizeof to || has_ident(ptx->data, nm)) continue;
        snprintf(from, sizeof from, "%s_param_%zu", name, i);
        replace_ident(ptx, from, nm);
    }
    /* _ZZ<len(entry)><entry>E<len(var)><var> */
    char prefix[160];
    snprintf(prefix, sizeof prefix, "_ZZ%zu%sE", strlen(name), name);
    size_t pl = strlen(prefix);
    for (const char *p = strstr(ptx->data, prefix); p; p = strstr(ptx->data, prefix)) {
        char *end;
        unsigned long vl = strtoul(p + pl, &end, 10);
        const char *var = end;
        size_t idl = 0;
        while (ident_char(p[idl])) idl++;
        if ((p != ptx->data && ident_char(p[-1])) || vl == 0 || vl >= sizeof to - 2 || (size_t)(var - p) + vl != idl ||
            idl >= sizeof from)
            break;   /* not the shape above (a template's or a static's name): leave all as they are */
        memcpy(from, p, idl);
        from[idl] = 0;
        snprintf(to, sizeof to, "%.*s", (int)vl, var);
        if (has_ident(ptx->data, to)) snprintf(to, sizeof to, "s_%.*s", (int)vl, var);
        if (has_ident(ptx->data, to)) break;
        replace_ident(ptx, from, to);
    }
}

/* nvcc_names_to_task_names with the names of a task's JSON ("params": [{"name": ...}, ...]). */
static void nvcc_names_to_task_json(const char *name, const char *task_json, pg_buf *ptx) {
    json_error_t e;
    json_t *t = json_loads(task_json ? task_json : "", 0, &e);
    json_t *params = json_object_get(t, "params");
    size_t np = json_array_size(params);
    const char **pnames = calloc(np ? np : 1, sizeof *pnames);
    for (size_t i = 0; pnames && i < np; i++) pnames[i] = json_string_value(json_object_get(json_array_get(params, i), "name"));
    if (pnames) nvcc_names_to_task_names(name, pnames, np, ptx);
    free(pnames);
    json_decref(t);
}

/* Split nvcc's module: for entry `name`, a module with the header, the
 * module-level declarations the entry references, and the entry. */
static bool split_entry(ptx_module *m, const char *name, pg_buf *out) {
    int fi = -1;
    for (int i = 0; i < m->nfuncs; i++)
        if (m->funcs[i].is_entry && !strcmp(m->funcs[i].name, name)) fi = i;
    if (fi < 0) return false;
    /* print the entry alone to learn which symbols it uses */
    ptx_top *saved = m->tops;
    int nsaved = m->ntops;
    ptx_top only;
    memset(&only, 0, sizeof only);
    only.kind = PTX_TOP_FUNC;
    only.u.func = fi;
    m->tops = &only;
    m->ntops = 1;
    pg_buf ftext = {0};
    ptx_print(m, &ftext);
    /* keep: directives (none in nvcc -ptx output besides .file when -lineinfo),
     * declarations the entry mentions, and the entry */
    ptx_top *keep = calloc((size_t)nsaved + 1, sizeof *keep);
    int nk = 0;
    for (int i = 0; i < nsaved; i++) {
        const ptx_top *t = &saved[i];
        if (t->kind == PTX_TOP_FUNC) {
            if (t->u.func == fi) keep[nk++] = *t;
        } else if (t->kind == PTX_TOP_DECL) {
            if (t->u.decl.name && mentions(ftext.data, t->u.decl.name)) keep[nk++] = *t;
        }
    }
    m->tops = keep;
    m->ntops = nk;
    pg_buf whole = {0};
    ptx_print(m, &whole);
    /* nvcc numbers block labels by the function's position in the module
     * ($L__BB3_7 for the 4th kernel); renumber to $L__BB0_ so a sample does
     * not depend on which kernels shared its nvcc run */
    for (const char *p = whole.data; *p;) {
        const char *hit = strstr(p, "$L__BB");
        if (!hit) { pg_buf_puts(out, p); break; }
        pg_buf_putn(out, p, (size_t)(hit - p) + 6);
        const char *q = hit + 6;
        while (*q >= '0' && *q <= '9') q++;
        if (*q == '_' && q > hit + 6) pg_buf_putc(out, '0');
        else pg_buf_putn(out, hit + 6, (size_t)(q - (hit + 6)));
        p = q;
    }
    pg_buf_free(&whole);
    m->tops = saved;
    m->ntops = nsaved;
    free(keep);
    pg_buf_free(&ftext);
    return true;
}

static bool read_all(const char *path, pg_buf *out) {
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    char buf[65536];
    size_t k;
    while ((k = fread(buf, 1, sizeof buf, f)) > 0) pg_buf_putn(out, buf, k);
    fclose(f);
    return true;
}

/* Checked and counted (pg_io_failures): a source nvcc never saw must not pass for a failed sample. */
static bool write_all(const char *path, const char *data, size_t n) {
    return pg_write_file(path, data, n, 0, NULL) == PG_OK;
}

/* Loops the plan did not ask to unroll stay loops (docs/LITERATE.md, "no unrolled
 * remainder loops unless asked"): `#pragma unroll 1` goes before every line that
 * starts a `for` or `while` loop without a pragma on the line before it, unless
 * the `for` runs a constant number of times (`for (int k = 0; k < 8; k++)`,
 * `for (int off = 16; off > 0; off /= 2)`: its start and bound are literals),
 * which nvcc unrolls fully without a remainder loop. */
static bool literal_word(const char *s, size_t n) {
    while (n && (*s == ' ' || *s == '(')) s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == ')')) n--;
    if (!n) return false;
    size_t i = 0;
    if (s[0] == '-') i++;
    size_t d = i;
    while (i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == 'u' || s[i] == 'U' || s[i] == 'x' ||
                     (s[i] >= 'a' && s[i] <= 'f') || (s[i] >= 'A' && s[i] <= 'F')))
        i++;
    return i == n && i > d && s[d] >= '0' && s[d] <= '9';
}
static bool constant_trip(const char *line) {
    const char *o = strchr(line, '('), *s1 = o ? strchr(o, ';') : NULL, *s2 = s1 ? strchr(s1 + 1, ';') : NULL;
    if (!s2) return false;
    const char *eq = memchr(o, '=', (size_t)(s1 - o));   /* init: "int k = 0" */
    if (!eq || !literal_word(eq + 1, (size_t)(s1 - eq - 1))) return false;
    const char *c = s1 + 1, *op = NULL;                  /* cond: "k < 8", "off > 0" */
    for (const char *q = c; q < s2; q++)
        if (*q == '<' || *q == '>' || (*q == '!' && q[1] == '=')) { op = q; break; }
    if (!op) return false;
    const char *rhs = op + 1;
    if (*rhs == '=') rhs++;
    return literal_word(rhs, (size_t)(s2 - rhs));
}
void synth_literate_prepare(const char *cu, pg_buf *out) {
    const char *prev = "";   /* the previous non-blank line, trimmed */
    size_t prevn = 0;
    for (const char *p = cu; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
        const char *t = p;
        while (*t == ' ' || *t == '\t') t++;
        bool loop = (!strncmp(t, "for", 3) && (t[3] == ' ' || t[3] == '(')) || (!strncmp(t, "while", 5) && (t[5] == ' ' || t[5] == '('));
        if (loop && !(prevn >= 7 && !strncmp(prev, "#pragma", 7)) && !(t[0] == 'f' && constant_trip(t)))
            pg_buf_puts(out, "#pragma unroll 1\n");
        pg_buf_putn(out, p, n);
        if ((size_t)(t - p) < n && *t != '\n' && *t != '\r') { prev = t; prevn = n - (size_t)(t - p); }
        p += n;
    }
}

/* One .cu holds many plans: an object-like macro a plan defines (`#define NT 256`, `#define NBINS
 * 64`) and leaves defined is #undef'd after it, so it cannot reach the next plan's identifiers.
 * Only lines after the plan's own: its lines (the plan comments) stay as they are. */
static void undef_constants(const char *cu, pg_buf *src) {
    for (const char *p = cu; p && *p;) {
        const char *t = p;
        while (*t == ' ' || *t == '\t') t++;
        if (!strncmp(t, "#define", 7) && (t[7] == ' ' || t[7] == '\t')) {
            const char *a = t + 7, *z;
            while (*a == ' ' || *a == '\t') a++;
            for (z = a; (*z >= 'a' && *z <= 'z') || (*z >= 'A' && *z <= 'Z') || (*z >= '0' && *z <= '9') || *z == '_'; z++) {}
            if (z > a && *z != '(') {   /* object-like */
                char un[200];
                snprintf(un, sizeof un, "#undef %.*s", (int)(z - a), a);
                if (!strstr(cu, un)) pg_buf_printf(src, "%s\n", un);
            }
        }
        const char *nl = strchr(p, '\n');
        p = nl ? nl + 1 : NULL;
    }
}

/* Compile k CUDA C kernels (cu[i], entry names[i]) in one nvcc run; fill
 * ptx[i] with a module holding kernel i alone.  Literate: the plans are
 * prepared (synth_literate_prepare) and compiled with -lineinfo, and the line
 * table becomes plan comments (ptx_literate_from_loc); plain: no comments at
 * all (nvcc's own "// demoted variable" included).  False when nvcc fails
 * (nothing filled, why says it). */
static bool nvcc_group(const char *nvcc, const char *arch, int format, const char *const *cu, const char *const *names,
                       pg_buf *const *ptx, int k, char *why, size_t whyn) {
    bool literate = format == SYNTH_FMT_LITERATE;
    char dir[600];
    pg_tmp_path(dir, sizeof dir, "ptxgen-family-XXXXXX");
    if (!mkdtemp(dir)) { snprintf(why, whyn, "mkdtemp: %s", strerror(errno)); return false; }
    char cup[700], px[700], lg[700];
    snprintf(cup, sizeof cup, "%s/k.cu", dir);
    snprintf(px, sizeof px, "%s/k.ptx", dir);
    snprintf(lg, sizeof lg, "%s/log", dir);
    pg_buf src = {0};
    for (int i = 0; i < k; i++) {
        if (literate) synth_literate_prepare(cu[i], &src);
        else pg_buf_puts(&src, cu[i]);
        pg_buf_putc(&src, '\n');
        undef_constants(cu[i], &src);
    }
    bool ok = write_all(cup, src.data, src.len) && run_nvcc(nvcc, arch, literate, cup, px, lg);
    pg_buf text = {0};
    if (!ok) {
        pg_buf log = {0};
        read_all(lg, &log);
        snprintf(why, whyn, "nvcc failed: %.300s", log.data ? log.data : "(no output)");
        pg_buf_free(&log);
    } else if (!read_all(px, &text)) {
        ok = false;
        snprintf(why, whyn, "nvcc wrote no PTX");
    }
    if (ok) {
        ptx_module *m = NULL;
        pg_diag_sink q = {0};
        if (ptx_parse(text.data, text.len, "nvcc", &m, &q) != PG_OK) {
            ok = false;
            snprintf(why, whyn, "nvcc's PTX does not parse (%d errors)", q.nerrors);
        } else {
            if (literate) ptx_literate_from_loc(m, src.data, src.len, 1);
            else ptx_comments_strip(m);
            for (int i = 0; i < k; i++) {
                pg_buf one = {0};
                if (!split_entry(m, names[i], &one)) {
                    ok = false;
                    snprintf(why, whyn, "entry %s missing from nvcc's PTX", names[i]);
                    pg_buf_free(&one);
                    break;
                }
                pg_buf_printf(ptx[i], "// GENERATED_BY: ptxgen synth/family (nvcc -ptx -O3 -arch=%s%s)\n", arch,
                              literate ? " -lineinfo, literate" : "");
                pg_buf_putn(ptx[i], one.data, one.len);
                pg_buf_free(&one);
            }
            if (!ok)
                for (int i = 0; i < k; i++) pg_buf_free(ptx[i]);
        }
        ptx_module_free(m);
    }
    unlink(cup);
    unlink(px);
    unlink(lg);
    rmdir(dir);
    pg_buf_free(&src);
    pg_buf_free(&text);
    return ok;
}

/* nvcc_group over the samples idx[0..k) */
static bool nvcc_samples(const char *nvcc, const char *arch, int format, synth_family_sample *s, const int *idx, int k, char *why,
                         size_t whyn) {
    const char **cu = calloc((size_t)k + 1, sizeof *cu), **names = calloc((size_t)k + 1, sizeof *names);
    pg_buf **ptx = calloc((size_t)k + 1, sizeof *ptx);
    for (int i = 0; i < k; i++) {
        cu[i] = s[idx[i]].cu.data;
        names[i] = s[idx[i]].name;
        ptx[i] = &s[idx[i]].ptx;
    }
    bool ok = nvcc_group(nvcc, arch, format, cu, names, ptx, k, why, whyn);
    free(cu);
    free(names);
    free(ptx);
    return ok;
}

pg_status synth_cuda_ptx_batch(const char *const *cu, const char *const *names, const char *const *task_json, int n, const char *arch,
                               int format, pg_buf *ptx, pg_diag_sink *diag) {
    if (n < 0 || (n && (!cu || !names || !ptx)) || !arch_ok(arch)) {
        pg_diag_emit(diag, PG_E_TASK, NULL, 0, 0, "synth_cuda_ptx_batch: bad arguments (arch '%s')", arch ? arch : "(null)");
        return PG_ERR_USAGE;
    }
    if (!n) return PG_OK;
    char nvcc[1024];
    if (!find_nvcc(nvcc, sizeof nvcc)) {
        pg_diag_emit(diag, PG_E_IO, NULL, 0, 0, "synth: nvcc not found ($NVCC, PATH, $CUDA_HOME/bin)");
        return PG_ERR_IO;
    }
    pg_buf **outs = calloc((size_t)n, sizeof *outs);
    for (int i = 0; i < n; i++) outs[i] = &ptx[i];
    char why[400];
    int made = 0;
    if (nvcc_group(nvcc, arch, format, cu, names, outs, n, why, sizeof why)) made = n;
    else   /* one by one, so one bad kernel cannot sink the rest */
        for (int i = 0; i < n; i++) {
            if (nvcc_group(nvcc, arch, format, &cu[i], &names[i], &outs[i], 1, why, sizeof why)) made++;
            else pg_diag_emit(diag, PG_E_TASK, NULL, 0, 0, "synth (%s): %s", names[i], why);
        }
    for (int i = 0; task_json && i < n; i++)
        if (ptx[i].len && task_json[i]) nvcc_names_to_task_json(names[i], task_json[i], &ptx[i]);
    free(outs);
    return made ? PG_OK : PG_ERR_IO;
}

bool synth_cuda_literate_ptx(const char *cu, const char *name, const char *const *params, int nparams, const char *arch, pg_buf *out,
                             char *why, size_t whyn) {
    char nvcc[1024];
    if (!cu || !name || nparams < 0 || (nparams && !params) || !arch_ok(arch)) {
        snprintf(why, whyn, "bad arguments (arch '%s')", arch ? arch : "(null)");
        return false;
    }
    if (!find_nvcc(nvcc, sizeof nvcc)) { snprintf(why, whyn, "nvcc not found ($NVCC, PATH, $CUDA_HOME/bin)"); return false; }
    pg_buf *one = out;
    out->len = 0;
    if (!nvcc_group(nvcc, arch, SYNTH_FMT_LITERATE, &cu, &name, &one, 1, why, whyn)) return false;
    if (nparams) nvcc_names_to_task_names(name, params, (size_t)nparams, out);   /* as a task's would rename them */
    return true;
}

pg_status synth_family_generate_batch(int family, const uint64_t *seeds, int n, const char *arch, int format,
                                      synth_family_sample *out, pg_diag_sink *diag) {
    if (family < 0 || family >= NFAMS || n < 0 || (n && (!seeds || !out))) {
        pg_diag_emit(diag, PG_E_TASK, NULL, 0, 0, "synth_family: unknown family %d or bad arguments", family);
        return PG_ERR_USAGE;
    }
    if (FAMS[family].nvcc && !arch_ok(arch)) {
        pg_diag_emit(diag, PG_E_TASK, NULL, 0, 0, "synth_family: bad arch '%s' (want sm_XX)", arch ? arch : "(null)");
        return PG_ERR_USAGE;
    }
    bool varied = format & SYNTH_FMT_PLAN_VARIED, literate = (format & SYNTH_FMT_MASK) == SYNTH_FMT_LITERATE;
    format &= SYNTH_FMT_MASK;
    int good = 0;
    for (int i = 0; i < n; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].plan_style = varied ? SYNTH_PLAN_VARIED : SYNTH_PLAN_FIXED;
        if (FAMS[family].fn(seeds[i], &out[i]) != PG_OK) {
            pg_diag_emit(diag, PG_E_TASK, NULL, 0, 0, "synth_family %s: generator failed for seed %llu", FAMS[family].name,
                         (unsigned long long)seeds[i]);
            synth_family_sample_free(&out[i]);
        } else if (strlen(out[i].name) > PG_NAME_MAX) {   /* a generator that skipped synth_fam_fit_name: undecodable */
            pg_diag_emit(diag, PG_E_TASK, NULL, 0, 0, "synth_family %s: kernel name '%s' is %zu bytes, over PG_NAME_MAX (%d)",
                         FAMS[family].name, out[i].name, strlen(out[i].name), PG_NAME_MAX);
            synth_family_sample_free(&out[i]);
        } else {
            good++;
            char def[16], stride[40];
            if (varied && FAMS[family].nvcc && synth_plan_stride(seeds[i], &out[i].cu, stride, sizeof stride)) {
                size_t l = strlen(out[i].plan_variant);
                snprintf(out[i].plan_variant + l, sizeof out[i].plan_variant - l, "%sstride", l ? "/" : "");
            }
            if (varied && FAMS[family].nvcc && synth_plan_defines(seeds[i], out[i].task_json.data, &out[i].cu, def, sizeof def)) {
                size_t l = strlen(out[i].plan_variant);
                snprintf(out[i].plan_variant + l, sizeof out[i].plan_variant - l, "%sdef", l ? "/" : "");
            }
            char tags[16];   /* row pointers, rolled runs, size_t index (plan_forms.c) */
            if (varied && FAMS[family].nvcc && synth_plan_forms(seeds[i], &out[i].cu, tags, sizeof tags)) {
                size_t l = strlen(out[i].plan_variant);
                snprintf(out[i].plan_variant + l, sizeof out[i].plan_variant - l, "%s%s", l ? "/" : "", tags);
            }
        }
    }
    if (!FAMS[family].nvcc) return good || !n ? PG_OK : PG_ERR_INVALID;

    char nvcc[1024];
    if (!find_nvcc(nvcc, sizeof nvcc)) {
        pg_diag_emit(diag, PG_E_IO, NULL, 0, 0, "synth_family %s: nvcc not found ($NVCC, PATH, $CUDA_HOME/bin)",
                     FAMS[family].name);
        for (int i = 0; i < n; i++) synth_family_sample_free(&out[i]);
        return PG_ERR_IO;
    }
    /* one compile per distinct kernel name (equal names are equal kernels).  In the literate format
     * an equal name with another plan (a plan style variant, or only other parameter names: the
     * renaming below reaches the instructions, not the plan comments) shares no PTX, since its
     * comments must quote its own plan; as one .cu cannot define a name twice, it is compiled on
     * its own.  Plain PTX carries no plan, so equal names share. */
    int *idx = calloc((size_t)n + 1, sizeof *idx), *rep = calloc((size_t)n + 1, sizeof *rep), k = 0;
    int *solo = calloc((size_t)n + 1, sizeof *solo), nsolo = 0;
    for (int i = 0; i < n; i++) {
        rep[i] = -1;
        if (!out[i].cu.len) continue;
        bool clash = false;
        for (int j = 0; j < k && rep[i] < 0 && !clash; j++)
            if (!strcmp(out[idx[j]].name, out[i].name)) {
                if (!literate || !strcmp(out[idx[j]].cu.data, out[i].cu.data)) rep[i] = idx[j];
                else clash = true;
            }
        if (rep[i] < 0) {
            rep[i] = i;
            if (clash) solo[nsolo++] = i;
            else idx[k++] = i;
        }
    }
    char why[400];
    bool all = k > 0 && nvcc_samples(nvcc, arch, format, out, idx, k, why, sizeof why);
    if (!all)   /* retry one by one so one bad instantiation cannot sink the rest */
        for (int i = 0; i < k; i++)
            if (!nvcc_samples(nvcc, arch, format, out, &idx[i], 1, why, sizeof why))
                pg_diag_emit(diag, PG_E_TASK, NULL, 0, 0, "synth_family %s (%s): %s", FAMS[family].name, out[idx[i]].name, why);
    for (int i = 0; i < nsolo; i++)
        if (!nvcc_samples(nvcc, arch, format, out, &solo[i], 1, why, sizeof why))
            pg_diag_emit(diag, PG_E_TASK, NULL, 0, 0, "synth_family %s (%s): %s", FAMS[family].name, out[solo[i]].name, why);
    free(solo);
    int made = 0;
    for (int i = 0; i < n; i++) {
        if (rep[i] >= 0 && rep[i] != i && out[rep[i]].ptx.len) pg_buf_putn(&out[i].ptx, out[rep[i]].ptx.data, out[rep[i]].ptx.len);
        if (out[i].ptx.len) {   /* after the copy: equal kernels may still name their parameters differently */
            nvcc_names_to_task_json(out[i].name, out[i].task_json.data, &out[i].ptx);
            made++;
        }
        else synth_family_sample_free(&out[i]);
    }
    free(rep);
    free(idx);
    return made || !n ? PG_OK : PG_ERR_IO;
}

pg_status synth_family_generate(int family, uint64_t seed, const char *arch, int format, synth_family_sample *out,
                                pg_diag_sink *diag) {
    if (!out) return PG_ERR_USAGE;
    pg_status st = synth_family_generate_batch(family, &seed, 1, arch, format, out, diag);
    if (st == PG_OK && !out->ptx.len) st = PG_ERR_INVALID;
    if (st != PG_OK) synth_family_sample_free(out);
    return st;
}
