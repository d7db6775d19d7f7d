/* gbnf.c — a llama.cpp GBNF grammar for PTX, generated from the ISA table.
 *
 * For users of other runtimes (llama.cpp, anything that reads GBNF) who want
 * the syntactic half of our constraint: the grammar accepts the canonical
 * text `ptxgen fmt` prints (src/ptx/print.c) for the subset
 *   - a header (.version, .target, .address_size), optional leading // lines
 *     (the GENERATED_BY provenance comment);
 *   - module-scope variables (.global/.const/.shared arrays, .align, initializers);
 *   - kernels: [.visible|.weak] .entry name(params) with performance
 *     directives and a body of declarations (.reg with <N>, .shared/.local
 *     arrays with .align), labels, .pragma, nested { } blocks and (predicated)
 *     instructions;
 *   - every instruction form of the ISA table except the call syntax, with
 *     its modifiers in the order of the table's pattern (each slot required,
 *     optional or one of its alternatives) and its operand count and kinds.
 * Left out: .func and call, .loc/.file/.section, debug sections, modifiers
 * written in an order other than the table's (ptxas tolerates some).
 * The grammar is looser than the validator: it does not check that bound
 * type variables agree, that registers are declared or operand types; the
 * constrained decoder (the context-sensitive recognizer) does that.
 *
 * GBNF conventions kept here: rule names are lowercase letters, digits and
 * hyphens; no rule is left-recursive (repetition is written with * and +);
 * every referenced rule is defined.  Shared pieces (a modifier slot with
 * several alternatives, an operand slot) become numbered rules, interned by
 * their text so the output is small and byte-for-byte deterministic. */
#include "ptxgen/decode.h"
#include "ptxgen/isa.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Interned rule bodies: the same body text always gets the same rule name. */
typedef struct {
    const char *prefix;       /* "mods", "opnd" */
    PG_VEC(char *) bodies;
} intern_tab;

static int intern(intern_tab *t, const char *body) {
    for (int i = 0; i < t->bodies.n; i++)
        if (strcmp(t->bodies.v[i], body) == 0) return i + 1;
    char *c = malloc(strlen(body) + 1);
    if (!c) pg_oom();
    strcpy(c, body);
    pg_vec_push(t->bodies, c);
    return t->bodies.n;
}

static void intern_write(intern_tab *t, pg_buf *out) {
    for (int i = 0; i < t->bodies.n; i++) pg_buf_printf(out, "%s-%d ::= %s\n", t->prefix, i + 1, t->bodies.v[i]);
}

static void intern_free(intern_tab *t) {
    for (int i = 0; i < t->bodies.n; i++) free(t->bodies.v[i]);
    pg_vec_free(t->bodies);
}

/* A GBNF string literal with the escapes llama.cpp understands. */
static void put_lit(pg_buf *b, const char *s) {
    pg_buf_putc(b, '"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') { pg_buf_putc(b, '\\'); pg_buf_putc(b, (char)c); }
        else if (c == '\n') pg_buf_puts(b, "\\n");
        else if (c == '\t') pg_buf_puts(b, "\\t");
        else if (c < 0x20 || c >= 0x7f) pg_buf_printf(b, "\\x%02X", c);
        else pg_buf_putc(b, (char)c);
    }
    pg_buf_putc(b, '"');
}

/* Rule-name spelling of an opcode: lowercase, anything else becomes '-'. */
static void put_name(pg_buf *b, const char *s) {
    for (; *s; s++) pg_buf_putc(b, isalnum((unsigned char)*s) ? (char)tolower((unsigned char)*s) : '-');
}

/* One modifier slot: a literal, or a reference to an interned alternative set. */
static void put_modslot(pg_buf *b, const isa_modslot *s, intern_tab *mods) {
    if (s->nalts == 1) {
        put_lit(b, s->alts[0]);
    } else {
        pg_buf body = {0};
        for (int i = 0; i < s->nalts; i++) {
            if (i) pg_buf_puts(&body, " | ");
            put_lit(&body, s->alts[i]);
        }
        pg_buf_printf(b, "mods-%d", intern(mods, body.data));
        pg_buf_free(&body);
    }
    if (s->optional) pg_buf_putc(b, '?');
}

