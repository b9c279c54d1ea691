#include "lib/converter/mlir_to_bef.h"

#include <complex>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "bef/format/attribute_writer.h"
#include "bef/format/bef_encoding.h"
#include "bef/format/bef_writer.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/OperationSupport.h"

#include "lib/converter/dialects.h"
#include "lib/converter/stream_analysis.h"

namespace bef::converter {
namespace {

constexpr llvm::StringLiteral kCostAttribute = "_tfrt_cost";
constexpr llvm::StringLiteral kCompiledAttribute = "tfrt.compiled";

std::string PrintType(mlir::Type type) {
  std::string name;
  llvm::raw_string_ostream os(name);
  type.print(os);
  return name;
}

bool IsInCompiledModule(mlir::Operation* op) {
  for (mlir::Operation* parent = op; parent != nullptr;
       parent = parent->getParentOp()) {
    if (llvm::isa<mlir::ModuleOp>(parent) &&
        parent->hasAttr(kCompiledAttribute))
      return true;
  }
  return false;
}

bool IsFunctionList(mlir::Attribute attribute) {
  auto array = llvm::dyn_cast<mlir::ArrayAttr>(attribute);
  return array && !array.empty() &&
         llvm::isa<mlir::FlatSymbolRefAttr>(array[0]);
}

// The DType of an MLIR type as BEF type attributes and dense elements name
// it; nullopt when BEF has none.
std::optional<DType> DTypeOf(mlir::Type type) {
  if (auto integer = llvm::dyn_cast<mlir::IntegerType>(type)) {
    bool is_unsigned = integer.isUnsigned();
    switch (integer.getWidth()) {
      case 1:
        return is_unsigned ? std::nullopt : std::optional(DType::kI1);
      case 8:
        return is_unsigned ? DType::kUI8 : DType::kI8;
      case 16:
        return is_unsigned ? DType::kUI16 : DType::kI16;
      case 32:
        return is_unsigned ? DType::kUI32 : DType::kI32;
      case 64:
        return is_unsigned ? DType::kUI64 : DType::kI64;
      default:
        return std::nullopt;
    }
  }
  if (type.isBF16()) return DType::kBF16;
  if (type.isF16()) return DType::kF16;
  if (type.isF32()) return DType::kF32;
  if (type.isF64()) return DType::kF64;
  if (auto complex = llvm::dyn_cast<mlir::ComplexType>(type)) {
    if (complex.getElementType().isF32()) return DType::kComplex64;
    if (complex.getElementType().isF64()) return DType::kComplex128;
    return std::nullopt;
  }
  if (auto opaque = llvm::dyn_cast<mlir::OpaqueType>(type)) {
    if (opaque.getDialectNamespace() != "corert") return std::nullopt;
    static const std::pair<llvm::StringRef, DType> kCoreRuntimeTypes[] = {
        {"string", DType::kString},   {"resource", DType::kResource},
        {"variant", DType::kVariant}, {"quint8", DType::kQUI8},
        {"quint16", DType::kQUI16},   {"qint8", DType::kQI8},
        {"qint16", DType::kQI16},     {"qint32", DType::kQI32},
    };
    for (const auto& [name, dtype] : kCoreRuntimeTypes) {
      if (opaque.getTypeData() == name) return dtype;
    }
  }
  return std::nullopt;
}

uint64_t FloatBits(const llvm::APFloat& value) {
  return value.bitcastToAPInt().getZExtValue();
}

void AppendLittleEndian(std::vector<uint8_t>& data, uint64_t bits,
                        size_t size) {
  for (size_t i = 0; i < size; ++i) data.push_back(uint8_t(bits >> (8 * i)));
}

// A `tfrt.compiled` module referenced by symbol-ref attributes, with the
// ids handed to distinct references.
struct CompilationUnits {
  absl::flat_hash_map<const void*, uint32_t> ids;  // SymbolRefAttr -> id
  absl::flat_hash_map<std::string, std::string> module_texts;
};

class Converter {
 public:
  Converter(mlir::ModuleOp module, const MlirToBefOptions& options)
      : module_(module),
        options_(options),
        writer_(BefWriter::Options{options.emit_optional_sections}) {}

