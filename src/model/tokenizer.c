/* tokenizer.c — Hugging Face byte-level BPE tokenizers (tokenizer.json),
 * token-for-token identical to the `tokenizers` library (0.23) on what
 * byte-level BPE uses.  tok_encode runs HF's pipeline in HF's order:
 *
 *   1. added tokens with normalized=false are cut out of the raw text
 *      (leftmost-longest, like HF's Aho-Corasick; single_word, lstrip, rstrip);
 *   2. each remaining span is normalized, then added tokens with
 *      normalized=true are cut out of it;
 *   3. each remaining span is pre-tokenized by the steps of the pre_tokenizer
 *      (Split, Digits), the last of which must be ByteLevel (add_prefix_space,
 *      optional GPT-2 regex); each step works on every piece separately;
 *   4. each piece is BPE-merged: lowest merge rank first, leftmost on ties,
 *      with HF's priority-queue algorithm (it decides ties like HF does).
 *      Byte-level means the alphabet is the 256 byte values, so everything here
 *      works on raw bytes; GPT-2's bytes_to_unicode mapping is only used to read
 *      the vocab, whose strings spell each byte as one printable code point.
 *
 * Regexes: HF compiles Split patterns (and ByteLevel's GPT-2 pattern) with
 * Oniguruma; we use PCRE2 (UTF, UCP, MULTILINE, MATCH_INVALID_UTF) after
 * translating what means something else there: \s is Unicode White_Space
 * (incl. U+0085), \w is letters+marks+decimal digits+connectors, \h is a hex
 * digit, \v is VT, ^/$ are line anchors and (?m) means dot-all.  Only \W
 * inside [...] is left as PCRE2 reads it.
 * Normalizers: none, or NFC (also inside a Sequence).  NFC is implemented as a
 * check only: text whose code points can neither change under NFC nor change
 * their neighbours (everything below U+0300 — all of ASCII and Latin-1 — CJK,
 * Hangul syllables, emoji, ...; table below) is already NFC and passes
 * unchanged, exactly as in HF; text with a combining mark or a decomposable
 * character makes tok_encode fail with PG_ERR_INVALID instead of guessing.
 * Invalid UTF-8 (which HF cannot take): such bytes never match a regex, so they
 * land in the gaps between matches and are BPE'd like any other bytes;
 * decode(encode(x)) == x for every input.
 * Not supported (tok_load fails with E804 saying what): model types other than
 * BPE, BPE dropout > 0, other normalizers, pre-tokenizers and decoders.
 * Post-processors are ignored: tok_encode is HF's encode(text,
 * add_special_tokens=False).
 * Added-token ids are assigned as HF assigns them on load (the content's vocab
 * id, else the next free id), which is the "id" field of any consistent file.
 * GGUF files (tok_load_gguf): llama.cpp's tokenizer.ggml.* metadata builds the
 * same structures (see load_gguf): vocab, merges, control / user-defined
 * tokens as added tokens, and the pre-tokenizer named by tokenizer.ggml.pre.
 */
#include "tok_internal.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <jansson.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOK_MAX_ID (1 << 24)        /* ids beyond this are treated as a corrupt file */
#define TOK_MAX_STEPS 16            /* pre-tokenizer steps after flattening Sequences */
#define TOK_MAX_FILE ((size_t)1 << 30)
#define CACHE_MAX_PIECE 256         /* longer pieces are not cached */
#define CACHE_MAX_ENTRIES (1 << 18)

/* ---- small containers --------------------------------------------------- */

/* String -> int32 map, open addressing with linear probing.  Keys are not
 * copied: they must outlive the map. */
typedef struct { const char *s; uint32_t n; int32_t v; } sm_slot;
typedef struct { sm_slot *slots; uint32_t cap, count; } strmap;

static uint64_t hash_bytes(const char *s, size_t n) {
    uint64_t h = pg_hash64_add(PG_HASH64_INIT_SHORT, s, n);
    return h ^ (h >> 29);
}

static const int32_t *strmap_get(const strmap *m, const char *s, size_t n) {
    if (!m->cap) return NULL;
    for (uint32_t i = (uint32_t)hash_bytes(s, n) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        const sm_slot *e = &m->slots[i];
        if (!e->s) return NULL;
        if (e->n == n && memcmp(e->s, s, n) == 0) return &e->v;
    }
}

static void strmap_put(strmap *m, const char *s, size_t n, int32_t v) {
    if ((m->count + 1) * 2 > m->cap) {                        /* keep load <= 1/2 */
        strmap old = *m;
        m->cap = old.cap ? old.cap * 2 : 64;
        m->slots = calloc(m->cap, sizeof *m->slots);
        if (!m->slots) pg_oom();
        m->count = 0;
        for (uint32_t i = 0; i < old.cap; i++)
            if (old.slots[i].s) strmap_put(m, old.slots[i].s, old.slots[i].n, old.slots[i].v);
        free(old.slots);
    }
    uint32_t i = (uint32_t)hash_bytes(s, n) & (m->cap - 1);
    for (; m->slots[i].s; i = (i + 1) & (m->cap - 1))
        if (m->slots[i].n == n && memcmp(m->slots[i].s, s, n) == 0) { m->slots[i].v = v; return; }
    m->slots[i] = (sm_slot){s, (uint32_t)n, v};
    m->count++;
}

/* Room for n keys without growing (load <= 1/2); on an empty map only. */
static void strmap_reserve(strmap *m, uint32_t n) {
    uint32_t cap = 64;
    while (cap < 2 * n + 2 && cap < (1u << 30)) cap *= 2;
    if (m->cap >= cap || m->count) return;
    free(m->slots);
    m->slots = calloc(cap, sizeof *m->slots);
    if (!m->slots) pg_oom();
    m->cap = cap;
}

/* (left id, right id) -> (rank, merged id). */
typedef struct { uint64_t key; int32_t rank, id; } merge_slot;
#define MERGE_EMPTY UINT64_MAX

static uint64_t pair_key(int32_t a, int32_t b) { return (uint64_t)(uint32_t)a << 32 | (uint32_t)b; }

static uint32_t merge_hash(uint64_t k) {
    k ^= k >> 33; k *= 0xff51afd7ed558ccdull; k ^= k >> 33;
    return (uint32_t)k;
}

/* ---- the tokenizer -------------------------------------------------------- */

typedef struct {
    const char *s; uint32_t len;   /* content */
    int32_t id;
    bool single_word, lstrip, rstrip, normalized, special;
} added_tok;

/* Added tokens of one kind (normalized or not), indexed by first byte. */
typedef struct {
    int32_t start[257];            /* tokens with first byte b: idx[start[b] .. start[b+1]) */
    int32_t *idx;                  /* indices into t->added */
} match_set;

typedef enum { B_REMOVED, B_ISOLATED, B_MERGED_PREV, B_MERGED_NEXT, B_CONTIGUOUS } split_behavior;
typedef enum { STEP_SPLIT, STEP_BYTELEVEL } step_kind;

typedef struct {
    step_kind kind;
    pcre2_code *re;                /* NULL: Split on an empty String (no matches); ByteLevel without regex */
    split_behavior behavior;
    bool invert;
    bool add_prefix_space;         /* ByteLevel */
} pre_step;

typedef struct { const char *bytes; uint32_t len; uint8_t flags; } tok_piece;
enum { P_DEFINED = 1, P_ADDED = 2, P_SPECIAL = 4, P_UNUSED = 8 };   /* P_UNUSED: GGUF token_type 5 */

struct tok_tokenizer {
    pg_arena arena;
    const char *name;
    /* BPE model */
    strmap vocab;                  /* vocab string as in the file (byte-level spelling) -> id */
    int model_vocab_len;           /* entries in model.vocab: HF's get_vocab_size() */
    merge_slot *merges;
    uint32_t merges_cap;
    int32_t byte_id[4][256];       /* first symbol of byte b: [(not first) | (last)<<1], -1 if none */
    int32_t fallback_id[256];      /* "<0xAB>" tokens for byte_fallback, -1 if none */
    const char *unk;               /* unk_token or NULL */
    const char *prefix, *suffix;   /* continuing_subword_prefix, end_of_word_suffix or NULL */
    bool fuse_unk, byte_fallback, ignore_merges;
    /* ids */
    int n_ids;                     /* max id + 1 */
    tok_piece *pieces;             /* [n_ids] */
    /* added tokens */
    added_tok *added;
    int n_added, cap_added;
    strmap added_map;              /* content -> index into added */
    match_set raw_set, norm_set;
    pcre2_code *word_re;           /* Rust regex \w, for single_word */
    /* normalizer + pre-tokenizer */
    bool nfc;
    pre_step steps[TOK_MAX_STEPS];
    int n_steps;
    /* byte-level alphabet (GPT-2 bytes_to_unicode) */
    uint16_t byte_cp[256];
    int16_t cp_byte[324];          /* code point -> byte, -1 if not in the alphabet */
};

/* ---- UTF-8 --------------------------------------------------------------- */

/* Code point at s[0..n): *len gets its length; invalid or truncated
 * sequences give -1 with length 1. */
static int32_t utf8_next(const unsigned char *s, size_t n, int *len) {
    *len = 1;
    if (s[0] < 0x80) return s[0];
    int need = s[0] >= 0xF5 ? -1 : s[0] >= 0xF0 ? 3 : s[0] >= 0xE0 ? 2 : s[0] >= 0xC2 ? 1 : -1;
    if (need < 0 || (size_t)need >= n) return -1;
    int32_t cp = s[0] & (0x3F >> need);
    for (int i = 1; i <= need; i++) {
        if ((s[i] & 0xC0) != 0x80) return -1;
        cp = cp << 6 | (s[i] & 0x3F);
    }
    static const int32_t minv[4] = {0, 0x80, 0x800, 0x10000};
    if (cp < minv[need] || cp > 0x10FFFF || (cp >= 0xD800 && cp < 0xE000)) return -1;
    *len = need + 1;
    return cp;
}

