/* isa.c — compiles the rows of isa.def into isa_form structures and matches
 * an instruction's modifiers against them.  See isa.def for the pattern
 * language. */
#include "ptxgen/isa.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MOD_HASH = 4096, MAX_MODS = 4000 };
static const isa_require *mod_req[MAX_MODS]; /* modifier id -> target requirement, or NULL */
static bool mod_repeat[MAX_MODS];            /* modifier id -> ptxas takes it twice (ISA_REPEATABLE) */
static bool mod_ignored[MAX_MODS];           /* modifier id -> ptxas ignores it where no slot takes it (ISA_IGNORED) */

/* ---- types ---- */
static const ptx_type_info type_tab[] = {
#define ISA_TYPE(id, name, cls, bits, isreg) {name, cls, bits, isreg},
#include "ptxgen/isa_types.def"
#undef ISA_TYPE
};

const ptx_type_info *ptx_type_get(ptx_type t) {
    return (unsigned)t < PTX_T__COUNT ? &type_tab[t] : &type_tab[0];
}

/* the names' lengths, so a lookup compares no string of another length (no strlen per row) */
static const unsigned char type_len[] = {
#define ISA_TYPE(id, name, cls, bits, isreg) sizeof(name) - 1,
#include "ptxgen/isa_types.def"
#undef ISA_TYPE
};

ptx_type ptx_type_lookup(const char *name, size_t n) {
    /* every type name is ".x..." (2+ bytes): compare the length and the second byte first */
    if (n < 2 || name[0] != '.') return PTX_T_NONE;
    for (int i = 1; i < PTX_T__COUNT; i++)
        if (type_len[i] == n && type_tab[i].name[1] == name[1] && memcmp(type_tab[i].name, name, n) == 0) return (ptx_type)i;
    return PTX_T_NONE;
}

const char *ptx_type_words(ptx_type t) {
    static char words[PTX_T__COUNT][40];
    const ptx_type_info *ti = ptx_type_get(t);
    char *w = words[t];
    if (w[0]) return w;
    switch (ti->cls) {
    case PTX_TC_PRED: snprintf(w, 40, "predicate"); break;
    case PTX_TC_BIT: snprintf(w, 40, "%d-bit", ti->bits); break;
    case PTX_TC_UINT: snprintf(w, 40, "%d-bit unsigned integer", ti->bits); break;
    case PTX_TC_SINT: snprintf(w, 40, "%d-bit signed integer", ti->bits); break;
    case PTX_TC_FLOAT:
        if (t == PTX_T_BF16) snprintf(w, 40, "bfloat16");
        else if (t == PTX_T_TF32) snprintf(w, 40, "TF32 float");
        else if (ti->bits <= 8) snprintf(w, 40, "%s 8-bit float", ti->name + 1);
        else snprintf(w, 40, "%d-bit float", ti->bits);
        break;
    case PTX_TC_PACKED: snprintf(w, 40, "packed %s pair", ti->name + 1); break;
    case PTX_TC_OPAQUE: snprintf(w, 40, "%s handle", ti->name + 1); break;
    default: snprintf(w, 40, "untyped"); break;
    }
    return w;
}

/* ---- classes ---- */
static const char *class_names[] = {
#define ISA_CLASS(id, name) name,
#include "ptxgen/isa_classes.def"
#undef ISA_CLASS
};
const char *isa_class_name(isa_class c) { return (unsigned)c < ISA_C__COUNT ? class_names[c] : "?"; }

/* ---- raw rows ---- */
typedef struct { const char *name, *members; } raw_group;
typedef struct {
    const char *opcode; isa_class cls; int ptx, sm; const char *flags, *mods, *ops, *explain;
} raw_form;
typedef struct { const char *mod, *words; } raw_word;

static const raw_group groups[] = {
#define ISA_GROUP(name, members) {#name, members},
#include "isa.def"
};
static const raw_form rows[] = {
#define ISA_FORM(op, cls, ptx, sm, flags, mods, ops, ex) {op, cls, ptx, sm, flags, mods, ops, ex},
#include "isa.def"
};
static const raw_word words_tab[] = {
#define ISA_WORDS(mod, words) {mod, words},
#include "isa.def"
};
static const isa_require requires_tab[] = {
#define ISA_REQUIRE(mod, ptx, sm) {mod, ptx, sm},
#include "isa.def"
};
static const char *const ignored_tab[] = {
#define ISA_IGNORED(mod) mod,
#include "isa.def"
};
static const char *const repeat_tab[] = {
#define ISA_REPEATABLE(mod) mod,
#include "isa.def"
};

static const isa_texgeom texgeom_tab[] = {
#define ISA_TEXGEOM(mod, idx, minvec, scalar, deriv, offset, ctype, ms, depth) {mod, idx, minvec, scalar, deriv, offset, ctype, ms, depth},
#include "isa.def"
};

const isa_texgeom *isa_texture_geometry(const char *mod) {
    if (!mod) return NULL;
    for (size_t i = 0; i < sizeof texgeom_tab / sizeof texgeom_tab[0]; i++)
        if (!strcmp(texgeom_tab[i].mod, mod)) return &texgeom_tab[i];
    return NULL;
}

static uint16_t mod_id_of_ptr(const char *p);

const isa_require *isa_modifier_requirement(const char *mod) {
    uint16_t id = mod_id_of_ptr(mod);
    if (!id) id = isa_modifier_id(mod, strlen(mod));
    if (id) return mod_req[id];
    for (size_t i = 0; i < sizeof requires_tab / sizeof requires_tab[0]; i++)
        if (!strcmp(requires_tab[i].mod, mod)) return &requires_tab[i];
    return NULL;
}

