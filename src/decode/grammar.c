/* grammar.c — the generated PTX subset, compiled from the ISA table.
 *
 * Every "opcode.mod.mod" string the decoder may write is enumerated from the
 * rows of src/isa/isa.def (modifier slots in table order) and kept in a
 * character trie; at each string's end the trie records the ISA forms the
 * validator will select for it (isa_match_form_ids, table order) and what
 * each operand slot accepts.  Nothing here lists opcodes' modifiers or
 * operand types a second time: the table is the source of truth.
 *
 * What this file adds is the GENERATION POLICY: the table (like the
 * validator) is deliberately permissive so that it accepts everything ptxas
 * accepts; a sampler needs the opposite guarantee, that everything it can
 * write is accepted by ptxas.  So the subset is cut down where ptxas has
 * rules the table does not encode (docs in decode.h, "generated subset"):
 *   - opcodes: the SUBSET list below (scalar/vector memory, integer and float
 *     arithmetic, conversions, logic, compare/select, branches, barriers,
 *     shuffles/votes, atomics); no calls, textures, tensor cores, async copies;
 *   - modifiers: no memory-ordering/scope/cache-hint/eviction qualifiers, no
 *     .cc carry chains, no packed or 8-bit float types, no .b128/.v8;
 *   - per-opcode rules ptxas enforces: rounding required on fma/mad/div/rcp/
 *     sqrt and on int<->float cvt, .ftz/.sat only where legal, setp
 *     comparisons by type class, atom/red operation x type combinations,
 *     .nc only on ld.global, ld.param of a same-size param, barrier ids 0..15,
 *     shfl lane/clamp 0..31, lop3 table 0..255, vector width <= 128 bits;
 *   - optional operands are never written (except setp's 4th with .and/.or/.xor,
 *     where ptxas requires it).
 */
#include "dec_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const ptx_type dec_dg_regtypes[RS_NREGT] = {
    PTX_T_PRED, PTX_T_B16, PTX_T_B32, PTX_T_B64, PTX_T_U16, PTX_T_U32, PTX_T_U64,
    PTX_T_S16, PTX_T_S32, PTX_T_S64, PTX_T_F16, PTX_T_F32, PTX_T_F64,
};

int dec_dg_regtype_index(ptx_type t) {
    for (int i = 0; i < RS_NREGT; i++)
        if (dec_dg_regtypes[i] == t) return i;
    return -1;
}

/* The opcodes of the generated subset (see the file comment for why a subset). */
static const char *const SUBSET[] = {
    "mov", "ld", "st", "cvta", "add", "sub", "mul", "mad", "fma", "div", "rem", "abs", "neg", "min", "max",
    "popc", "clz", "brev", "bfe", "bfi", "rcp", "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2", "cvt", "and",
    "or", "xor", "not", "cnot", "shl", "shr", "shf", "prmt", "lop3", "selp", "setp", "bra", "ret", "exit",
    "bar", "barrier", "shfl", "vote", "atom", "red", "membar", "mul24", "mad24", "sad", "copysign", "testp",
    "mma",   /* mma.sync.aligned rows of the table (the corpus's gemm_mma_f16 target; rules_ok keeps f16/bf16/f64) */
};

static bool in_subset(const char *op) {
    for (size_t i = 0; i < sizeof SUBSET / sizeof SUBSET[0]; i++)
        if (!strcmp(SUBSET[i], op)) return true;
    return false;
}

bool dec_dg_is_opcode(const char *s, size_t n) {
    int k;
    isa_forms_for(s, n, &k);
    return k > 0;
}

/* Modifiers never written (ptxas rules beyond the table, or semantics the
 * decoder does not track). */
static const char *const DENY[] = {
    ".cc", ".volatile", ".relaxed", ".acquire", ".release", ".acq_rel", ".weak", ".mmio", ".ca", ".cg",
    ".cs", ".lu", ".cv", ".wb", ".wt", ".unified", ".noftz", ".relu", ".NaN", ".xorsign", ".rna", ".rs",
    ".satfinite", ".shared::cta", ".shared::cluster", ".param::entry", ".param::func", ".const", ".b128",
    ".v8", ".pack", ".proxy", ".arrive", ".aligned", ".cluster", ".gpu", ".mask", ".shiftamt", ".red",
    ".alias",
};

static bool value_type_ok(ptx_type t) {
    switch (t) {
    case PTX_T_PRED: case PTX_T_B8: case PTX_T_B16: case PTX_T_B32: case PTX_T_B64: case PTX_T_U8:
    case PTX_T_U16: case PTX_T_U32: case PTX_T_U64: case PTX_T_S8: case PTX_T_S16: case PTX_T_S32:
    case PTX_T_S64: case PTX_T_F16: case PTX_T_BF16: case PTX_T_F32: case PTX_T_F64:
    case PTX_T_F16X2: case PTX_T_BF16X2:   /* packed halves: cvt's results only (rules_ok) */
        return true;
    default:
        return false;
    }
}

