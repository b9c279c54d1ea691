"""Builds the `bef` wheel from the package's files, offline, with the
standard library only (no setuptools, no network): a wheel is a zip with a
.dist-info directory (PEP 427).

    python3 python/build_wheel.py --output DIR --version V \
        --python-tag cp311 --platform-tag linux_x86_64 FILE...

Each FILE lands in the package directory `bef/` under its base name. The
extensions are stripped of debug sections when `strip` is available (not
with --keep-debug-info: sanitizer builds, whose reports need them).
"""

import argparse
import base64
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

SUMMARY = "Load, inspect and run BEF (Binary Executable Format) programs with NumPy arrays"

# The runtime libraries the extensions link (Debian 12 packages); a wheel
# cannot carry them, so they are named here and in docs/python.md.
REQUIRES_EXTERNAL = [
    "libabsl20220623",
    "libtbb12",
    "libdnnl2 (the eigen.* convolutions and f32 matrix products)",
    "libmlir-22 (bef.converter and bef.onnx_to_bef only)",
    "libllvm22 (bef.converter and bef.onnx_to_bef only)",
    "python3-onnx (bef.onnx_to_bef only: Debian's ONNX 1.12)",
]

# Commands the wheel installs: NAME = module:function.
CONSOLE_SCRIPTS = ["onnx-to-bef = bef.onnx_converter:main"]


def record_hash(data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode("ascii")


def stripped(path, keep_debug_info):
    """The bytes of `path`, without debug sections for shared objects."""
    if keep_debug_info or not path.endswith(".so") or shutil.which("strip") is None:
        with open(path, "rb") as file:
            return file.read()
    with tempfile.TemporaryDirectory() as scratch:
        copy = os.path.join(scratch, os.path.basename(path))
        shutil.copyfile(path, copy)
        subprocess.run(["strip", "--strip-debug", copy], check=True)
        with open(copy, "rb") as file:
            return file.read()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", required=True, help="the wheel's path, or a directory")
    parser.add_argument("--version", required=True)
    parser.add_argument("--python-tag", default=f"cp{sys.version_info[0]}{sys.version_info[1]}")
    parser.add_argument("--platform-tag", default="linux_x86_64")
    parser.add_argument("--keep-debug-info", action="store_true",
                        help="do not strip the extensions (sanitizer builds)")
    parser.add_argument("files", nargs="+")
    options = parser.parse_args()

    tag = f"{options.python_tag}-{options.python_tag}-{options.platform_tag}"
    name = f"bef-{options.version}-{tag}.whl"
    output = options.output
    if os.path.isdir(output):
        output = os.path.join(output, name)
    dist_info = f"bef-{options.version}.dist-info"

    python_requires = "{}.{}".format(options.python_tag[2], options.python_tag[3:])
    metadata = "\n".join([
        "Metadata-Version: 2.1",
        "Name: bef",
        f"Version: {options.version}",
        f"Summary: {SUMMARY}",
        "License: Apache-2.0",
        f"Requires-Python: =={python_requires}.*",
        "Requires-Dist: numpy",
        "Requires-External: " + "\nRequires-External: ".join(REQUIRES_EXTERNAL),
        "",
        "The BEF host runtime as a Python package; see docs/python.md.",
        "",
    ])
    wheel = "\n".join([
        "Wheel-Version: 1.0",
        "Generator: bef build_wheel.py",
        "Root-Is-Purelib: false",
        f"Tag: {tag}",
        "",
    ])

    entries = []
    for path in sorted(options.files, key=os.path.basename):
        entries.append((f"bef/{os.path.basename(path)}",
                        stripped(path, options.keep_debug_info)))
    entries.append((f"{dist_info}/METADATA", metadata.encode()))
    entries.append((f"{dist_info}/WHEEL", wheel.encode()))
    entries.append((f"{dist_info}/top_level.txt", b"bef\n"))
    entries.append((f"{dist_info}/entry_points.txt",
                    ("[console_scripts]\n" + "\n".join(CONSOLE_SCRIPTS) + "\n").encode()))
    record = "".join(f"{path},{record_hash(data)},{len(data)}\n" for path, data in entries)
    record += f"{dist_info}/RECORD,,\n"
    entries.append((f"{dist_info}/RECORD", record.encode()))

    with zipfile.ZipFile(output, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path, data in entries:
            info = zipfile.ZipInfo(path, date_time=(2020, 1, 1, 0, 0, 0))  # reproducible
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (0o755 if path.endswith(".so") else 0o644) << 16
            archive.writestr(info, data)
    print(output)


if __name__ == "__main__":
    main()
