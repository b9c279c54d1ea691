#include "lib/converter/bef_to_mlir.h"

#include <complex>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bef/format/attribute_reader.h"
#include "bef/format/bef_encoding.h"
#include "bef/format/byte_reader.h"
#include "bef/format/section_reader.h"
#include "llvm/ADT/DenseMap.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"

#include "lib/converter/dialects.h"

namespace bef::converter {
namespace {

constexpr uint32_t kMissingAttributeValue = 0xdeadbeef;

// Function attributes of the registered ops that take symbols, in the
// attribute-name order their functions are encoded; `array` marks an
// attribute holding all remaining functions as an array.
struct FunctionAttributes {
  std::vector<llvm::StringRef> names;
  bool last_is_array = false;
};

std::optional<FunctionAttributes> RegisteredFunctionAttributes(
    llvm::StringRef op_name) {
  static const std::map<std::string, FunctionAttributes, std::less<>> kTable = {
      {"tfrt.call", {{"callee"}}},
      {"tfrt.cond", {{"a_true_fn", "b_false_fn"}}},
      {"tfrt.case", {{"branches"}, true}},
      {"tfrt.while", {{"body_fn"}}},
      {"tfrt.once", {{"function"}}},
      {"tfrt.parallel_call.i32", {{"callee"}}},
      {"tfrt_test.sync_benchmark", {{"target_fn"}}},
  };
  auto it = kTable.find(op_name);
  if (it == kTable.end()) return std::nullopt;
  return it->second;
}

struct FunctionEntry {
  FunctionKind kind = FunctionKind::kBefFunction;
  uint32_t offset = 0;
  std::string name;
  std::vector<mlir::Type> arguments;
  std::vector<mlir::Type> results;  // native functions only
};

struct KernelRecord {
  uint32_t code = 0;
  uint32_t location = 0;
  std::vector<uint32_t> arguments;
  std::vector<uint32_t> attributes;
  std::vector<uint32_t> functions;
  std::vector<uint32_t> results;
};

struct FunctionBody {
  uint32_t location = 0;
  uint32_t num_registers = 0;
  std::vector<KernelRecord> kernels;  // without the pseudo kernel
  std::vector<uint32_t> result_registers;
};

class Reader {
 public:
  Reader(std::span<const uint8_t> image, mlir::Location file_location,
         const BefToMlirOptions& options)
      : image_(image),
        options_(options),
        file_location_(file_location),
        context_(file_location.getContext()),
        builder_(context_) {}

  mlir::OwningOpRef<mlir::ModuleOp> Run() {
    if (image_.empty()) return Error("BEF file is empty.");
    if (image_.size() < 3 || image_[0] != kBefMagic1 ||
        image_[1] != kBefMagic2) {
      mlir::emitError(file_location_, "Invalid BEF file header detected");
      return Error("Invalid BEF file header.");
    }
    // An aligned copy; the version byte is reported, then ignored.
    storage_.resize((image_.size() + 7) / 8);
    std::memcpy(storage_.data(), image_.data(), image_.size());
    bytes_ = std::span<const uint8_t>(
        reinterpret_cast<const uint8_t*>(storage_.data()), image_.size());
    if (bytes_[2] != kBefVersion0) {
      mlir::emitError(file_location_, "Unknown BEF format version detected");
      reinterpret_cast<uint8_t*>(storage_.data())[2] = kBefVersion0;
    }
    if (!ReadSectionTable()) return Error("Invalid BEF section header.");

    bool optional = Has(SectionId::kAttributeTypes) &&
                    Has(SectionId::kAttributeNames) &&
                    Has(SectionId::kRegisterTypes);
    if (!optional) {
      mlir::emitWarning(file_location_,
                        "Missing AttributeTypes, AttributeNames or "
                        "RegisterTypes sections.");
    }
    if (!ReadStrings()) return Error("Invalid Strings section.");
    if (!ReadTypes()) return Error("Invalid Types section.");
    if (optional && !ReadAttributeTypes()) {
      mlir::emitWarning(file_location_,
                        "Invalid Attributes/AttributeTypes section.");
    }
    if (!ReadKernels()) return Error("Invalid Kernels section.");
    if (!ReadFunctionIndex()) return Error("Invalid FunctionIndex section.");
    if (optional && !ReadOptionalTables()) optional_tables_ok_ = false;
    for (const FunctionEntry& entry : functions_) {
      if (entry.kind == FunctionKind::kNativeFunction) {
        bodies_.emplace_back();
        continue;
      }
      std::optional<FunctionBody> body = ReadFunction(entry);
      if (!body) return Error("Invalid Functions section.");
      bodies_.push_back(std::move(*body));
    }
    return Build();
  }

