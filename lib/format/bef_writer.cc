#include "bef/format/bef_writer.h"

#include <algorithm>
#include <map>
#include <span>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "bef/format/byte_writer.h"

namespace bef {
namespace {

uint32_t Uint32(size_t value) { return static_cast<uint32_t>(value); }

}  // namespace

// ---------------------------------------------------------------------------
// BefLocation

BefLocation BefLocation::FileLineColumn(std::string file, uint32_t line,
                                        uint32_t column) {
  BefLocation location;
  location.kind = Kind::kFileLineColumn;
  location.text = std::move(file);
  location.line = line;
  location.column = column;
  return location;
}

BefLocation BefLocation::Name(std::string name, BefLocation child) {
  BefLocation location;
  location.kind = Kind::kName;
  location.text = std::move(name);
  location.children.push_back(std::move(child));
  return location;
}

BefLocation BefLocation::CallSite(BefLocation callee, BefLocation caller) {
  BefLocation location;
  location.kind = Kind::kCallSite;
  location.children.push_back(std::move(callee));
  location.children.push_back(std::move(caller));
  return location;
}

BefLocation BefLocation::Fused(std::vector<BefLocation> children) {
  BefLocation location;
  location.kind = Kind::kFused;
  location.children = std::move(children);
  return location;
}

BefLocation BefLocation::Unencodable() {
  BefLocation location;
  location.kind = Kind::kUnencodable;
  return location;
}

// ---------------------------------------------------------------------------
// Kernel and Function

BefWriter::Kernel::Kernel(Function* function, uint32_t index, uint32_t code,
                          LocationId location)
    : function_(function), index_(index), code_(code), location_(location) {
  // Empty lists start at the arrays' ends, where their first entries go.
  arguments_.begin = Uint32(function->arguments_.size());
  attributes_.begin = Uint32(function->attribute_offsets_.size());
  functions_.begin = Uint32(function->functions_.size());
  results_.begin = Uint32(function->results_.size());
}

void BefWriter::Function::Append(Kernel::Span& span,
                                 std::vector<uint32_t>& array, uint32_t value) {
  if (span.begin + span.count != array.size()) {
    // Another list follows this one: move it to the end (the old entries
    // stay as unused holes).
    size_t old_begin = span.begin;
    array.reserve(array.size() + span.count + 1);
    for (size_t i = 0; i < span.count; ++i) {
      array.push_back(array[old_begin + i]);
    }
    span.begin = Uint32(array.size() - span.count);
  }
  array.push_back(value);
  ++span.count;
}

BefWriter::Kernel& BefWriter::Kernel::AddArgument(uint32_t register_index) {
  Function::Append(arguments_, function_->arguments_, register_index);
  return *this;
}

BefWriter::Kernel& BefWriter::Kernel::AddAttribute(const BefAttribute& attribute,
                                                   std::string_view name) {
  return AddAttributeOffset(function_->writer_->AddAttribute(attribute), name);
}

BefWriter::Kernel& BefWriter::Kernel::AddAttributeOffset(uint32_t offset,
                                                         std::string_view name) {
  // The two arrays grow together: one span names both.
  Kernel::Span names = attributes_;
  Function::Append(attributes_, function_->attribute_offsets_, offset);
  Function::Append(names, function_->attribute_names_,
                   function_->writer_->NameIndex(name));
  return *this;
}

BefWriter::Kernel& BefWriter::Kernel::AddFunction(uint32_t function_index) {
  Function::Append(functions_, function_->functions_, function_index);
  return *this;
}

uint32_t BefWriter::Kernel::AddResult(std::string_view type) {
  return AddResultOfType(function_->writer_->TypeIndex(type));
}

uint32_t BefWriter::Kernel::AddResultOfType(uint32_t type_index) {
  uint32_t register_index = function_->num_registers();
  function_->register_types_.push_back(type_index);
  Function::Append(results_, function_->results_, register_index);
  return register_index;
}

uint32_t BefWriter::Kernel::result(size_t i) const {
  return function_->results_[results_.begin + i];
}

void BefWriter::Function::set_location(const BefLocation& location) {
  location_ = writer_->AddLocation(location);
}

void BefWriter::Function::Reserve(size_t arguments, size_t results) {
  arguments_.reserve(arguments);
  register_types_.reserve(register_types_.size() + results);
  results_.reserve(results);
}

BefWriter::Kernel& BefWriter::Function::AddKernelOfCode(uint32_t code,
                                                        LocationId location) {
  kernels_.push_back(Kernel(this, Uint32(kernels_.size() + 1), code, location));
  return kernels_.back();
}

BefWriter::Kernel& BefWriter::Function::AddKernel(std::string_view name,
                                                  LocationId location) {
  return AddKernelOfCode(writer_->KernelCode(name), location);
}

BefWriter::Kernel& BefWriter::Function::AddKernel(std::string_view name,
                                                  const BefLocation& location) {
  return AddKernelOfCode(writer_->KernelCode(name),
                         writer_->AddLocation(location));
}

void BefWriter::Function::Release() {
  std::deque<Kernel>().swap(kernels_);
  for (auto* array : {&arguments_, &attribute_offsets_, &attribute_names_,
                      &functions_, &results_, &register_types_}) {
    std::vector<uint32_t>().swap(*array);
  }
}

// ---------------------------------------------------------------------------
// BefWriter tables

BefWriter::BefWriter(Options options) : options_(options) {
  locations_.push_back({BefLocation::Kind::kUnknown, true, 0, 0, 0, 0, 0});
  locations_.push_back({BefLocation::Kind::kUnencodable, false, 0, 0, 0, 0, 0});
}
BefWriter::~BefWriter() = default;

namespace {

// The index of `text` in `names`, added on first use.
uint32_t Intern(std::string_view text, std::vector<std::string>& names,
                absl::flat_hash_map<std::string, uint32_t>& indices) {
  auto it = indices.find(absl::string_view(text.data(), text.size()));
  if (it != indices.end()) return it->second;
  uint32_t index = Uint32(names.size());
  names.emplace_back(text);
  indices.emplace(names.back(), index);
  return index;
}

}  // namespace

uint32_t BefWriter::KernelCode(std::string_view name) {
  return Intern(name, kernel_names_, kernel_codes_);
}

uint32_t BefWriter::TypeIndex(std::string_view name) {
  return Intern(name, type_names_, type_indices_);
}

uint32_t BefWriter::NameIndex(std::string_view name) {
  return Intern(name, attribute_names_, attribute_name_indices_);
}

uint32_t BefWriter::LocationText(std::string_view text) {
  return Intern(text, location_texts_, location_text_indices_);
}

uint32_t BefWriter::AddAttribute(const BefAttribute& attribute) {
  auto [it, inserted] = attribute_offsets_.try_emplace(attribute.Key(), 0);
  if (inserted) {
    it->second = EmitAttribute(attributes_, attribute);
    attribute_types_.emplace_back(it->second, attribute.type());
  }
  return it->second;
}

void BefWriter::AddString(std::string_view text) {
  extra_strings_.emplace_back(text);
}

BefWriter::LocationId BefWriter::AddLocationNode(
    LocationNode node, std::span<const LocationId> children) {
  node.first_child = Uint32(location_children_.size());
  node.num_children = Uint32(children.size());
  location_children_.insert(location_children_.end(), children.begin(),
                            children.end());
  locations_.push_back(node);
  return Uint32(locations_.size() - 1);
}

BefWriter::LocationId BefWriter::FileLineColumnLocation(uint32_t text,
                                                        uint32_t line,
                                                        uint32_t column) {
  return AddLocationNode(
      {BefLocation::Kind::kFileLineColumn, true, text, line, column, 0, 0},
      {});
}

BefWriter::LocationId BefWriter::NameLocation(uint32_t text, LocationId child) {
  // A name is always written (an unencodable child as unknown).
  return AddLocationNode({BefLocation::Kind::kName, true, text, 0, 0, 0, 0},
                         std::span<const LocationId>(&child, 1));
}

BefWriter::LocationId BefWriter::CallSiteLocation(LocationId callee,
                                                  LocationId caller) {
  LocationId children[] = {callee, caller};
  bool encodable = locations_[callee].encodable && locations_[caller].encodable;
  return AddLocationNode(
      {BefLocation::Kind::kCallSite, encodable, 0, 0, 0, 0, 0}, children);
}

BefWriter::LocationId BefWriter::FusedLocation(
    std::span<const LocationId> children) {
  bool encodable = std::any_of(children.begin(), children.end(),
                               [&](LocationId child) {
                                 return locations_[child].encodable;
                               });
  return AddLocationNode({BefLocation::Kind::kFused, encodable, 0, 0, 0, 0, 0},
                         children);
}

BefWriter::LocationId BefWriter::AddLocation(const BefLocation& location) {
  using Kind = BefLocation::Kind;
  switch (location.kind) {
    case Kind::kUnknown:
      return kUnknownLocation;
    case Kind::kUnencodable:
      return kUnencodableLocation;
    case Kind::kFileLineColumn:
      return FileLineColumnLocation(LocationText(location.text), location.line,
                                    location.column);
    case Kind::kName:
      return NameLocation(LocationText(location.text),
                          AddLocation(location.children[0]));
    case Kind::kCallSite: {
      LocationId callee = AddLocation(location.children[0]);
      return CallSiteLocation(callee, AddLocation(location.children[1]));
    }
    case Kind::kFused: {
      std::vector<LocationId> children;
      for (const BefLocation& child : location.children) {
        children.push_back(AddLocation(child));
      }
      return FusedLocation(children);
    }
  }
  return kUnknownLocation;
}

BefWriter::Function& BefWriter::AddFunction(
    FunctionKind kind, std::string_view name,
    const std::vector<std::string>& argument_types,
    const std::vector<std::string>& result_types) {
  uint32_t index = AddNativeFunction(name, argument_types, result_types);
  FunctionEntry& entry = functions_.back();
  entry.kind = kind;
  entry.body.reset(new Function(this, index, kind));
  entry.body->register_types_ = entry.argument_types;
  return *entry.body;
}

uint32_t BefWriter::AddNativeFunction(
    std::string_view name, const std::vector<std::string>& argument_types,
    const std::vector<std::string>& result_types) {
  FunctionEntry entry;
  entry.kind = FunctionKind::kNativeFunction;
  entry.name = std::string(name);
  for (const auto& type : argument_types) {
    entry.argument_types.push_back(TypeIndex(type));
  }
  for (const auto& type : result_types) {
    entry.result_types.push_back(TypeIndex(type));
  }
  functions_.push_back(std::move(entry));
  return Uint32(functions_.size() - 1);
}

// ---------------------------------------------------------------------------
// Layout: everything Write() derives.

class BefWriter::Layout {
 public:
  explicit Layout(BefWriter& writer) : writer_(writer) {}