#define NROWS ((int)(sizeof rows / sizeof rows[0]))
#define NGROUPS ((int)(sizeof groups / sizeof groups[0]))
#define NWORDS ((int)(sizeof words_tab / sizeof words_tab[0]))

static isa_form forms[NROWS];
static const isa_form *form_ptrs[NROWS];
static const char *opcodes[NROWS];
static int opcode_first[NROWS], opcode_n[NROWS], opcode_len[NROWS];
static int nopcodes;
static bool inited;
static pg_arena isa_arena;   /* strings of the compiled table; lives for the process */

/* ---- modifier interning ---- */
static const char *mod_text[MAX_MODS];       /* id -> text */
static uint16_t mod_len[MAX_MODS];           /* id -> strlen(text) */
static ptx_type mod_type[MAX_MODS];          /* id -> type, when the modifier is one */
static uint16_t mod_hash[MOD_HASH];
static int nmod_ids;
static uint16_t intern_mod(const char *s, size_t n) {
    uint32_t h = pg_hash32(s, n) & (MOD_HASH - 1);
    while (mod_hash[h]) {
        uint16_t id = mod_hash[h];
        if (mod_len[id] == n && !memcmp(mod_text[id], s, n)) return id;
        h = (h + 1) & (MOD_HASH - 1);
    }
    if (nmod_ids + 1 >= MAX_MODS || n >= 65535) return 0;
    uint16_t id = (uint16_t)++nmod_ids;
    mod_text[id] = pg_arena_strndup(&isa_arena, s, n);
    mod_len[id] = (uint16_t)n;
    mod_type[id] = ptx_type_lookup(s, n);
    mod_hash[h] = id;
    return id;
}
uint16_t isa_modifier_id(const char *s, size_t n) {
    uint32_t h = pg_hash32(s, n) & (MOD_HASH - 1);
    while (mod_hash[h]) {
        uint16_t id = mod_hash[h];
        /* s need not be NUL-terminated; a NUL inside s never matches */
        if (mod_len[id] == n && !memcmp(mod_text[id], s, n)) return id;
        h = (h + 1) & (MOD_HASH - 1);
    }
    return 0;
}

/* ---- lookups by pointer ----
 * The parser stores the table's own strings for known opcodes and modifiers,
 * so the validator's lookups can first try the pointer itself.  These maps
 * are built by isa_init and never change afterwards. */
enum { PTR_HASH = 2048 };   /* > 2 x (modifiers + opcodes) */
static struct { const char *key; int val; } ptr_tab[PTR_HASH];   /* val: modifier id, or -(opcode index + 1) */
static uintptr_t ptr_lo = UINTPTR_MAX, ptr_hi;   /* range of the keys: most lookups miss, cheaply */
static uint32_t ptr_h(const void *p) {
    uint64_t x = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(x >> 40) & (PTR_HASH - 1);
}
static int ptr_n;
static void ptr_put(const char *p, int v) {
    if (ptr_n >= PTR_HASH / 2) return;   /* a bigger table than planned: the string lookups still work */
    ptr_n++;
    uint32_t h = ptr_h(p);
    while (ptr_tab[h].key && ptr_tab[h].key != p) h = (h + 1) & (PTR_HASH - 1);
    if (!ptr_tab[h].key) { ptr_tab[h].key = p; ptr_tab[h].val = v; }
    if ((uintptr_t)p < ptr_lo) ptr_lo = (uintptr_t)p;
    if ((uintptr_t)p > ptr_hi) ptr_hi = (uintptr_t)p;
}
static bool ptr_get(const char *p, int *v) {
    if ((uintptr_t)p < ptr_lo || (uintptr_t)p > ptr_hi) return false;
    for (uint32_t h = ptr_h(p); ptr_tab[h].key; h = (h + 1) & (PTR_HASH - 1))
        if (ptr_tab[h].key == p) { *v = ptr_tab[h].val; return true; }
    return false;
}
static uint16_t mod_id_of_ptr(const char *p) {
    int v;
    return ptr_get(p, &v) && v > 0 ? (uint16_t)v : 0;
}
const char *isa_modifier_text(uint16_t id) { return id && id <= nmod_ids ? mod_text[id] : NULL; }
ptx_type isa_modifier_type(uint16_t id) { return id && id <= nmod_ids ? mod_type[id] : PTX_T_NONE; }

static const raw_group *find_group(const char *name, size_t n) {
    for (int i = 0; i < NGROUPS; i++)
        if (strlen(groups[i].name) == n && memcmp(groups[i].name, name, n) == 0) return &groups[i];
    return NULL;
}

/* Add the alternatives named by `text` (".a", "@GROUP") to slot s. */
static bool add_alts(isa_modslot *s, const char *text, size_t n, char *err, size_t errn) {
    if (n > 0 && text[0] == '@') {
        const raw_group *g = find_group(text + 1, n - 1);
        if (!g) { snprintf(err, errn, "unknown group '%.*s'", (int)n, text); return false; }
        const char *p = g->members;
        while (*p) {
            while (*p == ' ') p++;
            const char *q = p;
            while (*q && *q != ' ') q++;
            if (q > p && !add_alts(s, p, (size_t)(q - p), err, errn)) return false;
            p = q;
        }
        return true;
    }
    if (n < 2 || text[0] != '.' || memchr(text, ' ', n)) { snprintf(err, errn, "bad modifier '%.*s'", (int)n, text); return false; }
    if (s->nalts >= ISA_MAX_ALTS) { snprintf(err, errn, "too many alternatives"); return false; }
    uint16_t id = intern_mod(text, n);
    if (!id) { snprintf(err, errn, "too many distinct modifiers"); return false; }
    s->ids[s->nalts] = id;
    s->alts[s->nalts++] = mod_text[id];
    return true;
}