 private:
  mlir::OwningOpRef<mlir::ModuleOp> Error(const char* message) {
    mlir::emitError(file_location_, message);
    return nullptr;
  }

  bool Has(SectionId id) const {
    return sections_[static_cast<size_t>(id)].has_value();
  }
  std::span<const uint8_t> Body(SectionId id) const {
    const auto& section = sections_[static_cast<size_t>(id)];
    return section ? *section : std::span<const uint8_t>();
  }

  bool ReadSectionTable() {
    SectionReader reader(bytes_);
    if (!reader.ReadHeader().ok()) return false;
    while (!reader.done()) {
      absl::StatusOr<Section> section = reader.Next();
      if (!section.ok()) return false;
      // Unknown sections are skipped (the reference crashes on them).
      if (!section->is_known()) continue;
      sections_[section->id] = section->body;
    }
    return true;
  }

  std::optional<std::string> String(uint32_t offset) const {
    absl::StatusOr<std::string_view> text =
        ReadPoolString(Body(SectionId::kStrings), offset);
    if (!text.ok()) return std::nullopt;
    return std::string(*text);
  }

  bool ReadStrings() {
    std::span<const uint8_t> strings = Body(SectionId::kStrings);
    return strings.empty() || strings.back() == 0;
  }

  bool ReadTypes() {
    if (!Has(SectionId::kTypes)) return false;
    ByteReader reader(Body(SectionId::kTypes), 0, "Types");
    absl::StatusOr<uint32_t> count = reader.ReadVbr32();
    if (!count.ok()) return false;
    for (uint32_t i = 0; i < *count; ++i) {
      absl::StatusOr<uint32_t> offset = reader.ReadVbr32();
      if (!offset.ok()) return false;
      std::optional<std::string> name = String(*offset);
      if (!name) return false;
      mlir::Type type = mlir::parseType(*name, context_);
      if (!type) return false;
      types_.push_back(type);
    }
    return true;
  }

  bool ReadAttributeTypes() {
    ByteReader reader(Body(SectionId::kAttributeTypes), 0, "AttributeTypes");
    absl::StatusOr<uint32_t> count = reader.ReadVbr32();
    if (!count.ok()) return false;
    for (uint32_t i = 0; i < *count; ++i) {
      absl::StatusOr<uint32_t> offset = reader.ReadVbr32();
      absl::StatusOr<uint32_t> type = reader.ReadVbr32();
      if (!offset.ok() || !type.ok()) return false;
      attribute_types_[*offset] = *type;
    }
    return true;
  }

  bool ReadKernels() {
    if (!Has(SectionId::kKernels)) return false;
    ByteReader reader(Body(SectionId::kKernels), 0, "Kernels");
    absl::StatusOr<uint32_t> count = reader.ReadVbr32();
    if (!count.ok()) return false;
    for (uint32_t i = 0; i < *count; ++i) {
      absl::StatusOr<uint32_t> offset = reader.ReadVbr32();
      if (!offset.ok()) return false;
      std::optional<std::string> name = String(*offset);
      if (!name || name->empty()) return false;
      kernel_names_.push_back(*name);
    }
    return true;
  }

  std::optional<mlir::Type> TypeAt(ByteReader& reader) {
    absl::StatusOr<uint32_t> index = reader.ReadVbr32();
    if (!index.ok() || *index >= types_.size()) return std::nullopt;
    return types_[*index];
  }

