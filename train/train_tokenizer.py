"""train_tokenizer.py — the project's byte-level BPE (tokenizers library).

Structure as Qwen2 writes it (pre_tokenizer Sequence[Split(regex, Isolated),
ByteLevel(use_regex=False)], no normalizer, ByteLevel decoder) with a
PTX-friendly split regex:
  - opcode + modifier strings stay one pre-token (`ld.global.nc.v4.f32`, `setp.ge.u32`,
    `.reg`, `%tid.x`) so BPE can make them single tokens;
  - register prefixes keep their punctuation and lose their number (` [%rd`, `@%p`, ` %f`),
    nvcc labels keep their block prefix (`$L__BB0_`), numbers are groups of <= 3 digits;
  - newlines with the tabs that follow are their own pre-tokens ("\\n\\t").
The regex uses only syntax PCRE2 (UTF+UCP) also runs: \\p{L}, \\p{N}, \\s, classes,
(?!...), (?i:...), so the C tokenizer (src/model) splits the same way.

Usage: python3 train/train_tokenizer.py --data pairs.jsonl|synth.jsonl [--vocab 6144]
           [--out models/default] [--ptxgen build/ptxgen]
Writes OUT/tokenizer.json and OUT/tokenizer_config.json (atomically) and prints a
JSON report: tokens per PTX line (mean/p50/p95), per sample, opcode strings that
are single tokens.
"""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data as D  # noqa: E402

# One alternative per kind of pre-token; the first that matches at a position wins.
PTX_SPLIT_REGEX = "|".join([
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)",                        # English contractions (as Qwen2)
    r" ?\$L__BB\p{N}+_",                                     # nvcc block labels: $L__BB0_ + number
    r",? ?[\[{@!-]{0,2}%[A-Za-z_]+(?:\.[A-Za-z]+)*",         # registers: `, %r`, ` [%rd`, `@%p`, `%tid.x`
    r",? ?0[fFdDxX][0-9A-Fa-f]+",                            # hex literals `, 0f3F800000`, 0x1F
    r" ?\.?[\p{L}_][\p{L}\p{N}_$]*(?:\.[\p{L}\p{N}_]+)*",   # opcode.modifiers, .directive, names, words
    r",? ?\p{N}{1,3}",                                       # numbers in groups of up to 3 digits: `, 4`
    r" ?[^\s\p{L}\p{N}]+",                                   # punctuation runs: `];` `, ` `<`
    r"[ \t]*[\r\n]+[\t ]*",                                  # newline(s) + the indentation after them
    r"\s+(?!\S)",
    r"\s+",
])

# common strings as they appear in canonical PTX (with the space or comma before them)
OPCODE_STRINGS = ["ld.global.nc.v4.f32", "ld.global.nc.f32", "ld.param.u64", "ld.param.u32",
                  "st.global.f32", "setp.ge.u32", "setp.lt.s32", "mad.lo.u32", "mul.wide.u32",
                  "cvta.to.global.u64", "fma.rn.f32", "add.s64", "add.f32", "bar.sync", "shfl.sync.bfly.b32",
                  "ld.shared.f32", "st.shared.f32", "mov.u32", "ret", ".reg", ".param", ".pred",
                  " %rd", " [%rd", ", %rd", " %r", ", %r", " %f", ", %f", " %p", "@%p", "@!%p",
                  ", %tid.x", ", %ctaid.x", ", %ntid.x", ".visible", " .entry", ".version", ".target",
                  ".address_size", "\n\t", " .b32", " .u64", " .f32", ".shared", " bra", "];", ">;"]


def build_tokenizer():
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
    tok = Tokenizer(models.BPE(byte_fallback=False, ignore_merges=False))
    tok.normalizer = None
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(PTX_SPLIT_REGEX), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False, trim_offsets=False),
    ])
    tok.decoder = decoders.ByteLevel(add_prefix_space=False, use_regex=False, trim_offsets=False)
    return tok


def corpus_texts(path, ptxgen):
    """Training texts: prompt and completion of every pair (train split only).
    A synth file (ptx_code field) is first turned into pairs with `ptxgen fmt`."""
    rows = D.read_jsonl(path)
    if rows and "completion" not in rows[0]:
        tmp = path + ".pairs.tmp.jsonl"
        D.pairs_from_synth(path, tmp, ptxgen)
        rows = D.load_pairs(tmp)
        os.remove(tmp)
    train = [r for r in rows if r.get("split", "train") == "train"]
    return train, [t for r in train for t in (r["prompt"], r["completion"])]