static bool compile_mods(isa_form *f, const char *pat, char *err, size_t errn) {
    const char *p = pat;
    while (*p) {
        while (*p == ' ') p++;
        if (!*p) break;
        if (f->nmods >= ISA_MAX_MODSLOTS) { snprintf(err, errn, "too many modifier slots"); return false; }
        isa_modslot *s = &f->mods[f->nmods++];
        s->var = -1;
        for (;; p++) {   /* '?' optional, '^' part of the mnemonic, '<' and '&' in written order, in any order */
            if (*p == '?') s->optional = true;
            else if (*p == '^') s->fixed = true;
            else if (*p == '<') s->ordered = 1;
            else if (*p == '&') s->ordered = 2;
            else break;
        }
        if (s->fixed && f->nmods > 1 && !f->mods[f->nmods - 2].fixed) {
            snprintf(err, errn, "a '^' slot after a free one (the fixed slots come first)");
            return false;
        }
        if (*p == '(') {
            p++;
            for (;;) {
                const char *q = p;
                while (*q && *q != '|' && *q != ')') q++;
                if (!*q) { snprintf(err, errn, "unclosed '('"); return false; }
                if (!add_alts(s, p, (size_t)(q - p), err, errn)) return false;
                p = q + 1;
                if (*q == ')') break;
            }
        } else {
            const char *q = p;
            while (*q && *q != ' ' && *q != '=') q++;
            if (!add_alts(s, p, (size_t)(q - p), err, errn)) return false;
            p = q;
        }
        if (*p == '=') {
            if (p[1] < 'A' || p[1] > 'Z') { snprintf(err, errn, "bad variable after '='"); return false; }
            s->var = p[1] - 'A';
            p += 2;
        }
        if (*p && *p != ' ') { snprintf(err, errn, "junk '%c' in modifier pattern", *p); return false; }
    }
    return true;
}

static bool compile_ops(isa_form *f, const char *pat, char *err, size_t errn) {
    if (strcmp(pat, "CALL") == 0) { f->call_syntax = true; return true; }
    const char *p = pat;
    f->nops_min = 0;
    while (*p) {
        while (*p == ' ' || *p == ',') p++;
        if (!*p) break;
        if (f->nops >= ISA_MAX_OPSLOTS) { snprintf(err, errn, "too many operand slots"); return false; }
        isa_opslot *o = &f->ops[f->nops++];
        o->arity = 1; o->arity_var = -1; o->type_var = -1;
        if (*p == '?') { o->optional = true; p++; }
        for (; *p && *p != '/' && *p != ':' && *p != ','; p++) {
            switch (*p) {
            case 'r': o->kinds |= ISA_OK_REG; break;
            case 'i': o->kinds |= ISA_OK_IMM; break;
            case 'a': o->kinds |= ISA_OK_ADDR; break;
            case 'l': o->kinds |= ISA_OK_LABEL; break;
            case 'f': o->kinds |= ISA_OK_FUNC; break;
            case 's': o->kinds |= ISA_OK_SYM; break;
            case '_': o->kinds |= ISA_OK_SINK | ISA_OK_VSINK; break;
            case 'e': o->kinds |= ISA_OK_VSINK; break;
            case 'g': o->kinds |= ISA_OK_ADDR | ISA_OK_GADDR; break;
            case 'm': o->kinds |= ISA_OK_ADDR | ISA_OK_SADDR; break;
            case 'o': o->kinds |= ISA_OK_ADDR | ISA_OK_SADDR | ISA_OK_OBJECT; break;
            case 'n': o->kinds |= ISA_OK_SYM | ISA_OK_SADDR; break;
            case 'c': o->kinds |= ISA_OK_ADDR | ISA_OK_TUPLE; break;
            case 'h': o->kinds |= ISA_OK_ADDR | ISA_OK_HANDLE; break;
            case 'k': o->kinds |= ISA_OK_ADDR | ISA_OK_HANDLE | ISA_OK_TEXCOORD; break;
            case 't': o->kinds |= ISA_OK_LABEL | ISA_OK_TABLE; break;
            case '!': o->kinds |= ISA_OK_NEG; break;
            case '|': o->kinds |= ISA_OK_PAIR; break;
            case '*': o->kinds |= ISA_OK_ANY; break;
            case 'x': o->kinds |= ISA_OK_SPECIAL; break;
            case 'y': o->kinds |= ISA_OK_INDEX; break;
            default: snprintf(err, errn, "bad operand kind '%c'", *p); return false;
            }
        }
        if (*p == '/') {
            p++;
            if (*p == '*') { o->arity = 0; o->arity_pow2 = true; p++; }
            else if (*p == '#') { o->arity = 0; p++; }
            else if (*p == '+') { o->arity = -1; p++; }
            else if (*p >= 'A' && *p <= 'Z') { o->arity_var = *p - 'A'; p++; }
            else { o->arity = (int)strtol(p, (char **)&p, 10); o->vec1 = o->arity == 1; }
        }
        if (*p == ':') {
            p++;
            if (*p == '*') { o->any_type = true; p++; }
            else if (*p >= 'A' && *p <= 'Z') {
                o->type_var = *p - 'A';
                p++;
                if (*p == '2') { o->type_wide = true; p++; }
            } else {
                const char *q = p;
                while (*q && *q != ',' && *q != '~' && *q != '+' && *q != ' ' && *q != '{') q++;
                o->type = ptx_type_lookup(p, (size_t)(q - p));
                if (o->type == PTX_T_NONE) { snprintf(err, errn, "unknown type '%.*s'", (int)(q - p), p); return false; }
                p = q;
            }
            if (*p == '~') { o->relaxed = true; p++; }
            if (*p == '+') { o->packed_ok = true; p++; }
        } else {
            o->any_type = true;
        }
        if (p[0] == '{' && (p[1] == '(' || p[1] == '[')) {   /* a float interval: {(0..1]} */
            char *end;
            o->fint = true;
            o->flo_open = p[1] == '(';
            o->flo = strtod(p + 2, &end);
            if (end > p + 2 && end[-1] == '.' && end[0] == '.') end--;   /* strtod read "0." of "0..1" */
            if (end == p + 2 || end[0] != '.' || end[1] != '.') { snprintf(err, errn, "bad float interval in {..}"); return false; }
            p = end + 2;
            o->fhi = strtod(p, &end);
            /* non-negative only: the decoder checks it on the literal's bit pattern (decode/grammar.c) */
            if (end == p || (*end != ')' && *end != ']') || end[1] != '}' || o->fhi < o->flo || o->flo < 0) {
                snprintf(err, errn, "bad float interval in {..}");
                return false;
            }
            o->fhi_open = *end == ')';
            p = end + 2;
        } else if (*p == '{') {   /* immediate values: {0..15}, {4|8|16} */
            p++;
            for (;;) {
                if (o->nranges >= ISA_MAX_IRANGES) { snprintf(err, errn, "too many immediate ranges"); return false; }
                char *end;
                long long lo = strtoll(p, &end, 0), hi = lo;
                if (end == p) { snprintf(err, errn, "bad immediate value in {..}"); return false; }
                p = end;
                if (p[0] == '.' && p[1] == '.') {
                    hi = strtoll(p + 2, &end, 0);
                    if (end == p + 2 || hi < lo) { snprintf(err, errn, "bad immediate range in {..}"); return false; }
                    p = end;
                }
                long long step = 1;
                if (*p == '%') {
                    step = strtoll(p + 1, &end, 0);
                    if (end == p + 1 || step < 1) { snprintf(err, errn, "bad step in {..}"); return false; }
                    p = end;
                }
                o->rlo[o->nranges] = lo;
                o->rstep[o->nranges] = step;
                o->rhi[o->nranges++] = hi;
                if (*p == '|') { p++; continue; }
                if (*p == '}') { p++; break; }
                snprintf(err, errn, "junk '%c' in {..}", *p);
                return false;
            }
        }
        if (!o->optional) f->nops_min = f->nops;
        while (*p == ' ') p++;
        if (*p && *p != ',') { snprintf(err, errn, "junk '%c' in operand pattern", *p); return false; }
    }
    return true;
}