  // Converts the module into the writer; then Write it.
  mlir::LogicalResult Build() {
    if (mlir::failed(Collect())) return mlir::failure();
    if (mlir::failed(AddFunctions())) return mlir::failure();
    for (size_t i = 0; i < functions_.size(); ++i) {
      if (functions_[i].region == nullptr) continue;
      if (mlir::failed(EmitFunction(functions_[i], *bodies_[i])))
        return mlir::failure();
    }
    return mlir::success();
  }

  mlir::LogicalResult Write(
      absl::FunctionRef<void(std::span<const uint8_t>)> sink) {
    absl::Status status = writer_.Write(sink);
    if (!status.ok()) {
      module_.emitError() << "internal error writing BEF: "
                          << std::string(status.message());
      return mlir::failure();
    }
    return mlir::success();
  }

 private:
  struct FunctionRecord {
    FunctionKind kind = FunctionKind::kBefFunction;
    std::string name;
    mlir::Region* region = nullptr;    // null for native functions
    mlir::Operation* owner = nullptr;  // func.func or the region's op
  };

  // ---------------------------------------------------------------------
  // Pass 1: functions, kernel names, types and attributes in walk order.
  // ---------------------------------------------------------------------

  mlir::LogicalResult Collect() {
    mlir::WalkResult walk = module_.walk([&](mlir::Operation* op) {
      if (op == module_.getOperation() || IsInCompiledModule(op) ||
          llvm::isa<mlir::ModuleOp>(op) || llvm::isa<tfrt::ReturnOp>(op))
        return mlir::WalkResult::advance();
      if (auto function = llvm::dyn_cast<mlir::func::FuncOp>(op))
        return mlir::WalkResult(CollectFunction(function));
      return mlir::WalkResult(CollectKernel(op));
    });
    return mlir::failure(walk.wasInterrupted());
  }

  mlir::LogicalResult CollectFunction(mlir::func::FuncOp function) {
    if (function.isExternal()) {
      if (!function->hasAttr("tfrt.native"))
        return function.emitError("external functions are not allowed");
      mlir::FunctionType type = function.getFunctionType();
      for (mlir::Type input : type.getInputs()) RegisterType(input);
      for (mlir::Type result : type.getResults()) RegisterType(result);
      functions_.push_back({FunctionKind::kNativeFunction,
                            function.getName().str(), nullptr, function});
      return mlir::success();
    }
    if (mlir::failed(CheckRegion(function.getBody(), function)))
      return mlir::failure();
    for (mlir::BlockArgument argument : function.getArguments())
      RegisterType(argument.getType());
    FunctionKind kind = function->hasAttr("tfrt.sync")
                            ? FunctionKind::kSyncBefFunction
                            : FunctionKind::kBefFunction;
    functions_.push_back(
        {kind, function.getName().str(), &function.getBody(), function});
    return mlir::success();
  }

  // A body must be one block ending in tfrt.return.
  mlir::LogicalResult CheckRegion(mlir::Region& region,
                                  mlir::Operation* owner) {
    if (region.empty() || region.front().empty()) {
      return owner->emitError("all functions need to have a tfrt.return");
    }
    mlir::Operation& last = region.front().back();
    if (!llvm::isa<tfrt::ReturnOp>(last))
      return last.emitError("all functions need to have a tfrt.return");
    if (!region.hasOneBlock()) {
      mlir::emitError(owner->getLoc())
          << "multi-block regions cannot be emitted to BEF files";
      return mlir::failure();
    }
    return mlir::success();
  }

