/* validate.c — semantic checks of a parsed module against the ISA table.
 *
 * Resolves every instruction to its isa_form (stored in the instruction) and
 * reports problems with stable codes.  The rules are written to accept
 * everything ptxas accepts (no false positives) and to catch what it rejects. */
#include "decl.h"
#include "lex.h"   /* ptx_name_hash */
#include "ptxgen/ptx.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- symbol tables ------------------------------------------------------ */
typedef enum { SYM_REG, SYM_VAR, SYM_PARAM, SYM_FUNC, SYM_LABEL } sym_kind;

typedef struct {
    const char *name;
    sym_kind kind;
    const ptx_decl *decl;    /* REG/VAR/PARAM */
    const ptx_func *func;    /* FUNC */
    int depth;               /* scope depth (0 = module) */
    bool is_proto;           /* label of a .callprototype */
    bool is_table;           /* label of .branchtargets/.calltargets */
    uint32_t hash;           /* of name (set by st_add) */
} sym;

/* Open-addressing hash map name -> latest sym index.  Each sym remembers the
 * index it shadowed, so popping a scope restores outer names in O(popped). */
typedef struct { const char *name; int idx; uint32_t hash; } slot;
/* name pointer -> hash memo, shared by the tables of one validation: names
 * are interned, and nvcc's parameter names are 40-100 bytes long */
enum { HMEMO = 256 };
typedef struct { const char *name; uint32_t hash; } hmemo_ent;
typedef struct {
    PG_VEC(sym) syms;
    PG_VEC(int) shadowed;     /* per sym: the index it hid, or -1 */
    slot *slots; int cap, used;
    uint32_t gen;             /* bumped on every change (keys the register cache) */
    hmemo_ent *memo;          /* HMEMO entries, or NULL */
} symtab;

static uint32_t hash_str(const symtab *t, const char *s) {
    if (!t->memo) return ptx_name_hash(s, strlen(s));
    uintptr_t p = (uintptr_t)s;
    hmemo_ent *e = &t->memo[((p >> 4) ^ (p >> 12)) & (HMEMO - 1)];
    if (e->name != s) {
        e->name = s;
        e->hash = ptx_name_hash(s, strlen(s));
    }
    return e->hash;
}

static slot *st_slot_h(const symtab *t, const char *name, uint32_t full) {
    uint32_t h = full & (uint32_t)(t->cap - 1);
    /* the parser interns names, so a hit is usually the same pointer */
    while (t->slots[h].name && t->slots[h].name != name &&
           (t->slots[h].hash != full || strcmp(t->slots[h].name, name) != 0))
        h = (h + 1) & (uint32_t)(t->cap - 1);
    t->slots[h].hash = full;   /* harmless on a hit; sets the hash of a fresh slot */
    return &t->slots[h];
}

static slot *st_slot(const symtab *t, const char *name) { return st_slot_h(t, name, hash_str(t, name)); }

static void st_grow(symtab *t) {
    slot *old = t->slots;
    int oldcap = t->cap;
    t->cap = oldcap ? oldcap * 2 : 64;
    t->slots = calloc((size_t)t->cap, sizeof(slot));
    t->used = 0;
    for (int i = 0; i < oldcap; i++)
        if (old[i].name && old[i].idx >= 0) {
            *st_slot_h(t, old[i].name, old[i].hash) = old[i];
            t->used++;
        }
    free(old);
}

static const sym *st_find(const symtab *t, const char *name) {
    if (!t->cap) return NULL;
    const slot *sl = st_slot(t, name);
    return sl->name && sl->idx >= 0 ? &t->syms.v[sl->idx] : NULL;
}

/* The same for a name in a temporary buffer (never memoized by pointer). */
static const sym *st_find_tmp(const symtab *t, const char *name) {
    if (!t->cap) return NULL;
    const slot *sl = st_slot_h(t, name, ptx_name_hash(name, strlen(name)));
    return sl->name && sl->idx >= 0 ? &t->syms.v[sl->idx] : NULL;
}

static void st_add(symtab *t, sym s) {
    t->gen++;
    if ((t->used + 1) * 2 >= t->cap) st_grow(t);
    s.hash = hash_str(t, s.name);
    pg_vec_push(t->syms, s);
    slot *sl = st_slot_h(t, s.name, s.hash);
    if (!sl->name) { sl->name = s.name; sl->idx = -1; t->used++; }
    pg_vec_push(t->shadowed, sl->idx);
    sl->idx = t->syms.n - 1;
}

static void st_truncate(symtab *t, int n) {
    if (t->syms.n > n) t->gen++;
    while (t->syms.n > n) {
        int i = t->syms.n - 1;
        slot *sl = st_slot_h(t, t->syms.v[i].name, t->syms.v[i].hash);
        sl->idx = t->shadowed.v[i];
        t->syms.n--;
        t->shadowed.n--;
    }
}

static void st_free(symtab *t) {
    pg_vec_free(t->syms);
    pg_vec_free(t->shadowed);
    free(t->slots);
    t->slots = NULL;
    t->cap = t->used = 0;
}

/* Register resolution cache: name pointer -> result, valid while the symbol
 * table generation is unchanged.  Names are interned by the parser, so every
 * "%r12" of a function hits one entry. */
enum { REG_OK, REG_RANGE, REG_BASE, REG_UNDECL };
enum { RCACHE = 512 };
typedef struct { const char *name; uint32_t gen; uint8_t st; const ptx_decl *decl; } rcache_ent;

/* Modifier matching cache: (forms of an opcode, modifier ids) -> the forms
 * whose modifiers fit, in table order, with their bindings.  Modifier
 * matching depends on nothing else, and a module repeats a few hundred
 * combinations thousands of times. */
typedef struct { int form; isa_match mt; } mod_fit;
typedef struct {
    const isa_form *const *forms;   /* NULL = empty slot */
    int nmods;
    uint16_t ids[ISA_MAX_MODSLOTS];
    int first, count;               /* range of fit_cache.fits */
} fit_key;

/* The cache lives as long as the thread, not one module: the same combinations recur across
 * the kernels a process checks (a pass over 148 nvcc files re-matched them per file: 10% of
 * the validator's time).  Emptied when it grows past FIT_CACHE_MAX keys (fuzzed modifiers). */
typedef struct {
    fit_key *fkeys;
    int fcap, fused;
    PG_VEC(mod_fit) fits;
    uint32_t epoch;                 /* bumped when emptied: ranges kept elsewhere (head_ent) go stale */
    /* The register and head caches of ptx_validate (vctx.rcache, vctx.heads) are this thread's
     * too: allocated and zeroed once, not per module (zeroing 40 KB per module was 1.4% of the
     * instructions of a pass over the nvcc files, callgrind).  Entries of earlier modules never match: rcache entries carry
     * the symbol-table generation, which goes on counting from gen_next across modules, and
     * head entries the number of their validation (head_epoch). */
    rcache_ent *rcache;
    struct head_ent *heads;
    uint32_t gen_next, head_epoch;
} fit_cache;
enum { FIT_CACHE_MAX = 1 << 14 };
static _Thread_local fit_cache *tl_fits;
static pthread_key_t fits_key;
static pthread_once_t fits_once = PTHREAD_ONCE_INIT;

static void fit_cache_free(void *p) {
    fit_cache *fc = p;
    if (!fc) return;
    free(fc->fkeys);
    pg_vec_free(fc->fits);
    free(fc->rcache);
    free(fc->heads);
    free(fc);
}
static void fits_key_init(void) { (void)pthread_key_create(&fits_key, fit_cache_free); }

/* This thread's cache (freed at the thread's exit), or NULL without memory. */
static fit_cache *fit_cache_get(void) {
    if (tl_fits) return tl_fits;
    pthread_once(&fits_once, fits_key_init);
    fit_cache *fc = calloc(1, sizeof *fc);
    if (!fc) return NULL;
    (void)pthread_setspecific(fits_key, fc);
    return tl_fits = fc;
}

typedef struct { unsigned long long file, line, col; } loc3;   /* a .loc's source location */

typedef struct {
    ptx_module *m;
    pg_diag_sink *diag;
    symtab tab;               /* module + current function scopes */
    symtab labels;            /* labels of the current function */
    const ptx_func *func;
    int depth;                /* the current { } block's scope depth (1 = a function's body) */
    bool bad;
    /* Set while probing a form (report == false) when the reporting pass
     * over the same form would emit something; a clean probe lets
     * check_insn skip that pass. */
    bool noted;
    rcache_ent *rcache;       /* RCACHE entries: the thread's (fit_cache.rcache), else allocated on first use */
    /* base names of %r<N> declarations ("%rd"), packed into 8 bytes:
     * direct-mapped, valid while tab.gen is unchanged */
    struct { uint64_t key; uint32_t gen; int bl; const sym *s; } bcache[16];
    fit_cache *fc;            /* this thread's modifier matching cache; NULL: match directly */
    struct head_ent *heads;   /* HCACHE entries (see head_of), allocated on first use */
    uint32_t head_epoch;      /* heads entries of other validations carry other numbers */
    /* the arena copies of the bindings given to instructions (ptx_insn.match), direct-mapped
     * by form: instructions that bind alike share one */
    struct { const isa_form *f; const isa_match *m; } kept[64];
    /* { } blocks of the current function, numbered in order (0 = the body): a label
     * is seen in its block and the blocks inside it, as ptxas scopes them */
    PG_VEC(int) blk_parent;
    int cur_blk;
    PG_VEC(loc3) locs;        /* the source locations of the .loc lines so far, in module order */
    const char *fn_label;     /* the last function_name label found in a .section (not terminated) */
    size_t fn_label_n;
    bool pct_vars;            /* a variable or parameter named %x was declared (%x may not be a register) */
} vctx;

#define VERR(V, id, loc, ...) do { pg_diag_emit((V)->diag, id, (V)->m->filename, (loc).line, (loc).col, __VA_ARGS__); \
        if (pg_diag_default_sev(id) == PG_SEV_ERROR) (V)->bad = true; } while (0)

/* Split "%rd12" into base "%rd" and index 12; false when no trailing digits.  The length
 * comes from strlen and the digits are scanned back from the end: a forward pass that
 * tests every byte was a third of the register resolutions the cache misses (nvcc names
 * each value once, so most first uses miss). */
static bool split_reg(const char *name, size_t *baselen, long *idx) {
    size_t n = strlen(name), i = n;
    while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9') i--;
    if (i == n || i == 0 || n - i > 9) return false;
    *baselen = i;
    long v = 0;
    for (size_t k = i; k < n; k++) v = v * 10 + (name[k] - '0');
    *idx = v;
    return true;
}

/* The name range (x<N>) whose base is the first bl bytes of name.  A range is keyed by its
 * base and '<', a key no name can be: x<8> declares x0..x7, not x, so a name x of the same
 * scope is another symbol (a kernel parameter pb beside .reg .b64 pb<8>; issue 30). */
static const sym *find_base(vctx *V, const char *name, size_t bl) {
    if (bl <= 8) {
        /* the first bl bytes as a word: name has bl bytes and at least one digit and a NUL
         * after them, so one 4-byte load reads inside it when bl >= 3, two when bl > 4 */
        uint64_t key = 0;
        if (bl >= 3) {
            uint32_t lo, hi;
            memcpy(&lo, name, 4);
            memcpy(&hi, name + bl - 3, 4);   /* bytes bl-3 .. bl: inside (bl < name's length) */
            key = (uint64_t)lo | (uint64_t)hi << (8 * (bl - 3));   /* overlapping bytes are equal: OR keeps them */
            key &= bl == 8 ? ~0ull : (1ull << (8 * bl)) - 1;
        } else {
            for (size_t k = 0; k < bl; k++) key |= (uint64_t)(unsigned char)name[k] << (8 * k);
        }
        unsigned h = (unsigned)((key * 0x9E3779B97F4A7C15ull) >> 60);
        if (V->bcache[h].gen == V->tab.gen + 1 && V->bcache[h].key == key && V->bcache[h].bl == (int)bl)
            return V->bcache[h].s;
        char base[10];
        memcpy(base, name, bl);
        base[bl] = '<';
        base[bl + 1] = 0;
        const sym *s = st_find_tmp(&V->tab, base);
        V->bcache[h].key = key;
        V->bcache[h].bl = (int)bl;
        V->bcache[h].gen = V->tab.gen + 1;   /* +1: a zeroed entry is never valid */
        V->bcache[h].s = s;
        return s;
    }
    char base[256];
    if (bl + 1 >= sizeof base) return NULL;
    memcpy(base, name, bl);
    base[bl] = '<';
    base[bl + 1] = 0;
    return st_find_tmp(&V->tab, base);
}

/* A declared name: itself, or a member of a name range of any space (.shared .b32 sv<4>
 * declares sv0..sv3; .param .b16 %xh<8>), as ptxas resolves them. */
static const sym *find_sym(vctx *V, const char *name) {
    const sym *s = st_find(&V->tab, name);
    size_t bl;
    long idx;
    if (s || !split_reg(name, &bl, &idx)) return s;
    const sym *b = find_base(V, name, bl);
    return b && b->decl && idx < b->decl->count ? b : NULL;
}

/* Resolve a register name without reporting: REG_OK (decl), REG_RANGE (the
 * %r<N> declaration it is outside of), REG_BASE (the N of %r<N> left out) or REG_UNDECL. */
static int resolve_reg(vctx *V, const char *name, const ptx_decl **out) {
    size_t bl;
    long idx;
    bool split = split_reg(name, &bl, &idx);
    *out = NULL;
    /* most names are %r12-style members of a %r<N> declaration: try that first, unless a
     * block inside the declaration's may declare the name itself (.reg .f32 %ur<8>; { .reg
     * .u32 %ur0; ...}: the inner one, as ptxas scopes them) */
    if (split && bl < 64) {
        const sym *b = find_base(V, name, bl);
        if (b && b->kind == SYM_REG && b->decl->count > idx) {
            const sym *e = b->depth < V->depth ? st_find(&V->tab, name) : NULL;
            *out = e && e->kind == SYM_REG && e->depth > b->depth ? e->decl : b->decl;
            return *out == b->decl || e->decl->count == 0 ? REG_OK : REG_BASE;
        }
    }
    const sym *s = st_find(&V->tab, name);
    const sym *b = split && bl < 256 ? find_base(V, name, bl) : NULL;
    if (b && !(b->kind == SYM_REG && b->decl->count > 0)) b = NULL;
    if (s && s->kind == SYM_REG && (!b || s->depth >= b->depth)) {   /* the inner of the two */
        *out = s->decl;
        return REG_OK;
    }
    if (b) {
        *out = b->decl;
        return idx < b->decl->count ? REG_OK : REG_RANGE;
    }
    /* %r<8> declares %r0..%r7, not %r itself (ptxas: "Arguments mismatch") */
    const sym *r = find_base(V, name, strlen(name));
    if (r && r->kind == SYM_REG) {
        *out = r->decl;
        return REG_BASE;
    }
    return REG_UNDECL;
}

static __attribute__((noinline)) int resolve_reg_fill(vctx *V, const char *name, const ptx_decl **out) {
    if (!V->rcache) {
        V->rcache = calloc(RCACHE, sizeof *V->rcache);
        if (!V->rcache) return resolve_reg(V, name, out);
    }
    uintptr_t p = (uintptr_t)name;
    rcache_ent *e = &V->rcache[((p >> 4) ^ (p >> 14)) & (RCACHE - 1)];
    e->name = name;
    e->gen = V->tab.gen;
    e->st = (uint8_t)resolve_reg(V, name, &e->decl);
    *out = e->decl;
    return e->st;
}

/* The hit path inline (every register operand of every probed form comes here). */
static inline int resolve_reg_cached(vctx *V, const char *name, const ptx_decl **out) {
    if (V->rcache) {
        uintptr_t p = (uintptr_t)name;
        const rcache_ent *e = &V->rcache[((p >> 4) ^ (p >> 14)) & (RCACHE - 1)];
        if (e->name == name && e->gen == V->tab.gen) {
            *out = e->decl;
            return e->st;
        }
    }
    return resolve_reg_fill(V, name, out);
}

/* The special register an operand names, unless a register the program declared
 * takes that name in scope: ptxas lets .reg .u32 %laneid; shadow %laneid (issue 30). */
static inline const isa_sreg *op_sreg(vctx *V, const ptx_operand *op) {
    if (!op->sreg) return NULL;
    const ptx_decl *d;
    return resolve_reg_cached(V, op->name, &d) == REG_OK ? NULL : op->sreg;
}

/* Look a register up: exact name, or a parameterized %r<N> declaration.  Not found: NULL,
 * reported when `report`, else noted for the reporting pass. */
static const ptx_decl *find_reg_slow(vctx *V, const char *name, ptx_loc loc, bool report, int st, const ptx_decl *d);
static inline const ptx_decl *find_reg(vctx *V, const char *name, ptx_loc loc, bool report) {
    const ptx_decl *d;
    int st = resolve_reg_cached(V, name, &d);
    if (st == REG_OK) return d;
    return find_reg_slow(V, name, loc, report, st, d);
}

static __attribute__((noinline)) const ptx_decl *find_reg_slow(vctx *V, const char *name, ptx_loc loc, bool report, int st,
                                                                const ptx_decl *d) {
    if (!report) {
        V->noted = true;   /* the reporting pass would say something */
        return st == REG_RANGE ? d : NULL;
    }
    if (st == REG_RANGE) {
        size_t bl;
        long idx;
        split_reg(name, &bl, &idx);
        VERR(V, PG_E_REG_RANGE, loc, "register %s is outside its declaration %.*s<%d> (valid: %.*s0..%.*s%d)",
             name, (int)bl, name, d->count, (int)bl, name, (int)bl, name, d->count - 1);
        return NULL;
    }
    if (st == REG_BASE) {
        VERR(V, PG_E_UNDECL_REG, loc, "register %s is not declared: %s<%d> declares %s0..%s%d", name, name, d->count, name, name,
             d->count - 1);
        return NULL;
    }
    VERR(V, PG_E_UNDECL_REG, loc, "register %s is not declared", name);
    return NULL;
}

