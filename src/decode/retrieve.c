/* retrieve.c — the nearest verified kernels of a library, by description (gen_retr_*):
 * the retrieval lever of the two-stage model (docs/LITERATE.md "Retrieval").
 *
 * A library holds kernels that passed synth's verification: per kernel its task name,
 * family, every description of the task (all styles, English and Chinese), its plan
 * (CUDA C) and its literate PTX.  A request is ranked against them by BM25 (k1 = 1.2,
 * b = 0.75) over terms:
 *   ASCII    lower-cased runs of letters and digits, a trailing 's' dropped from words of
 *            four or more letters ("rows" and "row" meet); '_' and punctuation separate;
 *   CJK      each character and each pair of adjacent characters (Chinese has no spaces);
 * the task name split at '_' and the family count as words of the descriptions.  Ties go to
 * the earlier kernel, so a query's answer depends only on the library's order.
 *
 * File format, version 1 (JSONL; golden test tests/golden/retrieve/tiny.jsonl): one kernel a line,
 *   {"task": NAME, "family": F, "descriptions": {STYLE: TEXT, ...}, "plan": CUDA C, "ptx": PTX}
 * task non-empty and unique, at least one description, every one a non-empty string, plan and
 * ptx strings; other keys are refused, so a typo is not silently ignored. */
#include "ptxgen/decode.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define K1 1.2
#define B 0.75

typedef struct {
    char *task, *family, *plan, *ptx;
    char **styles, **descs;    /* [ndescs]: each description and its style ("terse", "zh", ...) */
    int ndescs;
    int *terms, *tf, nterms;   /* distinct term ids of the kernel's text and their counts */
    int len;                   /* terms counted with repeats (BM25's document length) */
} entry;

struct gen_retr {
    entry *e;
    int n, cap;
    /* term vocabulary: open addressing, strings owned here */
    char **word;
    int *df;                   /* kernels holding each term */
    int nwords, wcap;
    int *slot;                 /* [hcap] term id + 1, 0 = empty */
    int hcap;
    double avglen;
};

/* The term id of s[0..n), added when `add`; -1 when absent and not added. */
static int term_id(gen_retr *r, const char *s, size_t n, bool add) {
    if (r->hcap == 0) {
        if (!add) return -1;
        r->hcap = 1024;
        r->slot = pg_xcalloc((size_t)r->hcap, sizeof *r->slot);
    }
    for (uint64_t i = pg_hash64(s, n) & (uint64_t)(r->hcap - 1);; i = (i + 1) & (uint64_t)(r->hcap - 1)) {
        int id = r->slot[i] - 1;
        if (id < 0) break;
        if (strlen(r->word[id]) == n && !memcmp(r->word[id], s, n)) return id;
    }
    if (!add) return -1;
    if (r->nwords == r->wcap) {
        r->wcap = r->wcap ? 2 * r->wcap : 256;
        r->word = pg_xrealloc(r->word, (size_t)r->wcap * sizeof *r->word);
        r->df = pg_xrealloc(r->df, (size_t)r->wcap * sizeof *r->df);
    }
    int id = r->nwords++;
    r->word[id] = pg_xmalloc(n + 1);
    memcpy(r->word[id], s, n);
    r->word[id][n] = 0;
    r->df[id] = 0;
    if (2 * r->nwords > r->hcap) {   /* keep the table at most half full */
        int oc = r->hcap;
        int *old = r->slot;
        r->hcap *= 2;
        r->slot = pg_xcalloc((size_t)r->hcap, sizeof *r->slot);
        for (int j = 0; j < oc; j++)
            if (old[j]) {
                const char *w = r->word[old[j] - 1];
                uint64_t k = pg_hash64(w, strlen(w)) & (uint64_t)(r->hcap - 1);
                while (r->slot[k]) k = (k + 1) & (uint64_t)(r->hcap - 1);
                r->slot[k] = old[j];
            }
        free(old);
    } else {
        uint64_t k = pg_hash64(s, n) & (uint64_t)(r->hcap - 1);
        while (r->slot[k]) k = (k + 1) & (uint64_t)(r->hcap - 1);
        r->slot[k] = id + 1;
    }
    return id;
}

