/* gen.c — programs for the differential fuzzer, made from the ISA table.
 *
 * Program i of a campaign is a pure function of (seed, i).  Its category
 * comes from i (round-robin over a fixed mix), and a DP_FORM/MODMUT/OPMUT
 * program takes form i/ncat modulo the table's size, so every row of
 * src/isa/isa.def is visited in turn.  For a form the generator walks the
 * modifier slots (optional ones sometimes, one alternative each), binds the
 * type variables, and fills every operand slot with an operand of a kind the
 * slot takes and a register of a type the slot admits (sometimes another
 * type the PTX rules allow: a .b register, the other signedness, a wider one
 * where the slot is relaxed).  Mutants then break one thing.  The generator
 * knows PTX syntax, not the rules under test: those come from the table, and
 * where the table is wrong the two checkers disagree. */
#include "diff.h"

#include <stdlib.h>
#include <string.h>

const char *const dp_cat_names[DP__NCAT] = {"form", "modifier-mutant", "operand-mutant", "sequence",
                                            "declaration", "token-mutant", "walk"};

/* ---- random numbers ------------------------------------------------------ */
uint64_t dp_next(dp_rng *r) {
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
int dp_below(dp_rng *r, int n) { return n <= 1 ? 0 : (int)(dp_next(r) % (uint64_t)n); }
bool dp_chance(dp_rng *r, double p) { return (double)(dp_next(r) >> 11) * (1.0 / 9007199254740992.0) < p; }
dp_rng dp_rng_of(uint64_t seed, uint64_t stream) {
    dp_rng r = {seed * 0xD1B54A32D192ED03ull ^ (stream + 1) * 0x9E3779B97F4A7C15ull};
    dp_next(&r);
    return r;
}
#define PICK(r, arr) ((arr)[dp_below((r), (int)(sizeof(arr) / sizeof((arr)[0])))])

void dp_prog_free(dp_prog *p) {
    free(p->text);
    p->text = NULL;
}

/* ---- targets and the shared preamble ---------------------------------------- */
static const int v70[] = {60, 63, 65, 70, 74, 78, 80, 83, 85, 87, 90, 0};
static const int v80[] = {70, 71, 74, 78, 80, 83, 85, 87, 90, 0};
static const int v90[] = {78, 80, 81, 83, 85, 86, 87, 90, 0};
static const dp_target targets[] = {
    {"sm_70", "sm_75", 70, v70},
    {"sm_75", "sm_75", 75, v80 + 0},
    {"sm_80", "sm_80", 80, v80},
    {"sm_86", "sm_86", 86, v80 + 1},
    {"sm_89", "sm_89", 89, v90},
    {"sm_90", "sm_90", 90, v90},
    {"sm_90a", "sm_90a", 90, v90},
    {"sm_100", "sm_100", 100, v90 + 5},
};
const dp_target *dp_target_find(const char *name) {
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
        if (!strcmp(targets[i].name, name)) return &targets[i];
    return NULL;
}

/* Module-scope variables of every space the instructions name, texture
 * handles, and two functions for calls.  dp_oracle_open checks that ptxas
 * takes it on every target. */
static const char PREAMBLE[] =
    ".global .align 16 .b8 gb[1024];\n"
    ".global .align 4 .u32 gu32;\n"
    ".global .align 8 .u64 gu64[4];\n"
    ".global .align 4 .f32 gf32[16];\n"
    ".const .align 16 .b8 cb[256];\n"
    ".const .align 4 .u32 cu32[4];\n"
    ".global .texref gtex;\n"
    ".global .surfref gsurf;\n"
    ".func (.param .b32 fr) fnr(.param .b32 fa)\n"
    "{\n"
    "\t.reg .b32 %t;\n"
    "\tld.param.b32 %t, [fa];\n"
    "\tst.param.b32 [fr], %t;\n"
    "\tret;\n"
    "}\n"
    ".func fnv()\n"
    "{\n"
    "\tret;\n"
    "}\n";
const char *dp_preamble(void) { return PREAMBLE; }

void dp_header(const dp_target *t, int ptx, pg_buf *out) {
    pg_buf_printf(out, ".version %d.%d\n.target %s\n.address_size 64\n", ptx / 10, ptx % 10, t->name);
}

/* ---- register files -------------------------------------------------------- */
/* One `.reg .T %prefix<8>;` per type a program uses. */
typedef struct { ptx_type t; const char *prefix; } regfile;
static const regfile RF[] = {
    {PTX_T_PRED, "%p"},   {PTX_T_B8, "%xb"},    {PTX_T_B16, "%xh"},   {PTX_T_B32, "%xr"},   {PTX_T_B64, "%xd"},
    {PTX_T_B128, "%xq"},  {PTX_T_U8, "%ub"},    {PTX_T_U16, "%uh"},   {PTX_T_U32, "%ur"},   {PTX_T_U64, "%ud"},
    {PTX_T_S8, "%sb"},    {PTX_T_S16, "%sh"},   {PTX_T_S32, "%sr"},   {PTX_T_S64, "%sd"},   {PTX_T_F16, "%hh"},
    {PTX_T_F16X2, "%hx"}, {PTX_T_F32, "%f"},    {PTX_T_F64, "%fd"},
};
enum { NRF = sizeof RF / sizeof RF[0], NREG = 8 };

static int rf_of(ptx_type t) {
    for (int i = 0; i < NRF; i++)
        if (RF[i].t == t) return i;
    return -1;
}
static int bits_of(ptx_type t) { return ptx_type_get(t)->bits; }
static ptx_type_class cls_of(ptx_type t) { return ptx_type_get(t)->cls; }
static ptx_type bit_type(int bits) {
    return bits <= 8 ? PTX_T_B8 : bits <= 16 ? PTX_T_B16 : bits <= 32 ? PTX_T_B32 : bits <= 64 ? PTX_T_B64 : PTX_T_B128;
}

/* ---- the program builder ------------------------------------------------------- */
typedef struct {
    dp_rng r;
    const char *name;
    uint32_t used;           /* register files used (bit per RF index) */
    bool sh, lo, mbar;       /* kernel variables referenced */
    int labels;              /* $L0..$L(labels-1) referenced: defined before the final ret */
    int tables;              /* $T0..: .branchtargets tables */
    bool custom_params;
    bool cx;                 /* constant expressions in operands and initializers (seeds >= DP_CX_SEED) */
    bool fx;                 /* float constant expressions in initializers (seeds >= DP_FX_SEED) */
    pg_buf pre, params, perf, decl, code;
} pb;

static void pb_init(pb *b, dp_rng r, const char *name) {
    memset(b, 0, sizeof *b);
    b->r = r;
    b->name = name;
}

static void pb_free(pb *b) {
    pg_buf_free(&b->pre);
    pg_buf_free(&b->params);
    pg_buf_free(&b->perf);
    pg_buf_free(&b->decl);
    pg_buf_free(&b->code);
}

static char *pb_finish(pb *b) {
    pg_buf o = {0};
    if (b->pre.len) pg_buf_puts(&o, b->pre.data);
    pg_buf_printf(&o, ".visible .entry %s(\n", b->name);
    if (b->custom_params) pg_buf_puts(&o, b->params.data ? b->params.data : "");
    else pg_buf_puts(&o, "\t.param .u64 pa,\n\t.param .u32 pn,\n\t.param .f32 pf,\n\t.param .align 16 .b8 pb[16]\n");
    pg_buf_puts(&o, ")\n");
    if (b->perf.len) pg_buf_puts(&o, b->perf.data);
    pg_buf_puts(&o, "{\n");
    for (int i = 0; i < NRF; i++)
        if (b->used & (1u << i)) pg_buf_printf(&o, "\t.reg %s %s<%d>;\n", ptx_type_get(RF[i].t)->name, RF[i].prefix, NREG);
    if (b->sh) pg_buf_puts(&o, "\t.shared .align 16 .b8 sh[256];\n");
    if (b->mbar) pg_buf_puts(&o, "\t.shared .align 8 .b64 mbar;\n");
    if (b->lo) pg_buf_puts(&o, "\t.local .align 16 .b8 lo[64];\n");
    if (b->decl.len) pg_buf_puts(&o, b->decl.data);
    if (b->code.len) pg_buf_puts(&o, b->code.data);
    for (int i = 0; i < b->labels; i++) pg_buf_printf(&o, "$L%d:\n", i);
    pg_buf_puts(&o, "\tret;\n}\n");
    return o.data;
}

static void put_reg(pb *b, pg_buf *o, int rf, int idx) {
    b->used |= 1u << rf;
    pg_buf_printf(o, "%s%d", RF[rf].prefix, idx);
}

/* A register file for an operand that wants type `want`.  Well typed: the
 * type itself mostly, else a type the PTX operand rules admit (a .b type of
 * the same size, the other signedness, a wider register where `relaxed`).
 * Otherwise any register file. */
static int pick_rf(pb *b, ptx_type want, bool relaxed, bool welltyped) {
    if (!welltyped || want == PTX_T_NONE) {
        static const ptx_type common[] = {PTX_T_B32, PTX_T_U32, PTX_T_S32, PTX_T_B64, PTX_T_U64, PTX_T_F32,
                                          PTX_T_F64, PTX_T_B16, PTX_T_PRED, PTX_T_F16, PTX_T_U16};
        if (want == PTX_T_NONE && welltyped) return rf_of(PICK(&b->r, common));
        return dp_below(&b->r, NRF);
    }
    int cand[8], w[8], n = 0, tot = 0;
#define ADD(t, wt) do { int k_ = rf_of(t); if (k_ >= 0) { cand[n] = k_; w[n] = (wt); tot += (wt); n++; } } while (0)
    int bits = bits_of(want);
    ptx_type_class c = cls_of(want);
    if (ptx_type_get(want)->reg_ok) ADD(want, 8);
    if (c == PTX_TC_PRED) return rf_of(PTX_T_PRED);
    ADD(bit_type(bits < 8 ? 8 : bits), ptx_type_get(want)->reg_ok ? 2 : 8);
    if (c == PTX_TC_UINT || c == PTX_TC_SINT) {
        static const ptx_type u[] = {PTX_T_NONE, PTX_T_U8, PTX_T_U16, PTX_T_U32, PTX_T_U64};
        static const ptx_type s[] = {PTX_T_NONE, PTX_T_S8, PTX_T_S16, PTX_T_S32, PTX_T_S64};
        int k = bits == 8 ? 1 : bits == 16 ? 2 : bits == 32 ? 3 : bits == 64 ? 4 : 0;
        if (k) ADD(c == PTX_TC_UINT ? s[k] : u[k], 1);
    }
    if (relaxed && bits < 64) ADD(bit_type(bits * 2 < 16 ? 16 : bits * 2), 1);
    if (c == PTX_TC_BIT) ADD(bits == 16 ? PTX_T_F16 : bits == 32 ? PTX_T_F32 : PTX_T_F64, 1);   /* floats in .bN slots */
#undef ADD
    if (!n) return rf_of(PTX_T_B32);
    int x = dp_below(&b->r, tot);
    for (int i = 0; i < n; i++) {
        if (x < w[i]) return cand[i];
        x -= w[i];
    }
    return cand[0];
}

/* ---- immediates ---- */
typedef enum { IMM_TYPICAL, IMM_EDGE, IMM_PAST } imm_mode;

/* A literal for v in one of the number forms, no suffix. */
static void put_lit(pb *b, pg_buf *o, int64_t v) {
    if (v >= 0 && dp_chance(&b->r, 0.3)) pg_buf_printf(o, "0x%llx", (unsigned long long)v);
    else pg_buf_printf(o, "%lld", (long long)v);
}

/* An integer constant expression whose value is v in 64-bit arithmetic, as ptxas folds it
 * (C's operators and precedence, (.s64)/(.u64) casts): (7), 3+4, 2*4, (1<<3)-1, ~0, -(4),
 * 1?v:0, or a nest of them.  Sub-expressions are parenthesized, so precedence never
 * changes the value; the writer avoids overflow by keeping the rewrites to small |v|. */
static void put_cexpr(pb *b, pg_buf *o, int64_t v, int depth) {
    bool small = v > -((int64_t)1 << 40) && v < ((int64_t)1 << 40);
    int k = depth >= 2 ? 0 : dp_below(&b->r, 11);
    if (!small && k != 6 && k != 9) k = 0;
#define SUB(x) do { if (dp_chance(&b->r, 0.3)) { pg_buf_putc(o, '('); put_cexpr(b, o, (x), depth + 1); pg_buf_putc(o, ')'); } \
                    else put_lit(b, o, (x)); } while (0)
    switch (k) {
    case 0: pg_buf_putc(o, '('); put_lit(b, o, v); pg_buf_putc(o, ')'); return;
    case 1: { int64_t d = 1 + dp_below(&b->r, 16); SUB(v - d); pg_buf_putc(o, '+'); SUB(d); return; }
    case 2: { int64_t d = 1 + dp_below(&b->r, 16); SUB(v + d); pg_buf_putc(o, '-'); SUB(d); return; }
    case 3: {
        static const int64_t m[] = {2, 4, 8, 3};
        int64_t d = PICK(&b->r, m);
        if (v % d) d = 1;
        SUB(v / d); pg_buf_putc(o, '*'); SUB(d);
        return;
    }
    case 4: {   /* shifts: 1<<k, (1<<k)-1, v<<k>>k */
        int top = 0;
        while (top < 40 && ((int64_t)1 << top) < v) top++;
        if (v > 0 && ((int64_t)1 << top) == v) pg_buf_printf(o, "1<<%d", top);
        else if (v > 0 && ((int64_t)1 << top) == v + 1) pg_buf_printf(o, "(1<<%d)-1", top);
        else if (v >= 0) { pg_buf_putc(o, '('); SUB(v); pg_buf_puts(o, "<<2)>>2"); }
        else { pg_buf_putc(o, '('); put_lit(b, o, v); pg_buf_putc(o, ')'); }
        return;
    }
    case 5: pg_buf_putc(o, '~'); SUB(~v); return;
    case 6: pg_buf_printf(o, "(.%c64)", dp_chance(&b->r, 0.5) ? 's' : 'u'); put_lit(b, o, v); return;
    case 7: pg_buf_puts(o, "-("); put_cexpr(b, o, -v, depth + 1); pg_buf_putc(o, ')'); return;
    case 8: { int64_t d = 1 + dp_below(&b->r, 7); SUB(v * d); pg_buf_putc(o, '/'); SUB(d); return; }
    case 9:
        if (dp_chance(&b->r, 0.5)) { pg_buf_puts(o, "1?"); put_lit(b, o, v); pg_buf_puts(o, ":0"); }
        else { pg_buf_puts(o, "0?0:"); put_lit(b, o, v); }
        return;
    default: { int64_t m = dp_below(&b->r, 256); SUB(v & ~m); pg_buf_putc(o, '|'); SUB(v & m); return; }
    }
#undef SUB
}