static size_t utf8_put(char *o, uint32_t cp) {
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) { o[0] = (char)(0xC0 | cp >> 6); o[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | cp >> 12); o[1] = (char)(0x80 | ((cp >> 6) & 0x3F)); o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | cp >> 18); o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Unicode White_Space (Rust's char::is_whitespace, regex \s): lstrip/rstrip. */
static bool is_white_space(int32_t c) {
    return (c >= 9 && c <= 13) || c == 32 || c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
           c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

/* Code points that NFC may change or that may change their neighbours:
 * canonical combining class != 0, NFC_Quick_Check No or Maybe (incl. Hangul
 * V/T jamo).  Everything else is NFC-inert.  Generated from Python's
 * unicodedata (Unicode 14.0) by `tests/tokenizer/make_golden.py --nfc-table`. */
static const uint32_t nfc_unsafe[][2] = {
    {0x300, 0x34E}, {0x350, 0x36F}, {0x374, 0x374}, {0x37E, 0x37E}, {0x387, 0x387}, {0x483, 0x487},
    {0x591, 0x5BD}, {0x5BF, 0x5BF}, {0x5C1, 0x5C2}, {0x5C4, 0x5C5}, {0x5C7, 0x5C7}, {0x610, 0x61A},
    {0x64B, 0x65F}, {0x670, 0x670}, {0x6D6, 0x6DC}, {0x6DF, 0x6E4}, {0x6E7, 0x6E8}, {0x6EA, 0x6ED},
    {0x711, 0x711}, {0x730, 0x74A}, {0x7EB, 0x7F3}, {0x7FD, 0x7FD}, {0x816, 0x819}, {0x81B, 0x823},
    {0x825, 0x827}, {0x829, 0x82D}, {0x859, 0x85B}, {0x898, 0x89F}, {0x8CA, 0x8E1}, {0x8E3, 0x8FF},
    {0x93C, 0x93C}, {0x94D, 0x94D}, {0x951, 0x954}, {0x958, 0x95F}, {0x9BC, 0x9BC}, {0x9BE, 0x9BE},
    {0x9CD, 0x9CD}, {0x9D7, 0x9D7}, {0x9DC, 0x9DD}, {0x9DF, 0x9DF}, {0x9FE, 0x9FE}, {0xA33, 0xA33},
    {0xA36, 0xA36}, {0xA3C, 0xA3C}, {0xA4D, 0xA4D}, {0xA59, 0xA5B}, {0xA5E, 0xA5E}, {0xABC, 0xABC},
    {0xACD, 0xACD}, {0xB3C, 0xB3C}, {0xB3E, 0xB3E}, {0xB4D, 0xB4D}, {0xB56, 0xB57}, {0xB5C, 0xB5D},
    {0xBBE, 0xBBE}, {0xBCD, 0xBCD}, {0xBD7, 0xBD7}, {0xC3C, 0xC3C}, {0xC4D, 0xC4D}, {0xC55, 0xC56},
    {0xCBC, 0xCBC}, {0xCC2, 0xCC2}, {0xCCD, 0xCCD}, {0xCD5, 0xCD6}, {0xD3B, 0xD3C}, {0xD3E, 0xD3E},
    {0xD4D, 0xD4D}, {0xD57, 0xD57}, {0xDCA, 0xDCA}, {0xDCF, 0xDCF}, {0xDDF, 0xDDF}, {0xE38, 0xE3A},
    {0xE48, 0xE4B}, {0xEB8, 0xEBA}, {0xEC8, 0xECB}, {0xF18, 0xF19}, {0xF35, 0xF35}, {0xF37, 0xF37},
    {0xF39, 0xF39}, {0xF43, 0xF43}, {0xF4D, 0xF4D}, {0xF52, 0xF52}, {0xF57, 0xF57}, {0xF5C, 0xF5C},
    {0xF69, 0xF69}, {0xF71, 0xF76}, {0xF78, 0xF78}, {0xF7A, 0xF7D}, {0xF80, 0xF84}, {0xF86, 0xF87},
    {0xF93, 0xF93}, {0xF9D, 0xF9D}, {0xFA2, 0xFA2}, {0xFA7, 0xFA7}, {0xFAC, 0xFAC}, {0xFB9, 0xFB9},
    {0xFC6, 0xFC6}, {0x102E, 0x102E}, {0x1037, 0x1037}, {0x1039, 0x103A}, {0x108D, 0x108D}, {0x1161, 0x1175},
    {0x11A8, 0x11C2}, {0x135D, 0x135F}, {0x1714, 0x1715}, {0x1734, 0x1734}, {0x17D2, 0x17D2}, {0x17DD, 0x17DD},
    {0x18A9, 0x18A9}, {0x1939, 0x193B}, {0x1A17, 0x1A18}, {0x1A60, 0x1A60}, {0x1A75, 0x1A7C}, {0x1A7F, 0x1A7F},
    {0x1AB0, 0x1ABD}, {0x1ABF, 0x1ACE}, {0x1B34, 0x1B35}, {0x1B44, 0x1B44}, {0x1B6B, 0x1B73}, {0x1BAA, 0x1BAB},
    {0x1BE6, 0x1BE6}, {0x1BF2, 0x1BF3}, {0x1C37, 0x1C37}, {0x1CD0, 0x1CD2}, {0x1CD4, 0x1CE0}, {0x1CE2, 0x1CE8},
    {0x1CED, 0x1CED}, {0x1CF4, 0x1CF4}, {0x1CF8, 0x1CF9}, {0x1DC0, 0x1DFF}, {0x1F71, 0x1F71}, {0x1F73, 0x1F73},
    {0x1F75, 0x1F75}, {0x1F77, 0x1F77}, {0x1F79, 0x1F79}, {0x1F7B, 0x1F7B}, {0x1F7D, 0x1F7D}, {0x1FBB, 0x1FBB},
    {0x1FBE, 0x1FBE}, {0x1FC9, 0x1FC9}, {0x1FCB, 0x1FCB}, {0x1FD3, 0x1FD3}, {0x1FDB, 0x1FDB}, {0x1FE3, 0x1FE3},
    {0x1FEB, 0x1FEB}, {0x1FEE, 0x1FEF}, {0x1FF9, 0x1FF9}, {0x1FFB, 0x1FFB}, {0x1FFD, 0x1FFD}, {0x2000, 0x2001},
    {0x20D0, 0x20DC}, {0x20E1, 0x20E1}, {0x20E5, 0x20F0}, {0x2126, 0x2126}, {0x212A, 0x212B}, {0x2329, 0x232A},
    {0x2ADC, 0x2ADC}, {0x2CEF, 0x2CF1}, {0x2D7F, 0x2D7F}, {0x2DE0, 0x2DFF}, {0x302A, 0x302F}, {0x3099, 0x309A},
    {0xA66F, 0xA66F}, {0xA674, 0xA67D}, {0xA69E, 0xA69F}, {0xA6F0, 0xA6F1}, {0xA806, 0xA806}, {0xA82C, 0xA82C},
    {0xA8C4, 0xA8C4}, {0xA8E0, 0xA8F1}, {0xA92B, 0xA92D}, {0xA953, 0xA953}, {0xA9B3, 0xA9B3}, {0xA9C0, 0xA9C0},
    {0xAAB0, 0xAAB0}, {0xAAB2, 0xAAB4}, {0xAAB7, 0xAAB8}, {0xAABE, 0xAABF}, {0xAAC1, 0xAAC1}, {0xAAF6, 0xAAF6},
    {0xABED, 0xABED}, {0xF900, 0xFA0D}, {0xFA10, 0xFA10}, {0xFA12, 0xFA12}, {0xFA15, 0xFA1E}, {0xFA20, 0xFA20},
    {0xFA22, 0xFA22}, {0xFA25, 0xFA26}, {0xFA2A, 0xFA6D}, {0xFA70, 0xFAD9}, {0xFB1D, 0xFB1F}, {0xFB2A, 0xFB36},
    {0xFB38, 0xFB3C}, {0xFB3E, 0xFB3E}, {0xFB40, 0xFB41}, {0xFB43, 0xFB44}, {0xFB46, 0xFB4E}, {0xFE20, 0xFE2F},
    {0x101FD, 0x101FD}, {0x102E0, 0x102E0}, {0x10376, 0x1037A}, {0x10A0D, 0x10A0D}, {0x10A0F, 0x10A0F}, {0x10A38, 0x10A3A},
    {0x10A3F, 0x10A3F}, {0x10AE5, 0x10AE6}, {0x10D24, 0x10D27}, {0x10EAB, 0x10EAC}, {0x10F46, 0x10F50}, {0x10F82, 0x10F85},
    {0x11046, 0x11046}, {0x11070, 0x11070}, {0x1107F, 0x1107F}, {0x110B9, 0x110BA}, {0x11100, 0x11102}, {0x11127, 0x11127},
    {0x11133, 0x11134}, {0x11173, 0x11173}, {0x111C0, 0x111C0}, {0x111CA, 0x111CA}, {0x11235, 0x11236}, {0x112E9, 0x112EA},
    {0x1133B, 0x1133C}, {0x1133E, 0x1133E}, {0x1134D, 0x1134D}, {0x11357, 0x11357}, {0x11366, 0x1136C}, {0x11370, 0x11374},
    {0x11442, 0x11442}, {0x11446, 0x11446}, {0x1145E, 0x1145E}, {0x114B0, 0x114B0}, {0x114BA, 0x114BA}, {0x114BD, 0x114BD},
    {0x114C2, 0x114C3}, {0x115AF, 0x115AF}, {0x115BF, 0x115C0}, {0x1163F, 0x1163F}, {0x116B6, 0x116B7}, {0x1172B, 0x1172B},
    {0x11839, 0x1183A}, {0x11930, 0x11930}, {0x1193D, 0x1193E}, {0x11943, 0x11943}, {0x119E0, 0x119E0}, {0x11A34, 0x11A34},
    {0x11A47, 0x11A47}, {0x11A99, 0x11A99}, {0x11C3F, 0x11C3F}, {0x11D42, 0x11D42}, {0x11D44, 0x11D45}, {0x11D97, 0x11D97},
    {0x16AF0, 0x16AF4}, {0x16B30, 0x16B36}, {0x16FF0, 0x16FF1}, {0x1BC9E, 0x1BC9E}, {0x1D15E, 0x1D169}, {0x1D16D, 0x1D172},
    {0x1D17B, 0x1D182}, {0x1D185, 0x1D18B}, {0x1D1AA, 0x1D1AD}, {0x1D1BB, 0x1D1C0}, {0x1D242, 0x1D244}, {0x1E000, 0x1E006},
    {0x1E008, 0x1E018}, {0x1E01B, 0x1E021}, {0x1E023, 0x1E024}, {0x1E026, 0x1E02A}, {0x1E130, 0x1E136}, {0x1E2AE, 0x1E2AE},
    {0x1E2EC, 0x1E2EF}, {0x1E8D0, 0x1E8D6}, {0x1E944, 0x1E94A}, {0x2F800, 0x2FA1D},
};

static bool nfc_inert(int32_t cp) {
    if (cp < 0x300) return true;
    size_t lo = 0, hi = sizeof nfc_unsafe / sizeof nfc_unsafe[0];
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if ((uint32_t)cp < nfc_unsafe[mid][0]) hi = mid;
        else if ((uint32_t)cp > nfc_unsafe[mid][1]) lo = mid + 1;
        else return false;
    }
    return true;
}

/* true when s is certainly NFC already (invalid bytes count as inert). */
static bool nfc_ok(const char *s, size_t n) {
    for (size_t i = 0; i < n;) {
        if ((unsigned char)s[i] < 0xCC) { i++; continue; }  /* ASCII, continuation bytes, < U+0300 leads */
        int l;
        int32_t cp = utf8_next((const unsigned char *)s + i, n - i, &l);
        if (cp >= 0 && !nfc_inert(cp)) return false;
        i += (size_t)l;
    }
    return true;
}

/* ---- loading ---------------------------------------------------------------- */

typedef struct {
    tok_tokenizer *t;
    pg_diag_sink *diag;
    const char *name;
} loader;

static pg_status fail(loader *L, pg_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static pg_status fail(loader *L, pg_status st, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    pg_diag_vemit(L->diag, PG_E_TOKENIZER, L->name, 0, 0, fmt, ap);
    va_end(ap);
    return st;
}

static void init_alphabet(tok_tokenizer *t) {
    int extra = 0;
    memset(t->cp_byte, -1, sizeof t->cp_byte);
    for (int b = 0; b < 256; b++) {
        bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
        t->byte_cp[b] = (uint16_t)(printable ? b : 256 + extra++);
        t->cp_byte[t->byte_cp[b]] = (int16_t)b;
    }
}

/* The bytes a vocab string stands for: each code point mapped back through
 * the byte-level alphabet; a string with any other code point stands for its
 * own UTF-8 (HF's ByteLevel decoder does the same). */
static const char *bytelevel_decode(tok_tokenizer *t, const char *s, size_t n, uint32_t *out_len) {
    char *o = pg_arena_alloc(&t->arena, n + 1);
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        int l;
        int32_t cp = utf8_next((const unsigned char *)s + i, n - i, &l);
        if (cp < 0 || cp >= 324 || t->cp_byte[cp] < 0) { memcpy(o, s, n); *out_len = (uint32_t)n; return o; }
        o[k++] = (char)t->cp_byte[cp];
        i += (size_t)l;
    }
    *out_len = (uint32_t)k;
    return o;
}

static void set_piece(tok_tokenizer *t, int32_t id, const char *bytes, uint32_t len, uint8_t flags) {
    t->pieces[id] = (tok_piece){bytes, len, (uint8_t)(flags | P_DEFINED)};
}

/* Oniguruma's \\s is exactly Unicode White_Space (PCRE2's lacks U+0085), so
 * it and its complement are spelled out; that also works inside [...]. */
#define ONIG_SPACE "\\t-\\r\\x{20}\\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}"
#define ONIG_NONSPACE "\\x{0}-\\x{8}\\x{E}-\\x{1F}\\x{21}-\\x{84}\\x{86}-\\x{9F}\\x{A1}-\\x{167F}\\x{1681}-\\x{1FFF}" \
                      "\\x{200B}-\\x{2027}\\x{202A}-\\x{202E}\\x{2030}-\\x{205E}\\x{2060}-\\x{2FFF}\\x{3001}-\\x{10FFFF}"
#define ONIG_WORD "\\p{L}\\p{M}\\p{Nd}\\p{Pc}"
#define ONIG_NONHEX "\\x{0}-\\x{2F}\\x{3A}-\\x{40}\\x{47}-\\x{60}\\x{67}-\\x{10FFFF}"

/* Oniguruma pattern -> PCRE2 pattern (see the header comment); malloc'd. */
static char *translate_regex(const char *p, size_t n) {
    pg_buf o = {0};
    bool in_class = false;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (c == '\\' && i + 1 < n) {
            char e = p[++i];
            const char *rep = NULL;
            switch (e) {
            case 's': rep = in_class ? ONIG_SPACE : "[" ONIG_SPACE "]"; break;
            case 'S': rep = in_class ? ONIG_NONSPACE : "[" ONIG_NONSPACE "]"; break;
            case 'w': rep = in_class ? ONIG_WORD : "[" ONIG_WORD "]"; break;
            case 'W': rep = in_class ? NULL : "[^" ONIG_WORD "]"; break;
            case 'h': rep = in_class ? "0-9a-fA-F" : "[0-9a-fA-F]"; break;
            case 'H': rep = in_class ? ONIG_NONHEX : "[^0-9a-fA-F]"; break;
            case 'v': rep = "\\x{0B}"; break;
            default: break;
            }
            if (rep) pg_buf_puts(&o, rep);
            else { pg_buf_putc(&o, '\\'); pg_buf_putc(&o, e); }
            continue;
        }
        if (in_class) {
            if (c == '[' && i + 1 < n && p[i + 1] == ':') {           /* [:alpha:] */
                const char *end = strstr(p + i + 2, ":]");
                if (end && (size_t)(end - p) < n) {
                    pg_buf_putn(&o, p + i, (size_t)(end - (p + i)) + 2);
                    i = (size_t)(end - p) + 1;
                    continue;
                }
            }
            if (c == ']') in_class = false;
            pg_buf_putc(&o, c);
            continue;
        }
        if (c == '[') {
            in_class = true;
            pg_buf_putc(&o, c);
            if (i + 1 < n && p[i + 1] == '^') pg_buf_putc(&o, p[++i]);
            if (i + 1 < n && p[i + 1] == ']') pg_buf_putc(&o, p[++i]); /* leading ] is literal */
            continue;
        }
        if (c == '(' && i + 2 < n && p[i + 1] == '?') {            /* (?imx-imx) / (?imx-imx: */
            size_t j = i + 2;
            while (j < n && (p[j] == 'i' || p[j] == 'm' || p[j] == 'x' || p[j] == '-')) j++;
            if (j > i + 2 && j < n && (p[j] == ':' || p[j] == ')')) {
                pg_buf_puts(&o, "(?");
                for (size_t k = i + 2; k < j; k++) pg_buf_putc(&o, p[k] == 'm' ? 's' : p[k]);
                i = j - 1;
                continue;
            }
        }
        pg_buf_putc(&o, c);
    }
    if (!o.data) pg_buf_puts(&o, "");
    return o.data;
}

