/* family_sparse_sort.c — the "sortnet" family (CUDA C, nvcc): sorting
 * network kernels on u32/s32/f32 keys, optionally carrying a value array.
 *
 *   bitonic_step   one compare-exchange stage (j, k) of a bitonic sort over
 *                  n = 2^m keys in place: pairs (i, i^j), ascending where
 *                  (i & k) == 0 (or the reverse for a descending sort); one
 *                  thread per pair or one per element (the lower one acts)
 *   block_sort     a full bitonic sort of every segment of B = 64..1024
 *                  consecutive keys in shared memory (one thread per key; the
 *                  last partial segment is padded with +-infinity / INT
 *                  extremes that sort to its end and are not written back),
 *                  ascending or descending, in place or into an output array
 *   oddeven_step   one phase of odd-even transposition sort: pairs (i, i+1)
 *                  with i = phase mod 2, ascending or descending
 *
 * Key-value variants permute the values with their keys; their keys come
 * from the `perm` generator (distinct) so the order is unique.  Pairs that
 * are already in order (ties included) are left alone.  Reference:
 * task_ref_fam_sortnet (src/task/refs_sparse_sort.c). */
#include "family_sparse.h"

#include <stdio.h>
#include <string.h>

enum { SN_STEP, SN_BLOCK, SN_OE, SN_N };

