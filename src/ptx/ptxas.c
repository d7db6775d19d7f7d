/* ptxas.c — run `ptxas -v` and parse its report tolerantly.
 *
 * The -v report changes between CUDA versions, so the parser reads
 * "N unit name" pairs ("Used 32 registers", "24 bytes smem", "8 bytes spill
 * stores") and keeps every line it does not understand. */
#define _POSIX_C_SOURCE 200809L
#include "ptxgen/isa.h"
#include "ptxgen/ptx.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static bool is_exec(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

bool ptx_cuda_tool_find(const char *tool, const char *envvar, char *path, size_t n) {
    const char *env = envvar ? getenv(envvar) : NULL;
    if (env && *env) {
        if (is_exec(env)) { snprintf(path, n, "%s", env); return true; }
        return false;
    }
    const char *pathv = getenv("PATH");
    if (pathv) {
        char *copy = strdup(pathv);
        for (char *save = NULL, *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
            snprintf(path, n, "%s/%s", d, tool);
            if (is_exec(path)) { free(copy); return true; }
        }
        free(copy);
    }
    const char *roots[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"};
    for (size_t i = 0; i < 3; i++) {
        if (!roots[i] || !*roots[i]) continue;
        snprintf(path, n, "%s/bin/%s", roots[i], tool);
        if (is_exec(path)) return true;
    }
    return false;
}

bool ptx_ptxas_find(char *path, size_t n) { return ptx_cuda_tool_find("ptxas", "PTXAS", path, n); }

bool ptx_needs_relocatable(const ptx_module *m) {
    for (int i = 0; i < m->ntops; i++) {
        if (m->tops[i].kind == PTX_TOP_DECL && (m->tops[i].u.decl.is_extern || m->tops[i].u.decl.is_weak) &&
            m->tops[i].u.decl.space != PTX_SS_SHARED)
            return true;
        if (m->tops[i].kind == PTX_TOP_FUNC) {
            const ptx_func *f = &m->funcs[m->tops[i].u.func];
            bool driver = !strcmp(f->name, "vprintf") || !strcmp(f->name, "malloc") || !strcmp(f->name, "free") ||
                          !strcmp(f->name, "__assertfail");
            if ((f->is_extern && !driver) || f->is_weak) return true;
        }
    }
    return false;
}

static ptxas_func_report *cur_func(ptxas_report *r, const char *name) {
    for (int i = 0; i < r->nfuncs; i++)
        if (!strcmp(r->funcs[i].func, name)) return &r->funcs[i];
    r->funcs = realloc(r->funcs, sizeof(ptxas_func_report) * (size_t)(r->nfuncs + 1));
    ptxas_func_report *f = &r->funcs[r->nfuncs++];
    memset(f, 0, sizeof *f);
    snprintf(f->func, sizeof f->func, "%s", name);
    return f;
}

static void add_unknown(ptxas_report *r, const char *line) {
    r->unknown_lines = realloc(r->unknown_lines, sizeof(char *) * (size_t)(r->nunknown + 1));
    r->unknown_lines[r->nunknown++] = strdup(line);
}

/* Read "N unit name" / "Used N registers" pairs from the text after ':'. */
static void parse_pairs(ptxas_func_report *f, const char *s) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save = NULL, *part = strtok_r(buf, ",", &save); part; part = strtok_r(NULL, ",", &save)) {
        while (*part == ' ') part++;
        if (!strncmp(part, "Used ", 5) || !strncmp(part, "used ", 5)) part += 5;
        char *end;
        double v = strtod(part, &end);
        if (end == part) continue;
        while (*end == ' ') end++;
        char w1[40] = "", w2[40] = "", w3[40] = "";
        int nw = sscanf(end, "%39s %39s %39s", w1, w2, w3);
        if (nw >= 1 && !strcmp(w1, "registers")) f->registers = (int)v;
        else if (nw >= 1 && !strcmp(w1, "barriers")) f->barriers = (int)v;
        else if (nw >= 2 && !strcmp(w1, "bytes") && !strcmp(w2, "smem")) f->smem = (int64_t)v;
        else if (nw >= 3 && !strcmp(w1, "bytes") && !strcmp(w2, "stack") && !strcmp(w3, "frame")) f->stack_frame = (int)v;
        else if (nw >= 3 && !strcmp(w1, "bytes") && !strcmp(w2, "spill") && !strcmp(w3, "stores")) f->spill_stores = (int)v;
        else if (nw >= 3 && !strcmp(w1, "bytes") && !strcmp(w2, "spill") && !strcmp(w3, "loads")) f->spill_loads = (int)v;
        else if (nw >= 2 && !strcmp(w1, "bytes") && !strncmp(w2, "cmem[", 5)) {
            int bank = atoi(w2 + 5);
            if (bank >= 0 && bank < 8) f->cmem[bank] = (int64_t)v;
        } else if (f->nextra < 16 && nw >= 1) {
            ptxas_field *x = &f->extra[f->nextra++];
            snprintf(x->unit, sizeof x->unit, "%s", w1);
            snprintf(x->name, sizeof x->name, "%s", nw >= 2 ? w2 : w1);
            x->value = v;
        }
    }
}

