/* ptxgen/common.h — status codes, diagnostics sink, arena, string buffer, hashing.
 *
 * Conventions used by every ptxgen module:
 *  - Functions that can fail return pg_status; PG_OK is 0.  Details go to a
 *    pg_diag_sink, never to stdout/stderr: library code does not print.
 *  - Objects returned through out-pointers are owned by the caller and freed
 *    with the matching *_free function unless the header says otherwise.
 *  - Strings inside parsed objects live in the object's arena and die with it.
 */
#ifndef PTXGEN_COMMON_H
#define PTXGEN_COMMON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* PG_API marks the library's public functions.  libptxgen.so is built with
 * -fvisibility=hidden, so only what a header in include/ptxgen/ declares with
 * PG_API is exported; everything else stays internal to the library. */
#if defined(__GNUC__) || defined(__clang__)
#define PG_API __attribute__((visibility("default")))
#else
#define PG_API
#endif

typedef enum {
    PG_OK = 0,
    PG_ERR_IO,        /* file could not be read or written */
    PG_ERR_PARSE,     /* syntax error(s); diagnostics say where */
    PG_ERR_INVALID,   /* well-formed but semantically invalid */
    PG_ERR_NOMEM,
    PG_ERR_LIMIT,     /* input exceeds a hard limit (size, nesting, token length) */
    PG_ERR_USAGE,     /* bad arguments from the caller */
    PG_ERR_EXTERNAL,  /* an external tool (ptxas, nvcc) failed or is missing */
} pg_status;

PG_API const char *pg_status_str(pg_status s);

/* The longest name (kernel, parameter, variable, label) the constrained decoder
 * takes, in a forced signature as in what it generates (src/decode/constraint.c).
 * A task whose kernel name is longer cannot be decoded, so the synthetic data's
 * names keep within it (synth_fam_fit_name in src/synth). */
#define PG_NAME_MAX 32

typedef enum { PG_SEV_NOTE, PG_SEV_WARNING, PG_SEV_ERROR } pg_severity;

/* Stable diagnostic codes; the table lives in ptxgen/diag_codes.def. */
typedef enum {
#define PG_DIAG(id, code, name, sev) id,
#include "ptxgen/diag_codes.def"
#undef PG_DIAG
    PG_DIAG__COUNT
} pg_diag_id;

typedef struct {
    pg_severity sev;
    pg_diag_id id;
    const char *code;   /* "E201" */
    const char *name;   /* "unknown-opcode" */
    const char *file;   /* may be NULL */
    int line, col;      /* 1-based; 0 when unknown */
    char msg[512];
} pg_diag;

/* A sink collects diagnostics.  `fn` may be NULL: then diagnostics are only
 * counted.  `max_errors` (0 = unlimited) stops emission, not counting. */
typedef struct pg_diag_sink {
    void (*fn)(void *user, const pg_diag *d);
    void *user;
    int nerrors, nwarnings;
    int max_errors;
} pg_diag_sink;

PG_API const char *pg_diag_code(pg_diag_id id);
PG_API const char *pg_diag_name(pg_diag_id id);
PG_API pg_severity pg_diag_default_sev(pg_diag_id id);
PG_API void pg_diag_emit(pg_diag_sink *s, pg_diag_id id, const char *file, int line, int col,
                  const char *fmt, ...) __attribute__((format(printf, 6, 7)));
PG_API void pg_diag_vemit(pg_diag_sink *s, pg_diag_id id, const char *file, int line, int col,
                   const char *fmt, va_list ap);
/* Format "file:line:col: error[CODE]: message" into buf. */
PG_API void pg_diag_format(const pg_diag *d, char *buf, size_t n);

/* FNV-1a, the library's one byte-string hash: hash tables, content keys, the names of cached
 * files, the n-gram file's checksum.  pg_hash64 is FNV-1a 64 of p[0..n); pg_hash64_add goes on
 * from h, so a key made of pieces hashes as their concatenation:
 * pg_hash64_add(pg_hash64(a, na), b, nb) == pg_hash64 of a then b.  pg_hash32 is FNV-1a 32
 * (in-memory tables).  What these name on disk must never change (tests/golden). */
#define PG_HASH64_INIT 0xcbf29ce484222325ull   /* FNV-1a 64's offset basis */
/* The offset basis with its last decimal digit lost (1469598103934665603, not ...6037): the
 * seed that synth's kernel names, dataset ids and descriptions, the prompts' splits and nvcc
 * cache names were made with.  They start pg_hash64_add from it so that they stay the same. */
#define PG_HASH64_INIT_SHORT 1469598103934665603ull
PG_API uint64_t pg_hash64(const void *p, size_t n);
PG_API uint64_t pg_hash64_add(uint64_t h, const void *p, size_t n);
PG_API uint32_t pg_hash32(const void *p, size_t n);