/* A float constant expression for an initializer (seeds >= DP_FX_SEED): mostly what ptxas folds
 * (1.0+2.0, -(0f3F800000), 0d3FF0000000000000*2.5, 1.0<2.0), sometimes what it refuses (an integer
 * beside a float, % << & ~ ! ?: or a cast over floats, a division by zero, a bare 0f operand,
 * a literal past a normal double). */
static void put_fexpr(pb *b, pg_buf *o, int depth) {
    static const char *const lits[] = {"1.0", "2.5", "1e38", "0.5", "1.", ".5", "3.0e2", "1e308", "0.1", "4.0",
                                       "0d3FF0000000000000", "(0f3F800000)", "(0f40000000)",
                                       "0.0", "0d0000000000000000", "0d8000000000000000", "1e-310", "0f3F800000", "1", "0"};
    static const char *const ops[] = {"+", "-", "*", "/", "+", "*", "-", "/", "<", "==", "!=", ">=", "%", "<<", "&", "&&"};
    int k = depth >= 2 ? 0 : dp_below(&b->r, 12);
    if ((k == 9 || k == 11) && dp_chance(&b->r, 0.7)) k = 8;   /* ?: and a division by a difference: rarer */
    switch (k) {
    case 0: case 1: case 2: {
        int n = (int)(sizeof lits / sizeof *lits);
        pg_buf_puts(o, lits[dp_chance(&b->r, 0.92) ? dp_below(&b->r, n - 7) : dp_below(&b->r, n)]);   /* zeros and the refused ones rarer */
        return;
    }
    case 3: case 4: case 5: case 6:
        put_fexpr(b, o, depth + 1);
        pg_buf_printf(o, " %s ", dp_chance(&b->r, 0.85) ? PICK(&b->r, ((const char *[]){"+", "-", "*", "/"})) : PICK(&b->r, ops));
        put_fexpr(b, o, depth + 1);
        return;
    case 7: pg_buf_puts(o, dp_chance(&b->r, 0.8) ? "-(" : PICK(&b->r, ((const char *[]){"+(", "~(", "!(", "(.u64)("}))); break;
    case 8: pg_buf_putc(o, '('); break;
    case 9: pg_buf_puts(o, "1 ? "); put_fexpr(b, o, depth + 1); pg_buf_puts(o, " : "); put_fexpr(b, o, depth + 1); return;
    default: pg_buf_puts(o, "1.0 / ("); put_fexpr(b, o, depth + 1); pg_buf_puts(o, " - "); put_fexpr(b, o, depth + 1); break;
    }
    if (k != 10 && k != 11) put_fexpr(b, o, depth + 1);
    pg_buf_putc(o, ')');
}

static void put_int(pb *b, pg_buf *o, int64_t v, bool allow_u) {
    if (b->cx && dp_chance(&b->r, 0.3)) { put_cexpr(b, o, v, 0); return; }
    int f = dp_below(&b->r, 20);
    if (v < 0 || f < 12) pg_buf_printf(o, "%lld", (long long)v);
    else if (f < 16) pg_buf_printf(o, "0x%llx", (unsigned long long)v);
    else if (f < 17 && v > 0) pg_buf_printf(o, "0%llo", (unsigned long long)v);
    else if (f < 18 && v >= 0 && v < 65536) {
        pg_buf_puts(o, "0b");
        int top = 0;
        while (top < 62 && (v >> (top + 1))) top++;
        for (int k = top; k >= 0; k--) pg_buf_putc(o, (char)('0' + ((v >> k) & 1)));
    } else pg_buf_printf(o, "%lld", (long long)v);
    if (allow_u && v >= 0 && dp_chance(&b->r, 0.08)) pg_buf_putc(o, 'U');
}