static pcre2_code *compile_pcre(const char *pat, size_t n, char *err, size_t errn) {
    int code;
    PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pat, n, PCRE2_UTF | PCRE2_UCP | PCRE2_MULTILINE | PCRE2_MATCH_INVALID_UTF,
                                   &code, &off, NULL);
    if (!re) {
        PCRE2_UCHAR msg[200];
        pcre2_get_error_message(code, msg, sizeof msg);
        snprintf(err, errn, "%s at offset %zu", (const char *)msg, (size_t)off);
        return NULL;
    }
    pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);   /* best effort: the interpreter gives the same matches */
    return re;
}

static pcre2_code *compile_onig(loader *L, const char *pat, size_t n, const char *where) {
    char *tr = translate_regex(pat, n);
    char err[256];
    pcre2_code *re = compile_pcre(tr, strlen(tr), err, sizeof err);
    if (!re) fail(L, PG_ERR_INVALID, "%s: regex /%.*s/ does not compile: %s", where, (int)(n > 200 ? 200 : n), pat, err);
    free(tr);
    return re;
}

static const char *json_type_name(const json_t *j) {
    switch (json_typeof(j)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number";
    case JSON_TRUE: case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

/* Optional boolean member; absent or null gives def. */
static pg_status get_bool(loader *L, json_t *o, const char *key, const char *where, bool def, bool *v) {
    json_t *j = json_object_get(o, key);
    *v = def;
    if (!j || json_is_null(j)) return PG_OK;
    if (!json_is_boolean(j)) return fail(L, PG_ERR_INVALID, "%s.%s: expected a boolean, got %s", where, key, json_type_name(j));
    *v = json_is_true(j);
    return PG_OK;
}

/* Optional string member; absent or null gives NULL.  Copied into the arena. */
static pg_status get_str(loader *L, json_t *o, const char *key, const char *where, const char **v, size_t *len) {
    json_t *j = json_object_get(o, key);
    *v = NULL;
    if (len) *len = 0;
    if (!j || json_is_null(j)) return PG_OK;
    if (!json_is_string(j)) return fail(L, PG_ERR_INVALID, "%s.%s: expected a string, got %s", where, key, json_type_name(j));
    size_t n = json_string_length(j);
    *v = pg_arena_strndup(&L->t->arena, json_string_value(j), n);
    if (len) *len = n;
    return PG_OK;
}

static const char *type_of(json_t *o) {
    json_t *ty = json_object_get(o, "type");
    return json_is_string(ty) ? json_string_value(ty) : NULL;
}

static pg_status load_normalizer(loader *L, json_t *n, const char *where) {
    if (!n || json_is_null(n)) return PG_OK;
    const char *ty = json_is_object(n) ? type_of(n) : NULL;
    if (!ty) return fail(L, PG_ERR_INVALID, "%s: expected an object with a \"type\"", where);
    if (!strcmp(ty, "NFC")) { L->t->nfc = true; return PG_OK; }
    if (!strcmp(ty, "Sequence")) {
        json_t *list = json_object_get(n, "normalizers");
        if (!json_is_array(list)) return fail(L, PG_ERR_INVALID, "%s.normalizers: expected an array", where);
        for (size_t i = 0; i < json_array_size(list); i++) {
            char sub[128];
            snprintf(sub, sizeof sub, "%s.normalizers[%zu]", where, i);
            pg_status st = load_normalizer(L, json_array_get(list, i), sub);
            if (st) return st;
        }
        return PG_OK;
    }
    return fail(L, PG_ERR_INVALID, "%s: normalizer \"%s\" is not supported (only NFC, or none)", where, ty);
}

static pg_status add_step(loader *L, pre_step s, const char *where) {
    tok_tokenizer *t = L->t;
    if (t->n_steps > 0 && t->steps[t->n_steps - 1].kind == STEP_BYTELEVEL) {
        if (s.re) pcre2_code_free(s.re);
        return fail(L, PG_ERR_INVALID, "%s: pre-tokenizer steps after ByteLevel are not supported", where);
    }
    if (t->n_steps == TOK_MAX_STEPS) {
        if (s.re) pcre2_code_free(s.re);
        return fail(L, PG_ERR_LIMIT, "%s: more than %d pre-tokenizer steps", where, TOK_MAX_STEPS);
    }
    t->steps[t->n_steps++] = s;
    return PG_OK;
}

/* GPT-2's pattern, as HF's ByteLevel pre-tokenizer writes it. */
static const char gpt2_regex[] = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

static pg_status load_pre_tokenizer(loader *L, json_t *p, const char *where) {
    const char *ty = json_is_object(p) ? type_of(p) : NULL;
    if (!ty) return fail(L, PG_ERR_INVALID, "%s: expected an object with a \"type\"", where);
    pg_status st;
    if (!strcmp(ty, "Sequence")) {
        json_t *list = json_object_get(p, "pretokenizers");
        if (!json_is_array(list)) return fail(L, PG_ERR_INVALID, "%s.pretokenizers: expected an array", where);
        for (size_t i = 0; i < json_array_size(list); i++) {
            char sub[128];
            snprintf(sub, sizeof sub, "%s.pretokenizers[%zu]", where, i);
            if ((st = load_pre_tokenizer(L, json_array_get(list, i), sub))) return st;
        }
        return PG_OK;
    }
    if (!strcmp(ty, "ByteLevel")) {
        pre_step s = {.kind = STEP_BYTELEVEL, .behavior = B_ISOLATED};
        bool use_regex;
        if ((st = get_bool(L, p, "add_prefix_space", where, true, &s.add_prefix_space)) ||
            (st = get_bool(L, p, "use_regex", where, true, &use_regex)))
            return st;
        if (use_regex && !(s.re = compile_onig(L, gpt2_regex, strlen(gpt2_regex), where))) return PG_ERR_INVALID;
        return add_step(L, s, where);
    }
    if (!strcmp(ty, "Split")) {
        pre_step s = {.kind = STEP_SPLIT};
        json_t *pat = json_object_get(p, "pattern");
        json_t *rx = json_is_object(pat) ? json_object_get(pat, "Regex") : NULL;
        json_t *str = json_is_object(pat) ? json_object_get(pat, "String") : NULL;
        if (json_is_string(rx)) {
            if (!(s.re = compile_onig(L, json_string_value(rx), json_string_length(rx), where))) return PG_ERR_INVALID;
        } else if (json_is_string(str)) {
            size_t n = json_string_length(str);
            const char *v = json_string_value(str);
            if (n) {                                     /* literal: escape every ASCII punctuation byte */
                pg_buf e = {0};
                for (size_t i = 0; i < n; i++) {
                    unsigned char c = (unsigned char)v[i];
                    if (c < 0x80 && !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
                        char hex[16];
                        snprintf(hex, sizeof hex, "\\x{%X}", c);
                        pg_buf_puts(&e, hex);
                    } else pg_buf_putc(&e, (char)c);
                }
                char err[256];
                s.re = compile_pcre(e.data, e.len, err, sizeof err);
                pg_buf_free(&e);
                if (!s.re) return fail(L, PG_ERR_INVALID, "%s.pattern: string pattern does not compile: %s", where, err);
            }
        } else {
            return fail(L, PG_ERR_INVALID, "%s.pattern: expected {\"Regex\": \"...\"} or {\"String\": \"...\"}", where);
        }
        json_t *b = json_object_get(p, "behavior");
        const char *bs = json_is_string(b) ? json_string_value(b) : "";
        static const char *names[] = {"Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"};
        int k = 0;
        while (k < 5 && strcmp(bs, names[k])) k++;
        if ((st = get_bool(L, p, "invert", where, false, &s.invert)) ||
            (k == 5 && (st = fail(L, PG_ERR_INVALID, "%s.behavior: \"%s\" is not a split behavior", where, bs)))) {
            if (s.re) pcre2_code_free(s.re);
            return st;
        }
        s.behavior = (split_behavior)k;
        return add_step(L, s, where);
    }
    if (!strcmp(ty, "Digits")) {
        pre_step s = {.kind = STEP_SPLIT};
        bool individual;
        if ((st = get_bool(L, p, "individual_digits", where, false, &individual))) return st;
        s.behavior = individual ? B_ISOLATED : B_CONTIGUOUS;
        char err[256];
        if (!(s.re = compile_pcre("\\p{N}", 5, err, sizeof err))) return fail(L, PG_ERR_INVALID, "%s: %s", where, err);
        return add_step(L, s, where);
    }
    return fail(L, PG_ERR_INVALID, "%s: pre-tokenizer \"%s\" is not supported (Sequence, Split, Digits, ByteLevel)", where, ty);
}

/* Vocab string of byte b as the initial BPE symbol: [prefix] char(b) [suffix]. */
static size_t symbol_string(const tok_tokenizer *t, int b, bool first, bool last, char *o) {
    size_t k = 0;
    if (!first && t->prefix) { size_t n = strlen(t->prefix); memcpy(o, t->prefix, n); k += n; }
    k += utf8_put(o + k, t->byte_cp[b]);
    if (last && t->suffix) { size_t n = strlen(t->suffix); memcpy(o + k, t->suffix, n); k += n; }
    return k;
}

static void byte_tables(tok_tokenizer *t, size_t plen, size_t slen);

/* The merge table, sized for nm merges at load <= 1/2. */
static pg_status alloc_merges(loader *L, size_t nm) {
    tok_tokenizer *t = L->t;
    t->merges_cap = 16;
    while (t->merges_cap < 2 * nm + 16) {
        if (t->merges_cap >= (1u << 30)) return fail(L, PG_ERR_LIMIT, "%zu merges: too many", nm);
        t->merges_cap *= 2;
    }
    t->merges = malloc(t->merges_cap * sizeof *t->merges);
    if (!t->merges) return fail(L, PG_ERR_NOMEM, "out of memory for %zu merges", nm);
    for (uint32_t i = 0; i < t->merges_cap; i++) t->merges[i].key = MERGE_EMPTY;
    return PG_OK;
}

typedef struct { char *joined; size_t cap; int32_t rank; } merge_ctx;

/* Record merge i, (a, b) -> a + b[skip..], with the next rank (HF joins a
 * with b minus its continuing_subword_prefix).  E804 names `where`[i] when a
 * token is not in the vocab. */
static pg_status put_merge(loader *L, merge_ctx *mc, const char *where, size_t i, const char *a, size_t an, const char *b,
                           size_t bn, size_t skip) {
    tok_tokenizer *t = L->t;
    const int32_t *ia = strmap_get(&t->vocab, a, an), *ib = strmap_get(&t->vocab, b, bn);
    if (!ia || !ib)
        return fail(L, PG_ERR_INVALID, "%s[%zu]: token \"%.*s\" is not in the vocab", where, i,
                    (int)(ia ? (bn > 80 ? 80 : bn) : (an > 80 ? 80 : an)), ia ? b : a);
    if (skip > bn)
        return fail(L, PG_ERR_INVALID, "%s[%zu]: \"%.*s\" is shorter than the continuing_subword_prefix", where, i,
                    (int)(bn > 80 ? 80 : bn), b);
    if (an + bn + 1 > mc->cap) {
        mc->cap = 2 * (an + bn + 1);
        char *nj = realloc(mc->joined, mc->cap);
        if (!nj) return fail(L, PG_ERR_NOMEM, "out of memory");
        mc->joined = nj;
    }
    memcpy(mc->joined, a, an);
    memcpy(mc->joined + an, b + skip, bn - skip);
    const int32_t *inew = strmap_get(&t->vocab, mc->joined, an + bn - skip);
    if (!inew)
        return fail(L, PG_ERR_INVALID, "%s[%zu]: merged token \"%.*s\" is not in the vocab", where, i,
                    (int)(an + bn - skip > 80 ? 80 : an + bn - skip), mc->joined);
    /* later duplicates overwrite earlier ones, as in HF's HashMap */
    uint64_t k = pair_key(*ia, *ib);
    uint32_t h = merge_hash(k) & (t->merges_cap - 1);
    while (t->merges[h].key != MERGE_EMPTY && t->merges[h].key != k) h = (h + 1) & (t->merges_cap - 1);
    t->merges[h] = (merge_slot){k, mc->rank++, *inew};
    return PG_OK;
}

static pg_status load_model(loader *L, json_t *m) {
    tok_tokenizer *t = L->t;
    pg_status st;
    if (!json_is_object(m)) return fail(L, PG_ERR_INVALID, "\"model\": missing or not an object");
    const char *ty = type_of(m);
    if (ty && strcmp(ty, "BPE"))
        return fail(L, PG_ERR_INVALID, "model.type: \"%s\" is not supported (only byte-level \"BPE\")", ty);
    if (!ty && !json_object_get(m, "merges"))
        return fail(L, PG_ERR_INVALID, "model: no \"type\" and no \"merges\"; only BPE models are supported");
    json_t *drop = json_object_get(m, "dropout");
    if (drop && !json_is_null(drop)) {
        if (!json_is_number(drop)) return fail(L, PG_ERR_INVALID, "model.dropout: expected a number or null");
        if (json_number_value(drop) != 0.0)
            return fail(L, PG_ERR_INVALID, "model.dropout: %g is not supported (BPE dropout is random; use null)", json_number_value(drop));
    }
    size_t plen, slen;
    if ((st = get_str(L, m, "unk_token", "model", &t->unk, NULL)) ||
        (st = get_str(L, m, "continuing_subword_prefix", "model", &t->prefix, &plen)) ||
        (st = get_str(L, m, "end_of_word_suffix", "model", &t->suffix, &slen)) ||
        (st = get_bool(L, m, "fuse_unk", "model", false, &t->fuse_unk)) ||
        (st = get_bool(L, m, "byte_fallback", "model", false, &t->byte_fallback)) ||
        (st = get_bool(L, m, "ignore_merges", "model", false, &t->ignore_merges)))
        return st;
    if ((t->prefix && (!plen || memchr(t->prefix, 0, plen))) || (t->suffix && (!slen || memchr(t->suffix, 0, slen))))
        return fail(L, PG_ERR_INVALID, "model: empty continuing_subword_prefix/end_of_word_suffix or one with NUL");

    json_t *vocab = json_object_get(m, "vocab");
    if (!json_is_object(vocab)) return fail(L, PG_ERR_INVALID, "model.vocab: missing or not an object");
    const char *key;
    json_t *val;
    int32_t max_id = -1;
    json_object_foreach(vocab, key, val) {
        if (!json_is_integer(val) || json_integer_value(val) < 0 || json_integer_value(val) >= TOK_MAX_ID)
            return fail(L, PG_ERR_INVALID, "model.vocab[\"%.80s\"]: id must be an integer in [0, %d)", key, TOK_MAX_ID);
        int32_t id = (int32_t)json_integer_value(val);
        size_t kn = json_object_iter_key_len(json_object_key_to_iter(key));
        strmap_put(&t->vocab, pg_arena_strndup(&t->arena, key, kn), kn, id);
        if (id > max_id) max_id = id;
    }
    t->model_vocab_len = (int)t->vocab.count;
    t->n_ids = max_id + 1;

    json_t *merges = json_object_get(m, "merges");
    if (merges && !json_is_array(merges)) return fail(L, PG_ERR_INVALID, "model.merges: expected an array");
    size_t nm = merges ? json_array_size(merges) : 0;
    if ((st = alloc_merges(L, nm))) return st;
    merge_ctx mc = {0};
    for (size_t i = 0; i < nm && !st; i++) {
        json_t *e = json_array_get(merges, i);
        const char *a, *b;
        size_t an, bn;
        if (json_is_string(e)) {                        /* legacy "a b" */
            const char *s = json_string_value(e);
            size_t n = json_string_length(e);
            if (n >= 8 && !memcmp(s, "#version", 8)) continue;     /* HF skips these lines (no rank) */
            const char *sp = memchr(s, ' ', n);
            if (!sp || memchr(sp + 1, ' ', n - (size_t)(sp + 1 - s))) {
                st = fail(L, PG_ERR_INVALID, "model.merges[%zu]: \"%.80s\" is not two tokens separated by one space", i, s);
                break;
            }
            a = s; an = (size_t)(sp - s); b = sp + 1; bn = n - an - 1;
        } else if (json_is_array(e) && json_array_size(e) == 2 && json_is_string(json_array_get(e, 0)) &&
                   json_is_string(json_array_get(e, 1))) {
            a = json_string_value(json_array_get(e, 0)); an = json_string_length(json_array_get(e, 0));
            b = json_string_value(json_array_get(e, 1)); bn = json_string_length(json_array_get(e, 1));
        } else {
            st = fail(L, PG_ERR_INVALID, "model.merges[%zu]: expected \"a b\" or [\"a\", \"b\"], got %s", i, json_type_name(e));
            break;
        }
        st = put_merge(L, &mc, "model.merges", i, a, an, b, bn, t->prefix ? plen : 0);
    }
    free(mc.joined);
    if (st) return st;
    byte_tables(t, plen, slen);
    return PG_OK;
}

/* The initial BPE symbol of every byte, and byte-fallback tokens. */
static void byte_tables(tok_tokenizer *t, size_t plen, size_t slen) {
    char sym[64];
    for (int v = 0; v < 4; v++)
        for (int b = 0; b < 256; b++) {
            if ((t->prefix && plen > 28) || (t->suffix && slen > 28)) { t->byte_id[v][b] = -2; continue; }
            size_t n = symbol_string(t, b, !(v & 1), (v & 2) != 0, sym);
            const int32_t *id = strmap_get(&t->vocab, sym, n);
            t->byte_id[v][b] = id ? *id : -1;
        }
    for (int b = 0; b < 256; b++) {
        snprintf(sym, sizeof sym, "<0x%02X>", b);
        const int32_t *id = strmap_get(&t->vocab, sym, strlen(sym));
        t->fallback_id[b] = id ? *id : -1;
    }
}

static void build_match_set(tok_tokenizer *t, match_set *ms, bool normalized) {
    int count[256] = {0};
    for (int i = 0; i < t->n_added; i++)
        if (t->added[i].normalized == normalized) count[(unsigned char)t->added[i].s[0]]++;
    ms->start[0] = 0;
    for (int b = 0; b < 256; b++) ms->start[b + 1] = ms->start[b] + count[b];
    ms->idx = pg_arena_alloc(&t->arena, sizeof(int32_t) * (size_t)(ms->start[256] + 1));
    int fill[256];
    memcpy(fill, ms->start, sizeof fill);
    /* specials first, then the others, each in file order: HF's pattern order */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < t->n_added; i++) {
            const added_tok *a = &t->added[i];
            if (a->normalized == normalized && a->special == (pass == 0)) ms->idx[fill[(unsigned char)a->s[0]]++] = i;
        }
}

static pg_status load_added(loader *L, json_t *list) {
    tok_tokenizer *t = L->t;
    pg_status st;
    if (!list || json_is_null(list)) return PG_OK;
    if (!json_is_array(list)) return fail(L, PG_ERR_INVALID, "added_tokens: expected an array");
    bool any_single = false;
    for (size_t i = 0; i < json_array_size(list); i++) {
        json_t *e = json_array_get(list, i);
        char where[64];
        snprintf(where, sizeof where, "added_tokens[%zu]", i);
        if (!json_is_object(e)) return fail(L, PG_ERR_INVALID, "%s: expected an object", where);
        added_tok a = {0};
        size_t len;
        if ((st = get_str(L, e, "content", where, &a.s, &len)) || (st = get_bool(L, e, "single_word", where, false, &a.single_word)) ||
            (st = get_bool(L, e, "lstrip", where, false, &a.lstrip)) || (st = get_bool(L, e, "rstrip", where, false, &a.rstrip)) ||
            (st = get_bool(L, e, "special", where, false, &a.special)) ||
            (st = get_bool(L, e, "normalized", where, !a.special, &a.normalized)))
            return st;
        if (!a.s) return fail(L, PG_ERR_INVALID, "%s: missing \"content\"", where);
        json_t *jid = json_object_get(e, "id");
        if (!json_is_integer(jid) || json_integer_value(jid) < 0 || json_integer_value(jid) >= TOK_MAX_ID)
            return fail(L, PG_ERR_INVALID, "%s: \"id\" must be an integer in [0, %d)", where, TOK_MAX_ID);
        if (len == 0) continue;                            /* HF ignores empty tokens */
        a.len = (uint32_t)len;
        if (a.normalized && t->nfc && !nfc_ok(a.s, len))
            return fail(L, PG_ERR_INVALID, "%s: \"%.80s\" would need NFC normalization, which is not implemented", where, a.s);
        /* HF re-derives the id: the content's existing id, else the next free one */
        const int32_t *have = strmap_get(&t->added_map, a.s, len);
        const int32_t *in_vocab = strmap_get(&t->vocab, a.s, len);
        if (have) a.id = t->added[*have].id;
        else if (in_vocab) a.id = *in_vocab;
        else {
            int32_t max = -1;
            for (int k = 0; k < t->n_added; k++) if (t->added[k].id > max) max = t->added[k].id;
            a.id = max < 0 ? t->model_vocab_len : (max >= t->model_vocab_len || t->model_vocab_len == 0) ? max + 1 : t->model_vocab_len;
        }
        if (a.id >= TOK_MAX_ID) return fail(L, PG_ERR_LIMIT, "%s: id %d too large", where, a.id);
        if (have) {                                        /* same content again: newest flags win */
            bool was_special = t->added[*have].special;
            t->added[*have] = a;
            t->added[*have].special |= was_special;
            continue;
        }
        if (t->n_added == t->cap_added) {
            t->cap_added = t->cap_added ? 2 * t->cap_added : 16;
            added_tok *na = realloc(t->added, (size_t)t->cap_added * sizeof *na);
            if (!na) return fail(L, PG_ERR_NOMEM, "out of memory");
            t->added = na;
        }
        strmap_put(&t->added_map, a.s, len, t->n_added);
        t->added[t->n_added++] = a;
    }
    for (int i = 0; i < t->n_added; i++) {
        if (t->added[i].id + 1 > t->n_ids) t->n_ids = t->added[i].id + 1;
        any_single |= t->added[i].single_word;
    }
    if (any_single) {
        char err[256];
        static const char w[] = "[\\p{L}\\p{M}\\p{Nd}\\p{Nl}\\p{Pc}\\x{200C}\\x{200D}]";   /* Rust regex \w */
        if (!(t->word_re = compile_pcre(w, strlen(w), err, sizeof err))) return fail(L, PG_ERR_INVALID, "%s", err);
    }
    build_match_set(t, &t->raw_set, false);
    build_match_set(t, &t->norm_set, true);
    return PG_OK;
}

pg_status tok_load_mem(const char *json, size_t len, const char *name, tok_tokenizer **out, pg_diag_sink *diag) {
    *out = NULL;
    tok_tokenizer *t = calloc(1, sizeof *t);
    if (!t) return PG_ERR_NOMEM;
    t->name = pg_arena_strdup(&t->arena, name ? name : "tokenizer.json");
    init_alphabet(t);
    loader L = {t, diag, name ? name : "tokenizer.json"};   /* the caller's string: it outlives a failed load */
    json_error_t je;
    json_t *root = json_loadb(json, len, JSON_ALLOW_NUL, &je);
    pg_status st = PG_OK;
    if (!root) {
        pg_diag_emit(diag, PG_E_TOKENIZER, L.name, je.line > 0 ? je.line : 0, je.column > 0 ? je.column : 0,
                     "not valid JSON: %s", je.text);
        st = PG_ERR_PARSE;
    } else if (!json_is_object(root)) {
        st = fail(&L, PG_ERR_INVALID, "expected a JSON object at the top level, got %s", json_type_name(root));
    } else {
        json_t *dec = json_object_get(root, "decoder");
        json_t *pre = json_object_get(root, "pre_tokenizer");
        const char *dty = json_is_object(dec) ? type_of(dec) : NULL;
        if ((st = load_model(&L, json_object_get(root, "model")))) {
        } else if ((st = load_normalizer(&L, json_object_get(root, "normalizer"), "normalizer"))) {
        } else if (!pre || json_is_null(pre)) {
            st = fail(&L, PG_ERR_INVALID, "pre_tokenizer: missing; byte-level BPE needs a ByteLevel pre-tokenizer");
        } else if ((st = load_pre_tokenizer(&L, pre, "pre_tokenizer"))) {
        } else if (t->n_steps == 0 || t->steps[t->n_steps - 1].kind != STEP_BYTELEVEL) {
            st = fail(&L, PG_ERR_INVALID, "pre_tokenizer: no ByteLevel step; only byte-level BPE is supported");
        } else if (!dty || strcmp(dty, "ByteLevel")) {
            st = fail(&L, PG_ERR_INVALID, "decoder: \"%s\" is not supported (only ByteLevel)", dty ? dty : "null");
        } else if (!(st = load_added(&L, json_object_get(root, "added_tokens")))) {
            t->pieces = calloc((size_t)(t->n_ids > 0 ? t->n_ids : 1), sizeof *t->pieces);
            if (!t->pieces) st = fail(&L, PG_ERR_NOMEM, "out of memory for %d ids", t->n_ids);
        }
    }
    json_decref(root);
    if (!st) {
        for (uint32_t i = 0; i < t->vocab.cap; i++) {
            const sm_slot *e = &t->vocab.slots[i];
            if (!e->s || (t->pieces[e->v].flags & P_DEFINED)) continue;
            uint32_t bl;
            const char *bytes = bytelevel_decode(t, e->s, e->n, &bl);
            set_piece(t, e->v, bytes, bl, 0);
        }
        for (int i = 0; i < t->n_added; i++) {
            const added_tok *a = &t->added[i];
            uint32_t bl;
            const char *bytes = bytelevel_decode(t, a->s, a->len, &bl);
            set_piece(t, a->id, bytes, bl, (uint8_t)(P_ADDED | (a->special ? P_SPECIAL : 0)));
        }
    }
    if (st) { tok_free(t); return st; }
    *out = t;
    return PG_OK;
}

typedef struct { pg_diag last; bool have; } capture_sink;
static void capture_fn(void *user, const pg_diag *d);

static void capture_fn(void *user, const pg_diag *d) {
    capture_sink *c = user;
    c->last = *d;
    c->have = true;
}

/* ---- GGUF metadata ------------------------------------------------------------
 * llama.cpp stores the tokenizer as tokenizer.ggml.* keys.  We build what
 * transformers builds from them (integrations/gguf: byte_level_tokenizer,
 * add_gguf_special_tokens, set_split_regex), except that the pre-tokenizer of
 * "smollm" is SmolLM2's own tokenizer.json's (Digits then ByteLevel), which
 * llama.cpp also uses; transformers falls back to plain ByteLevel there. */

/* Qwen2's Split regex (tokenizer.json; transformers' Qwen2 PRETOKENIZE_REGEX). */
static const char qwen2_regex[] =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

static pg_status gguf_pre_tokenizer(loader *L, const gguf_str *pre) {
    const char *where = "tokenizer.ggml.pre";
    pg_status st;
    char err[256];
    if (pre->len == 5 && !memcmp(pre->s, "qwen2", 5)) {          /* Split(regex, Isolated), ByteLevel without regex */
        pre_step sp = {.kind = STEP_SPLIT, .behavior = B_ISOLATED};
        if (!(sp.re = compile_onig(L, qwen2_regex, strlen(qwen2_regex), where))) return PG_ERR_INVALID;
        if ((st = add_step(L, sp, where))) return st;
        return add_step(L, (pre_step){.kind = STEP_BYTELEVEL, .behavior = B_ISOLATED}, where);
    }
    if (pre->len == 6 && !memcmp(pre->s, "smollm", 6)) {         /* Digits(individual), ByteLevel(GPT-2 regex) */
        pre_step dg = {.kind = STEP_SPLIT, .behavior = B_ISOLATED};
        if (!(dg.re = compile_pcre("\\p{N}", 5, err, sizeof err))) return fail(L, PG_ERR_INVALID, "%s: %s", where, err);
        if ((st = add_step(L, dg, where))) return st;
        pre_step bl = {.kind = STEP_BYTELEVEL, .behavior = B_ISOLATED};
        if (!(bl.re = compile_onig(L, gpt2_regex, strlen(gpt2_regex), where))) return PG_ERR_INVALID;
        return add_step(L, bl, where);
    }
    return fail(L, PG_ERR_INVALID, "%s '%.*s' is not supported (known: qwen2, smollm)", where, (int)(pre->len > 80 ? 80 : pre->len),
                pre->s);
}

/* True when every code point of s is in the byte-level alphabet (invalid
 * UTF-8 is not). */
static bool in_alphabet(const tok_tokenizer *t, const char *s, size_t n) {
    for (size_t i = 0; i < n;) {
        int l;
        int32_t cp = utf8_next((const unsigned char *)s + i, n - i, &l);
        if (cp < 0 || cp >= 324 || t->cp_byte[cp] < 0) return false;
        i += (size_t)l;
    }
    return true;
}

enum { GGUF_TT_NORMAL = 1, GGUF_TT_UNKNOWN = 2, GGUF_TT_CONTROL = 3, GGUF_TT_USER = 4, GGUF_TT_UNUSED = 5, GGUF_TT_BYTE = 6 };

static pg_status load_gguf(loader *L, const gguf_file *g) {
    tok_tokenizer *t = L->t;
    pg_status st;
    gguf_str model, pre;
    if (!model_gguf_get_str(g, "tokenizer.ggml.model", &model))
        return fail(L, PG_ERR_INVALID, "tokenizer.ggml.model: missing or not a string (no tokenizer in this GGUF?)");
    if (model.len != 4 || memcmp(model.s, "gpt2", 4))
        return fail(L, PG_ERR_INVALID, "tokenizer.ggml.model '%.*s' is not supported (only 'gpt2', byte-level BPE)",
                    (int)(model.len > 80 ? 80 : model.len), model.s);
    if (!model_gguf_get_str(g, "tokenizer.ggml.pre", &pre))
        return fail(L, PG_ERR_INVALID, "tokenizer.ggml.pre: missing or not a string; the pre-tokenizer must be named");
    if ((st = gguf_pre_tokenizer(L, &pre))) return st;

    const gguf_kv *toks = model_gguf_find(g, "tokenizer.ggml.tokens"), *types = model_gguf_find(g, "tokenizer.ggml.token_type");
    const gguf_kv *merges = model_gguf_find(g, "tokenizer.ggml.merges");
    if (!toks || toks->type != GGUF_V_ARRAY || toks->arr_type != GGUF_V_STRING || toks->arr_len == 0)
        return fail(L, PG_ERR_INVALID, "tokenizer.ggml.tokens: missing or not a non-empty array of strings");
    if (toks->arr_len >= TOK_MAX_ID)
        return fail(L, PG_ERR_LIMIT, "tokenizer.ggml.tokens: %llu tokens, more than %d", (unsigned long long)toks->arr_len, TOK_MAX_ID);
    int n = (int)toks->arr_len;
    int64_t ty;
    if (types && (types->type != GGUF_V_ARRAY || types->arr_len != toks->arr_len || !model_gguf_arr_int(types, 0, &ty)))
        return fail(L, PG_ERR_INVALID, "tokenizer.ggml.token_type: expected an array of %d integers, one per token", n);
    if (!merges || merges->type != GGUF_V_ARRAY || merges->arr_type != GGUF_V_STRING)
        return fail(L, PG_ERR_INVALID, "tokenizer.ggml.merges: missing or not an array of strings (merges from scores are not supported)");

    /* vocab: each token's byte-level spelling -> id; a token with a character
     * outside the alphabet is spelled byte by byte (transformers does the same) */
    strmap_reserve(&t->vocab, (uint32_t)n);
    const char **orig = calloc((size_t)n, sizeof *orig);     /* [n] the token as written, NUL-terminated, in the arena */
    uint32_t *olen = calloc((size_t)n, sizeof *olen);        /* [n] */
    if (!orig || !olen) { free(orig); free(olen); return fail(L, PG_ERR_NOMEM, "out of memory for %d tokens", n); }
    for (int i = 0; i < n; i++) {
        gguf_str s;
        model_gguf_arr_str(toks, (uint64_t)i, &s);
        if (s.len > (1u << 20)) { st = fail(L, PG_ERR_LIMIT, "tokenizer.ggml.tokens[%d]: %llu bytes, too long", i, (unsigned long long)s.len); break; }
        orig[i] = pg_arena_strndup(&t->arena, s.s, (size_t)s.len);
        olen[i] = (uint32_t)s.len;
        if (in_alphabet(t, s.s, (size_t)s.len)) {
            strmap_put(&t->vocab, orig[i], s.len, i);
        } else {
            char *sp = pg_arena_alloc(&t->arena, 2 * (size_t)s.len + 1), u[4];
            size_t k = 0;
            for (uint64_t j = 0; j < s.len; j++) {
                size_t l = utf8_put(u, t->byte_cp[(unsigned char)s.s[j]]);
                memcpy(sp + k, u, l);
                k += l;
            }
            strmap_put(&t->vocab, sp, k, i);
        }
    }
    t->model_vocab_len = (int)t->vocab.count;
    t->n_ids = n;
    if (!st && types)                                         /* every type must be an integer */
        for (int i = 0; i < n; i++)
            if (!model_gguf_arr_int(types, (uint64_t)i, &ty)) { st = fail(L, PG_ERR_INVALID, "tokenizer.ggml.token_type[%d]: not an integer", i); break; }

    /* merges "a b", ranked in file order */
    if (!st) st = alloc_merges(L, (size_t)merges->arr_len);
    merge_ctx mc = {0};
    for (uint64_t i = 0; !st && i < merges->arr_len; i++) {
        gguf_str m;
        model_gguf_arr_str(merges, i, &m);
        const char *sp = memchr(m.s, ' ', (size_t)m.len);
        if (!sp || memchr(sp + 1, ' ', (size_t)(m.len - (uint64_t)(sp + 1 - m.s)))) {
            st = fail(L, PG_ERR_INVALID, "tokenizer.ggml.merges[%llu]: \"%.*s\" is not two tokens separated by one space",
                      (unsigned long long)i, (int)(m.len > 80 ? 80 : m.len), m.s);
            break;
        }
        size_t an = (size_t)(sp - m.s);
        st = put_merge(L, &mc, "tokenizer.ggml.merges", (size_t)i, m.s, an, sp + 1, (size_t)m.len - an - 1, 0);
    }
    free(mc.joined);
    if (!st) byte_tables(t, 0, 0);

    /* control tokens -> special added tokens (only those spelled in the
     * alphabet: another is a mislabel); user-defined tokens present in the
     * vocab -> non-special added tokens.  Both matched in raw text. */
    for (int pass = 0; !st && types && pass < 2; pass++)
        for (int i = 0; i < n; i++) {
            model_gguf_arr_int(types, (uint64_t)i, &ty);
            if (ty != (pass == 0 ? GGUF_TT_CONTROL : GGUF_TT_USER)) continue;
            bool control = ty == GGUF_TT_CONTROL && in_alphabet(t, orig[i], olen[i]);
            const int32_t *vid = strmap_get(&t->vocab, orig[i], olen[i]);
            bool user = ty == GGUF_TT_USER && vid;
            if (!(pass == 0 ? control : user) || olen[i] == 0 || strmap_get(&t->added_map, orig[i], olen[i])) continue;
            if (t->n_added == t->cap_added) {
                t->cap_added = t->cap_added ? 2 * t->cap_added : 32;
                added_tok *na = realloc(t->added, (size_t)t->cap_added * sizeof *na);
                if (!na) { st = fail(L, PG_ERR_NOMEM, "out of memory"); break; }
                t->added = na;
            }
            strmap_put(&t->added_map, orig[i], olen[i], t->n_added);
            t->added[t->n_added++] = (added_tok){.s = orig[i], .len = olen[i], .id = vid ? *vid : i, .special = pass == 0};
        }
    if (!st) {
        build_match_set(t, &t->raw_set, false);
        build_match_set(t, &t->norm_set, true);
        t->pieces = calloc((size_t)n, sizeof *t->pieces);
        if (!t->pieces) st = fail(L, PG_ERR_NOMEM, "out of memory for %d ids", n);
    }
    for (int i = 0; !st && i < n; i++) {
        uint32_t bl;
        const char *bytes = bytelevel_decode(t, orig[i], olen[i], &bl);
        set_piece(t, i, bytes, bl, types && model_gguf_arr_int(types, (uint64_t)i, &ty) && ty == GGUF_TT_UNUSED ? P_UNUSED : 0);
    }
    for (int i = 0; !st && i < t->n_added; i++) {
        const added_tok *a = &t->added[i];
        set_piece(t, a->id, t->pieces[a->id].bytes, t->pieces[a->id].len, (uint8_t)(P_ADDED | (a->special ? P_SPECIAL : 0)));
    }
    free(orig);
    free(olen);
    return st;
}

pg_status tok_from_gguf(const gguf_file *g, tok_tokenizer **out, pg_diag_sink *diag) {
    *out = NULL;
    tok_tokenizer *t = calloc(1, sizeof *t);
    if (!t) return PG_ERR_NOMEM;
    t->name = pg_arena_strdup(&t->arena, model_gguf_path(g));
    init_alphabet(t);
    loader L = {t, diag, model_gguf_path(g)};                      /* lives as long as g, past a failed load */
    pg_status st = load_gguf(&L, g);
    if (st) { tok_free(t); return st; }
    *out = t;
    return PG_OK;
}

pg_status tok_load_gguf(const char *path, tok_tokenizer **out, pg_diag_sink *diag) {
    *out = NULL;
    gguf_file *g = NULL;
    pg_status st = model_gguf_open(path, &g, diag);
    if (st) return st;
    capture_sink cap = {0};
    pg_diag_sink local = {capture_fn, &cap, 0, 0, 0};       /* re-emitted with the caller's path, which outlives g */
    st = tok_from_gguf(g, out, &local);
    if (st) pg_diag_emit(diag, PG_E_TOKENIZER, path, 0, 0, "%s", cap.have ? cap.last.msg : pg_status_str(st));
    model_gguf_close(g);
    return st;
}


static pg_status tok_load_(const char *path, tok_tokenizer **out, pg_diag_sink *diag) {
    *out = NULL;
    FILE *f = fopen(path, "rb");                              /* GGUF files are loaded from their metadata */
    char magic[4] = {0};
    bool is_gguf = f && fread(magic, 1, 4, f) == 4 && !memcmp(magic, "GGUF", 4);
    if (f) fclose(f);
    if (is_gguf) return tok_load_gguf(path, out, diag);
    capture_sink cap = {0};
    pg_diag_sink local = {capture_fn, &cap, 0, 0, 0};
    char *buf = NULL;
    size_t len = 0;
    pg_status st = pg_read_file(path, TOK_MAX_FILE, &buf, &len, &local);
    if (st) {
        pg_diag_emit(diag, PG_E_TOKENIZER, path, 0, 0, "cannot read tokenizer: %s", cap.have ? cap.last.msg : pg_status_str(st));
        return st;
    }
    st = tok_load_mem(buf, len, path, out, diag);
    free(buf);
    return st;
}

pg_status tok_load(const char *path, tok_tokenizer **out, pg_diag_sink *diag) {
    int e0 = diag ? diag->nerrors : 0;
    return pg_nomem_said(tok_load_(path, out, diag), diag, e0, path, "loading the tokenizer");
}


void tok_free(tok_tokenizer *t) {
    if (!t) return;
    for (int i = 0; i < t->n_steps; i++) pcre2_code_free(t->steps[i].re);
    pcre2_code_free(t->word_re);
    free(t->vocab.slots);
    free(t->added_map.slots);
    free(t->merges);
    free(t->added);
    free(t->pieces);
    pg_arena_free(&t->arena);
    free(t);
}

/* ---- accessors -------------------------------------------------------------- */

int tok_vocab_size(const tok_tokenizer *t) { return t->n_ids; }

const char *tok_token_bytes(const tok_tokenizer *t, int32_t id, size_t *len) {
    if (id < 0 || id >= t->n_ids || !(t->pieces[id].flags & P_DEFINED)) { *len = 0; return NULL; }
    *len = t->pieces[id].len;
    return t->pieces[id].bytes;
}

int32_t tok_special_id(const tok_tokenizer *t, const char *text) {
    const int32_t *i = strmap_get(&t->added_map, text, strlen(text));
    return i ? t->added[*i].id : -1;
}

bool tok_is_special(const tok_tokenizer *t, int32_t id) {
    return id >= 0 && id < t->n_ids && (t->pieces[id].flags & P_SPECIAL);
}

bool tok_is_unused(const tok_tokenizer *t, int32_t id) {
    return id >= 0 && id < t->n_ids && (t->pieces[id].flags & P_UNUSED);
}

void tok_decode(const tok_tokenizer *t, const int32_t *ids, size_t n, pg_buf *out) {
    for (size_t i = 0; i < n; i++) {
        size_t len;
        const char *s = tok_token_bytes(t, ids[i], &len);
        if (s) pg_buf_putn(out, s, len);
    }
    if (!out->data) pg_buf_putn(out, "", 0);
}

/* ---- encoding ---------------------------------------------------------------- */

typedef struct { size_t off, len; bool match; } span;
typedef PG_VEC(span) span_vec;
typedef struct { int32_t c, prev, next; bool alive; } bpe_sym;
typedef struct { int32_t rank, pos, id; } bpe_merge;

typedef struct {
    const tok_tokenizer *t;
    PG_VEC(int32_t) out;
    pcre2_match_data *md;
    span_vec spans[TOK_MAX_STEPS + 1];   /* per pre-tokenizer depth */
    pg_buf prefixed;                     /* " " + piece for ByteLevel add_prefix_space */
    pg_buf blstr;                        /* byte-level spelling of a piece (ignore_merges) */
    bpe_sym *sym; size_t sym_cap;
    bpe_merge *heap; size_t heap_n, heap_cap;
    strmap cache;                        /* piece bytes -> offset in pool: [count, ids...] */
    pg_arena cache_keys;
    PG_VEC(int32_t) pool;
    pg_status err;
} enc;

static void emit(enc *E, int32_t id) { pg_vec_push(E->out, id); }

static const merge_slot *merge_get(const tok_tokenizer *t, int32_t a, int32_t b) {
    uint64_t k = pair_key(a, b);
    for (uint32_t h = merge_hash(k) & (t->merges_cap - 1);; h = (h + 1) & (t->merges_cap - 1)) {
        if (t->merges[h].key == k) return &t->merges[h];
        if (t->merges[h].key == MERGE_EMPTY) return NULL;
    }
}

/* Min-heap on (rank, pos): HF's BinaryHeap of Merge. */
static bool merge_less(const bpe_merge *x, const bpe_merge *y) {
    return x->rank != y->rank ? x->rank < y->rank : x->pos < y->pos;
}
static void heap_push(enc *E, bpe_merge m) {
    if (E->heap_n == E->heap_cap) {
        E->heap_cap = E->heap_cap ? 2 * E->heap_cap : 64;
        E->heap = realloc(E->heap, E->heap_cap * sizeof *E->heap);
        if (!E->heap) pg_oom();
    }
    size_t i = E->heap_n++;
    while (i > 0 && merge_less(&m, &E->heap[(i - 1) / 2])) { E->heap[i] = E->heap[(i - 1) / 2]; i = (i - 1) / 2; }
    E->heap[i] = m;
}
static bpe_merge heap_pop(enc *E) {
    bpe_merge top = E->heap[0], last = E->heap[--E->heap_n];
    size_t i = 0, n = E->heap_n;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && merge_less(&E->heap[c + 1], &E->heap[c])) c++;
        if (!merge_less(&E->heap[c], &last)) break;
        E->heap[i] = E->heap[c];
        i = c;
    }
    if (n) E->heap[i] = last;
    return top;
}