static void smask_build(void);
static void opc_hash_init(void);

pg_status isa_init(pg_diag_sink *diag) {
    if (inited) return PG_OK;
    bool ok = true;
    for (int i = 0; i < NROWS; i++) {
        isa_form *f = &forms[i];
        char err[160] = "";
        f->index = i;
        f->opcode = rows[i].opcode;
        f->cls = rows[i].cls;
        f->ptx_min = rows[i].ptx;
        f->sm_min = rows[i].sm;
        for (const char *fl = rows[i].flags; *fl;) {
            if (*fl == ' ') { fl++; continue; }
            if (*fl == 'a') { f->arch_specific = true; fl++; }
            else if (*fl == 'w') fl++;   /* wide_vectors, read above */
            else if (*fl == 'o') { f->own_version = true; fl++; }
            else if (*fl == 'i') { f->reads_ignored = true; fl++; }
            else if (*fl == 'r' && sscanf(fl, "r%d:%d", &f->removed_ptx, &f->removed_sm) == 2) {
                while (*fl && *fl != ' ') fl++;
            } else {
                snprintf(err, sizeof err, "bad flag '%s'", fl);
                break;
            }
        }
        f->wide_vectors = strstr(rows[i].flags, "w") != NULL;
        f->mod_pattern = rows[i].mods;
        f->op_pattern = rows[i].ops;
        f->explain = rows[i].explain;
        if (err[0] || !compile_mods(f, rows[i].mods, err, sizeof err) || !compile_ops(f, rows[i].ops, err, sizeof err)) {
            pg_diag_emit(diag, PG_E_SYNTAX, "src/isa/isa.def", i + 1, 0, "row %d (%s): %s", i, f->opcode, err);
            ok = false;
        }
        form_ptrs[i] = f;
    }
    /* Group forms by opcode; rows of one opcode must be adjacent. */
    nopcodes = 0;
    for (int i = 0; i < NROWS; i++) {
        if (nopcodes > 0 && strcmp(opcodes[nopcodes - 1], forms[i].opcode) == 0) { opcode_n[nopcodes - 1]++; continue; }
        for (int j = 0; j < nopcodes; j++)
            if (strcmp(opcodes[j], forms[i].opcode) == 0) {
                pg_diag_emit(diag, PG_E_SYNTAX, "src/isa/isa.def", 0, 0, "rows of '%s' are not adjacent", forms[i].opcode);
                ok = false;
            }
        opcodes[nopcodes] = forms[i].opcode;
        opcode_len[nopcodes] = (int)strlen(forms[i].opcode);
        opcode_first[nopcodes] = i;
        opcode_n[nopcodes] = 1;
        nopcodes++;
    }
    for (size_t i = 0; i < sizeof requires_tab / sizeof requires_tab[0]; i++) {
        uint16_t id = isa_modifier_id(requires_tab[i].mod, strlen(requires_tab[i].mod));
        if (id) mod_req[id] = &requires_tab[i];
    }
    for (size_t i = 0; i < sizeof repeat_tab / sizeof repeat_tab[0]; i++) {
        uint16_t id = isa_modifier_id(repeat_tab[i], strlen(repeat_tab[i]));
        if (id) mod_repeat[id] = true;
    }
    for (size_t i = 0; i < sizeof ignored_tab / sizeof ignored_tab[0]; i++) {
        uint16_t id = intern_mod(ignored_tab[i], strlen(ignored_tab[i]));   /* may name no slot of any form */
        if (id) mod_ignored[id] = true;
    }
    if (!ok) return PG_ERR_INVALID;
    smask_build();
    opc_hash_init();
    memset(ptr_tab, 0, sizeof ptr_tab);
    ptr_n = 0;
    for (int i = 1; i <= nmod_ids; i++) ptr_put(mod_text[i], i);
    for (int i = 0; i < nopcodes; i++) ptr_put(opcodes[i], -(i + 1));
    inited = true;
    return PG_OK;
}