  absl::Status Run(absl::FunctionRef<void(std::span<const uint8_t>)> sink);

 private:
  void CollectStrings();
  uint32_t StringOffset(std::string_view text) const {
    return string_offsets_.find(text)->second;
  }
  absl::Status Validate(const FunctionEntry& entry) const;
  // Location field value for `location`: a record offset, or a virtual one.
  uint32_t EmitLocation(LocationId location);
  void EmitLocationRecord(LocationId location);
  // The function's body in the Functions section, and its entries in the
  // AttributeNames and RegisterTypes sections.
  void EmitFunction(const Function& function);

  BefWriter& writer_;
  // Sorted byte-wise: std::string's operator< compares as memcmp does, on
  // unsigned values.
  std::map<std::string, uint32_t, std::less<>> string_offsets_;
  ByteWriter strings_;
  ByteWriter functions_;
  ByteWriter attribute_names_;
  ByteWriter register_types_;
  ByteWriter location_strings_;
  // LocationStrings offset of each location text; kNotWritten until used.
  static constexpr uint32_t kNotWritten = UINT32_MAX;
  std::vector<uint32_t> location_text_offsets_;
  ByteWriter locations_;
  bool has_real_location_ = false;
  uint32_t next_virtual_location_ = kFirstVirtualLocationOffset;
  std::vector<uint32_t> function_offsets_;
};

void BefWriter::Layout::CollectStrings() {
  for (const auto& name : writer_.kernel_names_) string_offsets_[name];
  for (const auto& name : writer_.type_names_) string_offsets_[name];
  for (const auto& entry : writer_.functions_) string_offsets_[entry.name];
  for (const auto& text : writer_.extra_strings_) string_offsets_[text];
  if (writer_.options_.emit_optional_sections) {
    // Every name a kernel's attribute was given (the table holds only
    // those).
    for (const auto& name : writer_.attribute_names_) string_offsets_[name];
  }
  for (auto& [text, offset] : string_offsets_) {
    offset = Uint32(strings_.size());
    strings_.EmitNulTerminatedString(text);
  }
}

absl::Status BefWriter::Layout::Validate(const FunctionEntry& entry) const {
  const Function& function = *entry.body;
  auto error = [&](std::string_view what) {
    return absl::InvalidArgumentError(absl::StrCat(
        "BefWriter: function ", function.index_, " '", entry.name, "': ",
        absl::string_view(what.data(), what.size())));
  };
  uint32_t num_registers = function.num_registers();
  for (const Kernel& kernel : function.kernels_) {
    for (uint32_t reg : function.List(kernel.arguments_, function.arguments_)) {
      if (reg >= num_registers) {
        return error(absl::StrCat("kernel ", kernel.index_, " reads register ",
                                  reg, " of ", num_registers));
      }
    }
    for (uint32_t index : function.List(kernel.functions_, function.functions_)) {
      if (index >= writer_.functions_.size()) {
        return error(absl::StrCat("kernel ", kernel.index_,
                                  " names function ", index, " of ",
                                  writer_.functions_.size()));
      }
    }
  }
  if (function.result_registers_.size() != entry.result_types.size()) {
    return error(absl::StrCat("returns ", function.result_registers_.size(),
                              " registers for ", entry.result_types.size(),
                              " result types"));
  }
  for (uint32_t reg : function.result_registers_) {
    if (reg >= num_registers) {
      return error(absl::StrCat("returns register ", reg, " of ",
                                num_registers));
    }
  }
  return absl::OkStatus();
}

void BefWriter::Layout::EmitLocationRecord(LocationId id) {
  using Kind = BefLocation::Kind;
  const LocationNode& location = writer_.locations_[id];
  auto string_offset = [&](uint32_t text) {
    uint32_t& offset = location_text_offsets_[text];
    if (offset == kNotWritten) {
      offset = Uint32(location_strings_.size());
      location_strings_.EmitNulTerminatedString(writer_.location_texts_[text]);
    }
    return offset;
  };
  std::span<const LocationId> children(
      writer_.location_children_.data() + location.first_child,
      location.num_children);
  switch (location.kind) {
    case Kind::kUnknown:
    case Kind::kUnencodable:
      locations_.EmitByte(static_cast<uint8_t>(LocationKind::kUnknown));
      break;
    case Kind::kFileLineColumn:
      locations_.EmitByte(static_cast<uint8_t>(LocationKind::kFileLineColumn));
      locations_.EmitVbr(string_offset(location.text));
      locations_.EmitVbr(location.line);
      locations_.EmitVbr(location.column);
      break;
    case Kind::kName:
      locations_.EmitByte(static_cast<uint8_t>(LocationKind::kName));
      locations_.EmitVbr(string_offset(location.text));
      EmitLocationRecord(children[0]);
      break;
    case Kind::kCallSite:
      locations_.EmitByte(static_cast<uint8_t>(LocationKind::kCallSite));
      EmitLocationRecord(children[0]);
      EmitLocationRecord(children[1]);
      break;
    case Kind::kFused: {
      locations_.EmitByte(static_cast<uint8_t>(LocationKind::kFused));
      auto encodable = [&](LocationId child) {
        return writer_.locations_[child].encodable;
      };
      locations_.EmitVbr(std::count_if(children.begin(), children.end(),
                                       encodable));
      for (LocationId child : children) {
        if (encodable(child)) EmitLocationRecord(child);
      }
      break;
    }
  }
}

uint32_t BefWriter::Layout::EmitLocation(LocationId location) {
  if (!writer_.locations_[location].encodable) return next_virtual_location_--;
  has_real_location_ = true;
  uint32_t offset = Uint32(locations_.size());
  EmitLocationRecord(location);
  return offset;
}

void BefWriter::Layout::EmitFunction(const Function& function) {
  const FunctionEntry& entry = writer_.functions_[function.index_];
  const uint32_t num_registers = function.num_registers();
  const uint32_t num_arguments = Uint32(entry.argument_types.size());
  auto arguments_of = [&](const Kernel& kernel) {
    return function.List(kernel.arguments_, function.arguments_);
  };
  auto results_of = [&](const Kernel& kernel) {
    return function.List(kernel.results_, function.results_);
  };

  // Uses of each register by kernels, latest kernel and highest slot first,
  // as one array indexed by user_begin (no allocation per register).
  std::vector<uint32_t> user_begin(num_registers + 1, 0);
  uint32_t num_zero_operand_kernels = 0;
  for (const Kernel& kernel : function.kernels_) {
    for (uint32_t reg : arguments_of(kernel)) ++user_begin[reg + 1];
    if (kernel.arguments_.count == 0) ++num_zero_operand_kernels;
  }
  for (uint32_t reg = 0; reg < num_registers; ++reg) {
    user_begin[reg + 1] += user_begin[reg];
  }
  std::vector<uint32_t> users(user_begin[num_registers]);
  {
    std::vector<uint32_t> next(user_begin.begin(), user_begin.end() - 1);
    for (auto kernel = function.kernels_.rbegin();
         kernel != function.kernels_.rend(); ++kernel) {
      auto arguments = arguments_of(*kernel);
      for (auto reg = arguments.rbegin(); reg != arguments.rend(); ++reg) {
        users[next[*reg]++] = kernel->index_;
      }
    }
  }
  auto users_of = [&](uint32_t reg) {
    return std::span<const uint32_t>(users.data() + user_begin[reg],
                                     user_begin[reg + 1] - user_begin[reg]);
  };

  // The kernel table: where each record starts (in FIXED32 words), its
  // operand count and stream; the pseudo kernel first.
  uint32_t pseudo_words = 6 + 2 * (num_arguments + 1) +
                          num_zero_operand_kernels + user_begin[num_arguments];
  auto record_words = [&](const Kernel& kernel) {
    uint32_t used_by = 0;
    for (uint32_t reg : results_of(kernel)) used_by += Uint32(users_of(reg).size());
    return 6 + 2 * kernel.results_.count + kernel.arguments_.count +
           kernel.attributes_.count + kernel.functions_.count + used_by;
  };
  {
    // Room for all of it up front (VBRs at their longest): the section
    // never regrows, so it is never held twice.
    size_t words = pseudo_words;
    for (const Kernel& kernel : function.kernels_) words += record_words(kernel);
    functions_.Reserve(functions_.size() + 4 * words + kKernelEntryAlignment +
                       5 * (3 + num_registers + 3 * (function.kernels_.size() + 1) +
                            function.result_registers_.size()));
  }
  uint32_t total_words = pseudo_words;
  functions_.EmitVbr(EmitLocation(function.location_));
  functions_.EmitVbr(num_registers);
  {
    std::vector<uint32_t> num_uses(num_registers);
    for (uint32_t reg = 0; reg < num_registers; ++reg) {
      num_uses[reg] = Uint32(users_of(reg).size());
    }
    for (uint32_t reg : function.result_registers_) ++num_uses[reg];
    for (uint32_t uses : num_uses) functions_.EmitVbr(uses);
  }
  functions_.EmitVbr(function.kernels_.size() + 1);
  functions_.EmitVbr(0);
  functions_.EmitVbr(0);
  functions_.EmitVbr(function.root_stream_);
  for (const Kernel& kernel : function.kernels_) {
    functions_.EmitVbr(4 * uint64_t{total_words});
    functions_.EmitVbr(kernel.arguments_.count);
    functions_.EmitVbr(kernel.stream_);
    total_words += record_words(kernel);
  }
  for (uint32_t reg : function.result_registers_) functions_.EmitVbr(reg);
  functions_.EmitAlignment(kKernelEntryAlignment);

  // The records, as FIXED32 words written in place.
  uint8_t* out = functions_.Extend(size_t{total_words} * 4);
  auto put = [&out](uint32_t word) {
    ByteWriter::StoreFixed32(out, word);
    out += 4;
  };
  auto put_all = [&put](std::span<const uint32_t> words) {
    for (uint32_t word : words) put(word);
  };
  for (uint32_t word : {kPseudoKernelCode, kPseudoKernelLocation, 0u, 0u, 0u,
                        num_arguments + 1, num_zero_operand_kernels}) {
    put(word);
  }
  for (uint32_t arg = 0; arg < num_arguments; ++arg) {
    put(Uint32(users_of(arg).size()));
  }
  put(num_registers);  // the special no-operand register
  for (uint32_t arg = 0; arg < num_arguments; ++arg) put(arg);
  for (const Kernel& kernel : function.kernels_) {
    if (kernel.arguments_.count == 0) put(kernel.index_);
  }
  put_all(std::span<const uint32_t>(users.data(), user_begin[num_arguments]));

  for (const Kernel& kernel : function.kernels_) {
    auto results = results_of(kernel);
    for (uint32_t word :
         {kernel.code_, EmitLocation(kernel.location_), kernel.arguments_.count,
          kernel.attributes_.count, kernel.functions_.count,
          kernel.results_.count}) {
      put(word);
    }
    for (uint32_t reg : results) put(Uint32(users_of(reg).size()));
    put_all(arguments_of(kernel));
    put_all(function.List(kernel.attributes_, function.attribute_offsets_));
    put_all(function.List(kernel.functions_, function.functions_));
    put_all(results);
    for (uint32_t reg : results) put_all(users_of(reg));
  }

  if (writer_.options_.emit_optional_sections) {
    attribute_names_.EmitVbr(function.kernels_.size() + 1);
    for (const Kernel& kernel : function.kernels_) {
      for (uint32_t name :
           function.List(kernel.attributes_, function.attribute_names_)) {
        attribute_names_.EmitVbr(StringOffset(writer_.attribute_names_[name]));
      }
    }
    register_types_.EmitVbr(num_registers);
    for (uint32_t type : function.register_types_) register_types_.EmitVbr(type);
  }
}

absl::Status BefWriter::Layout::Run(
    absl::FunctionRef<void(std::span<const uint8_t>)> sink) {
  for (const FunctionEntry& entry : writer_.functions_) {
    if (entry.body) {
      absl::Status status = Validate(entry);
      if (!status.ok()) return status;
    }
  }
  CollectStrings();
  location_text_offsets_.assign(writer_.location_texts_.size(), kNotWritten);

  ByteWriter kernels;
  kernels.EmitVbr(writer_.kernel_names_.size());
  for (const auto& name : writer_.kernel_names_) kernels.EmitVbr(StringOffset(name));

  ByteWriter types;
  types.EmitVbr(writer_.type_names_.size());
  for (const auto& name : writer_.type_names_) types.EmitVbr(StringOffset(name));

  attribute_names_.EmitVbr(writer_.functions_.size());
  register_types_.EmitVbr(writer_.functions_.size());
  for (FunctionEntry& entry : writer_.functions_) {
    function_offsets_.push_back(Uint32(functions_.size()));
    if (entry.body) {
      EmitFunction(*entry.body);
      entry.body->Release();
    }
  }

  ByteWriter function_index;
  function_index.EmitVbr(writer_.functions_.size());
  for (size_t i = 0; i < writer_.functions_.size(); ++i) {
    const FunctionEntry& entry = writer_.functions_[i];
    function_index.EmitByte(static_cast<uint8_t>(entry.kind));
    function_index.EmitVbr(function_offsets_[i]);
    function_index.EmitVbr(StringOffset(entry.name));
    function_index.EmitVbr(entry.argument_types.size());
    for (uint32_t type : entry.argument_types) function_index.EmitVbr(type);
    function_index.EmitVbr(entry.result_types.size());
    for (uint32_t type : entry.result_types) function_index.EmitVbr(type);
  }

  ByteWriter attribute_types;
  if (writer_.options_.emit_optional_sections) {
    attribute_types.EmitVbr(writer_.attribute_types_.size());
    for (auto [offset, type] : writer_.attribute_types_) {
      attribute_types.EmitVbr(offset);
      attribute_types.EmitVbr(type);
    }
  }

  // The file: the magic, then each section framed where it lands.
  size_t offset = 0;
  auto emit = [&](std::span<const uint8_t> bytes) {
    sink(bytes);
    offset += bytes.size();
  };
  auto emit_section = [&](SectionId id, const ByteWriter& body) {
    uint8_t header[ByteWriter::kMaxSectionHeaderSize];
    emit({header, ByteWriter::EncodeSectionHeader(
                      static_cast<uint8_t>(id), body.size(),
                      body.required_alignment(), offset, header)});
    emit(body.bytes());
  };
  const uint8_t magic[] = {kBefMagic1, kBefMagic2, kBefVersion0};
  emit(magic);
  emit_section(SectionId::kStrings, strings_);
  emit_section(SectionId::kAttributes, writer_.attributes_);
  emit_section(SectionId::kKernels, kernels);
  emit_section(SectionId::kTypes, types);
  emit_section(SectionId::kFunctionIndex, function_index);
  emit_section(SectionId::kFunctions, functions_);
  if (has_real_location_) {
    emit_section(SectionId::kLocationStrings, location_strings_);
    emit_section(SectionId::kLocations, locations_);
  }
  if (writer_.options_.emit_optional_sections) {
    emit_section(SectionId::kAttributeTypes, attribute_types);
    emit_section(SectionId::kAttributeNames, attribute_names_);
    emit_section(SectionId::kRegisterTypes, register_types_);
  }
  return absl::OkStatus();
}

absl::Status BefWriter::Write(
    absl::FunctionRef<void(std::span<const uint8_t>)> sink) {
  return Layout(*this).Run(sink);
}

absl::StatusOr<std::vector<uint8_t>> BefWriter::Finish() {
  std::vector<uint8_t> bytes;
  absl::Status status = Write([&bytes](std::span<const uint8_t> piece) {
    bytes.insert(bytes.end(), piece.begin(), piece.end());
  });
  if (!status.ok()) return status;
  return bytes;
}

}  // namespace bef