/* One UTF-8 code point at *p (advanced past it); a malformed byte counts as itself. */
static uint32_t utf8_next(const unsigned char **p) {
    const unsigned char *s = *p;
    uint32_t c = s[0];
    int n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80) { n = 1; break; }
    if (n == 2) c = ((c & 0x1F) << 6) | (s[1] & 0x3F);
    else if (n == 3) c = ((c & 0x0F) << 12) | ((uint32_t)(s[1] & 0x3F) << 6) | (s[2] & 0x3F);
    else if (n == 4) c = ((c & 0x07) << 18) | ((uint32_t)(s[1] & 0x3F) << 12) | ((uint32_t)(s[2] & 0x3F) << 6) | (s[3] & 0x3F);
    *p = s + n;
    return c;
}

static bool is_cjk(uint32_t c) {
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0xF900 && c <= 0xFAFF) ||
           (c >= 0x20000 && c <= 0x2FA1F);
}

typedef void (*term_fn)(void *user, const char *s, size_t n);

/* Calls fn for every term of text, in order (the rules at the top of the file). */
static void terms_of(const char *text, term_fn fn, void *user) {
    const unsigned char *p = (const unsigned char *)text;
    char word[64];
    size_t wn = 0;
    const unsigned char *prev_cjk = NULL, *prev_end = NULL;   /* the last CJK character, for pairs */
    while (*p) {
        const unsigned char *start = p;
        uint32_t c = utf8_next(&p);
        bool alnum = c < 0x80 && isalnum((int)c);
        if (alnum) {
            if (wn < sizeof word) word[wn] = (char)tolower((int)c);
            wn++;
        }
        if (!alnum || !*p) {
            if (wn) {
                size_t n = wn < sizeof word ? wn : sizeof word;
                if (n >= 4 && word[n - 1] == 's' && isalpha((unsigned char)word[n - 2])) n--;
                fn(user, word, n);
                wn = 0;
            }
        }
        if (is_cjk(c)) {
            fn(user, (const char *)start, (size_t)(p - start));
            if (prev_cjk && prev_end == start) fn(user, (const char *)prev_cjk, (size_t)(p - prev_cjk));
            prev_cjk = start;
            prev_end = p;
        } else if (!alnum || c >= 0x80) prev_cjk = NULL;
        else prev_cjk = NULL;
    }
}

/* ---- building ---------------------------------------------------------------------- */

typedef struct {
    gen_retr *r;
    int *ids, n, cap;
} collect;

static void collect_term(void *user, const char *s, size_t n) {
    collect *c = user;
    int id = term_id(c->r, s, n, true);
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 64;
        c->ids = pg_xrealloc(c->ids, (size_t)c->cap * sizeof *c->ids);
    }
    c->ids[c->n++] = id;
}

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

gen_retr *gen_retr_new(void) { return pg_xcalloc(1, sizeof(gen_retr)); }

int gen_retr_count(const gen_retr *r) { return r ? r->n : 0; }

static int find_task(const gen_retr *r, const char *task) {
    for (int i = 0; i < r->n; i++)
        if (!strcmp(r->e[i].task, task)) return i;
    return -1;
}

