#!/usr/bin/env python3
"""Checks mlir-to-bef and bef-to-mlir against the golden corpus.

For every NAME.translate.txt of the golden directory (the reference's
`tfrt_translate -mlir-to-bef NAME.mlir > NAME.bef` transcript):
  * mlir-to-bef, run the same way in the golden directory, must write
    NAME.bef byte for byte (and NAME.nooptional.bef with
    --disable-optional-sections where the corpus has it);
  * its stderr and exit status must match the transcript. The reference's
    absl preamble line is not a target; its `StreamAnalysis: max_cost ...`
    log lines are compared with ours (--print-stream-analysis) as an oracle
    for stream analysis.

For bef-to-mlir:
  * NAME.roundtrip.mlir must be reproduced byte for byte from NAME.bef;
  * the NAME[.nooptional].roundtrip.txt transcripts (where the reference
    fails) must give the same error and warning messages, in order, and the
    same exit status -- except where we do better (BETTER_THAN_REFERENCE);
    the rendering of MLIR's own diagnostics (source excerpts, notes) is not
    a target (golden/README.md);
  * the `tfrt_translate -bef-to-mlir` blocks of the run transcripts
    (malformed files) must match exactly;
  * mlir-to-bef(bef-to-mlir --mlir-print-debuginfo NAME.bef) must give the
    bytes of NAME.bef again, except ROUND_TRIP_EXCEPTIONS.

usage: convert_golden.py GOLDEN_DIR BIN_DIR [NAME...]
"""
import os
import re
import subprocess
import sys

from golden_programs import is_pending_tensor_program
import tempfile

ABSL_WARNING = ("WARNING: All log messages before absl::InitializeLog() is "
                "called are written to STDERR\n")
ABSL_PREFIX = re.compile(r"^I<absl-prefix> <thread> stream_analysis\.cc:\d+\] ",
                         re.M)


# The reference names every function reference `callee`, so these ops fail
# verification after -bef-to-mlir; we name them after the op definition and
# require a byte-exact round trip instead.
BETTER_THAN_REFERENCE = {
    "cond_basic": "tfrt.cond gets a_true_fn/b_false_fn",
    "case_basic": "tfrt.case gets branches",
    "while_loop": "tfrt.while gets body_fn",
    "once_func": "tfrt.once gets function",
    "tensor_ts_fixed_partial": "the ts type parser accepts the "
                               "!ts.fixed_rank_shape.N types its own ops make",
    "tensor_unknown_rank0_shape": "the ts type parser accepts "
                                  "!ts.fixed_rank_shape.0",
    "attr_symbol": "several function references on an unknown op are named "
                   "callee, callee_1, ... instead of repeating `callee`",
}

# Programs whose BEF cannot be rebuilt byte for byte from bef-to-mlir's
# output, and why.
ROUND_TRIP_EXCEPTIONS = {
    "attr_scalar": "BEF has no signed DTypes: `si8`/`si32` attributes come "
                   "back signless, so the Types section differs",
    "attr_symbol": "the name of an array-of-symbols attribute on an unknown "
                   "op is not encoded (only in Strings), so it cannot be "
                   "restored",
    "split_input": "several BEF files joined by newlines, not one BEF file",
    "stream_default": "_tfrt_cost is not encoded: tfrt_test.test_cost fails "
                      "verification (as in the reference)",
    "stream_merge": "_tfrt_cost is not encoded",
    "stream_module_threshold": "_tfrt_cost is not encoded",
    "test_cost_streams": "_tfrt_cost is not encoded",
}

DIAGNOSTIC = re.compile(r"^.*?: (error|warning): (.*)$", re.M)


def diagnostics(stderr):
    return [m.group(1) + ": " + m.group(2) for m in DIAGNOSTIC.finditer(stderr)]


def pending_reason(name):
    if is_pending_tensor_program(name):
        return "needs the host tensor dialects (issue #9)"
    return None


