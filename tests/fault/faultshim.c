/* faultshim.c — fault injection for ptxgen, SQLite-style: an LD_PRELOAD library
 * that makes the Nth call of one kind fail, so tests/fault_sweep.sh can run a
 * command with N = 1, 2, 3 ... and check every outcome.
 *
 *   PTXGEN_FAULT=KIND:N[:all]    KIND: write, fsync, rename, malloc
 *   PTXGEN_FAULT_LOG=FILE        one line per injection ("write 7"), and at exit
 *                                "total KIND COUNT" (how many calls there were)
 *   PTXGEN_FAULT_BT=1            also the call stack of each injection (for triage)
 *
 * write   write(2)/pwrite/writev to any descriptor but stderr fails with ENOSPC;
 *         stdio output streams the program opens (fopen/fdopen in a write mode)
 *         are rebuilt over write(2) here, so their buffered writes count too
 *         (ptxgen's own output streams already write through write(2));
 * fsync   fsync/fdatasync fail with EIO;
 * rename  rename/renameat/link fail with ENOSPC;
 * malloc  malloc/calloc/realloc/posix_memalign/aligned_alloc return NULL (ENOMEM).
 * ":all" makes every call from the Nth on fail (a full disk), else only the Nth.
 * Counting starts in main's process after the constructor; programs it execs
 * run without the shim (LD_PRELOAD is removed from the environment), forked
 * children count on from the parent's count. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

enum { K_WRITE, K_FSYNC, K_RENAME, K_MALLOC, K_N };
static const char *kname[K_N] = {"write", "fsync", "rename", "malloc"};
static int fault_kind = -1;
static long fault_n;
static bool fault_all;
static long counts[K_N];
static bool armed;
static __thread int busy;   /* inside the shim: our own calls do not count */
static char log_path[4096];
static bool want_bt;

