/* literate PTX of a CUDA C plan as the training targets have it: prepare, nvcc -lineinfo, loc -> comments, canonical */
#include "ptxgen/ptx.h"
#include "ptxgen/pipeline.h"
#include "ptxgen/synth_family.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static char *slurp(const char *p, size_t *n) { FILE *f = fopen(p, "rb"); if (!f) return NULL; fseek(f, 0, SEEK_END); long k = ftell(f); fseek(f, 0, SEEK_SET); char *b = malloc(k + 1); *n = fread(b, 1, k, f); b[*n] = 0; fclose(f); return b; }
int main(int argc, char **argv) {
    size_t n; char *cu = slurp(argv[1], &n); if (!cu) return 2;
    pg_buf src = {0}; synth_literate_prepare(cu, &src); pg_buf_putc(&src, '\n');
    FILE *f = fopen("/tmp/refdraft/k.cu", "wb"); fwrite(src.data, 1, src.len, f); fclose(f);
    char cmd[512]; snprintf(cmd, sizeof cmd, "nvcc -ptx -O3 -arch=%s -lineinfo -o /tmp/refdraft/k.ptx /tmp/refdraft/k.cu 2>/dev/null", argv[2]);
    if (system(cmd)) return 1;
    size_t m; char *ptx = slurp("/tmp/refdraft/k.ptx", &m);
    ptx_module *mod = NULL; pg_diag_sink q = {0};
    if (ptx_parse(ptx, m, "nvcc", &mod, &q) != PG_OK) return 1;
    ptx_literate_from_loc(mod, src.data, src.len, 1);
    pg_buf out = {0}; ptx_print(mod, &out);
    pg_buf canon = {0}; char why[256];
    if (!pipe_canonical_ptx(out.data, argv[2], 0, true, &canon, why, sizeof why)) { fprintf(stderr, "%s\n", why); fputs(out.data, stdout); return 0; }
    fputs(canon.data, stdout);
    return 0;
}
