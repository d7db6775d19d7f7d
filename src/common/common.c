/* common.c — status strings, diagnostics, arena, buffers, atomic file I/O. */
#define _GNU_SOURCE   /* fopencookie: streams that remember why a write failed */
#include "ptxgen/common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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

/* Bytes of s that are not UTF-8 (quoted from a binary or Latin-1 input) become "\xNN", so
 * every message can go into JSON and onto a terminal as it is (truncated to fit n). */
static void utf8_escape(char *s, size_t n) {
    const unsigned char *p = (const unsigned char *)s;
    size_t bad = 0;
    for (const unsigned char *q = p; *q;) {
        int k = *q < 0x80 ? 1 : (*q >> 5) == 6 ? 2 : (*q >> 4) == 14 ? 3 : (*q >> 3) == 30 ? 4 : 0;
        bool ok = k > 0;
        for (int j = 1; ok && j < k; j++) ok = (q[j] & 0xc0) == 0x80;
        if (!ok) { bad++; q++; } else q += k;
    }
    if (!bad) return;
    char out[1024];
    size_t o = 0;
    for (const unsigned char *q = p; *q && o + 5 < sizeof out;) {
        int k = *q < 0x80 ? 1 : (*q >> 5) == 6 ? 2 : (*q >> 4) == 14 ? 3 : (*q >> 3) == 30 ? 4 : 0;
        bool ok = k > 0;
        for (int j = 1; ok && j < k; j++) ok = (q[j] & 0xc0) == 0x80;
        if (!ok) { o += (size_t)snprintf(out + o, sizeof out - o, "\\x%02X", *q); q++; continue; }
        for (int j = 0; j < k && o + 1 < sizeof out; j++) out[o++] = (char)*q++;
    }
    out[o] = 0;
    size_t m = o < n - 1 ? o : n - 1;
    memcpy(s, out, m);
    s[m] = 0;
}

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
    utf8_escape(d.msg, sizeof d.msg);
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

/* Freed blocks of the standard size wait here for the next arena (at most
 * ARENA_SPARE_MAX, 2 MB): parsing many small modules one after another
 * (bench_ptx, the fuzzer, the decoder's checks) otherwise returns the pages to
 * the kernel on each free and faults them in again on the next parse, which
 * cost 13% of the validator's time on the dense nvcc files (perf, issue 30). */
enum { ARENA_BLOCK = 65536, ARENA_SPARE_MAX = 32 };
static pthread_mutex_t arena_spare_mu = PTHREAD_MUTEX_INITIALIZER;
static pg_arena_block *arena_spare;
static int arena_nspare;

void *pg_arena_alloc_raw(pg_arena *a, size_t n) {
    n = (n + 15) & ~(size_t)15;
    pg_arena_block *b = a->head;
    if (!b || b->used + n > b->cap) {
        size_t cap = n > ARENA_BLOCK ? n : ARENA_BLOCK;
        b = NULL;
        if (cap == ARENA_BLOCK) {
            pthread_mutex_lock(&arena_spare_mu);
            if ((b = arena_spare)) { arena_spare = b->next; arena_nspare--; }
            pthread_mutex_unlock(&arena_spare_mu);
        }
        if (!b && !(b = malloc(sizeof *b + cap))) pg_oom();
        b->next = a->head; b->used = 0; b->cap = cap;
        a->head = b;
        a->total += cap;
    }
    void *p = b->data + b->used;
    b->used += n;
    return p;
}

void *pg_arena_alloc(pg_arena *a, size_t n) { return memset(pg_arena_alloc_raw(a, n), 0, n); }

