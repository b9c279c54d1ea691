"""Functions, signatures and sections of a loaded program."""

import subprocess
import os

import bef


def test_functions_and_signatures(program):
    functions = program.functions
    assert functions["add"] == bef.Signature("add", "bef", ["i32", "i32"], ["i32"])
    assert functions["fill"].arguments == ["!tfrt_tensor.tensor", "!tfrt.chain"]
    assert functions["fill"].results == ["!tfrt_tensor.tensor", "!tfrt.chain"]
    assert functions["shape_of"].results == ["!ts.shape"]
    assert {"empty", "scalars", "spin", "string_tensor"} <= set(functions)


def test_sections_are_bef_dumps_summary(program, bef_path):
    summary = subprocess.run([os.environ["BEF_DUMP"], "--summary", bef_path], check=True,
                             capture_output=True, text=True).stdout
    assert program.summary() == summary
    rows = [line.split() for line in summary.splitlines()[2:] if line.strip()[:1].isdigit()]
    assert [(s.id, s.name, s.offset, s.length, s.alignment) for s in program.sections] == \
        [(int(r[0]), r[1], int(r[2]), int(r[3]), int(r[4])) for r in rows]
    assert program.sections[0] == bef.Section(0, "Strings", program.sections[0].offset,
                                              program.sections[0].length, 1)


def test_dump_lists_functions(program):
    listing = program.dump()
    assert "function index" in listing and '"spin"' in listing


def test_repr_and_properties(program, bef_path):
    assert program.name == bef_path
    assert program.work_queue == "mstd:2"
    assert repr(program) == f"<bef.Program {bef_path!r} work_queue='mstd:2'>"
