"""bef.converter: loaded on first use, byte-identical to mlir-to-bef."""

import subprocess
import sys

import pytest

import bef
from conftest import TEST_MLIR


def test_import_bef_does_not_load_the_converter():
    code = "import sys, bef; print('bef._converter' in sys.modules, 'bef.converter' in sys.modules)"
    output = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                            text=True).stdout
    assert output.split() == ["False", "False"]


def test_mlir_to_bef_is_byte_identical_to_the_tool(bef_path, tmp_path):
    import bef.converter
    data = bef.converter.mlir_file_to_bef(TEST_MLIR)
    tool_output = tmp_path / "tool.bef"
    subprocess.run([__import__("os").environ["BEF_MLIR_TO_BEF"], TEST_MLIR, "-o", tool_output],
                   check=True)
    assert data == tool_output.read_bytes()
    bare = bef.converter.mlir_to_bef(open(TEST_MLIR).read(), optional_sections=False)
    assert len(bare) < len(data)


def test_round_trip_through_mlir(bef_path):
    data = open(bef_path, "rb").read()
    text = bef.bef_to_mlir(data)
    assert "func.func @spin" in text
    program = bef.load(bef.mlir_to_bef(text))
    assert program.run("add", 20, 22) == 42


def test_unknown_bef_versions_are_refused(bef_path):
    # As bef.load refuses them (the bef-to-mlir tool, as TFRT's, reports the
    # version and prints the module anyway).
    data = bytearray(open(bef_path, "rb").read())
    data[2] = 7
    with pytest.raises(bef.ConverterError, match="Unknown BEF format version detected"):
        bef.bef_to_mlir(bytes(data))
    with pytest.raises(bef.Error):
        bef.load(bytes(data))


def test_converter_errors():
    with pytest.raises(bef.ConverterError, match="<string>:1:23: error"):
        bef.mlir_to_bef("func.func @f() { %x = tfrt.bogus }")
    with pytest.raises(bef.ConverterError, match="more than 4096 levels deep"):
        bef.mlir_to_bef("[" * 100_000)
    with pytest.raises(bef.ConverterError, match="Invalid BEF file header"):
        bef.bef_to_mlir(b"not BEF")
    with pytest.raises(TypeError):
        bef.mlir_to_bef(42)


def test_deep_affine_expressions_are_an_error_not_a_crash():
    # MLIR's affine parser recurses once per unary minus sign (300,000 of
    # them overflow any reasonable stack, and no bracket shows the depth),
    # and simplifies a long sum in quadratic time: both are refused up
    # front (the tools' --max_affine_operators; past it, a stack guard).
    deep = ("#map = affine_map<(d0) -> (" + "- " * 300_000 + "d0)>\n"
            "func.func @f() {\n  tfrt.return\n}\n")
    with pytest.raises(bef.ConverterError,
                       match="<string>:1: an affine map or set with more than 10000 operators"):
        bef.mlir_to_bef(deep)
    # The process carries on converting.
    text = "func.func @add(%a: i32, %b: i32) -> i32 {\n" \
           "  %c = tfrt.add.i32 %a, %b\n  tfrt.return %c : i32\n}\n"
    assert bef.load(bef.mlir_to_bef(text)).run("add", 20, 22) == 42


def test_package_version_matches_the_wheel():
    from importlib import metadata
    assert metadata.version("bef") == bef.__version__


def test_package_carries_type_information():
    import os
    package = os.path.dirname(bef.__file__)
    assert os.path.exists(os.path.join(package, "py.typed"))
    assert os.path.exists(os.path.join(package, "_runtime.pyi"))
    import inspect
    assert str(inspect.signature(bef.Program.run)) == "(self, name, /, *args, timeout=None)"
