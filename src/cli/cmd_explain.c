/* cmd_explain.c — `ptxgen explain [--json] FILE`: every instruction with a
 * plain-English sentence, plus a summary per function. */
#include "cli.h"
#include "ptxgen/ptx.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *usage =
    "usage: ptxgen explain [--json] FILE\n"
    "  prints the file with a '// sentence' comment after every instruction and a\n"
    "  summary after every function; --json prints\n"
    "  {\"functions\":[{\"name\",\"summary\",\"instructions\":[{\"line\",\"ptx\",\"explain\"}]}]}\n"
    "  exit 0: explained; 1: the file is invalid; 2: usage or I/O error\n";

static json_t *explain_json(const ptx_module *m) {
    json_t *funcs = json_array();
    for (int i = 0; i < m->nfuncs; i++) {
        const ptx_func *f = &m->funcs[i];
        if (!f->has_body) continue;
        json_t *fo = json_object();
        json_object_set_new(fo, "name", json_string(f->name));
        pg_buf sum = {0};
        ptx_explain_summary(m, f, &sum);
        json_object_set_new(fo, "summary", json_string(sum.data ? sum.data : ""));
        pg_buf_free(&sum);
        json_t *insns = json_array();
        for (int k = 0; k < f->nbody; k++) {
            const ptx_stmt *s = &f->body[k];
            if (s->kind != PTX_ST_INSN) continue;
            pg_buf txt = {0}, ex = {0};
            ptx_print_insn(&s->u.insn, &txt);
            ptx_explain_insn(m, f, &s->u.insn, &ex);
            json_t *io = json_object();
            json_object_set_new(io, "line", json_integer(s->loc.line));
            json_object_set_new(io, "ptx", json_string(txt.data ? txt.data : ""));
            json_object_set_new(io, "explain", json_string(ex.data ? ex.data : ""));
            json_array_append_new(insns, io);
            pg_buf_free(&txt);
            pg_buf_free(&ex);
        }
        json_object_set_new(fo, "instructions", insns);
        json_array_append_new(funcs, fo);
    }
    json_t *root = json_object();
    json_object_set_new(root, "functions", funcs);
    return root;
}

int cmd_explain(int argc, char **argv) {
    bool json = false;
    const char *file = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--json")) json = true;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) { printf("%s", usage); return 0; }
        else if (a[0] == '-' && a[1]) { cli_usage_error("explain", "unknown option '%s'", a); return 2; }
        else if (file) { cli_usage_error("explain", "one FILE only"); return 2; }
        else file = a;
    }
    if (!file) { cli_usage_error("explain", "no FILE given"); return 2; }

    pg_diag_sink sink = {cli_print_diag, NULL, 0, 0, 200};
    ptx_module *m = NULL;
    pg_status st = ptx_parse_file(file, &m, &sink);
    if (st == PG_ERR_IO || !m) {
        ptx_module_free(m);
        return 2;
    }
    if (st == PG_ERR_LIMIT) {
        ptx_module_free(m);
        return 2;
    }
    pg_status vs = ptx_validate(m, &sink);
    if (st != PG_OK || vs != PG_OK || sink.nerrors) {
        fprintf(stderr, "ptxgen: %s is not valid PTX; not explained\n", file);
        ptx_module_free(m);
        return 1;
    }
    int rc = 0;
    if (json) {
        json_t *root = explain_json(m);
        char *s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        if (s) { fputs(s, stdout); fputc('\n', stdout); free(s); }
        else rc = 2;
        json_decref(root);
    } else {
        pg_buf out = {0};
        ptx_explain_module(m, &out);
        if (out.len && fwrite(out.data, 1, out.len, stdout) != out.len) rc = 2;
        pg_buf_free(&out);
    }
    if (fflush(stdout) != 0) rc = 2;
    ptx_module_free(m);
    return rc;
}
