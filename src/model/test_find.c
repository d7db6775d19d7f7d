/* test_find.c — model_default_dir over temporary trees: a two-stage adapter (the 1.5B's first)
 * only when its base file is there, else the 15M model, else none; relative results for the
 * current directory. */
#include "common/test.h"
#include "ptxgen/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void put(const char *root, const char *rel, const char *text) {
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    FILE *f = fopen(p, "w");
    if (!f) { perror(p); exit(2); }
    fputs(text, f);
    fclose(f);
}

static void mk(const char *root, const char *rel) {
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    if (mkdir(p, 0755) != 0) { perror(p); exit(2); }
}

static void rm(const char *root, const char *rel) {
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    if (remove(p) != 0) { perror(p); exit(2); }
}

/* model_default_dir(root) succeeds and names ROOT/REL (out keeps what it wrote, for the message) */
static bool is_default(const char *root, const char *rel, char *out, size_t n) {
    char want[4300];
    snprintf(want, sizeof want, "%s/%s", root, rel);
    return model_default_dir(root, out, n) == PG_OK && !strcmp(out, want);
}

int main(void) {
    char root[] = "/tmp/ptxgen_find_XXXXXX";
    if (!mkdtemp(root)) { perror("mkdtemp"); return 2; }
    char out[4200];

    /* nothing there */
    mk(root, "models");
    CHECK(model_default_dir(root, out, sizeof out) == PG_ERR_IO && !out[0], "empty tree: none, got '%s'", out);

    /* the adapter folder without its base: the 15M model */
    mk(root, "models/qwen-plan");
    mk(root, "models/default");
    put(root, "models/qwen-plan/base.json", "{\"gguf\": \"../base/b.gguf\", \"sha256\": \"00\"}");
    CHECK(model_default_dir(root, out, sizeof out) == PG_ERR_IO, "no base, no default: none, got '%s'", out);
    put(root, "models/default/config.json", "{}");
    CHECK(is_default(root, "models/default", out, sizeof out), "base missing: '%s'", out);

    /* the base fetched (an empty file is enough for the search): the adapter */
    mk(root, "models/base");
    put(root, "models/base/b.gguf", "");
    CHECK(is_default(root, "models/qwen-plan", out, sizeof out), "base present: '%s'", out);

    /* a base.json without "gguf", or with an absolute one, does not count */
    put(root, "models/qwen-plan/base.json", "{\"sha256\": \"00\"}");
    CHECK(is_default(root, "models/default", out, sizeof out), "no gguf key: '%s'", out);
    char abs[4300];
    snprintf(abs, sizeof abs, "{\"gguf\": \"%s/models/base/b.gguf\"}", root);
    put(root, "models/qwen-plan/base.json", abs);
    CHECK(is_default(root, "models/default", out, sizeof out), "absolute gguf: '%s'", out);
    put(root, "models/qwen-plan/base.json", "{\"gguf\": \"../base/b.gguf\"}");

    /* the 1.5B's adapter comes first once its base is there, and only then */
    mk(root, "models/qwen15-plan");
    put(root, "models/qwen15-plan/base.json", "{\"gguf\": \"../base/b15.gguf\"}");
    CHECK(is_default(root, "models/qwen-plan", out, sizeof out), "1.5B base missing: '%s'", out);
    put(root, "models/base/b15.gguf", "");
    CHECK(is_default(root, "models/qwen15-plan", out, sizeof out), "both bases: '%s'", out);
    rm(root, "models/base/b.gguf");
    CHECK(is_default(root, "models/qwen15-plan", out, sizeof out), "1.5B base only: '%s'", out);
    put(root, "models/base/b.gguf", "");
    rm(root, "models/base/b15.gguf");
    rm(root, "models/qwen15-plan/base.json");

    /* the current directory: relative paths, as the CLI prints them */
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd) || chdir(root) != 0) { perror("chdir"); return 2; }
    CHECK(model_default_dir(NULL, out, sizeof out) == PG_OK && !strcmp(out, "models/qwen-plan"), "cwd: '%s'", out);
    CHECK(model_default_dir("", out, sizeof out) == PG_OK && !strcmp(out, "models/qwen-plan"), "cwd \"\": '%s'", out);
    rm(root, "models/base/b.gguf");
    CHECK(model_default_dir(NULL, out, sizeof out) == PG_OK && !strcmp(out, "models/default"), "cwd, no base: '%s'", out);
    if (chdir(cwd) != 0) { perror("chdir"); return 2; }

    /* a buffer too small, and none */
    char small[8];
    CHECK(model_default_dir(root, small, sizeof small) == PG_ERR_LIMIT && !small[0], "small buffer");
    CHECK(model_default_dir(root, NULL, 0) == PG_ERR_USAGE, "no buffer");

    rm(root, "models/default/config.json");
    rm(root, "models/qwen-plan/base.json");
    const char *dirs[] = {"models/base", "models/default", "models/qwen-plan", "models/qwen15-plan", "models"};
    for (int i = 0; i < 5; i++) rm(root, dirs[i]);
    rmdir(root);
    printf("%d passed, %d failed\n", t_pass, t_fail);
    return t_fail ? 1 : 0;
}
