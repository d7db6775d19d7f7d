/* cmd_ptx.c — check, fmt, stats, explain, isa. */
#include "cli.h"
#include "ptxgen/ptx.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Collects diagnostics as JSON objects. */
static void json_diag(void *user, const pg_diag *d) {
    json_t *arr = user;
    json_t *o = json_object();
    json_object_set_new(o, "file", json_string(d->file ? d->file : ""));
    json_object_set_new(o, "line", json_integer(d->line));
    json_object_set_new(o, "col", json_integer(d->col));
    json_object_set_new(o, "severity", json_string(d->sev == PG_SEV_ERROR ? "error" : d->sev == PG_SEV_WARNING ? "warning" : "note"));
    json_object_set_new(o, "code", json_string(d->code));
    json_object_set_new(o, "name", json_string(d->name));
    json_object_set_new(o, "message", json_string(d->msg));
    json_array_append_new(arr, o);
}



static json_t *ptxas_json(const ptxas_report *r) {
    json_t *o = json_object();
    json_object_set_new(o, "ran", json_boolean(r->ran));
    if (!r->ran) return o;
    json_object_set_new(o, "ok", json_boolean(r->ok));
    json_object_set_new(o, "exit_code", json_integer(r->exit_code));
    json_object_set_new(o, "seconds", json_real(r->seconds));
    json_object_set_new(o, "ptxas", json_string(r->ptxas_path));
    json_object_set_new(o, "arch", json_string(r->arch));
    json_t *fs = json_object();
    for (int i = 0; i < r->nfuncs; i++) json_object_set_new(fs, r->funcs[i].func, cli_ptxas_func_json(&r->funcs[i]));
    json_object_set_new(o, "functions", fs);
    json_t *unk = json_array();
    for (int i = 0; i < r->nunknown; i++) json_array_append_new(unk, json_string(r->unknown_lines[i]));
    json_object_set_new(o, "unparsed_lines", unk);
    return o;
}

typedef struct {
    bool json, ptxas, help, relocatable, quiet;
    const char *arch;
    const char **files;
    int nfiles;
} opts;

static int parse_opts(const char *cmd, int argc, char **argv, opts *o, const char *usage) {
    memset(o, 0, sizeof *o);
    o->files = pg_xcalloc((size_t)argc + 1, sizeof(char *));
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--json")) o->json = true;
        else if (!strcmp(a, "--ptxas")) o->ptxas = true;
        else if (!strcmp(a, "-c") || !strcmp(a, "--relocatable")) o->relocatable = true;
        else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) o->quiet = true;
        else if (!strcmp(a, "--arch") && i + 1 < argc) o->arch = argv[++i];
        else if (!strncmp(a, "--arch=", 7)) o->arch = a + 7;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) { printf("%s", usage); free(o->files); return 1; }
        else if (a[0] == '-' && a[1]) {
            cli_usage_error(cmd, "unknown option '%s'", a);
            free(o->files);
            return 2;
        } else o->files[o->nfiles++] = a;
    }
    if (!o->nfiles) { cli_usage_error(cmd, "no FILE given"); free(o->files); return 2; }
    return 0;
}