/* The alternatives one operand element may take, as GBNF rule references. */
static void put_alts(pg_buf *b, unsigned k, bool in_vector) {
    const char *alts[12];
    int n = 0;
    if (in_vector) {
        /* vector elements: registers, sinks, immediates (mov packing) */
        if (k & (ISA_OK_REG | ISA_OK_ANY)) alts[n++] = "reg";
        if (k & (ISA_OK_SINK | ISA_OK_ANY)) alts[n++] = "sink";
        if (k & (ISA_OK_IMM | ISA_OK_ANY)) alts[n++] = "imm";
        if (n == 0) alts[n++] = "reg";
    } else {
        if (k & ISA_OK_ANY) alts[n++] = "anyopnd";
        if (k & ISA_OK_PAIR) alts[n++] = "predpair";
        if (k & ISA_OK_REG) alts[n++] = (k & ISA_OK_NEG) ? "predneg" : "reg";
        if (k & ISA_OK_IMM) alts[n++] = "imm";
        if (k & ISA_OK_ADDR) alts[n++] = "addr";
        if (k & (ISA_OK_LABEL | ISA_OK_FUNC | ISA_OK_SYM)) alts[n++] = "symref";
        if (k & ISA_OK_SINK) alts[n++] = "sink";
        if (k & ISA_OK_SPECIAL) alts[n++] = "sreg";
        if (n == 0) alts[n++] = "anyopnd";
    }
    if (n > 1) pg_buf_putc(b, '(');
    for (int i = 0; i < n; i++) {
        if (i) pg_buf_puts(b, " | ");
        pg_buf_puts(b, alts[i]);
    }
    if (n > 1) pg_buf_putc(b, ')');
}

/* One operand slot (kinds and vector arity); types are not checked here. */
static void put_opslot(pg_buf *b, const isa_opslot *s, intern_tab *opnds) {
    pg_buf body = {0}, elem = {0};
    put_alts(&elem, s->kinds, true);
    if ((s->arity == 1 && s->arity_var < 0 && !s->vec1) || (s->kinds & ISA_OK_TUPLE)) {
        /* a tensor tuple's arity counts its coordinates, inside the address */
        put_alts(&body, s->kinds, false);
    } else if (s->arity > 1 || s->vec1) {
        /* exactly N elements */
        pg_buf_puts(&body, "\"{\" ");
        pg_buf_puts(&body, elem.data);
        for (int i = 1; i < s->arity; i++) pg_buf_printf(&body, " \", \" %s", elem.data);
        pg_buf_puts(&body, " \"}\"");
    } else if (s->arity == -1) {
        /* a {vector} of two or more, never a scalar */
        pg_buf_printf(&body, "\"{\" %s (\", \" %s)+ \"}\"", elem.data, elem.data);
    } else {
        /* .v2/.v4/.v8 from a modifier, any power of two, or any count:
         * a scalar or a {vector} (the count is the validator's business) */
        put_alts(&body, s->kinds, false);
        pg_buf_printf(&body, " | \"{\" %s (\", \" %s)* \"}\"", elem.data, elem.data);
    }
    pg_buf_printf(b, "opnd-%d", intern(opnds, body.data));
    pg_buf_free(&body);
    pg_buf_free(&elem);
}

/* " op0, op1 (, op2 (, op3)?)?" — optional slots nest so only a suffix may be left out. */
static void put_operands(pg_buf *b, const isa_form *f, intern_tab *opnds) {
    int open = 0;
    for (int i = 0; i < f->nops; i++) {
        bool opt = f->ops[i].optional || open > 0;
        if (opt) { pg_buf_puts(b, " ("); open++; }
        else pg_buf_putc(b, ' ');
        put_lit(b, i ? ", " : " ");
        pg_buf_putc(b, ' ');
        put_opslot(b, &f->ops[i], opnds);
    }
    for (int i = 0; i < open; i++) pg_buf_puts(b, ")?");
}

