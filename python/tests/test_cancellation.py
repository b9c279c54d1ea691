"""timeout=, Future.cancel() and Ctrl-C cancel runs in the runtime."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import bef

FOREVER = 2**31 - 1  # spin iterations: minutes of work


def test_timeout_cancels_a_run(program):
    start = time.monotonic()
    with pytest.raises(bef.DeadlineExceededError) as raised:
        program.run("spin", FOREVER, timeout=0.05)
    assert time.monotonic() - start < 10
    assert raised.value.code == "DEADLINE_EXCEEDED"
    assert program.run("add", 1, 2) == 3  # the program is still usable


def test_timeout_zero_is_already_expired(program):
    with pytest.raises(bef.DeadlineExceededError):
        program.run("spin", FOREVER, timeout=0)


def test_a_generous_timeout_does_not_fire(program):
    assert program.run("spin", 1000, timeout=60) == 1000


def test_timeout_of_run_async(program):
    future = program.run_async("spin", FOREVER, timeout=0.05)
    assert isinstance(future.exception(timeout=10), bef.DeadlineExceededError)


def warm_up(program):
    # After its first runs the executor runs `spin` inline, on the caller.
    for _ in range(5):
        program.run("spin", 1000)


def test_run_async_returns_before_the_run_ends(program):
    warm_up(program)
    start = time.monotonic()
    future = program.run_async("spin", FOREVER)
    assert time.monotonic() - start < 1
    assert not future.done()
    assert future.cancel()


def test_future_cancel_stops_the_run(program):
    warm_up(program)
    future = program.run_async("spin", FOREVER)
    time.sleep(0.05)
    assert future.cancel()
    assert future.cancelled()
    deadline = time.monotonic() + 10
    while not future._call.done() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert future._call.done(), "the runtime kept running a cancelled run"
    with pytest.raises(bef.CancelledError):
        future._call.result()


def test_ctrl_c_cancels_a_blocking_run(bef_path):
    script = textwrap.dedent(f"""
        import sys, time, bef
        program = bef.load({bef_path!r}, work_queue="mstd:2")
        # Round 1 runs `spin` on a worker (its first run), round 2 inline on
        # this thread (after warm-up): Ctrl-C must cancel both.
        for round in (1, 2):
            print("ready", flush=True)
            start = time.monotonic()
            try:
                program.run("spin", {FOREVER})
            except KeyboardInterrupt:
                print("interrupted after %.3f s" % (time.monotonic() - start), flush=True)
            for _ in range(5):
                program.run("spin", 1000)
        print("after:", program.run("add", 2, 3), flush=True)
    """)
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    lines = []
    try:
        for _ in range(2):
            assert child.stdout.readline().strip() == "ready"
            time.sleep(0.3)
            child.send_signal(signal.SIGINT)
            lines.append(child.stdout.readline())
        output, _ = child.communicate(timeout=20)
    finally:
        if child.poll() is None:
            child.kill()
    for line in lines:
        assert line.startswith("interrupted after"), lines
        assert float(line.split()[2]) < 5, lines
    assert "after: 5" in output, output
    assert child.returncode == 0


@pytest.mark.skipif(os.environ.get("BEF_SANITIZER") == "tsan",
                    reason="TSan does not support threads started after a multi-threaded fork")
def test_fork_child_loads_again(bef_path):
    # A child of os.fork() has none of the runtime's threads: programs of the
    # parent refuse to run there (instead of hanging), new loads work, and
    # so do futures.
    script = textwrap.dedent(f"""
        import os, sys, bef
        program = bef.load({bef_path!r}, work_queue="mstd:2")
        assert program.run("add", 1, 2) == 3
        assert program.run_async("add", 1, 1).result(timeout=30) == 2
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                program.run("add", 1, 2)
                code = 10
            except bef.RuntimeError as error:
                if "os.fork()" not in str(error) or error.code != "FAILED_PRECONDITION":
                    code = 11
            again = bef.load({bef_path!r}, work_queue="mstd:2")
            if again.run("add", 2, 3) != 5:
                code = 12
            if again.run_async("add", 3, 3).result(timeout=30) != 6:
                code = 13
            if again.run("spin", 100000) != 100000:
                code = 14
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        assert program.run("add", 4, 4) == 8  # the parent is unaffected
        assert program.run_async("add", 5, 5).result(timeout=30) == 10
        print("child", os.waitstatus_to_exitcode(status), flush=True)
    """)
    output = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=60)
    assert output.returncode == 0, output.stderr
    assert output.stdout.strip() == "child 0", (output.stdout, output.stderr)