  mlir::LogicalResult CollectKernel(mlir::Operation* op) {
    KernelCode(op);
    for (mlir::Type type : op->getResultTypes()) RegisterType(type);
    for (mlir::NamedAttribute named : op->getAttrDictionary()) {
      if (named.getName() == kCostAttribute) continue;
      mlir::Attribute value = named.getValue();
      if (llvm::isa<mlir::FlatSymbolRefAttr>(value)) continue;
      if (IsFunctionList(value)) {
        if (options_.emit_optional_sections)
          writer_.AddString(named.getName().getValue());
        continue;
      }
      if (!attribute_offsets_.count(value)) {
        std::optional<BefAttribute> attribute = ConvertAttribute(value);
        if (!attribute) {
          return op->emitError() << "BEF files cannot encode the '"
                                 << named.getName().getValue()
                                 << "' attribute";
        }
        attribute_offsets_[value] = writer_.AddAttribute(*attribute);
      }
      if (options_.emit_optional_sections) RegisterAttributeTypes(value);
    }
    for (mlir::Region& region : op->getRegions()) {
      if (mlir::failed(CheckRegion(region, op))) return mlir::failure();
      for (mlir::BlockArgument argument : region.getArguments())
        RegisterType(argument.getType());
      functions_.push_back({FunctionKind::kBefFunction, "", &region, op});
    }
    return mlir::success();
  }

  void RegisterType(mlir::Type type) { TypeIndex(type); }

  // The writer's index of `type`, printed and looked up once per type.
  uint32_t TypeIndex(mlir::Type type) {
    auto [it, inserted] = type_indices_.try_emplace(type, 0);
    if (inserted) it->second = writer_.TypeIndex(TypeName(type));
    return it->second;
  }

  // The writer's code of `op`'s kernel name, looked up once per name.
  uint32_t KernelCode(mlir::Operation* op) {
    auto [it, inserted] =
        kernel_codes_.try_emplace(op->getName().getAsOpaquePointer(), 0);
    if (inserted) it->second = writer_.KernelCode(op->getName().getStringRef());
    return it->second;
  }

  // Printing a type is costly (it sets up an AsmState); programs use few.
  const std::string& TypeName(mlir::Type type) {
    auto [it, inserted] = type_names_.try_emplace(type);
    if (inserted) it->second = PrintType(type);
    return it->second;
  }

  // Integer and float attribute values name their types in the Types
  // section (for bef-to-mlir), recursing into arrays.
  void RegisterAttributeTypes(mlir::Attribute value) {
    if (auto integer = llvm::dyn_cast<mlir::IntegerAttr>(value)) {
      RegisterType(integer.getType());
    } else if (auto floating = llvm::dyn_cast<mlir::FloatAttr>(value)) {
      RegisterType(floating.getType());
    } else if (auto array = llvm::dyn_cast<mlir::ArrayAttr>(value)) {
      for (mlir::Attribute element : array) RegisterAttributeTypes(element);
    }
  }

  // ---------------------------------------------------------------------
  // Attributes
  // ---------------------------------------------------------------------

  std::optional<BefAttribute> ConvertAttribute(mlir::Attribute value) {
    if (auto integer = llvm::dyn_cast<mlir::IntegerAttr>(value)) {
      std::optional<DType> dtype = DTypeOf(integer.getType());
      if (!dtype) return std::nullopt;
      return BefAttribute::Scalar(*dtype,
                                  integer.getValue().getZExtValue());
    }
    if (auto floating = llvm::dyn_cast<mlir::FloatAttr>(value)) {
      std::optional<DType> dtype = DTypeOf(floating.getType());
      if (!dtype || *dtype == DType::kComplex64 ||
          *dtype == DType::kComplex128)
        return std::nullopt;
      return BefAttribute::Scalar(*dtype, FloatBits(floating.getValue()));
    }
    if (auto string = llvm::dyn_cast<mlir::StringAttr>(value)) {
      return BefAttribute::String(string.getValue().str());
    }
    if (auto type = llvm::dyn_cast<mlir::TypeAttr>(value)) {
      std::optional<DType> dtype = DTypeOf(type.getValue());
      if (!dtype) return std::nullopt;
      return BefAttribute::Type(*dtype);
    }
    if (auto shape = llvm::dyn_cast<corert::ShapeAttr>(value)) {
      if (!shape.hasRank()) return BefAttribute::UnrankedShape();
      return BefAttribute::Shape(std::vector<int64_t>(
          shape.getShape().begin(), shape.getShape().end()));
    }
    if (auto dense = llvm::dyn_cast<mlir::DenseIntOrFPElementsAttr>(value)) {
      return ConvertDense(dense);
    }
    if (auto array = llvm::dyn_cast<mlir::ArrayAttr>(value)) {
      return ConvertArray(array);
    }
    if (auto symbol = llvm::dyn_cast<mlir::SymbolRefAttr>(value)) {
      return ConvertCompilationUnit(symbol);
    }
    return std::nullopt;
  }