def write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def tokenizer_config(model_max_length):
    added = {str(i): {"content": s, "lstrip": False, "normalized": False, "rstrip": False,
                      "single_word": False, "special": True} for i, s in enumerate(D.SPECIAL_TOKENS)}
    return {
        "add_bos_token": False, "add_prefix_space": False, "added_tokens_decoder": added,
        "additional_special_tokens": D.SPECIAL_TOKENS[1:], "bos_token": None,
        "clean_up_tokenization_spaces": False, "eos_token": D.TOK_END, "pad_token": D.TOK_EOT,
        "unk_token": None, "errors": "replace", "model_max_length": model_max_length,
        "split_special_tokens": False, "tokenizer_class": "PreTrainedTokenizerFast",
    }


def report(tok, pairs):
    """Tokens per PTX line and per sample; which common opcode strings are one token."""
    comps = [p["completion"] for p in pairs]
    per_line, per_sample, per_prompt = [], [], []
    enc = tok.encode_batch(comps, add_special_tokens=False)
    for text, e in zip(comps, enc):
        per_sample.append(len(e.ids))
        # count tokens per line by the byte offsets where each token starts
        line_of = []
        starts = [0]
        for i, ch in enumerate(text):
            if ch == "\n":
                starts.append(i + 1)
        counts = [0] * len(starts)
        import bisect
        for (a, _b) in e.offsets:
            counts[bisect.bisect_right(starts, a) - 1] += 1
        per_line.extend(c for c, s in zip(counts, starts) if text[s:s + 1] not in ("", "\n"))
        del line_of
    for e in tok.encode_batch([p["prompt"] for p in pairs], add_special_tokens=False):
        per_prompt.append(len(e.ids))

    def q(v, p):
        s = sorted(v)
        return s[min(len(s) - 1, int(p / 100 * len(s)))]
    single = {s: len(tok.encode(s, add_special_tokens=False).ids) == 1 for s in OPCODE_STRINGS}
    return {
        "vocab_size": tok.get_vocab_size(),
        "tokens_per_ptx_line": {"mean": round(statistics.mean(per_line), 2), "p50": q(per_line, 50),
                                "p95": q(per_line, 95)},
        "tokens_per_completion": {"mean": round(statistics.mean(per_sample), 1), "p50": q(per_sample, 50),
                                  "p95": q(per_sample, 95), "max": max(per_sample)},
        "tokens_per_prompt": {"mean": round(statistics.mean(per_prompt), 1), "p95": q(per_prompt, 95)},
        "bytes_per_token": round(sum(len(c.encode()) for c in comps) / sum(per_sample), 2),
        "single_token": sorted(s for s, v in single.items() if v),
        "not_single_token": sorted(s for s, v in single.items() if not v),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True, help="pairs JSONL or synth JSONL")
    ap.add_argument("--vocab", type=int, default=6144)
    ap.add_argument("--out", default="models/default")
    ap.add_argument("--ptxgen", default="build/ptxgen")
    ap.add_argument("--min-frequency", type=int, default=2)
    ap.add_argument("--model-max-length", type=int, default=4096)
    args = ap.parse_args()
    if not 4096 <= args.vocab <= 8192:
        ap.error("--vocab must be in 4096..8192")
    from tokenizers import pre_tokenizers, trainers

    pairs, texts = corpus_texts(args.data, args.ptxgen)
    tok = build_tokenizer()
    trainer = trainers.BpeTrainer(vocab_size=args.vocab, min_frequency=args.min_frequency,
                                  special_tokens=D.SPECIAL_TOKENS, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(texts, trainer=trainer)
    for i, s in enumerate(D.SPECIAL_TOKENS):
        assert tok.token_to_id(s) == i, (s, tok.token_to_id(s))
    os.makedirs(args.out, exist_ok=True)
    tj = json.loads(tok.to_str())
    # the decoder as Qwen2's tokenizer.json spells it (the binding serializes its defaults)
    tj["decoder"] = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}
    write_atomic(os.path.join(args.out, "tokenizer.json"), json.dumps(tj, indent=2, ensure_ascii=False) + "\n")
    write_atomic(os.path.join(args.out, "tokenizer_config.json"),
                 json.dumps(tokenizer_config(args.model_max_length), indent=2) + "\n")
    rep = report(tok, pairs)
    rep["train_texts"] = len(texts)
    print(json.dumps(rep, indent=1))


if __name__ == "__main__":
    main()