/* The fixed part: module layout, declarations, operands' lexical shapes. */
static const char *const k_structure =
    "root ::= comment* header top+\n"
    "comment ::= \"//\" [^\\n]* \"\\n\"\n"
    "header ::= \".version \" digits \".\" digits \"\\n\" \".target \" target (\", \" target)* \"\\n\" \".address_size \" (\"64\" | \"32\") \"\\n\"\n"
    "target ::= \"sm_\" digits [af]? | \"debug\"\n"
    "top ::= \"\\n\" (entry | module-decl)\n"
    "module-decl ::= (\".extern \" | \".visible \" | \".weak \")? var-decl \"\\n\"\n"
    "entry ::= (\".visible \" | \".weak \")? \".entry \" name \"(\" params? \")\" \"\\n\" perf* \"{\\n\" body-item* \"}\\n\"\n"
    "params ::= \"\\n\\t\" param (\",\\n\\t\" param)* \"\\n\"\n"
    "param ::= \".param \" align? vecsize? type (\" .ptr\" (\".global\" | \".shared\" | \".const\" | \".local\")? (\".align \" digits)?)? \" \" name (\"[\" digits \"]\")?\n"
    "perf ::= perf-name (\" \" digits (\", \" digits)*)? \"\\n\"\n"
    "perf-name ::= \".maxntid\" | \".reqntid\" | \".minnctapersm\" | \".maxnreg\" | \".maxclusterrank\" | \".reqnctapercluster\" | \".explicitcluster\" | \".blocksareclusters\"\n"
    "body-item ::= label | block | tabs stmt \"\\n\" | tabs plan-line\n"
    "plan-line ::= \"//\" [ -~]+ \"\\n\"\n"
    "label ::= name \":\\n\"\n"
    "block ::= tabs? \"{\\n\" body-item* tabs? \"}\\n\"\n"
    "tabs ::= \"\\t\"+\n"
    "stmt ::= reg-decl | var-decl | pragma | guard? insn \";\"\n"
    "reg-decl ::= \".reg \" align? vecsize? reg-type \" \" name (\"<\" digits \">\")? (\"[\" digits \"]\")? \";\"\n"
    "var-decl ::= var-space \" \" align? vecsize? type \" \" name (\"<\" digits \">\")? (\"[\" digits? \"]\")* (\" = \" init)? \";\"\n"
    "var-space ::= \".global\" | \".const\" | \".shared\" | \".local\" | \".shared::cta\"\n"
    "align ::= \".align \" digits \" \"\n"
    "vecsize ::= \".v\" [248] \" \"\n"
    "init ::= \"{\" init (\", \" init)* \"}\" | imm | symref\n"
    "pragma ::= \".pragma \" \"\\\"\" [^\"\\n]* \"\\\"\" \";\"\n"
    "guard ::= \"@\" \"!\"? name \" \"\n"
    "name ::= [a-zA-Z] [a-zA-Z0-9_$]* | [_$%] [a-zA-Z0-9_$]+\n"
    "reg ::= name\n"
    "predneg ::= \"!\"? name\n"
    "predpair ::= name \"|\" name\n"
    "sink ::= \"_\"\n"
    "symref ::= name (\"+\" \"-\"? digits)?\n"
    "addr ::= \"[\" name (\"+\" \"-\"? digits)? (\", \" addr-elem)* \"]\" | \"[\" \"-\"? digits \"]\"\n"
    "addr-elem ::= name | \"{\" imm-or-reg (\", \" imm-or-reg)* \"}\"\n"
    "imm-or-reg ::= reg | imm\n"
    "anyopnd ::= predneg | imm | addr | sreg | sink | symref | \"{\" any-elem (\", \" any-elem)* \"}\"\n"
    "any-elem ::= reg | sink | imm\n"
    "imm ::= \"-\"? (int | float)\n"
    "int ::= (\"0\" [xX] [0-9a-fA-F]+ | digits) \"U\"?\n"
    "float ::= \"0\" [fF] hex4 hex4 | \"0\" [dD] hex4 hex4 hex4 hex4 | digits \".\" [0-9]* exponent? | digits exponent\n"
    "exponent ::= [eE] [-+]? digits\n"
    "hex4 ::= [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F]\n"
    "digits ::= [0-9]+\n";

