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

bool BefLocation::IsEncodable() const {
  switch (kind) {
    case Kind::kUnencodable:
      return false;
    case Kind::kCallSite:
      return children[0].IsEncodable() && children[1].IsEncodable();
    case Kind::kFused:
      return std::any_of(children.begin(), children.end(),
                         [](const BefLocation& child) {
                           return child.IsEncodable();
                         });
    default:
      return true;
  }
}

// ---------------------------------------------------------------------------
// Kernel and Function

BefWriter::Kernel& BefWriter::Kernel::AddArgument(uint32_t register_index) {
  arguments_.push_back(register_index);
  return *this;
}

BefWriter::Kernel& BefWriter::Kernel::AddAttribute(const BefAttribute& attribute,
                                                   std::string_view name) {
  return AddAttributeOffset(function_->writer_->AddAttribute(attribute), name);
}

BefWriter::Kernel& BefWriter::Kernel::AddAttributeOffset(uint32_t offset,
                                                         std::string_view name) {
  attributes_.push_back(offset);
  attribute_names_.emplace_back(name);
  return *this;
}

BefWriter::Kernel& BefWriter::Kernel::AddFunction(uint32_t function_index) {
  functions_.push_back(function_index);
  return *this;
}

uint32_t BefWriter::Kernel::AddResult(std::string_view type) {
  uint32_t register_index = function_->num_registers();
  function_->register_types_.push_back(function_->writer_->TypeIndex(type));
  results_.push_back(register_index);
  used_by_override_.emplace_back();
  return register_index;
}

BefWriter::Kernel& BefWriter::Kernel::SetUsedBy(size_t result_index,
                                                std::vector<uint32_t> kernels) {
  used_by_override_[result_index] = std::move(kernels);
  return *this;
}

BefWriter::Kernel& BefWriter::Function::AddKernel(std::string_view name,
                                                  BefLocation location) {
  uint32_t code = writer_->KernelCode(name);
  kernels_.push_back(Kernel(this, Uint32(kernels_.size() + 1), code,
                            std::move(location)));
  return kernels_.back();
}

// ---------------------------------------------------------------------------
// BefWriter tables

BefWriter::BefWriter(Options options) : options_(options) {}
BefWriter::~BefWriter() = default;

uint32_t BefWriter::KernelCode(std::string_view name) {
  auto [it, inserted] =
      kernel_codes_.try_emplace(std::string(name), Uint32(kernel_names_.size()));
  if (inserted) kernel_names_.emplace_back(name);
  return it->second;
}