  bool ReadFunctionIndex() {
    if (!Has(SectionId::kFunctionIndex)) return false;
    ByteReader reader(Body(SectionId::kFunctionIndex), 0, "FunctionIndex");
    absl::StatusOr<uint32_t> count = reader.ReadVbr32();
    if (!count.ok()) return false;
    for (uint32_t i = 0; i < *count; ++i) {
      FunctionEntry entry;
      absl::StatusOr<uint8_t> kind = reader.ReadByte();
      absl::StatusOr<uint32_t> offset = reader.ReadVbr32();
      absl::StatusOr<uint32_t> name = reader.ReadVbr32();
      if (!kind.ok() || !offset.ok() || !name.ok() ||
          *kind >= kNumFunctionKinds)
        return false;
      entry.kind = static_cast<FunctionKind>(*kind);
      entry.offset = *offset;
      std::optional<std::string> text = String(*name);
      if (!text) return false;
      entry.name = *text;
      for (int list = 0; list < 2; ++list) {
        absl::StatusOr<uint32_t> n = reader.ReadVbr32();
        if (!n.ok() || *n > reader.remaining()) return false;
        for (uint32_t j = 0; j < *n; ++j) {
          std::optional<mlir::Type> type = TypeAt(reader);
          if (!type) return false;
          (list == 0 ? entry.arguments : entry.results).push_back(*type);
        }
      }
      functions_.push_back(std::move(entry));
    }
    return true;
  }

  // RegisterTypes, per non-native function. (AttributeNames is one flat
  // stream that needs each kernel's attribute count; Build() reads it.)
  bool ReadOptionalTables() {
    ByteReader registers(Body(SectionId::kRegisterTypes), 0, "RegisterTypes");
    if (!registers.ReadVbr32().ok()) return false;
    register_types_.resize(functions_.size());
    for (size_t f = 0; f < functions_.size(); ++f) {
      if (functions_[f].kind == FunctionKind::kNativeFunction) continue;
      absl::StatusOr<uint32_t> regs = registers.ReadVbr32();
      if (!regs.ok() || *regs > registers.remaining()) return false;
      for (uint32_t r = 0; r < *regs; ++r) {
        std::optional<mlir::Type> type = TypeAt(registers);
        if (!type) return false;
        register_types_[f].push_back(*type);
      }
    }
    return true;
  }

  std::optional<FunctionBody> ReadFunction(const FunctionEntry& entry) {
    std::span<const uint8_t> functions = Body(SectionId::kFunctions);
    ByteReader reader(functions, 0, "Functions");
    auto fail = [&](const char* message) -> std::optional<FunctionBody> {
      mlir::emitError(file_location_, message);
      return std::nullopt;
    };
    if (!reader.Seek(entry.offset).ok()) return fail("Failed to read function location");
    FunctionBody body;
    absl::StatusOr<uint32_t> location = reader.ReadVbr32();
    if (!location.ok()) return fail("Failed to read function location");
    body.location = *location;
    absl::StatusOr<uint32_t> num_registers = reader.ReadVbr32();
    if (!num_registers.ok() || *num_registers > reader.remaining())
      return fail("Failed to read register table.");
    body.num_registers = *num_registers;
    for (uint32_t i = 0; i < *num_registers; ++i) {
      if (!reader.ReadVbr32().ok()) return fail("Failed to read register table.");
    }
    absl::StatusOr<uint32_t> num_kernels = reader.ReadVbr32();
    if (!num_kernels.ok() || *num_kernels == 0 ||
        *num_kernels > reader.remaining())
      return fail("Failed to read kernel table.");
    std::vector<uint32_t> kernel_offsets;
    for (uint32_t i = 0; i < *num_kernels; ++i) {
      absl::StatusOr<uint32_t> offset = reader.ReadVbr32();
      absl::StatusOr<uint32_t> operands = reader.ReadVbr32();
      absl::StatusOr<uint32_t> stream = reader.ReadVbr32();
      if (!offset.ok() || !operands.ok() || !stream.ok())
        return fail("Failed to read kernel table.");
      kernel_offsets.push_back(*offset);
    }
    for (size_t i = 0; i < entry.results.size(); ++i) {
      absl::StatusOr<uint32_t> reg = reader.ReadVbr32();
      if (!reg.ok()) return fail("Failed to read result regs.");
      if (*reg >= body.num_registers)
        return fail("Using an undefined register in return op.");
      body.result_registers.push_back(*reg);
    }
    while (reader.position() % 4 != 0) {
      if (!reader.ReadByte().ok()) return fail("Failed to read kernels.");
    }
    std::span<const uint8_t> list = reader.rest();
    auto word = [&](size_t index) -> std::optional<uint32_t> {
      if ((index + 1) * 4 > list.size()) return std::nullopt;
      uint32_t value;
      std::memcpy(&value, list.data() + index * 4, 4);
      return value;
    };
    for (uint32_t k = 0; k < *num_kernels; ++k) {
      if (kernel_offsets[k] % 4 != 0) return fail("Failed to read kernels.");
      size_t at = kernel_offsets[k] / 4;
      std::optional<uint32_t> header[6];
      for (int i = 0; i < 6; ++i) header[i] = word(at + i);
      for (auto& h : header) {
        if (!h) return fail(k == 0 ? "Failed to read pseudo." : "Failed to read kernels.");
      }
      if (k == 0) continue;
      KernelRecord kernel;
      kernel.code = *header[0];
      kernel.location = *header[1];
      if (kernel.code >= kernel_names_.size()) return fail("Failed to read kernels.");
      size_t cursor = at + 6 + *header[5];
      auto read_list = [&](uint32_t count, std::vector<uint32_t>& out) {
        if (count > list.size()) return false;
        for (uint32_t i = 0; i < count; ++i) {
          std::optional<uint32_t> value = word(cursor++);
          if (!value) return false;
          out.push_back(*value);
        }
        return true;
      };
      if (!read_list(*header[2], kernel.arguments) ||
          !read_list(*header[3], kernel.attributes) ||
          !read_list(*header[4], kernel.functions) ||
          !read_list(*header[5], kernel.results))
        return fail("Failed to read kernels.");
      for (uint32_t reg : kernel.arguments) {
        if (reg >= body.num_registers) return fail("Using undefined registers.");
      }
      for (uint32_t reg : kernel.results) {
        if (reg >= body.num_registers) return fail("Using undefined registers.");
      }
      for (uint32_t function : kernel.functions) {
        if (function >= functions_.size()) return fail("Unknown callee.");
      }
      body.kernels.push_back(std::move(kernel));
    }
    return body;
  }