void ptx_ptxas_parse_report(const char *log, ptxas_report *r) {
    char fname[256] = "";
    const char *p = log;
    while (p && *p) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        char line[1024];
        if (n >= sizeof line) n = sizeof line - 1;
        memcpy(line, p, n);
        line[n] = 0;
        p = e ? e + 1 : NULL;
        if (!line[0]) continue;
        const char *q;
        if ((q = strstr(line, "Compiling entry function '")) || (q = strstr(line, "Function properties for "))) {
            const char *s = strchr(q, '\'');
            if (q == strstr(line, "Function properties for ")) s = q + strlen("Function properties for ") - 1;
            if (s) {
                s++;
                size_t k = 0;
                while (s[k] && s[k] != '\'' && k + 1 < sizeof fname) { fname[k] = s[k]; k++; }
                fname[k] = 0;
                cur_func(r, fname);
            }
            continue;
        }
        if ((q = strstr(line, "Compiling function '"))) { /* older spelling */
            const char *s = strchr(q, '\'') + 1;
            size_t k = 0;
            while (s[k] && s[k] != '\'' && k + 1 < sizeof fname) { fname[k] = s[k]; k++; }
            fname[k] = 0;
            cur_func(r, fname);
            continue;
        }
        if (fname[0] && ((q = strstr(line, "Used ")) || strstr(line, "used ") || strstr(line, "bytes stack frame") || strstr(line, "bytes spill"))) {
            const char *start = strstr(line, "info    :");
            start = start ? start + 9 : line;
            while (*start == ' ') start++;
            parse_pairs(cur_func(r, fname), start);
            continue;
        }
        if (strstr(line, "Compile time =") || strstr(line, "ptxas info    : 0 bytes gmem") ||
            strstr(line, "bytes gmem") || strstr(line, "Compiling for"))
            continue;
        add_unknown(r, line);
    }
}

double ptx_ptxas_timeout_seconds(void) {
    const char *e = getenv("PTXGEN_PTXAS_TIMEOUT");
    char *end;
    double v = e && *e ? strtod(e, &end) : 0;
    return e && *e && !*end && v > 0 && v < 1e6 ? v : 120.0;
}