pg_status gen_retr_add(gen_retr *r, const char *task, const char *family, const char *const *styles, const char *const *descs,
                       int ndescs, const char *plan, const char *ptx) {
    if (!r || !task || !*task || !family || !styles || !descs || ndescs < 1 || !plan || !ptx) return PG_ERR_USAGE;
    for (int i = 0; i < ndescs; i++)
        if (!descs[i] || !*descs[i] || !styles[i] || !*styles[i]) return PG_ERR_USAGE;
    if (find_task(r, task) >= 0) return PG_ERR_INVALID;
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->e = pg_xrealloc(r->e, (size_t)r->cap * sizeof *r->e);
    }
    entry *e = &r->e[r->n];
    memset(e, 0, sizeof *e);
    e->task = pg_xstrdup(task);
    e->family = pg_xstrdup(family);
    e->plan = pg_xstrdup(plan);
    e->ptx = pg_xstrdup(ptx);
    e->descs = pg_xmalloc((size_t)ndescs * sizeof *e->descs);
    e->styles = pg_xmalloc((size_t)ndescs * sizeof *e->styles);
    for (int i = 0; i < ndescs; i++) e->descs[i] = pg_xstrdup(descs[i]), e->styles[i] = pg_xstrdup(styles[i]);
    e->ndescs = ndescs;
    /* the terms: every description, the task name and the family */
    collect c = {.r = r};
    for (int i = 0; i < ndescs; i++) terms_of(descs[i], collect_term, &c);
    terms_of(task, collect_term, &c);
    terms_of(family, collect_term, &c);
    e->len = c.n;
    if (c.n) qsort(c.ids, (size_t)c.n, sizeof *c.ids, cmp_int);
    e->terms = pg_xmalloc((size_t)(c.n ? c.n : 1) * sizeof *e->terms);
    e->tf = pg_xmalloc((size_t)(c.n ? c.n : 1) * sizeof *e->tf);
    for (int i = 0; i < c.n; i++) {
        if (e->nterms && e->terms[e->nterms - 1] == c.ids[i]) { e->tf[e->nterms - 1]++; continue; }
        e->terms[e->nterms] = c.ids[i];
        e->tf[e->nterms++] = 1;
        r->df[c.ids[i]]++;
    }
    free(c.ids);
    r->n++;
    double total = 0;
    for (int i = 0; i < r->n; i++) total += r->e[i].len;
    r->avglen = total / r->n;
    return PG_OK;
}

void gen_retr_free(gen_retr *r) {
    if (!r) return;
    for (int i = 0; i < r->n; i++) {
        entry *e = &r->e[i];
        free(e->task), free(e->family), free(e->plan), free(e->ptx), free(e->terms), free(e->tf);
        for (int j = 0; j < e->ndescs; j++) free(e->descs[j]), free(e->styles[j]);
        free(e->descs), free(e->styles);
    }
    for (int i = 0; i < r->nwords; i++) free(r->word[i]);
    free(r->e), free(r->word), free(r->df), free(r->slot);
    free(r);
}

/* ---- the file ------------------------------------------------------------------------ */

static pg_status line_error(pg_diag_sink *diag, const char *path, int line, const char *what) {
    pg_diag_emit(diag, PG_E_GEN, path, line, 0, "retrieval library: %s", what);
    return PG_ERR_INVALID;
}

static pg_status parse_line(gen_retr *r, json_t *o, const char *path, int line, pg_diag_sink *diag) {
    if (!json_is_object(o)) return line_error(diag, path, line, "a line must be a JSON object");
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v) {
        if (strcmp(key, "task") && strcmp(key, "family") && strcmp(key, "descriptions") && strcmp(key, "plan") && strcmp(key, "ptx")) {
            char msg[200];
            snprintf(msg, sizeof msg, "unknown key '%.80s' (expected task, family, descriptions, plan, ptx)", key);
            return line_error(diag, path, line, msg);
        }
    }
    const char *task = json_string_value(json_object_get(o, "task"));
    const char *family = json_string_value(json_object_get(o, "family"));
    const char *plan = json_string_value(json_object_get(o, "plan"));
    const char *ptx = json_string_value(json_object_get(o, "ptx"));
    json_t *d = json_object_get(o, "descriptions");
    if (!task || !*task) return line_error(diag, path, line, "'task' must be a non-empty string");
    if (!family) return line_error(diag, path, line, "'family' must be a string");
    if (!plan || !ptx) return line_error(diag, path, line, "'plan' and 'ptx' must be strings");
    if (!json_is_object(d) || json_object_size(d) == 0)
        return line_error(diag, path, line, "'descriptions' must be a non-empty object (style: text)");
    size_t nd = json_object_size(d), i = 0;
    const char **descs = pg_xmalloc(nd * sizeof *descs), **styles = pg_xmalloc(nd * sizeof *styles);
    json_object_foreach(d, key, v) {
        styles[i] = key;
        descs[i] = json_string_value(v);
        if (!*key || !descs[i] || !*descs[i]) {
            free(descs), free(styles);
            return line_error(diag, path, line, "every description must be a non-empty string under a non-empty style");
        }
        i++;
    }
    pg_status st = gen_retr_add(r, task, family, styles, descs, (int)nd, plan, ptx);
    free(descs), free(styles);
    if (st == PG_ERR_INVALID) {
        char msg[200];
        snprintf(msg, sizeof msg, "task '%.80s' appears twice", task);
        return line_error(diag, path, line, msg);
    }
    return st;
}