/* Arena: bump allocator; everything is freed at once. */
typedef struct pg_arena_block pg_arena_block;
typedef struct { pg_arena_block *head; size_t total; } pg_arena;
PG_API void *pg_arena_alloc(pg_arena *a, size_t n);          /* zeroed; out of memory: pg_oom */
PG_API void *pg_arena_alloc_raw(pg_arena *a, size_t n);      /* not zeroed: for what the caller fills at once */
PG_API char *pg_arena_strndup(pg_arena *a, const char *s, size_t n);
PG_API char *pg_arena_strdup(pg_arena *a, const char *s);
PG_API void pg_arena_free(pg_arena *a);

/* Growable byte buffer (always NUL-terminated). */
typedef struct { char *data; size_t len, cap; } pg_buf;
PG_API void pg_buf_putc(pg_buf *b, char c);
PG_API void pg_buf_puts(pg_buf *b, const char *s);
PG_API void pg_buf_putn(pg_buf *b, const char *s, size_t n);
PG_API void pg_buf_printf(pg_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
PG_API void pg_buf_free(pg_buf *b);

/* Out of memory in an allocation that has no error path (arena, pg_buf, pg_vec,
 * and the CLI's JSON objects): prints "ptxgen: out of memory" to stderr and
 * ends the process with exit status 2 (_exit: one status even when another thread
 * is exiting), after removing the temporary files of open pg_out outputs and the
 * process's temporary folder.  Allocations sized by their input (model
 * weights, file contents) return PG_ERR_NOMEM instead. */
PG_API _Noreturn void pg_oom(void);
/* st, after making sure that a PG_ERR_NOMEM failure said so: when the call that
 * returned it emitted no error (diag->nerrors is still e0, read before the call),
 * one "out of memory while WHAT" diagnostic on file.  For a module's public entry
 * points, so an allocation deep inside fails with a message, not silently. */
PG_API pg_status pg_nomem_said(pg_status st, pg_diag_sink *diag, int e0, const char *file, const char *what);
/* malloc, calloc, realloc and strdup that never return NULL (pg_oom instead): for
 * program code (the CLI) and json_set_alloc_funcs, where out of memory ends the run. */
PG_API void *pg_xmalloc(size_t n);
PG_API void *pg_xcalloc(size_t n, size_t size);
PG_API void *pg_xrealloc(void *p, size_t n);
PG_API char *pg_xstrdup(const char *s);

/* Read a whole file (at most max_bytes) into a NUL-terminated malloc'd buffer.
 * "-" reads standard input. */
PG_API pg_status pg_read_file(const char *path, size_t max_bytes, char **out, size_t *len,
                       pg_diag_sink *diag);

/* Descriptor I/O for the framed pipes and socket pairs between a process and its children
 * (the GPU engine's child, src/pipeline/draw.c; the harness's worker, src/gpu/run.c).
 * pg_read_full: exactly n bytes, retried across EINTR and short reads; false at EOF or an
 * error.  pg_send_full: all n bytes with send(MSG_NOSIGNAL), so a peer that is gone is a
 * false return, not SIGPIPE (fd must be a socket). */
PG_API bool pg_read_full(int fd, void *p, size_t n);
PG_API bool pg_send_full(int fd, const void *p, size_t n);

/* ---- output files ----------------------------------------------------------------
 * Every file ptxgen writes goes through pg_out, so every command treats an
 * output name the same way:
 *   "-"                         standard output;
 *   /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N
 *                               that descriptor, written directly (its offset shared);
 *   a device, FIFO or socket    written directly (it cannot be replaced);
 *   a symbolic link             followed: its final target is written as below, and
 *                               the link stays a link;
 *   a regular file, or none     written atomically: a temporary file beside it
 *                               ("<name>.tmp.<pid>.<n>"), flushed, fsync'd and renamed
 *                               over it (an existing file keeps its permissions);
 *   a folder                    refused.
 * Every write is checked.  A failure in a write, fflush, fsync, fclose or rename is
 * one PG_E_IO diagnostic naming the output and the cause, and PG_ERR_IO; the
 * temporary file is removed, so nothing new appears under the name (a file that
 * was there keeps its old content).  The one quiet failure: standard output
 * closed by its reader (EPIPE, as `| head` does): there is no one to tell.
 * Temporary files are also removed when the process exits without closing them
 * and, after pg_tmp_cleanup_install, when a signal ends it.
 *
 * PG_OUT_NO_CLOBBER: an existing file (a link's target included) is refused,
 * at open and again at the rename (link(2), so a file created meanwhile is not
 * replaced either); stdout and special files are still written.
 *
 * Ownership: pg_out_open gives the caller a pg_out; pg_out_close or
 * pg_out_discard frees it (exactly one of them, always). */
typedef struct pg_out pg_out;
enum { PG_OUT_NO_CLOBBER = 1 };
PG_API pg_status pg_out_open(const char *path, unsigned flags, pg_out **out, pg_diag_sink *diag);
/* The stream to write to (stdout itself for "-"). */
PG_API FILE *pg_out_stream(pg_out *o);
/* True when path names this process's standard output: "-", /dev/stdout,
 * /dev/fd/1, or a link to one of them.  A command whose report goes there
 * prints nothing else on stdout. */
PG_API bool pg_out_is_stdout(const char *path);
/* The file that receives the data: the link's final target, or the name given. */
PG_API const char *pg_out_target(const pg_out *o);
/* True when the output is a regular file written through a temporary (not
 * stdout, a descriptor or a special file). */
PG_API bool pg_out_is_file(const pg_out *o);
/* Flush, check, fsync and rename into place; frees o.  PG_OK only when every
 * byte written to the stream arrived. */
PG_API pg_status pg_out_close(pg_out *o, pg_diag_sink *diag);
/* Give up: remove the temporary file (nothing is renamed); frees o. */
PG_API void pg_out_discard(pg_out *o);
/* The whole of data into path through pg_out (flags: PG_OUT_*). */
PG_API pg_status pg_write_file(const char *path, const char *data, size_t len, unsigned flags,
                               pg_diag_sink *diag);
/* What pg_out_open would do, without creating anything: PG_OK when path can be
 * written (its folder exists and is writable; a special file is writable; not
 * a folder; PG_OUT_NO_CLOBBER respected), *is_file (may be NULL) when it is a
 * regular file written through a temporary.  A long job checks its output
 * before the work. */
PG_API pg_status pg_out_check(const char *path, unsigned flags, bool *is_file, pg_diag_sink *diag);
/* Put the complete file `from` (fsync'd by the caller) in place as the output
 * path: renamed onto a regular target, or its bytes copied through pg_out
 * (stdout, a special file, another file system).  On success `from` is gone;
 * on failure it stays (a job can resume from it) and nothing new is under path. */
PG_API pg_status pg_out_move(const char *path, const char *from, unsigned flags, pg_diag_sink *diag);
/* A temporary file for a tool to read (ptxas, nvcc): pg_tmp_path(name) made
 * unique by mkstemp (name ends in XXXXXX), all of data written and closed; the
 * name goes to path.  On failure PG_ERR_IO with a diagnostic, nothing left. */
PG_API pg_status pg_write_tmp(const char *name, const char *data, size_t len, char *path, size_t pathn,
                              pg_diag_sink *diag);
/* The number of outputs and temporary files this process could not write
 * (pg_out, pg_write_file, pg_write_tmp).  A long job compares it before and
 * after a unit of work: a verdict computed from a file that was never written
 * (ptxas on a missing input "fails") must stop the job, not enter its results. */
PG_API unsigned pg_io_failures(void);
/* pg_write_file with no flags. */
PG_API pg_status pg_write_file_atomic(const char *path, const char *data, size_t len,
                               pg_diag_sink *diag);
/* Replaces stdout with a stream over descriptor 1 that keeps the cause of a
 * failed write (the C library's streams keep only a flag), so that
 * pg_stdout_finish and "-" outputs can name it.  For programs (the CLI calls it
 * first thing); a library host keeps its own stdout.  false when out of memory. */
PG_API bool pg_stdout_install(void);
/* Standard output at the end of a command: flushes it and checks that
 * everything printed arrived.  PG_ERR_IO with a diagnostic on a write error;
 * PG_ERR_IO without one when the reader closed the pipe (EPIPE). */
PG_API pg_status pg_stdout_finish(pg_diag_sink *diag);

/* Temporary files.  pg_tmp_path writes "<folder>/<name>" (name usually ends in
 * XXXXXX for mkstemp/mkdtemp).  The folder is $TMPDIR (or /tmp), unless the
 * program called pg_tmp_cleanup_install(tag) once: then it is a private
 * folder ($TMPDIR/ptxgen-TAG-XXXXXX) removed at exit and when SIGINT, SIGTERM
 * or SIGHUP ends the process, so an interrupted run leaves nothing behind.
 * The CLI installs it; library users may.  Returns false when the folder
 * cannot be created (temp paths then stay in $TMPDIR).  It also removes open
 * pg_out temporaries on those signals, and makes SIGPIPE a no-op handler: a
 * write to a closed pipe fails with EPIPE, checked like any write, instead of
 * killing the process (programs it starts get the default action back). */
PG_API bool pg_tmp_cleanup_install(const char *tag);
PG_API void pg_tmp_path(char *out, size_t n, const char *name);

/* Growable array of pointers/values used all over: PG_VEC(T) { T *v; int n, cap; } */
#define PG_VEC(T) struct { T *v; int n, cap; }
PG_API void *pg_vec_grow_(void *v, int *cap, size_t elem, int need);
#define pg_vec_push(vec, x) do { \
        if ((vec).n >= (vec).cap) (vec).v = pg_vec_grow_((vec).v, &(vec).cap, sizeof(*(vec).v), (vec).n + 1); \
        (vec).v[(vec).n++] = (x); } while (0)
#define pg_vec_free(vec) do { free((vec).v); (vec).v = NULL; (vec).n = (vec).cap = 0; } while (0)

#endif