static void put_imm(pb *b, pg_buf *o, ptx_type want, imm_mode mode) {
    ptx_type_class c = want == PTX_T_NONE ? PTX_TC_BIT : cls_of(want);
    int bits = want == PTX_T_NONE ? 32 : bits_of(want);
    if (c == PTX_TC_FLOAT && dp_chance(&b->r, mode == IMM_PAST ? 0.5 : 0.97)) {
        static const char *f32[] = {"0f3F800000", "0f00000000", "0f40490FDB", "0fBF800000", "0f7F800000", "0f7FC00000",
                                    "0f00000001", "0f7F7FFFFF", "1.0", "0.5", "-2.25", "1e3", "3.0e-2"};
        static const char *f64[] = {"0d3FF0000000000000", "0d0000000000000000", "0d400921FB54442D18", "0dBFF0000000000000",
                                    "0d7FF0000000000000", "1.0", "2.5", "-0.125"};
        if (mode == IMM_PAST) pg_buf_puts(o, bits == 64 ? PICK(&b->r, f32) : PICK(&b->r, f64));
        else if (bits == 64) pg_buf_puts(o, PICK(&b->r, f64));
        else pg_buf_puts(o, PICK(&b->r, f32));
        return;
    }
    if (c == PTX_TC_PRED) {
        pg_buf_puts(o, dp_chance(&b->r, 0.5) ? "1" : "0");
        return;
    }
    if (bits > 64) bits = 64;
    if (bits < 1) bits = 32;
    bool sgn = c == PTX_TC_SINT;
    int64_t smax = bits >= 64 ? INT64_MAX : ((int64_t)1 << (bits - 1)) - 1;
    int64_t smin = -smax - 1;
    uint64_t umax = bits >= 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
    switch (mode) {
    case IMM_TYPICAL: {
        static const int small[] = {0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 100, 127, 255};
        int64_t v = PICK(&b->r, small);
        if (v > smax && !sgn && (uint64_t)v > umax) v = 1;
        if (v > smax && sgn) v = 1;
        if (sgn && dp_chance(&b->r, 0.2)) v = -v;
        put_int(b, o, v, true);
        return;
    }
    case IMM_EDGE: {
        int k = dp_below(&b->r, 4);
        if (k == 0) put_int(b, o, sgn ? smin : (bits >= 64 ? smin : smin), false);
        else if (k == 1 && !sgn) {
            if (umax > (uint64_t)INT64_MAX) pg_buf_printf(o, "%lluU", (unsigned long long)umax);
            else put_int(b, o, (int64_t)umax, true);
        } else if (k == 2) put_int(b, o, smax, true);
        else put_int(b, o, -1, false);
        return;
    }
    case IMM_PAST: {
        int k = dp_below(&b->r, 5);
        if (bits >= 64) {
            static const char *big[] = {"18446744073709551616", "-9223372036854775809", "0x10000000000000000", "99999999999999999999"};
            pg_buf_puts(o, PICK(&b->r, big));
            return;
        }
        if (k == 0) put_int(b, o, (int64_t)umax + 1, true);
        else if (k == 1) put_int(b, o, smin - 1, false);
        else if (k == 2) put_int(b, o, smax + 1, true);
        else if (k == 3) put_int(b, o, (int64_t)1 << (bits < 62 ? bits + 1 : 62), true);
        else pg_buf_puts(o, "0x1F");
        return;
    }
    }
}

/* ---- addresses ---- */
static int space_of_text(const char *m) {
    if (!strncmp(m, ".global", 7) && (m[7] == 0 || m[7] == ':')) return PTX_SS_GLOBAL;
    if (!strncmp(m, ".shared", 7) && (m[7] == 0 || m[7] == ':')) return PTX_SS_SHARED;
    if (!strncmp(m, ".local", 6) && m[6] == 0) return PTX_SS_LOCAL;
    if (!strncmp(m, ".param", 6) && (m[6] == 0 || m[6] == ':')) return PTX_SS_PARAM;
    if (!strcmp(m, ".const")) return PTX_SS_CONST;
    return PTX_SS_NONE;
}

static void put_offset(pb *b, pg_buf *o) {
    if (b->cx && dp_chance(&b->r, 0.3)) {   /* [a+4*2], [a+(1<<4)], [a+-(4)], [a-2*2] */
        static const int64_t v[] = {4, 8, 16, 32, 1, 2, 128, 0, -4, -8};
        pg_buf_putc(o, dp_chance(&b->r, 0.95) ? '+' : '-');
        put_cexpr(b, o, PICK(&b->r, v), 0);
        return;
    }
    static const char *offs[] = {"", "", "", "+4", "+8", "+16", "+32", "+1", "+2", "-4", "+0x10", "+128"};
    pg_buf_puts(o, PICK(&b->r, offs));
}

static void put_var(pb *b, pg_buf *o, int space, const char *opcode) {
    switch (space) {
    case PTX_SS_GLOBAL: pg_buf_puts(o, dp_chance(&b->r, 0.6) ? "gb" : dp_chance(&b->r, 0.5) ? "gu32" : "gu64"); return;
    case PTX_SS_SHARED:
        if ((strstr(opcode, "mbarrier") || dp_chance(&b->r, 0.15))) { b->mbar = true; pg_buf_puts(o, "mbar"); return; }
        b->sh = true;
        pg_buf_puts(o, "sh");
        return;
    case PTX_SS_LOCAL: b->lo = true; pg_buf_puts(o, "lo"); return;
    case PTX_SS_CONST: pg_buf_puts(o, dp_chance(&b->r, 0.7) ? "cb" : "cu32"); return;
    case PTX_SS_PARAM: {
        static const char *p[] = {"pa", "pn", "pf", "pb"};
        pg_buf_puts(o, PICK(&b->r, p));
        return;
    }
    default: {
        int k = dp_below(&b->r, 3);
        if (k == 2) { b->sh = true; pg_buf_puts(o, "sh"); }
        else pg_buf_puts(o, k ? "gb" : "gu32");
        return;
    }
    }
}

/* [base+off] for a state space; welltyped=false: a base of the wrong kind. */
static void put_addr(pb *b, pg_buf *o, int space, const char *opcode, bool welltyped) {
    pg_buf_putc(o, '[');
    int k = dp_below(&b->r, 10);
    if (!welltyped) {
        static const ptx_type bad[] = {PTX_T_F32, PTX_T_PRED, PTX_T_B16, PTX_T_F64, PTX_T_U32, PTX_T_B128};
        int w = dp_below(&b->r, 5);
        if (w == 0) put_reg(b, o, rf_of(PICK(&b->r, bad)), dp_below(&b->r, NREG));
        else if (w == 1) {   /* a variable of another state space */
            static const int sps[] = {PTX_SS_GLOBAL, PTX_SS_SHARED, PTX_SS_LOCAL, PTX_SS_CONST, PTX_SS_PARAM};
            int other = PICK(&b->r, sps);
            put_var(b, o, other == space ? PTX_SS_LOCAL : other, opcode);
        }
        else if (w == 2) pg_buf_puts(o, dp_chance(&b->r, 0.5) ? "nosuchvar" : "fnv");
        else if (w == 3) pg_buf_printf(o, "%d", dp_below(&b->r, 2) ? 256 : 3);
        else put_var(b, o, PTX_SS_PARAM, opcode);
        pg_buf_putc(o, ']');
        return;
    }
    bool reg = space == PTX_SS_PARAM ? k < 1 : k < 5;
    if (reg) {
        bool narrow = (space == PTX_SS_SHARED || space == PTX_SS_LOCAL) && dp_chance(&b->r, 0.4);
        static const ptx_type w64[] = {PTX_T_B64, PTX_T_U64, PTX_T_S64};
        static const ptx_type w32[] = {PTX_T_B32, PTX_T_U32, PTX_T_S32};
        put_reg(b, o, rf_of(narrow ? PICK(&b->r, w32) : PICK(&b->r, w64)), dp_below(&b->r, NREG));
    } else if (k == 9 && space != PTX_SS_PARAM) {
        int64_t a = dp_below(&b->r, 2) ? 0 : 64;
        if (b->cx && dp_chance(&b->r, 0.5)) put_cexpr(b, o, a, 0);   /* [8*8], [(64)] */
        else pg_buf_printf(o, "%d", (int)a);
        pg_buf_putc(o, ']');
        return;
    } else if (b->cx && dp_chance(&b->r, 0.15)) {   /* the array-index form: sh[2*3], gb[(1<<2)] */
        o->len--;   /* the '[' */
        o->data[o->len] = 0;
        put_var(b, o, space, opcode);
        static const int64_t ix[] = {0, 1, 2, 4, 6, 8, 16};
        pg_buf_putc(o, '[');
        put_cexpr(b, o, PICK(&b->r, ix), 0);
        pg_buf_putc(o, ']');
        return;
    } else {
        put_var(b, o, space, opcode);
    }
    put_offset(b, o);
    pg_buf_putc(o, ']');
}

/* ---- special registers ---- */
static void put_sreg(pb *b, pg_buf *o) {
    const isa_sreg *s = isa_sreg_get(dp_below(&b->r, isa_sreg_count()));
    pg_buf_puts(o, s->name);
    if (s->vector) pg_buf_printf(o, ".%c", "xyzw"[dp_below(&b->r, dp_chance(&b->r, 0.95) ? 3 : 4)]);
    else if (dp_chance(&b->r, 0.03)) pg_buf_puts(o, ".x");
}

/* ---- one instruction from a form ------------------------------------------------ */
typedef struct {
    const isa_form *f;
    const char *mods[ISA_MAX_MODSLOTS + 4];
    int nmods;
    const char *bind[ISA_NVARS];
    int space[4]; int nspace;    /* state spaces named by the modifiers, in order */
} insn_plan;

static void plan_mods(pb *b, const isa_form *f, insn_plan *p) {
    memset(p, 0, sizeof *p);
    p->f = f;
    for (int k = 0; k < f->nmods; k++) {
        const isa_modslot *s = &f->mods[k];
        if (s->optional && !dp_chance(&b->r, 0.35)) continue;
        const char *a = s->alts[dp_below(&b->r, s->nalts)];
        p->mods[p->nmods++] = a;
        if (s->var >= 0) p->bind[s->var] = a;
    }
}