char *pg_arena_strndup(pg_arena *a, const char *s, size_t n) {
    char *p = pg_arena_alloc_raw(a, n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}
char *pg_arena_strdup(pg_arena *a, const char *s) { return pg_arena_strndup(a, s, strlen(s)); }

void pg_arena_free(pg_arena *a) {
    pg_arena_block *b = a->head;
    while (b) {
        pg_arena_block *n = b->next;
        bool kept = false;
        if (b->cap == ARENA_BLOCK) {
            pthread_mutex_lock(&arena_spare_mu);
            if ((kept = arena_nspare < ARENA_SPARE_MAX)) { b->next = arena_spare; arena_spare = b; arena_nspare++; }
            pthread_mutex_unlock(&arena_spare_mu);
        }
        if (!kept) free(b);
        b = n;
    }
    a->head = NULL;
    a->total = 0;
}

/* ---- buffers ---- */
static void buf_reserve(pg_buf *b, size_t extra) {
    if (b->len + extra + 1 <= b->cap) return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1) cap *= 2;
    char *p = realloc(b->data, cap);
    if (!p) pg_oom();
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
    if (!p) pg_oom();
    *cap = c;
    return p;
}

/* ---- files ---- */
bool pg_read_full(int fd, void *p, size_t n) {
    char *b = p;
    while (n) {
        ssize_t k = read(fd, b, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return false;
        b += k;
        n -= (size_t)k;
    }
    return true;
}

bool pg_send_full(int fd, const void *p, size_t n) {
    const char *b = p;
    while (n) {
        ssize_t k = send(fd, b, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return false;
        b += k;
        n -= (size_t)k;
    }
    return true;
}

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

/* ---- output files (pg_out) ------------------------------------------------------
 * Temporary files of open outputs are listed in `live` so that an exit without
 * pg_out_close (atexit) or a fatal signal (the pg_tmp_cleanup_install handler)
 * removes them: the handler may only read the table and call unlink, so a
 * slot holds a malloc'd path claimed and released with atomic operations. */
#define LIVE_MAX 64
static struct { char *volatile path; volatile pid_t pid; } live[LIVE_MAX];
static bool live_atexit;

static void live_remove_all(void) {   /* async-signal-safe */
    pid_t me = getpid();
    for (int i = 0; i < LIVE_MAX; i++) {
        char *p = __atomic_load_n(&live[i].path, __ATOMIC_ACQUIRE);
        if (p && live[i].pid == me) unlink(p);
    }
}

static int live_add(char *path) {
    if (!__atomic_exchange_n(&live_atexit, true, __ATOMIC_ACQ_REL)) atexit(live_remove_all);
    for (int i = 0; i < LIVE_MAX; i++) {
        char *none = NULL;
        if (__atomic_compare_exchange_n(&live[i].path, &none, path, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            live[i].pid = getpid();   /* until this store a handler may skip the slot: a missed unlink, never another's */
            return i;
        }
    }
    return -1;   /* a full table only loses the clean-up on a signal, not correctness */
}

static void live_drop(int slot) {
    if (slot >= 0) __atomic_store_n(&live[slot].path, NULL, __ATOMIC_RELEASE);
}

static void tmp_remove_root(void);

_Noreturn void pg_oom(void) {
    /* One thread leaves, with status 2: exit() from a worker thread while the main thread is in
     * exit() too is undefined, and was seen ending with status 0 and no output (logits, malloc
     * sweep).  So the temporary files are removed here (what the atexit handlers would do; both
     * removers are async-signal-safe) and the process ends with _exit; a second caller waits. */
    static int leaving;
    if (__atomic_exchange_n(&leaving, 1, __ATOMIC_ACQ_REL)) for (;;) pause();
    static const char msg[] = "ptxgen: out of memory\n";
    if (write(2, msg, sizeof msg - 1) < 0) { /* nothing more to do */ }
    live_remove_all();
    tmp_remove_root();
    _exit(2);
}

pg_status pg_nomem_said(pg_status st, pg_diag_sink *diag, int e0, const char *file, const char *what) {
    if (st == PG_ERR_NOMEM && diag && diag->nerrors == e0) pg_diag_emit(diag, PG_E_IO, file, 0, 0, "out of memory while %s", what);
    return st;
}

void *pg_xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) pg_oom();
    return p;
}
void *pg_xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) pg_oom();
    return p;
}
void *pg_xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q) pg_oom();
    return q;
}
char *pg_xstrdup(const char *s) {
    char *d = strdup(s);
    if (!d) pg_oom();
    return d;
}

/* A stream over a descriptor whose writes go through write(2) here, so the
 * cause of the first failed write is kept (the C library's streams keep only
 * an error flag, and errno is long gone when the stream is closed). */
