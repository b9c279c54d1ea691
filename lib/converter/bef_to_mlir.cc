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
#include "bef/format/bef_records.h"
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

struct DecodedKernel {
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
  std::vector<DecodedKernel> kernels;  // without the pseudo kernel
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
    absl::StatusOr<std::vector<VbrEntry>> offsets = ReadVbrTable(reader, "types");
    if (!offsets.ok()) return false;
    for (const VbrEntry& offset : *offsets) {
      std::optional<std::string> name = String(offset.value);
      if (!name) return false;
      mlir::Type type = mlir::parseType(*name, context_);
      if (!type) return false;
      types_.push_back(type);
    }
    return true;
  }

  bool ReadAttributeTypes() {
    ByteReader reader(Body(SectionId::kAttributeTypes), 0, "AttributeTypes");
    absl::StatusOr<std::vector<AttributeTypeEntry>> entries = ReadAttributeTypeTable(reader);
    if (!entries.ok()) return false;
    for (const AttributeTypeEntry& entry : *entries) attribute_types_[entry.offset] = entry.type;
    return true;
  }

  bool ReadKernels() {
    if (!Has(SectionId::kKernels)) return false;
    ByteReader reader(Body(SectionId::kKernels), 0, "Kernels");
    absl::StatusOr<std::vector<VbrEntry>> offsets = ReadVbrTable(reader, "kernels");
    if (!offsets.ok()) return false;
    for (const VbrEntry& offset : *offsets) {
      std::optional<std::string> name = String(offset.value);
      if (!name || name->empty()) return false;
      kernel_names_.push_back(*name);
    }
    return true;
  }

  bool ReadFunctionIndex() {
    if (!Has(SectionId::kFunctionIndex)) return false;
    ByteReader reader(Body(SectionId::kFunctionIndex), 0, "FunctionIndex");
    absl::StatusOr<uint32_t> count = ReadTableCount(reader, "functions");
    if (!count.ok()) return false;
    for (uint32_t i = 0; i < *count; ++i) {
      FunctionEntry entry;
      absl::StatusOr<FunctionIndexRecord> record = ReadFunctionIndexRecord(reader);
      if (!record.ok() || record->kind >= kNumFunctionKinds) return false;
      entry.kind = static_cast<FunctionKind>(record->kind);
      entry.offset = record->record_offset;
      std::optional<std::string> text = String(record->name_offset);
      if (!text) return false;
      entry.name = *text;
      for (int list = 0; list < 2; ++list) {
        for (uint32_t index : list == 0 ? record->argument_types : record->result_types) {
          if (index >= types_.size()) return false;
          (list == 0 ? entry.arguments : entry.results).push_back(types_[index]);
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
    if (!ReadPerFunctionTableCount(registers).ok()) return false;
    register_types_.resize(functions_.size());
    for (size_t f = 0; f < functions_.size(); ++f) {
      if (functions_[f].kind == FunctionKind::kNativeFunction) continue;
      absl::StatusOr<std::vector<VbrEntry>> types = ReadVbrTable(registers, "register types");
      if (!types.ok()) return false;
      for (const VbrEntry& type : *types) {
        if (type.value >= types_.size()) return false;
        register_types_[f].push_back(types_[type.value]);
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
    FunctionRecordPart failed;
    absl::StatusOr<FunctionRecordHead> head =
        ReadFunctionRecordHead(reader, entry.results.size(), &failed);
    if (!head.ok()) {
      switch (failed) {
        case FunctionRecordPart::kLocation:
          return fail("Failed to read function location");
        case FunctionRecordPart::kRegisterCount:
        case FunctionRecordPart::kRegisterUses:
          return fail("Failed to read register table.");
        case FunctionRecordPart::kKernelCount:
        case FunctionRecordPart::kKernelTable:
          return fail("Failed to read kernel table.");
        case FunctionRecordPart::kResultRegisters:
          return fail("Failed to read result regs.");
        case FunctionRecordPart::kKernelList:
          return fail("Failed to read kernels.");
      }
    }
    FunctionBody body;
    body.location = head->location;
    body.num_registers = static_cast<uint32_t>(head->register_uses.size());
    for (uint32_t reg : head->result_registers) {
      if (reg >= body.num_registers) return fail("Using an undefined register in return op.");
      body.result_registers.push_back(reg);
    }
    // The kernel list as aligned words (the image itself may sit at any
    // address).
    std::span<const uint8_t> bytes = reader.rest();
    std::vector<uint32_t> list(bytes.size() / 4);
    if (!list.empty()) std::memcpy(list.data(), bytes.data(), list.size() * 4);
    for (size_t k = 0; k < head->kernels.size(); ++k) {
      const uint32_t offset = head->kernels[k].offset;
      if (offset % 4 != 0) return fail("Failed to read kernels.");
      const size_t at = offset / 4;
      // Lenient as TFRT's converter: the used-by lists are not read.
      KernelRecordFit fit = FitKernelRecord(list.data(), list.size(), at);
      if (fit == KernelRecordFit::kHeaderPastEnd) {
        return fail(k == 0 ? "Failed to read pseudo." : "Failed to read kernels.");
      }
      if (k == 0) continue;
      if (fit == KernelRecordFit::kFieldsPastEnd) return fail("Failed to read kernels.");
      const KernelRecord record{list.data() + at};
      DecodedKernel kernel;
      kernel.code = record.code();
      kernel.location = record.location();
      if (kernel.code >= kernel_names_.size()) return fail("Failed to read kernels.");
      kernel.arguments.assign(record.arguments().begin(), record.arguments().end());
      kernel.attributes.assign(record.attributes().begin(), record.attributes().end());
      kernel.functions.assign(record.functions().begin(), record.functions().end());
      kernel.results.assign(record.results().begin(), record.results().end());
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
    std::optional<mlir::Location> location = ReadLocation(reader, 64);
    return location ? *location : mlir::UnknownLoc::get(context_);
  }

  std::optional<mlir::Location> ReadLocation(ByteReader& reader, int max_depth) {
    std::optional<LocationRecord> record =
        ReadLocationRecord(reader, Body(SectionId::kLocationStrings), max_depth);
    if (!record) return std::nullopt;
    return ToMlirLocation(*record);
  }

  mlir::Location ToMlirLocation(const LocationRecord& record) {
    switch (record.kind) {
      case LocationKind::kUnknown:
        break;
      case LocationKind::kFileLineColumn:
        return mlir::FileLineColLoc::get(context_, std::string(record.text), record.line,
                                         record.column);
      case LocationKind::kName:
        return mlir::NameLoc::get(mlir::StringAttr::get(context_, std::string(record.text)),
                                  ToMlirLocation(record.children[0]));
      case LocationKind::kCallSite:
        return mlir::CallSiteLoc::get(ToMlirLocation(record.children[0]),
                                      ToMlirLocation(record.children[1]));
      case LocationKind::kFused: {
        std::vector<mlir::Location> children;
        for (const LocationRecord& child : record.children) {
          children.push_back(ToMlirLocation(child));
        }
        // MLIR folds a fused location of one child into the child; BEF
        // has no metadata, so a unit metadata keeps such a location fused
        // (it came from `fused<...>[one]` and converts back the same).
        mlir::Attribute metadata;
        if (children.size() < 2) metadata = mlir::UnitAttr::get(context_);
        return mlir::FusedLoc::get(context_, children, metadata);
      }
    }
    return mlir::UnknownLoc::get(context_);
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
    AttributeNamesReader names(ByteReader(Body(SectionId::kAttributeNames), 0, "AttributeNames"));
    if (optional) {
      (void)names.ReadFunctionCount();
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
        (void)names.ReadKernelCount();
      }
      mlir::OpBuilder builder(context_);
      builder.setInsertionPointToEnd(block);
      for (const DecodedKernel& kernel : body.kernels) {
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
            absl::StatusOr<uint32_t> name_offset = names.ReadName();
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
  bool AddFunctions(const DecodedKernel& kernel, mlir::OperationState& state,
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
