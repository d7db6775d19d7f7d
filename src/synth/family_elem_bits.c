/* family_elem_bits.c — integer and bit-manipulation kernels (nvcc), every
 * result exact, over 32-bit unsigned words (and packed u8 bytes):
 *
 *   bits   one operation class per sample, elementwise over n words:
 *          hamming  popcount(a[i] ^ b[i])              (__popc: popc)
 *          popc     popcount(x[i])                     (popc)
 *          parity   popcount(x[i]) & 1                 (popc, and)
 *          clz      leading zero bits, 32 for 0        (__clz: clz)
 *          ffs      1 + index of the lowest set bit, 0 for 0 (__ffs: brev, bfind / clz)
 *          brev     bit reversal                       (__brev: brev)
 *          bswap    byte swap                          (__byte_perm(x, 0, 0x0123): prmt)
 *          bfe      the W-bit field at bit P: (x >> P) & mask, or
 *                   (x & (mask << P)) >> P             (bfe / shr+and)
 *          bfi      x with the W-bit field at bit P replaced by the low
 *                   W bits of v                        (bfi / and+or)
 *          rot      rotate left / right by K (shift-or or __funnelshift_l/r: shf)
 *          unpack   each u8 holds 2 and each u32 8 packed 4-bit values (or 4
 *                   bytes), the low one first; value q or q - 8 (q - 128), as
 *                   int or times a float scale into out[F*i + k], F = 2, 8, 4
 *          hash     multiply-xorshift rounds (1..3 multiplies by constants
 *                   from a list, shifts 13/15/16/17), xorshift32 (three
 *                   shift-xors), or the PCG output hash, of x[i] (xor a seed
 *                   scalar for half of them)
 *          counts (hamming, popc, parity, clz, ffs) are stored as int or
 *          unsigned int; V = 1/2/4 words per thread, one step per thread or
 *          grid-stride.
 *
 * u64 words are not drawn: task inputs are generated through doubles (53 bits).
 * Reference: fam_elem_bits (src/task/refs_elemfam_bits.c). */
#include "family_elem.h"

#include <stdio.h>
#include <string.h>

enum { B_HAMMING, B_POPC, B_PARITY, B_CLZ, B_FFS, B_BREV, B_BSWAP, B_BFE, B_BFI, B_ROT, B_UNPACK, B_HASH, B__N };
static const char *const OPN[] = {"hamming", "popc", "parity", "clz", "ffs", "brev", "bswap", "bfe", "bfi", "rot", "unpack", "hash"};
enum { H_MXS, H_XORSHIFT, H_PCG };
static const char *const HN[] = {"mxs", "xorshift", "pcg"};

/* Multipliers of published multiply-xorshift hashes (murmur3, lowbias32, triple32, golden ratio). */
static const unsigned MULS[] = {0x7feb352du, 0x846ca68bu, 0x85ebca6bu, 0xc2b2ae35u, 0x9e3779b1u, 0x27d4eb2du, 0xed5ad4bbu, 0xac4c1b51u};
static const int SHS[] = {13, 15, 16, 17};
static const int XS[][3] = {{13, 17, 5}, {5, 17, 13}, {6, 21, 7}, {7, 25, 12}};

/* ---- bit-level helpers for the plan's literals ----------------------------------------------- */
static unsigned fmask(int w) { return w >= 32 ? 0xffffffffu : (1u << w) - 1u; }