typedef struct { int fd; int err; bool own; } fd_cookie;

static ssize_t ck_write(void *c, const char *buf, size_t n) {
    fd_cookie *k = c;
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(k->fd, buf + done, n - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            if (!k->err) k->err = w < 0 ? errno : EIO;
            errno = k->err;
            /* what was written, never -1: fopencookie(3) says a write function returns 0 on error, and
             * glibc's xsputn subtracts a -1 from its count and overruns the buffer (`ptxgen isa`, write 1) */
            return (ssize_t)done;
        }
        done += (size_t)w;
    }
    return (ssize_t)done;
}

static int ck_close(void *c) {
    fd_cookie *k = c;
    int r = k->own ? close(k->fd) : 0;
    if (r != 0 && !k->err) k->err = errno;
    free(k);
    return r;
}

/* The stream and its cookie (*ck; owned by the stream, valid until fclose). */
static FILE *fd_stream(int fd, bool own, fd_cookie **ck) {
    fd_cookie *k = calloc(1, sizeof *k);
    if (!k) return NULL;
    k->fd = fd;
    k->own = own;
    cookie_io_functions_t io = {NULL, ck_write, NULL, ck_close};
    FILE *f = fopencookie(k, "w", io);
    if (!f) { free(k); return NULL; }
    *ck = k;
    return f;
}

static fd_cookie *stdout_ck;       /* set by pg_stdout_install */
static bool stdout_reported;       /* a stdout failure was already reported */

bool pg_stdout_install(void) {
    if (stdout_ck) return true;
    fflush(stdout);
    fd_cookie *k;
    FILE *f = fd_stream(1, false, &k);
    if (!f) return false;
    setvbuf(f, NULL, isatty(1) ? _IOLBF : _IOFBF, BUFSIZ);
    stdout = f;
    stdout_ck = k;
    return true;
}

/* Why stdout failed: the recorded cause, else errno (EIO when none). */
static int stdout_err(int fallback) { return stdout_ck && stdout_ck->err ? stdout_ck->err : fallback ? fallback : EIO; }

typedef enum { OUT_STDOUT, OUT_DIRECT, OUT_ATOMIC } out_kind;

/* Every output or temporary file that could not be written, counted (see pg_io_failures). */
static volatile unsigned io_failures;

static void io_failed_note(const char *path, pg_diag_sink *diag) {
    (void)path;
    (void)diag;
    __atomic_fetch_add(&io_failures, 1, __ATOMIC_RELAXED);
}
unsigned pg_io_failures(void) { return __atomic_load_n(&io_failures, __ATOMIC_RELAXED); }

struct pg_out {
    FILE *f;
    fd_cookie *ck;  /* the stream's cookie (not for stdout) */
    int fd;         /* the descriptor under f (not for stdout) */
    out_kind kind;
    unsigned flags;
    char *name;     /* as given: diagnostics name it */
    char *target;   /* the file written (a link's final target) */
    char *tmp;      /* OUT_ATOMIC: the temporary beside target */
    int slot;       /* in `live` */
};

/* "/dev/fd/N", "/proc/self/fd/N" or "/proc/<our pid>/fd/N": N, else -1. */
static int fd_path(const char *p) {
    char self[64];
    snprintf(self, sizeof self, "/proc/%ld/fd/", (long)getpid());
    const char *rest = !strncmp(p, "/dev/fd/", 8) ? p + 8 : !strncmp(p, "/proc/self/fd/", 14) ? p + 14
                       : !strncmp(p, self, strlen(self)) ? p + strlen(self) : NULL;
    if (!rest || !*rest || strspn(rest, "0123456789") != strlen(rest) || strlen(rest) > 6) return -1;
    return atoi(rest);
}

/* Follow symbolic links to the final target (which need not exist).  Returns a
 * malloc'd path and sets *fd to a descriptor number when the chain reaches one
 * of ours (/dev/stdout -> /proc/self/fd/1), else -1.  NULL with errno ELOOP
 * after 40 links. */
