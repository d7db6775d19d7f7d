/* cmd_stats.c — `ptxgen stats [--ptxas] [--arch sm_XX] FILE`: JSON statistics
 * per function (instruction mix, declared registers, memory footprint,
 * estimated register pressure) plus, with --ptxas, ptxas's resource report. */
#include "cli.h"
#include "ptxgen/ptx.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *stats_usage =
    "usage: ptxgen stats [--ptxas] [--arch sm_XX] [-c] FILE\n"
    "  JSON statistics per function on stdout\n"
    "  exit 0: ok; 1: invalid PTX (diagnostics on stderr); 2: usage or I/O error\n"
    "  --ptxas  also run ptxas -v and include its resource report\n"
    "  --arch   ptxas target (default: the module's .target)\n"
    "  -c       relocatable ptxas compile (automatic when the module has .extern symbols)\n";

static const char *space_key(ptx_space s) {
    switch (s) {
    case PTX_SS_GLOBAL: return "global";
    case PTX_SS_SHARED: return "shared";
    case PTX_SS_LOCAL: return "local";
    case PTX_SS_PARAM: return "param";
    case PTX_SS_CONST: return "const";
    case PTX_SS_NONE: return "generic";
    default: return NULL;
    }
}

/* ".b32" -> "b32" for JSON keys */
static const char *type_key(ptx_type t) {
    const char *n = ptx_type_get(t)->name;
    return n[0] == '.' ? n + 1 : n;
}

/* ptxas's own "Compile time = N ms" for a function (the line follows its
 * "Compiling entry function 'NAME'" header); -1 when not reported. */
static double ptxas_compile_seconds(const char *log, const char *func) {
    if (!log) return -1;
    char cur[256] = "";
    for (const char *p = log; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        const char *q = NULL;
        const char *hdr[] = {"Compiling entry function '", "Compiling function '"};
        for (int h = 0; h < 2 && !q; h++) {
            const char *x = strstr(p, hdr[h]);
            if (x && x < p + n) q = x + strlen(hdr[h]);
        }
        if (q) {
            size_t k = 0;
            while (q + k < p + n && q[k] != '\'' && k + 1 < sizeof cur) { cur[k] = q[k]; k++; }
            cur[k] = 0;
        } else {
            const char *t = strstr(p, "Compile time =");
            if (t && t < p + n && !strcmp(cur, func)) {
                double v = strtod(t + strlen("Compile time ="), NULL);
                const char *unit = t + strlen("Compile time =");
                while (unit < p + n && (*unit == ' ' || (*unit >= '0' && *unit <= '9') || *unit == '.')) unit++;
                return (unit + 1 < p + n && unit[0] == 'm' && unit[1] == 's') ? v / 1000.0 : v;
            }
        }
        p = e ? e + 1 : NULL;
    }
    return -1;
}

static json_t *func_json(const ptx_module *m, const ptx_func *f, const ptx_func_stats *st, const ptxas_report *rep,
                         bool want_ptxas) {
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(f->name));
    json_object_set_new(o, "kind", json_string(f->is_entry ? "entry" : "func"));
    json_object_set_new(o, "line", json_integer(f->loc.line));

    json_t *ins = json_object();
    json_object_set_new(ins, "total", json_integer(st->total));
    json_t *bc = json_object();
    for (int c = 0; c < ISA_C__COUNT; c++) json_object_set_new(bc, isa_class_name((isa_class)c), json_integer(st->by_class[c]));
    json_object_set_new(ins, "by_class", bc);
    json_t *ms = json_object();
    static const ptx_space spaces[] = {PTX_SS_GLOBAL, PTX_SS_SHARED, PTX_SS_LOCAL, PTX_SS_PARAM, PTX_SS_CONST, PTX_SS_NONE};
    for (size_t k = 0; k < sizeof spaces / sizeof spaces[0]; k++)
        json_object_set_new(ms, space_key(spaces[k]), json_integer(st->mem_by_space[spaces[k]]));
    json_object_set_new(ins, "memory_by_space", ms);
    json_t *ar = json_object();
    json_object_set_new(ar, "int", json_integer(st->arith_int));
    json_object_set_new(ar, "float", json_integer(st->arith_float));
    json_object_set_new(ins, "arith", ar);
    json_object_set_new(o, "instructions", ins);

    json_t *regs = json_object();
    json_t *bt = json_object();
    int64_t rtotal = 0;
    for (int t = 0; t < PTX_T__COUNT; t++)
        if (st->regs_by_type[t]) {
            json_object_set_new(bt, type_key((ptx_type)t), json_integer(st->regs_by_type[t]));
            rtotal += st->regs_by_type[t];
        }
    json_object_set_new(regs, "declared_total", json_integer(rtotal));
    json_object_set_new(regs, "declared", bt);
    json_t *lv = json_object();
    json_object_set_new(lv, "total", json_integer(st->live.max_live_total));
    json_object_set_new(lv, "units_32bit", json_integer(st->live.max_live_32bit_units));
    json_t *lt = json_object();
    for (int t = 0; t < PTX_T__COUNT; t++)
        if (st->live.max_live[t]) json_object_set_new(lt, type_key((ptx_type)t), json_integer(st->live.max_live[t]));
    json_object_set_new(lv, "by_type", lt);
    json_object_set_new(regs, "max_live", lv);
    json_object_set_new(o, "registers", regs);

    json_t *mem = json_object();
    json_object_set_new(mem, "shared_bytes", json_integer(st->shared_bytes));
    json_object_set_new(mem, "local_bytes", json_integer(st->local_bytes));
    json_object_set_new(mem, "const_bytes", json_integer(st->const_bytes));
    json_object_set_new(mem, "dynamic_shared", json_boolean(st->dynamic_shared));
    json_object_set_new(o, "memory", mem);

    if (want_ptxas) {
        const ptxas_func_report *pf = NULL;
        if (rep && rep->ran)
            for (int k = 0; k < rep->nfuncs; k++)
                if (!strcmp(rep->funcs[k].func, f->name)) { pf = &rep->funcs[k]; break; }
        json_t *pj = pf ? cli_ptxas_func_json(pf) : json_null();
        if (pf) {
            double secs = ptxas_compile_seconds(rep->log, f->name);
            if (secs >= 0) json_object_set_new(pj, "compile_time_seconds", json_real(secs));
        }
        json_object_set_new(o, "ptxas", pj);
    }
    (void)m;
    return o;
}