static void plan_spaces(insn_plan *p) {
    p->nspace = 0;
    for (int i = 0; i < p->nmods && p->nspace < 4; i++) {
        int s = space_of_text(p->mods[i]);
        if (s != PTX_SS_NONE) p->space[p->nspace++] = s;
    }
}

static ptx_type bound_type(const insn_plan *p, int var) {
    const char *t = var >= 0 ? p->bind[var] : NULL;
    return t ? ptx_type_lookup(t, strlen(t)) : PTX_T_NONE;
}

static ptx_type slot_type(const insn_plan *p, const isa_opslot *s) {
    if (s->any_type) return PTX_T_NONE;
    if (s->type_var >= 0) {
        ptx_type t = bound_type(p, s->type_var);
        if (s->type_wide && t != PTX_T_NONE) {
            for (int k = 1; k < PTX_T__COUNT; k++)
                if (cls_of((ptx_type)k) == cls_of(t) && bits_of((ptx_type)k) == 2 * bits_of(t) && ptx_type_get((ptx_type)k)->reg_ok)
                    return (ptx_type)k;
        }
        return t;
    }
    return s->type;
}

static int slot_arity(pb *b, const insn_plan *p, const isa_opslot *s, ptx_type want) {
    if (s->arity_var >= 0) {
        const char *v = p->bind[s->arity_var];
        return v && v[1] == 'v' ? atoi(v + 2) : 1;
    }
    if (s->arity > 0) return s->arity;
    if (s->arity < 0) {   /* mov pack/unpack: elements that fill the scalar */
        int bits = want == PTX_T_NONE ? 32 : bits_of(want);
        return bits >= 64 && dp_chance(&b->r, 0.3) ? 4 : 2;
    }
    if (s->arity_pow2) { static const int a[] = {1, 2, 4, 4, 8}; return PICK(&b->r, a); }
    return 1 + dp_below(&b->r, 16);
}

/* How a texture/surface operand names its handle and coordinates. */
static bool texture_opcode(const char *op) {
    return !strcmp(op, "tex") || !strcmp(op, "tld4") || !strcmp(op, "suld") || !strcmp(op, "sust") || !strcmp(op, "sured") ||
           !strcmp(op, "txq") || !strcmp(op, "suq");
}

static void put_tex_addr(pb *b, pg_buf *o, const insn_plan *p) {
    const char *op = p->f->opcode;
    bool surf = op[0] == 's';
    pg_buf_printf(o, "[%s", surf ? "gsurf" : "gtex");
    if (!strcmp(op, "txq") || !strcmp(op, "suq")) { pg_buf_putc(o, ']'); return; }
    /* coordinates: a vector of 1, 2 or 4 (geometry from the modifiers) */
    int n = 2;
    for (int i = 0; i < p->nmods; i++) {
        const char *m = p->mods[i];
        if (!strcmp(m, ".1d")) n = 1;
        else if (!strcmp(m, ".2d") || !strcmp(m, ".a1d")) n = 2;
        else if (!strcmp(m, ".3d") || !strcmp(m, ".a2d") || !strcmp(m, ".cube") || !strcmp(m, ".acube") ||
                 !strcmp(m, ".2dms") || !strcmp(m, ".a2dms")) n = 4;
    }
    if (dp_chance(&b->r, 0.1)) n = 1 + dp_below(&b->r, 4);
    const char *C = p->bind['C' - 'A'];
    int rf = rf_of(surf ? PTX_T_S32 : (C && !strcmp(C, ".f32") ? PTX_T_F32 : PTX_T_S32));
    pg_buf_puts(o, ", ");
    if (n == 1 && dp_chance(&b->r, 0.5)) {
        put_reg(b, o, rf, 0);
    } else {
        pg_buf_putc(o, '{');
        for (int i = 0; i < n; i++) {
            if (i) pg_buf_puts(o, ", ");
            put_reg(b, o, rf, i);
        }
        pg_buf_putc(o, '}');
    }
    pg_buf_putc(o, ']');
}

/* A vector {r, r, ...} of n registers of one file. */
static void put_vec(pb *b, pg_buf *o, int rf, int n, bool sinks) {
    pg_buf_putc(o, '{');
    int base = dp_below(&b->r, NREG);
    for (int i = 0; i < n; i++) {
        if (i) pg_buf_puts(o, ", ");
        if (sinks && dp_chance(&b->r, 0.1)) pg_buf_putc(o, '_');
        else put_reg(b, o, rf, (base + i) % NREG);
    }
    pg_buf_putc(o, '}');
}

typedef enum { OK_REG, OK_IMM, OK_ADDR, OK_LABEL, OK_FUNC, OK_SYM, OK_SINK, OK_SREG, OK_PAIR, OK__N } opkind;

/* A well-typed operand for slot s (operand index opi). */
static void put_operand(pb *b, pg_buf *o, const insn_plan *p, const isa_opslot *s, int opi) {
    const char *opcode = p->f->opcode;
    int space = p->nspace == 0 ? PTX_SS_NONE : p->nspace == 1 ? p->space[0] : opi < p->nspace ? p->space[opi] : PTX_SS_SHARED;
    if (s->kinds & ISA_OK_ANY) {
        if ((s->kinds & ISA_OK_ADDR) || (texture_opcode(opcode) && opi <= 1 && !(s->kinds & ISA_OK_REG))) {
            if (texture_opcode(opcode)) put_tex_addr(b, o, p);
            else put_addr(b, o, space, opcode, true);
            return;
        }
        int k = dp_below(&b->r, 4);
        if (k == 0) put_imm(b, o, PTX_T_U32, IMM_TYPICAL);
        else if (k == 1) put_vec(b, o, rf_of(dp_chance(&b->r, 0.5) ? PTX_T_B32 : PTX_T_F32), 1 << dp_below(&b->r, 3), false);
        else put_reg(b, o, rf_of(dp_chance(&b->r, 0.5) ? PTX_T_B32 : PTX_T_B64), dp_below(&b->r, NREG));
        return;
    }
    ptx_type want = slot_type(p, s);
    int arity = slot_arity(b, p, s, want);
    static const int weight[OK__N] = {10, 4, 10, 10, 10, 4, 1, 3, 2};
    int choices[OK__N], nc = 0, tot = 0;
    unsigned k = s->kinds;
    bool allow[OK__N] = {
        (k & ISA_OK_REG) != 0, (k & ISA_OK_IMM) && arity == 1, (k & ISA_OK_ADDR) != 0, (k & ISA_OK_LABEL) != 0,
        (k & ISA_OK_FUNC) != 0, (k & ISA_OK_SYM) != 0, (k & ISA_OK_SINK) != 0, (k & ISA_OK_SPECIAL) && arity == 1,
        (k & ISA_OK_PAIR) && arity == 1,
    };
    for (int i = 0; i < OK__N; i++)
        if (allow[i]) { choices[nc++] = i; tot += weight[i]; }
    if (!nc) { put_reg(b, o, rf_of(PTX_T_B32), 0); return; }
    int x = dp_below(&b->r, tot), pick = choices[0];
    for (int i = 0; i < nc; i++) {
        if (x < weight[choices[i]]) { pick = choices[i]; break; }
        x -= weight[choices[i]];
    }
    switch ((opkind)pick) {
    case OK_REG: {
        if (arity != 1 || s->vec1) {
            ptx_type et = want;
            if (s->arity < 0) {   /* mov pack/unpack: the elements fill the scalar of type T */
                ptx_type T = want != PTX_T_NONE ? want : bound_type(p, 'T' - 'A');
                if (T != PTX_T_NONE) et = bit_type(bits_of(T) / arity);
            }
            put_vec(b, o, pick_rf(b, et, s->relaxed, true), arity, (k & ISA_OK_VSINK) != 0);
            return;
        }
        if (texture_opcode(opcode) && want == PTX_T_NONE && opi == 0) {   /* tex results: a 4-vector */
            put_vec(b, o, rf_of(PTX_T_F32), 4, false);
            return;
        }
        int rf = pick_rf(b, want, s->relaxed, true);
        if ((k & ISA_OK_NEG) && RF[rf].t == PTX_T_PRED && dp_chance(&b->r, 0.3)) pg_buf_putc(o, '!');
        put_reg(b, o, rf, dp_below(&b->r, NREG));
        return;
    }
    case OK_IMM: put_imm(b, o, want, dp_chance(&b->r, 0.85) ? IMM_TYPICAL : IMM_EDGE); return;
    case OK_ADDR:
        if (texture_opcode(opcode)) put_tex_addr(b, o, p);
        else put_addr(b, o, space, opcode, true);
        return;
    case OK_LABEL:
        if (k & ISA_OK_TABLE) {   /* brx.idx: a .branchtargets table of two labels */
            int t = b->tables++;
            pg_buf_printf(&b->decl, "$T%d: .branchtargets $L%d, $L%d;\n", t, b->labels, b->labels + 1);
            b->labels += 2;
            pg_buf_printf(o, "$T%d", t);
            return;
        }
        pg_buf_printf(o, "$L%d", b->labels++);
        return;
    case OK_FUNC: pg_buf_puts(o, dp_chance(&b->r, 0.5) ? "fnv" : "fnr"); return;
    case OK_SYM:
        put_var(b, o, space == PTX_SS_NONE ? (dp_chance(&b->r, 0.5) ? PTX_SS_GLOBAL : PTX_SS_SHARED) : space, opcode);
        if (b->cx && dp_chance(&b->r, 0.25)) { pg_buf_putc(o, '+'); put_cexpr(b, o, 4 * dp_below(&b->r, 5), 0); }   /* gb+2*4 */
        return;
    case OK_SINK: pg_buf_putc(o, '_'); return;
    case OK_SREG: put_sreg(b, o); return;
    case OK_PAIR:
        put_reg(b, o, pick_rf(b, want, false, true), dp_below(&b->r, NREG));
        pg_buf_putc(o, '|');
        put_reg(b, o, rf_of(PTX_T_PRED), dp_below(&b->r, NREG));
        return;
    default: return;
    }
}

