/* cmd_isa.c — `ptxgen isa`: the instruction table as JSON (for tools and docs). */
#include "cli.h"
#include "ptxgen/isa.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_isa(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: ptxgen isa\n  the instruction table (src/isa/isa.def) as JSON on stdout: every form's opcode, class,\n"
                   "  minimum PTX version and sm, modifier and operand patterns, explanation template\n");
            return 0;
        }
        return cli_usage_error("isa", "takes no arguments, not '%s'", argv[i]);
    }
    pg_diag_sink sink = {cli_print_diag, NULL, 0, 0, 0};
    if (isa_init(&sink) != PG_OK) return 1;
    json_t *forms = json_array();
    for (int i = 0; i < isa_form_count(); i++) {
        const isa_form *f = isa_form_get(i);
        json_t *o = json_object();
        json_object_set_new(o, "opcode", json_string(f->opcode));
        json_object_set_new(o, "class", json_string(isa_class_name(f->cls)));
        char v[16];
        snprintf(v, sizeof v, "%d.%d", f->ptx_min / 10, f->ptx_min % 10);
        json_object_set_new(o, "ptx_min", json_string(v));
        snprintf(v, sizeof v, "sm_%d%s", f->sm_min, f->arch_specific ? "a" : "");
        json_object_set_new(o, "sm_min", json_string(v));
        json_object_set_new(o, "modifiers", json_string(f->mod_pattern));
        json_object_set_new(o, "operands", json_string(f->op_pattern));
        json_object_set_new(o, "explain", json_string(f->explain));
        json_array_append_new(forms, o);
    }
    json_t *top = json_object();
    json_object_set_new(top, "forms", forms);
    json_object_set_new(top, "opcodes", json_integer(isa_opcode_count()));
    char *s = json_dumps(top, JSON_INDENT(1));
    printf("%s\n", s);
    free(s);
    json_decref(top);
    return 0;
}
