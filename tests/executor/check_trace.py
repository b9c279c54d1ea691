#!/usr/bin/env python3
"""Checks a Chrome Trace Event JSON timeline written by bef_executor
--trace_file (bef/host/tracing.h):

  * the file is JSON with a traceEvents list; complete events ("X") have
    name, cat (kernel | function | task), pid, tid, ts, dur >= 0 and args;
    kernel spans name their function and location;
  * on every thread, spans nest (none partly overlaps another);
  * every kernel span lies inside a function or task span of its thread
    (the spans cover the run);
  * the counts given as NAME=N arguments match (spans with that name).

usage: check_trace.py TRACE.json [NAME=COUNT...]
"""
import collections
import json
import sys

TOLERANCE = 0.0015  # microseconds: ts and dur are rounded to 0.001


def fail(message):
    print("check_trace: " + message)
    sys.exit(1)


def main():
    with open(sys.argv[1]) as f:
        trace = json.load(f)
    events = trace.get("traceEvents")
    if not isinstance(events, list):
        fail("no traceEvents list")
    spans = collections.defaultdict(list)
    names = collections.Counter()
    for event in events:
        if event.get("ph") == "M":
            continue
        if event.get("ph") != "X":
            fail("unexpected event phase: %r" % event)
        for key in ("name", "cat", "pid", "tid", "ts", "dur", "args"):
            if key not in event:
                fail("event without %s: %r" % (key, event))
        if event["cat"] not in ("kernel", "function", "task"):
            fail("unknown category: %r" % event)
        if event["dur"] < 0:
            fail("negative duration: %r" % event)
        if event["cat"] == "kernel":
            if "function" not in event["args"] or "location" not in event["args"]:
                fail("kernel span without function and location: %r" % event)
        spans[event["tid"]].append(event)
        names[event["name"]] += 1
    for tid, thread_spans in spans.items():
        thread_spans.sort(key=lambda e: (e["ts"], -e["dur"]))
        stack = []
        for span in thread_spans:
            start, end = span["ts"], span["ts"] + span["dur"]
            while stack and stack[-1]["ts"] + stack[-1]["dur"] <= start + TOLERANCE:
                stack.pop()
            if stack:
                parent_end = stack[-1]["ts"] + stack[-1]["dur"]
                if end > parent_end + TOLERANCE:
                    fail("span %r partly overlaps %r on thread %d" %
                         (span, stack[-1], tid))
            elif span["cat"] == "kernel":
                fail("kernel span outside any function or task: %r" % span)
            stack.append(span)
    for expectation in sys.argv[2:]:
        name, count = expectation.rsplit("=", 1)
        if names[name] != int(count):
            fail("%d spans named %s, expected %s" % (names[name], name, count))
    print("trace ok: %d spans on %d threads" % (sum(names.values()), len(spans)))


if __name__ == "__main__":
    main()