int cmd_stats(int argc, char **argv) {
    bool want_ptxas = false, relocatable = false;
    const char *arch = NULL, *file = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--ptxas")) want_ptxas = true;
        else if (!strcmp(a, "-c") || !strcmp(a, "--relocatable")) relocatable = true;
        else if (!strcmp(a, "--arch")) {
            if (i + 1 >= argc) { cli_usage_error("stats", "--arch needs a value"); return 2; }
            arch = argv[++i];
        } else if (!strncmp(a, "--arch=", 7)) arch = a + 7;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) { printf("%s", stats_usage); return 0; }
        else if (a[0] == '-' && a[1]) { cli_usage_error("stats", "unknown option '%s'", a); return 2; }
        else if (file) { cli_usage_error("stats", "only one FILE"); return 2; }
        else file = a;
    }
    if (!file) { cli_usage_error("stats", "no FILE given"); return 2; }
    if (arch && !*arch) { fprintf(stderr, "ptxgen stats: empty --arch\n"); return 2; }

    pg_diag_sink sink = {cli_print_diag, NULL, 0, 0, 50};
    ptx_module *m = NULL;
    pg_status st = ptx_parse_file(file, &m, &sink);
    if (st == PG_ERR_IO || !m) { ptx_module_free(m); return 2; }
    if (st == PG_ERR_LIMIT && !m->nfuncs && !m->ntops) { ptx_module_free(m); return 2; }
    if (st != PG_OK) { ptx_module_free(m); return 1; }
    if (ptx_validate(m, &sink) != PG_OK) { ptx_module_free(m); return 1; }

    int rc = 0;
    ptxas_report rep;
    memset(&rep, 0, sizeof rep);
    if (want_ptxas) {
        pg_status ps = ptx_ptxas_run(file, arch, relocatable || ptx_needs_relocatable(m), &rep, &sink);
        (void)ps;   /* not found: "ran": false; rejected: diagnostics already printed */
        if (rep.ran && !rep.ok) rc = 1;
    }

    json_t *top = json_object();
    json_object_set_new(top, "file", json_string(file));
    json_object_set_new(top, "version", json_string(m->version_text ? m->version_text : ""));
    json_object_set_new(top, "target", json_string(m->ntargets ? m->targets[0] : ""));
    json_object_set_new(top, "address_size", json_integer(m->address_size));
    json_t *funcs = json_array();
    ptx_func_stats *all = calloc((size_t)m->nfuncs + 1, sizeof *all);   /* [nfuncs]: one pass, linear in the module */
    pg_status *fst = calloc((size_t)m->nfuncs + 1, sizeof *fst);        /* [nfuncs] */
    if (!all || !fst) abort();
    ptx_module_stats_compute(m, all, fst);
    for (int i = 0; i < m->nfuncs; i++) {
        const ptx_func *f = &m->funcs[i];
        if (!f->has_body) continue;
        ptx_func_stats fs = all[i];
        pg_status ss = fst[i];
        if (ss != PG_OK) {
            fprintf(stderr, "%s: stats of '%s' failed: %s\n", file, f->name, pg_status_str(ss));
            rc = rc ? rc : 2;
            continue;
        }
        json_array_append_new(funcs, func_json(m, f, &fs, &rep, want_ptxas));
    }
    free(all);
    free(fst);
    json_object_set_new(top, "functions", funcs);
    if (want_ptxas) {
        json_t *p = json_object();
        json_object_set_new(p, "ran", json_boolean(rep.ran));
        if (rep.ran) {
            json_object_set_new(p, "ok", json_boolean(rep.ok));
            json_object_set_new(p, "exit_code", json_integer(rep.exit_code));
            json_object_set_new(p, "seconds", json_real(rep.seconds));
            json_object_set_new(p, "ptxas", json_string(rep.ptxas_path));
            json_object_set_new(p, "arch", json_string(rep.arch));
            json_t *unk = json_array();
            for (int k = 0; k < rep.nunknown; k++) json_array_append_new(unk, json_string(rep.unknown_lines[k]));
            json_object_set_new(p, "unparsed_lines", unk);
        }
        json_object_set_new(top, "ptxas", p);
    }
    char *s = json_dumps(top, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (s) {
        printf("%s\n", s);
        free(s);
    } else {
        rc = 2;
    }
    json_decref(top);
    ptx_ptxas_report_free(&rep);
    ptx_module_free(m);
    return rc;
}