  std::optional<BefAttribute> ConvertDense(
      mlir::DenseIntOrFPElementsAttr dense) {
    mlir::ShapedType shaped = dense.getType();
    mlir::Type element_type = shaped.getElementType();
    std::optional<DType> dtype = DTypeOf(element_type);
    if (!dtype || *dtype == DType::kString || DTypeSize(*dtype) == 0)
      return std::nullopt;
    std::vector<uint8_t> data;
    size_t count = static_cast<size_t>(shaped.getNumElements());
    size_t size = DTypeSize(*dtype);
    data.reserve(count * size);
    if (auto complex = llvm::dyn_cast<mlir::ComplexType>(element_type)) {
      size_t part = size / 2;
      if (llvm::isa<mlir::FloatType>(complex.getElementType())) {
        for (std::complex<llvm::APFloat> element :
             dense.getValues<std::complex<llvm::APFloat>>()) {
          AppendLittleEndian(data, FloatBits(element.real()), part);
          AppendLittleEndian(data, FloatBits(element.imag()), part);
        }
      } else {
        return std::nullopt;
      }
    } else if (llvm::isa<mlir::FloatType>(element_type)) {
      for (llvm::APFloat element : dense.getValues<llvm::APFloat>())
        AppendLittleEndian(data, FloatBits(element), size);
    } else {
      for (llvm::APInt element : dense.getValues<llvm::APInt>())
        AppendLittleEndian(data, element.getZExtValue(), size);
    }
    std::vector<int64_t> shape(shaped.getShape().begin(),
                               shaped.getShape().end());
    return BefAttribute::Dense(*dtype, std::move(shape), std::move(data));
  }

  std::optional<BefAttribute> ConvertArray(mlir::ArrayAttr array) {
    if (array.empty()) return BefAttribute::EmptyArray();
    std::vector<BefAttribute> elements;
    for (mlir::Attribute element : array) {
      std::optional<BefAttribute> converted = ConvertAttribute(element);
      if (!converted) return std::nullopt;
      elements.push_back(std::move(*converted));
    }
    // Homogeneous arrays of one fixed-size scalar type, or of types.
    const BefAttribute& first = elements.front();
    bool fixed = (first.kind() == BefAttribute::Kind::kScalar &&
                  first.dtype() != DType::kString) ||
                 first.kind() == BefAttribute::Kind::kType;
    bool homogeneous =
        fixed && llvm::all_of(elements, [&](const BefAttribute& element) {
          return element.kind() == first.kind() &&
                 (first.kind() == BefAttribute::Kind::kType ||
                  element.dtype() == first.dtype());
        });
    if (!homogeneous) return BefAttribute::Aggregate(std::move(elements));
    if (first.kind() == BefAttribute::Kind::kType) {
      std::vector<DType> types;
      for (const BefAttribute& element : elements)
        types.push_back(static_cast<DType>(element.values().front()));
      return BefAttribute::TypeArray(types);
    }
    std::vector<uint64_t> values;
    for (const BefAttribute& element : elements)
      values.push_back(element.values().front());
    return BefAttribute::Array(first.dtype(), std::move(values));
  }

