/* oracle.c — the two checkers: libptx in-process, ptxas in batches.
 *
 * ptxas start-up costs far more than a small kernel, so a batch of programs
 * becomes one module (header + preamble + every program, each its own
 * .entry) and ptxas runs once.  Errors name a line ("ptxas F, line N; error
 * : ...") and go to the program whose lines hold it; a codegen error names
 * the entry ('k123').  A parse error is fatal: ptxas stops there, so the
 * programs it did not reach, and those before it without errors, run again
 * without the rejected ones.  A failure no program can be blamed for is
 * bisected.  The caller re-checks every disagreement alone. */
#include "diff.h"

#include <sys/resource.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- libptx ---- */
typedef struct { dp_verdict *v; } lib_sink;

static void lib_diag(void *user, const pg_diag *d) {
    dp_verdict *v = user;
    if (d->sev != PG_SEV_ERROR || !v->ok) return;
    v->ok = false;
    v->line = d->line;
    snprintf(v->code, sizeof v->code, "%s", pg_diag_code(d->id));
    snprintf(v->msg, sizeof v->msg, "%.239s", d->msg);
}

void dp_libptx_check(const char *text, size_t len, dp_verdict *out) {
    memset(out, 0, sizeof *out);
    out->ok = true;
    pg_diag_sink sink = {lib_diag, out, 0, 0, 0};
    ptx_module *m = NULL;
    pg_status st = ptx_parse(text, len, "diff.ptx", &m, &sink);
    if (m) {
        pg_status vs = ptx_validate(m, &sink);
        if (st == PG_OK) st = vs;
    }
    ptx_module_free(m);
    if (st != PG_OK && out->ok) {   /* a failure without an error diagnostic would be a libptx bug */
        out->ok = false;
        snprintf(out->code, sizeof out->code, "E000");
        snprintf(out->msg, sizeof out->msg, "status %d without an error diagnostic", (int)st);
    }
}