  // ---------------------------------------------------------------------
  // Building the module
  // ---------------------------------------------------------------------

  mlir::Location LocationAt(uint32_t offset) {
    ByteReader reader(Body(SectionId::kLocations), 0, "Locations");
    if (!reader.Seek(offset).ok()) return mlir::UnknownLoc::get(context_);
    std::optional<mlir::Location> location = ReadLocation(reader, 0);
    return location ? *location : mlir::UnknownLoc::get(context_);
  }

  std::optional<mlir::Location> ReadLocation(ByteReader& reader, int depth) {
    if (depth > 64) return std::nullopt;
    absl::StatusOr<uint8_t> kind = reader.ReadByte();
    if (!kind.ok()) return std::nullopt;
    auto location_string = [&]() -> std::optional<std::string> {
      absl::StatusOr<uint32_t> offset = reader.ReadVbr32();
      if (!offset.ok()) return std::nullopt;
      absl::StatusOr<std::string_view> text =
          ReadPoolString(Body(SectionId::kLocationStrings), *offset);
      if (!text.ok()) return std::nullopt;
      return std::string(*text);
    };
    switch (static_cast<LocationKind>(*kind)) {
      case LocationKind::kUnknown:
        return mlir::UnknownLoc::get(context_);
      case LocationKind::kFileLineColumn: {
        std::optional<std::string> file = location_string();
        absl::StatusOr<uint32_t> line = reader.ReadVbr32();
        absl::StatusOr<uint32_t> column = reader.ReadVbr32();
        if (!file || !line.ok() || !column.ok()) return std::nullopt;
        return mlir::FileLineColLoc::get(context_, *file, *line, *column);
      }
      case LocationKind::kName: {
        std::optional<std::string> name = location_string();
        if (!name) return std::nullopt;
        std::optional<mlir::Location> child = ReadLocation(reader, depth + 1);
        if (!child) return std::nullopt;
        return mlir::NameLoc::get(mlir::StringAttr::get(context_, *name),
                                  *child);
      }
      case LocationKind::kCallSite: {
        std::optional<mlir::Location> callee = ReadLocation(reader, depth + 1);
        if (!callee) return std::nullopt;
        std::optional<mlir::Location> caller = ReadLocation(reader, depth + 1);
        if (!caller) return std::nullopt;
        return mlir::CallSiteLoc::get(*callee, *caller);
      }
      case LocationKind::kFused: {
        absl::StatusOr<uint32_t> count = reader.ReadVbr32();
        if (!count.ok() || *count > reader.remaining()) return std::nullopt;
        std::vector<mlir::Location> children;
        for (uint32_t i = 0; i < *count; ++i) {
          std::optional<mlir::Location> child = ReadLocation(reader, depth + 1);
          if (!child) return std::nullopt;
          children.push_back(*child);
        }
        // MLIR folds a fused location of one child into the child; BEF
        // has no metadata, so a unit metadata keeps such a location fused
        // (it came from `fused<...>[one]` and converts back the same).
        mlir::Attribute metadata;
        if (children.size() < 2) metadata = mlir::UnitAttr::get(context_);
        return mlir::FusedLoc::get(context_, children, metadata);
      }
    }
    return std::nullopt;
  }