static void add_sym(enc *E, size_t *ns, int32_t id) {
    if (*ns == E->sym_cap) {
        E->sym_cap = E->sym_cap ? 2 * E->sym_cap : 256;
        E->sym = realloc(E->sym, E->sym_cap * sizeof *E->sym);
        if (!E->sym) pg_oom();
    }
    E->sym[*ns] = (bpe_sym){id, (int32_t)*ns - 1, (int32_t)*ns + 1, true};
    (*ns)++;
}

/* Initial symbols of byte i when the table has no id for it: byte fallback,
 * then unk (fused or not), else dropped — HF's BPE::merge_word. */
static void slow_symbol(enc *E, size_t *ns, const unsigned char *p, size_t i, size_t n, int32_t *unk) {
    const tok_tokenizer *t = E->t;
    size_t pn = t->prefix ? strlen(t->prefix) : 0, sn = t->suffix ? strlen(t->suffix) : 0;
    char stackbuf[64];
    char *s = pn + sn + 4 <= sizeof stackbuf ? stackbuf : malloc(pn + sn + 4);
    if (!s) pg_oom();
    size_t k = symbol_string(t, p[i], i == 0, i + 1 == n, s);
    const int32_t *id = strmap_get(&t->vocab, s, k);
    if (id) {
        if (*unk >= 0) { add_sym(E, ns, *unk); *unk = -1; }
        add_sym(E, ns, *id);
    } else {
        bool fb = t->byte_fallback;
        for (size_t j = 0; fb && j < k; j++) fb = t->fallback_id[(unsigned char)s[j]] >= 0;
        if (fb) {
            for (size_t j = 0; j < k; j++) add_sym(E, ns, t->fallback_id[(unsigned char)s[j]]);
        } else if (t->unk) {
            const int32_t *u = strmap_get(&t->vocab, t->unk, strlen(t->unk));
            if (u) {
                if (*unk >= 0 && !t->fuse_unk) add_sym(E, ns, *unk);
                *unk = *u;
            } else if (E->err == PG_OK) E->err = PG_ERR_INVALID;       /* HF: UnkTokenOutOfVocabulary */
        }
    }
    if (s != stackbuf) free(s);
}