bool isa_form_available(const isa_form *f, int ptx, int sm, bool arch_specific, char *why) {
    char w = 0;
    if (ptx && f->ptx_min > ptx) w = 'p';
    else if (sm && f->sm_min > sm) w = 's';
    else if (sm && f->arch_specific && !arch_specific) w = 'a';
    else if (f->removed_ptx && ptx >= f->removed_ptx && sm >= f->removed_sm) w = 'r';
    if (why) *why = w;
    return w == 0;
}

bool isa_flt_allowed(const isa_opslot *s, double v) {
    if (!s->fint) return true;
    if (!(s->flo_open ? v > s->flo : v >= s->flo)) return false;   /* NaN fails every comparison */
    return s->fhi_open ? v < s->fhi : v <= s->fhi;
}

bool isa_imm_allowed(const isa_opslot *s, int64_t v) {
    if (!s->nranges) return true;
    for (int i = 0; i < s->nranges; i++)
        if (v >= s->rlo[i] && v <= s->rhi[i] && (v - s->rlo[i]) % s->rstep[i] == 0) return true;
    return false;
}

int isa_form_count(void) { return NROWS; }
const isa_form *isa_form_get(int i) { return (i >= 0 && i < NROWS) ? &forms[i] : NULL; }
int isa_opcode_count(void) { return nopcodes; }
const char *isa_opcode_get(int i) { return (i >= 0 && i < nopcodes) ? opcodes[i] : NULL; }

/* opcode -> index into opcodes[]; built by isa_init. */
enum { OPC_HASH = 1024 };
static short opc_hash[OPC_HASH];
static void opc_hash_init(void) {
    for (int i = 0; i < OPC_HASH; i++) opc_hash[i] = -1;
    for (int i = 0; i < nopcodes; i++) {
        uint32_t h = pg_hash32(opcodes[i], strlen(opcodes[i])) & (OPC_HASH - 1);
        while (opc_hash[h] >= 0) h = (h + 1) & (OPC_HASH - 1);
        opc_hash[h] = (short)i;
    }
}

const isa_form *const *isa_forms_for(const char *opcode, size_t len, int *n) {
    *n = 0;
    if (!inited) return NULL;
    int v;
    if (ptr_get(opcode, &v) && v < 0 && (size_t)opcode_len[-v - 1] == len) {   /* the table's own string */
        *n = opcode_n[-v - 1];
        return &form_ptrs[opcode_first[-v - 1]];
    }
    for (uint32_t h = pg_hash32(opcode, len) & (OPC_HASH - 1); opc_hash[h] >= 0; h = (h + 1) & (OPC_HASH - 1)) {
        int i = opc_hash[h];
        if ((size_t)opcode_len[i] == len && memcmp(opcodes[i], opcode, len) == 0) {
            *n = opcode_n[i];
            return &form_ptrs[opcode_first[i]];
        }
    }
    return NULL;
}

static bool slot_has(const isa_modslot *s, uint16_t id) {
    for (int i = 0; i < s->nalts; i++)
        if (s->ids[i] == id) return true;
    return false;
}

/* (form, modifier id) -> bit mask of the form's slots that list the id,
 * and per form the mask of required slots; built by isa_init. */
static uint32_t *smask_key;   /* form index << 16 | id; 0 = empty */
static uint32_t *smask_val;
static uint32_t smask_cap;
static uint32_t required_mask[NROWS], fixed_mask[NROWS];

static uint32_t smask_h(uint32_t key) { return (key * 0x9E3779B1u) >> 7; }

static uint32_t slot_mask(int form, uint16_t id) {
    uint32_t key = (uint32_t)form << 16 | id;
    for (uint32_t h = smask_h(key) & (smask_cap - 1); smask_key[h]; h = (h + 1) & (smask_cap - 1))
        if (smask_key[h] == key) return smask_val[h];
    return 0;
}