  std::optional<mlir::Type> TypeOfDType(DType dtype) {
    switch (dtype) {
      case DType::kI1: return builder_.getI1Type();
      case DType::kI8: return builder_.getIntegerType(8);
      case DType::kI16: return builder_.getIntegerType(16);
      case DType::kI32: return builder_.getIntegerType(32);
      case DType::kI64: return builder_.getIntegerType(64);
      case DType::kUI8: return builder_.getIntegerType(8, false);
      case DType::kUI16: return builder_.getIntegerType(16, false);
      case DType::kUI32: return builder_.getIntegerType(32, false);
      case DType::kUI64: return builder_.getIntegerType(64, false);
      case DType::kF16: return builder_.getF16Type();
      case DType::kBF16: return builder_.getBF16Type();
      case DType::kF32: return builder_.getF32Type();
      case DType::kF64: return builder_.getF64Type();
      case DType::kComplex64:
        return mlir::ComplexType::get(builder_.getF32Type());
      case DType::kComplex128:
        return mlir::ComplexType::get(builder_.getF64Type());
      default:
        break;
    }
    static const std::pair<DType, const char*> kCoreRuntime[] = {
        {DType::kString, "string"}, {DType::kResource, "resource"},
        {DType::kVariant, "variant"}, {DType::kQUI8, "quint8"},
        {DType::kQUI16, "quint16"}, {DType::kQI8, "qint8"},
        {DType::kQI16, "qint16"},   {DType::kQI32, "qint32"},
    };
    for (const auto& [candidate, name] : kCoreRuntime) {
      if (candidate == dtype) {
        return mlir::OpaqueType::get(
            mlir::StringAttr::get(context_, "corert"), name);
      }
    }
    return std::nullopt;
  }

  std::optional<mlir::Attribute> ScalarAttribute(DType dtype, uint64_t bits) {
    std::optional<mlir::Type> type = TypeOfDType(dtype);
    if (!type) return std::nullopt;
    if (dtype == DType::kI1) return builder_.getBoolAttr(bits != 0);
    if (auto integer = llvm::dyn_cast<mlir::IntegerType>(*type)) {
      return builder_.getIntegerAttr(
          *type, llvm::APInt(integer.getWidth(), bits, false, true));
    }
    if (auto floating = llvm::dyn_cast<mlir::FloatType>(*type)) {
      llvm::APInt raw(floating.getWidth(), bits);
      return builder_.getFloatAttr(
          *type, llvm::APFloat(floating.getFloatSemantics(), raw));
    }
    return std::nullopt;
  }