/* ---- ptxas ---- */
bool dp_oracle_open(dp_oracle *o) {
    memset(o, 0, sizeof *o);
    o->timeout = 60;
    if (!ptx_ptxas_find(o->ptxas, sizeof o->ptxas)) return false;
    const char *tmp = getenv("TMPDIR");
    snprintf(o->tmpdir, sizeof o->tmpdir, "%s/diff_ptxas_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(o->tmpdir)) return false;
    return true;
}

void dp_oracle_close(dp_oracle *o) {
    if (!o->tmpdir[0]) return;
    char p[400];
    for (int i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s/m%d.ptx", o->tmpdir, i);
        unlink(p);
    }
    rmdir(o->tmpdir);
    o->tmpdir[0] = 0;
}

/* Run ptxas on a module text; the log into *log (malloc'd).  Returns the exit
 * status, or -1 when it ran past the timeout (then killed). */
static int run_ptxas(dp_oracle *o, const char *arch, const char *text, size_t len, char **log) {
    char path[400];
    snprintf(path, sizeof path, "%s/m%d.ptx", o->tmpdir, o->seq++ & 3);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    *log = NULL;
    if (fd < 0) { *log = strdup("cannot write the module"); return 255; }
    for (size_t off = 0; off < len;) {
        ssize_t k = write(fd, text + off, len - off);
        if (k <= 0) { close(fd); *log = strdup("cannot write the module"); return 255; }
        off += (size_t)k;
    }
    close(fd);
    char archarg[48];
    snprintf(archarg, sizeof archarg, "-arch=%s", arch);
    int pfd[2];
    if (pipe(pfd)) { *log = strdup("pipe failed"); return 255; }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(pfd[1], 1);
        dup2(pfd[1], 2);
        close(pfd[0]);
        close(pfd[1]);
        /* a safety net on a shared machine: a module that makes ptxas allocate
         * without bound ends as a crash verdict, not as memory taken from others */
        struct rlimit rl = {(rlim_t)4 << 30, (rlim_t)4 << 30};
        setrlimit(RLIMIT_AS, &rl);
        execl(o->ptxas, "ptxas", archarg, "-o", "/dev/null", path, (char *)NULL);
        _exit(127);
    }
    close(pfd[1]);
    pg_buf b = {0};
    bool timed_out = false;
    char chunk[4096];
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double left = o->timeout - ((double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
        if (left <= 0) { timed_out = true; break; }
        struct pollfd pf = {pfd[0], POLLIN, 0};
        int pr = poll(&pf, 1, (int)(left * 1000) + 1);
        if (pr < 0 && errno == EINTR) continue;
        if (pr == 0) continue;
        ssize_t k = read(pfd[0], chunk, sizeof chunk);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        pg_buf_putn(&b, chunk, (size_t)k);
    }
    close(pfd[0]);
    if (timed_out && pid > 0) kill(pid, SIGKILL);
    int status = 0;
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    clock_gettime(CLOCK_MONOTONIC, &t1);
    o->runs++;
    o->seconds += (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    *log = b.data ? b.data : strdup("");
    if (timed_out) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* One line of ptxas output: its line number (0 = none) and message. */
typedef struct { int line; bool fatal; bool error; char msg[240]; } px_line;

static bool parse_px_line(const char *s, size_t n, px_line *out) {
    char line[1024];
    if (n >= sizeof line) n = sizeof line - 1;
    memcpy(line, s, n);
    line[n] = 0;
    memset(out, 0, sizeof *out);
    const char *e = strstr(line, "error   :");
    const char *f = strstr(line, "fatal   :");
    if (!e && !f) return false;
    out->error = true;
    out->fatal = f && (!e || f < e);
    const char *msg = out->fatal ? f + 9 : e + 9;
    while (*msg == ' ') msg++;
    const char *ln = strstr(line, ", line ");
    if (ln && ln < (out->fatal ? f : e)) out->line = atoi(ln + 7);
    snprintf(out->msg, sizeof out->msg, "%s", msg);
    return true;
}

static int count_lines(const char *s, size_t n) {
    int k = 0;
    for (size_t i = 0; i < n; i++) k += s[i] == '\n';
    return k;
}

void dp_ptxas_check(dp_oracle *o, const dp_target *t, const char *text, size_t len, dp_verdict *out) {
    memset(out, 0, sizeof *out);
    char *log = NULL;
    int rc = run_ptxas(o, t->arch, text, len, &log);
    out->ok = rc == 0;
    out->timeout = rc < 0;
    if (rc < 0) snprintf(out->msg, sizeof out->msg, "ptxas did not finish in %g s", o->timeout);
    for (const char *p = log; p && *p && !out->ok && !out->timeout;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        px_line pl;
        if (parse_px_line(p, n, &pl) && !out->msg[0] && strcmp(pl.msg, "Ptx assembly aborted due to errors")) {
            out->line = pl.line;
            snprintf(out->msg, sizeof out->msg, "%s", pl.msg);
        }
        p = e ? e + 1 : NULL;
    }
    if (!out->ok && !out->timeout && !out->msg[0]) {
        if (rc > 128) snprintf(out->msg, sizeof out->msg, "ptxas crashed (signal %d)", rc - 128);
        else snprintf(out->msg, sizeof out->msg, "ptxas exit status %d: %.180s", rc, log ? log : "");
    }
    free(log);
}

/* The batch over the programs idx[0..n) still without a verdict. */
static void batch_rec(dp_oracle *o, const dp_target *t, int ptx, dp_prog *const *progs, int *idx, int n, dp_verdict *out) {
    int *start = malloc(sizeof(int) * (size_t)(n + 1));
    bool *done = calloc((size_t)n, sizeof(bool));
    int left = n;
    while (left > 0) {
        pg_buf m = {0};
        dp_header(t, ptx, &m);
        pg_buf_puts(&m, dp_preamble());
        int line = count_lines(m.data, m.len) + 1;
        int pre_end = line;
        int *live = malloc(sizeof(int) * (size_t)left);
        int nl = 0;
        for (int i = 0; i < n; i++) {
            if (done[i]) continue;
            live[nl] = i;
            start[nl] = line;
            const char *txt = progs[idx[i]]->text;
            pg_buf_puts(&m, txt);
            line += count_lines(txt, strlen(txt));
            nl++;
        }
        start[nl] = line;
        char *log = NULL;
        int rc = run_ptxas(o, t->arch, m.data, m.len, &log);
        pg_buf_free(&m);
        if (rc == 0) {
            for (int k = 0; k < nl; k++) {
                dp_verdict *v = &out[idx[live[k]]];
                memset(v, 0, sizeof *v);
                v->ok = true;
                done[live[k]] = true;
            }
            free(log);
            free(live);
            break;
        }
        int blamed = 0;
        char first_free[240] = "";
        for (const char *p = log; p && *p && rc > 0;) {
            const char *e = strchr(p, '\n'), *cur = p;
            size_t len = e ? (size_t)(e - p) : strlen(p);
            px_line pl;
            p = e ? e + 1 : NULL;
            if (!parse_px_line(cur, len, &pl)) continue;
            if (!strcmp(pl.msg, "Ptx assembly aborted due to errors")) continue;
            int who = -1;
            if (pl.line >= pre_end) {
                for (int k = 0; k < nl; k++)
                    if (pl.line >= start[k] && pl.line < start[k + 1]) { who = k; break; }
            } else if (!pl.line) {   /* a codegen error names the entry */
                for (int k = 0; k < nl && who < 0; k++) {
                    char q[40];
                    snprintf(q, sizeof q, "'%s'", progs[idx[live[k]]]->name);
                    if (strstr(pl.msg, q)) who = k;
                }
            }
            if (who < 0) {
                if (!first_free[0]) snprintf(first_free, sizeof first_free, "%s", pl.msg);
                continue;
            }
            int i = live[who];
            if (done[i]) continue;
            dp_verdict *v = &out[idx[i]];
            memset(v, 0, sizeof *v);
            v->ok = false;
            v->line = pl.line ? pl.line - start[who] + 1 : 0;
            snprintf(v->msg, sizeof v->msg, "%s", pl.msg);
            done[i] = true;
            blamed++;
            left--;
        }
        if (!blamed) {
            if (nl == 1) {
                dp_verdict *v = &out[idx[live[0]]];
                memset(v, 0, sizeof *v);
                v->timeout = rc < 0;
                if (rc < 0) snprintf(v->msg, sizeof v->msg, "ptxas did not finish in %g s", o->timeout);
                else if (first_free[0]) snprintf(v->msg, sizeof v->msg, "%s", first_free);
                else if (rc > 128) snprintf(v->msg, sizeof v->msg, "ptxas crashed (signal %d)", rc - 128);
                else snprintf(v->msg, sizeof v->msg, "ptxas exit status %d: %.180s", rc, log ? log : "");
                done[live[0]] = true;
                left--;
            } else {   /* nobody to blame: halve */
                int *sub = malloc(sizeof(int) * (size_t)nl);
                for (int k = 0; k < nl; k++) sub[k] = idx[live[k]];
                batch_rec(o, t, ptx, progs, sub, nl / 2, out);
                batch_rec(o, t, ptx, progs, sub + nl / 2, nl - nl / 2, out);
                free(sub);
                for (int k = 0; k < nl; k++) done[live[k]] = true;
                left = 0;
            }
        }
        free(log);
        free(live);
    }
    free(start);
    free(done);
}

void dp_ptxas_batch(dp_oracle *o, const dp_target *t, int ptx, dp_prog *const *progs, int n, dp_verdict *out) {
    int *idx = malloc(sizeof(int) * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) idx[i] = i;
    if (n) batch_rec(o, t, ptx, progs, idx, n, out);
    free(idx);
}

/* ---- grouping messages ---- */
static bool is_table_word(const char *s, size_t n) {
    int k;
    if (n && s[0] == '.') return true;
    return isa_forms_for(s, n, &k) && k > 0;
}

void dp_normalize(const char *msg, char *out, size_t n) {
    size_t o = 0;
    for (const char *p = msg; *p && o + 2 < n;) {
        if (*p == '\'') {
            const char *q = strchr(p + 1, '\'');
            if (q) {
                size_t len = (size_t)(q - p - 1);
                if (is_table_word(p + 1, len) && o + len + 3 < n) {
                    memcpy(out + o, p, len + 2);
                    o += len + 2;
                } else {
                    memcpy(out + o, "'X'", 3);
                    o += 3;
                }
                p = q + 1;
                continue;
            }
        }
        if (*p >= '0' && *p <= '9') {
            out[o++] = '#';
            while ((*p >= '0' && *p <= '9') || *p == 'x' || (*p >= 'a' && *p <= 'f')) p++;
            continue;
        }
        out[o++] = *p++;
    }
    out[o] = 0;
}

/* ---- the list of deliberate differences ---- */
typedef struct { char id[48]; int dir; regex_t re; bool has_re; char code[8]; } known_ent;
struct dp_known { known_ent *e; int n; };

/* known.txt: one entry a line, tab-separated: id, direction (false-accept,
 * false-reject), a POSIX extended regex over ptxas's message (false-accept)
 * or libptx's "CODE message" (false-reject), a filter ('*' = none: the opcode
 * of the line ptxas blames for false-accept, libptx's code for false-reject),
 * and why.  '#' comments. */
dp_known *dp_known_load(const char *path, char *err, size_t errn) {
    dp_known *k = calloc(1, sizeof *k);
    if (!path) return k;
    FILE *f = fopen(path, "r");
    if (!f) { snprintf(err, errn, "cannot open %s", path); free(k); return NULL; }
    char line[2048];
    int lno = 0;
    while (fgets(line, sizeof line, f)) {
        lno++;
        if (line[0] == '#' || line[0] == '\n') continue;
        char *fields[5] = {0};
        int nf = 0;
        for (char *p = line; nf < 5;) {
            fields[nf++] = p;
            char *tab = strchr(p, '\t');
            if (!tab) break;
            *tab = 0;
            p = tab + 1;
        }
        if (nf < 5) { snprintf(err, errn, "%s:%d: want 5 tab-separated fields", path, lno); fclose(f); dp_known_free(k); return NULL; }
        known_ent e;
        memset(&e, 0, sizeof e);
        snprintf(e.id, sizeof e.id, "%s", fields[0]);
        e.dir = !strcmp(fields[1], "false-accept") ? 1 : !strcmp(fields[1], "false-reject") ? 2 : 0;
        if (!e.dir) { snprintf(err, errn, "%s:%d: direction '%s'", path, lno, fields[1]); fclose(f); dp_known_free(k); return NULL; }
        if (regcomp(&e.re, fields[2], REG_EXTENDED | REG_NOSUB)) {
            snprintf(err, errn, "%s:%d: bad regex", path, lno);
            fclose(f);
            dp_known_free(k);
            return NULL;
        }
        e.has_re = true;
        snprintf(e.code, sizeof e.code, "%s", fields[3]);
        k->e = realloc(k->e, sizeof(known_ent) * (size_t)(k->n + 1));
        k->e[k->n++] = e;
    }
    fclose(f);
    return k;
}

const char *dp_known_match(const dp_known *k, bool libptx_ok, const char *ptxas_msg, const char *libptx_msg_code,
                           const char *opcode) {
    if (!k) return NULL;
    for (int i = 0; i < k->n; i++) {
        const known_ent *e = &k->e[i];
        if (libptx_ok && e->dir == 1 && (!strcmp(e->code, "*") || (opcode && !strcmp(e->code, opcode))) &&
            !regexec(&e->re, ptxas_msg, 0, NULL, 0))
            return e->id;
        if (!libptx_ok && e->dir == 2 && (!strcmp(e->code, "*") || !strncmp(e->code, libptx_msg_code, 4)) &&
            !regexec(&e->re, libptx_msg_code, 0, NULL, 0))
            return e->id;
    }
    return NULL;
}

void dp_known_free(dp_known *k) {
    if (!k) return;
    for (int i = 0; i < k->n; i++)
        if (k->e[i].has_re) regfree(&k->e[i].re);
    free(k->e);
    free(k);
}