static void smask_build(void) {
    uint32_t n = 0;
    for (int i = 0; i < NROWS; i++)
        for (int k = 0; k < forms[i].nmods; k++) n += (uint32_t)forms[i].mods[k].nalts;
    smask_cap = 64;
    while (smask_cap < 2 * n + 2) smask_cap *= 2;
    smask_key = pg_arena_alloc(&isa_arena, sizeof(uint32_t) * smask_cap);
    smask_val = pg_arena_alloc(&isa_arena, sizeof(uint32_t) * smask_cap);
    for (int i = 0; i < NROWS; i++) {
        required_mask[i] = fixed_mask[i] = 0;
        for (int k = 0; k < forms[i].nmods; k++) {
            const isa_modslot *s = &forms[i].mods[k];
            if (!s->optional) required_mask[i] |= 1u << k;
            if (s->fixed) fixed_mask[i] |= 1u << k;
            for (int a = 0; a < s->nalts; a++) {
                /* the form index is at least 1 in the key, so 0 marks empty */
                uint32_t key = (uint32_t)(i + 1) << 16 | s->ids[a];
                uint32_t h = smask_h(key) & (smask_cap - 1);
                while (smask_key[h] && smask_key[h] != key) h = (h + 1) & (smask_cap - 1);
                smask_key[h] = key;
                smask_val[h] |= 1u << k;
            }
        }
    }
}

/* Match with backtracking.  ptxas accepts modifiers in orders other than the
 * manual's (nvcc itself writes atom.add.release.gpu.u32), so a modifier may
 * fill any unused slot that lists it; trying slots in table order keeps
 * repeated groups (cvt.f32.f16: destination type first) in their order.
 * Required slots must all be filled. */
/* masks[k]: the slots modifier k may fill (slot_mask); candidates are tried
 * in slot order, as the manual's order would have them. */
/* The types among the modifiers keep their order: ptxas reads slct.s32.f64 as
 * .s32 results selected by an .f64, not the other way round.  istype[k]:
 * modifier k is a type; last_type: the slot of the latest type placed. */
/* Two kinds of modifiers keep their order: types (ptxas reads slct.s32.f64 as
 * .s32 results selected by an .f64, not the other way round), and, among
 * themselves, modifiers that could fill several slots (createpolicy's primary
 * and secondary priority, mma's .row.col).  order[k]: 1 a type, 2 such a
 * modifier, 0 free; last[o]: the slot of the latest of kind o placed. */
static bool match_rec(const uint32_t *masks, const uint8_t *order, uint32_t required, int nmods, int k, uint32_t used,
                      const int *last, isa_match *m) {
    if (k == nmods) return (required & ~used) == 0;
    uint32_t cand = masks[k] & ~used;
    int o = order[k];
    if (o && last[o] >= 0) cand &= ~((2u << last[o]) - 1);   /* only slots after it */
    for (; cand; cand &= cand - 1) {
        int s = __builtin_ctz(cand);
        m->slot_of[k] = (uint8_t)s;
        int nl[3] = {last[0], last[1], last[2]};
        if (o) nl[o] = s;
        if (match_rec(masks, order, required, nmods, k + 1, used | (1u << s), nl, m)) return true;
    }
    return false;
}

static bool match_ids(const isa_form *f, const uint16_t *ids, int nmods, isa_match *m);

static bool form_lists(const isa_form *f, uint16_t id);
static bool opcode_lists(const isa_form *f, uint16_t id);

/* ptxas takes some flag modifiers twice (add.sat.sat, bar.sync.sync): a repeat
 * of an ISA_REPEATABLE modifier fills the slot of its first occurrence.  An
 * ISA_IGNORED modifier that no slot of the form lists is skipped (its
 * slot_of is ISA_SLOT_IGNORED), unless it comes before a ^ slot, the row reads it ("i") or it
 * is given twice. */
bool isa_match_form_ids(const isa_form *f, const uint16_t *ids, int nmods, isa_match *m) {
    bool special = false;
    for (int k = 0; k < nmods && !special; k++) {
        if (mod_ignored[ids[k]]) special = true;
        if (k && mod_repeat[ids[k]])
            for (int j = 0; j < k; j++)
                if (ids[j] == ids[k]) { special = true; break; }
    }
    if (!special) return match_ids(f, ids, nmods, m);
    uint16_t uniq[ISA_MAX_MODSLOTS];
    int map[ISA_MAX_MODSLOTS], nu = 0;
    if (nmods > ISA_MAX_MODSLOTS) return false;
    for (int k = 0; k < nmods; k++) {
        if (mod_ignored[ids[k]] && !mod_repeat[ids[k]])   /* ptxas: "Multiple .rank modifiers specified" */
            for (int j = 0; j < k; j++)
                if (ids[j] == ids[k]) { memset(m, 0, sizeof *m); return false; }
        if (mod_ignored[ids[k]] && !form_lists(f, ids[k]) && !(f->reads_ignored && opcode_lists(f, ids[k]))) {
            map[k] = -1;
            continue;
        }
        int j = 0;
        if (mod_repeat[ids[k]])
            for (; j < nu && uniq[j] != ids[k]; j++) {}
        if (mod_repeat[ids[k]] && j < nu) { map[k] = j; continue; }
        map[k] = nu;
        uniq[nu++] = ids[k];
    }
    isa_match mu;
    if (!match_ids(f, uniq, nu, &mu)) { memset(m, 0, sizeof *m); return false; }
    /* ptxas reads the ^ slots (the mnemonic) before the rest: an ignored modifier ahead of one
     * of them breaks it (barrier.finite.cluster.arrive: "Unknown modifier '.arrive'"),
     * one after them is skipped (barrier.cluster.arrive.finite) */
    for (int k = 0, skipped = 0; k < nmods; k++) {
        if (map[k] < 0) skipped = 1;
        else if (skipped && f->mods[mu.slot_of[map[k]]].fixed) { memset(m, 0, sizeof *m); return false; }
    }
    *m = mu;
    for (int k = 0; k < nmods; k++) m->slot_of[k] = map[k] < 0 ? ISA_SLOT_IGNORED : mu.slot_of[map[k]];
    return true;
}

