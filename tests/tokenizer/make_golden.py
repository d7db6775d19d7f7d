#!/usr/bin/env python3
"""Regenerate the tokenizer golden data with Hugging Face `tokenizers` (0.23).

    python3 tests/tokenizer/make_golden.py              # writes tests/tokenizer/*.json
    python3 tests/tokenizer/make_golden.py --nfc-table  # prints the C table in src/model/tokenizer.c

Trains a small byte-level BPE (vocab ~1000) on the seed corpus (PTX + English and
Chinese task descriptions), saves it in several configurations (Qwen2 layout with
and without NFC, legacy "a b" merges, GPT-2 ByteLevel regex, custom Split
regexes and split behaviours, unk / byte_fallback / ignore_merges, added tokens
with single_word / lstrip / rstrip) and records HF's ids for every test text in
golden.json.  Deterministic: same tokenizers version -> same files.
"""
import glob
import json
import os
import random
import sys
import unicodedata

from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

QWEN2_RE = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
            r"|\s*[\r\n]+|\s+(?!\S)|\s+")
SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|task|>", "<|ptx|>", "<|end|>"]


def nfc_unsafe_ranges():
    """Code points NFC may change or that may change their neighbours."""
    bad = set()
    for cp in range(0x110000):
        if 0xD800 <= cp < 0xE000:
            continue
        c = chr(cp)
        if unicodedata.combining(c) or unicodedata.normalize("NFC", c) != c:
            bad.add(cp)
        d = unicodedata.decomposition(c)
        if d and not d.startswith("<"):
            parts = [int(x, 16) for x in d.split()]
            if len(parts) == 2 and unicodedata.normalize("NFC", c) == c:
                bad.add(parts[1])                      # second half of a primary composite
    bad |= set(range(0x1161, 0x1176)) | set(range(0x11A8, 0x11C3))   # Hangul V/T jamo
    ranges = []
    for cp in sorted(bad):
        if ranges and ranges[-1][1] == cp - 1:
            ranges[-1][1] = cp
        else:
            ranges.append([cp, cp])
    return ranges


def corpus_texts():
    ptx, en, zh = [], [], []
    for d in sorted(glob.glob(os.path.join(ROOT, "corpus", "*"))):
        k = os.path.join(d, "kernel.ptx")
        if os.path.exists(k):
            ptx.append(open(k, encoding="utf-8").read())
        t = os.path.join(d, "task.json")
        if os.path.exists(t):
            desc = json.load(open(t, encoding="utf-8")).get("descriptions", {})
            en += [v for key, v in sorted(desc.items()) if key != "zh"]
            if "zh" in desc:
                zh.append(desc["zh"])
    return ptx, en, zh


def train(pre_tok, normalizer, texts, vocab_size=1000):
    tok = Tokenizer(models.BPE())
    tok.normalizer = normalizer
    tok.pre_tokenizer = pre_tok
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIALS, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(texts, trainer)
    return json.loads(tok.to_str())


def qwen2_pre():
    return pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(QWEN2_RE), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])


def split(pattern, behavior, invert=False, literal=False):
    return {"type": "Split", "pattern": {"String" if literal else "Regex": pattern}, "behavior": behavior, "invert": invert}


def byte_level(prefix=False, regex=False):
    return {"type": "ByteLevel", "add_prefix_space": prefix, "trim_offsets": False, "use_regex": regex}


