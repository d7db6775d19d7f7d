/* refs_elemfam_bits.c — the reference of the integer / bit-manipulation family
 * (src/synth/family_elem_bits.c): bits.  Every operation is computed bit by bit
 * in plain C (loops over the 32 bit positions, no compiler builtins), so the
 * family's test can check it against the builtins as a second computation.
 * Unpacking: F values of UB bits (4 or 8) per input element, the low one first.
 * Outputs: u32 / s32 words (their bits), or floats (unpack with a scale: one
 * float multiply, the exact product rounded once). */
#include "refs_elemfam.h"

#include <stdint.h>
#include <string.h>

static uint32_t popc32(uint32_t x) {
    uint32_t c = 0;
    for (int b = 0; b < 32; b++) c += (x >> b) & 1u;
    return c;
}
static uint32_t clz32(uint32_t x) {
    uint32_t c = 0;
    for (int b = 31; b >= 0 && !((x >> b) & 1u); b--) c++;
    return c;
}
static uint32_t ffs32(uint32_t x) {
    for (int b = 0; b < 32; b++)
        if ((x >> b) & 1u) return (uint32_t)b + 1;
    return 0;
}
static uint32_t brev32(uint32_t x) {
    uint32_t y = 0;
    for (int b = 0; b < 32; b++) y |= ((x >> b) & 1u) << (31 - b);
    return y;
}
static uint32_t bswap32(uint32_t x) { return (x >> 24) | ((x >> 8) & 0xff00u) | ((x << 8) & 0xff0000u) | (x << 24); }
static uint32_t rotl32(uint32_t x, int k) { return (x << k) | (x >> (32 - k)); }   /* 1 <= k <= 31 */
static uint32_t fmask(int w) { return w >= 32 ? 0xffffffffu : (1u << w) - 1u; }

pg_status task_ref_fam_elem_bits(task_inst *in) {
    json_t *root = NULL, *fp = task_ef_params(in, &root);
    pg_status st = PG_ERR_INVALID;
    if (!fp) goto out;
    const char *op = task_ef_str(fp, "op"), *x2n = json_string_value(json_object_get(fp, "x2"));
    const char *scn = json_string_value(json_object_get(fp, "scale")), *sdn = json_string_value(json_object_get(fp, "seed"));
    int W = (int)task_ef_int(fp, "w", 8), P = (int)task_ef_int(fp, "p", 0), K = (int)task_ef_int(fp, "k", 1), F = (int)task_ef_int(fp, "pack", 2);
    int UB = (int)task_ef_int(fp, "ubits", 4);   /* unpack: bits per value */
    bool left = task_ef_bool(fp, "left"), sgn = task_ef_bool(fp, "signed");
    bool unpack = !strcmp(op, "unpack");
    size_t n = (size_t)task_scalar_i(in, "n");
    ef_arr x, x2 = {0}, y;
    if (W < 1 || W > 31 || P < 0 || P + W > 32 || K < 1 || K > 31 || (F != 2 && F != 4 && F != 8) || (UB != 4 && UB != 8) || F * UB > 32) {
        pg_diag_emit(in->diag, PG_E_TASK, in->spec->path, 0, 0, "$.family_params: field w=%d p=%d, rotation k=%d or pack=%d x %d bits out of range", W, P, K, F, UB);
        goto out;
    }
    if (!task_ef_buf(in, task_ef_str(fp, "x"), n, &x) || !task_ef_buf(in, task_ef_str(fp, "y"), unpack ? (size_t)F * n : n, &y) ||
        (x2n && !task_ef_buf(in, x2n, n, &x2)))
        goto out;
    float scale = scn ? (float)task_ef_scalar(in, scn) : 1.0f;
    uint32_t seed = sdn ? (uint32_t)task_ef_scalar(in, sdn) : 0;
    json_t *rounds = json_object_get(fp, "rounds"), *triple = json_object_get(fp, "triple");
    const char *hash = task_ef_str(fp, "hash");
    uint32_t M = fmask(W);
    for (size_t i = 0; i < n; i++) {
        uint32_t a = x.t == TASK_T_U8 ? ((const uint8_t *)x.p)[i] : ((const uint32_t *)x.p)[i], r;
        if (unpack) {
            for (int k = 0; k < F; k++) {
                int q = (int)((a >> (UB * k)) & fmask(UB)) - (sgn ? 1 << (UB - 1) : 0);
                if (y.t == TASK_T_F32) ((float *)y.p)[(size_t)F * i + (size_t)k] = (float)q * scale;   /* exact product, one rounding */
                else ((int32_t *)y.p)[(size_t)F * i + (size_t)k] = q;
            }
            continue;
        }
        if (!strcmp(op, "hamming")) r = popc32(a ^ ((const uint32_t *)x2.p)[i]);
        else if (!strcmp(op, "popc")) r = popc32(a);
        else if (!strcmp(op, "parity")) r = popc32(a) & 1u;
        else if (!strcmp(op, "clz")) r = clz32(a);
        else if (!strcmp(op, "ffs")) r = ffs32(a);
        else if (!strcmp(op, "brev")) r = brev32(a);
        else if (!strcmp(op, "bswap")) r = bswap32(a);
        else if (!strcmp(op, "bfe")) r = (a >> P) & M;
        else if (!strcmp(op, "bfi")) r = (a & ~(M << P)) | ((((const uint32_t *)x2.p)[i] & M) << P);
        else if (!strcmp(op, "rot")) r = rotl32(a, left ? K : 32 - K);
        else if (!strcmp(op, "hash")) {
            uint32_t h = a ^ seed;
            if (!strcmp(hash, "mxs")) {
                for (size_t q = 0; q < json_array_size(rounds); q++) {
                    json_t *rd = json_array_get(rounds, q);
                    h ^= h >> json_integer_value(json_array_get(rd, 0));
                    h *= (uint32_t)json_integer_value(json_array_get(rd, 1));
                }
                h ^= h >> task_ef_int(fp, "final", 16);
            } else if (!strcmp(hash, "xorshift")) {
                h ^= h << json_integer_value(json_array_get(triple, 0));
                h ^= h >> json_integer_value(json_array_get(triple, 1));
                h ^= h << json_integer_value(json_array_get(triple, 2));
            } else if (!strcmp(hash, "pcg")) {
                h = h * 747796405u + 2891336453u;
                h = ((h >> ((h >> 28) + 4u)) ^ h) * 277803737u;
                h = (h >> 22) ^ h;
            } else {
                pg_diag_emit(in->diag, PG_E_TASK, in->spec->path, 0, 0, "$.family_params.hash: unknown hash '%s'", hash);
                goto out;
            }
            r = h;
        } else {
            pg_diag_emit(in->diag, PG_E_TASK, in->spec->path, 0, 0, "$.family_params.op: unknown bit operation '%s'", op);
            goto out;
        }
        ((uint32_t *)y.p)[i] = r;   /* u32, or the same bits as s32 (counts fit both) */
    }
    st = PG_OK;
out:
    json_decref(root);
    return st;
}