  // A reference into a `tfrt.compiled` module.
  std::optional<BefAttribute> ConvertCompilationUnit(
      mlir::SymbolRefAttr symbol) {
    if (llvm::isa<mlir::FlatSymbolRefAttr>(symbol)) return std::nullopt;
    auto unit = llvm::dyn_cast_or_null<mlir::ModuleOp>(
        mlir::SymbolTable::lookupSymbolIn(module_, symbol.getRootReference()));
    if (!unit || !unit->hasAttr(kCompiledAttribute)) return std::nullopt;
    auto [it, inserted] = compilation_units_.ids.try_emplace(
        symbol.getAsOpaquePointer(),
        static_cast<uint32_t>(compilation_units_.ids.size()));
    std::string root = symbol.getRootReference().getValue().str();
    auto text = compilation_units_.module_texts.find(root);
    if (text == compilation_units_.module_texts.end()) {
      std::string module_text;
      llvm::raw_string_ostream os(module_text);
      unit->print(os, mlir::OpPrintingFlags().printGenericOpForm());
      text = compilation_units_.module_texts.emplace(root, module_text).first;
    }
    std::vector<std::string> nested;
    for (mlir::FlatSymbolRefAttr reference : symbol.getNestedReferences())
      nested.push_back(reference.getValue().str());
    return BefAttribute::SymbolRef(it->second, root, std::move(nested),
                                   text->second);
  }

  // ---------------------------------------------------------------------
  // Pass 2: the function table and bodies.
  // ---------------------------------------------------------------------

  mlir::LogicalResult AddFunctions() {
    bodies_.resize(functions_.size(), nullptr);
    for (size_t i = 0; i < functions_.size(); ++i) {
      FunctionRecord& record = functions_[i];
      if (!record.name.empty()) {
        function_indices_.try_emplace(record.name, static_cast<uint32_t>(i));
      } else {
        region_indices_[record.region] = static_cast<uint32_t>(i);
      }
      if (record.region == nullptr) {
        auto function = llvm::cast<mlir::func::FuncOp>(record.owner);
        std::vector<std::string> inputs, results;
        for (mlir::Type type : function.getFunctionType().getInputs())
          inputs.push_back(TypeName(type));
        for (mlir::Type type : function.getFunctionType().getResults())
          results.push_back(TypeName(type));
        writer_.AddNativeFunction(record.name, inputs, results);
        continue;
      }
      mlir::Block& block = record.region->front();
      std::vector<std::string> inputs, results;
      for (mlir::BlockArgument argument : block.getArguments())
        inputs.push_back(TypeName(argument.getType()));
      for (mlir::Type type : block.getTerminator()->getOperandTypes())
        results.push_back(TypeName(type));
      bodies_[i] = &writer_.AddFunction(record.kind, record.name, inputs,
                                        results);
    }
    return mlir::success();
  }