pg_status gen_retr_parse(const char *text, const char *path, gen_retr **out, pg_diag_sink *diag) {
    *out = NULL;
    gen_retr *r = gen_retr_new();
    int line = 0;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        line++;
        bool blank = true;
        for (size_t i = 0; i < n; i++)
            if (!isspace((unsigned char)p[i])) { blank = false; break; }
        if (!blank) {
            json_error_t je;
            json_t *o = json_loadb(p, n, JSON_REJECT_DUPLICATES, &je);
            if (!o) {
                char msg[300];
                snprintf(msg, sizeof msg, "not JSON: %s", je.text);
                line_error(diag, path, line, msg);
                gen_retr_free(r);
                return PG_ERR_INVALID;
            }
            pg_status st = parse_line(r, o, path, line, diag);
            json_decref(o);
            if (st != PG_OK) { gen_retr_free(r); return st; }
        }
        p += n + (nl ? 1 : 0);
    }
    if (r->n == 0) {
        line_error(diag, path, 0, "no kernels");
        gen_retr_free(r);
        return PG_ERR_INVALID;
    }
    *out = r;
    return PG_OK;
}

pg_status gen_retr_load(const char *path, gen_retr **out, pg_diag_sink *diag) {
    char *text = NULL;
    size_t len = 0;
    *out = NULL;
    pg_status st = pg_read_file(path, (size_t)1 << 30, &text, &len, diag);
    if (st != PG_OK) return st;
    if (strlen(text) != len) {
        free(text);
        return line_error(diag, path, 0, "a NUL byte in the file");
    }
    st = gen_retr_parse(text, path, out, diag);
    free(text);
    return st;
}

void gen_retr_print(const gen_retr *r, pg_buf *out) {
    for (int i = 0; i < r->n; i++) {
        const entry *e = &r->e[i];
        json_t *o = json_object(), *d = json_object();
        json_object_set_new(o, "task", json_string(e->task));
        json_object_set_new(o, "family", json_string(e->family));
        for (int j = 0; j < e->ndescs; j++) json_object_set_new(d, e->styles[j], json_string(e->descs[j]));
        json_object_set_new(o, "descriptions", d);
        json_object_set_new(o, "plan", json_string(e->plan));
        json_object_set_new(o, "ptx", json_string(e->ptx));
        char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
        json_decref(o);
        if (!s) pg_oom();
        pg_buf_puts(out, s);
        pg_buf_putc(out, '\n');
        free(s);
    }
}

/* ---- the query ------------------------------------------------------------------------ */

typedef struct {
    const gen_retr *r;
    int *ids, n, cap;
} qcollect;

static void query_term(void *user, const char *s, size_t n) {
    qcollect *c = user;
    int id = term_id((gen_retr *)c->r, s, n, false);
    if (id < 0) return;
    for (int i = 0; i < c->n; i++)
        if (c->ids[i] == id) return;   /* each term of the query counts once */
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 32;
        c->ids = pg_xrealloc(c->ids, (size_t)c->cap * sizeof *c->ids);
    }
    c->ids[c->n++] = id;
}

