"""timeout=, Future.cancel() and Ctrl-C cancel runs in the runtime."""

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import bef

FOREVER = 2**31 - 1  # spin iterations: minutes of work


def rest_of_output(child, timeout):
    """What `child` prints until it exits, the text its stdout's reader has
    already buffered included (communicate(timeout=) reads the raw pipe, and
    would lose a line that arrived with the last one readline took)."""
    child.wait(timeout=timeout)
    return child.stdout.read()


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
        import sys, time, bef, faulthandler
        faulthandler.enable()  # a crash of the child shows its stack
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
        output = rest_of_output(child, timeout=20)
    finally:
        if child.poll() is None:
            child.kill()
    for line in lines:
        assert line.startswith("interrupted after"), lines
        assert float(line.split()[2]) < 5, lines
    assert "after: 5" in output, (output, child.returncode)
    assert child.returncode == 0


@pytest.mark.skipif(os.environ.get("BEF_SANITIZER") in ("tsan", "asan"),
                    reason="a child of a multi-threaded fork may hang in the sanitizer's own "
                           "allocator: TSan refuses threads started after it, and GCC 12's "
                           "libasan predates ASan's fork handlers (llvm-project#75290, LLVM 18), "
                           "so a lock another thread held at the fork stays held "
                           "(llvm-project#63224); the normal pass runs it")
def test_fork_child_loads_again(bef_path):
    # A child of os.fork() has none of the runtime's threads: programs of the
    # parent refuse to run there (instead of hanging), new loads work, and
    # so do futures.
    script = textwrap.dedent(f"""
        import os, signal, sys, time, bef, faulthandler
        faulthandler.dump_traceback_later(45, exit=True)  # a hang shows where
        program = bef.load({bef_path!r}, work_queue="mstd:2")
        assert program.run("add", 1, 2) == 3
        assert program.run_async("add", 1, 1).result(timeout=30) == 2
        pid = os.fork()
        if pid == 0:
            # (Not dump_traceback_later: re-arming it in a forked child waits
            # for the parent's watchdog thread, which is not here.)
            faulthandler.register(signal.SIGUSR1)  # the parent asks for the stack
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
        deadline = time.monotonic() + 35
        while True:
            reaped, status = os.waitpid(pid, os.WNOHANG)
            if reaped:
                break
            if time.monotonic() > deadline:  # hung: its stack, then the end
                os.kill(pid, signal.SIGUSR1)
                time.sleep(1)
                os.kill(pid, signal.SIGKILL)
                sys.exit("the child hung")
            time.sleep(0.01)
        assert program.run("add", 4, 4) == 8  # the parent is unaffected
        assert program.run_async("add", 5, 5).result(timeout=30) == 10
        print("child", os.waitstatus_to_exitcode(status), flush=True)
    """)
    output = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=60)
    assert output.returncode == 0, output.stderr
    assert output.stdout.strip() == "child 0", (output.stdout, output.stderr)


def test_a_run_waiting_for_its_turn_on_s_honours_timeout_and_ctrl_c(bef_path):
    # issue #51 row 5: on "s", runs from several threads take turns; one
    # waiting behind another thread's long run still ends at its timeout
    # and on Ctrl-C (it returned after the long run: 5.6 s, 6.2 s).
    script = textwrap.dedent(f"""
        import threading, time, bef, faulthandler
        faulthandler.enable()  # a crash of the child shows its stack
        program = bef.load({bef_path!r}, work_queue="s")
        holder = threading.Thread(target=lambda: program.run("spin", {FOREVER}, timeout=4),
                                  daemon=True)
        holder.start()
        time.sleep(0.3)  # the holder has the turn
        start = time.monotonic()
        try:
            program.run("add", 1, 2, timeout=0.1)
        except bef.DeadlineExceededError:
            print("timed out after %.3f s" % (time.monotonic() - start), flush=True)
        print("ready", flush=True)
        start = time.monotonic()
        try:
            program.run("add", 1, 2)
        except KeyboardInterrupt:
            print("interrupted after %.3f s" % (time.monotonic() - start), flush=True)
        holder.join()
        print("after:", program.run("add", 2, 3), flush=True)
    """)
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        timed_out = child.stdout.readline()
        assert child.stdout.readline().strip() == "ready", timed_out
        time.sleep(0.3)
        child.send_signal(signal.SIGINT)
        interrupted = child.stdout.readline()
        output = rest_of_output(child, timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
    assert timed_out.startswith("timed out after") and float(timed_out.split()[3]) < 1, timed_out
    assert interrupted.startswith("interrupted after"), interrupted
    assert float(interrupted.split()[2]) < 1.5, interrupted
    assert "after: 5" in output, (output, child.returncode)
    assert child.returncode == 0


def test_a_done_callback_may_wait_for_another_future(program):
    # issue #51 row 4: callbacks ran on the one thread that completes
    # futures; one waiting for another future stopped them all.
    warm_up(program)
    outcomes = []
    slow = program.run_async("spin", 2_000_000)
    first = program.run_async("add", 1, 2)
    first.add_done_callback(lambda f: outcomes.append((f.result(), slow.result(timeout=20))))
    assert first.result(timeout=20) == 3
    assert slow.result(timeout=20) == 2_000_000
    deadline = time.monotonic() + 20
    while not outcomes and time.monotonic() < deadline:
        time.sleep(0.01)
    assert outcomes == [(3, 2_000_000)]
    # And futures keep completing while a callback blocks for a while.
    release = threading.Event()
    blocked = program.run_async("add", 2, 2)
    blocked.add_done_callback(lambda f: release.wait(20))
    assert blocked.result(timeout=20) == 4
    assert program.run_async("add", 3, 3).result(timeout=20) == 6
    release.set()


@pytest.mark.parametrize("inside", ["run", "mlir_to_bef", "callback"])
def test_exit_while_a_daemon_thread_is_inside_the_runtime(bef_path, inside):
    # issue #51 row 1: SIGABRT ("terminate called without an active
    # exception") at exit, 6 of 6 times.
    script = textwrap.dedent(f"""
        import sys, threading, time, bef
        program = bef.load({bef_path!r}, work_queue="mstd:2")
        def work():
            if {inside!r} == "run":
                while True:
                    program.run("spin", 20_000_000)
            elif {inside!r} == "mlir_to_bef":
                text = "func.func @f() {{ tfrt.return }}\\n" * 1 + "".join(
                    "func.func @g%d() {{ tfrt.return }}\\n" % i for i in range(20000))
                while True:
                    bef.mlir_to_bef(text)
            else:
                def callback(future):
                    while True:
                        program.run("spin", 20_000_000)
                program.run_async("add", 1, 2).add_done_callback(callback)
        threading.Thread(target=work, daemon=True).start()
        time.sleep(0.5)
        print("exiting", flush=True)
        sys.exit(0)
    """)
    env = dict(os.environ)
    if os.environ.get("BEF_SANITIZER") == "tsan":
        # The process tears down while the daemon thread still runs kernels
        # (which Python allows): TSan reports that teardown, which is not
        # what this test is about. The abort is.
        env["TSAN_OPTIONS"] = env.get("TSAN_OPTIONS", "") + ":exitcode=0"
    for _ in range(3):
        child = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                               timeout=60, env=env)
        assert child.returncode == 0, (child.returncode, child.stderr[-2000:])
        assert "terminate called" not in child.stderr
        assert "exiting" in child.stdout


