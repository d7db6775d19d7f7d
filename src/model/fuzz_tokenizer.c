/* fuzz_tokenizer.c — fuzz target for the tokenizer: tok_load on arbitrary
 * JSON bytes, tok_encode/tok_decode on arbitrary text.
 *
 * The first input byte picks the mode: 0 = the rest is a tokenizer.json
 * (loaded, then used to encode a fixed text); 1 = the rest is text for a
 * built-in Qwen2-style tokenizer (Split regex + ByteLevel), which must give
 * decode(encode(x)) == x for any bytes; 2 = the rest is text for a built-in
 * GPT-2-style tokenizer (ByteLevel regex, add_prefix_space) with added tokens
 * using lstrip/rstrip/single_word.  Properties: no crash, hang or leak; ids in
 * range; the round trip.  Built as a libFuzzer target (clang
 * -fsanitize=fuzzer) or, with -DPTXGEN_AFL_MAIN, as a program that reads one
 * input from a file or stdin. */
#include "model/tok_internal.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A byte-level tokenizer.json: all 256 byte symbols, a few merges, specials. */
static char *builtin_json(bool gpt2) {
    static const char *const merges[][2] = {{"l", "d"}, {".", "g"}, {"Ġ", "%"}, {"ld", ".g"}, {"Ċ", "ĉ"}, {"Ġ", "Ġ"},
                                           {"ĠĠ", "ĠĠ"}, {"%", "r"}, {"e", "n"}, {"Ġ", "t"}, {"Ġt", "h"}, {"Ġth", "e"}};
    json_t *vocab = json_object();
    int next = 0;
    char sym[8];
    int extra = 0;
    for (int b = 0; b < 256; b++) {            /* GPT-2 bytes_to_unicode */
        bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
        int cp = printable ? b : 256 + extra++;
        if (cp < 0x80) { sym[0] = (char)cp; sym[1] = 0; }
        else { sym[0] = (char)(0xC0 | cp >> 6); sym[1] = (char)(0x80 | (cp & 0x3F)); sym[2] = 0; }
        json_object_set_new(vocab, sym, json_integer(next++));
    }
    json_t *jm = json_array();
    for (size_t i = 0; i < sizeof merges / sizeof merges[0]; i++) {
        char joined[32];
        snprintf(joined, sizeof joined, "%s%s", merges[i][0], merges[i][1]);
        if (!json_object_get(vocab, joined)) json_object_set_new(vocab, joined, json_integer(next++));
        json_array_append_new(jm, json_pack("[s,s]", merges[i][0], merges[i][1]));
    }
    json_t *added = json_array();
    const char *specials[] = {"<|endoftext|>", "<|ptx|>", "<|end|>"};
    for (int i = 0; i < 3; i++)
        json_array_append_new(added, json_pack("{s:i,s:s,s:b,s:b,s:b,s:b,s:b}", "id", next++, "content", specials[i],
                                               "single_word", 0, "lstrip", 0, "rstrip", 0, "normalized", 0, "special", 1));
    if (gpt2) {
        json_array_append_new(added, json_pack("{s:i,s:s,s:b,s:b,s:b,s:b,s:b}", "id", next++, "content", "<pad>",
                                               "single_word", 0, "lstrip", 1, "rstrip", 1, "normalized", 0, "special", 0));
        json_array_append_new(added, json_pack("{s:i,s:s,s:b,s:b,s:b,s:b,s:b}", "id", next++, "content", "mov",
                                               "single_word", 1, "lstrip", 0, "rstrip", 0, "normalized", 1, "special", 0));
    }
    json_t *pre = gpt2 ? json_pack("{s:s,s:b,s:b}", "type", "ByteLevel", "add_prefix_space", 1, "use_regex", 1)
                       : json_pack("{s:s,s:[{s:s,s:{s:s},s:s,s:b},{s:s,s:b,s:b}]}", "type", "Sequence", "pretokenizers",
                                   "type", "Split", "pattern", "Regex",
                                   "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
                                   "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
                                   "behavior", "Isolated", "invert", 0, "type", "ByteLevel", "add_prefix_space", 0, "use_regex", 0);
    json_t *root = json_pack("{s:o,s:n,s:o,s:{s:s},s:{s:s,s:o,s:o}}", "added_tokens", added, "normalizer", "pre_tokenizer", pre,
                             "decoder", "type", "ByteLevel", "model", "type", "BPE", "vocab", vocab, "merges", jm);
    char *s = json_dumps(root, JSON_COMPACT);
    json_decref(root);
    return s;
}

static tok_tokenizer *builtin(int which) {
    static tok_tokenizer *t[2];
    if (!t[which]) {
        char *js = builtin_json(which == 1);
        pg_diag_sink sink = {0};
        if (!js || tok_load_mem(js, strlen(js), which ? "builtin-gpt2.json" : "builtin-qwen2.json", &t[which], &sink) != PG_OK) {
            fprintf(stderr, "fuzz_tokenizer: the built-in tokenizer does not load\n");
            abort();
        }
        free(js);
    }
    return t[which];
}

static void encode_check(tok_tokenizer *t, const char *s, size_t n, bool round_trip) {
    int32_t *ids = NULL;
    size_t nid = 0;
    pg_status st = tok_encode(t, s, n, &ids, &nid);
    if (st == PG_OK) {
        for (size_t i = 0; i < nid; i++)
            if (ids[i] < 0 || ids[i] >= tok_vocab_size(t)) { fprintf(stderr, "id %d out of range\n", ids[i]); abort(); }
        pg_buf b = {0};
        tok_decode(t, ids, nid, &b);
        if (round_trip && (b.len != n || memcmp(b.data, s, n) != 0)) {
            fprintf(stderr, "decode(encode(x)) != x for %zu bytes\n", n);
            abort();
        }
        pg_buf_free(&b);
    }
    free(ids);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0 || size > (1u << 20)) return 0;
    const char *s = (const char *)data + 1;
    size_t n = size - 1;
    switch (data[0] % 3) {
    case 0: {
        pg_diag_sink sink = {NULL, NULL, 0, 0, 0};
        tok_tokenizer *t = NULL;
        if (tok_load_mem(s, n, "fuzz.json", &t, &sink) == PG_OK) {
            static const char text[] = "<|ptx|>\tld.global.f32 %f1, [%rd2]; // 加载\r\n  \xff x";
            encode_check(t, text, sizeof text - 1, false);
            size_t len;
            for (int32_t id = -1; id <= tok_vocab_size(t) && id < 4096; id++) tok_token_bytes(t, id, &len);
            tok_special_id(t, "<|ptx|>");
        } else if (sink.nerrors == 0) {
            fprintf(stderr, "tok_load_mem failed without a diagnostic\n");
            abort();
        }
        tok_free(t);
        break;
    }
    case 1: encode_check(builtin(0), s, n, true); break;
    default: encode_check(builtin(1), s, n, false); break;
    }
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