static bool mod_allowed(const dg_grammar *g, const isa_form *f, uint16_t id) {
    const char *t = isa_modifier_text(id);
    if (!t) return false;
    /* mma.sync requires .aligned (every thread of the warp executes it, as the kernel's own logic must ensure);
     * mma.sp's sparsity metadata and selector are not written */
    if (!strcmp(t, ".aligned") && !strcmp(f->opcode, "mma")) return true;
    if (!strncmp(t, ".sp", 3) && !strcmp(f->opcode, "mma")) return false;
    for (size_t i = 0; i < sizeof DENY / sizeof DENY[0]; i++)
        if (!strcmp(DENY[i], t)) return false;
    if (!strncmp(t, ".L1::", 5) || !strncmp(t, ".L2", 3)) return false;
    if ((!strcmp(t, ".cta") || !strcmp(t, ".sys")) && strcmp(f->opcode, "membar")) return false;
    ptx_type ty = ptx_type_lookup(t, strlen(t));
    if (ty != PTX_T_NONE && !value_type_ok(ty)) return false;
    const isa_require *rq = isa_modifier_requirement(t);
    if (rq && (rq->sm_min > g->sm || rq->ptx_min > g->ptx)) return false;
    return true;
}

/* ---- type rules: the validator's (ptx_type_compat), tightened ---- */
static bool dg_type_ok(ptx_type want, ptx_type reg, bool relaxed) {
    if (!ptx_type_compat(want, reg, relaxed)) return false;
    const ptx_type_info *w = ptx_type_get(want), *r = ptx_type_get(reg);
    /* half floats only in .f16/.b16 registers, packed ones in .b32; floats never widen */
    if (want == PTX_T_F16X2 || want == PTX_T_BF16X2) return reg == PTX_T_B32;
    if (want == PTX_T_F16 || want == PTX_T_BF16) return reg == PTX_T_B16 || (reg == PTX_T_F16 && want == PTX_T_F16);
    if (reg == PTX_T_F16) return want == PTX_T_F16 || want == PTX_T_B16;
    if (w->cls == PTX_TC_FLOAT && r->bits != w->bits) return false;
    if (r->cls == PTX_TC_FLOAT && r->bits != w->bits) return false;
    return true;
}

bool dec_dg_slot_reg_ok(const dg_slot *s, ptx_type reg) {
    if (s->fill) {   /* an element: 2 or 4 of them fill the value, none narrower than 16 bits (no 8-bit registers) */
        int b = reg == PTX_T_PRED ? 0 : ptx_type_get(reg)->bits, w = ptx_type_get(s->want)->bits;
        return b >= 16 && (2 * b == w || 4 * b == w);
    }
    if (s->intreg && ptx_type_get(reg)->cls == PTX_TC_FLOAT) return false;
    return dg_type_ok(s->want, reg, s->relaxed);
}

bool dec_dg_sreg_ok(const dg_slot *s, const isa_sreg *sr) {
    if (!(s->kinds & SK_SREG) || s->arity != 1) return false;
    return sr->type != PTX_T_PRED && isa_sreg_fits(sr, s->want) && dg_type_ok(s->want, sr->type, false);
}

/* ---- per-form policy ------------------------------------------------------ */
static bool has(const uint16_t *ids, int n, const char *mod) {
    uint16_t id = isa_modifier_id(mod, strlen(mod));
    for (int i = 0; i < n; i++)
        if (ids[i] == id) return true;
    return false;
}

static ptx_type bound(const isa_match *mt, char var) { return isa_bound_type(mt, var - 'A'); }

static bool is_float(ptx_type t) { return t != PTX_T_NONE && ptx_type_get(t)->cls == PTX_TC_FLOAT; }
static bool is_int(ptx_type t) {
    ptx_type_class c = t == PTX_T_NONE ? PTX_TC_NONE : ptx_type_get(t)->cls;
    return c == PTX_TC_UINT || c == PTX_TC_SINT;
}
static int bits(ptx_type t) { return ptx_type_get(t)->bits; }

static bool any_rnd(const uint16_t *ids, int n) {
    return has(ids, n, ".rn") || has(ids, n, ".rz") || has(ids, n, ".rm") || has(ids, n, ".rp");
}
static bool any_irnd(const uint16_t *ids, int n) {
    return has(ids, n, ".rni") || has(ids, n, ".rzi") || has(ids, n, ".rmi") || has(ids, n, ".rpi");
}