  std::optional<mlir::Attribute> ConvertAttribute(const DecodedAttribute& a) {
    uint8_t type = a.type;
    if (type & kArrayAttributeTypeBit) {
      llvm::SmallVector<mlir::Attribute, 8> elements;
      uint8_t element = ArrayElementType(type);
      for (uint64_t value : a.values) {
        std::optional<mlir::Attribute> converted;
        if (element == static_cast<uint8_t>(AttributeType::kType)) {
          std::optional<mlir::Type> t = TypeOfDType(static_cast<DType>(value));
          if (t) converted = mlir::TypeAttr::get(*t);
        } else {
          converted = ScalarAttribute(a.dtype, value);
        }
        if (!converted) return std::nullopt;
        elements.push_back(*converted);
      }
      return builder_.getArrayAttr(elements);
    }
    switch (static_cast<AttributeType>(type)) {
      case AttributeType::kType: {
        std::optional<mlir::Type> t =
            TypeOfDType(static_cast<DType>(a.values.at(0)));
        if (!t) return std::nullopt;
        return mlir::TypeAttr::get(*t);
      }
      case AttributeType::kShape:
        if (!a.ranked) return corert::ShapeAttr::getUnranked(context_);
        return corert::ShapeAttr::get(context_, a.dims);
      case AttributeType::kDense:
        return ConvertDense(a);
      case AttributeType::kAggregate: {
        llvm::SmallVector<mlir::Attribute, 8> elements;
        for (const DecodedAttribute& element : a.elements) {
          std::optional<mlir::Attribute> converted = ConvertAttribute(element);
          if (!converted) return std::nullopt;
          elements.push_back(*converted);
        }
        return builder_.getArrayAttr(elements);
      }
      case AttributeType::kSymbolRef:
        return ConvertCompilationUnit(a);
      default:
        break;
    }
    if (type == static_cast<uint8_t>(DType::kString))
      return builder_.getStringAttr(llvm::StringRef(a.text.data(), a.text.size()));
    if (type >= 1 && type < static_cast<uint8_t>(DType::kUnsupported) &&
        !a.values.empty())
      return ScalarAttribute(a.dtype, a.values[0]);
    return std::nullopt;
  }

  std::optional<mlir::Attribute> ConvertDense(const DecodedAttribute& a) {
    std::optional<mlir::Type> element = TypeOfDType(a.dtype);
    if (!element) return std::nullopt;
    auto type = mlir::RankedTensorType::get(a.dims, *element);
    size_t count = static_cast<size_t>(type.getNumElements());
    if (a.dtype == DType::kI1) {
      llvm::SmallVector<bool, 16> values;
      for (size_t i = 0; i < count && i < a.data.size(); ++i)
        values.push_back(a.data[i] != 0);
      if (values.size() != count) return std::nullopt;
      return mlir::DenseElementsAttr::get(type, llvm::ArrayRef<bool>(values));
    }
    llvm::ArrayRef<char> raw(reinterpret_cast<const char*>(a.data.data()),
                             a.data.size());
    bool splat = false;
    if (!mlir::DenseElementsAttr::isValidRawBuffer(type, raw, splat))
      return std::nullopt;
    return mlir::DenseElementsAttr::getFromRawBuffer(type, raw);
  }

  std::optional<mlir::Attribute> ConvertCompilationUnit(
      const DecodedAttribute& a) {
    std::string root(a.text);
    if (!compiled_modules_.count(root)) {
      mlir::OwningOpRef<mlir::ModuleOp> unit =
          mlir::parseSourceString<mlir::ModuleOp>(
              llvm::StringRef(a.module_text.data(), a.module_text.size()),
              context_);
      if (!unit) {
        mlir::emitError(file_location_, "Failed to parse compilation unit.");
        return std::nullopt;
      }
      compiled_order_.push_back(root);
      compiled_modules_[root] = std::move(unit);
    }
    llvm::SmallVector<mlir::FlatSymbolRefAttr, 2> nested;
    for (std::string_view name : a.nested)
      nested.push_back(mlir::FlatSymbolRefAttr::get(
          context_, llvm::StringRef(name.data(), name.size())));
    return mlir::SymbolRefAttr::get(context_, root, nested);
  }

  std::optional<mlir::Attribute> AttributeAt(uint32_t offset) {
    auto type = attribute_types_.find(offset);
    if (type == attribute_types_.end()) return std::nullopt;
    absl::StatusOr<DecodedAttribute> decoded =
        DecodeAttribute(Body(SectionId::kAttributes), offset, type->second);
    if (!decoded.ok()) return std::nullopt;
    return ConvertAttribute(*decoded);
  }

