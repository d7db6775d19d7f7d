/* cli_util.c — what the commands share beyond flag parsing: where the default model and
 * the corpus are, and the printer of the library's progress notes. */
#include "cli.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

void cli_print_note(void *user, const char *text) {
    (void)user;
    fputs(text, stderr);
}

void cli_print_out(void *user, const char *text) {
    (void)user;
    fputs(text, stdout);
}

bool cli_near_exe(const char *rel, char *out, size_t n) {
    char exe[4096];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k <= 0) return false;
    exe[k] = 0;
    for (int up = 1; up <= 2; up++) {   /* build/ptxgen and build/san/ptxgen; PREFIX/bin/ptxgen (make install) */
        char *slash = strrchr(exe, '/');
        if (!slash) return false;
        *slash = 0;
        snprintf(out, n, "%s/../%s", exe, rel);
        if (access(out, R_OK) == 0) return true;
        snprintf(out, n, "%s/../share/ptxgen/%s", exe, rel);
        if (access(out, R_OK) == 0) return true;
    }
    return false;
}

/* models/default in the cwd, else next to the executable (build/ptxgen -> ../models/default). */
bool cli_default_model(char *out, size_t n) {
    const char *env = getenv("PTXGEN_MODEL");
    if (env && *env) { snprintf(out, n, "%s", env); return true; }
    /* a shipped adapter over a GGUF base (base.json) or a Hugging Face directory (config.json) */
    static const char *marks[] = {"base.json", "config.json"};
    for (int i = 0; i < 2; i++) {
        char rel[64];
        snprintf(rel, sizeof rel, "models/default/%s", marks[i]);
        if (access(rel, R_OK) == 0) { snprintf(out, n, "models/default"); return true; }
    }
    for (int i = 0; i < 2; i++) {
        char rel[64];
        snprintf(rel, sizeof rel, "models/default/%s", marks[i]);
        if (cli_near_exe(rel, out, n)) { out[strlen(out) - strlen(marks[i]) - 1] = 0; return true; }
    }
    return false;
}