int cmd_check(int argc, char **argv) {
    static const char *usage =
        "usage: ptxgen check [--json] [--ptxas] [--arch sm_XX] [-c] FILE...\n"
        "  exit 0: all valid; 1: some invalid; 2: usage or I/O error\n"
        "  --json   machine-readable report on stdout\n"
        "  --ptxas  also run ptxas -v and merge its verdict and resource report\n"
        "  --arch   ptxas target (default: the module's .target)\n"
        "  -c       relocatable ptxas compile (modules with .extern symbols; automatic when needed)\n";
    opts o;
    int r = parse_opts("check", argc, argv, &o, usage);
    if (r) return r == 1 ? 0 : 2;
    int worst = 0;
    json_t *out = json_array();
    for (int i = 0; i < o.nfiles; i++) {
        json_t *diags = json_array();
        pg_diag_sink sink = {o.json ? json_diag : cli_print_diag, o.json ? (void *)diags : NULL, 0, 0, 200};
        ptx_module *m = NULL;
        pg_status st = ptx_parse_file(o.files[i], &m, &sink);
        bool io = st == PG_ERR_IO || (st == PG_ERR_LIMIT && !m);
        if (!io && m) {
            pg_status vs = ptx_validate(m, &sink);
            if (st == PG_OK) st = vs;
        }
        ptxas_report rep;
        memset(&rep, 0, sizeof rep);
        if (o.ptxas && !io && m) {
            char tmp[64] = "";
            pg_status ps = ptx_ptxas_run(o.files[i], o.arch, o.relocatable || ptx_needs_relocatable(m), &rep, &sink);
            (void)tmp;
            if (ps == PG_ERR_EXTERNAL && !rep.ran) {
                pg_diag_emit(&sink, PG_W_PTXAS, o.files[i], 0, 0, "ptxas not found (set PTXAS or CUDA_HOME): ptxas check skipped");
            } else if (rep.ran && !rep.ok && st == PG_OK) {
                st = PG_ERR_INVALID;
            }
        }
        int code = io ? 2 : (st == PG_OK ? 0 : 1);
        if (code > worst) worst = code;
        if (o.json) {
            json_t *fo = json_object();
            json_object_set_new(fo, "file", json_string(o.files[i]));
            json_object_set_new(fo, "valid", json_boolean(code == 0));
            json_object_set_new(fo, "errors", json_integer(sink.nerrors));
            json_object_set_new(fo, "warnings", json_integer(sink.nwarnings));
            json_object_set_new(fo, "diagnostics", diags);
            if (o.ptxas) json_object_set_new(fo, "ptxas", ptxas_json(&rep));
            json_array_append_new(out, fo);
        } else {
            json_decref(diags);
            if (!o.quiet) {
                if (o.ptxas && rep.ran) {
                    for (int k = 0; k < rep.nfuncs; k++)
                        fprintf(stderr, "%s: ptxas: %s: %d registers, %lld bytes smem, %d bytes stack, %d bytes spill stores, %d bytes spill loads\n",
                                o.files[i], rep.funcs[k].func, rep.funcs[k].registers, (long long)rep.funcs[k].smem,
                                rep.funcs[k].stack_frame, rep.funcs[k].spill_stores, rep.funcs[k].spill_loads);
                }
                fprintf(stderr, "%s: %s (%d error%s, %d warning%s)\n", o.files[i], code == 0 ? "ok" : code == 1 ? "invalid" : "unreadable",
                        sink.nerrors, sink.nerrors == 1 ? "" : "s", sink.nwarnings, sink.nwarnings == 1 ? "" : "s");
            }
        }
        ptx_ptxas_report_free(&rep);
        ptx_module_free(m);
    }
    if (o.json) {
        json_t *top = json_object();
        json_object_set_new(top, "files", out);
        json_object_set_new(top, "valid", json_boolean(worst == 0));
        char *s = json_dumps(top, JSON_INDENT(2));
        printf("%s\n", s);
        free(s);
        json_decref(top);
    } else {
        json_decref(out);
    }
    free(o.files);
    return worst;
}

/* Parse + validate one file for fmt/stats/explain; prints diagnostics. */
static ptx_module *load_valid(const char *path, bool require_valid, int *rc) {
    pg_diag_sink sink = {cli_print_diag, NULL, 0, 0, 50};
    ptx_module *m = NULL;
    pg_status st = ptx_parse_file(path, &m, &sink);
    if (st == PG_ERR_IO || !m) { *rc = 2; ptx_module_free(m); return NULL; }
    if (st != PG_OK) { *rc = 1; ptx_module_free(m); return NULL; }
    pg_diag_sink quiet = {require_valid ? cli_print_diag : NULL, NULL, 0, 0, 50};
    if (ptx_validate(m, &quiet) != PG_OK && require_valid) { *rc = 1; ptx_module_free(m); return NULL; }
    *rc = 0;
    return m;
}

