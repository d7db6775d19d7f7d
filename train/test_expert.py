"""test_expert.py — CPU tests of expert iteration's data path (train/expert_iter.py) and of
lora_base.py --init-adapter: kernels and a results document in -> the kept kernels and
chatml training pairs out, resumable; tiny models only.  The GPU parts (verification,
re-verification with more seeds, timing) run on the H200 through train/steps/expert.sh.

  bash tests/train_tests.sh train/test_expert.py   # ends with "expert: N passed, N failed, N skipped"
"""
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import expert_iter as EI  # noqa: E402

TINY = os.path.join(ROOT, "tests", "gen", "tiny")
PAIRS = os.path.join(HERE, "testdata", "pairs_small.jsonl")
PTXGEN = os.environ.get("PTXGEN", os.path.join(ROOT, "build", "ptxgen"))
LIB = os.environ.get("PTXGEN_LIB", os.path.join(ROOT, os.environ.get("PTXGEN_BUILD", "build"), "libptxgen.so"))
POOL = os.path.join(ROOT, "corpus")       # task folders with task.json: a pool as the script reads it
HAS = {m: importlib.util.find_spec(m) is not None for m in ("torch", "transformers", "peft")}


def read(p):
    with open(p, encoding="utf-8") as f:
        return f.read()


def row(task, style, sample, correct=True, **kw):
    r = {"task": task, "dir": task, "family": "elementwise", "description": style, "config": "no_bias", "sample": sample,
         "check": True, "ptxas": True, "correct": correct, "last_stage": "correct" if correct is True else "wrong"}
    r.update(kw)
    return r


