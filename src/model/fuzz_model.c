/* fuzz_model.c — fuzz target for the model file parsers on arbitrary bytes:
 * the safetensors header (model_st_parse, then every tensor's data is read back),
 * config.json (model_config_parse) and adapter_config.json (model_lora_config_parse).
 * The first input byte picks the parser; the rest is the file.
 *
 * Built like fuzz_ptx.c: clang -fsanitize=fuzzer (libFuzzer), or with
 * -DPTXGEN_AFL_MAIN as a program reading one input from a file or stdin.
 * Property: no crash, hang, leak or out-of-bounds read on any input. */
#include "model/model_internal.h"
#include "model/safetensors.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1 || size > (1u << 20)) return 0;
    pg_diag_sink sink = {NULL, NULL, 0, 0, 0};
    const uint8_t *p = data + 1;
    size_t n = size - 1;
    /* a private copy, exactly n bytes long, so ASan sees any read past the end */
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf) return 0;
    memcpy(buf, p, n);
    switch (data[0] % 3) {
    case 0: {
        st_set s;
        memset(&s, 0, sizeof s);
        if (model_st_parse(&s, buf, n, "fuzz.safetensors", &sink) == PG_OK) {
            for (int i = 0; i < s.t.n; i++) {
                const st_tensor *t = &s.t.v[i];
                if (t->nbytes > (4u << 20)) continue;
                if (t->dtype == ST_F32 || t->dtype == ST_BF16 || t->dtype == ST_F16) {
                    float *f = malloc(t->nbytes * 2 + 4);   /* bf16/f16 widen to twice the bytes */
                    if (f && !model_st_to_f32(t, f)) abort();
                    free(f);
                }
                if (!model_st_find(&s, t->name)) abort();
            }
        }
        model_st_close(&s);
        break;
    }
    case 1: {
        model_config c;
        if (model_config_parse((const char *)buf, n, "fuzz/config.json", &c, &sink) == PG_OK) {
            /* what the loader relies on */
            if (c.hidden_size < 1 || c.head_dim < 2 || c.head_dim % 2 || c.num_key_value_heads < 1 ||
                c.num_attention_heads % c.num_key_value_heads || c.vocab_size < 1 || !(c.rope_theta > 0))
                abort();
        }
        break;
    }
    default: {
        lora_config lc;
        if (model_lora_config_parse((const char *)buf, n, "fuzz/adapter_config.json", &lc, &sink) == PG_OK)
            if (lc.r < 1 || lc.ntargets < 1) abort();
        break;
    }
    }
    free(buf);
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