/* ---- type compatibility (PTX ISA "Operand type checking", as ptxas applies it) ----
 * A register of type `reg` fits an operand of type `want` when the types are
 * equal, or (N = want's size; "relaxed" = the ld/st/cvt rule, where the
 * register may be wider):
 *   .bN                 any non-predicate register of N bits (relaxed: at least N);
 *   integers            a .b/.u/.s or packed (.f16x2) register of N bits (relaxed: at
 *                       least N: ld.global.u32 %h2, cvt.u32.u16 %r, %h2; add.s32 %r, %r, %hx);
 *   .f32, .f64          a .bN register (relaxed: at least N), never another float;
 *   .f16                an .f16 or .b16 register (relaxed: or a wider .b one);
 *   .f16x2              an .f16x2 or .b32 register;
 *   .u16x2, .s16x2      a .b32 or .f16x2 register (ptxas);
 *   other floats and packed types (.bf16, .bf16x2, .tf32, .e4m3 ...):
 *                       a .bN register (relaxed: at least N);
 *   opaque handles      a 64-bit integer register.
 * ptxas rejects the rest ("Arguments mismatch"): .u16 for .f16, .u32 for .tf32. */
bool ptx_type_compat(ptx_type want, ptx_type reg, bool relaxed) {
    if (want == reg) return true;
    const ptx_type_info *w = ptx_type_get(want), *r = ptx_type_get(reg);
    if (w->cls == PTX_TC_PRED || r->cls == PTX_TC_PRED) return false;
    if (w->cls == PTX_TC_OPAQUE) return r->bits == 64 && (r->cls == PTX_TC_BIT || r->cls == PTX_TC_UINT || r->cls == PTX_TC_SINT);
    bool size_ok = relaxed ? r->bits >= w->bits : r->bits == w->bits;
    if (!size_ok) return false;
    switch (w->cls) {
    case PTX_TC_BIT:
        return true;
    case PTX_TC_UINT:
    case PTX_TC_SINT:
        return r->cls == PTX_TC_BIT || r->cls == PTX_TC_UINT || r->cls == PTX_TC_SINT || r->cls == PTX_TC_PACKED;
    case PTX_TC_FLOAT:
        if (want == PTX_T_F16 && reg == PTX_T_F16) return true;
        return r->cls == PTX_TC_BIT;
    case PTX_TC_PACKED:
        if (want == PTX_T_F16X2 && reg == PTX_T_F16X2) return true;
        /* ptxas takes .f16x2 registers for .u16x2/.s16x2 (min.s16x2 %hx3, %hx3, %hx6), not .u32/.s32 ones */
        if ((!strcmp(w->name, ".u16x2") || !strcmp(w->name, ".s16x2")) && reg == PTX_T_F16X2) return true;
        return r->cls == PTX_TC_BIT;
    default:
        return true;
    }
}

/* ---- operand checking ------------------------------------------------------ */
typedef struct {
    vctx *V;
    const ptx_insn *in;
    const isa_form *f;
    const isa_opslot *slot;   /* the operand slot being checked */
    const isa_match *mt;
    bool report;          /* emit diagnostics (false while probing forms) */
    ptx_space space;      /* state space from the modifiers, for addresses */
    bool space_unknown;   /* ... or no single space applies (see space_of) */
} opctx;

static ptx_type slot_type(const opctx *c, const isa_opslot *s) {
    if (s->type_var >= 0) {
        ptx_type t = isa_bound_type(c->mt, s->type_var);
        if (s->type_wide && t != PTX_T_NONE) {   /* .u32 -> .u64, .s16 -> .s32 */
            const ptx_type_info *ti = ptx_type_get(t);
            for (int k = 1; k < PTX_T__COUNT; k++)
                if (ptx_type_get((ptx_type)k)->cls == ti->cls && ptx_type_get((ptx_type)k)->bits == 2 * ti->bits &&
                    ptx_type_get((ptx_type)k)->reg_ok)
                    return (ptx_type)k;
        }
        return t;
    }
    return s->type;
}

#define OERR(c, id, loc, ...) do { if ((c)->report) VERR((c)->V, id, loc, __VA_ARGS__); } while (0)

/* A special register the module's target or PTX version does not have yet (reported, not a form
 * mismatch: the operand's kind is right). */
static void sreg_target_check(opctx *c, const ptx_operand *op, const isa_sreg *sr) {
    if (c->V->m->sm && sr->sm_min > c->V->m->sm) {
        if (!c->report) c->V->noted = true;
        OERR(c, PG_E_NEEDS_SM, op->loc, "%s needs sm_%d or newer", op->name, sr->sm_min);
    }
    if (c->V->m->ptx_version && sr->ptx_min > c->V->m->ptx_version) {
        if (!c->report) c->V->noted = true;
        OERR(c, PG_E_NEEDS_PTX, op->loc, "%s needs PTX ISA %d.%d or newer", op->name, sr->ptx_min / 10, sr->ptx_min % 10);
    }
}

static bool check_reg(opctx *c, const ptx_operand *op, const isa_opslot *s, ptx_type want, int opi) {
    /* the parser resolved special registers (op->sreg); plain names never are */
    const isa_sreg *sr = op_sreg(c->V, op);
    if (sr) {
        if (!(s->kinds & (ISA_OK_SPECIAL | ISA_OK_ANY))) {
            OERR(c, PG_E_OPERAND_KIND, op->loc, "special register %s is not allowed as operand %d of '%s' (use mov)",
                 op->name, opi + 1, c->in->opcode);
            return false;
        }
        /* a relaxed slot (cvt's source) reads a special register as any integer no wider */
        ptx_type_class wc = want == PTX_T_NONE ? PTX_TC_NONE : ptx_type_get(want)->cls;
        bool any_int = s->relaxed && sr->type != PTX_T_PRED && (wc == PTX_TC_BIT || wc == PTX_TC_UINT || wc == PTX_TC_SINT) &&
                       ptx_type_get(sr->type)->bits >= ptx_type_get(want)->bits;
        if (!s->any_type && want != PTX_T_NONE && !any_int && !isa_sreg_fits(sr, want)) {
            OERR(c, PG_E_OPERAND_TYPE, op->loc, "special register %s is %s; operand %d of '%s' is %s", op->name,
                 ptx_type_get(sr->type)->name, opi + 1, c->in->opcode, ptx_type_get(want)->name);
            return false;
        }
        sreg_target_check(c, op, sr);
        return true;
    }
    const ptx_decl *d = find_reg(c->V, op->name, op->loc, c->report);
    if (!d) {
        if (!c->report) return true;   /* undeclared is reported once, not a form mismatch */
        return true;
    }
    if (op->neg && !(s->kinds & ISA_OK_NEG) && d->type == PTX_T_PRED) {
        OERR(c, PG_E_OPERAND_KIND, op->loc, "'!' is not allowed on operand %d of '%s'", opi + 1, c->in->opcode);
        return false;
    }
    if (op->neg && d->type != PTX_T_PRED) {   /* ptxas: "Illegal argument to predicate negation" */
        OERR(c, PG_E_OPERAND_KIND, op->loc, "'!' negates a predicate register; %s is declared %s", op->name, ptx_type_get(d->type)->name);
        return false;
    }
    if (s->any_type || want == PTX_T_NONE) return true;
    bool packed = s->packed_ok && ptx_type_get(d->type)->cls == PTX_TC_PACKED && ptx_type_get(d->type)->bits == ptx_type_get(want)->bits;
    /* a packed register (.f16x2) fits an integer operand of the instruction's type (add.s32 %r, %r,
     * %hx) but not one of a fixed .u32/.s32 type: shift amounts, bfe positions, popc/clz/bfind/match
     * results, barrier ids, member masks (ptxas: "Arguments mismatch") */
    int wcls = ptx_type_get(want)->cls;
    bool fixed_int = s->type_var < 0 && (wcls == PTX_TC_UINT || wcls == PTX_TC_SINT) && ptx_type_get(d->type)->cls == PTX_TC_PACKED;
    if (!packed && (fixed_int || !ptx_type_compat(want, d->type, s->relaxed || d->vec))) {
        const char *what = d->type == PTX_T_PRED ? "a predicate register used as data" :
                           want == PTX_T_PRED ? "a data register used as a predicate" : "type mismatch";
        OERR(c, PG_E_OPERAND_TYPE, op->loc, "%s: operand %d of '%s' needs %s but %s is declared %s",
             what, opi + 1, c->in->opcode, ptx_type_get(want)->name, op->name, ptx_type_get(d->type)->name);
        return false;
    }
    return true;
}

/* ptxas checks the elements of a vector of floats by size only: ld.global.v2.f32
 * {%r1, %r2} with .s32 registers is fine, though ld.global.f32 %r1 is not. */
static bool vec_elem_loose(opctx *c, const ptx_operand *e, ptx_type want) {
    /* not .bf16 (ptxas: "Arguments mismatch" for atom.add.noftz.v4.bf16 {%s0, ..} of .s16 registers) */
    if (want == PTX_T_NONE || want == PTX_T_BF16 || ptx_type_get(want)->cls != PTX_TC_FLOAT) return false;
    const ptx_decl *d = find_reg(c->V, e->name, e->loc, false);
    if (!d) return false;
    const ptx_type_info *r = ptx_type_get(d->type);
    return (r->cls == PTX_TC_UINT || r->cls == PTX_TC_SINT) && r->bits == ptx_type_get(want)->bits;
}

static bool check_imm(opctx *c, const ptx_operand *op, const isa_opslot *s, ptx_type want, int opi) {
    if (s->nranges && op->kind == PTX_OP_IMM_INT && !isa_imm_allowed(s, op->ival)) {
        char vals[160] = "";
        size_t n = 0;
        for (int i = 0; i < s->nranges && n + 48 < sizeof vals; i++) {
            if (s->rlo[i] == s->rhi[i]) n += (size_t)snprintf(vals + n, sizeof vals - n, "%s%lld", i ? ", " : "", (long long)s->rlo[i]);
            else if (s->rstep[i] > 1)
                n += (size_t)snprintf(vals + n, sizeof vals - n, "%smultiples of %lld from %lld to %lld", i ? ", " : "",
                                      (long long)s->rstep[i], (long long)s->rlo[i], (long long)s->rhi[i]);
            else n += (size_t)snprintf(vals + n, sizeof vals - n, "%s%lld..%lld", i ? ", " : "", (long long)s->rlo[i], (long long)s->rhi[i]);
        }
        OERR(c, PG_E_IMM_RANGE, op->loc, "operand %d of '%s' is %s; it takes %s", opi + 1, c->in->opcode, op->text, vals);
        return false;
    }
    if (s->fint && op->kind == PTX_OP_IMM_FLT && !isa_flt_allowed(s, op->fval)) {
        OERR(c, PG_E_IMM_RANGE, op->loc, "operand %d of '%s' is %s (%g); it takes a value in %c%g, %g%c", opi + 1, c->in->opcode,
             op->text, op->fval, s->flo_open ? '(' : '[', s->flo, s->fhi, s->fhi_open ? ')' : ']');
        return false;
    }
    if (s->nranges && op->kind == PTX_OP_IMM_FLT) {
        OERR(c, PG_E_OPERAND_TYPE, op->loc, "operand %d of '%s' takes an integer constant, not %s", opi + 1, c->in->opcode, op->text);
        return false;
    }
    if (want == PTX_T_NONE) return true;
    const ptx_type_info *w = ptx_type_get(want);
    if (op->kind == PTX_OP_IMM_FLT && (w->cls == PTX_TC_UINT || w->cls == PTX_TC_SINT || w->cls == PTX_TC_PRED)) {
        OERR(c, PG_E_OPERAND_TYPE, op->loc, "float literal %s used as operand %d of '%s', which needs %s",
             op->text, opi + 1, c->in->opcode, w->name);
        return false;
    }
    /* a float literal is a bit pattern of its own size: 0f for .b32, 0d for .b64 */
    if (op->kind == PTX_OP_IMM_FLT && w->cls == PTX_TC_BIT && op->fbits != w->bits) {
        OERR(c, PG_E_OPERAND_TYPE, op->loc, "float literal %s is %d bits; operand %d of '%s' is %s", op->text, op->fbits,
             opi + 1, c->in->opcode, w->name);
        return false;
    }
    if (op->kind == PTX_OP_IMM_INT && w->cls == PTX_TC_FLOAT) {
        OERR(c, PG_E_OPERAND_TYPE, op->loc, "integer literal %s used as operand %d of '%s', which needs %s (write a float literal such as 0f3F800000 or 1.0)",
             op->text, opi + 1, c->in->opcode, w->name);
        return false;
    }
    return true;
}

static const char *kinds_words(unsigned k) {
    if (k & ISA_OK_ADDR) return "an address [..]";
    if (k & ISA_OK_LABEL) return "a label";
    if (k & ISA_OK_FUNC) return "a function name";
    if ((k & ISA_OK_REG) && (k & ISA_OK_IMM)) return "a register or immediate";
    if (k & ISA_OK_REG) return "a register";
    if (k & ISA_OK_IMM) return "an immediate";
    return "a different operand";
}

static bool check_symbol_ref(opctx *c, const ptx_operand *op, unsigned kinds, ptx_type want, int opi) {
    const sym *s = find_sym(c->V, op->name);
    if ((kinds & ISA_OK_LABEL)) {
        const sym *l = st_find(&c->V->labels, op->name);
        if (l && !l->is_proto && !l->is_table) {   /* a label inside a { } block is not seen from outside it */
            int b = c->V->cur_blk;
            while (b > 0 && b != l->depth) b = c->V->blk_parent.v[b];
            if (b != l->depth) l = NULL;
        }
        if (l && (kinds & ISA_OK_TABLE) && !l->is_table) {   /* brx.idx names a .branchtargets table */
            OERR(c, PG_E_OPERAND_KIND, op->loc, "operand %d of '%s' must name a .branchtargets table; %s is a plain label", opi + 1,
                 c->in->opcode, op->name);
            return false;
        }
        if (l && !(kinds & ISA_OK_TABLE) && (l->is_table || l->is_proto)) {
            OERR(c, PG_E_OPERAND_KIND, op->loc, "operand %d of '%s' must be a label; %s names a %s", opi + 1, c->in->opcode, op->name,
                 l->is_table ? "target table" : "call prototype");
            return false;
        }
        if (l) return true;
        if (!(kinds & (ISA_OK_SYM | ISA_OK_FUNC))) {
            OERR(c, PG_E_UNDEF_LABEL, op->loc, "label %s is not defined in '%s'", op->name, c->V->func->name);
            return c->report ? true : false;
        }
    }
    if (!s) {
        OERR(c, PG_E_UNDEF_SYMBOL, op->loc, "'%s' is not declared (operand %d of '%s')", op->name, opi + 1, c->in->opcode);
        return c->report ? true : false;
    }
    if ((kinds & ISA_OK_FUNC) && s->kind == SYM_FUNC) return true;
    /* a function is in no state space (ptxas: "State space mismatch" for cvta.global.u64 %rd, fn) */
    if ((kinds & ISA_OK_SYM) && s->kind == SYM_FUNC && c->space != PTX_SS_NONE && !c->space_unknown) {
        OERR(c, PG_E_OPERAND_KIND, op->loc, "'%s' is a function; '%s' here takes %s addresses", op->name, c->in->opcode,
             ptx_space_name(c->space));
        return false;
    }
    /* kind n: a .shared variable only (ptxas: "State space mismatch" for getctarank.u32 %r, gb) */
    if ((kinds & ISA_OK_SYM) && (kinds & ISA_OK_SADDR) && (s->kind == SYM_PARAM || (s->kind == SYM_VAR && s->decl &&
                                                                                  s->decl->space != PTX_SS_SHARED))) {
        OERR(c, PG_E_OPERAND_KIND, op->loc, "operand %d of '%s' names a .shared variable; %s is not one", opi + 1, c->in->opcode,
             op->name);
        return false;
    }
    if ((kinds & ISA_OK_SYM) && (s->kind == SYM_VAR || s->kind == SYM_FUNC || s->kind == SYM_PARAM)) {
        /* a .param declared in a body holds a call's argument: it has no address (ptxas: "Illegal to take
         * address of parameter 'q'" for mov.u64 %rd, q and cvta.param; a kernel's or function's own
         * parameter has one) */
        if (s->kind == SYM_VAR && s->decl && s->decl->space == PTX_SS_PARAM) {
            OERR(c, PG_E_OPERAND_KIND, op->loc, "operand %d of '%s': %s is a .param of the body (a call's argument), whose address cannot be taken",
                 opi + 1, c->in->opcode, op->name);
            return false;
        }
        /* ptxas: "State space mismatch between instruction and address" */
        if (s->kind == SYM_PARAM && c->space != PTX_SS_NONE && c->space != PTX_SS_PARAM && !c->space_unknown) {
            /* ptxas: "State space mismatch" for getctarank.shared::cluster.u64 %r, pa */
            OERR(c, PG_E_OPERAND_KIND, op->loc, "%s is a .param variable; '%s' here takes %s addresses", op->name, c->in->opcode,
                 ptx_space_name(c->space));
            return false;
        }
        if (s->kind == SYM_VAR && s->decl && c->space != PTX_SS_NONE && !c->space_unknown && s->decl->space != c->space) {
            OERR(c, PG_E_OPERAND_KIND, op->loc, "%s is a %s variable; '%s' here takes %s addresses", op->name,
                 ptx_space_name(s->decl->space), c->in->opcode, ptx_space_name(c->space));
            return false;
        }
        if (s->kind == SYM_VAR && s->decl && want != PTX_T_NONE) {
            int bits = ptx_type_get(want)->bits;
            /* ptxas: "Indirect access to texture requires .u64 type" */
            if (ptx_type_get(s->decl->type)->cls == PTX_TC_OPAQUE && bits != 64) {
                OERR(c, PG_E_OPERAND_TYPE, op->loc, "the handle %s is 64 bits; operand %d of '%s' is %s", op->name, opi + 1,
                     c->in->opcode, ptx_type_get(want)->name);
                return false;
            }
            /* ptxas reads a 32-bit address of a .global variable as the 32-bit ABI,
             * which it no longer supports ("32-Bit compilation is no longer supported") */
            if (s->decl->space == PTX_SS_GLOBAL && bits == 32 && c->V->m->address_size != 32) {
                OERR(c, PG_E_OPERAND_TYPE, op->loc, "the address of the .global variable %s is 64 bits; operand %d of '%s' is %s",
                     op->name, opi + 1, c->in->opcode, ptx_type_get(want)->name);
                return false;
            }
        }
        return true;
    }
    OERR(c, PG_E_OPERAND_KIND, op->loc, "operand %d of '%s' must be %s, not '%s'", opi + 1, c->in->opcode,
         kinds_words(kinds), op->name);
    return false;
}