# A run that can never end on its own: @loop's tfrt.once of itself comes
# from the continuation of a condition a blocking thread's sleep completes
# (never on the evaluation's stack), so its placeholder waits for the
# evaluation that waits for it (docs/executor-semantics.md §9).
NEVER_ENDS = """
func.func @loop() -> i32 {
  %us = tfrt.constant.i32 1000
  %slept = "tfrt_test.blocking.usleep"(%us) : (i32) -> !tfrt.chain
  %true = tfrt.constant.i1 1
  %t = "tfrt_test.identity"(%slept, %true) : (!tfrt.chain, i1) -> i1
  %r = tfrt.if %t : () -> i32 {
    %x = tfrt.once @loop() : () -> (i32)
    tfrt.return %x : i32
  } else {
    %c = tfrt.constant.i32 0
    tfrt.return %c : i32
  }
  tfrt.return %r : i32
}

func.func @never_ends(%x : i32) -> i32 {
  %r = tfrt.once @loop() : () -> (i32)
  tfrt.return %r : i32
}

func.func @add(%a : i32, %b : i32) -> i32 {
  %r = tfrt.add.i32 %a, %b
  tfrt.return %r : i32
}
"""


@pytest.mark.parametrize("work_queue", ["s", "mstd:2"])
def test_a_run_that_never_ends_ends_at_its_deadline(work_queue):
    program = bef.load(bef.mlir_to_bef(NEVER_ENDS), work_queue=work_queue)
    for _ in range(3):  # each holds no thread: the next runs as the first
        start = time.monotonic()
        with pytest.raises(bef.DeadlineExceededError):
            program.run("never_ends", 1, timeout=0.2)
        assert time.monotonic() - start < 10
    future = program.run_async("never_ends", 1, timeout=0.2)
    assert isinstance(future.exception(timeout=10), bef.DeadlineExceededError)
    assert program.run("add", 1, 2, timeout=10) == 3


def test_a_run_that_never_ends_ends_when_cancelled():
    program = bef.load(bef.mlir_to_bef(NEVER_ENDS), work_queue="mstd:2")
    future = program.run_async("never_ends", 1)
    time.sleep(0.1)
    assert not future.done()
    assert future.cancel()
    deadline = time.monotonic() + 10
    while not future._call.done() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert future._call.done(), "a cancelled run that cannot end was still waited for"
    with pytest.raises(bef.CancelledError):
        future._call.result()
    assert program.run("add", 2, 3, timeout=10) == 5


def test_ctrl_c_ends_a_run_that_never_ends_on_s(tmp_path):
    # On "s" the run is the caller's own (run and run_async alike): Ctrl-C
    # cancels it, and it ends although nothing of it will ever complete.
    path = tmp_path / "never.bef"
    path.write_bytes(bef.mlir_to_bef(NEVER_ENDS))
    script = textwrap.dedent(f"""
        import time, bef, faulthandler
        faulthandler.enable()  # a crash of the child shows its stack
        program = bef.load({str(path)!r}, work_queue="s")
        print("ready", flush=True)
        start = time.monotonic()
        try:
            program.run("never_ends", 1)
        except KeyboardInterrupt:
            print("interrupted after %.3f s" % (time.monotonic() - start), flush=True)
        print("after:", program.run("add", 2, 3, timeout=10), flush=True)
    """)
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "ready"
        time.sleep(0.3)
        child.send_signal(signal.SIGINT)
        output = rest_of_output(child, timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
    assert "interrupted after" in output, output
    assert "after: 5" in output, (output, child.returncode)
    assert child.returncode == 0
