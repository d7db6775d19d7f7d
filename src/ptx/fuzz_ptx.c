/* fuzz_ptx.c — fuzz target: parse -> validate -> print -> parse.
 *
 * Built two ways (see Makefile): with clang -fsanitize=fuzzer as a libFuzzer
 * target, and with -DPTXGEN_AFL_MAIN as a plain program that reads one input
 * from a file or stdin (AFL++: afl-fuzz -i seeds -o out -- afl_ptx @@).
 * Properties: no crash, hang or leak on any input; a module that parses
 * prints to text that parses back to an equal module. */
#include "ptxgen/ptx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > (1u << 20)) return 0;
    pg_diag_sink sink = {NULL, NULL, 0, 0, 0};
    ptx_module *m = NULL;
    pg_status st = ptx_parse((const char *)data, size, "fuzz.ptx", &m, &sink);
    if (st == PG_OK) {
        ptx_validate(m, &sink);
        pg_buf b = {0};
        ptx_print(m, &b);
        ptx_module *m2 = NULL;
        pg_status st2 = ptx_parse(b.data, b.len, "printed.ptx", &m2, &sink);
        char why[256] = "";
        if (st2 != PG_OK || !ptx_module_equal(m, m2, why, sizeof why)) {
            fprintf(stderr, "round trip broke (%s):\n%s\n", st2 != PG_OK ? "printed text does not parse" : why, b.data);
            abort();
        }
        ptx_module_free(m2);
        pg_buf_free(&b);
        for (int i = 0; i < m->nfuncs; i++) {
            ptx_cfg *cfg = NULL;
            if (ptx_cfg_build(m, &m->funcs[i], &cfg, NULL) == PG_OK) {
                ptx_liveness lv;
                ptx_liveness_compute(m, &m->funcs[i], cfg, &lv);
            }
            ptx_cfg_free(cfg);
        }
    }
    ptx_module_free(m);
    return 0;
}

#ifdef PTXGEN_AFL_MAIN
int main(int argc, char **argv) {
    char *buf = NULL;
    size_t len = 0;
    pg_diag_sink sink = {0};
    if (pg_read_file(argc > 1 ? argv[1] : "-", 1u << 20, &buf, &len, &sink) != PG_OK) return 2;
    LLVMFuzzerTestOneInput((const uint8_t *)buf, len);
    free(buf);
    return 0;
}
#endif