pg_status synth_fam_gen_sortnet(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x736f72746e000019ull};
    int op = synth_fam_pick(&r, SN_N), kt = synth_fam_pick(&r, 3);   /* key type: u32, s32, f32 */
    bool kv = synth_fam_pick(&r, 3) == 0, desc = synth_fam_pick(&r, 3) == 0, per_elem = synth_fam_pick(&r, 2), inplace = synth_fam_pick(&r, 2);
    int block = 64 << synth_fam_pick(&r, op == SN_BLOCK ? 5 : 4);   /* block_sort: 64..1024 */
    if (op != SN_STEP) per_elem = false;
    /* u32 keys from perm include 0, the descending padding value: a padded
     * slot could then swap places with a real key 0 and carry its value off */
    if (op == SN_BLOCK && kv && desc && kt == 0) kt = 1;
    if (op != SN_BLOCK) inplace = true;
    static const char *const KT[] = {"u32", "s32", "f32"}, *const KC[] = {"unsigned int", "int", "float"};
    const char *T = KT[kt], *CT = KC[kt];
    static const char *const KN[][2] = {{"keys", "vals"}, {"data", "idx"}, {"a", "payload"}, {"arr", "values"}, {"key", "val"}};
    static const char *const JK[][2] = {{"j", "k"}, {"stride", "seq"}, {"partner", "size"}};
    int kn = synth_fam_pick(&r, 5), jk = synth_fam_pick(&r, 3);
    const char *K = KN[kn][0], *V = KN[kn][1], *J = JK[jk][0], *KK = JK[jk][1], *OUT = "out", *VOUT = "vals_out";
    static const char *const OPS[] = {"bitonic_step", "block_sort", "oddeven_step"};
    char extra[32] = "";
    snprintf(extra, sizeof extra, "%s%s%s", kv ? "_kv" : "", desc ? "_desc" : "", op == SN_BLOCK && !inplace ? "_oop" : "");
    if (op == SN_STEP) snprintf(s->name, sizeof s->name, "%s_%s_%s_b%d%s", synth_fam_pick(&r, 2) ? "bitonic_step" : "bitonic_cmpx", T, per_elem ? "elem" : "pair", block, extra);
    else if (op == SN_BLOCK) snprintf(s->name, sizeof s->name, "%s_%s_%d%s", synth_fam_pick(&r, 2) ? "bitonic_block_sort" : "smem_sort", T, block, extra);
    else snprintf(s->name, sizeof s->name, "%s_%s_b%d%s", synth_fam_pick(&r, 2) ? "oddeven_step" : "odd_even_transpose", T, block, extra);
    snprintf(s->identity, sizeof s->identity, "sortnet:%s:%s:%s:%s:%s:%d:%s", OPS[op], T, kv ? "kv" : "k", desc ? "desc" : "asc", per_elem ? "elem" : "pair", block,
             inplace ? "inplace" : "oop");
    const char *n = s->name;
    /* the comparison that says a (lower position) and b are out of order, for an ascending pair */
    const char *gt = "ka > kb", *lt = "ka < kb";

    /* ---- CUDA C ---- */
    pg_buf *c = &s->cu;
    if (op == SN_STEP || op == SN_OE) {
        pg_buf_printf(c, "// %s: %s on %s keys%s, %s.\n", n, OPS[op], CT, kv ? " with values" : "", desc ? "descending" : "ascending");
        pg_buf_printf(c, "extern \"C\" __global__ void %s(%s* %s, %s", n, CT, K, kv ? "unsigned int* " : "");
        if (kv) pg_buf_printf(c, "%s, ", V);
        if (op == SN_STEP) pg_buf_printf(c, "unsigned int n, unsigned int %s, unsigned int %s)\n{\n", J, KK);
        else pg_buf_puts(c, "unsigned int n, unsigned int phase)\n{\n");
        if (op == SN_STEP && per_elem) {
            pg_buf_puts(c, "    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i >= n) return;\n");
            pg_buf_printf(c, "    unsigned int l = i ^ %s;\n    if (l <= i) return;   // the lower element of each pair acts\n", J);
        } else if (op == SN_STEP) {
            pg_buf_puts(c, "    unsigned int p = blockIdx.x * blockDim.x + threadIdx.x;\n    if (p >= n / 2) return;\n");
            pg_buf_printf(c, "    unsigned int i = ((p & ~(%s - 1)) << 1) | (p & (%s - 1)), l = i + %s;   // insert a 0 bit at %s\n", J, J, J, J);
        } else {
            pg_buf_puts(c, "    unsigned int i = 2 * (blockIdx.x * blockDim.x + threadIdx.x) + phase, l = i + 1;\n    if (l >= n) return;\n");
        }
        pg_buf_printf(c, "    %s ka = %s[i], kb = %s[l];\n", CT, K, K);
        if (op == SN_STEP) pg_buf_printf(c, "    bool up = (i & %s) %s 0;\n    if (up ? %s : %s) {\n", KK, desc ? "!=" : "==", gt, lt);
        else pg_buf_printf(c, "    if (%s) {\n", desc ? lt : gt);
        pg_buf_printf(c, "        %s[i] = kb; %s[l] = ka;\n", K, K);
        if (kv) pg_buf_printf(c, "        unsigned int t = %s[i]; %s[i] = %s[l]; %s[l] = t;\n", V, V, V, V);
        pg_buf_puts(c, "    }\n}\n");
    } else {
        const char *pad = kt == 2 ? (desc ? "-__int_as_float(0x7f800000)" : "__int_as_float(0x7f800000)") : kt == 1 ? (desc ? "(-2147483647 - 1)" : "2147483647") : (desc ? "0u" : "0xffffffffu");
        pg_buf_printf(c, "// %s: bitonic sort of every %d-key segment in shared memory, %s%s.\n", n, block, desc ? "descending" : "ascending", kv ? ", values follow their keys" : "");
        pg_buf_printf(c, "extern \"C\" __global__ void %s(%s%s* %s, ", n, inplace ? "" : "const ", CT, K);
        if (kv) pg_buf_printf(c, "%sunsigned int* %s, ", inplace ? "" : "const ", V);
        if (!inplace) {
            pg_buf_printf(c, "%s* %s, ", CT, OUT);
            if (kv) pg_buf_printf(c, "unsigned int* %s, ", VOUT);
        }
        pg_buf_puts(c, "unsigned int n)\n{\n");
        pg_buf_printf(c, "    __shared__ %s sk[%d];\n", CT, block);
        if (kv) pg_buf_printf(c, "    __shared__ unsigned int sv[%d];\n", block);
        pg_buf_printf(c, "    unsigned int t = threadIdx.x;\n    size_t g = (size_t)blockIdx.x * %d + t;\n", block);
        pg_buf_printf(c, "    sk[t] = g < n ? %s[g] : %s;   // padding sorts to the end\n", K, pad);
        if (kv) pg_buf_printf(c, "    sv[t] = g < n ? %s[g] : 0u;\n", V);
        pg_buf_puts(c, "    __syncthreads();\n");
        pg_buf_printf(c, "    for (unsigned int k = 2; k <= %d; k <<= 1)\n        for (unsigned int j = k >> 1; j > 0; j >>= 1) {\n", block);
        pg_buf_puts(c, "            unsigned int l = t ^ j;\n            if (l > t) {\n");
        pg_buf_printf(c, "                bool up = (t & k) %s 0;\n                %s ka = sk[t], kb = sk[l];\n", desc ? "!=" : "==", CT);
        pg_buf_printf(c, "                if (up ? %s : %s) {\n                    sk[t] = kb; sk[l] = ka;\n", gt, lt);
        if (kv) pg_buf_puts(c, "                    unsigned int tv = sv[t]; sv[t] = sv[l]; sv[l] = tv;\n");
        pg_buf_puts(c, "                }\n            }\n            __syncthreads();\n        }\n");
        pg_buf_printf(c, "    if (g < n) {\n        %s[g] = sk[t];\n", inplace ? K : OUT);
        if (kv) pg_buf_printf(c, "        %s[g] = sv[t];\n", inplace ? V : VOUT);
        pg_buf_puts(c, "    }\n}\n");
    }

    /* ---- task.json ---- */
    synth_sp_seal_name(s);
    sp_task t;
    synth_sp_begin(&t, s, "sortnet");
    char pt[8];
    snprintf(pt, sizeof pt, "%s*", T);
    const char *kd0 = kt == 2 ? "uniform(-1,1)" : kt == 1 ? "int(-1000000,1000000)" : "int(0,4294967295)";
    const char *kd1 = kt == 2 ? "normal(0,100)" : kt == 1 ? "int(-8,7)" : "int(0,15)";
    if (kv) kd0 = kd1 = "perm";   /* distinct keys: the key-value order is unique */
    const char *krole = inplace ? "inout" : "in";
    synth_sp_ptr(&t, K, pt, krole, "n", kd0, kd1);
    if (kv) synth_sp_ptr(&t, V, "u32*", krole, "n", "iota", "perm");
    if (!inplace) {
        synth_sp_ptr(&t, OUT, pt, "out", "n", NULL, NULL);
        if (kv) synth_sp_ptr(&t, VOUT, "u32*", "out", "n", NULL, NULL);
    }
    synth_sp_scal(&t, "n", "u32", "n");
    char sizes[600];
    if (op == SN_STEP) {
        synth_sp_scal(&t, J, "u32", J);
        synth_sp_scal(&t, KK, "u32", KK);
        snprintf(sizes, sizeof sizes,
                 "[{\"n\": 4194304, \"%s\": 2048, \"%s\": 262144, \"time\": true}, {\"n\": 65536, \"%s\": 1, \"%s\": 2}, {\"n\": 65536, \"%s\": 32768, \"%s\": 65536},"
                 " {\"n\": 4096, \"%s\": 16, \"%s\": 64}, {\"n\": 128, \"%s\": 64, \"%s\": 128}, {\"n\": 64, \"%s\": 2, \"%s\": 8}, {\"n\": 2, \"%s\": 1, \"%s\": 2}]",
                 J, KK, J, KK, J, KK, J, KK, J, KK, J, KK, J, KK);
    } else if (op == SN_OE) {
        synth_sp_scal(&t, "phase", "u32", "phase");
        snprintf(sizes, sizeof sizes,
                 "[{\"n\": 4000000, \"phase\": 0, \"time\": true}, {\"n\": 100001, \"phase\": 1}, {\"n\": 1000, \"phase\": 0}, {\"n\": 999, \"phase\": 1},"
                 " {\"n\": 2, \"phase\": 1}, {\"n\": 1, \"phase\": 0}]");
    } else {
        snprintf(sizes, sizeof sizes, "[{\"n\": 4194301, \"time\": true}, {\"n\": 100003}, {\"n\": 1000}, {\"n\": %d}, {\"n\": 1}]", block);
    }
    synth_sp_sizes(&t, sizes);
    char blk[8], grid[40];
    snprintf(blk, sizeof blk, "%d", block);
    if (op == SN_STEP) snprintf(grid, sizeof grid, per_elem ? "cdiv(n,%d)" : "cdiv(n/2,%d)", block);
    else if (op == SN_OE) snprintf(grid, sizeof grid, "cdiv(n,%d)", 2 * block);
    else snprintf(grid, sizeof grid, "cdiv(n,%d)", block);
    synth_sp_launch(&t, blk, NULL, NULL, grid, NULL, NULL, "0");
    json_t *fp = json_pack("{s:s, s:s, s:b, s:b, s:i, s:b, s:s, s:s, s:s, s:s}", "op", OPS[op], "dtype", T, "kv", kv, "descending", desc, "block", block,
                           "inplace", inplace, "keys", K, "vals", V, "j", J, "k", KK);
    if (!inplace) {
        json_object_set_new(fp, "out", json_string(OUT));
        json_object_set_new(fp, "vals_out", json_string(VOUT));
    }
    synth_sp_fparams(&t, fp);

    /* ---- descriptions ---- */
    sp_facts f = {0};
    const char *dir = desc ? "descending" : "ascending", *dirz = desc ? "降序" : "升序";
    const char *carry = kv ? ", moving the matching entry of the value array along with each key" : "";
    const char *carryz = kv ? "，值数组随键一起移动" : "";
    if (op == SN_STEP) {
        pg_buf_printf(&f.formula, "for every i < n with l = i ^ %s > i: if (i & %s) %s 0 sort the pair (%s[i], %s[l]) ascending, else descending (swap only when out of order)", J, KK,
                      desc ? "!=" : "==", K, K);
        synth_sp_add(&f.name_en, "bitonic sort compare-exchange step");
        synth_sp_add(&f.name_en, "one (%s, %s) stage of a bitonic sorting network", J, KK);
        synth_sp_add(&f.name_en, "bitonic merge step%s", kv ? " on key-value pairs" : "");
        synth_sp_add(&f.name_en, "bitonic sort pass over %s keys", T);
        synth_sp_add(&f.name_zh, "双调排序的一步比较交换");
        synth_sp_add(&f.name_zh, "bitonic 排序网络的一个阶段");
        synth_sp_add(&f.name_zh, "双调归并步骤");
        synth_sp_add(&f.explain_en, "pair every index i with l = i XOR %s (only when l > i); the pair should be %s when i AND %s is zero and the other way round otherwise; swap the two keys when they are out of that order%s",
               J, desc ? "descending" : "ascending", KK, carry);
        synth_sp_add(&f.explain_en, "perform one launch of a bitonic sort over n (a power of two) keys in place: %s is the partner distance and %s the size of the sequences being merged; a full %s sort launches it for %s = 2, 4, ..., n and %s = %s/2, ..., 1",
               J, KK, dir, KK, J, KK);
        synth_sp_add(&f.explain_zh, "下标 i 与 l = i ^ %s（l > i）配对；若 i & %s 为 0 则该对按%s，否则相反；次序不对就交换%s", J, KK, dirz, carryz);
        synth_sp_add(&f.explain_zh, "对 n（2 的幂）个键原地执行双调排序的一个阶段，%s 为配对距离，%s 为当前合并序列长度", J, KK);
        synth_sp_add(&f.how_en, per_elem ? "one thread per element; the thread of the lower index of each pair does the exchange" : "one thread per pair: thread p handles i = ((p & ~(j-1)) << 1) | (p & (j-1)) and i + j");
        synth_sp_add(&f.how_zh, per_elem ? "每个线程一个元素，由配对中下标较小的线程负责交换" : "每个线程处理一对元素");
        pg_buf_printf(&f.notes_en, "The count n is a power of two; %s and %s are powers of two with %s < %s <= n", J, KK, J, KK);
        pg_buf_printf(&f.notes_zh, "n 为 2 的幂，%s、%s 为 2 的幂且 %s < %s <= n", J, KK, J, KK);
    } else if (op == SN_BLOCK) {
        pg_buf_printf(&f.formula, "%s[s*%d .. s*%d + %d) = the %s-sorted keys of %s[s*%d .. min(s*%d + %d, n)) for every segment s", inplace ? K : OUT, block, block, block, dir, K, block, block, block);
        synth_sp_add(&f.name_en, "per-block bitonic sort in shared memory");
        synth_sp_add(&f.name_en, "sort every %d-element chunk (%s)", block, dir);
        synth_sp_add(&f.name_en, "segmented %s sort of fixed-size tiles", dir);
        synth_sp_add(&f.name_en, "block-local bitonic sort%s", kv ? " of key-value pairs" : "");
        synth_sp_add(&f.name_zh, "块内双调排序");
        synth_sp_add(&f.name_zh, "每 %d 个元素分段排序", block);
        synth_sp_add(&f.name_zh, "共享内存分块排序");
        synth_sp_add(&f.explain_en, "split the n keys into consecutive segments of %d (the last one may be shorter) and sort each segment %s%s%s", block, dir, carry,
               inplace ? ", in place" : ", writing the result to a separate array");
        synth_sp_add(&f.explain_en, "load each block's %d keys into shared memory, run the complete bitonic network on them and write them back sorted %s%s", block, dir, carry);
        synth_sp_add(&f.explain_zh, "把 n 个键按每段 %d 个划分（最后一段可以更短），每段按%s排序%s%s", block, dirz, carryz, inplace ? "，原地写回" : "，写到输出数组");
        synth_sp_add(&f.explain_zh, "每个线程块把 %d 个键载入共享内存，做完整的双调排序网络后写回", block);
        synth_sp_add(&f.how_en, "one thread per key, bitonic network in shared memory with a barrier after every stage; the last segment is padded with keys that sort to its end");
        synth_sp_add(&f.how_zh, "每个线程一个键，在共享内存中执行双调网络，每个阶段后同步；最后一段用排到末尾的哨兵补齐");
        pg_buf_printf(&f.notes_en, "The count n is arbitrary; segment boundaries are at multiples of %d", block);
        pg_buf_printf(&f.notes_zh, "n 任意，分段边界为 %d 的倍数", block);
    } else {
        pg_buf_printf(&f.formula, "for every i = phase, phase+2, ... with i+1 < n: if %s[i] %s %s[i+1] swap them", K, desc ? "<" : ">", K);
        synth_sp_add(&f.name_en, "odd-even transposition sort step");
        synth_sp_add(&f.name_en, "one phase of odd-even (brick) sort");
        synth_sp_add(&f.name_en, "compare-exchange of neighbouring pairs");
        synth_sp_add(&f.name_en, "odd/even merge pass (%s)", dir);
        synth_sp_add(&f.name_zh, "奇偶转置排序的一步");
        synth_sp_add(&f.name_zh, "奇偶排序的一个阶段");
        synth_sp_add(&f.name_zh, "相邻元素比较交换");
        synth_sp_add(&f.explain_en, "look at the neighbouring pairs (i, i+1) that start at i = phase, phase + 2, ...; swap a pair when it is not in %s order%s; the last element has no partner when the count does not work out",
               dir, carry);
        synth_sp_add(&f.explain_en, "perform one sweep of odd-even transposition sort (phase 0 compares (0,1), (2,3), ..., phase 1 compares (1,2), (3,4), ...) that orders the keys %s in place", dir);
        synth_sp_add(&f.explain_zh, "对从 phase 开始、步长为 2 的相邻元素对 (i, i+1)，若不满足%s就交换%s", dirz, carryz);
        synth_sp_add(&f.explain_zh, "奇偶转置排序的一趟：phase 为 0 比较 (0,1)、(2,3)…，为 1 比较 (1,2)、(3,4)…");
        synth_sp_add(&f.how_en, "one thread per pair: thread t handles i = 2t + phase");
        synth_sp_add(&f.how_zh, "每个线程处理一对：i = 2t + phase");
    }
    pg_buf_printf(&f.shape_en, "%s holds n %s keys", K, T);
    pg_buf_printf(&f.shape_zh, "%s 含 n 个 %s 键", K, T);
    if (kv) {   /* the values' rule is stated with the layout, so every style carries it */
        const char *vin = V, *vout = inplace ? V : VOUT;
        pg_buf_printf(&f.shape_en, "; %s holds n u32 values, and whenever two keys swap their values swap too (the result goes to %s)", vin, vout);
        pg_buf_printf(&f.shape_zh, "；%s 含 n 个 u32 值，键交换时值也随之交换（结果写入 %s）", vin, vout);
    }
    char bytes[48], flops[32];
    snprintf(bytes, sizeof bytes, "%d*n", kv ? 16 : 8);
    snprintf(flops, sizeof flops, "%s", op == SN_BLOCK ? "n*55" : "n/2");
    f.data = DESC_DATA_VECTOR;
    f.hints = (inplace ? DESC_HINT_INPLACE : 0u) | (op == SN_BLOCK ? DESC_HINT_SMEM : 0u);
    f.elems_per_thread = op == SN_BLOCK || per_elem ? 1 : 0;
    synth_sp_finish(&t, &f, seed, kd0, kd1, T, 0.0, synth_fam_ref(synth_fam_gen_sortnet), bytes, flops);
    synth_sp_facts_free(&f);
    return PG_OK;
}
