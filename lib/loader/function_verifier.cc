// BefFile::Inflate: verifies one function record and builds its FunctionInfo.
//
// After this succeeds the executor may trust the record: every index is in
// range, every kernel record lies inside the function's kernel list, every
// attribute a kernel reads through a typed view decodes, and the dataflow is
// consistent (so ready counts and reference counts can neither underflow nor
// stay above zero forever).
#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "bef/format/attribute_reader.h"
#include "bef/format/byte_reader.h"
#include "bef/format/format_error.h"
#include "bef/loader/bef_file.h"
#include "bef/support/status_macros.h"
#include "bef/support/string_view.h"

namespace bef {
namespace {

constexpr char kInvalidFunction[] = "invalid Function section in BEF file";

std::string SyncSummary(std::string_view detail) {
  return absl::StrCat(
      "invalid FunctionIndex section in BEF file: Invalid SyncBEFFunction(",
      ToAbsl(detail), ")");
}

bool IsChainType(std::string_view type) { return type == "!tfrt.chain"; }

// Whether two lists of (register, user kernel) pairs, registers below
// `num_registers`, are the same multiset. `operand_uses` lists the users of
// each register in ascending order (it is built kernel by kernel). Linear
// but for used-by lists not in kernel order: a counting sort by register,
// then one comparison per register.
bool SameUses(const std::vector<std::pair<uint32_t, uint32_t>>& operand_uses,
              const std::vector<std::pair<uint32_t, uint32_t>>& listed_uses,
              uint32_t num_registers) {
  if (operand_uses.size() != listed_uses.size()) return false;
  std::vector<uint32_t> start(num_registers + 1, 0);
  for (const auto& [reg, user] : operand_uses) ++start[reg + 1];
  for (uint32_t reg = 0; reg < num_registers; ++reg) start[reg + 1] += start[reg];
  std::vector<uint32_t> operand_users(operand_uses.size()), listed_users(listed_uses.size());
  std::vector<uint32_t> next(start.begin(), start.end() - 1);
  for (const auto& [reg, user] : operand_uses) operand_users[next[reg]++] = user;
  std::vector<uint32_t> filled(start.begin(), start.end() - 1);
  for (const auto& [reg, user] : listed_uses) {
    if (filled[reg] == start[reg + 1]) return false;  // more uses listed than read
    listed_users[filled[reg]++] = user;
  }
  for (uint32_t reg = 0; reg < num_registers; ++reg) {
    auto begin = listed_users.begin() + start[reg];
    auto end = listed_users.begin() + start[reg + 1];
    if (!std::is_sorted(begin, end)) std::sort(begin, end);
    if (!std::equal(begin, end, operand_users.begin() + start[reg])) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<std::unique_ptr<FunctionInfo>> BefFile::Inflate(
    uint32_t index) const {
  const BefFunctionEntry& entry = functions_[index];
  const bool sync = entry.kind == FunctionKind::kSyncBefFunction;
  const Section& section = *sections_[SectionId::kFunctions];
  const uint32_t record_end = record_ends_[index];
  ByteReader reader(section.body.subspan(0, record_end), section.body_offset,
                    absl::StrCat("Functions section, function ", index));
  // TFRT's wording: sync records are read at load, with a detail per field.
  auto summary = [&](std::string_view sync_detail) {
    reader.set_error_summary(sync ? SyncSummary(sync_detail)
                                  : std::string(kInvalidFunction));
  };
  summary("Invalid function offset");
  BEF_RETURN_IF_ERROR(reader.Seek(entry.record_offset));

  auto info = std::make_unique<FunctionInfo>();
  info->index = index;
  info->kind = entry.kind;
  info->num_arguments = static_cast<uint32_t>(entry.argument_types.size());

  // The record's head (bef_records.h), each part read under the summary
  // TFRT gives its failure.
  static constexpr std::string_view kPartSummaries[] = {
      "Failed to read location_offset or num_registers",  // kLocation
      "Failed to read location_offset or num_registers",  // kRegisterCount
      "Failed to read register user_count",               // kRegisterUses
      "Failed to read num_kernels",                        // kKernelCount
      "Failed to read kernel offset or num_operands",      // kKernelTable
      "Failed to read result_reg",                         // kResultRegisters
      "Failed to align BEF to kKernelEntryAlignment",      // kKernelList
  };
  if (section.body_offset % kKernelEntryAlignment != 0) {
    summary(kPartSummaries[static_cast<int>(FunctionRecordPart::kKernelList)]);
    return reader.Error("the Functions section is not 4-aligned");
  }
  const size_t head_at = reader.position();
  FunctionRecordPart failed_part;
  absl::StatusOr<FunctionRecordHead> head =
      ReadFunctionRecordHead(reader, entry.result_types.size(), &failed_part);
  if (!head.ok()) {
    summary(kPartSummaries[static_cast<int>(failed_part)]);
    return reader.Resummarize(head.status());
  }
  info->location = head->location;
  info->num_registers = static_cast<uint32_t>(head->register_uses.size());
  if (info->num_registers < info->num_arguments) {
    summary(kPartSummaries[0]);
    return reader.ErrorAt(head_at, absl::StrCat(info->num_registers, " registers for ",
                                                info->num_arguments, " arguments"));
  }
  info->register_uses = std::move(head->register_uses);
  const uint32_t num_kernels = static_cast<uint32_t>(head->kernels.size());
  std::vector<uint32_t> kernel_offsets(num_kernels);
  std::vector<uint32_t> num_operands(num_kernels);
  info->kernels.resize(num_kernels);
  for (uint32_t k = 0; k < num_kernels; ++k) {
    kernel_offsets[k] = head->kernels[k].offset;
    num_operands[k] = head->kernels[k].num_operands;
    info->kernels[k].stream = head->kernels[k].stream;
  }
  summary(kPartSummaries[static_cast<int>(FunctionRecordPart::kResultRegisters)]);
  for (size_t i = 0; i < head->result_registers.size(); ++i) {
    uint32_t reg = head->result_registers[i];
    if (reg >= info->num_registers) {
      return reader.Error(absl::StrCat("result ", i, " register ", reg, " of ",
                                       info->num_registers));
    }
    info->result_registers.push_back(reg);
  }
  if (sync) {
    summary("Result cannot be an argument or another result");
    std::vector<uint32_t> seen = info->result_registers;
    std::sort(seen.begin(), seen.end());
    bool repeated = std::adjacent_find(seen.begin(), seen.end()) != seen.end();
    bool argument = !seen.empty() && seen.front() < info->num_arguments;
    if (repeated || argument) {
      return reader.Error("a result register is an argument or repeats");
    }
  }

  const size_t list_start = reader.position();
  const size_t list_words = (record_end - list_start) / 4;
  const uint32_t* list =
      reinterpret_cast<const uint32_t*>(section.body.data() + list_start);

  // ---- Kernel records.
  summary("Failed to read kernel offset or num_operands");
  reader.set_error_summary(sync ? SyncSummary("Failed to read kernel offset or num_operands")
                                : std::string(kInvalidFunction));
  const uint32_t num_functions = static_cast<uint32_t>(functions_.size());
  const uint32_t special_register = info->num_registers;
  // Producer of each register (kernel index + 1; 0 = none).
  std::vector<uint32_t> producer(info->num_registers, 0);
  // (register, user kernel) pairs: from operands, and from used-by lists.
  std::vector<std::pair<uint32_t, uint32_t>> operand_uses, listed_uses;
  std::vector<uint32_t> counted_uses(info->num_registers, 0);

  std::vector<uint32_t> register_types;
  if (options_.check_register_types && options_.kernels != nullptr) {
    absl::StatusOr<std::vector<uint32_t>> types = RegisterTypes(index);
    if (types.ok() && types->size() == info->num_registers) {
      register_types = std::move(types).value();
    }
  }

  for (uint32_t k = 0; k < num_kernels; ++k) {
    auto error = [&](std::string_view what) {
      return reader.ErrorAt(list_start + kernel_offsets[k],
                            absl::StrCat("kernel ", k, ": ", ToAbsl(what)));
    };
    if (kernel_offsets[k] % 4 != 0) return error("offset is not 4-aligned");
    size_t word = kernel_offsets[k] / 4;
    switch (FitKernelRecord(list, list_words, word)) {
      case KernelRecordFit::kHeaderPastEnd:
        return error("record starts past the kernel list");
      case KernelRecordFit::kFieldsPastEnd:
        return error("record runs past the kernel list");
      case KernelRecordFit::kUsedByPastEnd:
        return error("used-by lists run past the kernel list");
      case KernelRecordFit::kFits:
        break;
    }
    KernelInfo& kernel = info->kernels[k];
    kernel.record = list + word;

    if (k == 0) {
      // The pseudo kernel: publishes the special register and the arguments.
      if (kernel.num_arguments() != 0 || kernel.num_attributes() != 0 ||
          kernel.num_functions() != 0 ||
          kernel.num_results() != info->num_arguments + 1) {
        return error(absl::StrCat("the pseudo kernel must have ",
                                  info->num_arguments + 1, " results only"));
      }
      auto results = kernel.results();
      if (results[0] != special_register) {
        return error("the pseudo kernel's first result is not the special register");
      }
      for (uint32_t i = 1; i < results.size(); ++i) {
        if (results[i] != i - 1) {
          return error(absl::StrCat("the pseudo kernel's result ", i,
                                    " is not argument register ", i - 1));
        }
      }
    } else {
      if (kernel.code() >= kernel_names_.size()) {
        return error(absl::StrCat("kernel code ", kernel.code(), " of ",
                                  kernel_names_.size()));
      }
      if (num_operands[k] != kernel.num_arguments()) {
        return error(absl::StrCat("the kernel table says ", num_operands[k],
                                  " operands, the record ", kernel.num_arguments()));
      }
      for (uint32_t reg : kernel.arguments()) {
        if (reg >= info->num_registers) {
          return error(absl::StrCat("argument register ", reg, " of ",
                                    info->num_registers));
        }
        operand_uses.emplace_back(reg, k);
        ++counted_uses[reg];
      }
      if (kernel.num_arguments() == 0) operand_uses.emplace_back(special_register, k);
      for (uint32_t function : kernel.functions()) {
        if (function >= num_functions) {
          return error(absl::StrCat("function index ", function, " of ",
                                    num_functions));
        }
      }
    }

    // Results and their used-by lists.
    const uint32_t* used_by = kernel.used_by();
    auto results = kernel.results();
    auto counts = kernel.used_by_counts();
    for (uint32_t i = 0; i < results.size(); ++i) {
      uint32_t reg = results[i];
      bool special = k == 0 && i == 0;
      if (!special) {
        if (reg >= info->num_registers) {
          return error(absl::StrCat("result register ", reg, " of ",
                                    info->num_registers));
        }
        if (producer[reg] != 0) {
          return error(absl::StrCat("register ", reg, " is produced twice"));
        }
        producer[reg] = k + 1;
      }
      for (uint32_t u = 0; u < counts[i]; ++u) {
        uint32_t user = *used_by++;
        if (user <= k || user >= num_kernels) {
          return error(absl::StrCat("used-by entry ", user,
                                    " is not a later kernel"));
        }
        listed_uses.emplace_back(reg, user);
      }
    }
    // With every index of the record checked, what the kernel reads.
    if (k > 0) {
      BEF_RETURN_IF_ERROR(VerifyKernel(k, kernel, register_types, reader,
                                       list_start + kernel_offsets[k], sync));
    }
  }

  // ---- Dataflow consistency.
  auto error = [&](std::string_view what) {
    return reader.ErrorAt(list_start, what);
  };
  if (!SameUses(operand_uses, listed_uses, special_register + 1)) {
    return error("used-by lists do not match the kernels' operands");
  }
  for (uint32_t reg : info->result_registers) {
    ++counted_uses[reg];
    if (producer[reg] == 0) {
      return error(absl::StrCat("result register ", reg, " is never produced"));
    }
  }
  for (uint32_t reg = 0; reg < info->num_registers; ++reg) {
    if (counted_uses[reg] != info->register_uses[reg]) {
      return error(absl::StrCat("register ", reg, " has ",
                                info->register_uses[reg], " uses recorded, ",
                                counted_uses[reg], " counted"));
    }
  }

  info->initial_ready_counts.resize(num_kernels);
  for (uint32_t k = 0; k < num_kernels; ++k) {
    info->initial_ready_counts[k] = std::max<uint32_t>(1, num_operands[k]);
    if (k > 0 && !kernel_entries_.empty()) {
      const KernelEntry* kernel_entry = kernel_entries_[info->kernels[k].code()];
      KernelInfo& kernel = info->kernels[k];
      kernel.async_implementation = kernel_entry->async_implementation;
      kernel.sync_implementation = kernel_entry->sync_implementation;
      const DirectKernel& direct = kernel_entry->direct;
      if (!sync && direct && kernel.num_results() == direct.num_results &&
          kernel.num_arguments() == direct.num_operands &&
          kernel.num_arguments() <= kMaxDirectArguments) {
        kernel.direct = &direct;
      }
      kernel.chain_only = !sync && kernel_entry->chain_only && kernel.num_results() == 1;
      const FunctionCallKind call = kernel_entry->function_call;
      const uint32_t call_functions = call == FunctionCallKind::kIf ? 2 : 1;
      if (!sync && call != FunctionCallKind::kNone && kernel.num_functions() == call_functions &&
          (call != FunctionCallKind::kIf || kernel.num_arguments() >= 1)) {
        kernel.function_call = call;
      }
    }
  }
  return info;
}

absl::Status BefFile::VerifyKernel(uint32_t k, const KernelInfo& kernel,
                                   const std::vector<uint32_t>& register_types,
                                   const ByteReader& reader, size_t position,
                                   bool sync) const {
  auto error = [&](std::string_view what) {
    return reader.ErrorAt(position, absl::StrCat("kernel ", k, " (",
                                                 ToAbsl(kernel_names_[kernel.code()]),
                                                 "): ", ToAbsl(what)));
  };
  auto pool = attributes();
  const KernelEntry* entry =
      kernel_entries_.empty() ? nullptr : kernel_entries_[kernel.code()];
  const KernelSignature* signature = nullptr;
  if (entry != nullptr) {
    signature = sync ? &entry->sync_signature : &entry->async_signature;
    bool implemented = sync ? entry->sync_implementation != nullptr
                            : entry->async_implementation != nullptr;
    if (!implemented) {
      return error(sync ? "the kernel has no sync implementation"
                        : "the kernel has no async implementation");
    }
    if (!signature->known) signature = nullptr;
  }

  // Attributes: in the pool, and decodable as the kernel reads them.
  auto attributes_read = kernel.attributes();
  for (uint32_t i = 0; i < attributes_read.size(); ++i) {
    uint32_t offset = attributes_read[i];
    if (offset >= pool.size()) {
      return error(absl::StrCat("attribute offset ", offset,
                                " is outside the Attributes section of ",
                                pool.size(), " bytes"));
    }
    uint32_t layout = 0;
    if (signature != nullptr && i < signature->attributes.size()) {
      layout = signature->attributes[i];
    } else if (auto type = AttributeTypeAt(offset)) {
      layout = *type;
    }
    if (layout != 0) {
      absl::StatusOr<DecodedAttribute> decoded = DecodeAttribute(pool, offset, layout);
      if (!decoded.ok()) {
        return error(absl::StrCat("attribute ", i, ": ",
                                  FormatErrorDetail(decoded.status())));
      }
    }
  }
  if (signature == nullptr) return absl::OkStatus();

  // The record must provide everything the kernel reads.
  const size_t declared_arguments = signature->arguments.size();
  if (kernel.num_arguments() < declared_arguments) {
    return error(absl::StrCat(kernel.num_arguments(), " operands, the kernel reads ",
                              declared_arguments));
  }
  if (kernel.num_attributes() < signature->attributes.size()) {
    return error(absl::StrCat(kernel.num_attributes(),
                              " attributes, the kernel reads ",
                              signature->attributes.size()));
  }
  if (kernel.num_functions() < signature->num_functions) {
    return error(absl::StrCat(kernel.num_functions(),
                              " functions, the kernel reads ",
                              signature->num_functions));
  }
  if (kernel.num_results() < signature->results.size() ||
      (!signature->variadic_results &&
       kernel.num_results() > signature->results.size())) {
    return error(absl::StrCat(kernel.num_results(), " results, the kernel sets ",
                              signature->results.size()));
  }
  if (register_types.empty()) return absl::OkStatus();

  // Register types against the signature. One extra trailing chain operand
  // is accepted (TFRT programs pass chains to kernels that ignore them).
  auto arguments = kernel.arguments();
  for (size_t i = 0; i < arguments.size(); ++i) {
    std::string_view actual = type_names_[register_types[arguments[i]]];
    if (i < declared_arguments) {
      std::string_view expected = signature->arguments[i];
      if (!expected.empty() && expected != actual) {
        return error(absl::StrCat("operand ", i, " is ", ToAbsl(actual),
                                  ", the kernel expects ", ToAbsl(expected)));
      }
    } else if (!signature->variadic_arguments &&
               !(i == declared_arguments && i + 1 == arguments.size() &&
                 IsChainType(actual))) {
      return error(absl::StrCat(arguments.size(), " operands, the kernel takes ",
                                declared_arguments));
    }
  }
  auto results = kernel.results();
  for (size_t i = 0; i < signature->results.size(); ++i) {
    std::string_view expected = signature->results[i];
    std::string_view actual = type_names_[register_types[results[i]]];
    if (!expected.empty() && expected != actual) {
      return error(absl::StrCat("result ", i, " is ", ToAbsl(actual),
                                ", the kernel produces ", ToAbsl(expected)));
    }
  }
  return absl::OkStatus();
}

}  // namespace bef