pg_status synth_fam_elem_bits(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x626974730000000cull};
    int op = synth_fam_pick(&r, B__N + 3);
    if (op >= B__N) op = op == B__N ? B_UNPACK : B_HASH;   /* the two richest classes drawn twice as often (B_HASH: 3x) */
    bool gs = synth_fam_pick(&r, 2), cnt_signed = synth_fam_pick(&r, 2);
    int block = 128 << synth_fam_pick(&r, 3), cap = synth_fe_cap(&r), V = 1 << synth_fam_pick(&r, 3);
    static const int WS[] = {1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 24};
    int W = WS[synth_fam_pick(&r, 11)];
    int P = synth_fam_pick(&r, 33 - W);
    int form = synth_fam_pick(&r, 2);                 /* bfe: shift-mask / mask-shift; rot: shift-or / funnel */
    bool left = synth_fam_pick(&r, 2);
    int K = 1 + synth_fam_pick(&r, 31);
    bool pk8 = synth_fam_pick(&r, 2), sgn = synth_fam_pick(&r, 2), scaled = synth_fam_pick(&r, 3) != 0;
    int ub = pk8 && synth_fam_pick(&r, 3) == 0 ? 8 : 4;   /* unpack: bits per value (8: bytes of a word) */
    static const double SCV[] = {0.5, 0.125, 0.0625, 0.01, 1.5, 0.03};
    double scv = SCV[synth_fam_pick(&r, 6)];
    int hk = synth_fam_pick(&r, 4);
    hk = hk == 3 ? H_MXS : hk;
    int R = 1 + synth_fam_pick(&r, 3), mi[3], si[4];
    for (int k = 0; k < 3; k++) mi[k] = synth_fam_pick(&r, 8);
    for (int k = 0; k < 4; k++) si[k] = synth_fam_pick(&r, 4);
    int xt = synth_fam_pick(&r, 4);
    bool seeded = synth_fam_pick(&r, 2);
    static const char *const SEEDN[] = {"seed", "salt", "key"};
    const char *SEED = SEEDN[synth_fam_pick(&r, 3)];
    static const unsigned SEEDV[] = {12345u, 0x9e3779b9u, 42u, 0xdeadbeefu, 7u};
    unsigned seedv = SEEDV[synth_fam_pick(&r, 5)];
    static const char *const UN[][3] = {{"packed", "out", "scale"}, {"q", "w", "scale"}, {"codes", "dst", "d"}, {"src", "y", "alpha"}};
    const char *const *un = UN[synth_fam_pick(&r, 4)];

    /* what each class uses */
    bool counts = op <= B_FFS;
    if (op == B_UNPACK && V > 2 && pk8 && ub == 4) V = 2;
    const char *in[2], *outn[1];
    synth_desc_param_names(seed, 2, in, 1, outn);
    const char *X = in[0], *X2 = in[1], *Y = outn[0], *SC = un[2];
    if (op == B_UNPACK) { X = un[0]; Y = un[1]; }
    const char *xdt = op == B_UNPACK && !pk8 ? "u8" : "u32";
    const char *ydt = counts ? (cnt_signed ? "s32" : "u32") : op == B_UNPACK ? (scaled ? "f32" : "s32") : "u32";
    bool two = op == B_HAMMING || op == B_BFI;
    int F = pk8 ? 32 / ub : 2, off = 1 << (ub - 1), umask = (1 << ub) - 1;
    if (P == 0) form = op == B_ROT ? form : 0;   /* a field at bit 0 has one form, x & mask */   /* unpack: values per input element */

    snprintf(s->family, sizeof s->family, "bits");
    snprintf(s->source, sizeof s->source, "nvcc");
    char tail[24];
    snprintf(tail, sizeof tail, "_v%d%s", V, gs ? "_gs" : "");
    switch (op) {
    case B_BFE: case B_BFI: snprintf(s->name, sizeof s->name, "%s_u32_p%d_w%d%s%s", OPN[op], P, W, op == B_BFE && form ? "_mask" : "", tail); break;
    case B_ROT: snprintf(s->name, sizeof s->name, "rot%s_u32_k%d%s%s", left ? "l" : "r", K, form ? "_funnel" : "", tail); break;
    case B_UNPACK: snprintf(s->name, sizeof s->name, "unpack%d_%s_%s%s%s", ub, xdt, ydt, sgn ? "_signed" : "", tail); break;
    case B_HASH:
        if (hk == H_MXS) snprintf(s->name, sizeof s->name, "hash_mxs_r%d%s%s", R, seeded ? "_seeded" : "", tail);
        else snprintf(s->name, sizeof s->name, "hash_%s%s%s", HN[hk], seeded ? "_seeded" : "", tail);
        break;
    default: snprintf(s->name, sizeof s->name, "%s_u32%s%s", OPN[op], counts ? (cnt_signed ? "_s32" : "_u32") : "", tail);
    }
    synth_fam_fit_name(s->name);

    /* the identity: every parameter the computation or the launch depends on */
    char det[96] = "-";
    if (op == B_BFE || op == B_BFI) snprintf(det, sizeof det, "p%d:w%d:f%d", P, W, op == B_BFE ? form : 0);
    else if (op == B_ROT) snprintf(det, sizeof det, "%s%d:f%d", left ? "l" : "r", K, form);
    else if (op == B_UNPACK) snprintf(det, sizeof det, "%dx%d:%s:%s", F, ub, sgn ? "sgn" : "uns", scaled ? "scaled" : "int");
    else if (op == B_HASH && hk == H_MXS) {
        int o = snprintf(det, sizeof det, "mxs:r%d", R);
        for (int k = 0; k < R; k++) o += snprintf(det + o, sizeof det - (size_t)o, ":%d/%d", SHS[si[k]], mi[k]);
        snprintf(det + o, sizeof det - (size_t)o, ":%d", SHS[si[3]]);
    } else if (op == B_HASH && hk == H_XORSHIFT) snprintf(det, sizeof det, "xorshift:%d", xt);
    else if (op == B_HASH) snprintf(det, sizeof det, "pcg");
    char extra[32] = "-";
    if (op == B_HASH && seeded) snprintf(extra, sizeof extra, "seed%u", seedv);
    if (op == B_UNPACK && scaled) snprintf(extra, sizeof extra, "scale%g", scv);
    snprintf(s->identity, sizeof s->identity, "bits:%s:%s:%s:%s:%s:v%d:%s%d:b%d", OPN[op], xdt, ydt, det, extra, V, gs ? "gs" : "one", gs ? cap : 0, block);

    fe_strs T = {0};
    pg_buf sig = {0}, body = {0}, fo = {0}, ex = {0}, ex2 = {0}, exz = {0}, steps = {0}, notes = {0}, notez = {0}, shp = {0}, shz = {0};
    json_t *root = synth_fe_root(s->name, "bits"), *ps = json_array();
    const char *len_y = op == B_UNPACK ? (F == 8 ? "8*n" : F == 4 ? "4*n" : "2*n") : "n";
    const char *dfull = "int(0,4294967295)", *dsmall = "int(0,65535)", *dtiny = "int(0,3)";
    if (op == B_UNPACK && !pk8) { dfull = "int(0,255)"; dsmall = "int(0,15)"; dtiny = "int(240,255)"; }
    synth_fe_sig_ptr(&sig, X, xdt, FE_IN);
    synth_fe_ptr_dist(ps, X, xdt, FE_IN, "n", dfull, dsmall, dtiny);
    if (two) {
        synth_fe_sig_ptr(&sig, X2, "u32", FE_IN);
        synth_fe_ptr_dist(ps, X2, "u32", FE_IN, "n", dfull, dfull, dtiny);
    }
    synth_fe_sig_ptr(&sig, Y, ydt, FE_OUT);
    synth_fe_ptr(ps, Y, ydt, FE_OUT, len_y);
    char scl[32], seedl[16];
    synth_fe_lit(scl, sizeof scl, scv);
    snprintf(seedl, sizeof seedl, "%u", seedv);
    if (op == B_UNPACK && scaled) { synth_fe_sig_scal(&sig, SC, "f32"); synth_fe_scal(ps, SC, "f32", scl); }
    if (op == B_HASH && seeded) { synth_fe_sig_scal(&sig, SEED, "u32"); synth_fe_scal(ps, SEED, "u32", seedl); }
    synth_fe_sig_scal(&sig, "n", "u32");
    synth_fe_scal(ps, "n", "u32", "n");

    /* the body (over X_e, X2_e, Y_e) and the formula, side by side */
    const char *xe = synth_fe_t(&T, (const char *[]){"x", X, NULL}, "{x}_e"), *x2e = synth_fe_t(&T, (const char *[]){"x", X2, NULL}, "{x}_e");
    const char *ye = synth_fe_t(&T, (const char *[]){"x", Y, NULL}, "{x}_e");
    unsigned M = fmask(W);
    const char *comment = "";
    switch (op) {
    case B_HAMMING:
        pg_buf_printf(&body, "%s = __popc(%s ^ %s);   // Hamming distance: the bits that differ\n", ye, xe, x2e);
        pg_buf_printf(&fo, "%s[i] = popcount(%s[i] ^ %s[i])", Y, X, X2);
        comment = "Hamming distance popcount(a ^ b) of two words";
        break;
    case B_POPC:
        pg_buf_printf(&body, "%s = __popc(%s);\n", ye, xe);
        pg_buf_printf(&fo, "%s[i] = popcount(%s[i])", Y, X);
        comment = "population count (set bits) of each word";
        break;
    case B_PARITY:
        pg_buf_printf(&body, "%s = __popc(%s) & 1;   // 1 when the number of set bits is odd\n", ye, xe);
        pg_buf_printf(&fo, "%s[i] = popcount(%s[i]) & 1", Y, X);
        comment = "parity of each word";
        break;
    case B_CLZ:
        pg_buf_printf(&body, "%s = __clz(%s);   // 32 for 0\n", ye, xe);
        pg_buf_printf(&fo, "%s[i] = clz(%s[i]) (leading zero bits of the 32-bit word; 32 when %s[i] = 0)", Y, X, X);
        comment = "count of leading zero bits of each word";
        break;
    case B_FFS:
        pg_buf_printf(&body, "%s = __ffs(%s);   // 1-based position of the lowest set bit, 0 for 0\n", ye, xe);
        pg_buf_printf(&fo, "%s[i] = ffs(%s[i]) (1 + the index of the lowest set bit; 0 when %s[i] = 0)", Y, X, X);
        comment = "find first set: 1-based position of the lowest set bit";
        break;
    case B_BREV:
        pg_buf_printf(&body, "%s = __brev(%s);\n", ye, xe);
        pg_buf_printf(&fo, "%s[i] = bit_reverse(%s[i]) (bit k of the result = bit 31 - k of %s[i])", Y, X, X);
        comment = "reverse the bit order of each word";
        break;
    case B_BSWAP:
        pg_buf_printf(&body, "%s = __byte_perm(%s, 0, 0x0123);   // bytes 3 2 1 0 -> 0 1 2 3\n", ye, xe);
        pg_buf_printf(&fo, "%s[i] = byte_swap(%s[i]) (byte k of the result = byte 3 - k of %s[i])", Y, X, X);
        comment = "reverse the byte order of each word (endianness swap)";
        break;
    case B_BFE:
        if (form && P) pg_buf_printf(&body, "%s = (%s & 0x%08xu) >> %d;   // bits %d..%d\n", ye, xe, M << P, P, P, P + W - 1);
        else if (P) pg_buf_printf(&body, "%s = (%s >> %d) & 0x%xu;   // bits %d..%d\n", ye, xe, P, M, P, P + W - 1);
        else pg_buf_printf(&body, "%s = %s & 0x%xu;   // bits 0..%d\n", ye, xe, M, W - 1);
        pg_buf_printf(&fo, "%s[i] = (%s[i] >> %d) & 0x%x (bits %d..%d, unsigned)", Y, X, P, M, P, P + W - 1);
        comment = "extract a fixed bit field of each word";
        break;
    case B_BFI:
        pg_buf_printf(&body, "%s = (%s & 0x%08xu) | ((%s & 0x%xu) << %d);   // bits %d..%d replaced\n", ye, xe, ~(M << P), x2e, M, P, P, P + W - 1);
        pg_buf_printf(&fo, "%s[i] = (%s[i] & ~(0x%x << %d)) | ((%s[i] & 0x%x) << %d)", Y, X, M, P, X2, M, P);
        comment = "insert a bit field into each word";
        break;
    case B_ROT:
        if (form) pg_buf_printf(&body, "%s = __funnelshift_%c(%s, %s, %d);   // rotate %s by %d\n", ye, left ? 'l' : 'r', xe, xe, K, left ? "left" : "right", K);
        else pg_buf_printf(&body, "%s = (%s %s %d) | (%s %s %d);   // rotate %s by %d\n", ye, xe, left ? "<<" : ">>", K, xe, left ? ">>" : "<<", 32 - K, left ? "left" : "right", K);
        pg_buf_printf(&fo, "%s[i] = rot%s(%s[i], %d) = (%s[i] %s %d) | (%s[i] %s %d)", Y, left ? "l" : "r", X, K, X, left ? "<<" : ">>", K, X, left ? ">>" : "<<", 32 - K);
        comment = left ? "rotate each word left" : "rotate each word right";
        break;
    case B_UNPACK: {
        char val[96], vf[160];
        const char *cast = scaled ? "(float)" : "";
        if (pk8) {
            char offs[16] = "";
            if (sgn) snprintf(offs, sizeof offs, " - %d", off);
            snprintf(val, sizeof val, "(int)((%s >> (%d * k)) & %du)%s", xe, ub, umask, offs);
            pg_buf_printf(&body, "#pragma unroll\nfor (int k = 0; k < %d; k++) {\n", F);
            if (scaled) pg_buf_printf(&body, "    %s[%d * i + k] = (float)(%s) * %s;\n}\n", Y, F, val, SC);
            else pg_buf_printf(&body, "    %s[%d * i + k] = %s;\n}\n", Y, F, val);
        } else {
            for (int k = 0; k < 2; k++) {
                if (k == 0) snprintf(val, sizeof val, "(%s & 15)%s", xe, sgn ? " - 8" : "");
                else snprintf(val, sizeof val, "(%s >> 4)%s", xe, sgn ? " - 8" : "");
                if (scaled && sgn) snprintf(vf, sizeof vf, "%s(%s) * %s", cast, val, SC);
                else if (scaled) snprintf(vf, sizeof vf, "%s%s * %s", cast, val, SC);
                else snprintf(vf, sizeof vf, "%s", val);
                pg_buf_printf(&body, "%s[2 * i%s] = %s;   // %s nibble\n", Y, k ? " + 1" : "", vf, k ? "high" : "low");
            }
        }
        if (sgn) pg_buf_printf(&fo, "%s[%d*i + k] = %s(((%s[i] >> (%d*k)) & %d) - %d)%s%s for k = 0..%d", Y, F, scaled ? "(float)" : "", X, ub, umask, off, scaled ? " * " : "",
                               scaled ? SC : "", F - 1);
        else pg_buf_printf(&fo, "%s[%d*i + k] = %s((%s[i] >> (%d*k)) & %d)%s%s for k = 0..%d", Y, F, scaled ? "(float)" : "", X, ub, umask, scaled ? " * " : "", scaled ? SC : "", F - 1);
        comment = !pk8 ? "unpack two 4-bit values from each byte" : ub == 8 ? "unpack four 8-bit values from each word" : "unpack eight 4-bit values from each word";
        break;
    }
    case B_HASH: {
        if (seeded) pg_buf_printf(&body, "unsigned int h = %s ^ %s;\n", xe, SEED);
        else pg_buf_printf(&body, "unsigned int h = %s;\n", xe);
        pg_buf_printf(&fo, "h = %s[i]%s%s; ", X, seeded ? " ^ " : "", seeded ? SEED : "");
        if (hk == H_MXS) {
            for (int k = 0; k < R; k++) {
                pg_buf_printf(&body, "h ^= h >> %d;\nh *= 0x%08xu;\n", SHS[si[k]], MULS[mi[k]]);
                pg_buf_printf(&fo, "h ^= h >> %d; h *= 0x%08x; ", SHS[si[k]], MULS[mi[k]]);
            }
            pg_buf_printf(&body, "h ^= h >> %d;\n", SHS[si[3]]);
            pg_buf_printf(&fo, "h ^= h >> %d; ", SHS[si[3]]);
        } else if (hk == H_XORSHIFT) {
            pg_buf_printf(&body, "h ^= h << %d;\nh ^= h >> %d;\nh ^= h << %d;\n", XS[xt][0], XS[xt][1], XS[xt][2]);
            pg_buf_printf(&fo, "h ^= h << %d; h ^= h >> %d; h ^= h << %d; ", XS[xt][0], XS[xt][1], XS[xt][2]);
        } else {
            pg_buf_puts(&body, "h = h * 747796405u + 2891336453u;   // the PCG step\n"
                               "h = ((h >> ((h >> 28) + 4)) ^ h) * 277803737u;\n"
                               "h = (h >> 22) ^ h;\n");
            pg_buf_puts(&fo, "h = h * 747796405 + 2891336453; h = ((h >> ((h >> 28) + 4)) ^ h) * 277803737; h = (h >> 22) ^ h; ");
        }
        pg_buf_printf(&body, "%s = h;\n", ye);
        pg_buf_printf(&fo, "%s[i] = h", Y);
        pg_buf_puts(&steps, fo.data);
        pg_buf_puts(&fo, hk == H_XORSHIFT ? " (32-bit unsigned arithmetic, bits shifted out are dropped)" : " (32-bit unsigned arithmetic, products mod 2^32)");
        comment = hk == H_MXS ? "multiply-xorshift integer hash of each word" : hk == H_XORSHIFT ? "xorshift32 step of each word" : "PCG output hash of each word";
        break;
    }
    }
    fe_kernel k = {.name = s->name, .comment = comment, .sig = sig.data, .n = "n", .body = body.data, .V = V, .grid_stride = gs};
    k.arr[k.narr++] = (fe_arr){X, xdt, FE_IN, false};
    if (two) k.arr[k.narr++] = (fe_arr){X2, "u32", FE_IN, false};
    if (op != B_UNPACK) k.arr[k.narr++] = (fe_arr){Y, ydt, FE_OUT, false};
    synth_fe_emit(&k, seed, s, &s->cu);

    json_t *fp = json_pack("{s:s, s:s, s:s, s:s?, s:i, s:i, s:i, s:b, s:i, s:b, s:b, s:s?, s:s?, s:s}", "op", OPN[op], "x", X, "y", Y, "x2", two ? X2 : NULL, "w", W,
                           "p", P, "k", K, "left", left, "pack", F, "signed", sgn, "scaled", op == B_UNPACK && scaled, "scale", op == B_UNPACK && scaled ? SC : NULL, "seed",
                           op == B_HASH && seeded ? SEED : NULL, "hash", HN[hk]);
    if (op == B_UNPACK) json_object_set_new(fp, "ubits", json_integer(ub));
    if (op == B_HASH && hk == H_MXS) {
        json_t *rd = json_array();
        for (int q = 0; q < R; q++) json_array_append_new(rd, json_pack("[i, I]", SHS[si[q]], (json_int_t)MULS[mi[q]]));
        json_object_set_new(fp, "rounds", rd);
        json_object_set_new(fp, "final", json_integer(SHS[si[3]]));
    }
    if (op == B_HASH && hk == H_XORSHIFT) json_object_set_new(fp, "triple", json_pack("[i, i, i]", XS[xt][0], XS[xt][1], XS[xt][2]));
    json_object_set_new(root, "family_params", fp);
    json_object_set_new(root, "params", ps);
    json_object_set_new(root, "sizes", synth_fe_sizes1("n", (const long[]){16777216, 1000003, 4099, 777, 1, 0}));
    synth_fe_launch1(root, block, V, gs, cap, synth_fe_grid_mult(seed), "n");
    json_object_set_new(root, "distributions", json_pack("[s, s, s]", dfull, dsmall, dtiny));

    /* ---- descriptions ---------------------------------------------------------------------- */
    char pl[16], wl[16], kl[16], hil[16], ml[16], k32[16];
    snprintf(pl, sizeof pl, "%d", P); snprintf(wl, sizeof wl, "%d", W); snprintf(kl, sizeof kl, "%d", K); snprintf(hil, sizeof hil, "%d", P + W - 1);
    snprintf(ml, sizeof ml, "0x%x", M); snprintf(k32, sizeof k32, "%d", 32 - K);
    const char *ctw = counts ? (cnt_signed ? "int" : "unsigned int") : "";
    const char *kv[] = {"x", X, "x2", X2, "y", Y, "p", pl, "w", wl, "k", kl, "hi", hil, "m", ml, "k32", k32, "ct", ctw, "sc", SC, "sv", scl, "seed", SEED, "sdv", seedl, NULL};
    const char *ne[5] = {0}, *nz[4] = {0}, *ee[4] = {0}, *zz[3] = {0};
    switch (op) {
    case B_HAMMING:
        ne[0] = "Hamming distance"; ne[1] = "bitwise Hamming distance of 32-bit words"; ne[2] = "popcount of XOR";
        nz[0] = "汉明距离"; nz[1] = "按位汉明距离（异或后数 1 的个数）";
        ee[0] = synth_fe_t(&T, kv, "count the bit positions where {x}[i] and {x2}[i] differ (the population count of their XOR) and store the count in {y}[i]");
        ee[1] = synth_fe_t(&T, kv, "compute the Hamming distance between each pair of 32-bit words {x}[i], {x2}[i] and write it to {y}");
        zz[0] = synth_fe_t(&T, kv, "对每个 i，计算 {x}[i] 与 {x2}[i] 异或后 1 的个数（汉明距离），写入 {y}[i]");
        break;
    case B_POPC:
        ne[0] = "population count"; ne[1] = "popcount of 32-bit words"; ne[2] = "set-bit count";
        nz[0] = "popcount（统计 1 的位数）"; nz[1] = "逐元素位计数";
        ee[0] = synth_fe_t(&T, kv, "count the set bits of each 32-bit word {x}[i] and store the count in {y}[i]");
        ee[1] = synth_fe_t(&T, kv, "write the population count of every element of {x} to {y}");
        zz[0] = synth_fe_t(&T, kv, "统计 {x}[i] 中为 1 的位数，写入 {y}[i]");
        break;
    case B_PARITY:
        ne[0] = "bit parity"; ne[1] = "parity of 32-bit words"; ne[2] = "odd-parity flag";
        nz[0] = "奇偶校验位"; nz[1] = "逐元素位奇偶性";
        ee[0] = synth_fe_t(&T, kv, "store 1 in {y}[i] when {x}[i] has an odd number of set bits and 0 when the number is even");
        ee[1] = synth_fe_t(&T, kv, "compute the parity of each word of {x} (the popcount modulo 2) into {y}");
        zz[0] = synth_fe_t(&T, kv, "{x}[i] 中 1 的个数为奇数时 {y}[i] = 1，为偶数时 {y}[i] = 0");
        break;
    case B_CLZ:
        ne[0] = "count leading zeros"; ne[1] = "clz of 32-bit words"; ne[2] = "leading-zero count";
        nz[0] = "前导零计数"; nz[1] = "逐元素 clz";
        ee[0] = synth_fe_t(&T, kv, "count the zero bits above the highest set bit of each 32-bit word {x}[i] (32 for a zero word) and store the count in {y}[i]");
        ee[1] = synth_fe_t(&T, kv, "write the number of leading zero bits of every element of {x} to {y}, 32 when the element is 0");
        zz[0] = synth_fe_t(&T, kv, "统计 32 位字 {x}[i] 最高位起连续 0 的个数（{x}[i] 为 0 时为 32），写入 {y}[i]");
        break;
    case B_FFS:
        ne[0] = "find first set"; ne[1] = "ffs of 32-bit words"; ne[2] = "lowest set bit position";
        nz[0] = "查找最低置位（ffs）"; nz[1] = "最低位 1 的位置";
        ee[0] = synth_fe_t(&T, kv, "store in {y}[i] the 1-based position of the lowest set bit of {x}[i] (bit 0 gives 1, bit 31 gives 32) and 0 when {x}[i] is 0");
        ee[1] = synth_fe_t(&T, kv, "find the least significant set bit of each word of {x} and write its index plus one to {y}, or 0 for a zero word");
        zz[0] = synth_fe_t(&T, kv, "求 {x}[i] 最低位 1 的位置（从 1 开始计数：第 0 位为 1），{x}[i] 为 0 时为 0，写入 {y}[i]");
        break;
    case B_BREV:
        ne[0] = "bit reversal"; ne[1] = "reverse the bits of 32-bit words"; ne[2] = "bit-reverse permutation of words";
        nz[0] = "位反转"; nz[1] = "32 位字按位逆序";
        ee[0] = synth_fe_t(&T, kv, "reverse the order of the 32 bits of each word {x}[i] (bit 0 becomes bit 31) and store the result in {y}[i]");
        ee[1] = synth_fe_t(&T, kv, "write every element of {x} with its bit order reversed to {y}");
        zz[0] = synth_fe_t(&T, kv, "把 32 位字 {x}[i] 的位顺序反转（第 0 位变为第 31 位），写入 {y}[i]");
        break;
    case B_BSWAP:
        ne[0] = "byte swap"; ne[1] = "endianness swap of 32-bit words"; ne[2] = "bswap32";
        nz[0] = "字节序反转"; nz[1] = "大小端转换";
        ee[0] = synth_fe_t(&T, kv, "reverse the order of the four bytes of each word {x}[i] (byte 0 becomes byte 3) and store the result in {y}[i]");
        ee[1] = synth_fe_t(&T, kv, "convert every 32-bit word of {x} between little and big endian and write it to {y}");
        zz[0] = synth_fe_t(&T, kv, "把 32 位字 {x}[i] 的 4 个字节倒序（第 0 字节变为第 3 字节），写入 {y}[i]");
        break;
    case B_BFE:
        ne[0] = synth_fe_t(&T, kv, "bit-field extract of bits {p}..{hi}"); ne[1] = synth_fe_t(&T, kv, "extract a {w}-bit field at bit {p}");
        ne[2] = synth_fe_t(&T, kv, "(x >> {p}) & {m} field extraction");
        nz[0] = synth_fe_t(&T, kv, "提取第 {p} 到第 {hi} 位的位段"); nz[1] = synth_fe_t(&T, kv, "提取第 {p} 位起的 {w} 位字段");
        ee[0] = synth_fe_t(&T, kv, P ? "take bits {p} to {hi} of each word {x}[i] as an unsigned number (shift right by {p}, keep the low {w} bits) and store it in {y}[i]"
                                     : "take bits 0 to {hi} of each word {x}[i] (keep the low {w} bits, clear the others) and store them in {y}[i]");
        ee[1] = synth_fe_t(&T, kv, "extract the {w}-bit field that starts at bit {p} of every element of {x} into {y}, zero-extended");
        zz[0] = synth_fe_t(&T, kv, P ? "取 {x}[i] 的第 {p} 到第 {hi} 位（右移 {p} 位后保留低 {w} 位，无符号），写入 {y}[i]" : "取 {x}[i] 的第 0 到第 {hi} 位（保留低 {w} 位，其余清零），写入 {y}[i]");
        break;
    case B_BFI:
        ne[0] = synth_fe_t(&T, kv, "bit-field insert of the low {w} bits of {x2} into bits {p}..{hi} of {x}"); ne[1] = synth_fe_t(&T, kv, "insert a {w}-bit field from {x2} at bit {p} of {x}");
        ne[2] = synth_fe_t(&T, kv, "{w}-bit field insertion at bit {p}");
        nz[0] = synth_fe_t(&T, kv, "把 {x2} 的低 {w} 位插入 {x} 的第 {p} 到第 {hi} 位"); nz[1] = synth_fe_t(&T, kv, "在第 {p} 位插入 {w} 位字段");
        ee[0] = synth_fe_t(&T, kv, "replace bits {p} to {hi} of each word {x}[i] with the low {w} bits of {x2}[i], keep the other bits of {x}[i], and store the word in {y}[i]");
        ee[1] = synth_fe_t(&T, kv, "insert the low {w} bits of every element of {x2} into the corresponding word of {x} at bit {p} and write the result to {y}");
        zz[0] = synth_fe_t(&T, kv, "用 {x2}[i] 的低 {w} 位替换 {x}[i] 的第 {p} 到第 {hi} 位，其余位不变，写入 {y}[i]");
        break;
    case B_ROT:
        ne[0] = synth_fe_t(&T, kv, left ? "rotate left by {k}" : "rotate right by {k}"); ne[1] = synth_fe_t(&T, kv, left ? "32-bit rotate left by {k}" : "32-bit rotate right by {k}");
        ne[2] = synth_fe_t(&T, kv, left ? "circular shift left by {k} bits" : "circular shift right by {k} bits");
        nz[0] = synth_fe_t(&T, kv, left ? "循环左移 {k} 位" : "循环右移 {k} 位"); nz[1] = synth_fe_t(&T, kv, left ? "32 位循环左移 {k} 位" : "32 位循环右移 {k} 位");
        ee[0] = synth_fe_t(&T, kv, left ? "rotate each 32-bit word {x}[i] left by {k} bits (the top {k} bits come back in at the bottom) and store it in {y}[i]"
                                        : "rotate each 32-bit word {x}[i] right by {k} bits (the low {k} bits come back in at the top) and store it in {y}[i]");
        ee[1] = synth_fe_t(&T, kv, left ? "write every element of {x} circularly shifted left by {k} to {y}" : "write every element of {x} circularly shifted right by {k} to {y}");
        zz[0] = synth_fe_t(&T, kv, left ? "把 32 位字 {x}[i] 循环左移 {k} 位（移出的高位从低位补回），写入 {y}[i]" : "把 32 位字 {x}[i] 循环右移 {k} 位（移出的低位从高位补回），写入 {y}[i]");
        break;
    case B_UNPACK: {
        const char *per = F == 8 ? "eight" : F == 4 ? "four" : "two", *unit = pk8 ? "32-bit word" : "byte";
        char fs[16], ls[16];
        snprintf(fs, sizeof fs, "%d", F);
        snprintf(ls, sizeof ls, "%d", F - 1);
        const char *kvu[] = {"x", X, "y", Y, "sc", SC, "per", per, "unit", unit, "F", fs, "last", ls, NULL};
        if (ub == 8) {
            ne[0] = "byte unpacking"; ne[1] = "unpack the four bytes of 32-bit words";
            ne[2] = scaled ? "8-bit dequantization" : sgn ? "offset byte unpacking" : "byte extraction";
            nz[0] = "字节解包"; nz[1] = scaled ? "8 位反量化" : "32 位字拆成 4 个字节";
        } else {
            ne[0] = "4-bit unpacking"; ne[1] = pk8 ? "unpack packed 4-bit values from 32-bit words" : "unpack packed 4-bit values from bytes";
            ne[2] = scaled ? (sgn ? "int4 dequantization" : "uint4 dequantization") : sgn ? "signed nibble unpacking" : "nibble unpacking";
            nz[0] = "4 位数据解包"; nz[1] = scaled ? (sgn ? "int4 反量化" : "uint4 反量化") : "半字节解包";
        }
        char rng[48];
        if (sgn) snprintf(rng, sizeof rng, " minus %d (a signed range -%d..%d)", off, off, off - 1);
        else snprintf(rng, sizeof rng, " (0..%d)", umask);
        pg_buf_printf(&ex, "each %s {x}[i] holds %s %d-bit values, value k in bits %dk to %dk+%d (the low %s first); write value k%s%s to {y}[{F}*i + k] for k = 0..{last}", unit, per,
                      ub, ub, ub, ub - 1, ub == 8 ? "byte" : "nibble", rng, scaled ? ", converted to float and multiplied by {sc}," : " as an int");
        ee[0] = synth_fe_t(&T, kvu, ex.data);
        char rz[48];
        if (sgn) snprintf(rz, sizeof rz, "减 %d（范围 -%d..%d）", off, off, off - 1);
        else snprintf(rz, sizeof rz, "（0..%d）", umask);
        pg_buf_printf(&exz, "每个%s {x}[i] 存 %d 个 %d 位值，第 k 个在第 %dk 到 %dk+%d 位（低%s在前）；把第 k 个值%s%s写入 {y}[{F}*i + k]（k = 0..{last}）", pk8 ? "32 位字" : "字节", F, ub,
                      ub, ub, ub - 1, ub == 8 ? "字节" : "半字节", rz, scaled ? "，转为 float 后乘以 {sc}，" : "，以 int ");
        zz[0] = synth_fe_t(&T, kvu, exz.data);
        break;
    }
    case B_HASH:
        {   /* every name states the steps in short: ">>16 *0x7feb352d >>15" */
            pg_buf c = {0};
            if (hk == H_MXS) {
                for (int q = 0; q < R; q++) pg_buf_printf(&c, "%s>>%d *0x%08x", q ? " " : "", SHS[si[q]], MULS[mi[q]]);
                pg_buf_printf(&c, " >>%d", SHS[si[3]]);
            } else if (hk == H_XORSHIFT) pg_buf_printf(&c, "<<%d >>%d <<%d", XS[xt][0], XS[xt][1], XS[xt][2]);
            else pg_buf_puts(&c, "*747796405 +2891336453, xorshift by (h >> 28) + 4, *277803737, ^ h >> 22");
            const char *kh[] = {"c", c.data, "seed", SEED, "x", X, NULL};
            const char *sd = seeded ? " of {x} ^ {seed}" : "";
            char t0[160], t1[160], t2[160], z0[160], z1[160];
            const char *what = hk == H_MXS ? "multiply-xorshift hash" : hk == H_XORSHIFT ? "xorshift32 step" : "PCG hash";
            const char *whz = hk == H_MXS ? "乘法-异或移位哈希" : hk == H_XORSHIFT ? "xorshift32 一步" : "PCG 哈希";
            snprintf(t0, sizeof t0, "%s%s (%s)", what, sd, "{c}");
            snprintf(t1, sizeof t1, "32-bit %s%s, steps {c}", what, sd);
            snprintf(t2, sizeof t2, "integer hash%s: {c}", sd);
            snprintf(z0, sizeof z0, "%s（%s）%s", whz, "{c}", seeded ? "，输入先与 {seed} 异或" : "");
            snprintf(z1, sizeof z1, "整数哈希：{c}%s", seeded ? "（先与 {seed} 异或）" : "");
            ne[0] = synth_fe_t(&T, kh, t0); ne[1] = synth_fe_t(&T, kh, t1); ne[2] = synth_fe_t(&T, kh, t2);
            nz[0] = synth_fe_t(&T, kh, z0); nz[1] = synth_fe_t(&T, kh, z1);
            pg_buf_free(&c);
        }
        pg_buf_printf(&ex, "hash each 32-bit word {x}[i] in unsigned 32-bit arithmetic (%s) and store the hash in {y}[i]: %s",
                      hk == H_XORSHIFT ? "bits shifted out are dropped" : "products wrap modulo 2^32", steps.data);
        ee[0] = synth_fe_t(&T, kv, ex.data);
        pg_buf_printf(&ex2, hk == H_XORSHIFT ? "compute %s on unsigned 32-bit words" : "compute %s, with every multiply wrapping modulo 2^32", steps.data);
        ee[1] = synth_fe_t(&T, kv, ex2.data);
        pg_buf_printf(&exz, "对 {x} 的每个 32 位字计算哈希（32 位无符号运算%s），结果写入 {y}[i]：%s", hk == H_XORSHIFT ? "，移出的位丢弃" : "，乘积按 2^32 取模", steps.data);
        zz[0] = synth_fe_t(&T, kv, exz.data);
        break;
    }
    const char *hw[] = {synth_fe_how_en(&T, V, gs), NULL}, *hzz[] = {synth_fe_how_zh(&T, V, gs), NULL};
    if (op == B_UNPACK && scaled) {
        pg_buf_printf(&notes, "Results must match exactly (one float multiply per value); %s = %s", SC, scl);
        pg_buf_printf(&notez, "结果必须完全一致（每个值一次 float 乘法）；%s = %s", SC, scl);
    } else {
        pg_buf_puts(&notes, "Integer results must match exactly");
        pg_buf_puts(&notez, "整数结果必须完全一致");
    }
    if (op == B_HASH) {
        if (seeded) { pg_buf_printf(&notes, "; %s = %s (unsigned int)", SEED, seedl); pg_buf_printf(&notez, "；%s = %s（unsigned int）", SEED, seedl); }
    }
    if (counts) { pg_buf_printf(&notes, "; the counts are stored as %s", ctw); pg_buf_printf(&notez, "；计数以 %s 存储", ctw); }
    if (op == B_UNPACK) {
        pg_buf_printf(&shp, "%s holds n %s, %s holds %d*n %s values", X, pk8 ? "32-bit words" : "bytes", Y, F, scaled ? "float" : "int");
        pg_buf_printf(&shz, "%s 有 n 个%s，%s 有 %d*n 个 %s", X, pk8 ? "32 位字" : "字节", Y, F, scaled ? "float" : "int");
    } else if (two) {
        pg_buf_printf(&shp, "%s and %s hold n unsigned 32-bit words each, %s n %s values", X, X2, Y, counts ? ctw : "unsigned 32-bit");
        pg_buf_printf(&shz, "%s、%s 各有 n 个 32 位无符号字，%s 有 n 个 %s", X, X2, Y, counts ? ctw : "32 位无符号字");
    } else {
        pg_buf_printf(&shp, "%s holds n unsigned 32-bit words, %s n %s values", X, Y, counts ? ctw : "unsigned 32-bit");
        pg_buf_printf(&shz, "%s 有 n 个 32 位无符号字，%s 有 n 个 %s", X, Y, counts ? ctw : "32 位无符号字");
    }
    desc_facts f = {.name_en = ne, .name_zh = nz, .formula = fo.data, .explain_en = ee, .explain_zh = zz, .how_en = hw, .how_zh = hzz, .shape_en = shp.data, .shape_zh = shz.data,
                    .notes_en = notes.data, .notes_zh = notez.data};
    char bytes[32];
    snprintf(bytes, sizeof bytes, "%d*n", op == B_UNPACK ? synth_fe_size(xdt) + 4 * F : two ? 12 : 8);
    synth_fe_finish(root, &f, seed, ydt, 0.0, NULL, 0, synth_fam_ref(synth_fam_elem_bits), bytes, op == B_HASH ? "8*n" : op == B_UNPACK ? (F == 8 ? "16*n" : F == 4 ? "8*n" : "4*n") : "n",
                    &s->task_json);
    pg_buf_free(&sig); pg_buf_free(&body); pg_buf_free(&fo); pg_buf_free(&ex); pg_buf_free(&ex2); pg_buf_free(&steps); pg_buf_free(&exz);
    pg_buf_free(&notes); pg_buf_free(&notez); pg_buf_free(&shp); pg_buf_free(&shz);
    synth_fe_strs_free(&T);
    return PG_OK;
}