/* ptxas rules beyond the table, per opcode.  `op` is the opcode. */
static bool rules_ok(const char *op, const isa_form *f, const isa_match *mt, const uint16_t *ids, int n, int *nops) {
    ptx_type T = bound(mt, 'T');
    bool memop = !strcmp(op, "ld") || !strcmp(op, "st");
    /* every bound type must be a plain value type; half floats (packed too) only in cvt, 8-bit only in ld/st/cvt */
    for (int v = 0; v < ISA_NVARS; v++) {
        ptx_type t = isa_bound_type(mt, v);
        if (t == PTX_T_NONE) continue;
        if (!value_type_ok(t)) return false;
        /* mma's .f16 accumulators are packed .f16x2 registers (its rows' operand types) */
        if ((t == PTX_T_F16 || t == PTX_T_BF16 || t == PTX_T_F16X2 || t == PTX_T_BF16X2) && strcmp(op, "cvt") &&
            !(t == PTX_T_F16 && !strcmp(op, "mma")))
            return false;
        if (bits(t) == 8 && !memop && strcmp(op, "cvt")) return false;
    }
    if (has(ids, n, ".v2") || has(ids, n, ".v4")) {
        if (!memop) return false;
        int nv = has(ids, n, ".v2") ? 2 : 4;
        if (T == PTX_T_NONE || bits(T) * nv > 128) return false;
    }
    bool ftz = has(ids, n, ".ftz"), sat = has(ids, n, ".sat");
    if (!strcmp(op, "cvt")) {
        ptx_type U = bound(mt, 'U');
        if (T == PTX_T_NONE || U == PTX_T_NONE) return false;
        /* .sat only on f32 -> f32, clamping to [0, 1]: nvcc's expf writes `cvt.sat.f32.f32`, so every literate
         * target using expf has it; refused, the model wrote `cvt.f32.f32` or `cvt.rn.f32.u32` there
         * (2026-12-05, FAILURES.md) */
        if (sat && (T != PTX_T_F32 || U != PTX_T_F32)) return false;
        if (ptx_type_get(T)->cls == PTX_TC_BIT || ptx_type_get(U)->cls == PTX_TC_BIT) return false;
        /* two f32 rounded into packed halves: the fp16/bf16 helpers' __floats2half2_rn, __floats2bfloat162_rn
         * (cvt.rn.f16x2.f32 %r1, %f2, %f1 in nvcc's literate targets) */
        if (T == PTX_T_F16X2 || T == PTX_T_BF16X2) return U == PTX_T_F32 && any_rnd(ids, n) && !any_irnd(ids, n) && !ftz;
        if (T == PTX_T_BF16 && U != PTX_T_F32) return false;
        /* bf16 widens into f32 only (__bfloat162float; nvcc's sm_90 targets write cvt.f32.bf16) */
        if (U == PTX_T_BF16 && T != PTX_T_F32) return false;
        if ((T == PTX_T_F16 && !is_float(U)) || (U == PTX_T_F16 && !is_float(T))) return false;
        if (ftz && T != PTX_T_F32 && U != PTX_T_F32) return false;
        if (ftz && !is_float(U)) return false;
        bool r = any_rnd(ids, n), ir = any_irnd(ids, n);
        if (is_int(T) && is_int(U)) return !r && !ir && !ftz;
        if (is_float(T) && is_int(U)) return r && !ir;
        if (is_int(T) && is_float(U)) return ir && !r;
        if (bits(T) < bits(U)) return r && !ir;       /* narrowing float */
        if (bits(T) > bits(U)) return !r && !ir;      /* widening float */
        return !r;                                    /* same size: optional integer rounding */
    }
    if (!strcmp(op, "setp")) {
        if (T == PTX_T_NONE || T == PTX_T_PRED) return false;
        const char *c = isa_bound_text(mt, 'C' - 'A');
        if (!c) return false;
        bool basic = !strcmp(c, ".eq") || !strcmp(c, ".ne");
        bool ord = !strcmp(c, ".lt") || !strcmp(c, ".le") || !strcmp(c, ".gt") || !strcmp(c, ".ge");
        bool uns = !strcmp(c, ".lo") || !strcmp(c, ".ls") || !strcmp(c, ".hi") || !strcmp(c, ".hs");
        ptx_type_class k = ptx_type_get(T)->cls;
        if (k == PTX_TC_BIT && !basic) return false;
        if (k == PTX_TC_SINT && !basic && !ord) return false;
        if (k == PTX_TC_UINT && !basic && !ord && !uns) return false;
        if (k == PTX_TC_FLOAT && uns) return false;
        if (ftz && T != PTX_T_F32) return false;
        if (isa_bound_text(mt, 'B' - 'A')) *nops = 4;
        return true;
    }
    if (!strcmp(op, "ld") || !strcmp(op, "st")) {
        const char *S = isa_bound_text(mt, 'S' - 'A');
        if (has(ids, n, ".nc") && !(S && !strcmp(S, ".global") && !strcmp(op, "ld"))) return false;
        if (S && !strcmp(S, ".param")) {
            if (!strcmp(op, "st") || has(ids, n, ".v2") || has(ids, n, ".v4")) return false;
            if (T == PTX_T_NONE || (bits(T) != 32 && bits(T) != 64)) return false;
        }
        return T != PTX_T_NONE && T != PTX_T_PRED;
    }
    if (!strcmp(op, "atom") || !strcmp(op, "red")) {
        const char *P = isa_bound_text(mt, 'P' - 'A');
        const char *S = isa_bound_text(mt, 'S' - 'A');
        if (!P || T == PTX_T_NONE) return false;
        if (S && strcmp(S, ".global") && strcmp(S, ".shared")) return false;
        if (!strcmp(P, ".add")) return T == PTX_T_U32 || T == PTX_T_S32 || T == PTX_T_U64 || T == PTX_T_F32 || T == PTX_T_F64;
        if (!strcmp(P, ".inc") || !strcmp(P, ".dec")) return T == PTX_T_U32;
        if (!strcmp(P, ".min") || !strcmp(P, ".max")) return T == PTX_T_U32 || T == PTX_T_S32 || T == PTX_T_U64 || T == PTX_T_S64;
        if (!strcmp(P, ".and") || !strcmp(P, ".or") || !strcmp(P, ".xor") || !strcmp(P, ".exch") || !strcmp(P, ".cas"))
            return T == PTX_T_B32 || T == PTX_T_B64;
        return false;
    }
    if (!strcmp(op, "shfl") || !strcmp(op, "vote")) return has(ids, n, ".sync");
    if (!strcmp(op, "bar") || !strcmp(op, "barrier")) {
        if (!has(ids, n, ".sync")) return false;
        if (!has(ids, n, ".warp")) *nops = 1;
        return true;
    }
    if (!strcmp(op, "cvta")) return T == PTX_T_U64 && isa_bound_text(mt, 'S' - 'A') &&
                                    (!strcmp(isa_bound_text(mt, 'S' - 'A'), ".global") ||
                                     !strcmp(isa_bound_text(mt, 'S' - 'A'), ".shared") ||
                                     !strcmp(isa_bound_text(mt, 'S' - 'A'), ".local"));
    if (is_float(T)) {
        /* .ftz on f32, and on f64 in rcp.approx.ftz.f64 (nvcc's double-precision exp and division helpers) */
        if (ftz && T != PTX_T_F32 && !(T == PTX_T_F64 && !strcmp(op, "rcp") && has(ids, n, ".approx"))) return false;
        if (sat && (T != PTX_T_F32 || !(!strcmp(op, "add") || !strcmp(op, "sub") || !strcmp(op, "mul") ||
                                        !strcmp(op, "mad") || !strcmp(op, "fma")))) return false;
        bool approx = has(ids, n, ".approx"), full = has(ids, n, ".full"), r = any_rnd(ids, n);
        if (!strcmp(op, "fma") || !strcmp(op, "mad")) return r;
        if (!strcmp(op, "div")) return T == PTX_T_F32 ? (approx || full || r) : (r && !approx && !full);
        if (!strcmp(op, "rcp") || !strcmp(op, "sqrt")) {
            if (T == PTX_T_F64) return r || (approx && ftz && !strcmp(op, "rcp"));
            return approx || r;
        }
        if (!strcmp(op, "rsqrt")) return approx;
        return true;
    }
    if (is_int(T) || T == PTX_T_NONE || ptx_type_get(T)->cls == PTX_TC_BIT) {
        if (sat && !((!strcmp(op, "add") || !strcmp(op, "sub")) && T == PTX_T_S32)) return false;
        if (ftz) return false;
    }
    (void)f;
    return true;
}