static bool form_lists(const isa_form *f, uint16_t id) {
    for (int s = 0; s < f->nmods; s++)
        if (slot_has(&f->mods[s], id)) return true;
    return false;
}

/* Does some form of f's opcode list modifier id?  (A row with flag "i" reads such an ignored
 * modifier -- multimem.ld_reduce's .acc::f32 -- and still skips the others: .global_address.) */
static bool opcode_lists(const isa_form *f, uint16_t id) {
    int nf;
    const isa_form *const *fs = isa_forms_for(f->opcode, strlen(f->opcode), &nf);
    for (int i = 0; i < nf; i++)
        if (form_lists(fs[i], id)) return true;
    return false;
}

static bool match_ids(const isa_form *f, const uint16_t *ids, int nmods, isa_match *m) {
    static const isa_match zero;   /* a copy, not a memset: this runs per form tried */
    *m = zero;
    if (nmods > ISA_MAX_MODSLOTS || nmods > f->nmods) return false;
    /* the table's own forms have precomputed slot masks; a copy of a form
     * (not at forms[f->index]) is matched slot by slot */
    uint32_t masks[ISA_MAX_MODSLOTS] = {0}, required = 0, fixed = 0;
    bool own = inited && f->index >= 0 && f->index < NROWS && f == &forms[f->index];
    if (own) {
        required = required_mask[f->index];
        fixed = fixed_mask[f->index];
    } else {
        for (int s = 0; s < f->nmods; s++) {
            if (!f->mods[s].optional) required |= 1u << s;
            if (f->mods[s].fixed) fixed |= 1u << s;
        }
    }
    for (int k = 0; k < nmods; k++) {
        if (own) {
            masks[k] = ids[k] ? slot_mask(f->index + 1, ids[k]) : 0;
        } else {
            masks[k] = 0;
            for (int s = 0; s < f->nmods; s++)
                if (slot_has(&f->mods[s], ids[k])) masks[k] |= 1u << s;
        }
        if (!masks[k]) return false;   /* modifier k fits no slot */
    }
    /* the fixed slots take the first modifiers, in order */
    int k0 = 0;
    uint32_t used = 0;
    for (int s = 0; s < f->nmods && (fixed >> s & 1); s++) {
        if (k0 < nmods && (masks[k0] >> s & 1)) {
            m->slot_of[k0++] = (uint8_t)s;
            used |= 1u << s;
        } else if (!f->mods[s].optional) {
            return false;
        }
    }
    uint8_t order[ISA_MAX_MODSLOTS] = {0};
    for (int k = k0; k < nmods; k++) {
        if (!(masks[k] &= ~fixed)) return false;
        order[k] = mod_type[ids[k]] != PTX_T_NONE ? 1 : (masks[k] & (masks[k] - 1)) ? 2 : 0;
    }
    const int last[3] = {-1, -1, -1};
    if (!match_rec(masks, order, required, nmods, k0, used, last, m)) return false;
    /* '<' slots are filled in the order the modifiers are written (mma's .row .col: the
     * first layout written is A's, whatever it is) */
    int prev[3] = {-1, -1, -1};   /* per order group: '<' is 1, '&' is 2 */
    for (int k = 0; k < nmods; k++) {
        int g = f->mods[m->slot_of[k]].ordered;
        if (!g) continue;
        if (m->slot_of[k] < prev[g]) return false;
        prev[g] = m->slot_of[k];
    }
    for (int k = 0; k < nmods; k++) {
        int v = f->mods[m->slot_of[k]].var;
        if (v >= 0) m->bind_id[v] = ids[k];
    }
    return true;
}

bool isa_match_form(const isa_form *f, const char *const *mods, int nmods, isa_match *m) {
    uint16_t ids[ISA_MAX_MODSLOTS];
    if (nmods > ISA_MAX_MODSLOTS) return false;
    for (int k = 0; k < nmods; k++) {
        ids[k] = isa_modifier_id(mods[k], strlen(mods[k]));
        if (!ids[k]) { memset(m, 0, sizeof *m); return false; }
    }
    return isa_match_form_ids(f, ids, nmods, m);
}

bool isa_modifier_known(const char *opcode, const char *mod) {
    int n;
    uint16_t id = isa_modifier_id(mod, strlen(mod));
    if (!id) return false;
    const isa_form *const *fs = isa_forms_for(opcode, strlen(opcode), &n);
    for (int i = 0; i < n; i++)
        for (int s = 0; s < fs[i]->nmods; s++)
            if (slot_has(&fs[i]->mods[s], id)) return true;
    return false;
}

const char *isa_modifier_words(const char *mod) {
    for (int i = 0; i < NWORDS; i++)
        if (strcmp(words_tab[i].mod, mod) == 0) return words_tab[i].words;
    return NULL;
}

ptx_type isa_bound_type(const isa_match *m, int var) {
    if (!m || var < 0 || var >= ISA_NVARS || !m->bind_id[var]) return PTX_T_NONE;
    return mod_type[m->bind_id[var]];
}

const char *isa_bound_text(const isa_match *m, int var) {
    if (!m || var < 0 || var >= ISA_NVARS || !m->bind_id[var]) return NULL;
    return mod_text[m->bind_id[var]];
}

/* ---- special registers ---- */
#define W16 ISA_W16
#define W32 ISA_W32
#define W64 ISA_W64
static const isa_sreg sregs[] = {
#define ISA_SREG(name, type, vec, widths, ptx, sm, words) {name, type, vec, widths, ptx, sm, words},
#include "sregs.def"
#undef ISA_SREG
};
#undef W16
#undef W32
#undef W64