/* BPE of one pre-token (raw bytes), appending ids to E->out. */
static void bpe_piece(enc *E, const char *piece, size_t n) {
    const tok_tokenizer *t = E->t;
    if (n == 0) return;
    const int32_t *hit = n <= CACHE_MAX_PIECE ? strmap_get(&E->cache, piece, n) : NULL;
    if (hit) {
        const int32_t *c = &E->pool.v[*hit];
        for (int32_t i = 1; i <= c[0]; i++) emit(E, c[i]);
        return;
    }
    int start = E->out.n;
    const unsigned char *p = (const unsigned char *)piece;
    const int32_t *whole = NULL;
    if (t->ignore_merges) {                     /* the whole piece is a vocab token: take it */
        E->blstr.len = 0;
        char u[4];
        for (size_t i = 0; i < n; i++) pg_buf_putn(&E->blstr, u, utf8_put(u, t->byte_cp[p[i]]));
        whole = strmap_get(&t->vocab, E->blstr.data, E->blstr.len);
    }
    if (whole) {
        emit(E, *whole);
    } else {
        size_t ns = 0;
        int32_t unk = -1;
        for (size_t i = 0; i < n; i++) {
            int32_t id = t->byte_id[(i > 0) | (i + 1 == n) << 1][p[i]];
            if (id >= 0) {
                if (unk >= 0) { add_sym(E, &ns, unk); unk = -1; }
                add_sym(E, &ns, id);
            } else {
                slow_symbol(E, &ns, p, i, n, &unk);
            }
        }
        if (unk >= 0) add_sym(E, &ns, unk);
        if (ns) E->sym[ns - 1].next = -1;
        /* HF's Word::merge_all */
        E->heap_n = 0;
        for (size_t i = 0; i + 1 < ns; i++) {
            const merge_slot *m = merge_get(t, E->sym[i].c, E->sym[i + 1].c);
            if (m) heap_push(E, (bpe_merge){m->rank, (int32_t)i, m->id});
        }
        while (E->heap_n) {
            bpe_merge top = heap_pop(E);
            bpe_sym *cur = &E->sym[top.pos];
            if (!cur->alive || cur->next < 0) continue;
            bpe_sym *right = &E->sym[cur->next];
            const merge_slot *m = merge_get(t, cur->c, right->c);
            if (!m || m->id != top.id) continue;            /* stale entry */
            cur->c = top.id;
            right->alive = false;
            cur->next = right->next;
            if (right->next >= 0) E->sym[right->next].prev = top.pos;
            if (cur->prev >= 0 && (m = merge_get(t, E->sym[cur->prev].c, cur->c)))
                heap_push(E, (bpe_merge){m->rank, cur->prev, m->id});
            if (cur->next >= 0 && (m = merge_get(t, cur->c, E->sym[cur->next].c)))
                heap_push(E, (bpe_merge){m->rank, top.pos, m->id});
        }
        for (size_t i = 0; i < ns; i++)
            if (E->sym[i].alive) emit(E, E->sym[i].c);
    }
    if (n <= CACHE_MAX_PIECE && E->cache.count < CACHE_MAX_ENTRIES) {
        int32_t off = E->pool.n, cnt = E->out.n - start;
        pg_vec_push(E->pool, cnt);
        for (int32_t i = 0; i < cnt; i++) pg_vec_push(E->pool, E->out.v[start + i]);
        strmap_put(&E->cache, pg_arena_strndup(&E->cache_keys, piece, n), n, off);
    }
}