  mlir::LogicalResult EmitFunction(const FunctionRecord& record,
                                   BefWriter::Function& function) {
    mlir::Block& block = record.region->front();
    function.set_location(ConvertLocation(record.owner->getLoc()));

    // The streams first: the analysis's working memory is free again before
    // the body's tables grow.
    StreamAnalysis streams(block, StreamAnalysis::OptionsFor(block));

    // The body's sizes, so that no table regrows.
    size_t num_kernels = 0, num_operands = 0, num_results = 0;
    for (mlir::Operation& op : block.without_terminator()) {
      ++num_kernels;
      num_operands += op.getNumOperands();
      num_results += op.getNumResults();
    }
    function.Reserve(num_operands, num_results);
    // The register of a value is its op's first register plus its result
    // number; ops are found by their position in the block.
    std::vector<uint32_t> first_registers;
    first_registers.reserve(num_kernels);

    auto register_of = [&](mlir::Operation* op, size_t position,
                           mlir::Value value) -> mlir::FailureOr<uint32_t> {
      if (auto argument = llvm::dyn_cast<mlir::BlockArgument>(value)) {
        if (argument.getOwner() == &block)
          return function.argument(argument.getArgNumber());
      } else {
        int defined_at = streams.PositionOf(value.getDefiningOp());
        if (defined_at >= 0 && static_cast<size_t>(defined_at) < position) {
          return first_registers[defined_at] +
                 llvm::cast<mlir::OpResult>(value).getResultNumber();
        }
      }
      EmitErrorInBody(op,
                      "BEF executor only supports references to kernels "
                      "within the current region");
      return mlir::failure();
    };

    size_t position = 0;
    for (mlir::Operation& op : block.without_terminator()) {
      BefWriter::Kernel& kernel = function.AddKernelOfCode(
          KernelCode(&op), ConvertLocation(op.getLoc()));
      kernel.set_stream(streams.StreamAt(position));
      for (mlir::Value operand : op.getOperands()) {
        mlir::FailureOr<uint32_t> index = register_of(&op, position, operand);
        if (mlir::failed(index)) return mlir::failure();
        kernel.AddArgument(*index);
      }
      if (mlir::failed(EmitAttributesAndFunctions(op, kernel)))
        return mlir::failure();
      first_registers.push_back(function.num_registers());
      for (mlir::Value result : op.getResults())
        kernel.AddResultOfType(TypeIndex(result.getType()));
      ++position;
    }

    mlir::Operation* terminator = block.getTerminator();
    std::vector<uint32_t> results;
    for (auto [index, operand] : llvm::enumerate(terminator->getOperands())) {
      mlir::FailureOr<uint32_t> reg = register_of(terminator, position, operand);
      if (mlir::failed(reg)) return mlir::failure();
      if (record.kind == FunctionKind::kSyncBefFunction) {
        if (llvm::isa<mlir::BlockArgument>(operand)) {
          EmitErrorInBody(terminator, "return value " + std::to_string(index) +
                                          " is an argument in a sync function");
          return mlir::failure();
        }
        if (llvm::is_contained(results, *reg)) {
          EmitErrorInBody(terminator, "return value " + std::to_string(index) +
                                          " is duplicated in a sync function");
          return mlir::failure();
        }
      }
      results.push_back(*reg);
    }
    function.Return(std::move(results));

    if (options_.stream_analysis_log) {
      options_.stream_analysis_log(
          "StreamAnalysis: max_cost for function " +
          (record.name.empty() ? std::string("unknown") : record.name) +
          " is " + std::to_string(streams.max_cost()));
    }
    function.set_root_stream(streams.root_stream());
    return mlir::success();
  }

  // An error found while emitting a body. TFRT reports these after it has
  // taken the body apart, so its "see current operation" note prints the op
  // on its own (operands defined elsewhere as <<UNKNOWN SSA VALUE>>); the
  // note is reproduced that way.
  static void EmitErrorInBody(mlir::Operation* op, const std::string& message) {
    mlir::InFlightDiagnostic diagnostic = mlir::emitError(op->getLoc(), message);
    if (!op->getContext()->shouldPrintOpOnDiagnostic()) return;
    std::string text;
    llvm::raw_string_ostream os(text);
    mlir::OpPrintingFlags flags;
    flags.printGenericOpForm();
    mlir::AsmState state(op, flags);
    op->print(os, state);
    diagnostic.attachNote(op->getLoc()) << "see current operation: " << text;
  }

  mlir::LogicalResult EmitAttributesAndFunctions(mlir::Operation& op,
                                                 BefWriter::Kernel& kernel) {
    std::vector<uint32_t> function_indices;
    auto add_function = [&](mlir::FlatSymbolRefAttr symbol) {
      auto it = function_indices_.find(symbol.getValue().str());
      if (it == function_indices_.end()) {
        mlir::emitError(op.getLoc())
            << "function @" << symbol.getValue() << " not defined";
        return false;
      }
      function_indices.push_back(it->second);
      return true;
    };
    for (mlir::NamedAttribute named : op.getAttrDictionary()) {
      if (named.getName() == kCostAttribute) continue;
      mlir::Attribute value = named.getValue();
      if (auto symbol = llvm::dyn_cast<mlir::FlatSymbolRefAttr>(value)) {
        if (!add_function(symbol)) return mlir::failure();
        continue;
      }
      if (IsFunctionList(value)) {
        for (mlir::Attribute element : llvm::cast<mlir::ArrayAttr>(value)) {
          auto symbol = llvm::dyn_cast<mlir::FlatSymbolRefAttr>(element);
          if (!symbol || !add_function(symbol)) return mlir::failure();
        }
        continue;
      }
      // Every attribute was converted and added while collecting.
      kernel.AddAttributeOffset(attribute_offsets_.at(value),
                                named.getName().getValue());
    }
    for (mlir::Region& region : op.getRegions())
      function_indices.push_back(region_indices_.at(&region));
    for (uint32_t index : function_indices) kernel.AddFunction(index);
    return mlir::success();
  }

