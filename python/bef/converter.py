"""MLIR <-> BEF conversion: the mlir-to-bef and bef-to-mlir tools as
functions. Importing this module loads the converter extension, which holds
LLVM/MLIR (Debian's static archives, linked in); `import bef` alone does
not.

    import bef.converter
    data = bef.converter.mlir_to_bef(open("model.mlir").read())
    program = bef.load(data)
    print(bef.converter.bef_to_mlir(data))

Errors raise bef.ConverterError with MLIR's diagnostics, as the tools
print them ("<string>:3:8: error: ...").
"""

import os as _os

from bef._errors import ConverterError
from bef import _converter

__all__ = ["mlir_to_bef", "bef_to_mlir", "ConverterError"]


def mlir_to_bef(text, *, optional_sections=True, name="<string>"):
    """Converts MLIR text (str or bytes) of a host program to BEF bytes,
    byte-identical to the mlir-to-bef tool. `optional_sections=False` is
    the tool's --disable-optional-sections; `name` labels diagnostics."""
    if isinstance(text, (bytes, bytearray, memoryview)):
        data = bytes(text)
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ConverterError(
                f"{name}: the text is not UTF-8 (byte 0x{data[error.start]:02x} at offset "
                f"{error.start})") from None
    elif isinstance(text, str):
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError as error:
            raise ConverterError(
                f"{name}: the text cannot be UTF-8 ({error.reason} at index {error.start})"
            ) from None
    else:
        raise TypeError(f"mlir_to_bef: text must be str or bytes, not {type(text).__name__}")
    if not isinstance(name, str):
        raise TypeError(f"mlir_to_bef: name must be a str, not {type(name).__name__}")
    return _converter.mlir_to_bef(data, bool(optional_sections), name)


def mlir_file_to_bef(path, *, optional_sections=True):
    """mlir_to_bef of a file's text; diagnostics name the file."""
    with open(path, encoding="utf-8") as file:
        return mlir_to_bef(file.read(), optional_sections=optional_sections,
                           name=_os.fspath(path))


def bef_to_mlir(data, *, name="<bytes>"):
    """Converts BEF bytes back to MLIR text (as the bef-to-mlir tool)."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"bef_to_mlir: data must be bytes, not {type(data).__name__}")
    if not isinstance(name, str):
        raise TypeError(f"bef_to_mlir: name must be a str, not {type(name).__name__}")
    text = _converter.bef_to_mlir(data, name)
    try:
        return text.decode("utf-8")
    except UnicodeDecodeError as error:
        # A name or string in the BEF that is not UTF-8 (MLIR prints names
        # as they are): the text would not parse back.
        raise ConverterError(
            f"{name}: the program's MLIR is not UTF-8 (byte 0x{text[error.start]:02x} at offset "
            f"{error.start} of the text: a name in the BEF file is not UTF-8)") from None
