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


def _name_bytes(name):
    """A diagnostics label as the bytes the tools would print: a file name
    from os.listdir (undecodable bytes as surrogate escapes) gets its own
    bytes back; any other lone surrogate is escaped."""
    try:
        return name.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return name.encode("utf-8", "backslashreplace")


def _name_text(name):
    """`name` as printable text for the package's own messages."""
    return _name_bytes(name).decode("utf-8", "backslashreplace")


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
                f"{_name_text(name)}: the text is not UTF-8 (byte 0x{data[error.start]:02x} at "
                f"offset {error.start})") from None
    elif isinstance(text, str):
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError as error:
            raise ConverterError(
                f"{_name_text(name)}: the text cannot be UTF-8 ({error.reason} at index "
                f"{error.start})") from None
    else:
        raise TypeError(f"mlir_to_bef: text must be str or bytes, not {type(text).__name__}")
    if not isinstance(name, str):
        raise TypeError(f"mlir_to_bef: name must be a str, not {type(name).__name__}")
    return _converter.mlir_to_bef(data, bool(optional_sections), _name_bytes(name))


def mlir_file_to_bef(path, *, optional_sections=True):
    """mlir_to_bef of a file's text; diagnostics name the file. `path` is a
    str, bytes or os.PathLike, named by its bytes (os.fsencode), so any
    name os.listdir returns works; text that is not UTF-8 is a
    ConverterError, as for mlir_to_bef."""
    path = _os.fspath(path)
    with open(path, "rb") as file:
        return mlir_to_bef(file.read(), optional_sections=optional_sections,
                           name=_os.fsdecode(path))


def bef_to_mlir(data, *, name="<bytes>"):
    """Converts BEF bytes back to MLIR text (as the bef-to-mlir tool)."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"bef_to_mlir: data must be bytes, not {type(data).__name__}")
    if not isinstance(name, str):
        raise TypeError(f"bef_to_mlir: name must be a str, not {type(name).__name__}")
    text = _converter.bef_to_mlir(data, _name_bytes(name))
    try:
        return text.decode("utf-8")
    except UnicodeDecodeError as error:
        # A name or string in the BEF that is not UTF-8 (MLIR prints names
        # as they are): the text would not parse back.
        raise ConverterError(
            f"{_name_text(name)}: the program's MLIR is not UTF-8 (byte 0x{text[error.start]:02x} at offset "
            f"{error.start} of the text: a name in the BEF file is not UTF-8)") from None