static char texel_kind(opctx *c, const ptx_operand *e);

/* One coordinate x of a texture, surface or tensor operand [name, c] (c a coordinate or a
 * {vector} of them): a register or a number, never a name (ptxas: "Incompatible elements of
 * vector expression" for a parameter's name, "Illegal expression 'vsub'" for an unknown one);
 * a surface's an integer (ptxas: "Vector with elements of different types" for 0d3FF0...) in a
 * 32-bit register, a 32-bit special register or a literal (ptxas: "Arguments mismatch" for
 * .b16, .u64, .f32, .pred, "Incompatible elements of vector expression" for {%r1, %rd1},
 * "Sink '_' not allowed").  Tensor and texture coordinates get their types checked elsewhere. */
static bool check_coordinate(opctx *c, const ptx_operand *x, int opi) {
    if (x->kind == PTX_OP_SYM) {
        OERR(c, PG_E_OPERAND_KIND, x->loc, "operand %d of '%s': coordinate '%s' is a name, not a register or a number",
             opi + 1, c->in->opcode, x->name);
        return false;
    }
    const isa_sreg *sr = x->kind == PTX_OP_REG ? op_sreg(c->V, x) : NULL;
    if (sr) sreg_target_check(c, x, sr);   /* a coordinate as any operand (sured ... {%cluster_ctarank, ..} on sm_80) */
    if (x->kind == PTX_OP_IMM_FLT && !(c->slot->kinds & ISA_OK_TEXCOORD)) {
        OERR(c, PG_E_OPERAND_KIND, x->loc, "operand %d of '%s': a surface coordinate is an integer, not %s", opi + 1,
             c->in->opcode, x->text ? x->text : "a float literal");
        return false;
    }
    bool surface = (c->slot->kinds & ISA_OK_HANDLE) && !(c->slot->kinds & ISA_OK_TEXCOORD);
    if (!surface) return true;
    char kind = x->kind == PTX_OP_SINK ? 0 : texel_kind(c, x);
    if (kind == 's' && ptx_type_get(op_sreg(c->V, x)->type)->bits != 32) kind = 0;   /* {%clock64} */
    bool integer = kind == 'i' || kind == 'b' || kind == 'I' || kind == 's';
    if (!integer && kind != '?') {   /* '?': undeclared, reported by the caller */
        OERR(c, PG_E_OPERAND_TYPE, x->loc, "operand %d of '%s': a surface coordinate is a 32-bit integer register, not %s",
             opi + 1, c->in->opcode, x->text ? x->text : "that");
        return false;
    }
    return true;
}

/* s == lit, the first bytes compared inline: most tests of an opcode or modifier against one
 * name fail there, without a call to strcmp (a call per address operand, perf). */
static inline bool str_is(const char *s, const char *lit) { return s[0] == lit[0] && s[1] == lit[1] && !strcmp(s, lit); }

static bool check_address(opctx *c, const ptx_operand *op, int opi) {
    if (!op->addr_has_base) {   /* ptxas: "Immediate addresses allowed only for .local state space" */
        /* an operand after a copy's two spaces (its mbarrier) is .shared: no immediate either */
        if (c->space == PTX_SS_LOCAL) return true;
        OERR(c, PG_E_OPERAND_KIND, op->loc, "operand %d of '%s' is an immediate address; only .local accesses take one",
             opi + 1, c->in->opcode);
        return false;
    }
    if (op->nelems) {   /* texture/surface tuple: [tex, {coords}] */
        const sym *s = find_sym(c->V, op->name);
        if (op->name[0] != '%' && !s) {
            if (!c->report) c->V->noted = true;
            OERR(c, PG_E_UNDEF_SYMBOL, op->loc, "'%s' is not declared", op->name);
        }
        for (int i = 0; i < op->nelems; i++) {
            const ptx_operand *e = &op->elems[i];
            for (int k = 0; k < (e->kind == PTX_OP_VEC ? e->nelems : 1); k++)
                if (!check_coordinate(c, e->kind == PTX_OP_VEC ? &e->elems[k] : e, opi)) return false;
            if (e->kind == PTX_OP_REG && op_sreg(c->V, e)) {   /* ptxas: "Special register argument not allowed" (in {..} it is) */
                OERR(c, PG_E_OPERAND_KIND, e->loc, "operand %d of '%s': the special register %s as a coordinate outside {..}",
                     opi + 1, c->in->opcode, e->name);
                return false;
            }
            if (e->kind == PTX_OP_REG && !op_sreg(c->V, e)) find_reg(c->V, e->name, e->loc, c->report);
            if (e->kind == PTX_OP_VEC)
                for (int k = 0; k < e->nelems; k++)
                    if (e->elems[k].kind == PTX_OP_REG && !op_sreg(c->V, &e->elems[k]))   /* {.., %reserved_smem_offset_1} */
                        find_reg(c->V, e->elems[k].name, e->elems[k].loc, c->report);
        }
        return true;
    }
    if (op->addr_base_is_reg) {
        const ptx_decl *ud;
        const isa_sreg *sr = op->name[0] == '%' && resolve_reg_cached(c->V, op->name, &ud) != REG_OK
                                 ? isa_sreg_lookup(op->name, strlen(op->name)) : NULL;
        if (sr) {
            /* ptxas takes a whole special register of an integer type as the base ([%laneid],
             * [%clock64+8], [%pm4_64]); not a component ("Parsing error near '.x'") nor a predicate */
            if (strchr(op->name + 1, '.') || sr->type == PTX_T_PRED) {
                OERR(c, PG_E_OPERAND_KIND, op->loc, "special register %s cannot be an address", op->name);
                return false;
            }
            if (c->slot->kinds & ISA_OK_OBJECT) {   /* ptxas: "Illegal state space for address operand '%laneid'" */
                OERR(c, PG_E_OPERAND_KIND, op->loc, "operand %d of '%s' addresses an mbarrier in .shared memory, not the special register %s",
                     opi + 1, c->in->opcode, op->name);
                return false;
            }
            sreg_target_check(c, op, sr);
            return true;
        }
        const ptx_decl *d = find_reg(c->V, op->name, op->loc, c->report);
        if (!d) return true;
        const ptx_type_info *ti = ptx_type_get(d->type);
        /* ptxas takes any integer register, 8 to 64 bits, as an address ("Use integer or bit only") */
        if (ti->cls == PTX_TC_PRED || ti->cls == PTX_TC_FLOAT || ti->cls == PTX_TC_PACKED || ti->bits > 64) {
            OERR(c, PG_E_OPERAND_TYPE, op->loc, "address register %s is declared %s; addresses need an integer register",
                 op->name, ti->name);
            return false;
        }
        /* red.async and st.async write .shared::cluster memory whether or not the space is written: their
         * address register is 32 bits or more, never 8 or 16 (ptxas: "Arguments mismatch for instruction
         * 'mov'"), and a 32-bit one is no generic address */
        bool cluster_async = opi == 0 && c->in->nmods && str_is(c->in->mods[0], ".async") &&
                             (str_is(c->in->opcode, "red") || str_is(c->in->opcode, "st"));
        if (cluster_async && ti->bits < 32) {
            OERR(c, PG_E_OPERAND_TYPE, op->loc, "%d-bit register %s as the address of '%s.async': a .shared::cluster address takes 32 or 64 bits",
                 ti->bits, op->name, c->in->opcode);
            return false;
        }
        bool generic32 = ti->bits < 64 && c->V->m->address_size == 64 && !c->space_unknown && !cluster_async &&
                         (c->space == PTX_SS_NONE || c->space == PTX_SS_GLOBAL);
        /* a 32-bit register there makes ptxas compile the whole module for a 32-bit ABI, which it
         * no longer does ("32-Bit compilation is no longer supported"; on sm_90 "32-Bit ABI ... is
         * not supported"; multimem.red "Arguments mismatch for instruction 'mov'") in the memory,
         * atomic and synchronization classes (ld, st, prefetch, atom, red, multimem, mbarrier); it
         * takes a 16-bit one, and the asynchronous copies (cp.async, cp.async.bulk, their prefetch)
         * and the tensor class (wmma.load/store) take a 32-bit one */
        bool cls32 = c->f->cls == ISA_C_MEM || c->f->cls == ISA_C_ATOMIC || c->f->cls == ISA_C_SYNC;
        /* multimem.red and prefetch.tensormap refuse a 16-bit one too ("Arguments mismatch for instruction
         * 'mov'"; multimem.ld_reduce/st and prefetch.global take it) */
        bool no16 = c->in->nmods && ((str_is(c->in->opcode, "multimem") && str_is(c->in->mods[0], ".red")) ||
                                     (str_is(c->in->opcode, "prefetch") && str_is(c->in->mods[c->in->nmods - 1], ".tensormap")));
        /* wmma.load/store refuse an 8- or 16-bit one in every space ("Arguments mismatch for instruction
         * 'mov'", seed 6) */
        if (ti->bits < 32 && str_is(c->in->opcode, "wmma")) {
            OERR(c, PG_E_OPERAND_TYPE, op->loc, "%d-bit register %s used as the address of 'wmma' (it takes a 32- or 64-bit one)",
                 ti->bits, op->name);
            return false;
        }
        if (generic32 && (ti->bits == 32 || (ti->bits == 16 && no16)) && cls32) {
            OERR(c, PG_E_OPERAND_TYPE, op->loc, "%d-bit register %s used as a %s address under .address_size 64 (a %s address is 64-bit)",
                 ti->bits, op->name, c->space == PTX_SS_GLOBAL ? "global" : "generic", c->space == PTX_SS_GLOBAL ? "global" : "generic");
            return false;
        }
        if (generic32 && !c->report) c->V->noted = true;
        if (generic32 && c->report)
            VERR(c->V, PG_W_ADDR32, op->loc, "%d-bit register %s used as a %s address under .address_size 64",
                 ti->bits, op->name, c->space == PTX_SS_GLOBAL ? "global" : "generic");
        return true;
    }
    const sym *s = find_sym(c->V, op->name);
    if (!s) {
        OERR(c, PG_E_UNDEF_SYMBOL, op->loc, "'%s' in address operand %d of '%s' is not declared", op->name, opi + 1,
             c->in->opcode);
        return c->report;
    }
    /* ptxas: "Illegal operand type to instruction 'ld'": a texture, sampler or surface
     * variable is read through tex/suld/sust/txq/suq only, whatever the type */
    if ((s->kind == SYM_VAR || s->kind == SYM_PARAM) && s->decl && ptx_type_get(s->decl->type)->cls == PTX_TC_OPAQUE &&
        !(c->slot->kinds & ISA_OK_HANDLE)) {
        OERR(c, PG_E_OPERAND_TYPE, op->loc, "%s is a %s: '%s' cannot address it (a handle is used by tex, suld, sust, txq, suq)",
             op->name, ptx_type_get(s->decl->type)->name, c->in->opcode);
        return false;
    }
    /* ptxas: "State space mismatch between instruction and address": a
     * variable's space must be the instruction's; a generic address may name
     * a .global, .shared or .local variable, not a .const or .param one */
    if (s->kind == SYM_VAR || s->kind == SYM_PARAM) {
        ptx_space vs = s->kind == SYM_PARAM ? PTX_SS_PARAM : s->decl ? s->decl->space : PTX_SS_NONE;
        bool fits = c->space_unknown || (c->space == PTX_SS_NONE ? (vs != PTX_SS_CONST && vs != PTX_SS_PARAM) : vs == c->space);
        if (!fits && vs != PTX_SS_NONE) {
            OERR(c, PG_E_OPERAND_KIND, op->loc, "%s is a %s variable; '%s' here addresses %s memory", op->name, ptx_space_name(vs),
                 c->in->opcode, c->space == PTX_SS_NONE ? "generic" : ptx_space_name(c->space));
            return false;
        }
    }
    ptx_space only = (c->slot->kinds & ISA_OK_GADDR) ? PTX_SS_GLOBAL : (c->slot->kinds & ISA_OK_SADDR) ? PTX_SS_SHARED : PTX_SS_NONE;
    ptx_space vspace = s->kind == SYM_PARAM ? PTX_SS_PARAM : s->kind == SYM_VAR && s->decl ? s->decl->space : PTX_SS_NONE;
    if (only != PTX_SS_NONE && vspace != PTX_SS_NONE && vspace != only) {   /* a parameter too: cp.async.bulk's [mbar] of pf */
        OERR(c, PG_E_OPERAND_KIND, op->loc, "operand %d of '%s' takes a generic address or a %s variable, not the %s variable %s",
             opi + 1, c->in->opcode, ptx_space_name(only), ptx_space_name(vspace), op->name);
        return false;
    }
    /* a kernel's parameters are read-only ("Illegal to write to function input parameter") */
    if (s->kind == SYM_PARAM && c->V->func && c->V->func->is_entry && opi == 0 &&
        (c->f->cls == ISA_C_ATOMIC || str_is(c->in->opcode, "st"))) {
        OERR(c, PG_E_OPERAND_KIND, op->loc, "'%s' is a parameter of the kernel '%s', which is read-only", op->name, c->V->func->name);
        return false;
    }
    if (s->kind == SYM_FUNC) {   /* ptxas: "Illegal to use symbol ... as address operand" */
        OERR(c, PG_E_OPERAND_KIND, op->loc, "'%s' is a function; an address names a variable or a register", op->name);
        return false;
    }
    return true;
}

static int arity_of(const opctx *c, const isa_opslot *s) {
    if (s->arity_var >= 0) {
        const char *v = isa_bound_text(c->mt, s->arity_var);
        if (!v) return 1;
        while (*v && (*v < '0' || *v > '9')) v++;
        return *v ? *v - '0' : 1;   /* ".v4", ".3d" */
    }
    return s->arity;
}

/* A handle address [h] or [h, coords...] (txq, suq, sured, suld, sust): h is a variable of the
 * slot's opaque type (.texref, .surfref, .samplerref) or a 64-bit integer register, with no
 * offset (ptxas: ".texref or .u64 register expected", "Arguments mismatch"). */
static bool check_handle(opctx *c, const ptx_operand *op, ptx_type want, int opi) {
    if (op->ival != 0 || !op->addr_has_base) {
        OERR(c, PG_E_OPERAND_KIND, op->loc, "operand %d of '%s' names a %s handle without an offset", opi + 1, c->in->opcode,
             ptx_type_get(want)->name);
        return false;
    }
    for (int i = 0; i < op->nelems; i++) {   /* coordinates: a {vector} of 1, 2 or 4 (ptxas: "Illegal vector size: 3") */
        int n = op->elems[i].kind == PTX_OP_VEC ? op->elems[i].nelems : 1;
        if (op->elems[i].kind != PTX_OP_VEC && op->elems[i].kind != PTX_OP_REG) {   /* ptxas: a syntax error for [s, 5] */
            OERR(c, PG_E_OPERAND_KIND, op->elems[i].loc, "operand %d of '%s': a coordinate outside {..} is a register", opi + 1,
                 c->in->opcode);
            return false;
        }
        if (n > 4 || (n & (n - 1))) {
            OERR(c, PG_E_VECTOR_ARITY, op->elems[i].loc, "operand %d of '%s': a vector of %d coordinates; a vector has 1, 2 or 4 elements",
                 opi + 1, c->in->opcode, n);
            return false;
        }
    }
    /* a surface's coordinate vector: at least as many as the geometry bound to G reads (ISA_TEXGEOM's
     * smallest vector; ptxas: "Operand vector size doesn't match geometry" for sust.b.3d [s, {%r0}],
     * though it takes a scalar for any geometry) */
    const char *geom = isa_bound_text(c->mt, 'G' - 'A');
    if (!op->nelems && geom && isa_texture_geometry(geom)) {   /* ptxas: "Arguments mismatch" for sured.p.and.2d.b32.trap [%rd7], %r7 */
        OERR(c, PG_E_OPERAND_KIND, op->loc, "operand %d of '%s': a '%s' surface access names its coordinates, [s, {..}]", opi + 1,
             c->in->opcode, geom);
        return false;
    }
    const isa_texgeom *g = op->nelems ? isa_texture_geometry(geom) : NULL;
    if (g && op->elems[op->nelems - 1].kind == PTX_OP_VEC) {
        const ptx_operand *v = &op->elems[op->nelems - 1];
        int n = v->nelems;
        if (n < g->min_vector) {
            OERR(c, PG_E_VECTOR_ARITY, v->loc, "operand %d of '%s': a '%s' surface takes %d coordinates or more, not %d", opi + 1,
                 c->in->opcode, g->mod, g->min_vector, n);
            return false;
        }
    }
    if (op->addr_base_is_reg) {
        const ptx_decl *ud;
        if (op_sreg(c->V, op) || (resolve_reg_cached(c->V, op->name, &ud) != REG_OK && isa_sreg_lookup(op->name, strlen(op->name)))) {
            /* ptxas: "Arguments mismatch" for [%clock_hi, ...] */
            OERR(c, PG_E_OPERAND_KIND, op->loc, "operand %d of '%s': the special register %s is not a handle", opi + 1, c->in->opcode, op->name);
            return false;
        }
        const ptx_decl *d = find_reg(c->V, op->name, op->loc, c->report);   /* ptxas: "Arguments mismatch" for [%rd8, ..] of %rd<8> */
        const ptx_type_info *ti = d ? ptx_type_get(d->type) : NULL;
        if (d && (ti->bits != 64 || !(ti->cls == PTX_TC_BIT || ti->cls == PTX_TC_UINT || ti->cls == PTX_TC_SINT) || d->vec)) {
            OERR(c, PG_E_OPERAND_TYPE, op->loc, "operand %d of '%s': a handle register is 64-bit, not %s %s", opi + 1, c->in->opcode,
                 ti->name, op->name);
            return false;
        }
    } else {
        const sym *s = find_sym(c->V, op->name);
        if (s && (s->kind != SYM_VAR || !s->decl || s->decl->type != want)) {
            OERR(c, PG_E_OPERAND_TYPE, op->loc, "operand %d of '%s' needs a %s variable or a 64-bit register; %s is not one",
                 opi + 1, c->in->opcode, ptx_type_get(want)->name, op->name);
            return false;
        }
    }
    return check_address(c, op, opi);
}