/* A broken operand: the mutation of DP_OPMUT. */
static void put_bad_operand(pb *b, pg_buf *o, const insn_plan *p, const isa_opslot *s, int opi) {
    ptx_type want = slot_type(p, s);
    int space = p->nspace == 1 ? p->space[0] : p->nspace > 1 && opi < p->nspace ? p->space[opi] : PTX_SS_NONE;
    int arity = (s->kinds & ISA_OK_ANY) ? 1 : slot_arity(b, p, s, want);
    switch (dp_below(&b->r, 12)) {
    case 0: case 1:   /* a register of another type */
        if (arity > 1) put_vec(b, o, pick_rf(b, want, false, false), arity, false);
        else put_reg(b, o, pick_rf(b, want, false, false), dp_below(&b->r, NREG));
        return;
    case 2:           /* an immediate at or past the type's range, or of the other kind */
        put_imm(b, o, dp_chance(&b->r, 0.3) ? (want == PTX_T_F32 ? PTX_T_U32 : PTX_T_F32) : want,
                dp_chance(&b->r, 0.5) ? IMM_PAST : IMM_EDGE);
        return;
    case 3: {         /* the wrong vector arity */
        static const int ar[] = {1, 2, 3, 4, 8, 16};
        int n = PICK(&b->r, ar);
        if (n == arity) n = arity == 1 ? 2 : arity / 2;
        if (n == 1) put_reg(b, o, pick_rf(b, want, s->relaxed, true), 0);
        else put_vec(b, o, pick_rf(b, want, s->relaxed, true), n, false);
        return;
    }
    case 4:           /* undeclared or out of its declaration's range */
        if (dp_chance(&b->r, 0.5)) pg_buf_printf(o, "%%zz%d", dp_below(&b->r, 4));
        else put_reg(b, o, pick_rf(b, want, s->relaxed, true), NREG + dp_below(&b->r, 3) * 50);
        return;
    case 5: put_sreg(b, o); return;
    case 6: put_addr(b, o, space, p->f->opcode, dp_chance(&b->r, 0.3)); return;
    case 7: pg_buf_putc(o, '_'); return;
    case 8:
        if (dp_chance(&b->r, 0.5)) pg_buf_putc(o, '!');
        put_reg(b, o, rf_of(PTX_T_PRED), dp_below(&b->r, NREG));
        if (dp_chance(&b->r, 0.3)) { pg_buf_putc(o, '|'); put_reg(b, o, rf_of(PTX_T_PRED), 1); }
        return;
    case 9: {
        static const char *names[] = {"$L0", "fnv", "gb", "sh", "pa", "nosuch", "WARP_SZ", "$Lnone"};
        const char *nm = PICK(&b->r, names);
        if (!strcmp(nm, "$L0")) b->labels = b->labels ? b->labels : 1;
        if (!strcmp(nm, "sh")) b->sh = true;
        pg_buf_puts(o, nm);
        return;
    }
    case 10:          /* a well-typed register where the slot wants something else */
        put_reg(b, o, pick_rf(b, want, s->relaxed, true), dp_below(&b->r, NREG));
        return;
    default:          /* an immediate where a register is wanted, and the reverse */
        if (s->kinds & ISA_OK_IMM) put_reg(b, o, pick_rf(b, want, false, true), 1);
        else put_imm(b, o, want, IMM_TYPICAL);
        return;
    }
}

typedef enum { MODE_WELL, MODE_MODMUT, MODE_OPMUT } insn_mode;

/* Modifier mutations: drop, repeat, reorder, replace by a modifier of another
 * form of the opcode or of the whole table, insert one. */
static void mutate_mods(pb *b, insn_plan *p) {
    const char *opcode = p->f->opcode;
    int nf;
    const isa_form *const *fs = isa_forms_for(opcode, strlen(opcode), &nf);
    /* a modifier of some form of this opcode */
    const char *own = NULL;
    for (int tries = 0; tries < 8 && !own && nf; tries++) {
        const isa_form *g = fs[dp_below(&b->r, nf)];
        if (!g->nmods) continue;
        const isa_modslot *s = &g->mods[dp_below(&b->r, g->nmods)];
        own = s->alts[dp_below(&b->r, s->nalts)];
    }
    static const char *types[] = {".b8", ".b16", ".b32", ".b64", ".b128", ".u8", ".u16", ".u32", ".u64", ".s8", ".s16",
                                  ".s32", ".s64", ".f16", ".f16x2", ".bf16", ".bf16x2", ".tf32", ".f32", ".f64", ".pred",
                                  ".e4m3", ".e5m2", ".u16x2", ".s16x2", ".f32x2"};
    int n = p->nmods;
    int kind = dp_below(&b->r, 8);
    if (n == 0 && kind < 4) kind = 5;
    int i = n ? dp_below(&b->r, n) : 0;
    switch (kind) {
    case 0:   /* drop */
        memmove(&p->mods[i], &p->mods[i + 1], sizeof(char *) * (size_t)(n - i - 1));
        p->nmods--;
        break;
    case 1:   /* repeat */
        if (n >= ISA_MAX_MODSLOTS + 3) break;
        memmove(&p->mods[i + 1], &p->mods[i], sizeof(char *) * (size_t)(n - i));
        p->nmods++;
        break;
    case 2: { /* swap two */
        int j = dp_below(&b->r, n);
        const char *t = p->mods[i];
        p->mods[i] = p->mods[j];
        p->mods[j] = t;
        break;
    }
    case 3:   /* replace by another type */
        p->mods[i] = PICK(&b->r, types);
        break;
    case 4:   /* replace by a modifier of the opcode */
        if (own) p->mods[i] = own;
        break;
    case 5: case 6: { /* insert one of the opcode's, or any of the table's */
        if (n >= ISA_MAX_MODSLOTS + 3) break;
        const char *m = kind == 5 && own ? own : NULL;
        if (!m) {
            uint16_t id = 0;
            for (int t = 0; t < 8 && !m; t++) m = isa_modifier_text((uint16_t)(1 + dp_below(&b->r, 1500)));
            (void)id;
            if (!m) m = ".ftz";
        }
        int at = dp_below(&b->r, n + 1);
        memmove(&p->mods[at + 1], &p->mods[at], sizeof(char *) * (size_t)(n - at));
        p->mods[at] = m;
        p->nmods++;
        break;
    }
    default:  /* move one to another place */
        if (n >= 2) {
            const char *m = p->mods[i];
            memmove(&p->mods[i], &p->mods[i + 1], sizeof(char *) * (size_t)(n - i - 1));
            int at = dp_below(&b->r, n);
            memmove(&p->mods[at + 1], &p->mods[at], sizeof(char *) * (size_t)(n - 1 - at));
            p->mods[at] = m;
        }
        break;
    }
    /* operands follow the form the mutated modifiers select, when one does */
    for (int f = 0; f < nf; f++) {
        isa_match mt;
        if (!isa_match_form(fs[f], p->mods, p->nmods, &mt)) continue;
        p->f = fs[f];
        for (int v = 0; v < ISA_NVARS; v++) p->bind[v] = isa_bound_text(&mt, v);
        break;
    }
    plan_spaces(p);
}

/* The call sequence: arguments and results in .param variables of a block. */
static void put_call(pb *b, bool mutate) {
    pg_buf *o = &b->code;
    bool r = dp_chance(&b->r, 0.6);
    pg_buf_puts(o, "\t{\n");
    if (r) {
        pg_buf_puts(o, "\t.param .b32 cpa;\n\t.param .b32 cpr;\n\tst.param.b32 [cpa], ");
        put_reg(b, o, rf_of(PTX_T_B32), 0);
        pg_buf_puts(o, ";\n");
    }
    pg_buf_printf(o, "\tcall%s ", dp_chance(&b->r, 0.3) ? ".uni" : "");
    int k = mutate ? dp_below(&b->r, 5) : -1;
    if (r) {
        if (k == 0) pg_buf_puts(o, "fnr, (cpa);\n");
        else if (k == 1) pg_buf_puts(o, "(cpr), fnr;\n");
        else if (k == 2) pg_buf_puts(o, "(cpr), fnv, (cpa);\n");
        else if (k == 3) pg_buf_puts(o, "(cpr), fnr, (cpa, cpa);\n");
        else if (k == 4) pg_buf_puts(o, "(cpr), nofunc, (cpa);\n");
        else pg_buf_puts(o, "(cpr), fnr, (cpa);\n");
        pg_buf_puts(o, "\tld.param.b32 ");
        put_reg(b, o, rf_of(PTX_T_B32), 1);
        pg_buf_puts(o, ", [cpr];\n");
    } else {
        pg_buf_puts(o, k >= 0 ? "fnr;\n" : "fnv;\n");
    }
    pg_buf_puts(o, "\t}\n");
}

