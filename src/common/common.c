/* common.c — status strings, diagnostics, arena, buffers, atomic file I/O. */
#define _POSIX_C_SOURCE 200809L
#include "ptxgen/common.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

const char *pg_status_str(pg_status s) {
    switch (s) {
    case PG_OK: return "ok";
    case PG_ERR_IO: return "i/o error";
    case PG_ERR_PARSE: return "parse error";
    case PG_ERR_INVALID: return "invalid";
    case PG_ERR_NOMEM: return "out of memory";
    case PG_ERR_LIMIT: return "limit exceeded";
    case PG_ERR_USAGE: return "usage error";
    case PG_ERR_EXTERNAL: return "external tool failed";
    }
    return "?";
}

static const struct { const char *code, *name; pg_severity sev; } diag_tab[] = {
#define PG_DIAG(id, code, name, sev) {code, name, sev},
#include "ptxgen/diag_codes.def"
#undef PG_DIAG
};

const char *pg_diag_code(pg_diag_id id) { return id < PG_DIAG__COUNT ? diag_tab[id].code : "E000"; }
const char *pg_diag_name(pg_diag_id id) { return id < PG_DIAG__COUNT ? diag_tab[id].name : "?"; }
pg_severity pg_diag_default_sev(pg_diag_id id) { return id < PG_DIAG__COUNT ? diag_tab[id].sev : PG_SEV_ERROR; }

void pg_diag_vemit(pg_diag_sink *s, pg_diag_id id, const char *file, int line, int col,
                   const char *fmt, va_list ap) {
    if (!s) return;
    pg_diag d;
    d.sev = pg_diag_default_sev(id);
    d.id = id;
    d.code = pg_diag_code(id);
    d.name = pg_diag_name(id);
    d.file = file;
    d.line = line;
    d.col = col;
    vsnprintf(d.msg, sizeof d.msg, fmt, ap);
    if (d.sev == PG_SEV_ERROR) {
        s->nerrors++;
        if (s->max_errors && s->nerrors > s->max_errors) return;
    } else if (d.sev == PG_SEV_WARNING) {
        s->nwarnings++;
    }
    if (s->fn) s->fn(s->user, &d);
}

void pg_diag_emit(pg_diag_sink *s, pg_diag_id id, const char *file, int line, int col,
                  const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    pg_diag_vemit(s, id, file, line, col, fmt, ap);
    va_end(ap);
}

void pg_diag_format(const pg_diag *d, char *buf, size_t n) {
    const char *sev = d->sev == PG_SEV_ERROR ? "error" : d->sev == PG_SEV_WARNING ? "warning" : "note";
    if (d->line > 0)
        snprintf(buf, n, "%s:%d:%d: %s[%s]: %s", d->file ? d->file : "<input>", d->line,
                 d->col > 0 ? d->col : 1, sev, d->code, d->msg);
    else
        snprintf(buf, n, "%s: %s[%s]: %s", d->file ? d->file : "<input>", sev, d->code, d->msg);
}

/* ---- arena ---- */
struct pg_arena_block { pg_arena_block *next; size_t used, cap; _Alignas(16) char data[]; };

void *pg_arena_alloc(pg_arena *a, size_t n) {
    n = (n + 15) & ~(size_t)15;
    pg_arena_block *b = a->head;
    if (!b || b->used + n > b->cap) {
        size_t cap = n > 65536 ? n : 65536;
        b = malloc(sizeof *b + cap);
        if (!b) { fputs("ptxgen: out of memory\n", stderr); abort(); }
        b->next = a->head; b->used = 0; b->cap = cap;
        a->head = b;
        a->total += cap;
    }
    void *p = b->data + b->used;
    b->used += n;
    memset(p, 0, n);
    return p;
}

char *pg_arena_strndup(pg_arena *a, const char *s, size_t n) {
    char *p = pg_arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}
char *pg_arena_strdup(pg_arena *a, const char *s) { return pg_arena_strndup(a, s, strlen(s)); }

void pg_arena_free(pg_arena *a) {
    pg_arena_block *b = a->head;
    while (b) { pg_arena_block *n = b->next; free(b); b = n; }
    a->head = NULL;
    a->total = 0;
}

/* ---- buffers ---- */
static void buf_reserve(pg_buf *b, size_t extra) {
    if (b->len + extra + 1 <= b->cap) return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1) cap *= 2;
    char *p = realloc(b->data, cap);
    if (!p) { fputs("ptxgen: out of memory\n", stderr); abort(); }
    b->data = p;
    b->cap = cap;
}
void pg_buf_putn(pg_buf *b, const char *s, size_t n) {
    buf_reserve(b, n);
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = 0;
}
void pg_buf_putc(pg_buf *b, char c) { pg_buf_putn(b, &c, 1); }
void pg_buf_puts(pg_buf *b, const char *s) { pg_buf_putn(b, s, strlen(s)); }
void pg_buf_printf(pg_buf *b, const char *fmt, ...) {
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) { va_end(ap2); return; }
    buf_reserve(b, (size_t)n);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    b->len += (size_t)n;
}
void pg_buf_free(pg_buf *b) { free(b->data); b->data = NULL; b->len = b->cap = 0; }