/* What a texture coordinate is: 'i' an integer register (.u32/.s32), 'f' an .f32 one, 'b' a .b32
 * one (either), 'I'/'F' an integer/float literal, 's' a special register, 0 anything else (other
 * sizes, predicates, sinks: ptxas "Incompatible elements of vector expression", "Sink '_' not
 * allowed"), '?' undeclared (check_address reports it). */
static char texel_kind(opctx *c, const ptx_operand *e) {
    if (e->kind == PTX_OP_IMM_INT) return 'I';
    if (e->kind == PTX_OP_IMM_FLT) return 'F';
    if (e->kind != PTX_OP_REG) return 0;
    if (op_sreg(c->V, e)) return 's';
    const ptx_decl *d = find_reg(c->V, e->name, e->loc, false);
    if (!d) return '?';
    const ptx_type_info *ti = ptx_type_get(d->type);
    if (ti->bits != 32 || d->vec) return 0;
    return ti->cls == PTX_TC_BIT ? 'b' : ti->cls == PTX_TC_FLOAT ? 'f' : ti->cls == PTX_TC_UINT || ti->cls == PTX_TC_SINT ? 'i' : 0;
}

/* An element of a texture's {vector} (coordinates, derivatives, offset, level): a 32-bit special
 * register is typeless there, as a .b32 register (ptxas takes {%f1, %laneid} under .f32 and
 * {%laneid} as a level), a 64-bit one nothing (ptxas: "Incompatible elements of vector
 * expression" for {%sr1, %clock64}, "Arguments mismatch" for {%clock64}); outside a vector a
 * special register stays 's' ("Special register argument not allowed"). */
static char texel_elem_kind(opctx *c, const ptx_operand *e) {
    char k = texel_kind(c, e);
    return k != 's' ? k : ptx_type_get(op_sreg(c->V, e)->type)->bits == 32 ? 'b' : 0;
}

/* The operands after [tex, c]: with .level the level of detail (a scalar, or a vector of 1, 2 or 4), with .grad two derivative
 * vectors of as many .f32 (or .b32) registers as the geometry's derivative (ptxas: "Vector expected
 * for argument 3", "Operand vector size doesn't match geometry"); a level-of-detail register of the
 * coordinates' type (a vector of one may hold integers); then either one 32-bit register or literal,
 * or the offset vector e (integers, as many as the geometry's offset or more, a power of two; one
 * integer for 1d geometries) and the depth f (.f32 or .b32, or a float literal; only beside .f32
 * coordinates) (ptxas: "Arguments
 * mismatch", "Special register argument not allowed"). */
static bool check_tex_rest(opctx *c, const isa_texgeom *g, const char *M, int opi) {
    bool grad = M && !strcmp(M, ".grad"), level = M && !strcmp(M, ".level");
    const char *why = NULL;
    const ptx_operand *bad = NULL;
    for (int k = opi + 1; grad && k <= opi + 2 && k < c->in->nops && !why; k++) {
        const ptx_operand *d = &c->in->ops[k];
        bool ok = d->kind == PTX_OP_VEC && d->nelems == g->deriv;
        for (int i = 0; ok && i < d->nelems; i++) {
            char e = texel_elem_kind(c, &d->elems[i]);
            ok = e == 'f' || e == 'b' || e == 'F' || e == '?';
        }
        if (!ok) bad = d, why = "a derivative vector of .f32 registers, as many as the geometry's derivative";
    }
    bool fl = slot_type(c, &c->f->ops[opi]) == PTX_T_F32;
    if (level && opi + 1 < c->in->nops) {   /* the level of detail: of the coordinates' kind (a vector may hold integers) */
        const ptx_operand *l = &c->in->ops[opi + 1];
        /* a vector of 1, 2 or 4 (ptxas: "Illegal vector size: 3", 8, 16; seed 7, h77) */
        bool ok = l->kind != PTX_OP_VEC || l->nelems == 1 || l->nelems == 2 || l->nelems == 4;
        for (int i = 0; i < (l->kind == PTX_OP_VEC ? l->nelems : 1); i++) {
            char k = l->kind == PTX_OP_VEC ? texel_elem_kind(c, &l->elems[i]) : texel_kind(c, l);
            ok = ok && k && k != 's' && !((k == 'f' || k == 'F') && !fl) && !(k == 'I' && fl) && !(k == 'i' && fl && l->kind != PTX_OP_VEC);
        }
        if (!ok) bad = l, why = fl ? "a level of detail (.f32)" : "a level of detail (.s32)";
    }
    int t = opi + 1 + (grad ? 2 : level ? 1 : 0), ntail = c->in->nops - t;
    const ptx_operand *e = ntail >= 1 ? &c->in->ops[t] : NULL, *f = ntail >= 2 ? &c->in->ops[t + 1] : NULL;
    char ek = e && e->kind != PTX_OP_VEC ? texel_kind(c, e) : '?';
    if (!why && e && e->kind == PTX_OP_VEC) {
        int n = e->nelems;
        bool ok = g->offset && n >= g->offset && n <= 4 && !(n & (n - 1));
        for (int i = 0; ok && i < n; i++) {
            char k = texel_elem_kind(c, &e->elems[i]);
            ok = k == 'i' || k == 'b' || k == '?';
        }
        if (!ok) bad = e, why = g->offset ? "an offset vector of integer registers that fits the geometry" : "nothing: this geometry takes no offset";
    } else if (!why && e && (!ek || ek == 's' || (!fl && !f && (ek == 'f' || ek == 'F'))))
        bad = e, why = fl ? "a 32-bit register or a literal" : "a 32-bit integer register or literal";
    else if (!why && f && !(g->offset == 1 && (ek == 'i' || ek == 'b' || ek == 'I' || ek == '?')))
        bad = e, why = g->offset == 1 ? "an integer offset before the depth" : "the offset vector before the depth";
    /* a .3d texture has no depth compare: neither f nor a lone register e where an offset is a vector */
    /* a lone .s32/.u32 register e is read as the literal is (tex.base.3d ... [t, {..}], %r5; ptxas
     * 13.0, seed 7, h77; not a .b32 one); a float one would be a depth */
    if (!why && !g->depth && (f || (e && e->kind == PTX_OP_REG && g->offset > 1 && ek != 'i')))
        bad = f ? f : e, why = "allowed: it would be a depth compare, which this geometry does not take";
    if (!why && f) {
        char k = texel_kind(c, f);
        if (!fl) bad = f, why = "anything: a depth needs .f32 coordinates";
        else if (f->kind == PTX_OP_VEC || !(k == 'f' || k == 'b' || k == 'F' || k == '?')) bad = f, why = "a depth (.f32)";
    }
    if (why) {
        OERR(c, PG_E_OPERAND_TYPE, bad->loc, "'%s' %s texture: %s is not %s", c->in->opcode, g->mod, bad->text ? bad->text : "this operand", why);
        return false;
    }
    return true;
}

/* A texture sample [tex, c] (tex, tld4; kind k): the handle as any handle's, then the coordinates
 * c as the geometry bound to the slot's arity variable reads them (ISA_TEXGEOM in isa.def) and of
 * the coordinate type bound to the slot's type; with .grad (bound to M) the two derivative
 * operands after it hold as many elements as the geometry's derivative.  ptxas's rules, probed:
 * a scalar coordinate of the coordinate type for non-array geometries only; a vector whose index
 * elements are integers and whose other elements are all integers or all floats (.b32 registers
 * and 32-bit special registers are either); floats under .s32 only after an array index; a literal of the coordinate type. */
static bool check_texcoord(opctx *c, const ptx_operand *op, const isa_opslot *s, int opi) {
    const isa_texgeom *g = isa_texture_geometry(s->arity_var >= 0 ? isa_bound_text(c->mt, s->arity_var) : NULL);
    ptx_type ct = slot_type(c, s);
    const char *M = isa_bound_text(c->mt, 'M' - 'A');
    bool fl = ct == PTX_T_F32;
    if (!g) return false;
    if (g->coord_type && strcmp(g->coord_type, ptx_type_get(ct)->name)) {
        OERR(c, PG_E_MODIFIER_COMBO, op->loc, "'%s' textures take %s coordinates, not %s", g->mod, g->coord_type, ptx_type_get(ct)->name);
        return false;
    }
    if (g->multisample && M && (!strcmp(M, ".level") || !strcmp(M, ".grad"))) {
        OERR(c, PG_E_MODIFIER_COMBO, op->loc, "a multisample texture ('%s') has no %s", g->mod, M);
        return false;
    }
    if (!op->nelems) {
        OERR(c, PG_E_OPERAND_KIND, op->loc, "operand %d of '%s' is [texture, coordinates]", opi + 1, c->in->opcode);
        return false;
    }
    if (!check_handle(c, op, PTX_T_TEXREF, opi)) return false;
    const ptx_operand *v = &op->elems[op->nelems - 1];
    if (v->kind != PTX_OP_VEC) {
        char k = texel_kind(c, v);
        if (k == '?') return true;
        if (k == 's') k = 'i';
        if (!g->scalar_ok || v->kind != PTX_OP_REG || !k || (k == 'f' && !fl) || (k == 'i' && fl)) {
            OERR(c, PG_E_OPERAND_TYPE, v->loc, "the coordinates of a '%s' texture are %s, not %s", g->mod,
                 g->scalar_ok ? (fl ? "an .f32 register or a vector" : "an integer register or a vector") : "a vector", v->text ? v->text : "this");
            return false;
        }
        return check_tex_rest(c, g, M, opi);
    }
    int n = v->nelems;
    if (n < g->min_vector || n > 4 || (n & (n - 1))) {
        OERR(c, PG_E_VECTOR_ARITY, v->loc, "a '%s' texture takes %d%s coordinates, not %d", g->mod, g->min_vector,
             g->min_vector == 1 ? ", 2 or 4" : g->min_vector == 2 ? " or 4" : "", n);
        return false;
    }
    bool any_f = false, any_i = false;
    for (int i = 0; i < n; i++) {
        char k = texel_elem_kind(c, &v->elems[i]);
        if (k == '?') continue;
        bool bad = !k || (i < g->index ? (k == 'f' || k == 'F') : (k == 'F' && !fl) || (k == 'I' && fl));
        if (bad) {
            OERR(c, PG_E_OPERAND_TYPE, v->elems[i].loc, "coordinate %d of operand %d of '%s' must be %s", i + 1, opi + 1, c->in->opcode,
                 i < g->index ? "an integer (an array or sample index)" : fl ? "a 32-bit register or a float" : "a 32-bit register or an integer");
            return false;
        }
        if (i < g->index) continue;
        any_f = any_f || k == 'f' || k == 'F';
        any_i = any_i || k == 'i' || k == 'I';
    }
    if ((any_f && any_i) || (any_f && !fl && !g->index)) {
        OERR(c, PG_E_OPERAND_TYPE, v->loc, "operand %d of '%s': the coordinates must be all %s", opi + 1, c->in->opcode,
             fl || g->index ? "integers or all floats" : "integers (.s32)");
        return false;
    }
    return check_tex_rest(c, g, M, opi);
}

/* A tensor tuple [map, {x, y, ...}] (cp.async.bulk.tensor): the map's address as any tuple's,
 * then exactly `arity` coordinates, each a 32-bit register or an integer (ptxas: "Arguments
 * mismatch", "Argument vector size mismatch"); an .f32 register only beside an integer
 * register and never beside an integer literal ("Vector with elements of different types"). */
static bool check_tuple(opctx *c, const ptx_operand *op, int arity, int opi) {
    const ptx_operand *v = op->nelems == 1 ? &op->elems[0] : NULL;
    if (!v || v->kind != PTX_OP_VEC) {
        OERR(c, PG_E_OPERAND_KIND, op->loc, "operand %d of '%s' is a tensor tuple [map, {coordinates}]", opi + 1, c->in->opcode);
        return false;
    }
    if (!check_address(c, op, opi)) return false;
    if (v->nelems != arity) {
        OERR(c, PG_E_VECTOR_ARITY, v->loc, "operand %d of '%s' takes %d coordinates, not %d", opi + 1, c->in->opcode, arity, v->nelems);
        return false;
    }
    int nfloat = 0, nint = 0, nimm = 0;
    for (int i = 0; i < v->nelems; i++) {
        const ptx_operand *e = &v->elems[i];
        if (e->kind == PTX_OP_IMM_INT) { nimm++; continue; }
        const ptx_decl *d = e->kind == PTX_OP_REG && !op_sreg(c->V, e) ? find_reg(c->V, e->name, e->loc, false) : NULL;
        if (e->kind == PTX_OP_REG && !d && !op_sreg(c->V, e)) continue;   /* undeclared: check_address reported it */
        const ptx_type_info *ti = d ? ptx_type_get(d->type) : NULL;
        if (!ti || ti->bits != 32 || ti->cls == PTX_TC_PRED || d->vec) {
            OERR(c, PG_E_OPERAND_TYPE, e->loc, "coordinate %d of operand %d of '%s' must be a 32-bit register or an integer",
                 i + 1, opi + 1, c->in->opcode);
            return false;
        }
        if (ti->cls == PTX_TC_FLOAT) nfloat++;
        else nint++;
    }
    if (nfloat && (nimm || !nint)) {
        OERR(c, PG_E_OPERAND_TYPE, v->loc, "operand %d of '%s': .f32 coordinates need an integer register beside them and no literal",
             opi + 1, c->in->opcode);
        return false;
    }
    return true;
}

/* An array's element sh[i] where the slot takes one (ISA_OK_INDEX): the variable is an array
 * (ptxas: "Array indexing on non-array"), its index an integer register or a number, and the
 * element is then checked as the address [sh] or the name sh the slot takes. */
static bool check_index(opctx *c, const ptx_operand *op, const isa_opslot *s, ptx_type want, int opi) {
    const sym *v = find_sym(c->V, op->name);
    if (v && ((v->kind != SYM_VAR && v->kind != SYM_PARAM) || !v->decl || v->decl->ndims == 0)) {
        OERR(c, PG_E_OPERAND_KIND, op->loc, "operand %d of '%s': %s is no array; only an array's element is written %s",
             opi + 1, c->in->opcode, op->name, op->text ? op->text : "x[i]");
        return false;
    }
    if (op->nelems) {
        const ptx_operand *r = &op->elems[0];
        const ptx_decl *d = op_sreg(c->V, r) ? NULL : find_reg(c->V, r->name, r->loc, c->report);
        if (!d && !op_sreg(c->V, r)) return c->report;
        ptx_type_class k = d ? ptx_type_get(d->type)->cls : PTX_TC_UINT;
        if ((k != PTX_TC_UINT && k != PTX_TC_SINT && k != PTX_TC_BIT) || (d && d->vec)) {
            OERR(c, PG_E_OPERAND_TYPE, r->loc, "operand %d of '%s': the index %s of %s is not an integer register", opi + 1,
                 c->in->opcode, r->name, op->name);
            return false;
        }
    }
    ptx_operand a = *op;
    a.nelems = 0;
    a.elems = NULL;
    a.ival = 0;
    if (s->kinds & ISA_OK_ADDR) {
        a.kind = PTX_OP_ADDR;
        a.addr_has_base = true;
        a.addr_base_is_reg = false;
        return check_address(c, &a, opi);
    }
    a.kind = PTX_OP_SYM;
    return check_symbol_ref(c, &a, s->kinds, want, opi);
}

