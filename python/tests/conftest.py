"""Fixtures of the `bef` package's tests (run by //python:python_test
against the installed wheel; by hand: BEF_PYTHON_TEST_BEF=... pytest)."""

import os

import pytest

import bef

HERE = os.path.dirname(os.path.abspath(__file__))
TEST_MLIR = os.path.join(HERE, "Inputs", "python_test.mlir")


@pytest.fixture(scope="session")
def bef_path():
    """python_test.mlir converted by the mlir-to-bef tool."""
    return os.environ["BEF_PYTHON_TEST_BEF"]


@pytest.fixture(scope="session")
def program(bef_path):
    return bef.load(bef_path, work_queue="mstd:2")
