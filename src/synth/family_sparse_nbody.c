/* family_sparse_nbody.c — the "nbody" family (CUDA C, nvcc): all-pairs
 * particle interactions, one thread per particle i summing over every j.
 *
 *   op        gravity acceleration (softened, G = 1, masses), gravitational
 *             potential (j != i), Coulomb force or energy (charges, constant
 *             ke, softening, optional cutoff), Lennard-Jones force or energy
 *             (cutoff, r^2 clamped below at (sigma/2)^2 so coincident random
 *             atoms stay finite, energy optionally shifted to 0 at the cutoff)
 *   layout    AoS: one float4/double4 per particle (x, y, z, mass or charge;
 *             w unused for LJ), xyz triples (pos[3i], pos[3i+1], pos[3i+2],
 *             + an m / q array; "aos3") or SoA: x, y, z (+ m / q) arrays;
 *             vector outputs as three arrays or xyz triples
 *   loading   direct global loads of particle j, or tiles of `block`
 *             particles staged in shared memory (every thread takes part in
 *             each tile, also those past N)
 *   dtype     f32 (rsqrtf) / f64; block 64/128/256
 *
 * Reference: task_ref_fam_nbody (src/task/refs_sparse_nbody.c). */
#include "family_sparse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OP_GACC, OP_GPOT, OP_CFORCE, OP_CENERGY, OP_LJFORCE, OP_LJENERGY, OP_N };
static const char *const OPS[OP_N] = {"grav_accel", "grav_potential", "coulomb_force", "coulomb_energy", "lj_force", "lj_energy"};