static bool check_operand(opctx *c, const ptx_operand *op, const isa_opslot *s, int opi) {
    if (s->kinds & ISA_OK_ANY) {
        /* still catch undeclared registers */
        if (!c->report && (op->kind == PTX_OP_REG || op->kind == PTX_OP_VEC)) c->V->noted = true;
        if (op->kind == PTX_OP_REG && !op_sreg(c->V, op) && c->report) find_reg(c->V, op->name, op->loc, true);
        if (op->kind == PTX_OP_VEC && c->report)
            for (int i = 0; i < op->nelems; i++)
                if (op->elems[i].kind == PTX_OP_REG && !op_sreg(c->V, &op->elems[i])) find_reg(c->V, op->elems[i].name, op->elems[i].loc, true);
        if (op->kind == PTX_OP_ADDR) return check_address(c, op, opi);
        return true;
    }
    ptx_type want = slot_type(c, s);
    if (s->type_var >= 0 && want == PTX_T_NONE && !s->any_type) want = PTX_T_NONE;
    int arity = arity_of(c, s);
    switch (op->kind) {
    case PTX_OP_VEC: {
        if (!(s->kinds & ISA_OK_REG)) break;
        /* ptxas takes {x} for a scalar in vector-capable slots (ld/st/suld/sust without .vN) */
        if (arity == 1 && !((s->arity_var >= 0 || s->vec1) && op->nelems == 1)) {
            if (!c->report) return false;   /* a probe: the name below is for the message */
            char mn[96];
            int n = snprintf(mn, sizeof mn, "%s", c->in->opcode);
            for (int k = 0; k < c->in->nmods && n > 0 && n < (int)sizeof mn; k++)
                n += snprintf(mn + n, sizeof mn - (size_t)n, "%s", c->in->mods[k]);
            OERR(c, PG_E_VECTOR_ARITY, op->loc, "operand %d of '%s' is a scalar, not a %d-element vector",
                 opi + 1, mn, op->nelems);
            return false;
        }
        bool all_sinks = op->nelems > 0;
        for (int i = 0; i < op->nelems; i++) all_sinks = all_sinks && op->elems[i].kind == PTX_OP_SINK;
        if (all_sinks) {   /* ptxas: "Unable to infer type of vector elements" */
            OERR(c, PG_E_OPERAND_KIND, op->loc, "operand %d of '%s' is a vector of sinks only; at least one element must be a register",
                 opi + 1, c->in->opcode);
            return false;
        }
        if (arity < 0 && op->nelems != 2 && op->nelems != 4 && op->nelems > 1) {
            /* mov pack/unpack: ptxas 13.0 "Illegal vector size: 8" for mov.b64 of 8 .b8 and mov.b128 of 8 .b16,
             * though the elements fill the type */
            OERR(c, PG_E_VECTOR_ARITY, op->loc, "operand %d of '%s' has %d elements; mov packs and unpacks 2 or 4",
                 opi + 1, c->in->opcode, op->nelems);
            return false;
        }
        if (arity == 0 && s->arity_pow2 && (op->nelems & (op->nelems - 1)) != 0) {
            OERR(c, PG_E_VECTOR_ARITY, op->loc, "operand %d of '%s' has %d elements; a vector needs 1, 2, 4, 8, ... elements",
                 opi + 1, c->in->opcode, op->nelems);
            return false;
        }
        if (arity > 1 && op->nelems != arity) {
            OERR(c, PG_E_VECTOR_ARITY, op->loc, "operand %d of '%s' needs %d elements but has %d",
                 opi + 1, c->in->opcode, arity, op->nelems);
            return false;
        }
        bool ok = true;
        /* ptxas: "Incompatible elements of vector expression" — all register
         * elements have one size; for mov pack/unpack they fill the scalar exactly */
        int elem_bits = 0, sum_bits = 0;
        bool sizes_known = true;
        for (int i = 0; i < op->nelems; i++) {
            const ptx_operand *e = &op->elems[i];
            const ptx_decl *d = e->kind == PTX_OP_REG && !op_sreg(c->V, e) ? find_reg(c->V, e->name, e->loc, false) : NULL;
            if (!d) { sizes_known &= e->kind == PTX_OP_SINK; continue; }   /* a sink is as wide as the others */
            int b = ptx_type_get(d->type)->bits;
            if (elem_bits && b != elem_bits && d->type != PTX_T_PRED) {
                OERR(c, PG_E_OPERAND_TYPE, e->loc, "vector element %s of operand %d of '%s' is %d-bit but the others are %d-bit",
                     e->name, opi + 1, c->in->opcode, b, elem_bits);
                return false;
            }
            elem_bits = b;
            sum_bits += b;
        }
        sum_bits = elem_bits * op->nelems;   /* one size: checked above (ptxas: "Arguments mismatch" for mov.b16 {%fd2, _}, 16) */
        if (arity < 0 && sizes_known && elem_bits && c->mt) {
            ptx_type t = isa_bound_type(c->mt, 'T' - 'A');
            if (t != PTX_T_NONE && ptx_type_get(t)->bits != sum_bits) {
                OERR(c, PG_E_VECTOR_ARITY, op->loc, "operand %d of '%s': %d elements of %d bits do not make a %s value",
                     opi + 1, c->in->opcode, op->nelems, elem_bits, ptx_type_get(t)->name);
                return false;
            }
        }
        for (int i = 0; i < op->nelems; i++) {
            const ptx_operand *e = &op->elems[i];
            if (e->kind == PTX_OP_SINK) {
                if (s->kinds & ISA_OK_VSINK) continue;
                OERR(c, PG_E_OPERAND_KIND, e->loc, "operand %d of '%s' is read: its elements cannot be the sink '_'", opi + 1,
                     c->in->opcode);
                ok = false;
                continue;
            }
            if (e->kind == PTX_OP_REG && !op_sreg(c->V, e)) {   /* ptxas: "Illegal expression" */
                const ptx_decl *ed = find_reg(c->V, e->name, e->loc, false);
                if (ed && ed->vec) {
                    OERR(c, PG_E_OPERAND_KIND, e->loc, "vector element %s of operand %d of '%s' is itself a vector register",
                         e->name, opi + 1, c->in->opcode);
                    ok = false;
                    continue;
                }
            }
            /* ...but a fragment of a fixed count (mma, wmma) by its type */
            if (e->kind == PTX_OP_REG && !op_sreg(c->V, e) && s->arity <= 1 && !s->vec1 && vec_elem_loose(c, e, want)) continue;
            if (e->kind == PTX_OP_REG) ok = check_reg(c, e, s, want, opi) && ok;
            else if ((e->kind == PTX_OP_IMM_INT || e->kind == PTX_OP_IMM_FLT) && (s->kinds & ISA_OK_IMM)) ok = check_imm(c, e, s, want, opi) && ok;
            else {
                OERR(c, PG_E_OPERAND_KIND, e->loc, "vector element '%s' of operand %d of '%s' must be a register",
                     e->text ? e->text : "?", opi + 1, c->in->opcode);
                ok = false;
            }
        }
        return ok;
    }
    case PTX_OP_REG: {
        /* a label may begin with '%' (%L1: ... bra %L1;): ptxas takes it where a label goes */
        if ((s->kinds & ISA_OK_LABEL) && !op->sreg && !op->neg && arity <= 1 && st_find(&c->V->labels, op->name) &&
            !st_find(&c->V->tab, op->name))
            return check_symbol_ref(c, op, s->kinds, want, opi);
        if (!(s->kinds & ISA_OK_REG)) break;
        /* a vector register (.reg .v2 .u32 %v) is a whole {..} operand: it fits a
         * vector of its count with its element type, or fills mov's scalar exactly
         * (mov.b64 %rd, %v); never a scalar (ptxas: "Vector operand is not allowed") */
        const ptx_decl *vd = op_sreg(c->V, op) ? NULL : find_reg(c->V, op->name, op->loc, false);
        if (vd && vd->vec) {
            int bits = vd->vec * ptx_type_get(vd->type)->bits;
            bool fits = arity < 0 ? want == PTX_T_NONE || ptx_type_get(want)->bits == bits
                      : arity == 0 ? !s->vec1 : arity == vd->vec && (arity > 1 || s->arity_var >= 0);
            if (!fits) {
                OERR(c, PG_E_VECTOR_ARITY, op->loc, "operand %d of '%s' is %s, a %d-element vector register; it needs %s",
                     opi + 1, c->in->opcode, op->name, vd->vec, arity == 1 && !s->vec1 ? "a scalar" : "another element count");
                return false;
            }
            if (arity < 0 || s->any_type || want == PTX_T_NONE) return true;
            if (!ptx_type_compat(want, vd->type, s->relaxed)) {
                OERR(c, PG_E_OPERAND_TYPE, op->loc, "type mismatch: operand %d of '%s' needs %s elements but %s is declared .v%d %s",
                     opi + 1, c->in->opcode, ptx_type_get(want)->name, op->name, vd->vec, ptx_type_get(vd->type)->name);
                return false;
            }
            return true;
        }
        /* a count named by a modifier (.x1) is a {vector} even of one: "Vector of size 1 is expected" */
        bool named = s->arity_var >= 0 && isa_bound_text(c->mt, s->arity_var);
        if (arity > 1 || arity < 0 || s->vec1 || named) {   /* ptxas: "Vector expected for argument 0" */
            OERR(c, PG_E_VECTOR_ARITY, op->loc, "operand %d of '%s' needs a %s-element vector {..}, not %s",
                 opi + 1, c->in->opcode, arity > 0 ? (char[]){(char)('0' + arity % 10), 0} : "multi", op->name);
            return false;
        }
        return check_reg(c, op, s, want, opi);
    }
    case PTX_OP_IMM_INT:
    case PTX_OP_IMM_FLT:
        if (!(s->kinds & ISA_OK_IMM)) break;
        if (arity > 1 || arity < 0) break;
        return check_imm(c, op, s, want, opi);
    case PTX_OP_ADDR:
        if (!(s->kinds & ISA_OK_ADDR)) break;
        /* [name, ...] is a texture, surface or tensor operand (ptxas: "Parsing error near '8'" for
         * prefetch.global.L2 [gb,8]) */
        if (op->nelems && !(s->kinds & (ISA_OK_TUPLE | ISA_OK_TEXCOORD | ISA_OK_HANDLE))) {
            OERR(c, PG_E_OPERAND_KIND, op->loc, "operand %d of '%s' is an address [..]; [a, b] names a texture, surface or tensor",
                 opi + 1, c->in->opcode);
            return false;
        }
        if (s->kinds & ISA_OK_TUPLE) return check_tuple(c, op, arity, opi);
        if (s->kinds & ISA_OK_TEXCOORD) return check_texcoord(c, op, s, opi);
        if ((s->kinds & ISA_OK_HANDLE) && want != PTX_T_NONE) return check_handle(c, op, want, opi);
        return check_address(c, op, opi);
    case PTX_OP_SINK:
        if (!(s->kinds & ISA_OK_SINK)) break;
        return true;
    case PTX_OP_PAIR:
        if (!(s->kinds & ISA_OK_PAIR)) break;
        for (int i = 0; i < 2; i++) {
            const ptx_operand *e = &op->elems[i];
            if (e->kind != PTX_OP_REG && e->kind != PTX_OP_SINK) {   /* ptxas: "Arguments mismatch" for lop3|%p5 */
                OERR(c, PG_E_OPERAND_KIND, e->loc, "operand %d of '%s': '%s' in a p|q pair is not a register", opi + 1, c->in->opcode,
                     e->text ? e->text : "?");
                return false;
            }
            if (e->kind != PTX_OP_REG) continue;
            const ptx_decl *d = find_reg(c->V, e->name, e->loc, c->report);
            if (d && !s->any_type && want != PTX_T_NONE) {
                ptx_type w = i == 1 ? PTX_T_PRED : want;
                if (!ptx_type_compat(w, d->type, false)) {
                    OERR(c, PG_E_OPERAND_TYPE, e->loc, "%s in operand %d of '%s' must be %s, not %s", e->name, opi + 1,
                         c->in->opcode, ptx_type_get(w)->name, ptx_type_get(d->type)->name);
                    return false;
                }
            }
        }
        return true;
    case PTX_OP_SYM:
        /* WARP_SZ is PTX's predefined constant (32), usable as an immediate */
        if (!strcmp(op->name, "WARP_SZ") && !st_find(&c->V->tab, op->name) && (s->kinds & ISA_OK_IMM) && arity <= 1) {
            ptx_operand k = *op;
            k.kind = PTX_OP_IMM_INT;
            k.ival = 32;
            return check_imm(c, &k, s, want, opi);
        }
        /* a register declared without '%' (.reg .pred _r<2>; setp.eq.u32 _r1, ...) is a register */
        if ((s->kinds & ISA_OK_REG) && arity <= 1) {
            const ptx_decl *rd;
            const sym *ns = st_find(&c->V->tab, op->name);
            if ((!ns || ns->kind == SYM_REG) && resolve_reg_cached(c->V, op->name, &rd) == REG_OK) {
                ptx_operand r = *op;
                r.kind = PTX_OP_REG;
                r.sreg = NULL;
                return check_reg(c, &r, s, want, opi);
            }
        }
        if (s->kinds & (ISA_OK_LABEL | ISA_OK_FUNC | ISA_OK_SYM)) return check_symbol_ref(c, op, s->kinds, want, opi);
        /* ptxas takes a function's name as an immediate in most places, by no rule
         * libptx can state (tests/diff_ptxas/known.txt); the address is mov's */
        if ((s->kinds & (ISA_OK_IMM | ISA_OK_REG)) && arity <= 1) {
            const sym *fs = st_find(&c->V->tab, op->name);
            if (fs && fs->kind == SYM_FUNC) {
                OERR(c, PG_E_OPERAND_KIND, op->loc, "operand %d of '%s' is the function name '%s'; take its address with mov first",
                     opi + 1, c->in->opcode, op->name);
                return false;
            }
        }
        break;
    case PTX_OP_LIST:
        break;
    case PTX_OP_INDEX:
        if (!(s->kinds & ISA_OK_INDEX)) break;
        return check_index(c, op, s, want, opi);
    }
    static const char *kn[] = {"register", "integer", "float literal", "name", "address", "vector", "sink '_'", "predicate pair", "list",
                               "subscripted name"};
    OERR(c, PG_E_OPERAND_KIND, op->loc, "operand %d of '%s' must be %s, not a %s ('%s')", opi + 1, c->in->opcode,
         kinds_words(s->kinds), kn[op->kind], op->text ? op->text : "");
    return false;
}

static bool is_space_mod(const char *m, const char *sp) {
    size_t n = 0;
    while (sp[n] && m[n] == sp[n]) n++;   /* strncmp, inline: these are short */
    if (sp[n]) return false;
    return m[n] == 0 || (m[n] == ':' && m[n + 1] == ':');
}

static ptx_space space_of_mod(const char *m) {
    if (m[1] != 'g' && m[1] != 's' && m[1] != 'l' && m[1] != 'p' && m[1] != 'c') return PTX_SS_NONE;
    if (is_space_mod(m, ".global")) return PTX_SS_GLOBAL;   /* not .global_dim (tensormap) */
    if (is_space_mod(m, ".shared")) return PTX_SS_SHARED;
    if (is_space_mod(m, ".local")) return PTX_SS_LOCAL;
    if (is_space_mod(m, ".param")) return PTX_SS_PARAM;
    if (!strcmp(m, ".const")) return PTX_SS_CONST;
    return PTX_SS_NONE;
}

/* The state space an address operand refers to.  Copies name two spaces
 * (cp.async.bulk.global.shared::cta [dst], [src]): the n-th space modifier
 * goes with the n-th operand; later operands (an mbarrier) are unknown.
 * The space modifiers are collected once per instruction. */
typedef struct { ptx_space sp[4]; int n; } insn_spaces;

static void spaces_of(const ptx_insn *in, insn_spaces *s) {
    s->n = 0;
    for (int i = 0; i < in->nmods && s->n < 4; i++) {
        ptx_space x = space_of_mod(in->mods[i]);
        if (x != PTX_SS_NONE) s->sp[s->n++] = x;
    }
}

static ptx_space space_of(const insn_spaces *s, int opi, bool *unknown) {
    *unknown = false;
    if (s->n == 0) return PTX_SS_NONE;
    if (s->n == 1) return s->sp[0];
    if (opi < s->n) return s->sp[opi];
    *unknown = true;
    return PTX_SS_NONE;
}

/* A name in a call's argument or result list: declared, and not a .param of the calling
 * function's own signature (ptxas: "Formal parameter 'pb' declared in .param space cannot be used
 * as argument to call"; the PTX ISA passes .param variables declared in the caller's { } block). */
static void call_arg_sym(vctx *V, const ptx_operand *a, const char *what) {
    const sym *s = find_sym(V, a->name);
    if (!s) VERR(V, PG_E_UNDEF_SYMBOL, a->loc, "call %s '%s' is not declared", what, a->name);
    else if (s->kind == SYM_PARAM)
        VERR(V, PG_E_CALL, a->loc, "call %s '%s' is a parameter of '%s'; pass a .param declared in the caller's { } block",
             what, a->name, V->func ? V->func->name : "this function");
}

/* Operands of `call`: [(rets),] target, [(args)] [, proto/table] */
static bool check_call(vctx *V, const ptx_insn *in, ptx_loc loc, bool report) {
    int i = 0;
    if (!report) V->noted = true;   /* calls always get the reporting pass */
    if (i < in->nops && in->ops[i].kind == PTX_OP_LIST) i++;
    if (i >= in->nops) {
        if (report) VERR(V, PG_E_OPERAND_COUNT, loc, "call needs a target function");
        return false;
    }
    const ptx_operand *t = &in->ops[i];
    const sym *fs = NULL;
    if (t->kind == PTX_OP_SYM) {
        fs = st_find(&V->tab, t->name);
        if (!fs || fs->kind != SYM_FUNC) {
            if (report) VERR(V, PG_E_UNDEF_SYMBOL, t->loc, "call target '%s' is not a declared function", t->name);
            return false;
        }
    } else if (t->kind == PTX_OP_REG) {
        if (report) find_reg(V, t->name, t->loc, true);
    } else {
        if (report) VERR(V, PG_E_OPERAND_KIND, t->loc, "call target must be a function name or a register");
        return false;
    }
    i++;
    if (i < in->nops && in->ops[i].kind == PTX_OP_LIST) {
        for (int k = 0; k < in->ops[i].nelems; k++) {
            const ptx_operand *a = &in->ops[i].elems[k];
            if (a->kind == PTX_OP_SYM && report) call_arg_sym(V, a, "argument");
            if (a->kind == PTX_OP_REG && report) find_reg(V, a->name, a->loc, true);
        }
        i++;
    }
    if (in->ops[0].kind == PTX_OP_LIST)
        for (int k = 0; k < in->ops[0].nelems; k++) {
            const ptx_operand *a = &in->ops[0].elems[k];
            if (a->kind == PTX_OP_SYM && report) call_arg_sym(V, a, "result");
            if (a->kind == PTX_OP_REG && report) find_reg(V, a->name, a->loc, true);
        }
    if (i < in->nops) {
        const ptx_operand *p = &in->ops[i];
        if (p->kind != PTX_OP_SYM) {
            if (report) VERR(V, PG_E_OPERAND_KIND, p->loc, "expected a prototype or target-table label");
            return false;
        }
        if (!st_find(&V->labels, p->name) && report)
            VERR(V, PG_E_UNDEF_LABEL, p->loc, "prototype/target list '%s' is not defined", p->name);
        i++;
    }
    if (i != in->nops) {
        if (report) VERR(V, PG_E_OPERAND_COUNT, loc, "too many operands for call");
        return false;
    }
    if (fs && fs->func && report) {
        int nargs = 0, nrets = in->ops[0].kind == PTX_OP_LIST ? in->ops[0].nelems : 0;
        for (int k = 0; k < in->nops; k++)
            if (in->ops[k].kind == PTX_OP_LIST && (k > 0)) nargs = in->ops[k].nelems;
        if (nargs != fs->func->nparams || nrets != fs->func->nrets)
            VERR(V, PG_E_CALL, loc, "'%s' takes %d parameter(s) and returns %d value(s); the call passes %d and expects %d",
                 fs->func->name, fs->func->nparams, fs->func->nrets, nargs, nrets);
    }
    return true;
}

static bool operands_match(vctx *V, ptx_insn *in, const isa_form *f, const isa_match *mt, const insn_spaces *sps,
                           ptx_loc loc, bool report) {
    if (f->call_syntax) return check_call(V, in, loc, report);
    if (in->nops < f->nops_min || in->nops > f->nops) {
        if (report) {
            if (f->nops_min == f->nops)
                VERR(V, PG_E_OPERAND_COUNT, loc, "'%s' takes %d operand(s) but %d given", in->opcode, f->nops, in->nops);
            else
                VERR(V, PG_E_OPERAND_COUNT, loc, "'%s' takes %d to %d operands but %d given", in->opcode, f->nops_min, f->nops, in->nops);
        }
        return false;
    }
    opctx c = {V, in, f, NULL, mt, report, PTX_SS_NONE, false};
    bool ok = true;
    for (int i = 0; i < in->nops; i++) {
        c.slot = &f->ops[i];
        c.space = space_of(sps, i, &c.space_unknown);
        ok = check_operand(&c, &in->ops[i], &f->ops[i], i) && ok;
        if (!ok && !report) return false;
    }
    return ok;
}

