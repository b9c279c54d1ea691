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
#include "tools/converter_io/converter_io.h"

namespace py = pybind11;

namespace {

namespace io = bef::converter_io;

[[noreturn]] void ThrowConverterError(const std::string& message) {
  py::object type = py::module_::import("bef._errors").attr("ConverterError");
  PyErr_SetObject(type.ptr(), type(message).ptr());
  throw py::error_already_set();
}

std::string TrimNewline(std::string text) {
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

py::bytes MlirToBef(const std::string& text, bool optional_sections, const std::string& name) {
  std::vector<uint8_t> bytes;
  std::string diagnostics;
  bool converted = false;
  {
    py::gil_scoped_release release;
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
  if (!converted) ThrowConverterError(TrimNewline(diagnostics));
  return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

std::string BefToMlir(py::buffer data, const std::string& name) {
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
    py::gil_scoped_release release;
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
        if (diagnostic.getSeverity() == mlir::DiagnosticSeverity::Error &&
            diagnostic.str() != "Unknown BEF format version detected") {
          failed = true;
        }
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
  if (!converted) ThrowConverterError(TrimNewline(diagnostics));
  return text;
}

}  // namespace

PYBIND11_MODULE(_converter, module) {
  module.doc() = "MLIR <-> BEF conversion (use bef.converter).";
  module.def("mlir_to_bef", &MlirToBef, py::arg("text"), py::arg("optional_sections") = true,
             py::arg("name") = "<string>");
  module.def("bef_to_mlir", &BefToMlir, py::arg("data"), py::arg("name") = "<bytes>");
}