class TestDataPath(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ptxgen-ei-test-")
        self.work = os.path.join(self.tmp, "work")
        self.gen = os.path.join(self.work, "round-1", "gen")
        os.makedirs(self.gen)
        relu, saxpy = read(os.path.join(POOL, "relu", "kernel.ptx")), read(os.path.join(POOL, "saxpy", "kernel.ptx"))
        def k(name, text):
            with open(os.path.join(self.gen, name), "w", encoding="utf-8") as f:
                f.write(text)
        k("relu.terse.no_bias.0.ptx", "// GENERATED_BY: ptxgen tiny\n" + relu)
        k("relu.terse.no_bias.1.ptx", "// another comment\n" + relu.replace("\t", "    "))   # the same kernel
        k("relu.zh.no_bias.0.ptx", relu)                                                       # hygiene: constant
        k("relu.detailed.no_bias.0.ptx", relu)                                                 # wrong
        k("saxpy.terse.no_bias.0.ptx", saxpy)                                                  # faster than light
        k("saxpy.card.no_bias.0.ptx", saxpy)                                                   # correct, untimed
        self.doc = {"gpu_ran": True, "rows": [
            row("relu", "terse", 0, speedup=1.25), row("relu", "terse", 1), row("relu", "zh", 0, correct=False, hygiene="constant"),
            row("relu", "detailed", 0, correct=False), row("saxpy", "terse", 0, speedup=90.0, faster_than_light=True,
                                                           hygiene="faster-than-light"),
            row("saxpy", "card", 0), row("vecadd", "terse", 0)]}                                # no file: skipped
        EI.write_json(os.path.join(self.work, "round-1", "pool-eval.json"), self.doc)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_candidates(self):
        c = EI.candidates(self.doc, self.gen)
        self.assertEqual(sorted(c), ["relu", "saxpy"])
        self.assertEqual(len(c["relu"]), 1, "the same kernel with other comments and spacing is one candidate")
        self.assertEqual(c["relu"][0]["speedup"], 1.25)
        self.assertEqual(c["relu"][0]["styles"], ["terse"])
        self.assertEqual([x["path"].endswith("saxpy.card.no_bias.0.ptx") for x in c["saxpy"]], [True],
                         "the faster-than-light sample is never a candidate")
        # without a GPU nothing is correct; valid kernels count only when explicitly allowed
        nogpu = {"rows": [dict(r, correct="not run") for r in self.doc["rows"]]}
        self.assertEqual(EI.candidates(nogpu, self.gen), {})
        self.assertEqual(sorted(EI.candidates(nogpu, self.gen, allow_unverified=True)), ["relu", "saxpy"])

    def test_pool_counts(self):
        n = EI.pool_counts(self.doc)
        self.assertEqual((n["tasks"], n["samples"], n["correct"], n["tasks_solved"]), (3, 7, 5, 3))
        self.assertEqual(n["hygiene"], {"constant": 1, "faster-than-light": 1})

    def test_normalize(self):
        a = "// x\n.reg .b32 %r<2>;  /* y */\n\n\tret;\n"
        self.assertEqual(EI.normalize_ptx(a), ".reg .b32 %r<2>;\nret;")

    def ei(self, step, *extra):
        return EI.main([step, "--round", extra[0] if extra else "1", "--work", self.work, "--pool", POOL, "--base", TINY,
                        "--ptxgen", PTXGEN, "--no-reverify"] + list(extra[1:]))

    @unittest.skipUnless(os.path.exists(PTXGEN), "build/ptxgen not built")
    def test_select_pairs_resume_accumulate(self):
        self.assertEqual(self.ei("select"), 0)
        kept = EI.read_json(os.path.join(self.work, "round-1", "kept.json"))
        self.assertEqual(sorted(kept["kept"]), ["relu", "saxpy"])
        self.assertEqual(kept["kept"]["relu"]["speedup"], 1.25)
        self.assertEqual(kept["kept"]["relu"]["verified"], "gpu")
        self.assertTrue(os.path.exists(os.path.join(self.work, "round-1", "kept", "relu.ptx")))
        mt = os.path.getmtime(os.path.join(self.work, "round-1", "kept.json"))
        self.assertEqual(self.ei("select"), 0)                       # resumes: done, untouched
        self.assertEqual(os.path.getmtime(os.path.join(self.work, "round-1", "kept.json")), mt)
        self.assertEqual(self.ei("pairs"), 0)
        import lora_base as LB
        pairs = LB.read_pairs(os.path.join(self.work, "round-1", "pairs.jsonl"))
        relu_spec = EI.read_json(os.path.join(POOL, "relu", "task.json"))
        nstyles = sum(1 for s in EI.STYLES if relu_spec["descriptions"].get(s))
        relu_pairs = [p for p in pairs if ".entry relu(" in p["completion"]]
        self.assertEqual(len(relu_pairs), nstyles, "the kept kernel under every description of its task")
        for p in relu_pairs:
            self.assertTrue(p["prompt"].startswith("<|im_start|>"), p["prompt"][:80])
            self.assertTrue(p["completion"].endswith("<|im_end|>"), p["completion"][-40:])
            self.assertNotIn("GENERATED_BY", p["completion"])       # canonical text, as `ptxgen prompts` writes it
            self.assertIn(".visible .entry relu(", p["prompt"])      # the signature is given, as generation gives it
        self.assertTrue(any(relu_spec["descriptions"]["terse"] in p["prompt"] for p in relu_pairs))
        # round 2 adds its own kernels and keeps round 1's
        g2 = os.path.join(self.work, "round-2", "gen")
        os.makedirs(g2)
        shutil.copyfile(os.path.join(POOL, "vecadd", "kernel.ptx"), os.path.join(g2, "vecadd.terse.no_bias.0.ptx"))
        EI.write_json(os.path.join(self.work, "round-2", "pool-eval.json"), {"gpu_ran": True, "rows": [row("vecadd", "terse", 0)]})
        self.assertEqual(self.ei("select", "2"), 0)
        self.assertEqual(self.ei("pairs", "2"), 0)
        p2 = LB.read_pairs(os.path.join(self.work, "round-2", "pairs.jsonl"))
        self.assertEqual(len(p2), len(pairs) + sum(1 for p in p2 if ".entry vecadd(" in p["completion"]))
        self.assertTrue(any(".entry vecadd(" in p["completion"] for p in p2))

    def test_gen_cmd_pool_and_suites(self):
        ns = EI.argparse.Namespace
        a = ns(base="B", lib="L", model_name="m", styles="terse,detailed", eval_styles="terse,zh", temperature=0.7,
               eval_temperature=0.3, max_new=6144, seed=1, round=2, tokenizer=None, device=None, batch=0,
               deadline=540, t_end=EI.time.time() + 500, sample_seconds=200, eval_gen_seconds=0)
        def opt(cmd, flag):
            return cmd[cmd.index(flag) + 1]
        pool = EI.gen_cmd(a, ["P"], "o", 3, "A")
        self.assertEqual((opt(pool, "--temperature"), opt(pool, "--seed"), opt(pool, "--styles")), ("0.7", "2001", "terse,detailed"))
        self.assertEqual(opt(pool, "--deadline"), "200", "the pool's generation is capped by --sample-seconds")
        ev = EI.gen_cmd(a, ["S1", "S2"], "o", 1, "A", evaluation=True)
        self.assertEqual((opt(ev, "--temperature"), opt(ev, "--seed"), opt(ev, "--styles")), ("0.3", "1", "terse,zh"))
        self.assertEqual(ev.count("--suite"), 2, "both suites in one generation run")
        self.assertLessEqual(int(opt(ev, "--deadline")), 470, "no cap: what the call has left, less a margin")
        self.assertEqual(opt(ev, "--max-new"), "6144")

    @unittest.skipUnless(os.path.exists(PTXGEN), "build/ptxgen not built")
    def test_replay_is_a_seeded_sample(self):
        self.assertEqual(self.ei("select"), 0)
        rp = os.path.join(self.tmp, "replay.jsonl")
        with open(rp, "w", encoding="utf-8") as f:
            for i in range(50):
                f.write(json.dumps({"prompt": f"p{i}", "completion": f"c{i}"}) + "\n")
        self.assertEqual(self.ei("pairs", "1", "--replay", rp, "--replay-n", "10"), 0)
        got = [json.loads(x)["prompt"] for x in open(os.path.join(self.work, "round-1", "replay.jsonl"), encoding="utf-8")]
        self.assertEqual(len(got), 10)
        self.assertNotEqual(got, [f"p{i}" for i in range(10)], "a sample of the whole file, not its first lines")
        self.assertEqual(len(set(got)), 10)

    @unittest.skipUnless(os.path.exists(PTXGEN), "build/ptxgen not built")
    def test_select_parallel_same_as_serial(self):
        self.assertEqual(self.ei("select", "1", "--reverify-jobs", "3"), 0)
        par = EI.read_json(os.path.join(self.work, "round-1", "kept.json"))
        os.remove(os.path.join(self.work, "round-1", "kept.json"))
        self.assertEqual(self.ei("select"), 0)
        ser = EI.read_json(os.path.join(self.work, "round-1", "kept.json"))
        self.assertEqual(par, ser)

    def test_reverify_untimed_when_parallel(self):
        fake = os.path.join(self.tmp, "fake-ptxgen")
        with open(fake, "w") as f:   # prints its arguments where `ptxgen run --json` prints its result
            f.write("#!/bin/sh\necho \"{\\\"tasks\\\": [{\\\"kernel\\\": {\\\"status\\\": \\\"ok\\\", \\\"detail\\\": \\\"$*\\\"}}]}\"\n")
        os.chmod(fake, 0o755)
        cand = {"dir": "relu", "path": "k.ptx"}
        for jobs, untimed in ((1, False), (4, True)):
            a = EI.argparse.Namespace(ptxgen=fake, pool=POOL, reverify_seeds=10, reverify_jobs=jobs)
            ok, sp, detail = EI.reverify(a, cand)
            self.assertTrue(ok, detail)
            self.assertEqual("--no-timing" in detail, untimed, detail)
            self.assertIn("--all-sets", detail)

    def test_timing_pass_cut_by_deadline(self):
        """A timing pass that outlives the call keeps the suite's verdicts, marked untimed."""
        fake = os.path.join(self.tmp, "fake-ptxgen")
        with open(fake, "w") as f:   # eval writes a verdict to --out; --time-pass hangs past the deadline
            f.write('#!/bin/sh\ncase "$*" in *--time-pass*) sleep 30; exit 0;; esac\n'
                    'case "$*" in *"--styles terse,zh"*) ;; *) exit 9;; esac\n'   # the sampled styles are passed on
                    'while [ $# -gt 0 ]; do [ "$1" = --out ] && echo \'{"gpu_ran": true, "rows": []}\' > "$2"; shift; done\n')
        os.chmod(fake, 0o755)
        out = os.path.join(self.tmp, "eval-corpus.json")
        a = EI.argparse.Namespace(ptxgen=fake, only="relu", shards=1, no_gpu=False, model_name="m", no_timing=False,
                                  deadline=1, t_end=EI.time.time() + 17)
        t0 = EI.time.time()
        self.assertEqual(EI.eval_suite(a, POOL, self.gen, 1, out, styles="terse,zh"), "done")
        self.assertLess(EI.time.time() - t0, 20)
        doc = EI.read_json(out)
        self.assertTrue(doc["gpu_ran"])
        self.assertTrue(doc["timing_cut_by_deadline"])

    def test_select_refuses_unverified(self):
        EI.write_json(os.path.join(self.work, "round-1", "pool-eval.json"), {"gpu_ran": False, "rows": self.doc["rows"]})
        with self.assertRaises(SystemExit) as e:
            self.ei("select")
        self.assertIn("nothing is verified", str(e.exception))

    def test_suite_metrics(self):
        doc = {"gpu_ran": True, "configs": {"no_bias": {"cases": 10, "pass_at_1": 0.3, "pass_at_k": 0.6, "fast_1": 0.2,
                                                        "pass_at": {"1": 0.3, "2": 0.4, "4": 0.5, "8": 0.6},
                                                        "hygiene": {"constant": 2, "total": 2}}}}
        m = EI.suite_metrics(doc, 8)
        self.assertEqual((m["config"], m["pass_at_1"], m["pass_at_8"], m["fast_1"]), ("no_bias", 0.3, 0.6, 0.2))
        self.assertEqual(m["hygiene"]["constant"], 2)

    def test_merge_pairs_dedupes(self):
        a, b, o = (os.path.join(self.tmp, x) for x in ("a.jsonl", "b.jsonl", "o.jsonl"))
        with open(a, "w") as f:
            f.write(json.dumps({"prompt": "p", "completion": "c"}) + "\n" + json.dumps({"prompt": "p2", "completion": "c"}) + "\n")
        with open(b, "w") as f:
            f.write("\n" + json.dumps({"prompt": "p", "completion": "c"}) + "\n")
        self.assertEqual(EI.merge_pairs([a, b], o), 2)


@unittest.skipUnless(HAS["torch"] and HAS["transformers"] and HAS["peft"], "needs torch, transformers, peft")
class TestInitAdapter(unittest.TestCase):
    def test_continues_from_an_adapter(self):
        tmp = tempfile.mkdtemp(prefix="ptxgen-ei-lora-")
        try:
            env = dict(os.environ, OMP_NUM_THREADS="2", TOKENIZERS_PARALLELISM="false")
            common = ["--base", TINY, "--pairs", PAIRS, "--max-steps", "2", "--batch-tokens", "4096", "--max-len", "2048",
                      "--val", "2", "--device", "cpu", "--lr", "1e-2"]
            a, b = os.path.join(tmp, "a"), os.path.join(tmp, "b")
            r = subprocess.run([sys.executable, "train/lora_base.py", "--out", a, "--lora-r", "4", "--lora-alpha", "8"] + common,
                               cwd=ROOT, capture_output=True, text=True, env=env, timeout=600)
            self.assertEqual(r.returncode, 0, r.stderr[-2000:])
            r = subprocess.run([sys.executable, "train/lora_base.py", "--out", b, "--init-adapter", a, "--lora-r", "8"] + common,
                               cwd=ROOT, capture_output=True, text=True, env=env, timeout=600)
            self.assertEqual(r.returncode, 0, r.stderr[-2000:])
            log = [json.loads(x) for x in read(os.path.join(b, "train_log.jsonl")).splitlines()]
            ev = [x for x in log if x.get("event") == "init_adapter"]
            self.assertTrue(ev and ev[0]["r"] == 4, log[:3])
            self.assertEqual(EI.read_json(os.path.join(b, "adapter_config.json"))["r"], 4, "the adapter's rank, not --lora-r")
            from safetensors.torch import load_file
            wa, wb = load_file(os.path.join(a, "adapter_model.safetensors")), load_file(os.path.join(b, "adapter_model.safetensors"))
            self.assertEqual(sorted(wa), sorted(wb))
            lb = [k for k in wa if "lora_B" in k]
            self.assertTrue(lb and all(wa[k].abs().sum() > 0 for k in lb), "a's lora_B trained away from zero")
            # b started from a (a fresh LoRA starts at lora_B = 0) and trained further
            self.assertTrue(any(not wa[k].float().equal(wb[k].float()) for k in lb))
            r = subprocess.run([sys.executable, "train/lora_base.py", "--out", os.path.join(tmp, "c"), "--init-adapter", tmp] + common,
                               cwd=ROOT, capture_output=True, text=True, env=env, timeout=600)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("no adapter_config.json", r.stderr + r.stdout)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    res = unittest.main(exit=False, verbosity=1).result
    n = res.testsRun
    print(f"expert: {n - len(res.failures) - len(res.errors) - len(res.skipped)} passed, "
          f"{len(res.failures) + len(res.errors)} failed, {len(res.skipped)} skipped")
    sys.exit(0 if res.wasSuccessful() else 1)