/* One instruction line from form f. */
static void put_insn(pb *b, const isa_form *f, insn_mode mode) {
    if (f->call_syntax) { put_call(b, mode != MODE_WELL); return; }
    insn_plan p;
    plan_mods(b, f, &p);
    plan_spaces(&p);
    if (mode == MODE_MODMUT) mutate_mods(b, &p);
    pg_buf *o = &b->code;
    pg_buf_putc(o, '\t');
    if (dp_chance(&b->r, 0.08)) {
        pg_buf_puts(o, dp_chance(&b->r, 0.5) ? "@!" : "@");
        put_reg(b, o, rf_of(mode == MODE_OPMUT && dp_chance(&b->r, 0.1) ? PTX_T_B32 : PTX_T_PRED), dp_below(&b->r, NREG));
        pg_buf_putc(o, ' ');
    }
    pg_buf_puts(o, p.f->opcode);
    for (int i = 0; i < p.nmods; i++) pg_buf_puts(o, p.mods[i]);
    /* operands: the required ones, optional ones sometimes (trailing only) */
    int n = p.f->nops_min;
    while (n < p.f->nops && dp_chance(&b->r, 0.4)) n++;
    int bad = -1, count_delta = 0;
    if (mode == MODE_OPMUT) {
        int k = dp_below(&b->r, 10);
        if (k == 0 && n > 0) count_delta = -1;
        else if (k == 1) count_delta = 1;
        else if (n > 0) bad = dp_below(&b->r, n);
        else count_delta = 1;
    }
    int total = n + count_delta;
    for (int i = 0; i < total; i++) {
        pg_buf_puts(o, i ? ", " : " ");
        const isa_opslot *s = i < p.f->nops ? &p.f->ops[i] : &p.f->ops[p.f->nops ? p.f->nops - 1 : 0];
        if (!p.f->nops) { put_reg(b, o, rf_of(PTX_T_B32), 0); continue; }
        if (i == bad || i >= n) put_bad_operand(b, o, &p, s, i);
        else put_operand(b, o, &p, s, i);
    }
    pg_buf_puts(o, ";\n");
}

/* ---- declarations ------------------------------------------------------------ */
static const char *const ALL_TYPES[] = {".pred", ".b1", ".b8", ".b16", ".b32", ".b64", ".b128", ".u8", ".u16", ".u32",
                                        ".u64", ".s8", ".s16", ".s32", ".s64", ".f16", ".f16x2", ".bf16", ".bf16x2",
                                        ".tf32", ".f32", ".f64", ".e4m3", ".u16x2", ".texref", ".f32x2"};

/* A use of a declared scalar register `name` of type text `ty`. */
static void use_reg(pb *b, const char *name, const char *ty) {
    pg_buf *o = &b->code;
    ptx_type t = ptx_type_lookup(ty, strlen(ty));
    if (t == PTX_T_PRED) {
        pg_buf_printf(o, "\tsetp.eq.u32 %s, ", name);
        put_reg(b, o, rf_of(PTX_T_U32), 0);
        pg_buf_puts(o, ", 0;\n");
        return;
    }
    int k = dp_below(&b->r, 3);
    if (k == 0 || t == PTX_T_NONE || !ptx_type_get(t)->reg_ok) {
        pg_buf_printf(o, "\tmov%s %s, ", ty, name);
        put_imm(b, o, t, IMM_TYPICAL);
        pg_buf_puts(o, ";\n");
    } else if (k == 1) {
        pg_buf_printf(o, "\tmov%s ", ty);
        put_reg(b, o, pick_rf(b, t, false, true), 1);
        pg_buf_printf(o, ", %s;\n", name);
    } else {
        pg_buf_printf(o, "\tmov%s %s, ", ty, name);
        put_reg(b, o, pick_rf(b, t, false, true), 2);
        pg_buf_puts(o, ";\n");
    }
}