int gen_retr_query(const gen_retr *r, const char *request, const gen_retr_filter *f, int k, gen_retr_hit *hits) {
    if (!r || !request || k <= 0 || !hits) return 0;
    qcollect q = {.r = r};
    terms_of(request, query_term, &q);
    int found = 0;
    for (int i = 0; i < r->n; i++) {
        const entry *e = &r->e[i];
        if (f && f->exclude_task && !strcmp(f->exclude_task, e->task)) continue;
        if (f && f->max_plan_bytes && strlen(e->plan) > f->max_plan_bytes) continue;
        if (f && f->max_ptx_bytes && strlen(e->ptx) > f->max_ptx_bytes) continue;
        double s = 0;
        for (int j = 0; j < q.n; j++) {
            /* binary search of the kernel's sorted term ids */
            int lo = 0, hi = e->nterms - 1, tf = 0;
            while (lo <= hi) {
                int mid = (lo + hi) / 2;
                if (e->terms[mid] == q.ids[j]) { tf = e->tf[mid]; break; }
                if (e->terms[mid] < q.ids[j]) lo = mid + 1;
                else hi = mid - 1;
            }
            if (!tf) continue;
            double df = r->df[q.ids[j]];
            double idf = log(1.0 + (r->n - df + 0.5) / (df + 0.5));
            s += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * e->len / r->avglen));
        }
        if (s <= 0) continue;
        /* insertion into the top k: higher score first, the earlier kernel on ties */
        int pos = found < k ? found : k;
        while (pos > 0 && hits[pos - 1].score < s) pos--;
        if (pos >= k) continue;
        int last = found < k ? found : k - 1;
        memmove(&hits[pos + 1], &hits[pos], (size_t)(last - pos) * sizeof *hits);
        hits[pos] = (gen_retr_hit){.index = i, .task = e->task, .family = e->family, .plan = e->plan, .ptx = e->ptx, .score = s};
        if (found < k) found++;
    }
    free(q.ids);
    return found;
}

/* ---- a library from synth samples ------------------------------------------------------- */

/* The task names and kernel names of every DIR/<task>/task.json under the folders of `list`
 * (a comma list), appended to names. */
static pg_status excluded_names(const char *list, char ***names, int *n, pg_diag_sink *diag) {
    char *copy = pg_xstrdup(list);
    pg_status st = PG_OK;
    for (char *save = NULL, *dir = strtok_r(copy, ",", &save); dir && st == PG_OK; dir = strtok_r(NULL, ",", &save)) {
        DIR *d = opendir(dir);
        if (!d) {
            pg_diag_emit(diag, PG_E_IO, dir, 0, 0, "cannot read the --exclude folder: %s", strerror(errno));
            st = PG_ERR_IO;
            break;
        }
        struct dirent *ent;
        while (st == PG_OK && (ent = readdir(d))) {
            if (ent->d_name[0] == '.') continue;
            char path[4200];
            snprintf(path, sizeof path, "%s/%s/task.json", dir, ent->d_name);
            if (access(path, F_OK) != 0) continue;   /* not a task folder */
            json_error_t je;
            json_t *t = json_load_file(path, 0, &je);
            const char *name = json_string_value(json_object_get(t, "name"));
            const char *kernel = json_string_value(json_object_get(t, "kernel"));
            if (!name) {
                pg_diag_emit(diag, PG_E_TASK, path, t ? 0 : je.line, 0, "%s", t ? "$.name: missing string" : je.text);
                st = PG_ERR_INVALID;
            } else {
                *names = pg_xrealloc(*names, (size_t)(*n + 2) * sizeof **names);
                (*names)[(*n)++] = pg_xstrdup(name);
                (*names)[(*n)++] = pg_xstrdup(kernel ? kernel : name);
            }
            json_decref(t);
        }
        closedir(d);
    }
    free(copy);
    return st;
}