static ptx_type slot_type(const isa_match *mt, const isa_opslot *s) {
    if (s->type_var >= 0) {
        ptx_type t = isa_bound_type(mt, s->type_var);
        if (s->type_wide && t != PTX_T_NONE) {
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

static ptx_space space_of_mods(const uint16_t *ids, int n) {
    for (int i = 0; i < n; i++) {
        const char *m = isa_modifier_text(ids[i]);
        if (!strcmp(m, ".global")) return PTX_SS_GLOBAL;
        if (!strcmp(m, ".shared")) return PTX_SS_SHARED;
        if (!strcmp(m, ".local")) return PTX_SS_LOCAL;
        if (!strcmp(m, ".param")) return PTX_SS_PARAM;
    }
    return PTX_SS_NONE;
}

static uint32_t regs_need(const dg_slot *s) {
    uint32_t m = 0;
    for (int i = 0; i < RS_NREGT; i++)
        if (dec_dg_slot_reg_ok(s, dec_dg_regtypes[i])) m |= 1u << i;
    return m;
}

static uint32_t int_regs(int minbits) {
    uint32_t m = 0;
    for (int i = 0; i < RS_NREGT; i++) {
        const ptx_type_info *ti = ptx_type_get(dec_dg_regtypes[i]);
        if ((ti->cls == PTX_TC_BIT || ti->cls == PTX_TC_UINT || ti->cls == PTX_TC_SINT) && ti->bits >= minbits) m |= 1u << i;
    }
    return m;
}

/* The address registers a state space takes. */
uint32_t dec_dg_addr_regs(ptx_space sp) {
    if (sp == PTX_SS_SHARED || sp == PTX_SS_LOCAL) return int_regs(32);
    if (sp == PTX_SS_PARAM) return 0;
    return int_regs(64);
}

static void imm_range(ptx_type t, int64_t *lo, int64_t *hi) {
    const ptx_type_info *ti = ptx_type_get(t);
    int b = ti->bits;
    int64_t smax = b >= 64 ? INT64_MAX : ((int64_t)1 << (b - 1)) - 1;
    int64_t umax = b >= 64 ? INT64_MAX : ((int64_t)1 << b) - 1;
    if (ti->cls == PTX_TC_SINT) { *lo = -smax - (b < 64); *hi = smax; }
    else { *lo = -smax - (b < 64); *hi = umax; }
}

/* Fill a candidate for form f with bindings mt; false if the form is outside the subset. */
static bool make_cand(const dg_grammar *g, int fi, const isa_match *mt, const uint16_t *ids, int n, dg_cand *c) {
    const isa_form *f = isa_form_get(fi);
    memset(c, 0, sizeof *c);
    if (!in_subset(f->opcode) || f->call_syntax) return false;
    if (!isa_form_available(f, g->ptx, g->sm, g->arch_specific, NULL)) return false;
    for (int i = 0; i < n; i++)
        if (!mod_allowed(g, f, ids[i])) return false;
    int nops = f->nops_min;
    if (!rules_ok(f->opcode, f, mt, ids, n, &nops)) return false;
    if (nops > DG_MAX_OPS || nops > f->nops) return false;
    c->form = fi;
    c->mt = *mt;
    c->nops = (uint8_t)nops;
    c->space = (uint8_t)space_of_mods(ids, n);
    c->is_bra = !strcmp(f->opcode, "bra");
    c->terminator = c->is_bra || !strcmp(f->opcode, "ret") || !strcmp(f->opcode, "exit");
    {
        const char *mods[ISA_MAX_MODSLOTS + 8];
        int nm = 0;
        for (int i = 0; i < n && nm < (int)(sizeof mods / sizeof mods[0]); i++) mods[nm++] = isa_modifier_text(ids[i]);
        /* as analysis.c's op0_is_def: an output slot takes no immediate, address or name */
        c->op0_def = nops > 0 && !ptx_op0_is_input(f->opcode, mods, nm) &&
                     !(f->ops[0].kinds & (ISA_OK_IMM | ISA_OK_ADDR | ISA_OK_LABEL | ISA_OK_FUNC | ISA_OK_SYM)) &&
                     (f->ops[0].kinds & (ISA_OK_REG | ISA_OK_PAIR));
    }
    ptx_type T = isa_bound_type(mt, 'T' - 'A');
    if (c->space == PTX_SS_PARAM) c->param_bits = (uint8_t)bits(T);
    for (int i = 0; i < nops; i++) {
        const isa_opslot *os = &f->ops[i];
        dg_slot *s = &c->slot[i];
        if (os->kinds & (ISA_OK_ANY | ISA_OK_FUNC | ISA_OK_TUPLE | ISA_OK_HANDLE)) return false;   /* tensor tuples, handles: not written by the decoder */
        if (os->arity == -1) {
            /* mov pack/unpack: {..} filling T, written as nvcc does (mov.b32 %f1, {0, %rs1}; mov.b64 {%r1, %r2}, %fd1):
             * 2 or 4 registers of one type, a source's elements also integer immediates (ptxas: "Vector with elements
             * of different types" for a float beside an immediate or an integer; constraint.c keeps one type) */
            if (!(os->kinds & ISA_OK_REG) || T == PTX_T_NONE || bits(T) < 32) return false;
            s->want = T;
            s->fill = true;
            s->arity = 0;
            s->kinds = SK_REG | ((os->kinds & ISA_OK_IMM) ? SK_VIMM : 0);
            imm_range(PTX_T_B16, &s->lo, &s->hi);   /* an immediate element fits the narrowest element */
            c->need[i] = regs_need(s);
            if (!c->need[i]) return false;
            continue;
        }
        if (os->any_type && (os->kinds & (ISA_OK_REG | ISA_OK_IMM))) return false;
        s->want = slot_type(mt, os);
        s->relaxed = os->relaxed;
        if (os->arity_var >= 0) {
            const char *v = isa_bound_text(mt, os->arity_var);
            s->arity = v ? v[2] - '0' : 1;
            if (v && s->arity == 1) return false;   /* ldmatrix .x1's {%r}: a vector of one, not written by the decoder */
        } else if (os->arity == 1 && !os->vec1) {
            s->arity = 1;
        } else if (os->arity >= 2 && os->arity <= 8 && !strcmp(f->opcode, "mma")) {
            s->arity = os->arity;   /* mma's fragments: {%f0, %f1, %f2, %f3} of the row's fixed size */
        } else {
            return false;
        }
        unsigned k = 0;
        bool w_ok = s->want != PTX_T_NONE;
        const ptx_type_info *wi = ptx_type_get(s->want);
        if ((os->kinds & ISA_OK_REG) && w_ok) k |= SK_REG;
        if ((os->kinds & ISA_OK_IMM) && w_ok && s->arity == 1) {
            if (s->want == PTX_T_PRED && !strcmp(f->opcode, "mov")) {   /* nvcc's mov.pred %p1, -1; (true) and 0 */
                k |= SK_IMM;
                s->lo = -1, s->hi = 1;
            } else if (wi->cls == PTX_TC_BIT || wi->cls == PTX_TC_UINT || wi->cls == PTX_TC_SINT) {
                k |= SK_IMM;
                imm_range(s->want, &s->lo, &s->hi);
            } else if (s->want == PTX_T_F32 || s->want == PTX_T_F64) {
                if (os->fint) return false;   /* a float interval (createpolicy's fraction): not tracked, never written */
                k |= SK_FLT;
                s->fbits = wi->bits;
            }
        }
        if (os->kinds & ISA_OK_ADDR) k |= SK_ADDR;
        if ((os->kinds & ISA_OK_LABEL) && f->nops == 1 && c->is_bra) k |= SK_LABEL;
        if ((os->kinds & ISA_OK_SYM) && !strcmp(f->opcode, "mov") && w_ok && s->arity == 1 &&
            (wi->cls == PTX_TC_BIT || wi->cls == PTX_TC_UINT || wi->cls == PTX_TC_SINT) && wi->bits >= 32)
            k |= SK_SYM;
        if ((os->kinds & ISA_OK_SPECIAL) && w_ok && !strcmp(f->opcode, "mov")) k |= SK_SREG;
        s->intreg = (!strcmp(f->opcode, "shfl") && i >= 2) || (!strcmp(f->opcode, "vote") && i == 2) ||
                    !strcmp(f->opcode, "bar") || !strcmp(f->opcode, "barrier");
        if ((os->kinds & ISA_OK_NEG) && s->want == PTX_T_PRED) k |= SK_NEG;
        if ((os->kinds & ISA_OK_PAIR) && (k & SK_REG) && s->arity == 1) k |= SK_PAIR;
        if (!strcmp(f->opcode, "cvta") && i == 1) k &= SK_REG;
        s->kinds = k;
        if (!k) return false;
        /* ptxas immediate ranges the table does not carry */
        if ((!strcmp(f->opcode, "bar") || !strcmp(f->opcode, "barrier")) && nops == 1 && !has(ids, n, ".warp")) {
            s->lo = 0; s->hi = 15;
        }
        if (!strcmp(f->opcode, "shfl") && (i == 2 || i == 3)) { s->lo = 0; s->hi = 31; }
        if (!strcmp(f->opcode, "lop3") && i == 4) { s->lo = 0; s->hi = 255; }
        if ((!strcmp(f->opcode, "bfe") && i >= 2) || (!strcmp(f->opcode, "bfi") && i >= 3)) { s->lo = 0; s->hi = 255; }
        /* resources */
        uint32_t need = 0;
        if (k & (SK_IMM | SK_FLT | SK_LABEL)) need |= 1u << RS_ALWAYS;
        if (k & SK_REG) need |= regs_need(s);
        if (k & SK_NEG) need |= 1u << 0;
        if (k & SK_SYM) need |= (1u << RS_SHARED) | (1u << RS_LOCAL);
        if (k & SK_SREG)
            for (int q = 0; q < g->nsregs; q++)
                if (dec_dg_sreg_ok(s, g->sregs[q])) need |= 1u << RS_ALWAYS;
        if (k & SK_ADDR) {
            need |= dec_dg_addr_regs((ptx_space)c->space);
            if (c->space == PTX_SS_SHARED) need |= 1u << RS_SHARED;
            if (c->space == PTX_SS_LOCAL) need |= 1u << RS_LOCAL;
            if (c->space == PTX_SS_PARAM) need |= 1u << (c->param_bits == 64 ? RS_PARAM64 : RS_PARAM32);
        }
        c->need[i] = need;
        if (!need) return false;
    }
    return true;
}

bool dec_dg_cand_ok(const dg_cand *c, uint32_t R) {
    R |= 1u << RS_ALWAYS;
    for (int i = 0; i < c->nops; i++)
        if (!(c->need[i] & R)) return false;
    return true;
}

/* ---- the trie ------------------------------------------------------------------ */
static int new_node(dg_grammar *g, int parent, char c) {
    dg_node nd = {-1, -1, parent, -1, c};
    pg_vec_push(g->nodes, nd);
    return g->nodes.n - 1;
}

int dec_dg_child(const dg_grammar *g, int node, char c) {
    for (int k = g->nodes.v[node].first_child; k >= 0; k = g->nodes.v[k].next_sibling)
        if (g->nodes.v[k].c == c) return k;
    return -1;
}

static int insert(dg_grammar *g, const char *s) {
    int nd = 0;
    for (; *s; s++) {
        int k = dec_dg_child(g, nd, *s);
        if (k < 0) {
            k = new_node(g, nd, *s);
            g->nodes.v[k].next_sibling = g->nodes.v[nd].first_child;
            g->nodes.v[nd].first_child = k;
        }
        nd = k;
    }
    return nd;
}

static int lookup(const dg_grammar *g, const char *s) {
    int nd = 0;
    for (; *s && nd >= 0; s++) nd = dec_dg_child(g, nd, *s);
    return nd;
}

typedef struct { dg_grammar *g; const char *opcode; const isa_form *const *forms; int nforms; int budget; } enum_ctx;

static void emit(enum_ctx *E, const uint16_t *ids, int n) {
    char text[160];
    size_t len = strlen(E->opcode);
    memcpy(text, E->opcode, len + 1);
    for (int i = 0; i < n; i++) {
        const char *m = isa_modifier_text(ids[i]);
        size_t ml = strlen(m);
        if (len + ml + 1 >= sizeof text) return;
        memcpy(text + len, m, ml + 1);
        len += ml;
    }
    int nd = lookup(E->g, text);
    if (nd >= 0 && E->g->nodes.v[nd].leaf != -1) return;   /* seen (leaf -2 = seen, rejected) */
    dg_cand cands[DG_MAX_CANDS];
    int nc = 0;
    for (int i = 0; i < E->nforms && nc < DG_MAX_CANDS; i++) {
        isa_match mt;
        if (!isa_match_form_ids(E->forms[i], ids, n, &mt)) continue;
        /* the validator takes the first form whose operands fit: a form outside
         * the subset in front would shadow later ones, so stop there */
        if (!make_cand(E->g, E->forms[i]->index, &mt, ids, n, &cands[nc])) break;
        nc++;
    }
    nd = insert(E->g, text);
    if (!nc) { E->g->nodes.v[nd].leaf = -2; return; }
    dg_leaf lf = {E->g->cands.n, nc};
    for (int i = 0; i < nc; i++) pg_vec_push(E->g->cands, cands[i]);
    pg_vec_push(E->g->leaves, lf);
    E->g->nodes.v[nd].leaf = E->g->leaves.n - 1;
}

static void enum_mods(enum_ctx *E, const isa_form *f, int slot, uint16_t *ids, int n) {
    if (E->budget-- <= 0) return;
    if (slot == f->nmods) { emit(E, ids, n); return; }
    const isa_modslot *s = &f->mods[slot];
    if (s->optional) enum_mods(E, f, slot + 1, ids, n);
    for (int a = 0; a < s->nalts; a++) {
        if (!mod_allowed(E->g, f, s->ids[a])) continue;
        /* an alternative like ".async.global" spans two modifiers: not in the subset */
        if (strchr(s->alts[a] + 1, '.')) continue;
        ids[n] = s->ids[a];
        enum_mods(E, f, slot + 1, ids, n + 1);
    }
}

/* Grammars are built once per target and kept for the life of the process
 * (dec_new would otherwise spend ~70 ms per state). */
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static dg_grammar *cache[8];

static pg_status dg_build_new(const char *arch, dg_grammar **out, pg_diag_sink *diag);

pg_status dec_dg_build(const char *arch, dg_grammar **out, pg_diag_sink *diag) {
    if (!arch || !*arch) arch = "sm_80";
    pthread_mutex_lock(&cache_lock);
    pg_status st = PG_OK;
    *out = NULL;
    for (int i = 0; i < 8 && cache[i]; i++)
        if (!strcmp(cache[i]->target, arch)) *out = cache[i];
    if (!*out) {
        st = dg_build_new(arch, out, diag);
        if (st == PG_OK) {
            (*out)->refs = 1 << 30;   /* cached: never freed by dec_dg_release */
            for (int i = 0; i < 8; i++)
                if (!cache[i]) { cache[i] = *out; break; }
        }
    }
    pthread_mutex_unlock(&cache_lock);
    return st;
}

static pg_status dg_build_new(const char *arch, dg_grammar **out, pg_diag_sink *diag) {
    *out = NULL;
    if (isa_init(diag) != PG_OK) return PG_ERR_INVALID;
    int sm;
    bool as, fam;
    if (!arch || !*arch) arch = "sm_80";
    if (!isa_parse_target(arch, &sm, &as, &fam) || strlen(arch) >= 24) {
        pg_diag_emit(diag, PG_E_DEAD_STATE, NULL, 0, 0, "unknown target '%s' for the constraint", arch);
        return PG_ERR_USAGE;
    }
    dg_grammar *g = calloc(1, sizeof *g);
    g->refs = 1;
    g->sm = sm;
    g->arch_specific = as;
    snprintf(g->target, sizeof g->target, "%s", arch);
    g->ptx = isa_target_min_ptx(sm);
    if (g->ptx < 80) g->ptx = 80;
    char hdr[256];
    snprintf(hdr, sizeof hdr, ".version %d.%d\n.target %s\n.address_size 64\n\n", g->ptx / 10, g->ptx % 10, arch);
    g->header = strdup(hdr);
    /* special registers, .x/.y/.z expanded; perf counters and reserved windows left out */
    for (int i = 0; i < isa_sreg_count(); i++) {
        const isa_sreg *sr = isa_sreg_get(i);
        if (sr->sm_min > sm || sr->ptx_min > g->ptx || !strncmp(sr->name, "%pm", 3) || !strncmp(sr->name, "%reserved", 9) ||
            !strncmp(sr->name, "%current_graph", 14) || sr->type == PTX_T_PRED)
            continue;
        for (int k = 0; k < (sr->vector ? 3 : 1) && g->nsregs < 64; k++) {
            g->sregs[g->nsregs] = sr;
            snprintf(g->sreg_names[g->nsregs], 40, "%s%s", sr->name, sr->vector ? (k == 0 ? ".x" : k == 1 ? ".y" : ".z") : "");
            g->nsregs++;
        }
    }
    new_node(g, -1, 0);   /* root */
    for (int oi = 0; oi < isa_opcode_count(); oi++) {
        const char *op = isa_opcode_get(oi);
        if (!in_subset(op)) continue;
        enum_ctx E = {g, op, NULL, 0, 200000};
        E.forms = isa_forms_for(op, strlen(op), &E.nforms);
        for (int i = 0; i < E.nforms; i++) {
            uint16_t ids[ISA_MAX_MODSLOTS];
            enum_mods(&E, E.forms[i], 0, ids, 0);
        }
    }
    *out = g;
    return PG_OK;
}

void dec_dg_release(dg_grammar *g) {
    if (!g || --g->refs > 0) return;
    for (int i = 0; i < g->alive_cache.n; i++) free(g->alive_cache.v[i].alive);
    pg_vec_free(g->alive_cache);
    pg_vec_free(g->nodes);
    pg_vec_free(g->leaves);
    pg_vec_free(g->cands);
    free(g->header);
    free(g);
}

const uint8_t *dec_dg_alive_for(dg_grammar *g, uint32_t R) {
    pthread_mutex_lock(&cache_lock);
    for (int i = 0; i < g->alive_cache.n; i++)
        if (g->alive_cache.v[i].R == R) {
            const uint8_t *a = g->alive_cache.v[i].alive;
            pthread_mutex_unlock(&cache_lock);
            return a;
        }
    uint8_t *a = calloc((size_t)g->nodes.n, 1);
    /* children have larger indices than their parents: one backward pass */
    for (int i = g->nodes.n - 1; i > 0; i--) {
        const dg_node *nd = &g->nodes.v[i];
        if (nd->leaf >= 0) {
            const dg_leaf *lf = &g->leaves.v[nd->leaf];
            for (int k = 0; k < lf->ncand; k++)
                if (dec_dg_cand_ok(&g->cands.v[lf->cand0 + k], R)) { a[i] |= 3; break; }   /* 2: a string ends here */
        }
        if (a[i]) a[nd->parent] |= 1;
    }
    a[0] |= 1;
    dg_alive e = {R, a};
    pg_vec_push(g->alive_cache, e);
    pthread_mutex_unlock(&cache_lock);
    return a;
}