def variants(qwen, gpt2):
    """name -> (tokenizer.json dict, lossless: decode(encode(x)) == x)."""
    out = {}
    q = json.loads(json.dumps(qwen))
    out["qwen2_nfc"] = (q, True)
    q = json.loads(json.dumps(qwen)); q["normalizer"] = None
    out["qwen2_plain"] = (q, True)
    q = json.loads(json.dumps(qwen)); q["normalizer"] = None
    q["model"]["merges"] = [" ".join(m) for m in q["model"]["merges"]]
    out["qwen2_legacy_merges"] = (q, True)
    out["gpt2"] = (gpt2, True)
    g = json.loads(json.dumps(gpt2)); g["pre_tokenizer"]["add_prefix_space"] = True
    out["gpt2_prefix_space"] = (g, False)           # the added space stays in the decoded text
    # Oniguruma-specific escapes, anchors and inline flags, then Digits, then ByteLevel with a prefix space
    q = json.loads(json.dumps(qwen)); q["normalizer"] = None
    q["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
        split(r"^[ \t]+|(?m:/\*.*?\*/)|\h{4,}|\w+|[^\S\n]+$|\s|\W", "Isolated"),
        {"type": "Digits", "individual_digits": True},
        byte_level(prefix=True)]}
    out["custom_regex"] = (q, False)
    q = json.loads(json.dumps(qwen)); q["normalizer"] = None
    q["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
        split(r" ", "MergedWithPrevious"),
        split(r"[0-9]+", "Contiguous", invert=True),
        {"type": "Digits", "individual_digits": False},
        byte_level(regex=True)]}
    out["behaviors1"] = (q, True)
    q = json.loads(json.dumps(qwen)); q["normalizer"] = None
    q["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
        split(r"\.", "MergedWithNext"),
        split(",", "Removed", literal=True),
        split(r"x*", "Isolated"),
        byte_level()]}
    out["behaviors2"] = (q, False)
    q = json.loads(json.dumps(qwen)); q["normalizer"] = None; q["model"]["ignore_merges"] = True
    out["ignore_merges"] = (q, True)
    # bytes 0xF0..0xFF (emoji lead bytes, never seen in training) removed from the vocab
    q = json.loads(json.dumps(qwen)); q["normalizer"] = None
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    bl = {b: c for b, c in zip(range(256), sorted_alphabet())}
    for b in range(0xF0, 0x100):
        q["model"]["vocab"].pop(bl[b], None)
    q["model"]["vocab"]["<unk>"] = max(q["model"]["vocab"].values()) + 1
    q["model"]["unk_token"] = "<unk>"
    q["model"]["fuse_unk"] = True
    out["unk_fused"] = (q, False)
    q2 = json.loads(json.dumps(q)); q2["model"]["fuse_unk"] = False
    out["unk_unfused"] = (q2, False)
    q3 = json.loads(json.dumps(q)); q3["model"]["byte_fallback"] = True
    nxt = max(q3["model"]["vocab"].values()) + 1
    for b in range(256):
        if b not in (0xB0, 0xB1):                       # so some bytes still fall through to <unk>
            q3["model"]["vocab"]["<0x%02X>" % b] = nxt; nxt += 1
    out["byte_fallback"] = (q3, False)
    del alphabet
    # added tokens with options (built through the library so HF assigns the ids)
    t = Tokenizer.from_str(json.dumps(out["qwen2_plain"][0]))
    t.add_tokens([AddedToken("ld.global", single_word=True, normalized=False),
                  AddedToken("<pad>", lstrip=True, rstrip=True, normalized=False),
                  AddedToken("mov.u32", normalized=True),
                  AddedToken("%tid", normalized=True, single_word=True),
                  AddedToken("bar.sync", lstrip=True, normalized=True),
                  AddedToken("<|end|>x", normalized=False)])
    t.add_special_tokens([AddedToken("<|im_end|>", rstrip=True)])
    out["added_opts"] = (json.loads(t.to_str()), False)
    return out


