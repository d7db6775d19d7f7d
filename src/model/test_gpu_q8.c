/* test_gpu_q8.c — model_gpu_q8_row (gpu.c), the host side of $PTXGEN_GPU_WEIGHTS=q8: each block's
 * scale and codes against a direct computation, the round trip within half a scale, exact for
 * values the blocks represent, zero blocks, and the rows it refuses.  Needs no GPU. */
#include "common/test.h"
#include "model/gpu.h"

#include <math.h>

/* a direct computation of block b: the scale as the f16 nearest above max|w| / 127 (found by
 * walking the f16s up from 0, slow and plain), q = round(w / d) */
static void direct(const float *w, int b, uint16_t *d, int8_t *q) {
    float amax = 0;
    for (int i = 0; i < 32; i++) amax = fmaxf(amax, fabsf(w[32 * b + i]));
    float want = amax / 127.0f;
    uint16_t h = 0;
    while (model_f16_to_f32(h) < want) h++;
    *d = h;
    float s = model_f16_to_f32(h);
    for (int i = 0; i < 32; i++) q[i] = (int8_t)(s > 0 ? (int)roundf(w[32 * b + i] / s) : 0);
}

static uint32_t rng = 12345;
static float frand(void) {   /* uniform in [-1, 1) */
    rng = rng * 1664525u + 1013904223u;
    return (float)(rng >> 8) / 8388608.0f - 1.0f;
}

static void test_blocks(void) {
    enum { COLS = 256, NB = COLS / 32 };
    float w[COLS];
    int8_t q[COLS], qd[32];
    uint16_t d[NB], dd;
    float mags[] = {1.0f, 0.02f, 3e-4f, 1e-7f, 250.0f};
    for (int trial = 0; trial < 40; trial++) {
        float mag = mags[trial % 5];
        for (int i = 0; i < COLS; i++) w[i] = frand() * mag;
        if (trial % 7 == 3)
            for (int i = 64; i < 96; i++) w[i] = 0.0f;   /* block 2 all zeros */
        CHECK(model_gpu_q8_row(w, COLS, q, d), "trial %d: the row quantizes", trial);
        for (int b = 0; b < NB; b++) {
            direct(w, b, &dd, qd);
            CHECK(d[b] == dd, "trial %d block %d: scale 0x%04x, direct 0x%04x", trial, b, d[b], dd);
            CHECK(!memcmp(q + 32 * b, qd, 32), "trial %d block %d: codes as the direct computation", trial, b);
            float s = model_f16_to_f32(d[b]);
            for (int i = 0; i < 32; i++) {
                float x = w[32 * b + i], r = (float)q[32 * b + i] * s;
                CHECK(q[32 * b + i] >= -127 && q[32 * b + i] <= 127, "code in [-127, 127]");
                CHECK(fabsf(x - r) <= s / 2 * (1 + 1e-6f), "trial %d block %d col %d: |%g - %g| within half the scale %g", trial, b, i, x,
                      r, s);
            }
        }
        if (trial % 7 == 3) {
            CHECK(d[2] == 0, "a zero block's scale is 0 (0x%04x)", d[2]);
            int nz = 0;
            for (int i = 64; i < 96; i++) nz += q[i] != 0;
            CHECK(nz == 0, "a zero block's codes are 0 (%d are not)", nz);
        }
    }
}

/* values the blocks represent exactly (k * 2^-6 for |k| <= 127, a block's max 127 * 2^-6) come back exactly */
static void test_exact(void) {
    float w[64], back;
    int8_t q[64];
    uint16_t d[2];
    for (int i = 0; i < 64; i++) w[i] = (float)((i * 37) % 255 - 127) / 64.0f;
    w[5] = 127.0f / 64.0f;
    w[40] = -127.0f / 64.0f;
    CHECK(model_gpu_q8_row(w, 64, q, d), "the row quantizes");
    CHECK(model_f16_to_f32(d[0]) == 1.0f / 64 && model_f16_to_f32(d[1]) == 1.0f / 64, "the scales are 2^-6: %g %g", model_f16_to_f32(d[0]),
          model_f16_to_f32(d[1]));
    int bad = 0;
    for (int i = 0; i < 64; i++) {
        back = (float)q[i] * model_f16_to_f32(d[i / 32]);
        bad += back != w[i];
    }
    CHECK(bad == 0, "%d representable values changed in the round trip", bad);
}

static void test_refused(void) {
    float w[64] = {0};
    int8_t q[64];
    uint16_t d[2];
    CHECK(!model_gpu_q8_row(w, 48, q, d), "cols not a multiple of 32 is refused");
    CHECK(model_gpu_q8_row(w, 64, q, d) && d[0] == 0 && d[1] == 0, "an all-zero row: scales 0");
    w[3] = NAN;
    CHECK(!model_gpu_q8_row(w, 64, q, d), "a NaN weight is refused");
    w[3] = INFINITY;
    CHECK(!model_gpu_q8_row(w, 64, q, d), "an infinite weight is refused");
    w[3] = 1e7f;   /* 1e7 / 127 > 65504: no f16 scale */
    CHECK(!model_gpu_q8_row(w, 64, q, d), "a block whose scale is beyond f16 is refused");
    w[3] = 65504.0f * 127.0f * 0.999f;
    CHECK(model_gpu_q8_row(w, 64, q, d) && q[3] == 127, "a block just inside f16's range: q %d", q[3]);
}

int main(void) {
    test_blocks();
    test_exact();
    test_refused();
    return TEST_DONE();
}