static char *resolve_links(const char *path, int *fd) {
    char *cur = strdup(path);
    *fd = -1;
    for (int hop = 0; cur && hop < 40; hop++) {
        if ((*fd = fd_path(cur)) >= 0) return cur;
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) return cur;
        char link[4096];
        ssize_t n = readlink(cur, link, sizeof link - 1);
        if (n < 0) return cur;
        link[n] = 0;
        pg_buf next = {0};
        const char *slash = strrchr(cur, '/');
        if (link[0] != '/' && slash) pg_buf_putn(&next, cur, (size_t)(slash - cur) + 1);   /* relative to the link's folder */
        pg_buf_puts(&next, link);
        free(cur);
        cur = next.data;
    }
    free(cur);
    errno = ELOOP;
    return NULL;
}

static void out_free(pg_out *o) {
    live_drop(o->slot);
    free(o->name);
    free(o->target);
    free(o->tmp);
    free(o);
}

/* The folder part of path ("." when none). */
static void dir_of(const char *path, char *dir, size_t n) {
    const char *slash = strrchr(path, '/');
    snprintf(dir, n, "%.*s", slash ? (int)(slash - path) + (slash == path) : 1, slash ? path : ".");
}

/* Temporaries that a killed process left beside target ("<name>.tmp.<pid>.<n>" whose pid is
 * gone: SIGKILL runs no clean-up) are removed when the output is written again, so a crash
 * leaves nothing behind once the job is rerun.  A live pid's (another writer's) are kept. */
/* Is process pid still running?  A zombie is not: a killed writer whose parent died with it may
 * wait unreaped under a PID 1 that does not reap (containers), and kill(pid, 0) still succeeds. */
static bool pid_running(long pid) {
    if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) return false;
    char p[64], buf[512];
    snprintf(p, sizeof p, "/proc/%ld/stat", pid);
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return true;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return true;
    buf[n] = 0;
    const char *rp = strrchr(buf, ')');   /* "pid (comm) S ...": the state follows the name */
    return !(rp && rp[1] == ' ' && rp[2] == 'Z');
}

static void remove_stale_temps(const char *target) {
    char dir[4096];
    dir_of(target, dir, sizeof dir);
    const char *base = strrchr(target, '/');
    base = base ? base + 1 : target;
    size_t bl = strlen(base);
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (strncmp(e->d_name, base, bl) || strncmp(e->d_name + bl, ".tmp.", 5)) continue;
        char *end;
        long pid = strtol(e->d_name + bl + 5, &end, 10);
        if (end == e->d_name + bl + 5 || *end != '.' || pid <= 0 || pid == (long)getpid()) continue;
        if (pid_running(pid)) continue;
        char p[8400];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        unlink(p);
    }
    if (d) closedir(d);
}