uint32_t BefWriter::TypeIndex(std::string_view name) {
  auto [it, inserted] =
      type_indices_.try_emplace(std::string(name), Uint32(type_names_.size()));
  if (inserted) type_names_.emplace_back(name);
  return it->second;
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
// Layout: everything Finish() derives.

class BefWriter::Layout {
 public:
  explicit Layout(BefWriter& writer) : writer_(writer) {}

  absl::StatusOr<std::vector<uint8_t>> Run();

 private:
  void CollectStrings();
  uint32_t StringOffset(std::string_view text) const {
    return string_offsets_.at(std::string(text));
  }
  absl::Status Validate(const FunctionEntry& entry) const;
  // Location field value for `location`: a record offset, or a virtual one.
  uint32_t EmitLocation(const BefLocation& location);
  void EmitLocationRecord(const BefLocation& location);
  void EmitFunction(const Function& function);

  BefWriter& writer_;
  std::map<std::string, uint32_t> string_offsets_;  // sorted byte-wise
  ByteWriter strings_;
  ByteWriter functions_;
  ByteWriter location_strings_;
  absl::flat_hash_map<std::string, uint32_t> location_string_offsets_;
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
    for (const auto& entry : writer_.functions_) {
      if (!entry.body) continue;
      for (const Kernel& kernel : entry.body->kernels_) {
        for (const auto& name : kernel.attribute_names_) string_offsets_[name];
      }
    }
  }
  // std::map orders std::string byte-wise (char_traits<char>::compare is
  // memcmp-like on unsigned values).
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
    for (uint32_t reg : kernel.arguments_) {
      if (reg >= num_registers) {
        return error(absl::StrCat("kernel ", kernel.index_, " reads register ",
                                  reg, " of ", num_registers));
      }
    }
    for (uint32_t index : kernel.functions_) {
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

void BefWriter::Layout::EmitLocationRecord(const BefLocation& location) {
  using Kind = BefLocation::Kind;
  auto string_offset = [&](const std::string& text) {
    auto [it, inserted] = location_string_offsets_.try_emplace(
        text, Uint32(location_strings_.size()));
    if (inserted) location_strings_.EmitNulTerminatedString(text);
    return it->second;
  };
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
      EmitLocationRecord(location.children[0]);
      break;
    case Kind::kCallSite:
      locations_.EmitByte(static_cast<uint8_t>(LocationKind::kCallSite));
      EmitLocationRecord(location.children[0]);
      EmitLocationRecord(location.children[1]);
      break;
    case Kind::kFused: {
      locations_.EmitByte(static_cast<uint8_t>(LocationKind::kFused));
      size_t count = std::count_if(
          location.children.begin(), location.children.end(),
          [](const BefLocation& child) { return child.IsEncodable(); });
      locations_.EmitVbr(count);
      for (const BefLocation& child : location.children) {
        if (child.IsEncodable()) EmitLocationRecord(child);
      }
      break;
    }
  }
}

uint32_t BefWriter::Layout::EmitLocation(const BefLocation& location) {
  if (!location.IsEncodable()) return next_virtual_location_--;
  has_real_location_ = true;
  uint32_t offset = Uint32(locations_.size());
  EmitLocationRecord(location);
  return offset;
}

void BefWriter::Layout::EmitFunction(const Function& function) {
  const FunctionEntry& entry = writer_.functions_[function.index_];
  const uint32_t num_registers = function.num_registers();
  const uint32_t num_arguments = Uint32(entry.argument_types.size());

  // Uses of each register by kernels, latest kernel and highest slot first,
  // as one array indexed by user_begin (no allocation per register).
  std::vector<uint32_t> user_begin(num_registers + 1, 0);
  for (const Kernel& kernel : function.kernels_) {
    for (uint32_t reg : kernel.arguments_) ++user_begin[reg + 1];
  }
  for (uint32_t reg = 0; reg < num_registers; ++reg) {
    user_begin[reg + 1] += user_begin[reg];
  }
  std::vector<uint32_t> users(user_begin[num_registers]);
  {
    std::vector<uint32_t> next(user_begin.begin(), user_begin.end() - 1);
    for (auto kernel = function.kernels_.rbegin();
         kernel != function.kernels_.rend(); ++kernel) {
      for (auto reg = kernel->arguments_.rbegin();
           reg != kernel->arguments_.rend(); ++reg) {
        users[next[*reg]++] = kernel->index_;
      }
    }
  }
  auto users_of = [&](uint32_t reg) {
    return std::span<const uint32_t>(users.data() + user_begin[reg],
                                     user_begin[reg + 1] - user_begin[reg]);
  };
  std::vector<uint32_t> num_uses(num_registers);
  for (uint32_t reg = 0; reg < num_registers; ++reg) {
    num_uses[reg] = Uint32(users_of(reg).size());
  }
  for (uint32_t reg : function.result_registers_) ++num_uses[reg];

  // Kernel records as FIXED32 words, one after the other; the pseudo kernel
  // first.
  std::vector<uint32_t> words;
  std::vector<uint32_t> record_start;
  words.reserve(function.kernels_.size() * 10 + 16);
  {
    record_start.push_back(0);
    std::vector<uint32_t> zero_operand_kernels;
    for (const Kernel& kernel : function.kernels_) {
      if (kernel.arguments_.empty()) {
        zero_operand_kernels.push_back(kernel.index_);
      }
    }
    words.insert(words.end(), {kPseudoKernelCode, kPseudoKernelLocation, 0, 0,
                               0, num_arguments + 1});
    words.push_back(Uint32(zero_operand_kernels.size()));
    for (uint32_t arg = 0; arg < num_arguments; ++arg) {
      words.push_back(Uint32(users_of(arg).size()));
    }
    words.push_back(num_registers);  // the special no-operand register
    for (uint32_t arg = 0; arg < num_arguments; ++arg) words.push_back(arg);
    words.insert(words.end(), zero_operand_kernels.begin(),
                 zero_operand_kernels.end());
    for (uint32_t arg = 0; arg < num_arguments; ++arg) {
      auto list = users_of(arg);
      words.insert(words.end(), list.begin(), list.end());
    }
  }

  uint32_t function_location = EmitLocation(function.location_);
  for (const Kernel& kernel : function.kernels_) {
    record_start.push_back(Uint32(words.size()));
    auto used_by = [&](size_t i) {
      const auto& override_list = kernel.used_by_override_[i];
      return override_list ? std::span<const uint32_t>(*override_list)
                           : users_of(kernel.results_[i]);
    };
    words.insert(words.end(), {kernel.code_, EmitLocation(kernel.location_),
                               Uint32(kernel.arguments_.size()),
                               Uint32(kernel.attributes_.size()),
                               Uint32(kernel.functions_.size()),
                               Uint32(kernel.results_.size())});
    for (size_t i = 0; i < kernel.results_.size(); ++i) {
      words.push_back(Uint32(used_by(i).size()));
    }
    for (const auto* list : {&kernel.arguments_, &kernel.attributes_,
                             &kernel.functions_, &kernel.results_}) {
      words.insert(words.end(), list->begin(), list->end());
    }
    for (size_t i = 0; i < kernel.results_.size(); ++i) {
      auto list = used_by(i);
      words.insert(words.end(), list.begin(), list.end());
    }
  }

  functions_.EmitVbr(function_location);
  functions_.EmitVbr(num_registers);
  for (uint32_t uses : num_uses) functions_.EmitVbr(uses);
  functions_.EmitVbr(record_start.size());
  for (size_t k = 0; k < record_start.size(); ++k) {
    functions_.EmitVbr(4 * record_start[k]);
    functions_.EmitVbr(k == 0 ? 0 : function.kernels_[k - 1].arguments_.size());
    functions_.EmitVbr(k == 0 ? function.root_stream_
                              : function.kernels_[k - 1].stream_);
  }
  for (uint32_t reg : function.result_registers_) functions_.EmitVbr(reg);
  functions_.EmitAlignment(kKernelEntryAlignment);
  for (uint32_t word : words) functions_.EmitFixed32(word);
}

absl::StatusOr<std::vector<uint8_t>> BefWriter::Layout::Run() {
  for (const FunctionEntry& entry : writer_.functions_) {
    if (entry.body) {
      absl::Status status = Validate(entry);
      if (!status.ok()) return status;
    }
  }
  CollectStrings();

  ByteWriter kernels;
  kernels.EmitVbr(writer_.kernel_names_.size());
  for (const auto& name : writer_.kernel_names_) kernels.EmitVbr(StringOffset(name));

  ByteWriter types;
  types.EmitVbr(writer_.type_names_.size());
  for (const auto& name : writer_.type_names_) types.EmitVbr(StringOffset(name));

  for (const FunctionEntry& entry : writer_.functions_) {
    function_offsets_.push_back(Uint32(functions_.size()));
    if (entry.body) EmitFunction(*entry.body);
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

  ByteWriter file;
  file.EmitByte(kBefMagic1);
  file.EmitByte(kBefMagic2);
  file.EmitByte(kBefVersion0);
  file.EmitSection(SectionId::kStrings, strings_);
  file.EmitSection(SectionId::kAttributes, writer_.attributes_);
  file.EmitSection(SectionId::kKernels, kernels);
  file.EmitSection(SectionId::kTypes, types);
  file.EmitSection(SectionId::kFunctionIndex, function_index);
  file.EmitSection(SectionId::kFunctions, functions_);
  if (has_real_location_) {
    file.EmitSection(SectionId::kLocationStrings, location_strings_);
    file.EmitSection(SectionId::kLocations, locations_);
  }
  if (writer_.options_.emit_optional_sections) {
    ByteWriter attribute_types;
    attribute_types.EmitVbr(writer_.attribute_types_.size());
    for (auto [offset, type] : writer_.attribute_types_) {
      attribute_types.EmitVbr(offset);
      attribute_types.EmitVbr(type);
    }
    ByteWriter attribute_names;
    ByteWriter register_types;
    attribute_names.EmitVbr(writer_.functions_.size());
    register_types.EmitVbr(writer_.functions_.size());
    for (const FunctionEntry& entry : writer_.functions_) {
      if (!entry.body) continue;
      const Function& function = *entry.body;
      attribute_names.EmitVbr(function.kernels_.size() + 1);
      for (const Kernel& kernel : function.kernels_) {
        for (const auto& name : kernel.attribute_names_) {
          attribute_names.EmitVbr(StringOffset(name));
        }
      }
      register_types.EmitVbr(function.num_registers());
      for (uint32_t type : function.register_types_) register_types.EmitVbr(type);
    }
    file.EmitSection(SectionId::kAttributeTypes, attribute_types);
    file.EmitSection(SectionId::kAttributeNames, attribute_names);
    file.EmitSection(SectionId::kRegisterTypes, register_types);
  }
  return file.TakeBytes();
}

absl::StatusOr<std::vector<uint8_t>> BefWriter::Finish() {
  return Layout(*this).Run();
}

}  // namespace bef