int cmd_fmt(int argc, char **argv) {
    static const char *usage =
        "usage: ptxgen fmt [--tighten-regs | --widen-regs N] [--renumber-regs] [--strip-comments] [--regs numbered|named|canonical\n"
        "                  [--plan F.cu]] FILE\n"
        "  canonical pretty-print to stdout; full-line // comments inside function bodies are kept (the plan\n"
        "  lines of literate PTX, docs/LITERATE.md), other comments are dropped\n"
        "  --strip-comments: drop those too (the plain kernel)\n"
        "  --tighten-regs: each `.reg .T %x<K>;` declares only the registers the body uses (largest index + 1)\n"
        "  --widen-regs N (1..512): each K below N becomes N (the training format of `prompts --widen-regs`)\n"
        "  --regs named: registers named after the plan's variables, each declared before its first use\n"
        "    (docs/LITERATE.md); --plan F.cu: the CUDA C plan, whose parameter names name nvcc's k_param_N\n"
        "  --renumber-regs (= --regs canonical): each numbered class (%r, %rd, %f, %p ...) renumbered from 1 in\n"
        "    order of first appearance, counts tightened (ptx_regs_renumber, docs/LITERATE.md)\n";
    /* the register flags first; parse_opts takes the rest */
    bool tighten = false, strip = false;
    int widen = 0, na = 0;
    bool named = false, renumber = false;
    const char *plan_path = NULL;
    char **av = pg_xmalloc(sizeof(char *) * (size_t)(argc + 1));
    if (!av) return 2;
    for (int i = 0; i < argc; i++) {
        if (i > 0 && !strcmp(argv[i], "--tighten-regs")) tighten = true;
        else if (i > 0 && !strcmp(argv[i], "--strip-comments")) strip = true;
        else if (i > 0 && !strcmp(argv[i], "--renumber-regs")) renumber = true;
        else if (i > 0 && !strcmp(argv[i], "--widen-regs")) {
            if (i + 1 >= argc || !cli_int_arg("fmt", "--widen-regs", argv[++i], 1, 512, &widen)) { free(av); return 2; }
        } else if (i > 0 && !strcmp(argv[i], "--regs")) {
            if (i + 1 >= argc || (strcmp(argv[i + 1], "named") && strcmp(argv[i + 1], "numbered") && strcmp(argv[i + 1], "canonical"))) {
                fprintf(stderr, "ptxgen fmt: --regs takes numbered, named or canonical\n");
                free(av);
                return 2;
            }
            i++;
            named = !strcmp(argv[i], "named");
            if (!strcmp(argv[i], "canonical")) renumber = true;
        } else if (i > 0 && !strcmp(argv[i], "--plan")) {
            if (i + 1 >= argc) { fprintf(stderr, "ptxgen fmt: --plan needs a file\n"); free(av); return 2; }
            plan_path = argv[++i];
        } else av[na++] = argv[i];
    }
    av[na] = NULL;
    if (named && (tighten || widen)) { fprintf(stderr, "ptxgen fmt: --regs named declares no counts (no --tighten-regs, --widen-regs)\n"); free(av); return 2; }
    if (plan_path && !named) { fprintf(stderr, "ptxgen fmt: --plan goes with --regs named\n"); free(av); return 2; }
    if (tighten && widen) { fprintf(stderr, "ptxgen fmt: --tighten-regs and --widen-regs exclude each other\n"); free(av); return 2; }
    if (renumber && named) { fprintf(stderr, "ptxgen fmt: --renumber-regs and --regs named exclude each other\n"); free(av); return 2; }
    if (renumber && widen) { fprintf(stderr, "ptxgen fmt: --renumber-regs tightens the counts: no --widen-regs\n"); free(av); return 2; }
    opts o;
    int r = parse_opts("fmt", na, av, &o, usage);
    free(av);
    if (r) return r == 1 ? 0 : 2;
    int rc = 0;
    char *plan = NULL;
    size_t plan_len = 0;
    if (plan_path) {
        pg_diag_sink ds = {cli_print_diag, NULL, 0, 0, 50};
        if (pg_read_file(plan_path, 1u << 20, &plan, &plan_len, &ds) != PG_OK) { free(o.files); return 2; }
    }
    for (int i = 0; i < o.nfiles; i++) {
        int frc;
        ptx_module *m = load_valid(o.files[i], false, &frc);
        if (!m) { rc = frc > rc ? frc : rc; continue; }
        if (named) {
            pg_diag_sink ds = {cli_print_diag, NULL, 0, 0, 50};
            if (ptx_regs_name(m, plan, plan_len, &ds) != PG_OK) { rc = 1; ptx_module_free(m); continue; }
        }
        if (renumber) ptx_regs_renumber(m);   /* a validated module: PG_OK */
        if (tighten) ptx_regs_tighten(m);
        if (widen) ptx_regs_widen(m, widen);
        if (strip) ptx_comments_strip(m);
        pg_buf b = {0};
        ptx_print(m, &b);
        if (b.len) fwrite(b.data, 1, b.len, stdout);   /* an empty module prints nothing (b.data is NULL) */
        pg_buf_free(&b);
        ptx_module_free(m);
    }
    free(plan);
    free(o.files);
    return rc;
}