bool isa_sreg_fits(const isa_sreg *s, ptx_type t) {
    if (t == s->type) return true;
    const ptx_type_info *ti = ptx_type_get(t), *si = ptx_type_get(s->type);
    if (si->cls == PTX_TC_PRED || !(ti->cls == PTX_TC_BIT || ti->cls == PTX_TC_UINT || ti->cls == PTX_TC_SINT)) return false;
    unsigned w = s->widths ? s->widths : si->bits == 16 ? ISA_W16 : si->bits == 32 ? ISA_W32 : si->bits == 64 ? ISA_W64 : 0;
    return (ti->bits == 16 && (w & ISA_W16)) || (ti->bits == 32 && (w & ISA_W32)) || (ti->bits == 64 && (w & ISA_W64));
}
#define NSREGS ((int)(sizeof sregs / sizeof sregs[0]))

/* Hash of special-register base names, built on first use (sregs are
 * looked up for every %-name the parser sees). */
static int sreg_hash[256];
/* The two bytes after '%' that some special register's name starts with, one bit per
 * pair: the parser's register names (%r12, %rd4, %f3, %p1) fail this test and skip the
 * hash lookup. */
static uint64_t sreg_pre[65536 / 64];
static bool sreg_pre_off;   /* a name shorter than 3 bytes in the table: no prefix test */
static bool sreg_hash_ready;
static void sreg_pre_add(const char *name) {
    if (strlen(name) < 3) { sreg_pre_off = true; return; }
    unsigned k = (unsigned char)name[1] | (unsigned)(unsigned char)name[2] << 8;
    sreg_pre[k / 64] |= 1ull << (k % 64);
}
static void sreg_hash_init(void) {
    for (int i = 0; i < 256; i++) sreg_hash[i] = -1;
    for (int i = 0; i < NSREGS; i++) {
        uint32_t h = pg_hash32(sregs[i].name, strlen(sregs[i].name)) & 255u;
        while (sreg_hash[h] >= 0) h = (h + 1) & 255u;
        sreg_hash[h] = i;
        sreg_pre_add(sregs[i].name);
    }
    sreg_pre_add("%envreg");
    sreg_hash_ready = true;
}

const isa_sreg *isa_sreg_lookup(const char *name, size_t n) {
    if (!sreg_hash_ready) sreg_hash_init();
    if (n >= 3 && !sreg_pre_off) {   /* see sreg_pre */
        unsigned k = (unsigned char)name[1] | (unsigned)(unsigned char)name[2] << 8;
        if (!(sreg_pre[k / 64] >> (k % 64) & 1)) return NULL;
    }
    size_t base = n;
    const char *dot = memchr(name, '.', n);
    if (dot) base = (size_t)(dot - name);
    for (uint32_t h = pg_hash32(name, base) & 255u; sreg_hash[h] >= 0; h = (h + 1) & 255u) {
        int i = sreg_hash[h];
        if (strlen(sregs[i].name) != base || memcmp(sregs[i].name, name, base) != 0) continue;
        if (!dot) return sregs[i].vector ? NULL : &sregs[i];
        if (!sregs[i].vector) return NULL;
        /* .w: the PTX ISA declares these .v4 .u32, the fourth element unused and read as 0 */
        if (n - base == 2 && (dot[1] == 'x' || dot[1] == 'y' || dot[1] == 'z' || dot[1] == 'w')) return &sregs[i];
        return NULL;
    }
    /* %envreg0..31, %pm0..7, %pm0_64.. */
    if (n > 7 && memcmp(name, "%envreg", 7) == 0) {
        static const isa_sreg env = {"%envreg", PTX_T_B32, false, 0, 21, 20, "driver-defined environment register"};
        int v = atoi(name + 7);
        return (v >= 0 && v < 32) ? &env : NULL;
    }
    return NULL;
}
int isa_sreg_count(void) { return NSREGS; }
const isa_sreg *isa_sreg_get(int i) { return (i >= 0 && i < NSREGS) ? &sregs[i] : NULL; }

/* ---- targets ---- */
bool isa_parse_target(const char *name, int *sm, bool *arch_specific, bool *family) {
    *sm = 0; *arch_specific = false; *family = false;
    if (strncmp(name, "sm_", 3) != 0 && strncmp(name, "compute_", 8) != 0) return false;
    const char *p = name + (name[0] == 's' ? 3 : 8);
    char *end;
    long v = strtol(p, &end, 10);
    if (end == p || v < 10 || v > 200) return false;
    if (*end == 'a') { *arch_specific = true; end++; }
    else if (*end == 'f') { *family = true; end++; }
    if (*end) return false;
    static const int known[] = {10, 11, 12, 13, 20, 30, 32, 35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75,
                                80, 86, 87, 88, 89, 90, 100, 101, 103, 110, 120, 121};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (known[i] == v) { *sm = (int)v; return true; }
    return false;
}

int isa_target_min_ptx(int sm) {
    static const struct { int sm, ptx; } t[] = {
        {20, 10}, {30, 31}, {35, 31}, {50, 40}, {52, 41}, {53, 42}, {60, 50}, {61, 50}, {62, 50},
        {70, 60}, {72, 61}, {75, 63}, {80, 70}, {86, 71}, {87, 74}, {88, 90}, {89, 78}, {90, 78},
        {100, 86}, {101, 86}, {103, 88}, {110, 90}, {120, 87}, {121, 88}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (t[i].sm == sm) return t[i].ptx;
    return 10;
}