/* The (offsets, is_match) list of HF's Pattern::find_matches for a regex,
 * with the onig crate's find_iter rule for empty matches. */
static void find_matches(enc *E, pcre2_code *re, const char *s, size_t n, span_vec *v) {
    v->n = 0;
    if (n == 0) { pg_vec_push(*v, ((span){0, 0, false})); return; }
    size_t prev = 0, last_end = 0;
    bool have_last = false;
    size_t last_match_end = 0;
    while (re && last_end <= n) {
        int rc = pcre2_match(re, (PCRE2_SPTR)s, n, last_end, 0, E->md, NULL);
        if (rc == PCRE2_ERROR_NOMATCH) break;
        if (rc < 0) { if (E->err == PG_OK) E->err = PG_ERR_LIMIT; break; }   /* match/depth limit */
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(E->md);
        size_t ms = ov[0], me = ov[1];
        if (ms == me && have_last && last_match_end == me) {
            int l = 1;
            if (last_end < n) utf8_next((const unsigned char *)s + last_end, n - last_end, &l);
            last_end += (size_t)l;
            continue;
        }
        last_end = me;
        have_last = true;
        last_match_end = me;
        if (prev != ms) pg_vec_push(*v, ((span){prev, ms - prev, false}));
        pg_vec_push(*v, ((span){ms, me - ms, true}));
        prev = me;
    }
    if (prev != n) pg_vec_push(*v, ((span){prev, n - prev, false}));
}

