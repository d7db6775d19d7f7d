/* find.c — which model `gen` takes when none is named: a two-stage adapter over a fetched GGUF
 * base when that base is there (the 1.5B's first: it measured ahead on both suites, 2026-12-07),
 * else the 15M model in the repository.  One search for the CLI, the JSON request path and
 * (mirrored) the Python runner, so they cannot drift. */
#include "ptxgen/model.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* DIR's base.json names a "gguf" file (relative to DIR) that exists */
static bool base_present(const char *dir) {
    char path[4300];
    snprintf(path, sizeof path, "%s/base.json", dir);
    json_t *root = json_load_file(path, 0, NULL);
    const char *rel = root ? json_string_value(json_object_get(root, "gguf")) : NULL;
    bool ok = false;
    if (rel && *rel && rel[0] != '/') {   /* load_shipped refuses an absolute base too */
        char g[8400];
        snprintf(g, sizeof g, "%s/%s", dir, rel);
        ok = access(g, R_OK) == 0;
    }
    json_decref(root);
    return ok;
}

pg_status model_default_dir(const char *root, char *out, size_t n) {
    if (!out || n == 0) return PG_ERR_USAGE;
    out[0] = 0;
    const char *pre = root && *root ? root : NULL;
    char dir[4200], mark[4300];
    if (pre && strlen(pre) > sizeof dir - 32) return PG_ERR_LIMIT;
    /* a two-stage adapter needs its base (models/fetch_base.sh); without one the 15M model */
    static const char *adapters[] = {"models/qwen15-plan", "models/qwen-plan"};
    bool found = false;
    for (size_t i = 0; i < sizeof adapters / sizeof *adapters && !found; i++) {
        snprintf(dir, sizeof dir, "%s%s%s", pre ? pre : "", pre ? "/" : "", adapters[i]);
        found = base_present(dir);
    }
    if (!found) {
        snprintf(dir, sizeof dir, "%s%smodels/default", pre ? pre : "", pre ? "/" : "");
        static const char *marks[] = {"base.json", "config.json"};
        for (int i = 0; i < 2 && !found; i++) {
            snprintf(mark, sizeof mark, "%s/%s", dir, marks[i]);
            found = access(mark, R_OK) == 0;
        }
    }
    if (!found) return PG_ERR_IO;
    if ((size_t)snprintf(out, n, "%s", dir) >= n) {
        out[0] = 0;
        return PG_ERR_LIMIT;
    }
    return PG_OK;
}