pg_status ptx_ptxas_run(const char *ptx_path, const char *arch, bool relocatable, ptxas_report *r, pg_diag_sink *diag) {
    memset(r, 0, sizeof *r);
    if (!ptx_ptxas_find(r->ptxas_path, sizeof r->ptxas_path)) return PG_ERR_EXTERNAL;
    char archbuf[32] = "";
    if (!arch) {
        /* take the target from the file */
        ptx_module *m = NULL;
        if (ptx_parse_file(ptx_path, &m, NULL) != PG_ERR_IO && m) {
            for (int i = 0; i < m->ntargets; i++)
                if (!strncmp(m->targets[i], "sm_", 3)) snprintf(archbuf, sizeof archbuf, "%s", m->targets[i]);
        }
        ptx_module_free(m);
        arch = archbuf[0] ? archbuf : "sm_75";
    }
    snprintf(r->arch, sizeof r->arch, "%s", arch);
    /* The cubin is not kept: -o /dev/null, so no temp file can be left behind
     * when this process is interrupted. */
    int pfd[2];
    if (pipe(pfd) != 0) return PG_ERR_IO;
    char archarg[48];
    snprintf(archarg, sizeof archarg, "-arch=%s", arch);
    double limit = ptx_ptxas_timeout_seconds();
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) { close(pfd[0]); close(pfd[1]); return PG_ERR_IO; }
    if (pid == 0) {
        dup2(pfd[1], 1);
        dup2(pfd[1], 2);
        close(pfd[0]);
        close(pfd[1]);
        if (relocatable) execl(r->ptxas_path, "ptxas", "-v", "-c", archarg, "-o", "/dev/null", ptx_path, (char *)NULL);
        else execl(r->ptxas_path, "ptxas", "-v", archarg, "-o", "/dev/null", ptx_path, (char *)NULL);
        _exit(127);
    }
    close(pfd[1]);
    pg_buf log = {0};
    char chunk[4096];
    for (;;) {   /* read its output until EOF or the deadline */
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double left = limit - ((double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
        if (left <= 0) { r->timed_out = true; break; }
        struct pollfd pf = {pfd[0], POLLIN, 0};
        int pr = poll(&pf, 1, (int)(left * 1000) + 1);
        if (pr < 0 && errno == EINTR) continue;
        if (pr == 0) continue;   /* the deadline is checked above */
        ssize_t k = read(pfd[0], chunk, sizeof chunk);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        pg_buf_putn(&log, chunk, (size_t)k);
    }
    close(pfd[0]);
    if (r->timed_out) kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    clock_gettime(CLOCK_MONOTONIC, &t1);
    r->ran = true;
    r->seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    r->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    r->ok = r->exit_code == 0 && !r->timed_out;
    r->log = log.data ? log.data : strdup("");
    if (r->timed_out)
        pg_diag_emit(diag, PG_E_PTXAS, ptx_path, 0, 0, "ptxas did not finish within %g s and was stopped (limit: $PTXGEN_PTXAS_TIMEOUT)", limit);
    ptx_ptxas_parse_report(r->log, r);
    /* ptxas errors: "ptxas FILE, line N; error   : message" */
    for (const char *p = r->log; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        char line[1024];
        if (n >= sizeof line) n = sizeof line - 1;
        memcpy(line, p, n);
        line[n] = 0;
        p = e ? e + 1 : NULL;
        const char *ln = strstr(line, ", line ");
        const char *err = strstr(line, "error   :");
        const char *warn = strstr(line, "warning :");
        int lno = ln ? atoi(ln + 7) : 0;
        if (err) pg_diag_emit(diag, PG_E_PTXAS, ptx_path, lno, lno ? 1 : 0, "ptxas: %s", err + 10);
        else if (warn) pg_diag_emit(diag, PG_W_PTXAS, ptx_path, lno, lno ? 1 : 0, "ptxas: %s", warn + 10);
        else if (strstr(line, "ptxas fatal") && !r->ok) pg_diag_emit(diag, PG_E_PTXAS, ptx_path, 0, 0, "%s", line);
    }
    if (r->exit_code == 127) {
        pg_diag_emit(diag, PG_E_PTXAS, ptx_path, 0, 0, "could not execute %s", r->ptxas_path);
        return PG_ERR_EXTERNAL;
    }
    return PG_OK;
}

void ptx_ptxas_report_free(ptxas_report *r) {
    free(r->funcs);
    for (int i = 0; i < r->nunknown; i++) free(r->unknown_lines[i]);
    free(r->unknown_lines);
    free(r->log);
    memset(r, 0, sizeof *r);
}

int ptx_ptxas_target_check(const char *arch, int ptx_version, char *why, size_t whyn) {
    int sm = 0;
    bool as = false, fam = false;
    if (!arch || !isa_parse_target(arch, &sm, &as, &fam)) {
        snprintf(why, whyn, "'%s' is not a target ptxgen knows", arch ? arch : "(null)");
        return 0;
    }
    int v = ptx_version > 0 ? ptx_version : isa_target_min_ptx(sm);
    char path[600];
    pg_tmp_path(path, sizeof path, "ptxgen-arch-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0) { snprintf(why, whyn, "cannot create a temp file: %s", strerror(errno)); return -1; }
    char text[128];
    int n = snprintf(text, sizeof text, ".version %d.%d\n.target %s\n.address_size 64\n", v / 10, v % 10, arch);
    bool wrote = write(fd, text, (size_t)n) == n;
    close(fd);
    if (!wrote) { unlink(path); snprintf(why, whyn, "cannot write a temp file"); return -1; }
    ptxas_report r;
    pg_status st = ptx_ptxas_run(path, arch, false, &r, NULL);
    unlink(path);
    int known = -1;
    if (st == PG_ERR_EXTERNAL || !r.ran) snprintf(why, whyn, "ptxas not found");
    else if (r.timed_out) snprintf(why, whyn, "ptxas did not finish");
    else if (r.ok) known = 1;
    else {
        known = 0;
        /* its first non-empty line, without the "ptxas fatal   : " prefix */
        const char *p = r.log ? r.log : "";
        while (*p == '\n') p++;
        const char *c = strstr(p, " : ");
        if (c && c < p + strcspn(p, "\n")) p = c + 3;
        snprintf(why, whyn, "%.*s", (int)strcspn(p, "\n"), p);
        if (!why[0]) snprintf(why, whyn, "ptxas exited %d", r.exit_code);
    }
    ptx_ptxas_report_free(&r);
    return known;
}