/* HF's SplitDelimiterBehavior applied in place; marks removed spans with
 * match=true, kept ones with match=false. */
static void apply_behavior(span_vec *v, split_behavior b, bool invert) {
    if (invert) for (int i = 0; i < v->n; i++) v->v[i].match = !v->v[i].match;
    int k = 0;
    bool prev_match = false;
    switch (b) {
    case B_REMOVED: return;                                  /* matches are removed */
    case B_ISOLATED:
        for (int i = 0; i < v->n; i++) v->v[i].match = false;
        return;
    case B_MERGED_PREV:
        for (int i = 0; i < v->n; i++) {
            span s = v->v[i];
            if (s.match && !prev_match && k > 0) v->v[k - 1].len = s.off + s.len - v->v[k - 1].off;
            else v->v[k++] = (span){s.off, s.len, false};
            prev_match = s.match;
        }
        break;
    case B_MERGED_NEXT:                                     /* the same, walking backwards */
        k = v->n;
        for (int i = v->n - 1; i >= 0; i--) {
            span s = v->v[i];
            if (s.match && !prev_match && k < v->n) {
                v->v[k].len += v->v[k].off - s.off;
                v->v[k].off = s.off;
            } else {
                v->v[--k] = (span){s.off, s.len, false};
            }
            prev_match = s.match;
        }
        memmove(v->v, v->v + k, (size_t)(v->n - k) * sizeof(span));
        k = v->n - k;
        break;
    case B_CONTIGUOUS:
        for (int i = 0; i < v->n; i++) {
            span s = v->v[i];
            if (s.match == prev_match && k > 0) v->v[k - 1].len = s.off + s.len - v->v[k - 1].off;
            else v->v[k++] = (span){s.off, s.len, false};
            prev_match = s.match;
        }
        break;
    }
    v->n = k;
}