static void log_line(const char *s) {
    if (!log_path[0]) return;
    int fd = (int)syscall(SYS_openat, AT_FDCWD, log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return;
    (void)syscall(SYS_write, fd, s, strlen(s));
    syscall(SYS_close, fd);
}

/* Count one call of kind k; true when it must fail. */
static bool hit(int k) {
    if (!armed || busy) return false;
    long c = ++counts[k];
    if (k != fault_kind) return false;
    if (c == fault_n || (fault_all && c > fault_n)) {
        if (c == fault_n) {
            char b[64];
            snprintf(b, sizeof b, "%s %ld\n", kname[k], c);
            busy++;
            log_line(b);
            if (want_bt && log_path[0]) {
                void *fr[32];
                int n = backtrace(fr, 32);
                int fd = (int)syscall(SYS_openat, AT_FDCWD, log_path, O_WRONLY | O_APPEND | O_CLOEXEC, 0644);
                if (fd >= 0) { backtrace_symbols_fd(fr, n, fd); syscall(SYS_close, fd); }
            }
            busy--;
        }
        return true;
    }
    return false;
}

__attribute__((constructor)) static void shim_init(void) {
    busy++;
    const char *f = getenv("PTXGEN_FAULT"), *l = getenv("PTXGEN_FAULT_LOG");
    if (l) snprintf(log_path, sizeof log_path, "%s", l);
    want_bt = getenv("PTXGEN_FAULT_BT") != NULL;
    if (want_bt) { void *fr[2]; backtrace(fr, 2); }   /* loads its unwinder now, not inside a fault */
    if (f) {
        for (int k = 0; k < K_N; k++) {
            size_t n = strlen(kname[k]);
            if (!strncmp(f, kname[k], n) && f[n] == ':') {
                fault_kind = k;
                char *end;
                fault_n = strtol(f + n + 1, &end, 10);
                fault_all = !strcmp(end, ":all");
            }
        }
    }
    /* programs started by exec (ptxas, nvcc, sh) run untouched */
    unsetenv("LD_PRELOAD");
    unsetenv("PTXGEN_FAULT");
    unsetenv("PTXGEN_FAULT_LOG");
    unsetenv("PTXGEN_FAULT_BT");
    armed = fault_kind >= 0;
    busy--;
}

__attribute__((destructor)) static void shim_fini(void) {
    if (!armed) return;
    busy++;
    char b[200];
    snprintf(b, sizeof b, "total %s %ld pid %ld\n", kname[fault_kind], counts[fault_kind], (long)getpid());
    log_line(b);
    busy--;
}

/* ---- write ------------------------------------------------------------------ */
ssize_t write(int fd, const void *buf, size_t n) {
    if (fd != 2 && hit(K_WRITE)) { errno = ENOSPC; return -1; }
    return syscall(SYS_write, fd, buf, n);
}
ssize_t pwrite(int fd, const void *buf, size_t n, off_t off) {
    if (fd != 2 && hit(K_WRITE)) { errno = ENOSPC; return -1; }
    return syscall(SYS_pwrite64, fd, buf, n, off);
}
ssize_t writev(int fd, const struct iovec *iov, int cnt) {
    if (fd != 2 && hit(K_WRITE)) { errno = ENOSPC; return -1; }
    return syscall(SYS_writev, fd, iov, cnt);
}

/* stdio streams opened for writing: rebuilt over a descriptor and write(2) above */
typedef struct { int fd; } ck;
static ssize_t ck_read(void *c, char *b, size_t n) { return read(((ck *)c)->fd, b, n); }
static ssize_t ck_write(void *c, const char *b, size_t n) {
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(((ck *)c)->fd, b + done, n - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return done ? (ssize_t)done : -1;
        done += (size_t)w;
    }
    return (ssize_t)done;
}
static int ck_seek(void *c, off64_t *off, int whence) {
    off64_t r = lseek(((ck *)c)->fd, *off, whence);
    if (r < 0) return -1;
    *off = r;
    return 0;
}
static int ck_close(void *c) {
    int r = close(((ck *)c)->fd);
    free(c);
    return r;
}

static bool write_mode(const char *mode) { return strpbrk(mode, "wa+") != NULL; }

static FILE *wrap(int fd, const char *mode) {
    ck *c = malloc(sizeof *c);
    if (!c) { close(fd); errno = ENOMEM; return NULL; }
    c->fd = fd;
    cookie_io_functions_t io = {ck_read, ck_write, ck_seek, ck_close};
    FILE *f = fopencookie(c, mode, io);
    if (!f) { free(c); close(fd); }
    return f;
}

static FILE *open_stream(const char *path, const char *mode, FILE *(*real)(const char *, const char *)) {
    if (!armed || fault_kind != K_WRITE || !write_mode(mode)) return real(path, mode);
    int flags = O_CLOEXEC * (strchr(mode, 'e') != NULL);
    bool plus = strchr(mode, '+') != NULL;
    switch (mode[0]) {
    case 'r': flags |= plus ? O_RDWR : O_RDONLY; break;
    case 'w': flags |= (plus ? O_RDWR : O_WRONLY) | O_CREAT | O_TRUNC; break;
    case 'a': flags |= (plus ? O_RDWR : O_WRONLY) | O_CREAT | O_APPEND; break;
    default: errno = EINVAL; return NULL;
    }
    if (strchr(mode, 'x')) flags |= O_EXCL;
    int fd = open(path, flags, 0666);
    if (fd < 0) return NULL;
    return wrap(fd, mode);
}

FILE *fopen(const char *path, const char *mode) {
    static FILE *(*real)(const char *, const char *);
    if (!real) real = (FILE * (*)(const char *, const char *)) dlsym(RTLD_NEXT, "fopen");
    return open_stream(path, mode, real);
}
FILE *fopen64(const char *path, const char *mode) {
    static FILE *(*real)(const char *, const char *);
    if (!real) real = (FILE * (*)(const char *, const char *)) dlsym(RTLD_NEXT, "fopen64");
    return open_stream(path, mode, real);
}
FILE *fdopen(int fd, const char *mode) {
    static FILE *(*real)(int, const char *);
    if (!real) real = (FILE * (*)(int, const char *)) dlsym(RTLD_NEXT, "fdopen");
    if (!armed || fault_kind != K_WRITE || !write_mode(mode)) return real(fd, mode);
    return wrap(fd, mode);
}

/* ---- fsync, rename ----------------------------------------------------------- */
int fsync(int fd) {
    if (hit(K_FSYNC)) { errno = EIO; return -1; }
    return (int)syscall(SYS_fsync, fd);
}
int fdatasync(int fd) {
    if (hit(K_FSYNC)) { errno = EIO; return -1; }
    return (int)syscall(SYS_fdatasync, fd);
}
int rename(const char *a, const char *b) {
    if (hit(K_RENAME)) { errno = ENOSPC; return -1; }
    return (int)syscall(SYS_renameat, AT_FDCWD, a, AT_FDCWD, b);
}
int renameat(int da, const char *a, int db, const char *b) {
    if (hit(K_RENAME)) { errno = ENOSPC; return -1; }
    return (int)syscall(SYS_renameat, da, a, db, b);
}
int link(const char *a, const char *b) {
    if (hit(K_RENAME)) { errno = ENOSPC; return -1; }
    return (int)syscall(SYS_linkat, AT_FDCWD, a, AT_FDCWD, b, 0);
}

/* ---- malloc ------------------------------------------------------------------ */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

void *malloc(size_t n) {
    if (hit(K_MALLOC)) { errno = ENOMEM; return NULL; }
    return __libc_malloc(n);
}
void *calloc(size_t a, size_t b) {
    if (hit(K_MALLOC)) { errno = ENOMEM; return NULL; }
    return __libc_calloc(a, b);
}
void *realloc(void *p, size_t n) {
    if (n && hit(K_MALLOC)) { errno = ENOMEM; return NULL; }
    return __libc_realloc(p, n);
}
int posix_memalign(void **out, size_t al, size_t n) {
    if (hit(K_MALLOC)) return ENOMEM;
    void *p = __libc_memalign(al, n);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}
void *aligned_alloc(size_t al, size_t n) {
    if (hit(K_MALLOC)) { errno = ENOMEM; return NULL; }
    return __libc_memalign(al, n);
}
void *memalign(size_t al, size_t n) {
    if (hit(K_MALLOC)) { errno = ENOMEM; return NULL; }
    return __libc_memalign(al, n);
}