def read_transcript(path):
    text = open(path, encoding="utf-8", errors="surrogateescape").read()
    command, rest = text.split("\n", 1)
    stdout, rest = rest.split("--- stderr ---\n", 1)
    stderr, rest = rest.rsplit("--- exit ", 1)
    status = int(rest.split(" ", 1)[0])
    return command, stdout, stderr, status


def normalize_reference_stderr(stderr):
    stderr = stderr.replace(ABSL_WARNING, "")
    return ABSL_PREFIX.sub("", stderr)


class Checker:
    def __init__(self, golden, bin_dir):
        self.golden = golden
        self.bin_dir = bin_dir
        self.env = dict(os.environ)
        self.env["PATH"] = bin_dir + ":" + self.env.get("PATH", "/usr/bin:/bin")
        self.passed = 0
        self.failures = []
        self.skipped = []

    def run(self, argv, stdin=None):
        result = subprocess.run(argv, cwd=self.golden, env=self.env,
                                stdin=stdin or subprocess.DEVNULL,
                                capture_output=True, timeout=120)
        if result.returncode < 0:
            self.fail(" ".join(argv), "crashed with signal %d" % -result.returncode)
        return result

    def fail(self, what, message):
        self.failures.append("%s: %s" % (what, message))

    def check(self, what, condition, message):
        if condition:
            self.passed += 1
        else:
            self.fail(what, message)

    def check_translation(self, name):
        command, _, want_stderr, want_status = read_transcript(
            os.path.join(self.golden, name + ".translate.txt"))
        args = command.split()
        assert args[:2] == ["tfrt_translate", "-mlir-to-bef"], command
        args = [a for a in args[2:args.index(">")]]
        ours = ["mlir-to-bef", "--print-stream-analysis"] + args
        result = self.run(ours)
        what = name + " (mlir-to-bef " + " ".join(args) + ")"
        stderr = result.stderr.decode("utf-8", "surrogateescape")
        want = normalize_reference_stderr(want_stderr)
        self.check(what, stderr == want,
                   "stderr differs:\n--- expected\n%s--- actual\n%s" % (want, stderr))
        self.check(what, result.returncode == want_status,
                   "exit %d, expected %d" % (result.returncode, want_status))
        bef = os.path.join(self.golden, name + ".bef")
        if os.path.exists(bef):
            want_bytes = open(bef, "rb").read()
            self.check(what, result.stdout == want_bytes,
                       "BEF bytes differ (%d vs %d bytes, first difference at %s)"
                       % (len(result.stdout), len(want_bytes),
                          first_difference(result.stdout, want_bytes)))
        nooptional = os.path.join(self.golden, name + ".nooptional.bef")
        if os.path.exists(nooptional):
            result = self.run(["mlir-to-bef", "--disable-optional-sections"] + args)
            want_bytes = open(nooptional, "rb").read()
            self.check(what + " --disable-optional-sections",
                       result.stdout == want_bytes,
                       "BEF bytes differ (%d vs %d bytes, first difference at %s)"
                       % (len(result.stdout), len(want_bytes),
                          first_difference(result.stdout, want_bytes)))


    def check_bef_to_mlir(self, name):
        bef = os.path.join(self.golden, name + ".bef")
        expected = os.path.join(self.golden, name + ".roundtrip.mlir")
        if os.path.exists(expected):
            result = self.run(["bef-to-mlir", name + ".bef"])
            what = name + " (bef-to-mlir)"
            want = open(expected, "rb").read()
            if name in BETTER_THAN_REFERENCE:
                # Same text once our distinct names are folded back.
                ours = re.sub(rb"callee_\d+ =", b"callee =", result.stdout)
                self.check(what, ours == want and result.returncode == 0,
                           "output differs from the reference beyond the "
                           "function attribute names")
            else:
                self.check(what, result.stdout == want,
                           "output differs:\n--- expected\n%s--- actual\n%s" %
                           (want.decode(), result.stdout.decode()))
                self.check(what, result.stderr == b"" and result.returncode == 0,
                           "exit %d, stderr %r" % (result.returncode, result.stderr))
        for suffix in (".roundtrip.txt", ".nooptional.roundtrip.txt"):
            transcript = os.path.join(self.golden, name + suffix)
            if not os.path.exists(transcript):
                continue
            command, _, want_stderr, want_status = read_transcript(transcript)
            args = command.split()[2:]
            result = self.run(["bef-to-mlir"] + args)
            what = name + " (bef-to-mlir " + " ".join(args) + ")"
            if name in BETTER_THAN_REFERENCE and suffix == ".roundtrip.txt":
                self.check(what, result.returncode == 0,
                           "expected success (%s), got exit %d: %s" %
                           (BETTER_THAN_REFERENCE[name], result.returncode,
                            result.stderr.decode()))
                continue
            ours = diagnostics(result.stderr.decode("utf-8", "surrogateescape"))
            want = diagnostics(want_stderr)
            self.check(what, ours == want and result.returncode == want_status,
                       "diagnostics %r exit %d, expected %r exit %d" %
                       (ours, result.returncode, want, want_status))
        if os.path.exists(bef) and name not in ROUND_TRIP_EXCEPTIONS:
            result = self.run(["bef-to-mlir", "--mlir-print-debuginfo", name + ".bef"])
            what = name + " (round trip)"
            if result.returncode != 0:
                self.fail(what, "bef-to-mlir failed: " + result.stderr.decode())
                return
            with tempfile.NamedTemporaryFile(suffix=".mlir") as text:
                text.write(result.stdout)
                text.flush()
                again = self.run(["mlir-to-bef", text.name])
            want_bytes = open(bef, "rb").read()
            self.check(what, again.stdout == want_bytes,
                       "mlir-to-bef | bef-to-mlir | mlir-to-bef differs at %s: %s" %
                       (first_difference(again.stdout, want_bytes),
                        again.stderr.decode()))

    def check_run_blocks(self, name):
        """The bef-to-mlir blocks of NAME.run.txt (malformed inputs)."""
        path = os.path.join(self.golden, name + ".run.txt")
        if not os.path.exists(path):
            return
        text = open(path, encoding="utf-8", errors="surrogateescape").read()
        blocks = re.findall(r"^(tfrt_translate -bef-to-mlir[^\n]*)\n(.*?)"
                            r"--- stderr ---\n(.*?)--- exit (\d+) ---\n",
                            text, re.S | re.M)
        for command, want_out, want_err, want_status in blocks:
            ours = command.replace("tfrt_translate -bef-to-mlir", "bef-to-mlir")
            result = subprocess.run(["sh", "-c", ours], cwd=self.golden,
                                    env=self.env, stdin=subprocess.DEVNULL,
                                    capture_output=True, timeout=120)
            out = result.stdout.decode("utf-8", "surrogateescape")
            err = result.stderr.decode("utf-8", "surrogateescape")
            self.check(name + " (" + ours + ")",
                       (out, err, result.returncode) ==
                       (want_out, want_err, int(want_status)),
                       "expected %r %r %s, got %r %r %d" %
                       (want_out, want_err, want_status, out, err,
                        result.returncode))


def first_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return "byte %d" % i
    return "byte %d (length)" % min(len(a), len(b))


def main():
    golden, bin_dir = sys.argv[1], os.path.abspath(sys.argv[2])
    only = set(sys.argv[3:])
    checker = Checker(golden, bin_dir)
    names = sorted(f[:-len(".translate.txt")] for f in os.listdir(golden)
                   if f.endswith(".translate.txt"))
    for name in names:
        if only and name not in only:
            continue
        reason = pending_reason(name)
        if reason:
            checker.skipped.append("%s: %s" % (name, reason))
            continue
        checker.check_translation(name)
        checker.check_bef_to_mlir(name)
        checker.check_run_blocks(name)
    for failure in checker.failures:
        print("FAIL " + failure)
    print("golden conversions: %d checks passed, %d failed, %d programs skipped"
          % (checker.passed, len(checker.failures), len(checker.skipped)))
    return 1 if checker.failures else 0


if __name__ == "__main__":
    sys.exit(main())