  mlir::OwningOpRef<mlir::ModuleOp> Build() {
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::ModuleOp::create(file_location_);
    bool optional = Has(SectionId::kAttributeTypes) &&
                    Has(SectionId::kAttributeNames) &&
                    Has(SectionId::kRegisterTypes) && optional_tables_ok_;
    ByteReader names(Body(SectionId::kAttributeNames), 0, "AttributeNames");
    if (optional) {
      (void)names.ReadVbr32();
    }
    std::vector<std::unique_ptr<mlir::Region>> regions(functions_.size());
    std::vector<bool> attached(functions_.size(), false);
    // How deep each function's body nests regions (anonymous functions
    // become regions of the kernel that references them): MLIR prints and
    // destroys regions recursively, so the depth is bounded.
    std::vector<unsigned> region_depth(functions_.size(), 0);
    std::vector<mlir::Operation*> top_level;
    mlir::Type none = builder_.getNoneType();

    for (size_t f = 0; f < functions_.size(); ++f) {
      const FunctionEntry& entry = functions_[f];
      if (entry.kind == FunctionKind::kNativeFunction) continue;
      const FunctionBody& body = bodies_[f];
      mlir::Location function_location = LocationAt(body.location);
      auto region = std::make_unique<mlir::Region>();
      mlir::Block* block = new mlir::Block();
      region->push_back(block);
      std::vector<mlir::Value> values(body.num_registers);
      auto type_of = [&](uint32_t reg) -> mlir::Type {
        if (optional && reg < register_types_[f].size())
          return register_types_[f][reg];
        return none;
      };
      for (size_t i = 0; i < entry.arguments.size(); ++i) {
        mlir::Type type = optional ? type_of(static_cast<uint32_t>(i))
                                   : entry.arguments[i];
        if (i >= values.size()) {
          Error("Redefinition of registers");
          return nullptr;
        }
        values[i] = block->addArgument(type, function_location);
      }
      if (optional) {
        (void)names.ReadVbr32();  // this function's kernel count
      }
      mlir::OpBuilder builder(context_);
      builder.setInsertionPointToEnd(block);
      for (const KernelRecord& kernel : body.kernels) {
        mlir::OperationState state(LocationAt(kernel.location),
                                   kernel_names_[kernel.code]);
        for (uint32_t reg : kernel.arguments) {
          if (!values[reg]) {
            Error("Using undefined registers.");
            return nullptr;
          }
          state.operands.push_back(values[reg]);
        }
        for (size_t i = 0; i < kernel.attributes.size(); ++i) {
          std::string name = "attr" + std::to_string(i);
          mlir::Attribute value =
              builder_.getI32IntegerAttr(static_cast<int32_t>(kMissingAttributeValue));
          if (optional) {
            absl::StatusOr<uint32_t> name_offset = names.ReadVbr32();
            std::optional<std::string> text =
                name_offset.ok() ? String(*name_offset) : std::nullopt;
            if (text) name = *text;
            std::optional<mlir::Attribute> converted =
                AttributeAt(kernel.attributes[i]);
            if (!converted) {
              mlir::emitWarning(file_location_,
                                "Invalid Attributes/AttributeTypes section.");
            } else {
              value = *converted;
            }
          }
          state.addAttribute(name, value);
        }
        for (uint32_t index : kernel.functions) {
          if (index < functions_.size() && functions_[index].name.empty() &&
              region_depth[index] + 1 > region_depth[f]) {
            region_depth[f] = region_depth[index] + 1;
          }
        }
        if (region_depth[f] > options_.max_region_depth) {
          mlir::emitError(file_location_)
              << "BEF functions nest regions more than "
              << options_.max_region_depth << " levels deep";
          return nullptr;
        }
        if (!AddFunctions(kernel, state, regions, attached)) return nullptr;
        for (uint32_t reg : kernel.results) state.types.push_back(type_of(reg));
        mlir::Operation* op = builder.create(state);
        for (size_t i = 0; i < kernel.results.size(); ++i) {
          if (values[kernel.results[i]]) {
            Error("Redefinition of registers");
            return nullptr;
          }
          values[kernel.results[i]] = op->getResult(i);
        }
      }
      std::vector<mlir::Value> returned;
      for (uint32_t reg : body.result_registers) {
        if (!values[reg]) {
          Error("Using an undefined register in return op.");
          return nullptr;
        }
        returned.push_back(values[reg]);
      }
      tfrt::ReturnOp::create(builder, function_location, returned);
      regions[f] = std::move(region);
    }

    // Named functions become func.func ops, in function-index order.
    mlir::OpBuilder builder = mlir::OpBuilder::atBlockEnd(module->getBody());
    for (size_t f = 0; f < functions_.size(); ++f) {
      const FunctionEntry& entry = functions_[f];
      if (entry.name.empty()) continue;
      if (entry.kind == FunctionKind::kNativeFunction) {
        auto function = mlir::func::FuncOp::create(
            builder, file_location_, entry.name,
            builder.getFunctionType(entry.arguments, entry.results));
        function.setPrivate();
        function->setAttr("tfrt.native", builder.getUnitAttr());
        continue;
      }
      mlir::Region& region = *regions[f];
      mlir::Block& block = region.front();
      auto results = block.getTerminator()->getOperandTypes();
      llvm::SmallVector<mlir::Type, 4> inputs(block.getArgumentTypes());
      auto function = mlir::func::FuncOp::create(
          builder, LocationAt(bodies_[f].location), entry.name,
          builder.getFunctionType(inputs, llvm::to_vector(results)));
      function.getBody().takeBody(region);
      if (entry.kind == FunctionKind::kSyncBefFunction)
        function->setAttr("tfrt.sync", builder.getUnitAttr());
      attached[f] = true;
    }
    for (size_t f = 0; f < functions_.size(); ++f) {
      if (!attached[f] && functions_[f].kind != FunctionKind::kNativeFunction) {
        Error("Failed to resolve functions.");
        return nullptr;
      }
    }
    // Compilation units go first, in order of first reference.
    mlir::Block* top = module->getBody();
    for (auto it = compiled_order_.rbegin(); it != compiled_order_.rend(); ++it) {
      mlir::ModuleOp unit = compiled_modules_[*it].release();
      top->push_front(unit.getOperation());
    }
    return module;
  }