  // ---------------------------------------------------------------------
  // Locations
  // ---------------------------------------------------------------------

  BefWriter::LocationId ConvertLocation(mlir::Location location) {
    if (auto file = llvm::dyn_cast<mlir::FileLineColRange>(location)) {
      return writer_.FileLineColumnLocation(LocationText(file.getFilename()),
                                            file.getStartLine(),
                                            file.getStartColumn());
    }
    if (auto name = llvm::dyn_cast<mlir::NameLoc>(location)) {
      return writer_.NameLocation(LocationText(name.getName()),
                                  ConvertLocation(name.getChildLoc()));
    }
    if (auto call = llvm::dyn_cast<mlir::CallSiteLoc>(location)) {
      BefWriter::LocationId callee = ConvertLocation(call.getCallee());
      return writer_.CallSiteLocation(callee, ConvertLocation(call.getCaller()));
    }
    if (auto fused = llvm::dyn_cast<mlir::FusedLoc>(location)) {
      std::vector<BefWriter::LocationId> children;
      for (mlir::Location child : fused.getLocations())
        children.push_back(ConvertLocation(child));
      return writer_.FusedLocation(children);
    }
    if (llvm::isa<mlir::UnknownLoc>(location))
      return BefWriter::kUnknownLocation;
    return writer_.UnencodableLocation();
  }

  // The writer's index of a location text, looked up once per text.
  uint32_t LocationText(mlir::StringAttr text) {
    auto [it, inserted] = location_texts_.try_emplace(text, 0);
    if (inserted) it->second = writer_.LocationText(text.getValue());
    return it->second;
  }

  mlir::ModuleOp module_;
  const MlirToBefOptions& options_;
  BefWriter writer_;
  std::vector<FunctionRecord> functions_;
  std::vector<BefWriter::Function*> bodies_;
  absl::flat_hash_map<std::string, uint32_t> function_indices_;
  llvm::DenseMap<mlir::Region*, uint32_t> region_indices_;
  llvm::DenseMap<mlir::Type, std::string> type_names_;
  llvm::DenseMap<mlir::Type, uint32_t> type_indices_;
  llvm::DenseMap<const void*, uint32_t> kernel_codes_;  // by OperationName
  llvm::DenseMap<mlir::StringAttr, uint32_t> location_texts_;
  llvm::DenseMap<mlir::Attribute, uint32_t> attribute_offsets_;
  CompilationUnits compilation_units_;
};

}  // namespace

mlir::FailureOr<std::vector<uint8_t>> ConvertMlirToBef(
    mlir::ModuleOp module, const MlirToBefOptions& options) {
  Converter converter(module, options);
  if (mlir::failed(converter.Build())) return mlir::failure();
  std::vector<uint8_t> bytes;
  if (mlir::failed(converter.Write([&bytes](std::span<const uint8_t> piece) {
        bytes.insert(bytes.end(), piece.begin(), piece.end());
      })))
    return mlir::failure();
  return bytes;
}

mlir::LogicalResult ConvertMlirToBef(mlir::ModuleOp module,
                                     const MlirToBefOptions& options,
                                     llvm::raw_ostream& os) {
  Converter converter(module, options);
  if (mlir::failed(converter.Build())) return mlir::failure();
  return converter.Write([&os](std::span<const uint8_t> piece) {
    os.write(reinterpret_cast<const char*>(piece.data()), piece.size());
  });
}

}  // namespace bef::converter