/* Does %name (no register in scope) name a variable or parameter? */
static bool pct_var(vctx *V, const char *name) {
    if (!V->pct_vars || !name || name[0] != '%') return false;
    const ptx_decl *d;
    if (resolve_reg_cached(V, name, &d) != REG_UNDECL) return false;
    const sym *s = find_sym(V, name);
    return s && (s->kind == SYM_VAR || s->kind == SYM_PARAM);
}

/* PTX register names need not start with '%' (`.reg .pred p;`); the parser
 * cannot tell such a name from a variable, so an operand that names a
 * register in scope becomes a register operand here. */
static void resolve_plain_regs(vctx *V, ptx_operand *op) {
    if (op->kind == PTX_OP_SYM && op->name && !op->ival) {
        const sym *s = find_sym(V, op->name);
        if (s && s->kind == SYM_REG) op->kind = PTX_OP_REG;
        return;
    }
    /* and a %name that is no register in scope may be a variable's (.shared .b32 %sv1; [%sv1]) */
    if (op->kind == PTX_OP_REG && !op->sreg && pct_var(V, op->name)) {
        op->kind = PTX_OP_SYM;
        return;
    }
    if (op->kind == PTX_OP_ADDR && !op->nelems && op->addr_base_is_reg && pct_var(V, op->name)) {
        op->addr_base_is_reg = false;
        return;
    }
    if (op->kind == PTX_OP_VEC || op->kind == PTX_OP_PAIR || op->kind == PTX_OP_LIST ||
        (op->kind == PTX_OP_ADDR && op->nelems))
        for (int i = 0; i < op->nelems; i++) resolve_plain_regs(V, &op->elems[i]);
    if (op->kind == PTX_OP_ADDR && op->addr_has_base && !op->addr_base_is_reg && op->name) {
        const sym *s = find_sym(V, op->name);
        if (s && s->kind == SYM_REG) op->addr_base_is_reg = true;
    }
}

static uint32_t fit_hash(const isa_form *const *forms, const uint16_t *ids, int nmods) {
    uint64_t h = (uint64_t)(uintptr_t)forms * 0x9E3779B97F4A7C15ull ^ (uint64_t)nmods;
    for (int k = 0; k < nmods; k++) h = (h ^ ids[k]) * 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return (uint32_t)h;
}

static fit_key *fit_slot(fit_key *keys, int cap, const isa_form *const *forms, const uint16_t *ids, int nmods) {
    uint32_t mask = (uint32_t)cap - 1;
    for (uint32_t h = fit_hash(forms, ids, nmods) & mask;; h = (h + 1) & mask) {
        fit_key *k = &keys[h];
        if (!k->forms) return k;
        if (k->forms == forms && k->nmods == nmods && !memcmp(k->ids, ids, sizeof(uint16_t) * (size_t)nmods)) return k;
    }
}

/* The forms of `forms[0..nf)` whose modifier slots accept `ids`, in table
 * order (*n of them, in V->fc->fits from *first).  false: out of memory or too
 * many modifiers to cache; the caller matches directly. */
static bool mod_fits(vctx *V, const isa_form *const *forms, int nf, const uint16_t *ids, int nmods, int *first, int *n) {
    fit_cache *C = V->fc;
    if (!C || nmods > ISA_MAX_MODSLOTS) return false;
    if (C->fused >= FIT_CACHE_MAX) {   /* start over: the entries of earlier modules may not recur */
        memset(C->fkeys, 0, sizeof *C->fkeys * (size_t)C->fcap);
        C->fused = 0;
        C->fits.n = 0;
        C->epoch++;
    }
    if ((C->fused + 1) * 2 > C->fcap) {
        int cap = C->fcap ? C->fcap * 2 : 256;
        fit_key *keys = calloc((size_t)cap, sizeof *keys);
        if (!keys) return false;
        for (int i = 0; i < C->fcap; i++)
            if (C->fkeys[i].forms) *fit_slot(keys, cap, C->fkeys[i].forms, C->fkeys[i].ids, C->fkeys[i].nmods) = C->fkeys[i];
        free(C->fkeys);
        C->fkeys = keys;
        C->fcap = cap;
    }
    fit_key *k = fit_slot(C->fkeys, C->fcap, forms, ids, nmods);
    if (!k->forms) {
        k->forms = forms;
        k->nmods = nmods;
        memcpy(k->ids, ids, sizeof(uint16_t) * (size_t)nmods);
        k->first = C->fits.n;
        for (int i = 0; i < nf; i++) {
            mod_fit mf;
            if (!isa_match_form_ids(forms[i], ids, nmods, &mf.mt)) continue;
            mf.form = i;
            pg_vec_push(C->fits, mf);
        }
        k->count = C->fits.n - k->first;
        C->fused++;
    }
    *first = k->first;
    *n = k->count;
    return true;
}

/* What check_insn derives from an instruction's head (opcode and modifiers) alone: its
 * forms, the spaces its modifiers name, the forms its modifiers fit, and whether any
 * modifier needs a vector-size, target or version check.  The parser gives the
 * instructions of one head one shared modifier array, so the cache is keyed by that
 * array's address (with the opcode, the ids and the count: hand-built instructions may
 * share less); a module's few hundred heads are resolved once each instead of once per
 * instruction.  Direct-mapped; the thread's (fit_cache.heads), an entry stamped with the
 * validation that filled it. */
typedef struct head_ent {
    const char *const *mods; const uint16_t *ids; const char *opcode; int nmods;   /* the key; opcode NULL = empty */
    uint32_t epoch;       /* the validation that filled it (vctx.head_epoch) */
    const isa_form *const *forms;
    int nf;
    insn_spaces sps;
    bool any_vec;         /* a .v2/.v4/.v8 modifier */
    bool any_req;         /* a modifier with an isa_modifier_requirement */
    bool b128_sys;        /* both .b128 and .sys */
    bool fit_ok;          /* mod_fits answered (fit0, nfit), valid while fit_epoch matches */
    uint32_t fit_epoch;
    int fit0, nfit;
    /* the module's copy of the bindings of fit kept_j (keep_match), so the instructions of
     * this head that match as the last one did share it without comparing them; NULL = none */
    int kept_j;
    const isa_match *kept_m;
} head_ent;
enum { HCACHE = 256 };

static head_ent *head_of(vctx *V, const ptx_insn *in, head_ent *tmp) {
    head_ent *e = tmp;
    tmp->opcode = NULL;
    if (!V->heads) V->heads = calloc(HCACHE, sizeof *V->heads);   /* NULL: no cache, *tmp filled */
    if (V->heads) {
        uintptr_t p = (uintptr_t)in->mods ^ (uintptr_t)in->opcode;
        e = &V->heads[((p >> 3) ^ (p >> 11)) & (HCACHE - 1)];
    }
    if (!e->opcode || e->opcode != in->opcode || e->mods != (const char *const *)in->mods || e->ids != in->mod_ids ||
        e->nmods != in->nmods || e->epoch != V->head_epoch) {
        e->epoch = V->head_epoch;
        e->opcode = in->opcode;
        e->mods = (const char *const *)in->mods;
        e->ids = in->mod_ids;
        e->nmods = in->nmods;
        e->forms = isa_forms_for(in->opcode, strlen(in->opcode), &e->nf);
        spaces_of(in, &e->sps);
        e->any_vec = e->any_req = e->fit_ok = false;
        e->kept_m = NULL;
        bool b128 = false, sys = false;
        for (int k = 0; k < in->nmods; k++) {
            const char *md = in->mods[k];
            e->any_vec |= md[1] == 'v' && md[2] >= '2' && md[2] <= '8' && !md[3];
            e->any_req |= isa_modifier_requirement(md) != NULL;
            b128 |= !strcmp(md, ".b128");
            sys |= !strcmp(md, ".sys");
        }
        e->b128_sys = b128 && sys;
    }
    if (e->nf && (!e->fit_ok || !V->fc || e->fit_epoch != V->fc->epoch)) {
        e->fit_ok = mod_fits(V, e->forms, e->nf, in->mod_ids, in->nmods, &e->fit0, &e->nfit);
        e->kept_m = NULL;   /* the fits may be others now */
        e->fit_epoch = V->fc ? V->fc->epoch : 0;
    }
    return e;
}

/* The module's copy of bindings mt of form f, for ptx_insn.match (the fit cache's entries
 * move and are dropped; a copy per instruction would add 76 bytes to each). */
static const isa_match *keep_match(vctx *V, const isa_form *f, const isa_match *mt) {
    uintptr_t p = (uintptr_t)f;
    size_t h = ((p >> 6) ^ (p >> 14) ^ mt->bind_id[0] ^ (size_t)mt->bind_id[19] << 3) & (sizeof V->kept / sizeof V->kept[0] - 1);
    if (V->kept[h].f == f && !memcmp(V->kept[h].m, mt, sizeof *mt)) return V->kept[h].m;
    isa_match *c = pg_arena_alloc_raw(&V->m->arena, sizeof *c);
    *c = *mt;
    V->kept[h].f = f;
    V->kept[h].m = c;
    return c;
}

static void check_insn(vctx *V, ptx_stmt *st) {
    ptx_insn *in = &st->u.insn;
    in->form = NULL;
    in->match = NULL;
    for (int i = 0; i < in->nops; i++) {
        const ptx_operand *o = &in->ops[i];   /* most operands are %-registers, numbers and [%reg+N]: nothing to do */
        if (((o->kind == PTX_OP_REG || (o->kind == PTX_OP_ADDR && !o->nelems && o->addr_base_is_reg)) && !V->pct_vars) ||
            o->kind == PTX_OP_IMM_INT || o->kind == PTX_OP_IMM_FLT || (o->kind == PTX_OP_ADDR && !o->nelems && !o->addr_has_base))
            continue;
        resolve_plain_regs(V, &in->ops[i]);
    }
    if (in->guard) {
        const ptx_decl *d = find_reg(V, in->guard, st->loc, true);
        if (d && d->type != PTX_T_PRED)
            VERR(V, PG_E_BAD_GUARD, st->loc, "guard %s is declared %s, not .pred", in->guard, ptx_type_get(d->type)->name);
    }
    head_ent htmp;
    head_ent *hd = head_of(V, in, &htmp);
    int nf = hd->nf;
    const isa_form *const *forms = hd->forms;
    if (!nf) {
        VERR(V, PG_E_UNKNOWN_OPCODE, st->loc, "unknown instruction '%s'", in->opcode);
        return;
    }
    const insn_spaces sps = hd->sps;
    const isa_form *first_mod_match = NULL, *first_count_match = NULL;   /* modifiers fit; and the operand count too */
    isa_match first_mt, count_mt;   /* the bindings of those two: copies when matched here ... */
    const isa_match *first_mtp = NULL, *count_mtp = NULL;   /* ... or pointers into the fit cache */
    bool noted = false;   /* the matched form's probe saw something to report */
    int fit0 = hd->fit0, nfit = hd->nfit;
    if (hd->fit_ok) {
        for (int j = 0; j < nfit; j++) {
            const mod_fit *mf = &V->fc->fits.v[fit0 + j];
            const isa_form *f = forms[mf->form];
            if (!first_mod_match) { first_mod_match = f; first_mtp = &mf->mt; }
            if (!first_count_match && in->nops >= f->nops_min && in->nops <= f->nops) { first_count_match = f; count_mtp = &mf->mt; }
            V->noted = false;
            if (operands_match(V, in, f, &mf->mt, &sps, st->loc, false)) {
                in->form = f;
                if (!hd->kept_m || hd->kept_j != j) {   /* the fit's bindings never change while it is cached */
                    hd->kept_j = j;
                    hd->kept_m = keep_match(V, f, &mf->mt);
                }
                in->match = hd->kept_m;
                noted = V->noted;
                break;
            }
        }
    } else {
        for (int i = 0; i < nf; i++) {
            isa_match mt;
            if (!isa_match_form_ids(forms[i], in->mod_ids, in->nmods, &mt)) continue;
            if (!first_mod_match) { first_mod_match = forms[i]; first_mt = mt; first_mtp = &first_mt; }
            if (!first_count_match && in->nops >= forms[i]->nops_min && in->nops <= forms[i]->nops) {
                first_count_match = forms[i];
                count_mt = mt;
                count_mtp = &count_mt;
            }
            V->noted = false;
            if (operands_match(V, in, forms[i], &mt, &sps, st->loc, false)) {
                in->form = forms[i];
                in->match = keep_match(V, forms[i], &mt);
                noted = V->noted;
                break;
            }
        }
    }
    if (!in->form) {
        if (first_mod_match) {
            /* report the operand problems of the first form whose modifiers fit, and of those the
             * first that takes as many operands as given (barrier.red's 4-operand form with a bad
             * barrier number is reported as that, not as "takes 3 operand(s)") */
            if (first_count_match) { first_mod_match = first_count_match; first_mtp = count_mtp; }
            int before = V->diag ? V->diag->nerrors : 0;
            bool was_bad = V->bad;
            operands_match(V, in, first_mod_match, first_mtp, &sps, st->loc, true);
            if (V->diag && V->diag->nerrors == before && !(V->bad && !was_bad)) {
                VERR(V, PG_E_OPERAND_KIND, st->loc, "operands do not fit any form of '%s'", in->opcode);
            }
            in->form = first_mod_match;
            in->match = keep_match(V, first_mod_match, first_mtp);
            V->bad = true;
            return;
        }
        for (int k = 0; k < in->nmods; k++)
            if (!isa_modifier_known(in->opcode, in->mods[k])) {
                VERR(V, PG_E_BAD_MODIFIER, st->loc, "'%s' is not a modifier of '%s'", in->mods[k], in->opcode);
                return;
            }
        pg_buf b = {0};
        for (int k = 0; k < in->nmods; k++) pg_buf_puts(&b, in->mods[k]);
        VERR(V, PG_E_MODIFIER_COMBO, st->loc, "illegal modifier combination '%s%s' (missing, repeated or misordered modifier)",
             in->opcode, b.data ? b.data : "");
        pg_buf_free(&b);
        return;
    }
    /* Report undeclared registers etc. that probing ignored.  A probe that
     * noted nothing proves this pass would be silent. */
    if (noted) operands_match(V, in, in->form, in->match, &sps, st->loc, true);
    const isa_form *f = in->form;
    ptx_module *m = V->m;
    /* a .vN vector moves at most 128 bits (256 where the row says "w") */
    for (int k = 0; hd->any_vec && k < in->nmods; k++) {
        const char *md = in->mods[k];
        if (md[1] != 'v' || md[2] < '2' || md[2] > '8' || md[3]) continue;
        ptx_type t = PTX_T_NONE;
        for (int j = 0; j < in->nmods && t == PTX_T_NONE; j++) t = ptx_type_lookup(in->mods[j], strlen(in->mods[j]));
        int bits = t == PTX_T_NONE ? 0 : (md[2] - '0') * ptx_type_get(t)->bits, limit = f->wide_vectors ? 256 : 128;
        if (bits > limit) {
            VERR(V, PG_E_VECTOR_ARITY, st->loc, "'%s%s' moves %d bits; a vector holds at most %d", md, ptx_type_get(t)->name, bits, limit);
            return;
        }
    }
    /* createpolicy.range: the primary size may not exceed the total size, both read as 32-bit unsigned
     * (ptxas: "value '256' must be less than or equal to the value '255' of argument 4") */
    if (f->nops == 4 && in->nops == 4 && in->ops[2].kind == PTX_OP_IMM_INT && in->ops[3].kind == PTX_OP_IMM_INT &&
        !strcmp(in->opcode, "createpolicy") &&
        (uint32_t)in->ops[2].ival > (uint32_t)in->ops[3].ival) {
        VERR(V, PG_E_IMM_RANGE, in->ops[2].loc, "createpolicy's primary size %s exceeds its total size %s", in->ops[2].text,
             in->ops[3].text);
        return;
    }
    /* cp.async's source size is at most its copy size (ptxas: "Argument 3 of instruction 'cp.async': value '7'
     * out of range, expected to be in range [0..4]") */
    if (f->cls == ISA_C_ASYNC && in->nops >= 4 && !strcmp(in->opcode, "cp") && in->nmods && !strcmp(in->mods[0], ".async") &&
        in->ops[2].kind == PTX_OP_IMM_INT && in->ops[3].kind == PTX_OP_IMM_INT && f->ops[3].type == PTX_T_U32 &&
        (uint64_t)in->ops[3].ival > (uint64_t)in->ops[2].ival) {
        VERR(V, PG_E_IMM_RANGE, in->ops[3].loc, "cp.async's source size %s exceeds its copy size %s", in->ops[3].text,
             in->ops[2].text);
        return;
    }
    /* ptxas: "Feature '.b128 with .sys' requires PTX ISA .version 8.4" (ld, st, atom; .b128 itself is 8.3) */
    if (m->ptx_version && m->ptx_version < 84 && in->nmods >= 2) {
        if (hd->b128_sys) {
            VERR(V, PG_E_NEEDS_PTX, st->loc, "'%s' with .b128 and .sys needs PTX ISA 8.4 but the module declares .version %s",
                 in->opcode, m->version_text);
            return;
        }
    }
    if (m->ptx_version && f->ptx_min > m->ptx_version)
        VERR(V, PG_E_NEEDS_PTX, st->loc, "'%s' as written needs PTX ISA %d.%d but the module declares .version %s",
             in->opcode, f->ptx_min / 10, f->ptx_min % 10, m->version_text);
    for (int k = 0; hd->any_req && k < in->nmods; k++) {
        const isa_require *rq = isa_modifier_requirement(in->mods[k]);
        if (!rq) continue;
        if (m->sm && rq->sm_min > m->sm) {
            VERR(V, PG_E_NEEDS_SM, st->loc, "modifier '%s' needs sm_%d or newer but the target is sm_%d", in->mods[k], rq->sm_min, m->sm);
            return;
        }
        if (m->ptx_version && rq->ptx_min > m->ptx_version && !f->own_version) {
            VERR(V, PG_E_NEEDS_PTX, st->loc, "modifier '%s' needs PTX ISA %d.%d but the module declares .version %s",
                 in->mods[k], rq->ptx_min / 10, rq->ptx_min % 10, m->version_text);
            return;
        }
    }
    if (m->sm && f->sm_min > m->sm)
        VERR(V, PG_E_NEEDS_SM, st->loc, "'%s' as written needs sm_%d or newer but the target is sm_%d", in->opcode, f->sm_min, m->sm);
    else if (m->sm && f->arch_specific && !m->arch_specific)
        VERR(V, PG_E_NEEDS_SM, st->loc, "'%s' needs an arch-specific target such as sm_%da", in->opcode, m->sm);
    else if (f->removed_ptx && m->ptx_version >= f->removed_ptx && m->sm >= f->removed_sm)
        VERR(V, PG_E_NEEDS_PTX, st->loc, "'%s' as written is not supported on sm_%d and newer from PTX ISA %d.%d (module: .version %s, .target sm_%d)",
             in->opcode, f->removed_sm, f->removed_ptx / 10, f->removed_ptx % 10, m->version_text, m->sm);
}