static void gen_decl(pb *b) {
    dp_rng *r = &b->r;
    pg_buf *d = &b->decl, *o = &b->code;
    switch (dp_below(r, 10)) {
    case 0: case 1: {   /* a register: names, types, counts, vectors */
        static const char *names[] = {"%laneid", "%tid", "%ntid", "%clock", "%smid", "%warpid", "%r", "%x", "r", "_r", "$r",
                                      "%pm0", "%envreg1", "%globaltimer", "%ctaid", "%dynamic_smem_size", "%q_1", "%lanemask_eq",
                                      "%nsmid", "%gridid", "%clock64", "%aggr_smem_size", "x.y", "%tid.x", "%1", "%r1"};
        const char *ty = dp_chance(r, 0.6) ? PICK(r, ((const char *[]){".u32", ".b32", ".f32", ".u64", ".pred", ".s16"}))
                                           : PICK(r, ALL_TYPES);
        const char *nm = PICK(r, names);
        int form = dp_below(r, 6);
        if (form == 0) {    /* %name<N> */
            static const int cnt[] = {0, 1, 2, 8, 100, 65536, 100000};
            int c = PICK(r, cnt);
            pg_buf_printf(d, "\t.reg %s %s<%d>;\n", ty, nm, c);
            char use[64];
            snprintf(use, sizeof use, "%s%d", nm, c > 1 ? c - 1 : c);
            use_reg(b, use, ty);
        } else if (form == 1) { /* a vector register */
            static const char *v[] = {".v2", ".v4", ".v8", ".v3"};
            const char *vv = PICK(r, v);
            pg_buf_printf(d, "\t.reg %s %s %s;\n", vv, ty, nm);
            pg_buf_printf(o, "\tmov%s%s %s, {", vv, ty, nm);
            int n = vv[2] - '0';
            ptx_type t = ptx_type_lookup(ty, strlen(ty));
            int rf = pick_rf(b, t == PTX_T_NONE ? PTX_T_B32 : t, false, true);
            for (int i = 0; i < n; i++) { if (i) pg_buf_puts(o, ", "); put_reg(b, o, rf, i % NREG); }
            pg_buf_puts(o, "};\n");
        } else if (form == 2) { /* two names in one declaration, the second shadowing? */
            pg_buf_printf(d, "\t.reg %s %s, %s_b;\n", ty, nm, nm);
            use_reg(b, nm, ty);
        } else if (form == 3) { /* aligned register (not PTX) */
            pg_buf_printf(d, "\t.reg .align 8 %s %s;\n", ty, nm);
            use_reg(b, nm, ty);
        } else {
            pg_buf_printf(d, "\t.reg %s %s;\n", ty, nm);
            use_reg(b, nm, ty);
            if (dp_chance(r, 0.3)) {   /* a second use: as a source */
                ptx_type t = ptx_type_lookup(ty, strlen(ty));
                if (t != PTX_T_NONE && t != PTX_T_PRED && ptx_type_get(t)->reg_ok && cls_of(t) != PTX_TC_FLOAT) {
                    pg_buf_printf(o, "\tadd%s %s, %s, 1;\n", ty, nm, nm);
                }
            }
        }
        return;
    }
    case 2: case 3: {   /* a .shared/.local/.const/.global variable in the kernel or at module scope */
        static const char *spaces[] = {".shared", ".local", ".shared", ".local", ".global", ".const", ".param"};
        static const int aligns[] = {0, 0, 1, 2, 3, 4, 8, 16, 32, 64, 128, 256};
        static const long counts[] = {-1, 1, 4, 16, 1000, 0, 12288, 12289, 49152, 100000, 1 << 20};
        const char *sp = PICK(r, spaces);
        const char *ty = dp_chance(r, 0.6) ? PICK(r, ((const char *[]){".u32", ".b8", ".f32", ".u64", ".b64", ".f64"}))
                                           : PICK(r, ALL_TYPES);
        int al = PICK(r, aligns);
        long cnt = PICK(r, counts);
        bool module = dp_chance(r, 0.3);
        pg_buf *where = module ? &b->pre : d;
        char nm[40];
        snprintf(nm, sizeof nm, "%s_v", b->name);
        pg_buf_printf(where, "%s%s%s", module ? "" : "\t", module && dp_chance(r, 0.2) ? ".visible " : "", sp);
        if (al) pg_buf_printf(where, " .align %d", al);
        pg_buf_printf(where, " %s %s", ty, nm);
        if (cnt >= 0 && b->cx && dp_chance(r, 0.03)) { pg_buf_putc(where, '['); put_cexpr(b, where, cnt, 0); pg_buf_putc(where, ']'); }
        else if (cnt >= 0) pg_buf_printf(where, "[%ld]", cnt);
        else if (dp_chance(r, 0.3)) pg_buf_puts(where, "[]");
        if (b->fx && dp_chance(r, 0.4)) {   /* float constant expressions: = 1.0+2.0, {1.0*2.0, (0f3F800000), ...} */
            bool list = cnt > 0 && cnt < 100;
            pg_buf_puts(where, list ? " = {" : " = ");
            for (int i = 0; i < (list ? 1 + dp_below(r, 4) : 1); i++) {
                if (i) pg_buf_puts(where, ", ");
                put_fexpr(b, where, 0);
            }
            if (list) pg_buf_putc(where, '}');
        } else if (b->cx && dp_chance(r, 0.2) && dp_chance(r, 0.6)) {   /* initializers of constant expressions: {1+1, 2*3}, = 3+4 */
            bool list = cnt > 0 && cnt < 100;
            pg_buf_puts(where, list ? " = {" : " = ");
            for (int i = 0; i < (list ? 4 : 1); i++) {
                if (i) pg_buf_puts(where, ", ");
                put_cexpr(b, where, list ? i + 1 : 7, 0);
            }
            if (list) pg_buf_putc(where, '}');
        } else if (dp_chance(r, 0.2)) pg_buf_puts(where, cnt > 0 && cnt < 100 ? " = {1, 2, 3, 4}" : " = 7");
        pg_buf_puts(where, ";\n");
        /* a load of it */
        ptx_type t = ptx_type_lookup(ty, strlen(ty));
        if (t == PTX_T_NONE || !ptx_type_get(t)->reg_ok || t == PTX_T_PRED) t = PTX_T_U32;
        pg_buf_printf(o, "\tld%s%s ", sp, ptx_type_get(t)->name);
        put_reg(b, o, pick_rf(b, t, true, true), 0);
        pg_buf_printf(o, ", [%s", nm);
        if (dp_chance(r, 0.3)) pg_buf_printf(o, "+%d", PICK(r, ((const int[]){4, 8, 49148, 1 << 20})));
        pg_buf_puts(o, "];\n");
        return;
    }
    case 4: {           /* parameters */
        b->custom_params = true;
        static const char *pty[] = {".u64", ".u32", ".s32", ".f32", ".f64", ".b8", ".b16", ".u16", ".f16", ".pred",
                                    ".b128", ".bf16", ".s8", ".u8", ".f16x2", ".texref"};
        int np = 1 + dp_below(r, 4);
        char last[16] = ".u32";
        for (int i = 0; i < np; i++) {
            const char *ty = PICK(r, pty);
            snprintf(last, sizeof last, "%s", ty);
            int k = dp_below(r, 8);
            if (k == 0) pg_buf_printf(&b->params, "\t.param .align %d .b8 q%d[%d]", PICK(r, ((const int[]){1, 4, 8, 16, 3, 32})), i,
                                      PICK(r, ((const int[]){1, 8, 64, 4096, 4097, 32765})));
            else if (k == 1) pg_buf_printf(&b->params, "\t.param .u64 .ptr%s.align %d q%d",
                                           PICK(r, ((const char *[]){".global", ".shared", ".const", ".local", ""})),
                                           PICK(r, ((const int[]){1, 4, 16, 3})), i);
            else if (k == 2) pg_buf_printf(&b->params, "\t.param .v2 %s q%d", ty, i);
            else pg_buf_printf(&b->params, "\t.param %s q%d", ty, i);
            pg_buf_puts(&b->params, i + 1 < np ? ",\n" : "\n");
        }
        ptx_type t = ptx_type_lookup(last, strlen(last));
        if (t == PTX_T_NONE || !ptx_type_get(t)->reg_ok || t == PTX_T_PRED) t = PTX_T_U32;
        pg_buf_printf(o, "\tld.param%s ", ptx_type_get(t)->name);
        put_reg(b, o, pick_rf(b, t, true, true), 0);
        pg_buf_printf(o, ", [q%d];\n", np - 1);
        return;
    }
    case 5: {           /* performance directives */
        static const char *dirs[] = {".maxntid", ".reqntid", ".minnctapersm", ".maxnreg", ".maxnctapersm", ".noreturn",
                                     ".explicitcluster", ".reqnctapercluster", ".maxclusterrank", ".pragma \"nounroll\";"};
        static const int vals[] = {0, 1, 32, 64, 128, 255, 256, 1024, 1025, 2048, 65536};
        int nd = 1 + dp_below(r, 2);
        for (int i = 0; i < nd; i++) {
            const char *dd = PICK(r, dirs);
            pg_buf_puts(&b->perf, dd);
            if (dd[1] == 'p' || !strcmp(dd, ".noreturn") || !strcmp(dd, ".explicitcluster")) { pg_buf_putc(&b->perf, '\n'); continue; }
            int nv = (!strcmp(dd, ".maxntid") || !strcmp(dd, ".reqntid") || !strcmp(dd, ".reqnctapercluster")) ? 1 + dp_below(r, 3) : 1;
            if (dp_chance(r, 0.05)) nv = 4;
            for (int k = 0; k < nv; k++) pg_buf_printf(&b->perf, "%s%d", k ? ", " : " ", nv > 1 && k ? PICK(r, ((const int[]){1, 2, 4, 8})) : PICK(r, vals));
            pg_buf_putc(&b->perf, '\n');
        }
        if (dp_chance(r, 0.2)) pg_buf_puts(o, "\t.pragma \"nounroll\";\n");
        return;
    }
    case 6: {           /* labels: duplicates, odd names, branches out of blocks */
        static const char *names[] = {"L1", "$L_a", "_x", "add", "ret", "$", "L_1$", "%L1", "bra"};
        const char *nm = PICK(r, names);
        int k = dp_below(r, 4);
        if (k == 0) pg_buf_printf(o, "%s:\n%s:\n\tbra %s;\n", nm, nm, nm);
        else if (k == 1) pg_buf_printf(o, "\t{\n%s:\n\tbra.uni %s;\n\t}\n\tbra %s;\n", nm, nm, nm);
        else if (k == 2) pg_buf_printf(o, "\tbra %s;\n%s:\n", nm, nm);
        else pg_buf_printf(o, "\t@%%p1 bra %s;\n\tbra.uni %s;\n%s:\n", nm, nm, nm);
        if (k == 3) b->used |= 1u << rf_of(PTX_T_PRED);
        return;
    }
    case 7: {           /* nested scopes and shadowing */
        const char *ty = PICK(r, ((const char *[]){".u32", ".b64", ".f32"}));
        ptx_type t = ptx_type_lookup(ty, strlen(ty));
        int rf = rf_of(t);
        b->used |= 1u << rf;
        int k = dp_below(r, 4);
        if (k == 0) pg_buf_printf(o, "\t{\n\t.reg %s %s0;\n\tmov%s %s0, %s;\n\t}\n", ty, RF[rf].prefix, ty, RF[rf].prefix,
                                  t == PTX_T_F32 ? "0f3F800000" : "1");
        else if (k == 1) pg_buf_printf(o, "\t{\n\t.reg %s %%in;\n\t}\n\tmov%s %%in, %s;\n", ty, ty, t == PTX_T_F32 ? "0f3F800000" : "1");
        else if (k == 2) pg_buf_printf(d, "\t.reg %s %s<4>;\n", ty, RF[rf].prefix);
        else pg_buf_printf(o, "\t{\n\t{\n\t.reg .pred %%q;\n\tsetp.ne.u32 %%q, 1, 0;\n\t}\n\t}\n");
        return;
    }
    case 8: {           /* debug directives, .pragma, module-scope oddities */
        int k = dp_below(r, 5);
        if (b->fx && dp_chance(r, 0.5)) k = 4;   /* more module-scope initializers (float ones) from seed 9 */
        if (k == 0) { pg_buf_puts(&b->pre, ".file 1 \"a.cu\"\n"); pg_buf_puts(o, "\t.loc 1 10 0\n"); }
        else if (k == 1) pg_buf_puts(o, "\t.loc 1 10 0\n");
        else if (k == 2) pg_buf_printf(&b->pre, ".extern .shared .align 16 .b8 %s_dyn[];\n", b->name);
        else if (k == 3) pg_buf_printf(&b->pre, ".weak .global .align 4 .u32 %s_w;\n", b->name);
        else if (b->fx && dp_chance(r, 0.7)) {   /* float constant expressions at module scope, in the types that take them or not */
            const char *ty = PICK(r, ((const char *[]){".f32", ".f64", ".f32", ".f64", ".b32", ".b64", ".u32", ".s64", ".b16"}));
            pg_buf_printf(&b->pre, ".global .align 8 %s %s_f[2] = {", ty, b->name);
            put_fexpr(b, &b->pre, 0);
            pg_buf_puts(&b->pre, ", ");
            put_fexpr(b, &b->pre, 0);
            pg_buf_puts(&b->pre, "};\n");
        } else if (b->cx && dp_chance(r, 0.5)) {   /* initializers of constant expressions, the address ones too */
            static const char *vals[] = {"2*1", "gb+2*4", "generic(gb)+(1<<2)", "(.u64)2", "(.s64)-1", "(.u32)2", "8/0", "8%0",
                                         "7 % 2", "1?2:3", "(1<<32)-1", "gb+(4)", "gb-4", "~0", "2>1", "(2)+(gb)", "0f3F800000+1"};
            pg_buf_printf(&b->pre, ".global .align 4 .u32 %s_i[2] = {", b->name);
            put_cexpr(b, &b->pre, 1, 0);
            pg_buf_printf(&b->pre, ", %s};\n", PICK(r, vals));
        } else pg_buf_printf(&b->pre, ".global .align 4 .u32 %s_i[2] = {1, %s};\n", b->name,
                           PICK(r, ((const char *[]){"2", "gb", "0f3F800000", "-1", "4294967296"})));
        return;
    }
    default: {          /* the special registers as sources of every instruction that moves them */
        static const char *ty[] = {".u32", ".u64", ".b32", ".s32", ".u16", ".f32", ".pred", ".b64"};
        const char *t = PICK(r, ty);
        ptx_type tt = ptx_type_lookup(t, strlen(t));
        int k = dp_below(r, 4);
        if (k == 0) pg_buf_printf(o, "\tmov%s ", t);
        else if (k == 1) pg_buf_printf(o, "\tcvt.u64%s ", t);
        else if (k == 2) pg_buf_printf(o, "\tadd%s ", t);
        else pg_buf_printf(o, "\tst.global%s [gb], ", t);
        if (k != 3) { put_reg(b, o, pick_rf(b, k == 1 ? PTX_T_U64 : tt, false, true), 0); pg_buf_puts(o, ", "); }
        put_sreg(b, o);
        if (k == 2) pg_buf_puts(o, ", 1");
        pg_buf_puts(o, ";\n");
        return;
    }
    }
}

/* ---- sequences ---- */
static const char *const SEQ_OPS[] = {"mov", "ld", "st", "add", "sub", "mul", "mad", "fma", "div", "rem", "min", "max",
                                      "cvt", "setp", "selp", "and", "or", "xor", "shl", "shr", "bra", "atom", "shfl",
                                      "bar", "cvta", "abs", "neg", "rcp", "sqrt", "ex2", "lop3", "prmt", "popc", "clz"};

static const isa_form *random_form_of(dp_rng *r, const char *op) {
    int nf;
    const isa_form *const *fs = isa_forms_for(op, strlen(op), &nf);
    return nf ? fs[dp_below(r, nf)] : isa_form_get(0);
}

/* ---- programs ------------------------------------------------------------------- */
/* The category mix, by index modulo 20 (token mutants come from accepted programs,
 * see dp_gen_token_mutant). */