pg_status gen_retr_add_synth(gen_retr *r, const char *path, const gen_retr_build *b, gen_retr_build_report *rep,
                             pg_diag_sink *diag) {
    memset(rep, 0, sizeof *rep);
    char **names = NULL;
    int nnames = 0;
    if (b->exclude && *b->exclude && excluded_names(b->exclude, &names, &nnames, diag) != PG_OK) {
        for (int i = 0; i < nnames; i++) free(names[i]);
        free(names);
        return PG_ERR_INVALID;
    }
    char *text = NULL;
    size_t len = 0;
    pg_status st = pg_read_file(path, (size_t)1 << 34, &text, &len, diag);
    /* kernels per family so far */
    char **fams = NULL;
    int *fcount = NULL, nfams = 0, line = 0;
    for (const char *p = text; st == PG_OK && p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        line++;
        json_error_t je;
        json_t *o = n ? json_loadb(p, n, 0, &je) : NULL;
        p += n + (nl ? 1 : 0);
        if (!n) continue;
        if (!o) {
            char msg[300];
            snprintf(msg, sizeof msg, "a synth line is not JSON: %s", je.text);
            st = line_error(diag, path, line, msg);
            break;
        }
        const char *split = json_string_value(json_object_get(o, "split"));
        const char *family = json_string_value(json_object_get(o, "family"));
        const char *plan = json_string_value(json_object_get(o, "cuda_c"));
        const char *ptx = json_string_value(json_object_get(o, "ptx_code"));
        json_t *task = json_object_get(o, "task");
        const char *name = json_string_value(json_object_get(task, "name"));
        const char *kernel = json_string_value(json_object_get(task, "kernel"));
        json_t *descs = json_object_get(task, "descriptions");
        rep->lines++;
        if (!family || !ptx || !name || !json_is_object(descs)) {
            json_decref(o);
            st = line_error(diag, path, line, "a synth line needs family, ptx_code and task.name and task.descriptions");
            break;
        }
        bool skip = false;
        if (split && strcmp(split, "train")) { rep->not_train++; skip = true; }
        else if (!plan || !*plan) { rep->no_plan++; skip = true; }
        else if (b->max_ptx_bytes && strlen(ptx) > b->max_ptx_bytes) { rep->too_long++; skip = true; }
        for (int i = 0; !skip && i < nnames; i++)
            if (!strcmp(names[i], name) || (kernel && !strcmp(names[i], kernel))) { rep->excluded++; skip = true; }
        if (!skip && find_task(r, name) >= 0) { rep->duplicates++; skip = true; }
        int fi = -1;
        for (int i = 0; !skip && i < nfams; i++)
            if (!strcmp(fams[i], family)) fi = i;
        if (!skip && fi >= 0 && b->per_family > 0 && fcount[fi] >= b->per_family) { rep->family_full++; skip = true; }
        if (!skip) {
            const char *d[16], *sty[16];
            int nd = 0;
            const char *key;
            json_t *v;
            json_object_foreach(descs, key, v)   /* every style's text; "frames" is not a description */
                if (json_is_string(v) && *json_string_value(v) && *key && nd < 16) sty[nd] = key, d[nd++] = json_string_value(v);
            if (nd == 0) { rep->no_plan++; skip = true; }
            else if (gen_retr_add(r, name, family, sty, d, nd, plan, ptx) != PG_OK) st = line_error(diag, path, line, "cannot add the kernel");
            else {
                rep->added++;
                if (fi < 0) {
                    fams = pg_xrealloc(fams, (size_t)(nfams + 1) * sizeof *fams);
                    fcount = pg_xrealloc(fcount, (size_t)(nfams + 1) * sizeof *fcount);
                    fams[nfams] = pg_xstrdup(family);
                    fcount[nfams] = 0;
                    fi = nfams++;
                }
                fcount[fi]++;
            }
        }
        json_decref(o);
    }
    for (int i = 0; i < nfams; i++) free(fams[i]);
    free(fams), free(fcount), free(text);
    for (int i = 0; i < nnames; i++) free(names[i]);
    free(names);
    rep->families = nfams;
    return st;
}

/* ---- how well the library finds its own families ------------------------------------------ */

int gen_retr_eval(const gen_retr *r, int k, gen_retr_style_eval *out, int max_styles) {
    if (!r || k < 1 || k > 64) return 0;
    int ns = 0;
    gen_retr_hit hits[64];
    for (int i = 0; i < r->n; i++) {
        const entry *e = &r->e[i];
        gen_retr_filter f = {.exclude_task = e->task};
        for (int j = 0; j < e->ndescs; j++) {
            int s = 0;
            while (s < ns && strcmp(out[s].style, e->styles[j])) s++;
            if (s == ns) {
                if (ns == max_styles) continue;
                memset(&out[ns], 0, sizeof out[ns]);
                snprintf(out[ns].style, sizeof out[ns].style, "%s", e->styles[j]);
                ns++;
            }
            int n = gen_retr_query(r, e->descs[j], &f, k, hits);
            out[s].queries++;
            if (n == 0) out[s].none++;
            if (n > 0 && !strcmp(hits[0].family, e->family)) out[s].family_at1++;
            for (int h = 0; h < n; h++)
                if (!strcmp(hits[h].family, e->family)) { out[s].family_atk++; break; }
        }
    }
    return ns;
}