/* ---- declarations ------------------------------------------------------------ */
/* Whether the value at p (up to a ',', '{' or '}') is a comparison, 1.0 < 2.0 (canonical
 * text: a two-character operator is written without a space, << >> <= >= == !=). */
static bool value_compares(const char *init, const char *p) {
    for (; *p && !strchr("{},", *p); p++) {
        if ((*p == '<' || *p == '>') && p[1] != *p && (p == init || p[-1] != *p)) return true;   /* not << >> */
        if ((*p == '=' || *p == '!') && p[1] == '=') return true;
    }
    return false;
}

/* The first literal of an initializer ("{1, 2.0}", "7") whose kind does not fit
 * the type (ptxas: "Initial value type mismatch"): .f32/.f64 take float literals
 * only (1.0, 1e3, 0f3F800000), integer types no float literal (.bN take both).  Names
 * (addresses) are left to the other checks.  NULL when all fit.  A value that compares
 * (1.0 < 2.0, (1.0<2.0)+1) is an integer, whatever its literals (the parser has refused an
 * integer beside a float, so no other value mixes them): *cmp set, buf the value. */
static const char *init_mismatch(const char *init, ptx_type t, char *buf, size_t n, bool *cmp) {
    const ptx_type_info *ti = ptx_type_get(t);
    bool want_float = ti->cls == PTX_TC_FLOAT;
    *cmp = false;
    for (const char *p = init; *p;) {
        while (*p && strchr("{}, \t\n", *p)) p++;
        if (*p && value_compares(init, p)) {   /* the whole value is an integer */
            const char *e = p;
            while (*e && !strchr("{},", *e)) e++;
            if (want_float) {
                snprintf(buf, n, "%.*s", (int)(e - p) < 40 ? (int)(e - p) : 40, p);
                *cmp = true;
                return buf;
            }
            p = e;
            continue;
        }
        while (*p && strchr("{}, \t\n+-", *p)) p++;
        const char *q = p;
        while (*q && !strchr("{}, \t\n", *q)) q++;
        if (q == p) break;
        if ((*p >= '0' && *p <= '9') || (*p == '.' && p[1] >= '0' && p[1] <= '9')) {   /* .5 is a float too (seed 9) */
            bool hexf = p[0] == '0' && strchr("fFdD", p[1]) && q - p > 2;
            bool is_float = hexf;
            for (const char *c = p; c < q && !is_float; c++)
                is_float = *c == '.' || ((*c == 'e' || *c == 'E') && !(p[0] == '0' && (p[1] == 'x' || p[1] == 'X')));
            if (is_float != want_float) {
                snprintf(buf, n, "%.*s", (int)(q - p) < 40 ? (int)(q - p) : 40, p);
                return buf;
            }
        }
        p = q;
    }
    return NULL;
}

/* Variables (not registers, not parameters of a function's signature), as ptxas
 * takes them (issue 30, found by tests/diff_ptxas): where they may live, which
 * ones may be initialized, and which may be unsized. */
const char *ptx_decl_shape_problem(const ptx_decl *d, bool in_body, char *buf, size_t n) {
    const ptx_type_info *ti = ptx_type_get(d->type);
    if (d->align > 0 && (d->align & (d->align - 1)))   /* "Alignment must be a power of two" */
        snprintf(buf, n, ".align %d: an alignment is a power of two", d->align);
    else if (d->vec && d->type == PTX_T_PRED)   /* "Predicate type can only be used to define scalar register variables" */
        snprintf(buf, n, ".v%d .pred: .pred makes scalar registers only, not vectors", d->vec);
    else if (d->vec && (!ti->reg_ok || ti->cls == PTX_TC_OPAQUE))   /* "Vector type only allowed over basic types" */
        snprintf(buf, n, ".v%d %s: a vector holds a basic type (.b, .u, .s, .f, .f16x2), not %s", d->vec, ti->name, ti->name);
    else if (d->vec * ti->bits > 128)   /* "Vector type too large, exceeds 128 bit limit" */
        snprintf(buf, n, ".v%d %s is %d bits; a declared vector holds at most 128", d->vec, ti->name, d->vec * ti->bits);
    else if (in_body && ti->cls == PTX_TC_OPAQUE)   /* "Texture/surface variable must be at module or entry parameter scope" */
        snprintf(buf, n, "a %s is declared at module scope or as a kernel's parameter, not in a body", ti->name);
    else
        return NULL;
    return buf;
}

static bool isid_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' || c == '%';
}

/* The names an initializer takes the address of ("{1, gv, generic(gv), gv+8}"): each a
 * function or a .global/.const variable declared before it, generic() only of a variable
 * (ptxas: "Invalid initial value symbol 'x'" for a later, undeclared or register name,
 * "Variable used as initial value not in .global or .const state space", "Invalid initial
 * value expression" for generic(fn)).  Reports the first that is not. */
static void check_init_names(vctx *V, const ptx_decl *d) {
    bool in_generic = false;   /* the name is the argument of generic( ) */
    for (const char *p = d->init; *p;) {
        unsigned char c = (unsigned char)*p;
        if (c >= '0' && c <= '9') {   /* a number, with its letters (0x1F, 0f3F800000, 1e3) */
            while (isid_char(*p) || *p == '.') p++;
            continue;
        }
        if (c == '.' || (c == '%' && !isid_char(p[1]))) {   /* a cast's type, (.u64)7; the remainder operator, 7 % 2 */
            for (p++; isid_char(*p); p++) {}
            continue;
        }
        if (!(isid_char(*p) && !(c >= '0' && c <= '9'))) {
            if (*p == ')') in_generic = false;
            p++;
            continue;
        }
        const char *s = p;
        while (isid_char(*p)) p++;
        const char *q = p;
        while (*q == ' ') q++;
        if (*q == '(' && p - s == 7 && !memcmp(s, "generic", 7)) { in_generic = true; continue; }
        char name[256];
        if ((size_t)(p - s) >= sizeof name) continue;
        memcpy(name, s, (size_t)(p - s));
        name[p - s] = 0;
        const sym *y = st_find_tmp(&V->tab, name);
        if (!y || (y->kind != SYM_VAR && y->kind != SYM_PARAM && y->kind != SYM_FUNC)) {
            VERR(V, PG_E_UNDEF_SYMBOL, d->loc, "'%s': its initializer names %s, which is no variable or function declared before it",
                 d->name, name);
            return;
        }
        if (y->kind != SYM_FUNC && y->decl->space != PTX_SS_GLOBAL && y->decl->space != PTX_SS_CONST) {
            VERR(V, PG_E_BAD_DECL, d->loc, "'%s': its initializer takes the address of %s, a %s variable; only .global and .const ones",
                 d->name, name, ptx_space_name(y->decl->space));
            return;
        }
        if (y->kind == SYM_FUNC && *q == '+') {   /* "Initial value type mismatch" for fnr+8 */
            VERR(V, PG_E_BAD_DECL, d->loc, "'%s': %s+N in its initializer: a function's address takes no offset", d->name, name);
            return;
        }
        if (y->kind == SYM_FUNC && in_generic) {
            VERR(V, PG_E_BAD_DECL, d->loc, "'%s': generic(%s) in its initializer: generic() takes a variable, not a function", d->name, name);
            return;
        }
    }
}

/* A '%' standing alone in canonical text (7 % 2: the remainder operator, not a register). */
static bool lone_pct(const char *q) { return q[0] == '%' && q[-1] == ' ' && (q[1] == ' ' || q[1] == 0); }

/* Does the initializer text at *pp nest as d's shape does: a {list} a level for each array
 * dimension and then one for a vector's elements, a plain value at the last level (ptxas:
 * "Initial value type mismatch" for `.u32 x = {1}`, `a[2] = {1, {2}}`, `a[2][2] = {{1, 2}, 3}`)?
 * Moves *pp past the value. */
static bool init_shape_ok(const char **pp, int level, int levels) {
    const char *p = *pp;
    while (*p == ' ') p++;
    if (level == levels) {   /* a value: up to the next ',' or '}' outside parentheses */
        if (*p == '{' || *p == ',' || *p == '}' || !*p) return false;   /* none: {1, , 3}, {1, 2,} ("Parsing error near ','") */
        int paren = 0;
        for (; *p && (paren || (*p != ',' && *p != '}')); p++) {
            paren += (*p == '(') - (*p == ')');
            /* two values with no operator or comma between them (ptxas: "Parsing error near '4'" for {3, 4 4}) */
            if (*p == ' ' && p > *pp && isid_char(p[-1]) && isid_char(p[1]) && !lone_pct(p + 1) && !(p[-1] == '%' && lone_pct(p - 1)))
                return false;
        }
        *pp = p;
        return true;
    }
    if (*p != '{') return false;
    p++;
    while (*p == ' ') p++;
    if (*p != '}')
        for (;;) {
            if (!init_shape_ok(&p, level + 1, levels)) return false;
            while (*p == ' ') p++;
            if (*p == ',') { p++; continue; }
            break;
        }
    if (*p != '}') return false;
    *pp = p + 1;
    return true;
}

static void check_var_decl(vctx *V, const ptx_decl *d, int depth) {
    char why[160];
    if (ptx_decl_shape_problem(d, depth > 0, why, sizeof why)) VERR(V, PG_E_BAD_DECL, d->loc, "'%s': %s", d->name, why);
    if (depth == 0 && d->space == PTX_SS_PARAM)   /* "Parameter variables may not be declared at module scope" */
        VERR(V, PG_E_BAD_DECL, d->loc, "'%s': .param variables are declared in a function, not at module scope", d->name);
    if (depth == 0 && d->space == PTX_SS_LOCAL)   /* "Module-scoped variables in .local state space are not allowed with ABI" */
        VERR(V, PG_E_BAD_DECL, d->loc, "'%s': a .local variable at module scope (ptxas compiles with the ABI, which has none)",
             d->name);
    if (d->space == PTX_SS_PARAM && d->align > 128)   /* "Parameter 'q' has illegal alignment" (an entry's signature may say more) */
        VERR(V, PG_E_BAD_DECL, d->loc, "'%s': .align %d; a .param variable is aligned to at most 128 bytes", d->name, d->align);
    if (d->space == PTX_SS_PARAM && d->vec && d->type != PTX_T_PRED)   /* "cannot be allocated in .param state space" */
        VERR(V, PG_E_BAD_DECL, d->loc, "'%s': a .param variable is not a vector (.v%d); use an array", d->name, d->vec);
    else if (d->space == PTX_SS_PARAM && d->type == PTX_T_F16X2)   /* the same message: a packed pair is a vector too */
        VERR(V, PG_E_BAD_DECL, d->loc, "'%s': a .param variable is not a packed .f16x2; use .b32", d->name);
    if (d->space == PTX_SS_REG && d->ndims && d->type != PTX_T_PRED)   /* "Variable 'ra' cannot be allocated into a register" */
        VERR(V, PG_E_BAD_DECL, d->loc, "'%s': a register is not an array (a .reg declares scalars, vectors or %%r<N>)", d->name);
    if (d->type == PTX_T_PRED && (d->space != PTX_SS_REG || d->ndims))   /* a vector: ptx_decl_shape_problem */
        VERR(V, PG_E_BAD_DECL, d->loc, "'%s': .pred makes scalar registers only (.reg .pred), not %s", d->name,
             d->space != PTX_SS_REG ? "variables in other state spaces" : "arrays");
    const char *ip = d->init;
    if (d->init && d->space != PTX_SS_GLOBAL && d->space != PTX_SS_CONST)   /* "No initial value is allowed ... in this state space" */
        VERR(V, PG_E_BAD_DECL, d->loc, "'%s': only .global and .const variables take an initializer", d->name);
    else if (d->init && (d->ndims || d->vec) && d->init[0] != '{')   /* "Initial value type mismatch" */
        VERR(V, PG_E_BAD_DECL, d->loc, "'%s' is an array or vector: its initializer is a {...} list", d->name);
    else if (d->init && !(init_shape_ok(&ip, 0, d->ndims + (d->vec ? 1 : 0)) && !*ip))
        VERR(V, PG_E_BAD_DECL, d->loc, "'%s': its initializer is not values nested as it is declared (a {..} level for each array dimension, "
             "then one for a vector, then values, comma-separated)", d->name);
    if (d->init && (d->space == PTX_SS_GLOBAL || d->space == PTX_SS_CONST)) {
        check_init_names(V, d);
        const ptx_type_info *ti = ptx_type_get(d->type);
        char lit[48];
        const char *bad;
        bool cmp;
        if ((ti->cls == PTX_TC_FLOAT && ti->bits < 32) || ti->cls == PTX_TC_PACKED)   /* "No initial value is allowed for .f16 type" */
            VERR(V, PG_E_BAD_DECL, d->loc, "'%s': a %s variable takes no initializer", d->name, ti->name);
        else if ((ti->cls == PTX_TC_FLOAT || ti->cls == PTX_TC_UINT || ti->cls == PTX_TC_SINT) &&
                 (bad = init_mismatch(d->init, d->type, lit, sizeof lit, &cmp)))   /* "Initial value type mismatch" */
            VERR(V, PG_E_BAD_DECL, d->loc, "'%s' is %s: its initializer's %s is %s", d->name, ti->name, lit,
                 cmp ? "a comparison, an integer, not a float"
                     : ti->cls == PTX_TC_FLOAT ? "an integer, not a float literal" : "a float, not an integer literal");
    }
    if (d->init && d->init[0] == '{' && d->ndims == 1 && d->dims[0] > 0) {   /* "Greater number of elements in array initializer" */
        long n = 0;
        int depth_ = 0;
        bool any = false;
        for (const char *q = d->init; *q; q++) {
            if (*q == '{') { if (++depth_ == 2) any = true; }
            else if (*q == '}') depth_--;
            else if (*q == ',' && depth_ == 1) n++;
            else if (*q != ' ' && depth_ == 1) any = true;
        }
        if (any) n++;
        if (n > d->dims[0])
            VERR(V, PG_E_BAD_DECL, d->loc, "'%s' has %lld elements but its initializer lists %ld", d->name, (long long)d->dims[0], n);
    }
    if (!d->init && !d->is_extern)   /* "Non-external variable 'x' has incomplete type" */
        for (int k = 0; k < d->ndims; k++)
            if (d->dims[k] <= 0) {
                VERR(V, PG_E_BAD_DECL, d->loc, "'%s' has no size: an unsized or empty array is .extern or initialized", d->name);
                break;
            }
}

static void declare(vctx *V, const ptx_decl *d, sym_kind kind, int depth) {
    /* a name range x<N> is keyed x< (see find_base): it meets another range of its base, not the name x */
    const char *key = d->name;
    if (d->count > 0) {
        size_t nl = strlen(d->name);
        char *k = pg_arena_alloc(&V->m->arena, nl + 2);
        memcpy(k, d->name, nl);
        k[nl] = '<';
        k[nl + 1] = 0;
        key = k;
    }
    if (kind != SYM_REG && d->name[0] == '%') V->pct_vars = true;
    const sym *prev = st_find(&V->tab, key);
    if (prev && prev->depth == depth && prev->kind != SYM_FUNC) {
        VERR(V, PG_E_DUP_DECL, d->loc, "'%s' is already declared in this scope (line %d)", d->name,
             prev->decl ? prev->decl->loc.line : 0);
        return;
    }
    /* a name and a %r<N> of one scope must not meet: .reg .u32 %r<8>; .reg .b32 %r3; (either order; ptxas:
     * "Duplicate definition of variable '%r3'"); a name with a leading zero (%r03) is another name */
    if (kind == SYM_REG || kind == SYM_VAR) {   /* a variable too: .reg .u64 %rd<8>; .global .u64 %rd6; */
        size_t bl;
        long idx;
        if (d->count == 0 && split_reg(d->name, &bl, &idx) && (d->name[bl] != '0' || !d->name[bl + 1])) {
            const sym *b = find_base(V, d->name, bl);
            if (b && b->kind != SYM_FUNC && b->depth == depth && b->decl->count > idx) {   /* .shared .b32 sv<4>; .reg .b32 sv1; */
                VERR(V, PG_E_DUP_DECL, d->loc, "'%s' is already declared in this scope by %s<%d> (line %d)", d->name, b->decl->name,
                     b->decl->count, b->decl->loc.line);
                return;
            }
        }
        size_t nl = strlen(d->name);
        for (int i = V->tab.syms.n - 1; d->count > 0 && i >= 0 && V->tab.syms.v[i].depth >= depth; i--) {
            const sym *o = &V->tab.syms.v[i];
            if (o->depth != depth || (o->kind != SYM_REG && o->kind != SYM_VAR) || o->decl->count != 0 ||
                strncmp(o->name, d->name, nl) != 0)
                continue;
            if (split_reg(o->name, &bl, &idx) && bl == nl && (o->name[bl] != '0' || !o->name[bl + 1]) && idx < d->count) {
                VERR(V, PG_E_DUP_DECL, d->loc, "%s<%d> declares %s, already declared in this scope (line %d)", d->name, d->count, o->name,
                     o->decl->loc.line);
                return;
            }
        }
    }
    /* a type has the target and version requirements of the modifier of its name (.b128: PTX 8.3) */
    const isa_require *rq = d->type != PTX_T_NONE ? isa_modifier_requirement(ptx_type_get(d->type)->name) : NULL;
    if (rq && V->m->ptx_version && rq->ptx_min > V->m->ptx_version)
        VERR(V, PG_E_NEEDS_PTX, d->loc, "type %s needs PTX ISA %d.%d but the module declares .version %s", ptx_type_get(d->type)->name,
             rq->ptx_min / 10, rq->ptx_min % 10, V->m->version_text);
    else if (rq && V->m->sm && rq->sm_min > V->m->sm)
        VERR(V, PG_E_NEEDS_SM, d->loc, "type %s needs sm_%d or newer but the target is sm_%d", ptx_type_get(d->type)->name, rq->sm_min, V->m->sm);
    if (kind == SYM_REG) {
        const ptx_type_info *ti = ptx_type_get(d->type);
        if (!ti->reg_ok) VERR(V, PG_E_BAD_DECL, d->loc, "type %s cannot be used for a register", ti->name);
        if (d->name[0] != '%' && d->name[0] != '_' && d->name[0] != '$' && !(d->name[0] >= 'a' && d->name[0] <= 'z') &&
            !(d->name[0] >= 'A' && d->name[0] <= 'Z'))
            VERR(V, PG_E_BAD_DECL, d->loc, "bad register name %s", d->name);
    }
    if (kind != SYM_REG && d->type != PTX_T_NONE) {   /* ptxas: "Parsing error near '.bf16'" */
        const ptx_type_info *ti = ptx_type_get(d->type);
        if (!ti->reg_ok && ti->cls != PTX_TC_OPAQUE)
            VERR(V, PG_E_BAD_DECL, d->loc, "type %s is for instructions only: no variable or parameter has it", ti->name);
    }
    if (kind == SYM_VAR || kind == SYM_REG) check_var_decl(V, d, depth);
    sym s = {key, kind, d, NULL, depth, false, false, 0};
    st_add(&V->tab, s);
}

