#!/usr/bin/env python3
"""Checks mlir-to-bef (and bef-to-mlir, when given) against the golden corpus.

For every NAME.translate.txt of the golden directory (the reference's
`tfrt_translate -mlir-to-bef NAME.mlir > NAME.bef` transcript):
  * mlir-to-bef, run the same way in the golden directory, must write
    NAME.bef byte for byte (and NAME.nooptional.bef with
    --disable-optional-sections where the corpus has it);
  * its stderr and exit status must match the transcript. The reference's
    absl preamble line is not a target; its `StreamAnalysis: max_cost ...`
    log lines are compared with ours (--print-stream-analysis) as an oracle
    for stream analysis.

usage: convert_golden.py GOLDEN_DIR BIN_DIR [NAME...]
"""
import os
import re
import subprocess
import sys
import tempfile

ABSL_WARNING = ("WARNING: All log messages before absl::InitializeLog() is "
                "called are written to STDERR\n")
ABSL_PREFIX = re.compile(r"^I<absl-prefix> <thread> stream_analysis\.cc:\d+\] ",
                         re.M)


def pending_reason(name):
    if name.startswith("tensor_"):
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
    for failure in checker.failures:
        print("FAIL " + failure)
    print("golden conversions: %d checks passed, %d failed, %d programs skipped"
          % (checker.passed, len(checker.failures), len(checker.skipped)))
    return 1 if checker.failures else 0


if __name__ == "__main__":
    sys.exit(main())