/* pg_out_open, or with dry set only its checks (pg_out_check): nothing is created. */
static pg_status out_open(const char *path, unsigned flags, bool dry, pg_out **out, pg_diag_sink *diag) {
    *out = NULL;
    if (!path || !*path) {
        pg_diag_emit(diag, PG_E_IO, NULL, 0, 0, "an output needs a file name");
        return PG_ERR_USAGE;
    }
    pg_out *o = calloc(1, sizeof *o);
    if (!o || !(o->name = strdup(path))) { free(o); pg_diag_emit(diag, PG_E_IO, path, 0, 0, "out of memory"); return PG_ERR_NOMEM; }
    o->flags = flags;
    o->slot = -1;
    if (!strcmp(path, "-")) {
        o->kind = OUT_STDOUT;
        o->f = stdout;
        *out = o;
        return PG_OK;
    }
    int fd;
    o->target = resolve_links(path, &fd);
    if (!o->target) {
        pg_diag_emit(diag, PG_E_IO, path, 0, 0, "cannot resolve the link: %s", strerror(errno));
        out_free(o);
        return PG_ERR_IO;
    }
    struct stat st;
    bool exists = fd < 0 && stat(o->target, &st) == 0;
    if (fd == 1) {   /* /dev/stdout: the stdout stream, so it stays in order with what else is printed */
        o->kind = OUT_STDOUT;
        o->f = stdout;
    } else if (dry && fd >= 0) {
        o->kind = OUT_DIRECT;
    } else if (fd >= 0) {
        if (fd == 2) fflush(stderr);   /* one of our descriptors: written through a duplicate, so its offset is shared */
        int d = dup(fd);
        o->f = d >= 0 ? fd_stream(d, true, &o->ck) : NULL;
        o->fd = d;
        if (!o->f) {
            pg_diag_emit(diag, PG_E_IO, path, 0, 0, "cannot write to descriptor %d: %s", fd, strerror(errno));
            if (d >= 0) close(d);
            out_free(o);
            return PG_ERR_IO;
        }
        o->kind = OUT_DIRECT;
    } else if (exists && S_ISDIR(st.st_mode)) {
        pg_diag_emit(diag, PG_E_IO, path, 0, 0, "is a folder; name a file");
        out_free(o);
        return PG_ERR_IO;
    } else if (exists && !S_ISREG(st.st_mode) && dry) {
        if (access(o->target, W_OK) != 0) {
            pg_diag_emit(diag, PG_E_IO, path, 0, 0, "cannot open for writing: %s", strerror(errno));
            out_free(o);
            return PG_ERR_IO;
        }
        o->kind = OUT_DIRECT;
    } else if (exists && !S_ISREG(st.st_mode)) {   /* a device, FIFO or socket: cannot be renamed onto */
        int d = open(o->target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        o->f = d >= 0 ? fd_stream(d, true, &o->ck) : NULL;
        o->fd = d;
        if (!o->f) {
            pg_diag_emit(diag, PG_E_IO, path, 0, 0, "cannot open for writing: %s", strerror(errno));
            if (d >= 0) close(d);
            out_free(o);
            return PG_ERR_IO;
        }
        o->kind = OUT_DIRECT;
    } else {
        if (exists && (flags & PG_OUT_NO_CLOBBER)) {
            pg_diag_emit(diag, PG_E_IO, path, 0, 0, "exists; not overwritten (use --force to replace it)");
            out_free(o);
            return PG_ERR_IO;
        }
        o->kind = OUT_ATOMIC;
        if (dry) {
            char dir[4096];
            dir_of(o->target, dir, sizeof dir);
            if (access(dir, W_OK | X_OK) != 0) {
                pg_diag_emit(diag, PG_E_IO, path, 0, 0, "cannot create files in %s: %s", dir, strerror(errno));
                out_free(o);
                return PG_ERR_IO;
            }
            *out = o;
            return PG_OK;
        }
        remove_stale_temps(o->target);
        static unsigned seq;
        size_t n = strlen(o->target) + 48;
        o->tmp = malloc(n);
        int d = -1;
        for (int attempt = 0; o->tmp && d < 0 && attempt < 100; attempt++) {
            snprintf(o->tmp, n, "%s.tmp.%ld.%u", o->target, (long)getpid(), __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
            d = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, exists ? (st.st_mode & 0777) : 0666);
            if (d < 0 && errno != EEXIST) break;
        }
        if (d < 0) {
            pg_diag_emit(diag, PG_E_IO, path, 0, 0, "cannot create a temporary file beside it: %s", o->tmp ? strerror(errno) : "out of memory");
            out_free(o);
            return PG_ERR_IO;
        }
        o->slot = live_add(o->tmp);
        if (exists) fchmod(d, st.st_mode & 07777);   /* the umask does not narrow a replaced file's mode */
        o->f = fd_stream(d, true, &o->ck);
        o->fd = d;
        if (!o->f) {
            pg_diag_emit(diag, PG_E_IO, path, 0, 0, "cannot write: %s", strerror(errno));
            close(d);
            unlink(o->tmp);
            out_free(o);
            return PG_ERR_IO;
        }
    }
    *out = o;
    return PG_OK;
}

pg_status pg_out_open(const char *path, unsigned flags, pg_out **out, pg_diag_sink *diag) {
    pg_status st = out_open(path, flags, false, out, diag);
    if (st != PG_OK) io_failed_note(path, diag);
    return st;
}

bool pg_out_is_stdout(const char *path) {
    if (!path) return false;
    if (!strcmp(path, "-")) return true;
    int fd;
    char *t = resolve_links(path, &fd);
    free(t);
    return fd == 1;
}

pg_status pg_out_check(const char *path, unsigned flags, bool *is_file, pg_diag_sink *diag) {
    pg_out *o;
    pg_status st = out_open(path, flags, true, &o, diag);
    if (is_file) *is_file = st == PG_OK && o->kind == OUT_ATOMIC;
    if (st == PG_OK) out_free(o);
    return st;
}

FILE *pg_out_stream(pg_out *o) { return o->f; }
const char *pg_out_target(const pg_out *o) { return o->target ? o->target : o->name; }
bool pg_out_is_file(const pg_out *o) { return o->kind == OUT_ATOMIC; }

void pg_out_discard(pg_out *o) {
    if (!o) return;
    if (o->kind == OUT_STDOUT) fflush(stdout);
    else if (o->f) fclose(o->f);
    if (o->tmp) unlink(o->tmp);
    out_free(o);
}

/* fsync the folder that holds path, so a rename survives a power loss too;
 * best effort (some file systems refuse it): the file itself is complete. */
static void sync_parent(const char *path) {
    char dir[4096];
    dir_of(path, dir, sizeof dir);
    int d = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (d >= 0) { (void)fsync(d); close(d); }
}

pg_status pg_out_close(pg_out *o, pg_diag_sink *diag) {
    if (!o) return PG_ERR_USAGE;
    int err = 0;
    const char *what = "write";
    errno = 0;
    bool bad = fflush(o->f) != 0 || ferror(o->f);
    if (o->kind == OUT_STDOUT) {
        if (bad) err = stdout_err(errno);
        if (err && err != EPIPE) {
            pg_diag_emit(diag, PG_E_IO, "<stdout>", 0, 0, "write failed: %s", strerror(err));
            stdout_reported = true;
        }
        if (err) io_failed_note("<stdout>", diag);
        out_free(o);
        return err ? PG_ERR_IO : PG_OK;
    }
    if (bad) err = o->ck->err ? o->ck->err : errno ? errno : EIO;
    if (!err && o->kind == OUT_ATOMIC && fsync(o->fd) != 0) { err = errno; what = "fsync"; }
    int close_err = 0;
    if (fclose(o->f) != 0) close_err = errno ? errno : EIO;   /* the cookie is freed with the stream */
    o->f = NULL;
    if (!err && close_err) { err = close_err; what = "close"; }
    if (!err && o->kind == OUT_ATOMIC) {
        if (o->flags & PG_OUT_NO_CLOBBER) {   /* link(2) refuses an existing name, where rename would replace it */
            if (link(o->tmp, o->target) == 0) unlink(o->tmp);
            else if (errno == EEXIST) { err = EEXIST; what = "exists"; }
            else {   /* a file system without hard links */
                struct stat st;
                if (lstat(o->target, &st) == 0) { err = EEXIST; what = "exists"; }
                else if (rename(o->tmp, o->target) != 0) { err = errno; what = "rename"; }
            }
        } else if (rename(o->tmp, o->target) != 0) {
            err = errno;
            what = "rename";
        }
        if (!err) sync_parent(o->target);
    }
    if (err) {
        if (!strcmp(what, "exists"))
            pg_diag_emit(diag, PG_E_IO, o->name, 0, 0, "exists; not overwritten (use --force to replace it)");
        else if (err == EPIPE)
            pg_diag_emit(diag, PG_E_IO, o->name, 0, 0, "%s failed: the reader closed the pipe", what);
        else
            pg_diag_emit(diag, PG_E_IO, o->name, 0, 0, "%s failed: %s", what, strerror(err));
        if (o->tmp) unlink(o->tmp);
        io_failed_note(o->name, diag);
        out_free(o);
        return PG_ERR_IO;
    }
    out_free(o);
    return PG_OK;
}

pg_status pg_write_file(const char *path, const char *data, size_t len, unsigned flags, pg_diag_sink *diag) {
    pg_out *o;
    pg_status st = pg_out_open(path, flags, &o, diag);
    if (st != PG_OK) return st;
    if (len && fwrite(data, 1, len, pg_out_stream(o)) != len) {   /* data may be NULL when len is 0 */
        /* pg_out_close reports it: the stream's error flag is set */
    }
    return pg_out_close(o, diag);
}

pg_status pg_write_file_atomic(const char *path, const char *data, size_t len, pg_diag_sink *diag) {
    return pg_write_file(path, data, len, 0, diag);
}

pg_status pg_out_move(const char *path, const char *from, unsigned flags, pg_diag_sink *diag) {
    pg_out *o;
    pg_status st = pg_out_open(path, flags, &o, diag);
    if (st != PG_OK) return st;
    if (o->kind == OUT_ATOMIC) {   /* the complete file itself takes the target's name */
        fclose(o->f);
        o->f = NULL;
        unlink(o->tmp);
        int r;
        if (flags & PG_OUT_NO_CLOBBER) r = link(from, o->target) == 0 ? unlink(from) : -1;
        else r = rename(from, o->target);
        if (r == 0) {
            sync_parent(o->target);
            out_free(o);
            return PG_OK;
        }
        if (errno != EXDEV) {
            pg_diag_emit(diag, PG_E_IO, path, 0, 0, errno == EEXIST ? "exists; not overwritten (use --force to replace it)"
                                                                      : "rename of %s failed: %s", from, strerror(errno));
            io_failed_note(path, diag);
            out_free(o);
            return PG_ERR_IO;
        }
        out_free(o);   /* another file system: copied below */
        if ((st = pg_out_open(path, flags, &o, diag)) != PG_OK) return st;
    }
    int fd = open(from, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        pg_diag_emit(diag, PG_E_IO, from, 0, 0, "cannot open: %s", strerror(errno));
        pg_out_discard(o);
        return PG_ERR_IO;
    }
    char buf[65536];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        if (fwrite(buf, 1, (size_t)n, o->f) != (size_t)n) break;   /* pg_out_close reports it */
    int rerr = n < 0 ? errno : 0;
    close(fd);
    if (rerr) {
        pg_diag_emit(diag, PG_E_IO, from, 0, 0, "read failed: %s", strerror(rerr));
        pg_out_discard(o);
        return PG_ERR_IO;
    }
    if ((st = pg_out_close(o, diag)) != PG_OK) return st;
    unlink(from);
    return PG_OK;
}

pg_status pg_write_tmp(const char *name, const char *data, size_t len, char *path, size_t pathn, pg_diag_sink *diag) {
    pg_tmp_path(path, pathn, name);
    int fd = mkstemp(path);
    int err = fd < 0 ? errno : 0;
    for (size_t off = 0; !err && off < len;) {
        ssize_t w = write(fd, data + off, len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) err = w < 0 ? errno : EIO;
        else off += (size_t)w;
    }
    if (fd >= 0 && close(fd) != 0 && !err) err = errno;
    if (!err) return PG_OK;
    pg_diag_emit(diag, PG_E_IO, path, 0, 0, "cannot write a temporary file: %s", strerror(err));
    io_failed_note(path, diag);
    if (fd >= 0) unlink(path);
    return PG_ERR_IO;
}

pg_status pg_stdout_finish(pg_diag_sink *diag) {
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout)) return PG_OK;
    int err = stdout_err(errno);
    if (err != EPIPE && !stdout_reported) pg_diag_emit(diag, PG_E_IO, "<stdout>", 0, 0, "write failed: %s", strerror(err));
    stdout_reported = true;
    return PG_ERR_IO;
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
    live_remove_all();
    tmp_remove_root();
    signal(sig, SIG_DFL);
    errno = saved;
    raise(sig);
}

static void tmp_at_exit(void) { tmp_remove_root(); }

static void on_sigpipe(int sig) { (void)sig; }   /* the write that raised it fails with EPIPE */

bool pg_tmp_cleanup_install(const char *tag) {
    if (tmp_root[0]) return true;
    struct sigaction sp, oldp;
    memset(&sp, 0, sizeof sp);
    sp.sa_handler = on_sigpipe;
    sp.sa_flags = SA_RESTART;
    sigemptyset(&sp.sa_mask);
    if (sigaction(SIGPIPE, NULL, &oldp) == 0 && oldp.sa_handler != SIG_IGN) sigaction(SIGPIPE, &sp, NULL);
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