/* Run pre-tokenizer steps depth.. on one non-empty piece, then BPE. */
static void pre_tokenize(enc *E, const char *s, size_t n, int depth) {
    const tok_tokenizer *t = E->t;
    if (E->err) return;
    if (depth == t->n_steps) { bpe_piece(E, s, n); return; }
    const pre_step *st = &t->steps[depth];
    if (st->kind == STEP_BYTELEVEL && st->add_prefix_space && s[0] != ' ') {
        E->prefixed.len = 0;                     /* the last step: only BPE runs on this buffer */
        pg_buf_putc(&E->prefixed, ' ');
        pg_buf_putn(&E->prefixed, s, n);
        s = E->prefixed.data;
        n = E->prefixed.len;
    }
    if (!st->re) {
        if (st->kind == STEP_BYTELEVEL) pre_tokenize(E, s, n, depth + 1);
        else pre_tokenize(E, s, n, depth + 1);   /* Split on "": no matches, piece unchanged */
        return;
    }
    span_vec *v = &E->spans[depth];
    find_matches(E, st->re, s, n, v);
    apply_behavior(v, st->behavior, st->invert);
    for (int i = 0; i < v->n && !E->err; i++)
        if (!v->v[i].match && v->v[i].len) pre_tokenize(E, s + v->v[i].off, v->v[i].len, depth + 1);
}

/* Leftmost-longest added token of ms in s[from..n). */
static bool find_added(const tok_tokenizer *t, const match_set *ms, const char *s, size_t n, size_t from,
                       size_t *start, int *which) {
    if (ms->start[256] == 0) return false;
    for (size_t i = from; i < n; i++) {
        unsigned char b = (unsigned char)s[i];
        int best = -1;
        uint32_t best_len = 0;
        for (int32_t k = ms->start[b]; k < ms->start[b + 1]; k++) {
            const added_tok *a = &t->added[ms->idx[k]];
            if (a->len > best_len && a->len <= n - i && memcmp(s + i, a->s, a->len) == 0) { best = ms->idx[k]; best_len = a->len; }
        }
        if (best >= 0) { *start = i; *which = best; return true; }
    }
    return false;
}

/* Does a Rust-regex \w character end s[0..n) / start s[0..n)? */
static bool word_char_at(const enc *E, const char *s, size_t n, size_t at) {
    int rc = pcre2_match(E->t->word_re, (PCRE2_SPTR)s, n, at, PCRE2_ANCHORED, E->md, NULL);
    return rc >= 0;
}
static bool ends_with_word(const enc *E, const char *s, size_t n) {
    if (n == 0) return false;
    size_t i = n - 1;
    while (i > 0 && n - i < 4 && ((unsigned char)s[i] & 0xC0) == 0x80) i--;
    return word_char_at(E, s, n, i);
}

typedef void (*span_fn)(enc *E, const char *s, size_t n);

/* HF's AddedVocabulary::find_matches: emit the ids of added tokens of ms found
 * in s and pass the text between them to `rest`. */
static void split_added(enc *E, const match_set *ms, const char *s, size_t n, span_fn rest) {
    const tok_tokenizer *t = E->t;
    size_t start_offset = 0, pos = 0, mstart;
    int which;
    while (!E->err && find_added(t, ms, s, n, pos, &mstart, &which)) {
        const added_tok *a = &t->added[which];
        size_t start = mstart, stop = mstart + a->len;
        pos = stop;                                  /* the matcher resumes after the raw match */
        if (a->single_word) {
            bool start_space = start == 0 || !ends_with_word(E, s, start);
            bool stop_space = stop == n || !word_char_at(E, s, n, stop);
            if (!start_space || !stop_space) continue;
        }
        if (a->lstrip) {                             /* swallow white space on the left */
            size_t ns = start;
            for (;;) {
                size_t i = ns;
                if (i == 0) break;
                i--;
                while (i > 0 && ns - i < 4 && ((unsigned char)s[i] & 0xC0) == 0x80) i--;
                int l;
                int32_t cp = utf8_next((const unsigned char *)s + i, n - i, &l);
                if (cp < 0 || i + (size_t)l != ns || !is_white_space(cp)) break;
                ns = i;
            }
            start = ns > start_offset ? ns : start_offset;
        }
        if (a->rstrip) {
            while (stop < n) {
                int l;
                int32_t cp = utf8_next((const unsigned char *)s + stop, n - stop, &l);
                if (cp < 0 || !is_white_space(cp)) break;
                stop += (size_t)l;
            }
        }
        if (start_offset < start) rest(E, s + start_offset, start - start_offset);
        emit(E, a->id);
        start_offset = stop;
    }
    if (!E->err && start_offset < n) rest(E, s + start_offset, n - start_offset);
}

static void after_normalized_split(enc *E, const char *s, size_t n) { pre_tokenize(E, s, n, 0); }

static void after_raw_split(enc *E, const char *s, size_t n) {
    if (E->t->nfc && !nfc_ok(s, n)) { E->err = PG_ERR_INVALID; return; }   /* NFC would change it */
    split_added(E, &E->t->norm_set, s, n, after_normalized_split);
}

pg_status tok_encode(const tok_tokenizer *t, const char *text, size_t len, int32_t **ids, size_t *n) {
    *ids = NULL;
    *n = 0;
    enc E = {.t = t};
    E.md = pcre2_match_data_create(1, NULL);
    if (!E.md) return PG_ERR_NOMEM;
    if (len) split_added(&E, &t->raw_set, text, len, after_raw_split);
    pcre2_match_data_free(E.md);
    for (int i = 0; i <= TOK_MAX_STEPS; i++) pg_vec_free(E.spans[i]);
    pg_buf_free(&E.prefixed);
    pg_buf_free(&E.blstr);
    free(E.sym);
    free(E.heap);
    free(E.cache.slots);
    pg_arena_free(&E.cache_keys);
    pg_vec_free(E.pool);
    if (E.err) { pg_vec_free(E.out); return E.err; }
    if (!E.out.v) E.out.v = malloc(sizeof(int32_t));        /* callers may always free *ids */
    if (!E.out.v) return PG_ERR_NOMEM;
    *ids = E.out.v;
    *n = (size_t)E.out.n;
    return PG_OK;
}
