// bef._converter: MLIR <-> BEF for the `bef` package (bef.converter). The
// only extension that links LLVM/MLIR; `import bef` never loads it.
//
// The conversions are the mlir-to-bef and bef-to-mlir tools' (the same
// libraries, the same nesting bound and large-stack thread, so deep input
// is an error, never a crash); MLIR's diagnostics become the message of
// bef.ConverterError instead of going to stderr. The GIL is released while
// converting.
#include <cstdint>
#include <span>
#include <string>
#include <algorithm>
#include <string_view>
#include <vector>

#include "bef/format/bef_encoding.h"
#include "lib/converter/bef_to_mlir.h"
#include "lib/converter/dialects.h"
#include "lib/converter/mlir_to_bef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "pybind11/pybind11.h"
#include "python/src/released_gil.h"
#include "tools/converter_io/converter_io.h"

namespace py = pybind11;

namespace {

namespace io = bef::converter_io;

[[noreturn]] void ThrowConverterError(const std::string& message) {
  py::object type = py::module_::import("bef._errors").attr("ConverterError");
  // Diagnostics quote names from the input, which need not be UTF-8 (a
  // corrupted BEF file): such bytes show as \xNN.
  py::object text = py::reinterpret_steal<py::object>(PyUnicode_DecodeUTF8(
      message.data(), static_cast<Py_ssize_t>(message.size()), "backslashreplace"));
  if (!text) throw py::error_already_set();
  PyErr_SetObject(type.ptr(), type(text).ptr());
  throw py::error_already_set();
}

constexpr size_t kMaxDiagnosticLine = 240;        // bytes shown of one line
constexpr size_t kMaxDiagnostics = size_t{64} << 10;  // of all of them

// Whether `line` is a caret line of MLIR's diagnostics ("    ^~~~").
bool IsCaretLine(std::string_view line) {
  size_t caret = line.find_first_not_of(' ');
  return caret != std::string_view::npos && line[caret] == '^' &&
         line.find_first_not_of("^~ ", caret) == std::string_view::npos;
}

// MLIR's diagnostics with the trailing newlines removed and bounded for an
// exception message: a source line longer than kMaxDiagnosticLine (a 20 MB
// line of MLIR) is cut around the column its caret line points at (both
// lines cut alike), any other long line at its end, and the whole text
// after kMaxDiagnostics bytes.
std::string BoundDiagnostics(std::string_view text) {
  while (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  std::vector<std::string_view> lines;
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  std::string out;
  auto add = [&](std::string_view line) {
    if (!out.empty()) out += '\n';
    out += line;
  };
  for (size_t i = 0; i < lines.size(); ++i) {
    if (out.size() > kMaxDiagnostics) {
      out += "\n... (" + std::to_string(text.size() - out.size()) +
             " more bytes of diagnostics)";
      break;
    }
    std::string_view line = lines[i];
    if (line.size() <= kMaxDiagnosticLine) {
      add(line);
      continue;
    }
    if (i + 1 < lines.size() && IsCaretLine(lines[i + 1])) {
      std::string_view caret_line = lines[i + 1];
      size_t column = caret_line.find('^');
      size_t begin = column > kMaxDiagnosticLine / 2 ? column - kMaxDiagnosticLine / 2 : 0;
      begin = std::min(begin, line.size());
      std::string_view window = line.substr(begin, kMaxDiagnosticLine);
      std::string prefix = begin > 0 ? "..." : "";
      std::string suffix = begin + window.size() < line.size() ? "..." : "";
      add(prefix + std::string(window) + suffix);
      std::string_view marks = caret_line.substr(std::min(column, caret_line.size()));
      add(std::string(prefix.size() + column - begin, ' ') +
          std::string(marks.substr(0, kMaxDiagnosticLine)));
      ++i;
      continue;
    }
    add(std::string(line.substr(0, kMaxDiagnosticLine)) + "... (" +
        std::to_string(line.size() - kMaxDiagnosticLine) + " more bytes)");
  }
  return out;
}

py::bytes MlirToBef(const py::bytes& utf8_text, bool optional_sections, const std::string& name) {
  const std::string text = utf8_text;  // UTF-8 (checked by bef.converter)
  std::vector<uint8_t> bytes;
  std::string diagnostics;
  bool converted = false;
  {
    bef::python::ReleasedGil release;
    std::string overflow;
    if (!io::CheckMlirNesting(text, io::MaxNestingDepth(), name, &diagnostics)) {
      converted = false;
    } else {
      io::RunWithLargeStack([&]() -> int {
        mlir::DialectRegistry registry;
        bef::converter::RegisterHostDialects(registry);
        mlir::MLIRContext context(registry);
        context.allowUnregisteredDialects();
        llvm::SourceMgr source_manager;
        source_manager.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, name),
                                          llvm::SMLoc());
        llvm::raw_string_ostream os(diagnostics);
        mlir::SourceMgrDiagnosticHandler handler(source_manager, &context, os);
        mlir::OwningOpRef<mlir::ModuleOp> module =
            mlir::parseSourceFile<mlir::ModuleOp>(source_manager, &context);
        if (!module) return 1;
        bef::converter::MlirToBefOptions options;
        options.emit_optional_sections = optional_sections;
        mlir::FailureOr<std::vector<uint8_t>> result =
            bef::converter::ConvertMlirToBef(*module, options);
        if (mlir::failed(result)) return 1;
        bytes = std::move(*result);
        converted = true;
        return 0;
      }, &overflow);
    }
    if (!overflow.empty()) diagnostics = name + ": " + overflow;
  }
  if (!converted) ThrowConverterError(BoundDiagnostics(diagnostics));
  return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

py::bytes BefToMlir(py::buffer data, const std::string& name) {
  py::buffer_info info = data.request();
  if (info.ndim != 1 || info.itemsize != 1 || info.strides[0] != 1) {
    throw py::type_error("bef_to_mlir: expected contiguous bytes");
  }
  // Held by `data` while the GIL is released: the caller's object stays alive.
  std::span<const uint8_t> image(static_cast<const uint8_t*>(info.ptr),
                                 static_cast<size_t>(info.size));
  std::string text, diagnostics;
  bool converted = false;
  {
    bef::python::ReleasedGil release;
    std::string overflow;
    io::RunWithLargeStack([&]() -> int {
      mlir::DialectRegistry registry;
      bef::converter::RegisterHostDialects(registry);
      mlir::MLIRContext context(registry);
      context.allowUnregisteredDialects();
      context.loadAllAvailableDialects();  // ops are built, not parsed
      llvm::SourceMgr source_manager;
      llvm::raw_string_ostream os(diagnostics);
      mlir::SourceMgrDiagnosticHandler handler(source_manager, &context, os);
      bool failed = false;
      mlir::ScopedDiagnosticHandler count_errors(&context, [&](mlir::Diagnostic& diagnostic) {
        // Every error fails the conversion: an unknown version byte too,
        // as bef.load refuses it (the bef-to-mlir tool, as TFRT's, reports
        // it and prints the module).
        if (diagnostic.getSeverity() == mlir::DiagnosticSeverity::Error) failed = true;
        return mlir::failure();  // the printing handler sees it too
      });
      bef::converter::BefToMlirOptions options;
      options.max_region_depth = io::MaxNestingDepth();
      mlir::Location location = mlir::FileLineColLoc::get(&context, name, 0, 0);
      mlir::OwningOpRef<mlir::ModuleOp> module =
          bef::converter::ConvertBefToMlir(image, location, options);
      if (!module || failed || mlir::failed(mlir::verify(*module))) return 1;
      llvm::raw_string_ostream out(text);
      module->print(out);
      converted = true;
      return 0;
    }, &overflow);
    if (!overflow.empty()) diagnostics = name + ": " + overflow;
  }
  if (!converted) ThrowConverterError(BoundDiagnostics(diagnostics));
  return py::bytes(text);  // decoded by bef.converter
}

}  // namespace

PYBIND11_MODULE(_converter, module) {
  module.doc() = "MLIR <-> BEF conversion (use bef.converter).";
  bef::python::RememberMainThread();
  module.def("mlir_to_bef", &MlirToBef, py::arg("text"), py::arg("optional_sections") = true,
             py::arg("name") = "<string>");
  module.def("bef_to_mlir", &BefToMlir, py::arg("data"), py::arg("name") = "<bytes>");
}