void *pg_vec_grow_(void *v, int *cap, size_t elem, int need) {
    int c = *cap ? *cap : 8;
    while (c < need) c *= 2;
    void *p = realloc(v, (size_t)c * elem);
    if (!p) { fputs("ptxgen: out of memory\n", stderr); abort(); }
    *cap = c;
    return p;
}

/* ---- files ---- */
pg_status pg_read_file(const char *path, size_t max_bytes, char **out, size_t *len,
                       pg_diag_sink *diag) {
    *out = NULL;
    if (len) *len = 0;
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) {
        pg_diag_emit(diag, PG_E_IO, path, 0, 0, "cannot open: %s", strerror(errno));
        return PG_ERR_IO;
    }
    pg_buf b = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (b.len + n > max_bytes) {
            pg_diag_emit(diag, PG_E_LIMIT, path, 0, 0, "file larger than the %zu-byte limit", max_bytes);
            if (f != stdin) fclose(f);
            pg_buf_free(&b);
            return PG_ERR_LIMIT;
        }
        pg_buf_putn(&b, chunk, n);
    }
    int err = ferror(f);
    if (f != stdin) fclose(f);
    if (err) {
        pg_diag_emit(diag, PG_E_IO, path, 0, 0, "read error");
        pg_buf_free(&b);
        return PG_ERR_IO;
    }
    if (!b.data) pg_buf_putn(&b, "", 0);
    *out = b.data;
    if (len) *len = b.len;
    return PG_OK;
}

pg_status pg_write_file_atomic(const char *path, const char *data, size_t len, pg_diag_sink *diag) {
    size_t n = strlen(path);
    char *tmp = malloc(n + 32);
    if (!tmp) return PG_ERR_NOMEM;
    snprintf(tmp, n + 32, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        pg_diag_emit(diag, PG_E_IO, path, 0, 0, "cannot create %s: %s", tmp, strerror(errno));
        free(tmp);
        return PG_ERR_IO;
    }
    bool ok = len == 0 || fwrite(data, 1, len, f) == len;   /* data may be NULL when len is 0 */
    ok = (fflush(f) == 0) && ok;
    ok = (fsync(fileno(f)) == 0) && ok;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        pg_diag_emit(diag, PG_E_IO, path, 0, 0, "write failed: %s", strerror(errno));
        unlink(tmp);
        free(tmp);
        return PG_ERR_IO;
    }
    free(tmp);
    return PG_OK;
}

/* ---- temporary files -----------------------------------------------------------
 * With pg_tmp_cleanup_install() every temp path of the library lives in one
 * private folder, removed when the process exits and when SIGINT, SIGTERM or
 * SIGHUP kills it.  The handler only calls fork, execve and waitpid (all
 * async-signal-safe) to run `rm -rf` on that folder, then re-raises the signal.
 * Only the installing process removes it: forked workers share the folder. */
static char tmp_root[512];                /* "" until installed: then temp paths go to $TMPDIR or /tmp */
static char *tmp_rm_argv[4];
static pid_t tmp_owner;

static void tmp_remove_root(void) {
    if (!tmp_root[0] || getpid() != tmp_owner) return;
    if (rmdir(tmp_root) == 0 || errno == ENOENT) return;   /* the usual case: nothing was left in it */
    pid_t p = fork();
    if (p == 0) {
        char *env[] = {NULL};
        execve(tmp_rm_argv[0], tmp_rm_argv, env);
        _exit(127);
    }
    if (p > 0) while (waitpid(p, NULL, 0) < 0 && errno == EINTR) {}
}

static void tmp_on_signal(int sig) {
    int saved = errno;
    tmp_remove_root();
    signal(sig, SIG_DFL);
    errno = saved;
    raise(sig);
}

static void tmp_at_exit(void) { tmp_remove_root(); }

bool pg_tmp_cleanup_install(const char *tag) {
    if (tmp_root[0]) return true;
    const char *base = getenv("TMPDIR");
    char root[sizeof tmp_root];
    snprintf(root, sizeof root, "%s/ptxgen-%s-XXXXXX", base && *base ? base : "/tmp", tag ? tag : "run");
    if (!mkdtemp(root)) return false;
    memcpy(tmp_root, root, sizeof root);
    static char rm[16], flag[] = "-rf";
    snprintf(rm, sizeof rm, "%s", access("/bin/rm", X_OK) == 0 ? "/bin/rm" : "/usr/bin/rm");
    tmp_rm_argv[0] = rm;
    tmp_rm_argv[1] = flag;
    tmp_rm_argv[2] = tmp_root;
    tmp_rm_argv[3] = NULL;
    tmp_owner = getpid();
    atexit(tmp_at_exit);
    int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa, old;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = tmp_on_signal;
        sigemptyset(&sa.sa_mask);
        /* a signal the caller ignores (nohup) stays ignored */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        sigaction(sigs[i], &sa, NULL);
    }
    return true;
}

void pg_tmp_path(char *out, size_t n, const char *name) {
    const char *base = getenv("TMPDIR");
    snprintf(out, n, "%s/%s", tmp_root[0] ? tmp_root : base && *base ? base : "/tmp", name);
}