  // Function operands of a kernel: named functions become symbol
  // attributes, anonymous ones the op's regions.
  bool AddFunctions(const KernelRecord& kernel, mlir::OperationState& state,
                    std::vector<std::unique_ptr<mlir::Region>>& regions,
                    std::vector<bool>& attached) {
    llvm::SmallVector<mlir::Attribute, 4> symbols;
    for (uint32_t index : kernel.functions) {
      const FunctionEntry& callee = functions_[index];
      if (!callee.name.empty()) {
        symbols.push_back(mlir::FlatSymbolRefAttr::get(context_, callee.name));
        continue;
      }
      if (attached[index] || !regions[index]) {
        Error("Failed to resolve functions.");
        return false;
      }
      state.addRegion(std::move(regions[index]));
      attached[index] = true;
    }
    if (symbols.empty()) return true;
    std::optional<FunctionAttributes> registered =
        RegisteredFunctionAttributes(state.name.getStringRef());
    if (registered && !registered->names.empty()) {
      size_t n = registered->names.size();
      for (size_t i = 0; i < symbols.size() && i < n; ++i) {
        if (i + 1 == n && registered->last_is_array) {
          state.addAttribute(registered->names[i],
                             builder_.getArrayAttr(llvm::ArrayRef(symbols).drop_front(i)));
          return true;
        }
        state.addAttribute(registered->names[i], symbols[i]);
      }
      if (symbols.size() <= n) return true;
    }
    // Unknown ops: TFRT names every function `callee`; numbered names keep
    // several of them distinct and in order.
    size_t width = std::to_string(symbols.size() - 1).size();
    for (size_t i = 0; i < symbols.size(); ++i) {
      std::string name = "callee";
      if (i > 0) {
        std::string number = std::to_string(i);
        name += "_" + std::string(width - number.size(), '0') + number;
      }
      state.addAttribute(name, symbols[i]);
    }
    return true;
  }

  std::span<const uint8_t> image_;
  BefToMlirOptions options_;
  mlir::Location file_location_;
  mlir::MLIRContext* context_;
  mlir::Builder builder_;
  std::vector<uint64_t> storage_;
  std::span<const uint8_t> bytes_;
  std::optional<std::span<const uint8_t>> sections_[kNumSectionIds];
  std::vector<mlir::Type> types_;
  std::vector<std::string> kernel_names_;
  std::vector<FunctionEntry> functions_;
  std::vector<FunctionBody> bodies_;
  llvm::DenseMap<uint32_t, uint32_t> attribute_types_;
  std::vector<std::vector<mlir::Type>> register_types_;
  bool optional_tables_ok_ = true;
  std::map<std::string, mlir::OwningOpRef<mlir::ModuleOp>> compiled_modules_;
  std::vector<std::string> compiled_order_;
};

}  // namespace

mlir::OwningOpRef<mlir::ModuleOp> ConvertBefToMlir(
    std::span<const uint8_t> image, mlir::Location file_location,
    const BefToMlirOptions& options) {
  return Reader(image, file_location, options).Run();
}

}  // namespace bef::converter
