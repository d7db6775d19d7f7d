/* test_card.c — the Markdown kernel card parser (card.c), the one `ptxgen gen` and
 * the Python package share: fields, one-line cards, parameters (types, roles, sizes,
 * defaults), the signature, errors, and gen_card_json against a golden file. */
#include "common/test.h"
#include "ptxgen/decode.h"

static const char *lj_one_line =
    "## GPU Kernel: LJ_Potential_Calculation - Input: `float3* positions` (N atoms), `float* masses` (N), "
    "`float cutoff_sq = 100.0f` - Output: `float* forces` (N*3), `float* energies` (N) - Goal: For each atom i, "
    "compute force and energy from all atoms j where `distance(i,j)^2 < cutoff_sq`. - Constraint: Use shared "
    "memory to cache a tile of `positions` for coalesced access. Avoid bank conflict.";

static const gen_card_param *param(const gen_card *c, const char *name) {
    for (int i = 0; i < c->nparams; i++)
        if (!strcmp(c->params[i].name, name)) return &c->params[i];
    return NULL;
}

int main(void) {
    gen_card c;
    pg_buf sig = {0};
    char why[256];

    /* the shipped example card */
    char *saxpy = NULL;
    size_t n = 0;
    pg_diag_sink q = {0};
    CHECK(pg_read_file("examples/saxpy.card.md", 1 << 16, &saxpy, &n, &q) == PG_OK, "examples/saxpy.card.md readable");
    gen_card_parse(saxpy ? saxpy : "", &c);
    CHECK(c.ok && !strcmp(c.kernel, "saxpy"), "saxpy card: ok, kernel saxpy");
    CHECK(gen_signature_from_card(&c, &sig, why, sizeof why) &&
              !strcmp(sig.data, ".visible .entry saxpy(\n\t.param .u64 x,\n\t.param .u64 y,\n\t.param .f32 a,\n\t.param .u32 n\n)"),
          "saxpy signature: %s", sig.data ? sig.data : why);
    CHECK(param(&c, "y") && !strcmp(param(&c, "y")->role, "inout") && !strcmp(param(&c, "n")->role, "size"), "roles");
    pg_buf_free(&sig);
    gen_card_free(&c);
    free(saxpy);

    /* a card on one line (as pasted from the article): normalized, the same parameters */
    gen_card_parse(lj_one_line, &c);
    CHECK(c.ok && !strcmp(c.kernel, "GPU_Kernel_LJ_Potential_Calculation"), "one-line card parses: %s", c.kernel);
    int lines = 0;
    for (const char *p = c.text; p && *p; p++) lines += *p == '\n';
    CHECK(lines == 5, "normalized to 5 lines (%d):\n%s", lines, c.text);
    const char *want[] = {"positions", "masses", "forces", "energies", "cutoff_sq", "N"};
    bool order = c.nparams == 6;
    for (int i = 0; order && i < 6; i++) order = !strcmp(c.params[i].name, want[i]);
    CHECK(order, "pointers, then scalars, then undeclared sizes (%d params)", c.nparams);
    const gen_card_param *pos = param(&c, "positions"), *f = param(&c, "forces"), *cut = param(&c, "cutoff_sq");
    CHECK(pos && !strcmp(pos->ctype, "float3") && !strcmp(pos->size, "N") && pos->pointer, "positions: float3*, size N");
    CHECK(f && !strcmp(f->size, "N*3") && !strcmp(f->role, "out"), "forces: N*3, out");
    CHECK(cut && !strcmp(cut->def, "100.0") && !strcmp(cut->ptx_type, "f32"), "cutoff_sq = 100.0f -> default 100.0");
    CHECK(c.nsizes == 1 && !strcmp(c.sizes[0], "N"), "one size symbol");
    gen_card_free(&c);

    /* types, "rows x cols", a declared size is not repeated */
    gen_card_parse("## k\n- Input: `int* idx` (m), `double s`, `unsigned count`, `int64_t big`, `size_t len`, `half h`\n"
                   "- Output: `float4* out` (rows x cols)\n", &c);
    CHECK(gen_signature_from_card(&c, &sig, why, sizeof why), "typed card: %s", why);
    CHECK(sig.data && !strcmp(sig.data, ".visible .entry k(\n\t.param .u64 idx,\n\t.param .u64 out,\n\t.param .f64 s,\n"
                                        "\t.param .u32 count,\n\t.param .s64 big,\n\t.param .u64 len,\n\t.param .b16 h,\n"
                                        "\t.param .u32 m,\n\t.param .u32 rows,\n\t.param .u32 cols\n)"),
          "typed signature:\n%s", sig.data ? sig.data : "");
    CHECK(param(&c, "out") && !strcmp(param(&c, "out")->size, "rows*cols"), "rows x cols -> rows*cols");
    pg_buf_free(&sig);
    gen_card_free(&c);
    gen_card_parse("## k2\n- Input: `float* a, b` (n), `int n`\n- Output: `float* c` (n)\n", &c);
    CHECK(gen_signature_from_card(&c, &sig, why, sizeof why) &&
              !strcmp(sig.data, ".visible .entry k2(\n\t.param .u64 a,\n\t.param .u64 b,\n\t.param .u64 c,\n\t.param .s32 n\n)"),
          "declared n stays .s32, not repeated: %s", sig.data ? sig.data : why);
    pg_buf_free(&sig);
    gen_card_free(&c);

    /* not cards, and cards without a signature: said why */
    gen_card_parse("add two vectors", &c);
    CHECK(!c.ok && !gen_signature_from_card(&c, &sig, why, sizeof why) && strstr(why, "not a kernel card"), "free text: %s", why);
    gen_card_free(&c);
    gen_card_parse("## k\n- Goal: something\n", &c);
    CHECK(c.ok && !gen_signature_from_card(&c, &sig, why, sizeof why) && strstr(why, "no typed pointer"), "no pointer: %s", why);
    gen_card_free(&c);
    gen_card_parse("## 能量\n- Input: `double* x` (n)\n", &c);
    CHECK(c.ok && !gen_signature_from_card(&c, &sig, why, sizeof why) && strstr(why, "gives no PTX identifier"), "name: %s", why);
    gen_card_free(&c);
    char id[64];
    CHECK(gen_card_kernel_name("## GPU Kernel: LJ energy", id, sizeof id) && !strcmp(id, "GPU_Kernel_LJ_energy"), "identifier %s", id);
    CHECK(!gen_card_kernel_name("能量", id, sizeof id), "no identifier from Chinese only");

    /* gen_card_json (what python/ptxgen/card.py reads): golden */
    pg_buf j = {0};
    CHECK(gen_card_json(lj_one_line, &j), "gen_card_json");
    char *gold = NULL;
    size_t gn = 0;
    const char *path = "tests/golden/card_lj.json";
    if (getenv("UPDATE_GOLDEN")) {
        FILE *g = fopen(path, "w");
        if (g) { fprintf(g, "%s\n", j.data); fclose(g); }
    }
    CHECK(pg_read_file(path, 1 << 20, &gold, &gn, &q) == PG_OK, "%s readable", path);
    if (gold && gn && gold[gn - 1] == '\n') gold[gn - 1] = 0;
    CHECK(gold && j.data && !strcmp(gold, j.data), "gen_card_json matches %s:\n%s", path, j.data ? j.data : "");
    free(gold);
    pg_buf_free(&j);
    return TEST_DONE();
}
