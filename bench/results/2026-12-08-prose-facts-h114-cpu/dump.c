/* dump.c (h114): one JSON line per family sample, {"family", "task"}: N seeds a family (argv[1], default 100),
 * seed 1000003*i + 17 + 7919*f, straight from each generator (synth_fam_draw; no nvcc).  argv[2]: one family only.
 * Build from the repository root: cc -std=c11 -O2 -Iinclude -Isrc -D_POSIX_C_SOURCE=200809L -o dump dump.c
 *   build/libptxgen.a -ljansson -lpcre2-8 -ldl -lm -lpthread */
#include "synth/family_internal.h"
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100;
    const char *only = argc > 2 ? argv[2] : NULL;
    for (int f = 0; f < synth_family_count(); f++) {
        const char *fn = synth_family_name(f);
        if (only && strcmp(only, fn)) continue;
        for (int i = 0; i < n; i++) {
            uint64_t seed = 1000003ull * (uint64_t)i + 17 + 7919ull * (uint64_t)f;
            synth_family_sample s = {0};
            if (synth_fam_draw(fn, seed, &s) == PG_OK && s.task_json.data) {
                json_error_t e;
                json_t *t = json_loads(s.task_json.data, 0, &e);
                if (t) {
                    json_t *o = json_object();
                    json_object_set_new(o, "family", json_string(fn));
                    json_object_set(o, "task", t);
                    char *d = json_dumps(o, JSON_COMPACT);
                    puts(d);
                    free(d);
                    json_decref(o);
                    json_decref(t);
                }
            }
            synth_family_sample_free(&s);
        }
    }
    return 0;
}