pg_status synth_fam_gen_nbody(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x6e626f6479000012ull};
    int op = synth_fam_pick(&r, OP_N);
    bool f64 = synth_fam_pick(&r, 4) == 0, aos = synth_fam_pick(&r, 2), tiled = synth_fam_pick(&r, 3) != 0, out3 = synth_fam_pick(&r, 2);
    int block = 64 << synth_fam_pick(&r, 3);
    bool vec = op == OP_GACC || op == OP_CFORCE || op == OP_LJFORCE;
    bool lj = op >= OP_LJFORCE, coul = op == OP_CFORCE || op == OP_CENERGY;
    bool cutoff = lj || (coul && synth_fam_pick(&r, 2));
    bool shifted = op == OP_LJENERGY && synth_fam_pick(&r, 2);
    bool eps_soft = !lj && synth_fam_pick(&r, 3) == 0;   /* softening given as a length eps (eps^2 added) */
    if (!vec) out3 = false;
    /* xyz triples (stride 3) for about a third of the samples, from a stream of their own (every
     * other draw stays what it was): the input layout people hand over most, never a float4 */
    fam_rng rl = {seed ^ 0x6e626f6479617333ull};
    bool aos3 = synth_fam_pick(&rl, 3) == 0;
    if (aos3) aos = false;
    /* held out (bench/suite): the f32 shifted LJ energy over xyz triples with 128-thread blocks (lj_shifted_aos) */
    if (aos3 && op == OP_LJENERGY && !f64 && shifted && block == 128) block = 64;
    const char *LAY = aos ? "aos" : aos3 ? "aos3" : "soa";
    const char *T = f64 ? "f64" : "f32", *CT = f64 ? "double" : "float", *L = f64 ? "" : "f";
    const char *RSQ = f64 ? "rsqrt" : "rsqrtf", *FMAX = f64 ? "fmax" : "fmaxf";

    /* names */
    static const char *const AOS_N[] = {"pos", "p", "particles", "bodies", "xyzw"}, *const AOS3_N[] = {"pos", "xyz", "coords", "r", "positions"};
    static const char *const SOA_N[][3] = {{"x", "y", "z"}, {"px", "py", "pz"}, {"posx", "posy", "posz"}, {"rx", "ry", "rz"}};
    static const char *const VOUT[][3] = {{"ax", "ay", "az"}, {"fx", "fy", "fz"}, {"out_x", "out_y", "out_z"}};
    static const char *const V3OUT[] = {"acc", "force", "out", "f"};
    static const char *const EOUT[] = {"energy", "pot", "phi", "e", "u"};
    int pn = synth_fam_pick(&r, 5);
    const char *P = aos3 ? AOS3_N[pn] : AOS_N[pn];
    int sn = synth_fam_pick(&r, 4);
    const char *SX = SOA_N[sn][0], *SY = SOA_N[sn][1], *SZ = SOA_N[sn][2];
    const char *W = coul ? (synth_fam_pick(&r, 2) ? "q" : "charge") : (synth_fam_pick(&r, 2) ? "m" : "mass");
    int vo = op == OP_GACC ? (synth_fam_pick(&r, 2) ? 0 : 2) : 1 + synth_fam_pick(&r, 2);
    const char *OX = VOUT[vo][0], *OY = VOUT[vo][1], *OZ = VOUT[vo][2];
    const char *O3 = V3OUT[op == OP_GACC ? (synth_fam_pick(&r, 2) ? 0 : 2) : 1 + synth_fam_pick(&r, 3)];
    const char *OE = EOUT[op == OP_GPOT ? 1 + synth_fam_pick(&r, 2) : synth_fam_pick(&r, 5) == 0 ? 3 : (synth_fam_pick(&r, 2) ? 0 : 4)];
    const char *SOFT = eps_soft ? "eps" : "soft2";

    static const char *const OPN[OP_N] = {"nbody_accel", "nbody_potential", "coulomb_force", "coulomb_energy", "lj_force", "lj_energy"};
    static const char *const OPN2[OP_N] = {"gravity_acc", "grav_phi", "elec_force", "elec_energy", "lennard_jones_force", "lennard_jones_energy"};
    snprintf(s->name, sizeof s->name, "%s_%s_%s_%s%s%s%s_b%d", synth_fam_pick(&r, 2) ? OPN[op] : OPN2[op], T, LAY,
             tiled ? "smem" : "direct", out3 ? "_xyz" : "", coul && cutoff ? "_rc" : "", shifted ? "_shift" : "", block);
    snprintf(s->identity, sizeof s->identity, "nbody:%s:%s:%s:%s:%s:%d:%s:%s:%s", OPS[op], T, LAY, tiled ? "smem" : "direct",
             out3 ? "xyz" : vec ? "soa" : "scalar", block, cutoff ? "cut" : "nocut", shifted ? "shift" : "-", eps_soft ? "eps" : "soft2");
    const char *n = s->name;

    /* ---- CUDA C ---- */
    pg_buf *c = &s->cu;
    pg_buf_printf(c, "// %s: %s, one thread per particle, %s.\n", n, OPS[op], tiled ? "j-particles staged in shared-memory tiles" : "direct loads");
    pg_buf_printf(c, "extern \"C\" __global__ void %s(", n);
    if (aos) pg_buf_printf(c, "const %s* __restrict__ %s, ", CT, P);
    else if (aos3) {
        pg_buf_printf(c, "const %s* __restrict__ %s, ", CT, P);
        if (!lj) pg_buf_printf(c, "const %s* __restrict__ %s, ", CT, W);
    } else {
        pg_buf_printf(c, "const %s* __restrict__ %s, const %s* __restrict__ %s, const %s* __restrict__ %s, ", CT, SX, CT, SY, CT, SZ);
        if (!lj) pg_buf_printf(c, "const %s* __restrict__ %s, ", CT, W);
    }
    if (out3) pg_buf_printf(c, "%s* __restrict__ %s,", CT, O3);
    else if (vec) pg_buf_printf(c, "%s* __restrict__ %s, %s* __restrict__ %s, %s* __restrict__ %s,", CT, OX, CT, OY, CT, OZ);
    else pg_buf_printf(c, "%s* __restrict__ %s,", CT, OE);
    pg_buf_puts(c, "\n    ");
    if (lj) pg_buf_printf(c, "%s lj_eps, %s sigma, %s cutoff, ", CT, CT, CT);
    else {
        if (coul) pg_buf_printf(c, "%s ke, ", CT);
        pg_buf_printf(c, "%s %s, ", CT, SOFT);
        if (coul && cutoff) pg_buf_printf(c, "%s cutoff, ", CT);
    }
    pg_buf_puts(c, "unsigned int N)\n{\n");
    pg_buf_puts(c, "    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n");
    pg_buf_printf(c, "    %s xi = 0, yi = 0, zi = 0, wi = 0;\n    if (i < N) {\n", CT);
    if (aos && !f64) pg_buf_printf(c, "        float4 p4 = reinterpret_cast<const float4*>(%s)[i];\n        xi = p4.x; yi = p4.y; zi = p4.z; wi = p4.w;\n", P);
    else if (aos) pg_buf_printf(c, "        xi = %s[4 * (size_t)i]; yi = %s[4 * (size_t)i + 1]; zi = %s[4 * (size_t)i + 2]; wi = %s[4 * (size_t)i + 3];\n", P, P, P, P);
    else if (aos3)
        pg_buf_printf(c, "        xi = %s[3 * (size_t)i]; yi = %s[3 * (size_t)i + 1]; zi = %s[3 * (size_t)i + 2];%s%s%s   // xyz triples: three values per particle\n", P, P, P,
                      lj ? "" : " wi = ", lj ? "" : W, lj ? "" : "[i];");
    else pg_buf_printf(c, "        xi = %s[i]; yi = %s[i]; zi = %s[i];%s%s%s\n", SX, SY, SZ, lj ? "" : " wi = ", lj ? "" : W, lj ? "" : "[i];");
    pg_buf_puts(c, "    }\n");
    if (!lj) {
        if (eps_soft) pg_buf_printf(c, "    const %s s2 = eps * eps;\n", CT);
        else pg_buf_printf(c, "    const %s s2 = soft2;\n", CT);
    }
    if (cutoff) pg_buf_printf(c, "    const %s rc2 = cutoff * cutoff;\n", CT);
    if (lj) {
        pg_buf_printf(c, "    const %s sig2 = sigma * sigma, rmin2 = 0.25%s * sig2;\n", CT, L);
        if (shifted) pg_buf_printf(c, "    const %s src2 = sig2 / rc2, src6 = src2 * src2 * src2, ec = 4%s * lj_eps * (src6 * src6 - src6);\n", CT,
                                   f64 ? ".0" : ".0f");
    }
    if (vec) pg_buf_printf(c, "    %s a0 = 0, a1 = 0, a2 = 0;\n", CT);
    else pg_buf_printf(c, "    %s acc = 0;\n", CT);
    /* the body over (xj, yj, zj, wj) of particle jj */
    pg_buf body = {0};
    pg_buf_printf(&body, "%s dx = xj - xi, dy = yj - yi, dz = zj - zi;\n", CT);
    pg_buf_printf(&body, "%s r2 = dx * dx + dy * dy + dz * dz;\n", CT);
    switch (op) {
    case OP_GACC:
        pg_buf_printf(&body, "%s inv = %s(r2 + s2), s = wj * inv * inv * inv;\n", CT, RSQ);
        pg_buf_puts(&body, "a0 += s * dx; a1 += s * dy; a2 += s * dz;\n");
        break;
    case OP_GPOT: pg_buf_printf(&body, "if (jj != i) acc -= wj * %s(r2 + s2);\n", RSQ); break;
    case OP_CFORCE:
        pg_buf_printf(&body, "if (jj != i%s) {\n    %s inv = %s(r2 + s2), s = wj * inv * inv * inv;\n", cutoff ? " && r2 < rc2" : "", CT, RSQ);
        pg_buf_puts(&body, "    a0 -= s * dx; a1 -= s * dy; a2 -= s * dz;   // repulsion for like charges: along p_i - p_j\n}\n");
        break;
    case OP_CENERGY: pg_buf_printf(&body, "if (jj != i%s) acc += wj * %s(r2 + s2);\n", cutoff ? " && r2 < rc2" : "", RSQ); break;
    case OP_LJFORCE:
        pg_buf_printf(&body, "if (jj != i && r2 < rc2) {\n    %s r2c = %s(r2, rmin2), sr2 = sig2 / r2c, sr6 = sr2 * sr2 * sr2;\n", CT, FMAX);
        pg_buf_printf(&body, "    %s s = 24%s * lj_eps * (2%s * sr6 * sr6 - sr6) / r2c;\n", CT, f64 ? ".0" : ".0f", f64 ? ".0" : ".0f");
        pg_buf_puts(&body, "    a0 -= s * dx; a1 -= s * dy; a2 -= s * dz;\n}\n");
        break;
    default:
        pg_buf_printf(&body, "if (jj != i && r2 < rc2) {\n    %s r2c = %s(r2, rmin2), sr2 = sig2 / r2c, sr6 = sr2 * sr2 * sr2;\n", CT, FMAX);
        pg_buf_printf(&body, "    acc += 4%s * lj_eps * (sr6 * sr6 - sr6)%s;\n}\n", f64 ? ".0" : ".0f", shifted ? " - ec" : "");
        break;
    }
    /* indent the body */
    pg_buf ind = {0};
    const char *pad = tiled ? "            " : "        ";
    for (const char *p = body.data; *p;) {
        const char *e = strchr(p, '\n');
        pg_buf_printf(&ind, "%s%.*s\n", pad, (int)(e - p), p);
        p = e + 1;
    }
    if (tiled) {
        pg_buf_printf(c, "    __shared__ %s sx[%d], sy[%d], sz[%d], sw[%d];\n", CT, block, block, block, block);
        pg_buf_printf(c, "    for (unsigned int t0 = 0; t0 < N; t0 += %d) {\n", block);
        pg_buf_puts(c, "        unsigned int j = t0 + threadIdx.x;\n        if (j < N) {\n");
        if (aos && !f64) pg_buf_printf(c, "            float4 q4 = reinterpret_cast<const float4*>(%s)[j];\n            sx[threadIdx.x] = q4.x; sy[threadIdx.x] = q4.y; sz[threadIdx.x] = q4.z; sw[threadIdx.x] = q4.w;\n", P);
        else if (aos) pg_buf_printf(c, "            sx[threadIdx.x] = %s[4 * (size_t)j]; sy[threadIdx.x] = %s[4 * (size_t)j + 1]; sz[threadIdx.x] = %s[4 * (size_t)j + 2]; sw[threadIdx.x] = %s[4 * (size_t)j + 3];\n", P, P, P, P);
        else if (aos3)
            pg_buf_printf(c, "            sx[threadIdx.x] = %s[3 * (size_t)j]; sy[threadIdx.x] = %s[3 * (size_t)j + 1]; sz[threadIdx.x] = %s[3 * (size_t)j + 2]; sw[threadIdx.x] = %s%s;\n", P, P, P,
                          lj ? "0" : W, lj ? "" : "[j]");
        else pg_buf_printf(c, "            sx[threadIdx.x] = %s[j]; sy[threadIdx.x] = %s[j]; sz[threadIdx.x] = %s[j]; sw[threadIdx.x] = %s%s;\n", SX, SY, SZ, lj ? "0" : W, lj ? "" : "[j]");
        pg_buf_puts(c, "        }\n        __syncthreads();\n");
        pg_buf_printf(c, "        unsigned int cnt = N - t0 < %du ? N - t0 : %du;\n", block, block);
        pg_buf_printf(c, "        for (unsigned int k = 0; k < cnt; k++) {\n            unsigned int jj = t0 + k;\n            %s xj = sx[k], yj = sy[k], zj = sz[k], wj = sw[k];\n", CT);
        pg_buf_printf(c, "            (void)jj; (void)wj;\n%s        }\n        __syncthreads();\n    }\n", ind.data);
    } else {
        pg_buf_puts(c, "    if (i >= N) return;\n    for (unsigned int jj = 0; jj < N; jj++) {\n");
        if (aos && !f64) pg_buf_printf(c, "        float4 q4 = reinterpret_cast<const float4*>(%s)[jj];\n        %s xj = q4.x, yj = q4.y, zj = q4.z, wj = q4.w;\n", P, CT);
        else if (aos) pg_buf_printf(c, "        %s xj = %s[4 * (size_t)jj], yj = %s[4 * (size_t)jj + 1], zj = %s[4 * (size_t)jj + 2], wj = %s[4 * (size_t)jj + 3];\n", CT, P, P, P, P);
        else if (aos3)
            pg_buf_printf(c, "        %s xj = %s[3 * (size_t)jj], yj = %s[3 * (size_t)jj + 1], zj = %s[3 * (size_t)jj + 2], wj = %s%s;\n", CT, P, P, P, lj ? "0" : W, lj ? "" : "[jj]");
        else pg_buf_printf(c, "        %s xj = %s[jj], yj = %s[jj], zj = %s[jj], wj = %s%s;\n", CT, SX, SY, SZ, lj ? "0" : W, lj ? "" : "[jj]");
        pg_buf_printf(c, "        (void)wj;\n%s    }\n", ind.data);
    }
    pg_buf_free(&body);
    pg_buf_free(&ind);
    if (tiled) pg_buf_puts(c, "    if (i >= N) return;\n");
    const char *sc = coul ? "ke * wi * " : "";
    if (out3) pg_buf_printf(c, "    %s[3 * (size_t)i] = %sa0; %s[3 * (size_t)i + 1] = %sa1; %s[3 * (size_t)i + 2] = %sa2;\n}\n", O3, sc, O3, sc, O3, sc);
    else if (vec) pg_buf_printf(c, "    %s[i] = %sa0; %s[i] = %sa1; %s[i] = %sa2;\n}\n", OX, sc, OY, sc, OZ, sc);
    else pg_buf_printf(c, "    %s[i] = %sacc;\n}\n", OE, sc);

    /* ---- task.json ---- */
    synth_sp_seal_name(s);
    sp_task t;
    synth_sp_begin(&t, s, "nbody");
    char pt[8];
    snprintf(pt, sizeof pt, "%s*", T);
    /* positions: LJ boxes of side L hold ~0.6 atoms per unit volume; gravity
     * in the unit cube with positive masses; Coulomb in [-1,1]^3, charges +-1 */
    const char *d0 = lj ? "uniform(0,L)" : coul ? "uniform(-1,1)" : "uniform(0,1)";
    const char *d1 = lj ? "uniform(0,L+L/4)" : coul ? "normal(0,1)" : "uniform(1,2)";
    if (aos) synth_sp_ptr(&t, P, pt, "in", "4*N", NULL, NULL);
    else if (aos3) {
        synth_sp_ptr(&t, P, pt, "in", "3*N", NULL, NULL);
        if (!lj) synth_sp_ptr(&t, W, pt, "in", "N", coul ? "uniform(-1,1)" : "uniform(0.5,1.5)", coul ? "uniform(-2,2)" : "uniform(0,1)");
    } else {
        synth_sp_ptr(&t, SX, pt, "in", "N", NULL, NULL);
        synth_sp_ptr(&t, SY, pt, "in", "N", NULL, NULL);
        synth_sp_ptr(&t, SZ, pt, "in", "N", NULL, NULL);
        if (!lj) synth_sp_ptr(&t, W, pt, "in", "N", coul ? "uniform(-1,1)" : "uniform(0.5,1.5)", coul ? "uniform(-2,2)" : "uniform(0,1)");
    }
    if (out3) synth_sp_ptr(&t, O3, pt, "out", "3*N", NULL, NULL);
    else if (vec) {
        synth_sp_ptr(&t, OX, pt, "out", "N", NULL, NULL);
        synth_sp_ptr(&t, OY, pt, "out", "N", NULL, NULL);
        synth_sp_ptr(&t, OZ, pt, "out", "N", NULL, NULL);
    } else synth_sp_ptr(&t, OE, pt, "out", "N", NULL, NULL);
    static const char *const SOFTV[] = {"0.001", "0.01", "0.0025", "0.05"}, *const EPSV[] = {"0.05", "0.1", "0.03", "0.2"};
    static const char *const KEV[] = {"1.0", "0.5", "8.99", "332.0637"}, *const RCV[] = {"0.5", "0.75", "1.0"};
    static const char *const LJE[] = {"0.5", "1.0", "0.25"}, *const LJS[] = {"1.0", "0.8", "1.2"}, *const LJC[] = {"2.5", "3.0", "2.0"};
    const char *ke = KEV[synth_fam_pick(&r, 4)], *sv = eps_soft ? EPSV[synth_fam_pick(&r, 4)] : SOFTV[synth_fam_pick(&r, 4)], *rcv = RCV[synth_fam_pick(&r, 3)];
    const char *lje = LJE[synth_fam_pick(&r, 3)], *ljs = LJS[synth_fam_pick(&r, 3)], *ljc = LJC[synth_fam_pick(&r, 3)];
    if (lj) {
        synth_sp_scal(&t, "lj_eps", T, lje);
        synth_sp_scal(&t, "sigma", T, ljs);
        synth_sp_scal(&t, "cutoff", T, ljc);
    } else {
        if (coul) synth_sp_scal(&t, "ke", T, ke);
        synth_sp_scal(&t, SOFT, T, sv);
        if (coul && cutoff) synth_sp_scal(&t, "cutoff", T, rcv);
    }
    synth_sp_scal(&t, "N", "u32", "N");
    if (lj)
        synth_sp_sizes(&t, "[{\"N\": 8192, \"L\": 24, \"time\": true}, {\"N\": 4099, \"L\": 19}, {\"N\": 1000, \"L\": 12}, {\"N\": 777, \"L\": 11},"
                     " {\"N\": 3, \"L\": 1}, {\"N\": 1, \"L\": 1}]");
    else synth_sp_sizes(&t, "[{\"N\": 8192, \"time\": true}, {\"N\": 4099}, {\"N\": 1000}, {\"N\": 777}, {\"N\": 3}, {\"N\": 1}]");
    char blk[8], grid[32];
    snprintf(blk, sizeof blk, "%d", block);
    snprintf(grid, sizeof grid, "cdiv(N,%d)", block);
    synth_sp_launch(&t, blk, NULL, NULL, grid, NULL, NULL, "0");
    json_t *fp = json_pack("{s:s, s:s, s:s, s:b, s:i, s:b, s:b, s:s}", "op", OPS[op], "dtype", T, "layout", aos ? "aos4" : aos3 ? "aos3" : "soa", "tiled", tiled,
                           "block", block, "cutoff", cutoff, "shifted", shifted, "softening", SOFT);
    if (aos || aos3) json_object_set_new(fp, "pos", json_string(P));
    else json_object_set_new(fp, "pos", json_pack("[s,s,s]", SX, SY, SZ));
    if (!lj && !aos) json_object_set_new(fp, "weight", json_string(W));
    if (out3) json_object_set_new(fp, "out", json_string(O3));
    else if (vec) json_object_set_new(fp, "out", json_pack("[s,s,s]", OX, OY, OZ));
    else json_object_set_new(fp, "out", json_string(OE));
    synth_sp_fparams(&t, fp);

    /* ---- descriptions ---- */
    sp_facts f = {0};
    char pj[96], pi[96], wj[64], wi[64];
    if (aos) {
        snprintf(pj, sizeof pj, "p_j = (%s[4j], %s[4j+1], %s[4j+2])", P, P, P);
        snprintf(pi, sizeof pi, "p_i");
        snprintf(wj, sizeof wj, "%s[4j+3]", P);
        snprintf(wi, sizeof wi, "%s[4i+3]", P);
    } else if (aos3) {
        snprintf(pj, sizeof pj, "p_j = (%s[3j], %s[3j+1], %s[3j+2])", P, P, P);
        snprintf(pi, sizeof pi, "p_i");
        snprintf(wj, sizeof wj, "%s[j]", W);
        snprintf(wi, sizeof wi, "%s[i]", W);
    } else {
        snprintf(pj, sizeof pj, "p_j = (%s[j], %s[j], %s[j])", SX, SY, SZ);
        snprintf(pi, sizeof pi, "p_i");
        snprintf(wj, sizeof wj, "%s[j]", W);
        snprintf(wi, sizeof wi, "%s[i]", W);
    }
    char soft[32];
    snprintf(soft, sizeof soft, "%s", eps_soft ? "eps^2" : "soft2");
    char outv[96];
    if (out3) snprintf(outv, sizeof outv, "(%s[3i], %s[3i+1], %s[3i+2])", O3, O3, O3);
    else if (vec) snprintf(outv, sizeof outv, "(%s[i], %s[i], %s[i])", OX, OY, OZ);
    else snprintf(outv, sizeof outv, "%s[i]", OE);
    const char *lay = aos ? "positions are packed four values per particle (x, y, z, then the %s)" : "positions are three separate arrays";
    char layout[160];
    snprintf(layout, sizeof layout, lay, coul ? "charge" : lj ? "an unused fourth value" : "mass");
    if (aos3) snprintf(layout, sizeof layout, "positions are xyz triples, three values per particle one after another (%s[3i], %s[3i+1], %s[3i+2]; %s has 3*N entries)", P, P, P, P);
    switch (op) {
    case OP_GACC:
        synth_sp_add(&f.name_en, "all-pairs gravitational acceleration");
        synth_sp_add(&f.name_en, "N-body acceleration (softened gravity)");
        synth_sp_add(&f.name_en, "direct-sum n-body force step");
        synth_sp_add(&f.name_en, "O(N^2) gravity kernel");
        synth_sp_add(&f.name_en, "softened Newtonian accelerations");
        synth_sp_add(&f.name_zh, "N 体引力加速度");
        synth_sp_add(&f.name_zh, "全对引力计算");
        synth_sp_add(&f.name_zh, "带软化的 N 体加速度");
        pg_buf_printf(&f.formula, "%s = sum_j %s * (p_j - p_i) / (|p_j - p_i|^2 + %s)^(3/2), %s", outv, wj, soft, pj);
        synth_sp_add(&f.explain_en, "add up, for every particle i and over all particles j, j's mass times the vector from i to j divided by the softened distance cubed (squared distance plus %s, to the power 3/2); the gravitational constant is 1", soft);
        synth_sp_add(&f.explain_en, "compute the gravitational pull on each body from every other body (G = 1), with %s added to every squared distance so close pairs stay finite", soft);
        synth_sp_add(&f.explain_en, "give each body the acceleration sum of m_j (p_j - p_i) / (r^2 + %s)^1.5 over all bodies j (the j = i term is zero)", soft);
        synth_sp_add(&f.explain_zh, "对每个粒子 i，对所有粒子 j 累加 质量_j * (p_j - p_i) / (距离平方 + %s)^(3/2)，引力常数为 1", soft);
        synth_sp_add(&f.explain_zh, "计算每个物体受到其余所有物体的引力加速度（带软化项 %s）", soft);
        break;
    case OP_GPOT:
        synth_sp_add(&f.name_en, "gravitational potential of every body");
        synth_sp_add(&f.name_en, "N-body potential (softened)");
        synth_sp_add(&f.name_en, "all-pairs potential sum");
        synth_sp_add(&f.name_en, "per-particle gravitational potential, direct summation");
        synth_sp_add(&f.name_zh, "N 体引力势");
        synth_sp_add(&f.name_zh, "逐粒子引力势能");
        synth_sp_add(&f.name_zh, "全对势能求和");
        pg_buf_printf(&f.formula, "%s = -sum_{j != i} %s / sqrt(|p_j - p_i|^2 + %s), %s", outv, wj, soft, pj);
        synth_sp_add(&f.explain_en, "subtract, for each particle i and every other particle j, j's mass divided by the softened distance sqrt(squared distance + %s)", soft);
        synth_sp_add(&f.explain_en, "set the potential at each body to minus the sum of m_j / sqrt(r^2 + %s) over all other bodies (G = 1)", soft);
        synth_sp_add(&f.explain_en, "sum -mass_j / softened distance over all j different from i, per particle");
        synth_sp_add(&f.explain_zh, "对每个粒子 i，对其余所有粒子 j 累加 -质量_j / sqrt(距离平方 + %s)", soft);
        synth_sp_add(&f.explain_zh, "计算每个物体处的引力势（G = 1，跳过自身）");
        break;
    case OP_CFORCE:
    case OP_CENERGY: {
        bool force = op == OP_CFORCE;
        synth_sp_add(&f.name_en, force ? "Coulomb force on every charge" : "Coulomb energy of every charge");
        synth_sp_add(&f.name_en, force ? "electrostatic forces, all pairs" : "electrostatic potential energy per particle");
        synth_sp_add(&f.name_en, force ? "pairwise Coulomb force sum" : "pairwise Coulomb energy sum");
        synth_sp_add(&f.name_en, force ? "direct Coulomb summation (forces)%s" : "direct Coulomb summation (energies)%s", cutoff ? " with cutoff" : "");
        synth_sp_add(&f.name_zh, force ? "库仑力" : "库仑势能");
        synth_sp_add(&f.name_zh, force ? "静电力全对求和" : "静电能逐粒子求和");
        synth_sp_add(&f.name_zh, force ? "带电粒子间的库仑力计算" : "带电粒子的库仑能计算");
        char cut[64] = "";
        if (cutoff) snprintf(cut, sizeof cut, ", |p_j - p_i| < cutoff");
        if (force)
            pg_buf_printf(&f.formula, "%s = ke * %s * sum_{j != i%s} %s * (p_i - p_j) / (|p_i - p_j|^2 + %s)^(3/2), %s", outv, wi, cut, wj, soft, pj);
        else pg_buf_printf(&f.formula, "%s = ke * %s * sum_{j != i%s} %s / sqrt(|p_i - p_j|^2 + %s), %s", outv, wi, cut, wj, soft, pj);
        const char *cw = cutoff ? " that lie closer than cutoff" : "";
        if (force) {
            synth_sp_add(&f.explain_en, "sum, for each charge i and over the other charges j%s, q_j times (p_i - p_j) divided by (squared distance + %s)^1.5, then multiply by ke and q_i", cw, soft);
            synth_sp_add(&f.explain_en, "compute the softened Coulomb force on every particle from all other particles%s: like charges push apart, the constant is ke", cw);
            synth_sp_add(&f.explain_en, "evaluate F_i = ke q_i sum_j q_j (p_i - p_j) / (r^2 + %s)^(3/2) over j != i%s", soft, cw);
        } else {
            synth_sp_add(&f.explain_en, "sum, for each charge i, q_j / sqrt(squared distance + %s) over the other charges j%s, then multiply by ke and q_i", soft, cw);
            synth_sp_add(&f.explain_en, "compute each particle's electrostatic energy with all the others%s (softened by %s, constant ke)", cw, soft);
            synth_sp_add(&f.explain_en, "evaluate U_i = ke q_i sum_j q_j / sqrt(r^2 + %s) over j != i%s", soft, cw);
        }
        synth_sp_add(&f.explain_zh, "对每个电荷 i，对其余电荷 j%s 累加 %s，最后乘以 ke 和 q_i", cutoff ? "（距离小于 cutoff）" : "",
               force ? "q_j * (p_i - p_j) / (距离平方 + 软化项)^1.5" : "q_j / sqrt(距离平方 + 软化项)");
        synth_sp_add(&f.explain_zh, "计算每个带电粒子受到的%s", force ? "库仑力（同号相斥）" : "库仑势能");
        break;
    }
    default: {
        bool force = op == OP_LJFORCE;
        synth_sp_add(&f.name_en, force ? "Lennard-Jones forces with a cutoff" : "per-atom Lennard-Jones energy with a cutoff");
        synth_sp_add(&f.name_en, force ? "LJ 12-6 force kernel" : "LJ 12-6 energy kernel%s", shifted ? " (shifted potential)" : "");
        synth_sp_add(&f.name_en, force ? "molecular dynamics pair forces (Lennard-Jones)" : "molecular dynamics pair energy (Lennard-Jones)");
        synth_sp_add(&f.name_en, force ? "all-pairs LJ force" : "all-pairs LJ energy");
        synth_sp_add(&f.name_zh, force ? "Lennard-Jones 力" : "Lennard-Jones 势能");
        synth_sp_add(&f.name_zh, force ? "LJ 势的原子受力" : "逐原子 LJ 能量");
        synth_sp_add(&f.name_zh, force ? "分子动力学 LJ 对力" : "分子动力学 LJ 对势能");
        if (force)
            pg_buf_printf(&f.formula, "%s = sum_{j != i, r2 < cutoff^2} 24*lj_eps*(2*sr6^2 - sr6)/r2c * (p_i - p_j), r2 = |p_i - p_j|^2, r2c = max(r2, sigma^2/4), sr6 = (sigma^2/r2c)^3, %s",
                          outv, pj);
        else pg_buf_printf(&f.formula, "%s = sum_{j != i, r2 < cutoff^2} [4*lj_eps*(sr6^2 - sr6)%s], r2 = |p_i - p_j|^2, r2c = max(r2, sigma^2/4), sr6 = (sigma^2/r2c)^3%s, %s",
                           outv, shifted ? " - ec" : "", shifted ? ", ec = 4*lj_eps*((sigma^2/cutoff^2)^6 - (sigma^2/cutoff^2)^3)" : "", pj);
        if (force) {
            synth_sp_add(&f.explain_en, "add to each atom the 12-6 Lennard-Jones force 24 eps (2 (s/r)^12 - (s/r)^6) / r^2 times (p_i - p_j) from every other atom within the cutoff; before the powers, clamp r^2 to at least (sigma/2)^2");
            synth_sp_add(&f.explain_en, "compute Lennard-Jones forces (well depth lj_eps, size sigma) on every atom from all neighbours closer than cutoff, with squared distances below sigma^2/4 treated as sigma^2/4");
        } else {
            synth_sp_add(&f.explain_en, "add to each atom 4 eps ((s/r)^12 - (s/r)^6)%s for every other atom within the cutoff; clamp r^2 to at least (sigma/2)^2 before the powers, but test the cutoff with the real r^2",
                   shifted ? " minus its value at the cutoff" : "");
            synth_sp_add(&f.explain_en, "sum the per-atom Lennard-Jones energy (well depth lj_eps, size sigma) over all neighbours closer than cutoff%s; squared distances below sigma^2/4 count as sigma^2/4",
                   shifted ? ", with the potential shifted so it is zero at the cutoff" : "");
        }
        /* h114: this one states the clamp (and the shift) too, like the two above */
        synth_sp_add(&f.explain_en, "compute an all-pairs Lennard-Jones %s where j runs over every atom except i and pairs at or beyond cutoff contribute nothing; a squared distance "
                     "under (sigma/2)^2 is raised to (sigma/2)^2 before the powers%s", force ? "force" : "energy",
                     shifted ? ", and each pair energy has its value at the cutoff subtracted (shifted to zero there)" : "");
        synth_sp_add(&f.explain_zh, "对每个原子 i，累加截断半径内所有其他原子 j 的 Lennard-Jones %s；计算幂次前把 r² 下限截断为 (sigma/2)²，截断判断用原始 r²%s",
               force ? "力 24*eps*(2*sr6² - sr6)/r2c * (p_i - p_j)" : "势能 4*eps*(sr6² - sr6)", shifted ? "，势能平移使其在截断处为 0" : "");
        synth_sp_add(&f.explain_zh, "分子动力学中逐原子计算 LJ %s（参数 lj_eps、sigma、cutoff），r² 小于 (sigma/2)² 时按 (sigma/2)² 计算%s", force ? "受力" : "能量",
                     shifted ? "，每对势能减去其在截断处的值（平移到 0）" : "");
        break;
    }
    }
    /* Every explanation states the position layout (and where the weights live), the way the
     * suite's prose does ("xyz triples", "packed as x,y,z"): the layout is in shape_en too, but
     * prose frames never render {shape}, so before h114 2% of nbody prose said it.  The wording is
     * drawn per explanation from a stream of its own, so no other draw moves.
     * test_synth_prose_facts reads it back against the task's parameters. */
    {
        fam_rng lr = {seed ^ 0x6c61796f75740000ull};
        const char *what4 = coul ? "the charge" : lj ? "an unused padding value" : "the mass";
        const char *what4z = coul ? "电荷" : lj ? "不用的填充值" : "质量";
        const char *wn = coul ? "charges" : "masses", *wz = coul ? "电荷" : "质量";
        char ex[SP_LIST_MAX][256], ez[SP_LIST_MAX][256], wx[96] = "", wxz[96] = "";
        if (!lj && !aos) {
            snprintf(wx, sizeof wx, synth_fam_pick(&lr, 2) ? ", with the %s in %s" : " (%s: %s)", wn, W);
            snprintf(wxz, sizeof wxz, "，%s 存在 %s 中", wz, W);
        }
        int nw = 4, k0 = synth_fam_pick(&lr, 4);
        for (int k = 0; k < nw; k++) {
            int w = (k0 + k) % nw;
            if (aos) {
                static const char *const A4[] = {"; %s holds four numbers per particle: x, y, z and then %s", "; particle i is %s[4i] .. %s[4i+3] (x, y, z, then %s)",
                                                 "; positions are packed in groups of four values in %s (x, y, z, %s)", "; each particle takes 4 consecutive values of %s: its x, y and z coordinates and %s"};
                if (w == 1) snprintf(ex[k], sizeof ex[k], A4[w], P, P, what4);
                else snprintf(ex[k], sizeof ex[k], A4[w], P, what4);
                snprintf(ez[k], sizeof ez[k], w % 2 ? "；%s 中每个粒子连续存 4 个值（x、y、z，然后是%s）" : "；粒子 i 占 %s 的第 4i 到 4i+3 个值（x、y、z、%s）", P, what4z);
            } else if (aos3) {
                static const char *const A3[] = {"; %s holds three numbers per particle (x, y and z, back to back)%s", "; particle i's coordinates are %s[3i], %s[3i+1] and %s[3i+2]%s",
                                                 "; positions are interleaved xyz, three values per particle in %s%s", "; %s stores the coordinates as packed xyz triples (3*N values)%s"};
                if (w == 1) snprintf(ex[k], sizeof ex[k], A3[w], P, P, P, wx);
                else snprintf(ex[k], sizeof ex[k], A3[w], P, wx);
                snprintf(ez[k], sizeof ez[k], w % 2 ? "；坐标按 xyz 三元组存放在 %s 中（每个粒子 3 个值）%s" : "；%s 中每个粒子连续存 x、y、z 三个值%s", P, wxz);
            } else {
                static const char *const S3[] = {"; the coordinates live in three separate arrays %s, %s and %s%s", "; x, y and z each have their own array (%s, %s, %s)%s",
                                                 "; positions are split into %s, %s and %s, one array per axis%s", "; the x, y and z of particle i are %s[i], %s[i] and %s[i] (three arrays)%s"};
                snprintf(ex[k], sizeof ex[k], S3[w], SX, SY, SZ, wx);
                snprintf(ez[k], sizeof ez[k], w % 2 ? "；x、y、z 坐标分别存放在 %s、%s、%s 三个数组中%s" : "；坐标按轴分成 %s、%s、%s 三个数组%s", SX, SY, SZ, wxz);
            }
        }
        for (int i = 0; i < f.explain_en.n; i++) {
            pg_buf b = {0};
            pg_buf_printf(&b, "%s%s", f.explain_en.v[i], ex[i % nw]);
            free(f.explain_en.v[i]);
            f.explain_en.v[i] = b.data;
        }
        for (int i = 0; i < f.explain_zh.n; i++) {
            pg_buf b = {0};
            pg_buf_printf(&b, "%s%s", f.explain_zh.v[i], ez[i % nw]);
            free(f.explain_zh.v[i]);
            f.explain_zh.v[i] = b.data;
        }
    }
    if (tiled) {
        synth_sp_add(&f.how_en, "one thread per particle, with the block staging %d j-particles at a time in shared memory, a barrier, then a loop over the tile", block);
        synth_sp_add(&f.how_en, "shared-memory tiling of the j loop (tile = block = %d), every thread helps load each tile", block);
        synth_sp_add(&f.how_zh, "每个线程一个粒子，线程块每次把 %d 个粒子载入共享内存后再遍历", block);
    } else {
        synth_sp_add(&f.how_en, "one thread per particle, j loop reading particles straight from global memory");
        synth_sp_add(&f.how_en, "a simple direct kernel in which thread i loops over all N particles");
        synth_sp_add(&f.how_zh, "每个线程一个粒子，直接从全局内存读取所有粒子");
    }
    pg_buf_printf(&f.shape_en, "There are N particles; %s%s%s", layout,
                  !aos && !lj ? (aos3 ? (coul ? ", charges in an array of N" : ", masses in an array of N") : coul ? ", charges in a fourth array" : ", masses in a fourth array") : "",
                  out3 ? "; the result is written as xyz triples" : vec ? "; the result vector goes to three arrays" : "");
    pg_buf_printf(&f.shape_zh, "N 个粒子；%s%s", aos ? "每个粒子四个值（x、y、z、第四个分量）连续存放" : aos3 ? "坐标按 xyz 三元组交错存放（每个粒子 3 个值）" : "坐标为三个独立数组",
                  out3 ? "；结果按 xyz 三元组写出" : vec ? "；结果向量写入三个数组" : "");
    if (lj) pg_buf_printf(&f.notes_en, "lj_eps = %s, sigma = %s, cutoff = %s are scalars", lje, ljs, ljc);
    else if (coul) pg_buf_printf(&f.notes_en, "ke = %s and %s = %s are scalars%s%s", ke, SOFT, sv, cutoff ? "; cutoff = " : "", cutoff ? rcv : "");
    else pg_buf_printf(&f.notes_en, "%s = %s is a scalar%s", SOFT, sv, eps_soft ? " (add eps*eps to the squared distance)" : " added to the squared distance");
    pg_buf_printf(&f.notes_zh, "%s", lj ? "lj_eps、sigma、cutoff 为标量参数" : coul ? "ke 与软化项为标量参数" : "软化项为标量参数");
    char bytes[64], flops[32];
    int es = f64 ? 8 : 4;
    snprintf(bytes, sizeof bytes, "%d*N", es * ((aos3 && lj ? 3 : 4) + (vec ? 3 : 1)));
    snprintf(flops, sizeof flops, "%d*N*N", lj ? 22 : 20);
    f.data = DESC_DATA_VECTOR;
    f.hints = tiled ? DESC_HINT_SMEM : 0u;
    f.elems_per_thread = 1;
    synth_sp_finish(&t, &f, seed, d0, d1, T, f64 ? 1e-10 : 1e-4, synth_fam_ref(synth_fam_gen_nbody), bytes, flops);
    synth_sp_facts_free(&f);
    return PG_OK;
}