void dec_gbnf_write(pg_buf *out) {
    if (isa_init(NULL) != PG_OK) return;   /* a malformed table never ships (isa tests) */
    intern_tab mods = {.prefix = "mods"}, opnds = {.prefix = "opnd"};
    pg_buf_puts(out,
                "# PTX (canonical `ptxgen fmt` layout) for llama.cpp, generated by `ptxgen grammar --gbnf`\n"
                "# from the ptxgen ISA table (src/isa/isa.def).  Syntactic subset: .entry kernels, no .func/call,\n"
                "# modifiers in table order; types, declarations and labels are not checked here.\n");
    pg_buf_puts(out, k_structure);

    /* types: every type for variables and params, .reg-able ones for registers */
    pg_buf_puts(out, "type ::= ");
    for (int t = 1, n = 0; t < PTX_T__COUNT; t++, n++) {
        if (n) pg_buf_puts(out, " | ");
        put_lit(out, ptx_type_get((ptx_type)t)->name);
    }
    pg_buf_puts(out, "\nreg-type ::= ");
    for (int t = 1, n = 0; t < PTX_T__COUNT; t++) {
        if (!ptx_type_get((ptx_type)t)->reg_ok) continue;
        if (n++) pg_buf_puts(out, " | ");
        put_lit(out, ptx_type_get((ptx_type)t)->name);
    }
    /* special registers, with .x/.y/.z where they have components */
    pg_buf_puts(out, "\nsreg ::= ");
    for (int i = 0; i < isa_sreg_count(); i++) {
        const isa_sreg *s = isa_sreg_get(i);
        if (i) pg_buf_puts(out, " | ");
        put_lit(out, s->name);
        if (s->vector) pg_buf_puts(out, " (\".x\" | \".y\" | \".z\")");
    }
    pg_buf_putc(out, '\n');

    /* instructions: one rule per opcode, one alternative per form */
    pg_buf_puts(out, "insn ::= ");
    int nlisted = 0;
    for (int i = 0; i < isa_opcode_count(); i++) {
        const char *op = isa_opcode_get(i);
        int nf;
        const isa_form *const *fs = isa_forms_for(op, strlen(op), &nf);
        bool any = false;
        for (int k = 0; k < nf; k++) any = any || !fs[k]->call_syntax;
        if (!any) continue;
        if (nlisted++) pg_buf_puts(out, " | ");
        pg_buf_puts(out, "op-");
        put_name(out, op);
    }
    pg_buf_putc(out, '\n');
    for (int i = 0; i < isa_opcode_count(); i++) {
        const char *op = isa_opcode_get(i);
        int nf;
        const isa_form *const *fs = isa_forms_for(op, strlen(op), &nf);
        pg_buf alts = {0};
        int nalts = 0;
        bool empty = false;
        for (int k = 0; k < nf; k++) {
            const isa_form *f = fs[k];
            if (f->call_syntax) continue;
            pg_buf one = {0};
            for (int s = 0; s < f->nmods; s++) {
                if (one.len) pg_buf_putc(&one, ' ');
                put_modslot(&one, &f->mods[s], &mods);
            }
            put_operands(&one, f, &opnds);
            const char *txt = one.data ? one.data : "";
            while (*txt == ' ') txt++;
            if (!*txt) {
                empty = true;
            } else {
                if (nalts++) pg_buf_puts(&alts, " | ");
                pg_buf_puts(&alts, txt);
            }
            pg_buf_free(&one);
        }
        if (nalts == 0 && !empty) { pg_buf_free(&alts); continue; }
        pg_buf_puts(out, "op-");
        put_name(out, op);
        pg_buf_puts(out, " ::= ");
        put_lit(out, op);
        if (nalts) pg_buf_printf(out, " (%s)%s", alts.data, empty ? "?" : "");
        pg_buf_putc(out, '\n');
        pg_buf_free(&alts);
    }
    intern_write(&mods, out);
    intern_write(&opnds, out);
    intern_free(&mods);
    intern_free(&opnds);
}