static dp_cat cat_of(uint64_t i) {
    static const dp_cat mix[20] = {DP_FORM, DP_MODMUT, DP_OPMUT, DP_FORM, DP_DECL, DP_FORM, DP_MODMUT, DP_OPMUT, DP_SEQ,
                                   DP_FORM, DP_FORM, DP_MODMUT, DP_OPMUT, DP_DECL, DP_FORM, DP_MODMUT, DP_OPMUT, DP_SEQ,
                                   DP_FORM, DP_DECL};
    return mix[i % 20];
}

/* --only: the forms of some opcodes, or one category ("declaration", "sequence") */
static int only_forms[2048], n_only_forms;
static int only_cat = -1;

bool dp_gen_set_only(const char *list) {
    isa_init(NULL);
    char buf[512];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *p = strtok(buf, ","); p; p = strtok(NULL, ",")) {
        bool found = false;
        for (int c = 0; c < DP__NCAT; c++)
            if (!strcmp(p, dp_cat_names[c])) { only_cat = c; found = true; }
        for (int i = 0; i < isa_form_count() && n_only_forms < 2048; i++)
            if (!strcmp(isa_form_get(i)->opcode, p)) { only_forms[n_only_forms++] = i; found = true; }
        if (!found) return false;
    }
    return true;
}

/* The form program `index` is about: round-robin over the table (or the --only forms). */
int dp_gen_form_of(uint64_t index) {
    uint64_t slot = index / 20 * 7 + (index % 20) * 13;
    if (n_only_forms) return only_forms[slot % (uint64_t)n_only_forms];
    return (int)(slot % (uint64_t)isa_form_count());
}

void dp_gen_program(uint64_t seed, uint64_t index, dp_prog *out) {
    isa_init(NULL);
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "k%llu", (unsigned long long)index);
    pb b;
    pb_init(&b, dp_rng_of(seed, index), out->name);
    b.cx = seed >= DP_CX_SEED;
    b.fx = seed >= DP_FX_SEED;
    out->cat = cat_of(index);
    if (only_cat >= 0) out->cat = (dp_cat)only_cat;
    else if (n_only_forms && out->cat != DP_FORM && out->cat != DP_MODMUT && out->cat != DP_OPMUT)
        out->cat = (dp_cat)(DP_FORM + index % 3);
    const isa_form *f = isa_form_get(dp_gen_form_of(index));
    switch (out->cat) {
    case DP_FORM:
    case DP_MODMUT:
    case DP_OPMUT:
        put_insn(&b, f, out->cat == DP_FORM ? MODE_WELL : out->cat == DP_MODMUT ? MODE_MODMUT : MODE_OPMUT);
        snprintf(out->what, sizeof out->what, "%s", f->opcode);
        break;
    case DP_SEQ: {
        int n = 2 + dp_below(&b.r, 5);
        for (int i = 0; i < n; i++) {
            const isa_form *g = n_only_forms ? isa_form_get(only_forms[dp_below(&b.r, n_only_forms)])
                                : dp_chance(&b.r, 0.8) ? random_form_of(&b.r, PICK(&b.r, SEQ_OPS))
                                                       : isa_form_get(dp_below(&b.r, isa_form_count()));
            put_insn(&b, g, MODE_WELL);
        }
        snprintf(out->what, sizeof out->what, "sequence");
        break;
    }
    case DP_DECL:
        gen_decl(&b);
        snprintf(out->what, sizeof out->what, "declaration");
        break;
    default:
        break;
    }
    out->text = pb_finish(&b);
    pb_free(&b);
}

/* ---- token mutants ---------------------------------------------------------------- */
typedef struct { int start, len; } tok;

static bool idch(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$'; }

static int tokenize(const char *s, tok *t, int max) {
    int n = 0;
    for (int i = 0; s[i] && n < max;) {
        char c = s[i];
        if (c == ' ' || c == '\t' || c == '\n') { i++; continue; }
        int j = i + 1;
        if (c == '"') { while (s[j] && s[j] != '"' && s[j] != '\n') j++; if (s[j] == '"') j++; }
        else if (c == '.' || c == '%' || idch(c)) {
            while (s[j] && (idch(s[j]) || (s[j] == ':' && s[j + 1] == ':') || (s[j - 1] == ':' && s[j] == ':') ||
                            (c == '.' && s[j] == '.' && 0)))
                j++;
        }
        t[n].start = i;
        t[n].len = j - i;
        n++;
        i = j;
    }
    return n;
}

bool dp_gen_token_mutant(uint64_t seed, uint64_t index, const dp_prog *parent, const char *name, dp_prog *out) {
    memset(out, 0, sizeof *out);
    dp_rng r = dp_rng_of(seed ^ 0x70CE7ull, index);
    const char *s = parent->text;
    enum { MAXT = 4096 };
    tok *t = malloc(sizeof(tok) * MAXT);
    int n = tokenize(s, t, MAXT);
    if (n < 4) { free(t); return false; }
    /* mutate inside the body: after the first '{' of the entry */
    const char *body = strstr(s, ".entry");
    int first = 0;
    while (first < n && (s + t[first].start < body || s[t[first].start] != '{')) first++;
    if (first >= n - 2) first = 0;
    int i = first + 1 + dp_below(&r, n - first - 2);
    pg_buf rep = {0};
    int kind = dp_below(&r, 8);
    int cut_from = t[i].start, cut_len = t[i].len;
    switch (kind) {
    case 0: break;                                              /* delete */
    case 1: pg_buf_putn(&rep, s + t[i].start, (size_t)t[i].len); pg_buf_putc(&rep, ' ');
            pg_buf_putn(&rep, s + t[i].start, (size_t)t[i].len); break;   /* duplicate */
    case 2: { /* swap with the next token */
        int j = i + 1 < n ? i + 1 : i - 1;
        int a = i < j ? i : j, c = i < j ? j : i;
        cut_from = t[a].start;
        cut_len = t[c].start + t[c].len - t[a].start;
        pg_buf_putn(&rep, s + t[c].start, (size_t)t[c].len);
        pg_buf_putn(&rep, s + t[a].start + t[a].len, (size_t)(t[c].start - t[a].start - t[a].len));
        pg_buf_putn(&rep, s + t[a].start, (size_t)t[a].len);
        break;
    }
    case 3: { /* another token of the program */
        int j = dp_below(&r, n);
        pg_buf_putn(&rep, s + t[j].start, (size_t)t[j].len);
        break;
    }
    case 4: { /* a number's value nudged */
        const char *nums[] = {"0", "1", "-1", "255", "256", "65535", "65536", "2147483647", "2147483648", "4294967295",
                              "4294967296", "0x7fffffff", "-2147483649", "31", "32", "1024", "0f3F800000", "0d3FF0000000000000"};
        /* a register count (%r<N>): ptxas allocates per declared register (%r<2147483647>
         * takes it 16 GB and half a minute), so counts stay at the small boundaries */
        int b = t[i].start;
        while (b > 0 && (s[b - 1] == ' ' || s[b - 1] == '\t')) b--;
        if (b > 0 && s[b - 1] == '<') {
            const char *counts[] = {"0", "1", "-1", "2", "255", "256", "0x10", "1.0"};
            pg_buf_puts(&rep, PICK(&r, counts));
        } else
            pg_buf_puts(&rep, PICK(&r, nums));
        break;
    }
    case 5: { /* a modifier or type from the table */
        const char *m = NULL;
        for (int k = 0; k < 8 && !m; k++) m = isa_modifier_text((uint16_t)(1 + dp_below(&r, 1500)));
        pg_buf_puts(&rep, m ? m : ".u32");
        break;
    }
    case 6: { /* an opcode, or punctuation */
        if (dp_chance(&r, 0.5)) pg_buf_puts(&rep, isa_opcode_get(dp_below(&r, isa_opcode_count())));
        else pg_buf_putc(&rep, PICK(&r, ((const char[]){',', ';', '{', '}', '[', ']', '(', ')', '+', '-', '!', '@', '|', ':', '<', '>'})));
        break;
    }
    default: { /* a register name: of a declared file, out of range, or special */
        int k = dp_below(&r, 3);
        if (k == 0) pg_buf_printf(&rep, "%s%d", RF[dp_below(&r, NRF)].prefix, dp_below(&r, 10));
        else if (k == 1) pg_buf_printf(&rep, "%%r%d", dp_below(&r, 10));
        else {
            const isa_sreg *sr = isa_sreg_get(dp_below(&r, isa_sreg_count()));
            pg_buf_printf(&rep, "%s%s", sr->name, sr->vector ? ".x" : "");
        }
        break;
    }
    }
    pg_buf o = {0};
    pg_buf_putn(&o, s, (size_t)cut_from);
    if (rep.len) pg_buf_putn(&o, rep.data, rep.len);
    pg_buf_puts(&o, s + cut_from + cut_len);
    pg_buf_free(&rep);
    free(t);
    /* rename: every use of the parent's name (its entry, its own variables) */
    pg_buf named = {0};
    size_t pl = strlen(parent->name);
    for (const char *p = o.data; *p;) {
        const char *q = strstr(p, parent->name);
        if (!q) { pg_buf_puts(&named, p); break; }
        bool word = (q == o.data || !idch(q[-1])) && !(q[pl] >= '0' && q[pl] <= '9');
        pg_buf_putn(&named, p, (size_t)(q - p));
        pg_buf_puts(&named, word ? name : parent->name);
        p = q + pl;
    }
    pg_buf_free(&o);
    out->text = named.data;
    snprintf(out->name, sizeof out->name, "%s", name);
    out->cat = DP_TOKEN;
    snprintf(out->what, sizeof out->what, "%s", parent->what);
    return true;
}