/* Three numbers of a .loc (the parser checked its shape: FILE LINE COL[, function_name ...]). */
static bool loc_triple(const char **pp, loc3 *x) {
    unsigned long long v[3];
    for (int i = 0; i < 3; i++) {
        char *e;
        v[i] = strtoull(*pp, &e, 0);
        if (e == *pp) return false;
        *pp = e + (*e == 'U');
    }
    *x = (loc3){v[0], v[1], v[2]};
    return true;
}

/* A .loc inside an inlined function: its function_name is a label of a .section (the debug
 * string of the function's name) and its inlined_at a source location an earlier .loc of the
 * module gave (ptxas: "Unresolved label '$L0' used in function_name attribute", "Source location
 * 1 5 0 used in inlined_at directive must be used in a preceding .loc directive"). */
static void check_loc(vctx *V, const ptx_stmt *s) {
    const char *p = s->u.dir.text;
    loc3 me, at;
    if (!p || !loc_triple(&p, &me)) return;   /* a shape the parser reported */
    const char *fn = strstr(p, "function_name "), *in = strstr(p, "inlined_at ");
    if (fn && in) {
        fn += strlen("function_name ");
        while (*fn == ' ') fn++;
        size_t n = 0;
        while (fn[n] && (isalnum((unsigned char)fn[n]) || fn[n] == '_' || fn[n] == '$' || fn[n] == '%')) n++;
        if (!n || isdigit((unsigned char)fn[0])) return;   /* no label: a shape the parser reported */
        bool found = V->fn_label && V->fn_label_n == n && !strncmp(V->fn_label, fn, n);
        for (int i = 0; i < V->m->ntops && !found; i++) {
            const ptx_top *t = &V->m->tops[i];
            if (t->kind != PTX_TOP_DIRECTIVE || strcmp(t->u.dir.name, ".section") || !t->u.dir.text) continue;
            for (const char *q = strstr(t->u.dir.text, "\n"); q && !found; q = strchr(q + 1, '\n')) {
                const char *a = q + 1;
                while (*a == ' ' || *a == '\t') a++;
                found = !strncmp(a, fn, n) && a[n] == ':';
                if (found) V->fn_label = a, V->fn_label_n = n;
            }
        }
        if (!found)
            VERR(V, PG_E_UNDEF_LABEL, s->loc, ".loc's function_name %.*s is not a label of a .section (the debug string of the inlined function's name)",
                 (int)n, fn);
        p = in + strlen("inlined_at ");
        if (loc_triple(&p, &at)) {
            bool seen = false;
            for (int i = V->locs.n - 1; i >= 0 && !seen; i--)
                seen = V->locs.v[i].file == at.file && V->locs.v[i].line == at.line && V->locs.v[i].col == at.col;
            if (!seen)
                VERR(V, PG_E_UNDEF_LABEL, s->loc, ".loc's inlined_at %llu %llu %llu is no source location of an earlier .loc", at.file,
                     at.line, at.col);
        }
    }
    const loc3 *last = V->locs.n ? &V->locs.v[V->locs.n - 1] : NULL;
    if (!last || last->file != me.file || last->line != me.line || last->col != me.col) pg_vec_push(V->locs, me);
}

static void check_func(vctx *V, ptx_func *f) {
    V->func = f;
    bool bad_before = V->bad;   /* V->bad is per module; W505 needs this function clean */
    V->bad = false;
    int mark = V->tab.syms.n;
    /* the cluster directives came with sm_90 (ptxas: "Feature '.maxclusterrank' requires .target sm_90") */
    for (int i = 0; i < f->nperf; i++) {
        const char *n = f->perf[i].name;
        bool cluster = !strcmp(n, ".explicitcluster") || !strcmp(n, ".reqnctapercluster") || !strcmp(n, ".maxclusterrank") ||
                       !strcmp(n, ".blocksareclusters");
        if (cluster && V->m->sm && V->m->sm < 90)
            VERR(V, PG_E_NEEDS_SM, f->perf[i].loc, "%s needs sm_90 or newer but the target is sm_%d", n, V->m->sm);
        /* ptxas: "Deprecated feature: '.maxnctapersm directive' not supported as of PTX version 2.1" */
        if (!strcmp(n, ".maxnctapersm") && V->m->ptx_version >= 21)
            VERR(V, PG_E_BAD_DECL, f->perf[i].loc, ".maxnctapersm was withdrawn in PTX ISA 2.1 (.minnctapersm replaces it)");
        /* ptxas: "Positive non-zero value expected for maxntid" */
        if (!strcmp(n, ".maxntid") || !strcmp(n, ".reqntid") || !strcmp(n, ".maxnreg") || !strcmp(n, ".minnctapersm"))
            for (int k = 0; k < f->perf[i].nvals; k++)
                if (f->perf[i].vals[k] <= 0) {
                    VERR(V, PG_E_BAD_DECL, f->perf[i].loc, "%s takes positive values, not %lld", n, (long long)f->perf[i].vals[k]);
                    break;
                }
    }
    /* ptxas: "Conflicting directives: .maxntid and .reqntid cannot both be specified" (and
     * .reqnctapercluster with .maxclusterrank), whatever the values: the first fixes what the
     * second bounds */
    static const char *const conflicts[][2] = {{".maxntid", ".reqntid"}, {".maxclusterrank", ".reqnctapercluster"}};
    for (size_t c = 0; c < sizeof conflicts / sizeof conflicts[0]; c++) {
        int nmax = 0, nreq = 0;
        for (int i = 0; i < f->nperf; i++) {
            nmax += !strcmp(f->perf[i].name, conflicts[c][0]);
            nreq += !strcmp(f->perf[i].name, conflicts[c][1]);
            if (nmax && nreq && (nmax + nreq == 2))   /* at the second of the two */
                VERR(V, PG_E_BAD_DECL, f->perf[i].loc, "'%s' has both %s and %s; give one (%s fixes what %s bounds)", f->name,
                     conflicts[c][0], conflicts[c][1], conflicts[c][1], conflicts[c][0]);
        }
    }
    /* ptxas: a syntax error on .noreturn after a kernel's signature (functions only) */
    if (f->is_entry && f->attrs && strstr(f->attrs, ".noreturn"))
        VERR(V, PG_E_BAD_DECL, f->loc, "'%s': .noreturn is for .func, not for a kernel", f->name);
    /* parameters: "Predicate variable 'p' must be in register state space", "Alignment must be a power of two" */
    for (int k = 0; k < f->nrets + f->nparams; k++) {
        const ptx_decl *d = k < f->nrets ? &f->rets[k] : &f->params[k - f->nrets];
        if (d->space == PTX_SS_REG) continue;
        if (d->align > 0 && (d->align & (d->align - 1)))
            VERR(V, PG_E_BAD_DECL, d->loc, ".align %d: an alignment is a power of two", d->align);
        if (!f->is_entry && d->align > 128)   /* "Parameter 'q' has illegal alignment (must be aligned to 1, ..., or 128 bytes)" */
            VERR(V, PG_E_BAD_DECL, d->loc, "parameter '%s': .align %d; a function's parameter is aligned to at most 128 bytes", d->name, d->align);
        if (d->type == PTX_T_PRED)
            VERR(V, PG_E_BAD_DECL, d->loc, "parameter '%s': .pred makes registers only (.reg .pred), not .param", d->name);
        else if (d->vec)   /* "Variable 'q' cannot be allocated in .param state space" */
            VERR(V, PG_E_BAD_DECL, d->loc, "parameter '%s': a .param is not a vector (.v%d); use an array", d->name, d->vec);
        else if (d->type == PTX_T_F16X2)
            VERR(V, PG_E_BAD_DECL, d->loc, "parameter '%s': a .param is not a packed .f16x2; use .b32", d->name);
        else if (!f->is_entry && ptx_type_get(d->type)->cls == PTX_TC_OPAQUE)   /* "Variable 'q' cannot be allocated in .param state space" */
            VERR(V, PG_E_BAD_DECL, d->loc, "parameter '%s': a %s is a kernel's parameter or a module variable, not a function's",
                 d->name, ptx_type_get(d->type)->name);
    }
    for (int i = 0; i < f->nrets; i++) declare(V, &f->rets[i], f->rets[i].space == PTX_SS_REG ? SYM_REG : SYM_PARAM, 1);
    for (int i = 0; i < f->nparams; i++) declare(V, &f->params[i], f->params[i].space == PTX_SS_REG ? SYM_REG : SYM_PARAM, 1);
    if (!f->has_body) { st_truncate(&V->tab, mark); V->bad = V->bad || bad_before; return; }
    /* labels are function-scoped */
    st_truncate(&V->labels, 0);
    V->blk_parent.n = 0;
    pg_vec_push(V->blk_parent, 0);
    int cur = 0;
    for (int i = 0; i < f->nbody; i++) {
        ptx_stmt *s = &f->body[i];
        if (s->kind == PTX_ST_BLOCK_BEGIN) {
            pg_vec_push(V->blk_parent, cur);
            cur = V->blk_parent.n - 1;
            continue;
        }
        if (s->kind == PTX_ST_BLOCK_END) {
            cur = V->blk_parent.v[cur];
            continue;
        }
        const char *l = s->kind == PTX_ST_LABEL ? s->u.label : s->kind == PTX_ST_DIRECTIVE ? s->u.dir.label : NULL;
        if (!l) continue;
        const sym *prev = st_find(&V->labels, l);
        if (prev) {
            VERR(V, PG_E_DUP_LABEL, s->loc, "label %s is defined twice in '%s'", l, f->name);
            continue;
        }
        sym ls = {l, SYM_LABEL, NULL, NULL, cur, false, false, 0};   /* depth: the block */
        if (s->kind == PTX_ST_DIRECTIVE) {
            ls.is_proto = strcmp(s->u.dir.name, ".callprototype") == 0;
            ls.is_table = !ls.is_proto;
        }
        st_add(&V->labels, ls);
    }
    PG_VEC(int) scope_marks = {0};
    int depth = 1, nblk = 0;
    V->cur_blk = 0;
    V->depth = depth;   /* the innermost block's, for resolve_reg */
    for (int i = 0; i < f->nbody; i++) {
        ptx_stmt *s = &f->body[i];
        switch (s->kind) {
        case PTX_ST_BLOCK_BEGIN:
            pg_vec_push(scope_marks, V->tab.syms.n);
            V->depth = ++depth;
            V->cur_blk = ++nblk;
            break;
        case PTX_ST_BLOCK_END:
            if (scope_marks.n) st_truncate(&V->tab, scope_marks.v[--scope_marks.n]);
            V->depth = --depth;
            if (V->cur_blk < V->blk_parent.n) V->cur_blk = V->blk_parent.v[V->cur_blk];
            break;
        case PTX_ST_DECL:
            declare(V, &s->u.decl, s->u.decl.space == PTX_SS_REG ? SYM_REG : SYM_VAR, depth);
            break;
        case PTX_ST_INSN:
            check_insn(V, s);
            break;
        case PTX_ST_DIRECTIVE:
            if (s->u.dir.name[1] == 'l' && !strcmp(s->u.dir.name, ".loc")) check_loc(V, s);
            if (s->u.dir.name[1] == 'b' && !strcmp(s->u.dir.name, ".branchtargets"))   /* most are .loc */
                for (int k = 0; k < s->u.dir.nargs; k++)
                    if (!st_find(&V->labels, s->u.dir.args[k]))
                        VERR(V, PG_E_UNDEF_LABEL, s->loc, "label %s in .branchtargets is not defined", s->u.dir.args[k]);
            if (s->u.dir.name[1] == 'c' && !strcmp(s->u.dir.name, ".calltargets"))
                for (int k = 0; k < s->u.dir.nargs; k++) {
                    const sym *t = st_find(&V->tab, s->u.dir.args[k]);
                    if (!t || t->kind != SYM_FUNC)
                        VERR(V, PG_E_UNDEF_SYMBOL, s->loc, "function %s in .calltargets is not declared", s->u.dir.args[k]);
                }
            break;
        case PTX_ST_LABEL:
            break;
        }
    }
    pg_vec_free(scope_marks);
    st_truncate(&V->tab, mark);
    /* control must not fall off the end */
    ptx_cfg *cfg = NULL;
    bool built = ptx_cfg_build(V->m, f, &cfg, NULL) == PG_OK;
    if (built && cfg->falls_off_end)
        VERR(V, PG_E_FALLS_OFF, f->end_loc, "control can reach the end of '%s' without ret or exit", f->name);
    /* misaligned loads/stores (W505): only on a function whose forms all resolved */
    if (built && !V->bad) ptx_align_check(V->m, f, cfg, V->diag);
    ptx_cfg_free(cfg);
    V->bad = V->bad || bad_before;
}

pg_status ptx_validate(ptx_module *m, pg_diag_sink *diag) {
    isa_init(NULL);
    vctx V;
    memset(&V, 0, sizeof V);
    hmemo_ent memo[HMEMO];
    memset(memo, 0, sizeof memo);
    V.tab.memo = V.labels.memo = memo;
    V.m = m;
    V.diag = diag;
    V.fc = fit_cache_get();
    if (V.fc) {   /* the thread's caches (see fit_cache) */
        fit_cache *fc = V.fc;
        if (!fc->rcache) fc->rcache = calloc(RCACHE, sizeof *fc->rcache);
        if (!fc->heads) fc->heads = calloc(HCACHE, sizeof *fc->heads);
        if (fc->gen_next > 0xC0000000u || ++fc->head_epoch == 0) {   /* about to wrap: start the numbers over */
            if (fc->rcache) memset(fc->rcache, 0, RCACHE * sizeof *fc->rcache);
            if (fc->heads) memset(fc->heads, 0, HCACHE * sizeof *fc->heads);
            fc->gen_next = 0;
            fc->head_epoch = 1;
        }
        V.rcache = fc->rcache;
        V.heads = fc->heads;
        V.tab.gen = fc->gen_next;
        V.head_epoch = fc->head_epoch;
    }
    if (!m->ptx_version) VERR(&V, PG_E_NO_VERSION, ((ptx_loc){1, 1}), "missing .version directive");
    if (!m->ntargets) VERR(&V, PG_E_NO_TARGET, ((ptx_loc){1, 1}), "missing .target directive");
    if (!m->address_size) VERR(&V, PG_E_NO_ADDRSIZE, ((ptx_loc){1, 1}), "missing .address_size directive");
    else if (m->address_size != 64)   /* ptxas: "32-Bit compilation is no longer supported" */
        VERR(&V, PG_E_HEADER, m->address_loc, ".address_size %d: ptxas compiles 64-bit code only", m->address_size);
    for (int i = 0; i < m->ntargets; i++) {
        const char *t = m->targets[i];
        int sm;
        bool as, fam;
        if (isa_parse_target(t, &sm, &as, &fam)) {
            if (m->ptx_version && isa_target_min_ptx(sm) > m->ptx_version)
                VERR(&V, PG_E_NEEDS_PTX, m->target_loc, "target %s needs PTX ISA %d.%d or newer", t,
                     isa_target_min_ptx(sm) / 10, isa_target_min_ptx(sm) % 10);
            continue;
        }
        if (!strcmp(t, "debug") || !strcmp(t, "texmode_unified") || !strcmp(t, "texmode_independent") ||
            !strcmp(t, "map_f64_to_f32"))
            continue;
        VERR(&V, PG_E_UNKNOWN_TARGET, m->target_loc, "unknown target '%s'", t);
    }
    /* module scope: variables and functions (declared anywhere at top level) */
    for (int i = 0; i < m->ntops; i++) {
        ptx_top *t = &m->tops[i];
        if (t->kind == PTX_TOP_DECL) declare(&V, &t->u.decl, SYM_VAR, 0);
        if (t->kind == PTX_TOP_FUNC) {
            ptx_func *f = &m->funcs[t->u.func];
            const sym *prev = st_find(&V.tab, f->name);
            if (prev && prev->kind == SYM_FUNC && prev->func->has_body && f->has_body) {
                VERR(&V, PG_E_DUP_DECL, f->loc, "function '%s' is defined twice (first at line %d)", f->name, prev->func->loc.line);
                continue;
            }
            if (prev && prev->kind != SYM_FUNC) {
                VERR(&V, PG_E_DUP_DECL, f->loc, "'%s' is already declared as a variable", f->name);
                continue;
            }
            if (prev && !f->has_body) continue;   /* keep the definition */
            sym s = {f->name, SYM_FUNC, NULL, f, 0, false, false, 0};
            st_add(&V.tab, s);
        }
    }
    for (int i = 0; i < m->nfuncs; i++) check_func(&V, &m->funcs[i]);
    if (V.fc) V.fc->gen_next = V.tab.gen + 1;   /* the next validation's entries are never taken for this one's */
    st_free(&V.tab);
    st_free(&V.labels);
    if (!V.fc || V.rcache != V.fc->rcache) free(V.rcache);   /* this validation's own (no thread cache) */
    if (!V.fc || V.heads != V.fc->heads) free(V.heads);
    pg_vec_free(V.blk_parent);
    pg_vec_free(V.locs);
    return V.bad ? PG_ERR_INVALID : PG_OK;
}