def sorted_alphabet():
    """GPT-2 bytes_to_unicode: the code point that spells byte b."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b); cs.append(256 + n); n += 1
    m = dict(zip(bs, cs))
    return [chr(m[b]) for b in range(256)]


def cases(ptx, en, zh):
    c = []
    for k in (ptx[0], ptx[7], ptx[23]):
        c.append(k[:1200])
    c += [en[0], en[5][:600], zh[0], zh[3], "计算 ld.global.f32 %f1, [%rd2]; 然后 add.s32 %r3, %r1, 1;"]
    c += ["", "x", " ", "\n", "\t", "a\tb", "line1\r\nline2\r\n", "trailing   ", "   leading", "many      spaces",
          "\n\n\n", "\t\t\tld.global.u32 %r1, [%rd1];", " \r\n \r\n", "\x0b\x0c\x1c", "a\u00a0b\u3000c", "x\x85y",
          "p\u2028q\u2029", "m\u180en", "a\u180e\u180e b", "\u180e", "x \x85\x85 y", "\x85\n", "t\u180e\n", "a!\u180e!b", "x\u180e\u180e", "zero\u200bwidth", "a  \n  b", "   \n", "end\n   ", "  ", "\r", "\r\r\n\n",
          "👍🏽 ok 🚀", "🇯🇵🇫🇷", "👨\u200d👩\u200d👧 family", "12345678", "3.14159e-10 0x7fffffff -0.0f",
          "١٢٣ ²³ Ⅻ ½", "don't I'll we've 'S 'LL 'Re", "'ſ 'K \u212a", "a\x00b", "a" * 300, " " * 200,
          "ld.global.f32 " * 40, "{\n\t.reg .pred %p<4>;\n\t.reg .b32 %r<16>;\n}\n", "// comment\n/* block */ $L__BB0_1:",
          "@%p1 bra $L__BB0_2;", "Ünïcödé façade naïve café", "Ελληνικά Кириллица עברית العربية हिन्दी",
          "한국어 텍스트", "日本語のテキストです。", "x\u0301", "e\u0301\u0316", "\u212b",
          "<|im_start|>user\nwrite a kernel<|im_end|>\n<|im_start|>assistant\n",
          "<|task|>Add two vectors.<|ptx|>.version 8.0\n.target sm_90<|end|>",
          "<|endoftext|><|endoftext|>", "abc<|end|>def", "<|end|>|>", "<|ptx|", "<|end", " <|task|> ",
          "<|end|>x<|end|>xx", "<pad>  <pad>x  <pad>", "a  <pad>  b", "ld.global ld.globalx xld.global ld.global.f32",
          "mov.u32 %r1, %tid.x;", "%tid %tidx _%tid", "  bar.sync 0;", "x<|im_end|>   \n y", "1,2,3.4.5,,6",
          "xxabxx", "a.b.c", "1 2  3   4", "\u00e9t\u00e9 \u00c5ngstr\u00f6m"]
    rng = random.Random(1234)
    alpha = list("abcxyzABC019 _.,;:%$[]{}()<>|'\"-+*/\\@#!?=&") + [" ", " ", "  ", "\t", "\n", "\r\n", "\r",
                                                                 "ld", ".global", "%r", "<|end|>", "<|ptx|>", "'s",
                                                                 "中", "文", "字", "é", "ß", "Ж", "🚀", "\u00a0",
                                                                 "\u3000", "١", "²", "\x85", "<pad>", "<0x41>"]
    for _ in range(150):
        c.append("".join(rng.choice(alpha) for _ in range(rng.randint(1, 30))))
    return c


def main():
    if "--nfc-table" in sys.argv:
        r = nfc_unsafe_ranges()
        for i in range(0, len(r), 6):
            print("    " + " ".join("{0x%X, 0x%X}," % (a, b) for a, b in r[i:i + 6]))
        return
    ptx, en, zh = corpus_texts()
    texts = ptx + en + zh
    qwen = train(qwen2_pre(), normalizers.NFC(), texts)
    gpt2 = train(pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True), None, texts)
    inert = nfc_unsafe_ranges()

    def nfc_ok(s):
        for ch in s:
            cp = ord(ch)
            if cp >= 0x300 and any(a <= cp <= b for a, b in inert):
                return False
        return True

    texts = cases(ptx, en, zh)
    golden = {"tokenizers_version": __import__("tokenizers").__version__, "texts": texts, "tokenizers": []}
    for name, (j, lossless) in variants(qwen, gpt2).items():
        fname = name + ".json"
        data = json.dumps(j, ensure_ascii=False, separators=(",", ":"))
        with open(os.path.join(HERE, fname), "w", encoding="utf-8") as f:
            f.write(data)
        tok = Tokenizer.from_str(data)
        nfc = j.get("normalizer") is not None
        entry = {"name": name, "file": fname, "lossless": lossless, "nfc": nfc,
                 "vocab_size": 1 + max(list(j["model"]["vocab"].values()) + [a["id"] for a in j["added_tokens"]]),
                 "ids": [], "decoded": {}}
        for i, text in enumerate(texts):
            if nfc and not nfc_ok(text):
                entry["ids"].append(None)           # C refuses: the text is not known to be NFC
                continue
            ids = tok.encode(text, add_special_tokens=False).ids
            entry["ids"].append(ids)
            dec = tok.decode(ids, skip_special_tokens=False)
            if dec != text:
                entry["decoded"][str(i)] = dec
        golden["tokenizers"].append(entry)
    with open(os.path.join(HERE, "golden.json"), "w", encoding="utf-8") as f:
        json.dump(golden, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    print("wrote %d tokenizers x %d texts" % (len(golden["tokenizers"]), len(texts)))


if __name__ == "__main__":
    main()
