#include "bef/loader/bef_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "bef/format/byte_reader.h"
#include "bef/format/format_error.h"
#include "bef/support/status_macros.h"
#include "bef/support/string_view.h"

namespace bef {
namespace {

constexpr char kInvalidKernels[] = "invalid Kernels section in BEF file";
constexpr char kInvalidTypes[] = "invalid Types section in BEF file";
constexpr char kInvalidIndex[] =
    "invalid FunctionIndex section in BEF file: Failed to read the "
    "FunctionIndex section";
constexpr char kLocationPayload[] = "bef.location";

// Attaches a decoded location to a load error.
void SetLocationPayload(absl::Status& status, const DecodedLocation& location) {
  std::string encoded =
      location.opaque
          ? absl::StrCat("O\t", ToAbsl(location.description))
          : absl::StrCat("F\t", ToAbsl(location.filename), "\t", location.line,
                         "\t", location.column);
  status.SetPayload(kLocationPayload, absl::Cord(encoded));
}

}  // namespace

std::optional<DecodedLocation> LoadErrorLocation(const absl::Status& status) {
  auto payload = status.GetPayload(kLocationPayload);
  if (!payload) return std::nullopt;
  std::string encoded(*payload);
  std::vector<std::string> parts = absl::StrSplit(encoded, '\t');
  DecodedLocation location;
  if (parts.size() == 2 && parts[0] == "O") {
    location.opaque = true;
    location.description = parts[1];
    return location;
  }
  if (parts.size() == 4 && parts[0] == "F") {
    location.filename = parts[1];
    location.line = static_cast<uint32_t>(std::stoul(parts[2]));
    location.column = static_cast<uint32_t>(std::stoul(parts[3]));
    return location;
  }
  return std::nullopt;
}

// Owns the bytes: a read-only mapping or an 8-aligned heap copy.
struct BefFile::Storage {
  ~Storage() {
    if (mapping != nullptr) munmap(mapping, mapping_size);
  }
  void* mapping = nullptr;
  size_t mapping_size = 0;
  std::unique_ptr<uint64_t[]> copy;
};

namespace {

// The rest of `fd` (stdin, a pipe, a device), read to its end.
absl::StatusOr<std::string> ReadAll(int fd, const std::string& name) {
  std::string data;
  char buffer[65536];
  while (true) {
    ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n > 0) {
      data.append(buffer, static_cast<size_t>(n));
    } else if (n == 0) {
      return data;
    } else if (errno != EINTR) {
      return absl::DataLossError(
          absl::StrCat("cannot read input file '", name, "': ", std::strerror(errno)));
    }
  }
}

}  // namespace

BefFile::~BefFile() = default;

absl::StatusOr<std::unique_ptr<BefFile>> BefFile::Open(const std::string& path,
                                                       BefLoadOptions options) {
  if (path == "-") {
    absl::StatusOr<std::string> data = ReadAll(STDIN_FILENO, "<stdin>");
    if (!data.ok()) return data.status();
    return OpenBuffer({reinterpret_cast<const uint8_t*>(data->data()), data->size()},
                      options, "<stdin>", /*copy=*/true);
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::NotFoundError(absl::StrCat("cannot open input file '", path,
                                            "': ", std::strerror(errno)));
  }
  struct stat info;
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    // Not a regular file (a pipe, a device): read it into memory.
    absl::StatusOr<std::string> data = ReadAll(fd, path);
    ::close(fd);
    if (!data.ok()) return data.status();
    return OpenBuffer({reinterpret_cast<const uint8_t*>(data->data()), data->size()},
                      options, path, /*copy=*/true);
  }
  auto file = std::unique_ptr<BefFile>(new BefFile());
  file->name_ = path;
  file->storage_ = std::make_shared<Storage>();
  file->image_owner_ = file->storage_;
  size_t size = static_cast<size_t>(info.st_size);
  if (size > 0) {
    void* mapping = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (mapping == MAP_FAILED) {
      ::close(fd);
      return absl::InternalError(absl::StrCat("cannot map '", path,
                                              "': ", std::strerror(errno)));
    }
    file->storage_->mapping = mapping;
    file->storage_->mapping_size = size;
    file->image_ = {static_cast<const uint8_t*>(mapping), size};
  }
  ::close(fd);
  BEF_RETURN_IF_ERROR(file->Load(options));
  return file;
}

absl::StatusOr<std::unique_ptr<BefFile>> BefFile::OpenBuffer(
    std::span<const uint8_t> bytes, BefLoadOptions options, std::string name,
    bool copy) {
  auto file = std::unique_ptr<BefFile>(new BefFile());
  file->name_ = std::move(name);
  file->storage_ = std::make_shared<Storage>();
  bool aligned =
      reinterpret_cast<uintptr_t>(bytes.data()) % kBefBufferAlignment == 0;
  if (copy || !aligned) {
    file->storage_->copy.reset(new uint64_t[bytes.size() / 8 + 1]);
    if (!bytes.empty()) {
      std::memcpy(file->storage_->copy.get(), bytes.data(), bytes.size());
    }
    file->image_ = {reinterpret_cast<const uint8_t*>(file->storage_->copy.get()),
                    bytes.size()};
    file->image_owner_ = file->storage_;
  } else {
    file->image_ = bytes;
  }
  BEF_RETURN_IF_ERROR(file->Load(options));
  return file;
}

absl::Status BefFile::Load(const BefLoadOptions& options) {
  options_ = options;
  BEF_ASSIGN_OR_RETURN(sections_, ReadSections(image_));
  BEF_RETURN_IF_ERROR(ReadKernels(options));
  BEF_RETURN_IF_ERROR(ReadTypes());
  BEF_RETURN_IF_ERROR(ReadFunctionIndex(options));
  ReadAttributeTypes().IgnoreError();  // optional: absent or unusable
  lazy_ = std::make_unique<LazyFunction[]>(functions_.size());
  // Sync function records are verified at load, as TFRT's loader does.
  for (const BefFunctionEntry& entry : functions_) {
    if (entry.kind != FunctionKind::kSyncBefFunction) continue;
    absl::StatusOr<const FunctionInfo*> info = GetFunctionInfo(entry.index);
    if (!info.ok()) return info.status();
  }
  return absl::OkStatus();
}

absl::Status BefFile::ReadKernels(const BefLoadOptions& options) {
  if (!sections_.has(SectionId::kKernels)) {
    return FormatError(kInvalidKernels, "the file has no Kernels section");
  }
  const Section& section = *sections_[SectionId::kKernels];
  ByteReader reader(section.body, section.body_offset, "Kernels section");
  reader.set_error_summary(kInvalidKernels);
  BEF_ASSIGN_OR_RETURN(uint32_t count, reader.ReadVbr32());
  if (count > reader.remaining()) {
    return reader.Error(absl::StrCat(count, " kernels cannot fit in ",
                                     reader.remaining(), " bytes"));
  }
  auto strings = sections_.body(SectionId::kStrings);
  kernel_names_.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    size_t at = reader.position();
    BEF_ASSIGN_OR_RETURN(uint32_t offset, reader.ReadVbr32());
    absl::StatusOr<std::string_view> name = ReadPoolString(strings, offset);
    if (!name.ok()) {
      return reader.ErrorAt(at, absl::StrCat("kernel ", i, ": ",
                                             FormatErrorDetail(name.status())));
    }
    kernel_names_.push_back(*name);
  }
  if (options.kernels == nullptr) return absl::OkStatus();
  kernel_entries_.reserve(count);
  for (uint32_t code = 0; code < count; ++code) {
    const KernelEntry* entry = options.kernels->Find(kernel_names_[code]);
    if (entry == nullptr) return ReportUnknownKernel(code);
    kernel_entries_.push_back(entry);
  }
  return absl::OkStatus();
}

absl::Status BefFile::ReportUnknownKernel(uint32_t code) const {
  absl::Status status = FormatError(
      absl::StrCat("unknown kernel name '", ToAbsl(kernel_names_[code]), "'"),
      absl::StrCat("Kernels section entry ", code,
                   " is not a registered kernel"));
  // TFRT looks for the first kernel record (in function-index order) using
  // the kernel to report its location, which only succeeds when no function
  // has arguments or results (its type table is still empty at that point).
  ByteReader index(sections_.body(SectionId::kFunctionIndex), 0, "index");
  auto functions = sections_.body(SectionId::kFunctions);
  absl::StatusOr<uint32_t> count = index.ReadVbr32();
  if (!count.ok()) return status;
  struct Candidate {
    uint8_t kind;
    uint32_t offset;
  };
  std::vector<Candidate> candidates;
  for (uint32_t i = 0; i < *count; ++i) {
    absl::StatusOr<uint8_t> kind = index.ReadByte();
    absl::StatusOr<uint32_t> offset = index.ReadVbr32();
    absl::StatusOr<uint32_t> name = index.ReadVbr32();
    absl::StatusOr<uint32_t> arguments = index.ReadVbr32();
    if (!kind.ok() || !offset.ok() || !name.ok() || !arguments.ok() ||
        *arguments != 0) {
      return status;
    }
    absl::StatusOr<uint32_t> results = index.ReadVbr32();
    if (!results.ok() || *results != 0) return status;
    candidates.push_back({*kind, *offset});
  }
  for (const Candidate& candidate : candidates) {
    if (candidate.kind == static_cast<uint8_t>(FunctionKind::kNativeFunction)) {
      continue;
    }
    ByteReader record(functions, 0, "record");
    auto skip_vbr = [&record] { return record.ReadVbr32().ok(); };
    if (!record.Seek(candidate.offset).ok() || !skip_vbr()) continue;
    absl::StatusOr<uint32_t> registers = record.ReadVbr32();
    if (!registers.ok() || *registers > record.remaining()) continue;
    bool ok = true;
    for (uint32_t r = 0; r < *registers && ok; ++r) ok = skip_vbr();
    absl::StatusOr<uint32_t> kernels = record.ReadVbr32();
    if (!ok || !kernels.ok() || *kernels > record.remaining()) continue;
    std::vector<uint32_t> offsets;
    for (uint32_t k = 0; k < *kernels && ok; ++k) {
      absl::StatusOr<uint32_t> offset = record.ReadVbr32();
      ok = offset.ok() && skip_vbr() && skip_vbr();
      if (ok) offsets.push_back(*offset);
    }
    if (!ok) continue;
    size_t list = (record.position() + 3) / 4 * 4;
    for (size_t k = 1; k < offsets.size(); ++k) {
      uint64_t at = uint64_t{list} + offsets[k];
      if (at + 8 > functions.size()) break;
      if (LoadFixed32(functions.data() + at) == code) {
        SetLocationPayload(status,
                           DecodeLocation(LoadFixed32(functions.data() + at + 4)));
        return status;
      }
    }
  }
  return status;
}

absl::Status BefFile::ReadTypes() {
  if (!sections_.has(SectionId::kTypes)) {
    return FormatError(kInvalidTypes, "the file has no Types section");
  }
  const Section& section = *sections_[SectionId::kTypes];
  ByteReader reader(section.body, section.body_offset, "Types section");
  reader.set_error_summary(kInvalidTypes);
  BEF_ASSIGN_OR_RETURN(uint32_t count, reader.ReadVbr32());
  if (count > reader.remaining()) {
    return reader.Error(absl::StrCat(count, " types cannot fit in ",
                                     reader.remaining(), " bytes"));
  }
  auto strings = sections_.body(SectionId::kStrings);
  type_names_.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    size_t at = reader.position();
    BEF_ASSIGN_OR_RETURN(uint32_t offset, reader.ReadVbr32());
    absl::StatusOr<std::string_view> name = ReadPoolString(strings, offset);
    if (!name.ok()) {
      return reader.ErrorAt(at, absl::StrCat("type ", i, ": ",
                                             FormatErrorDetail(name.status())));
    }
    type_names_.push_back(*name);
  }
  return absl::OkStatus();
}

absl::Status BefFile::ReadFunctionIndex(const BefLoadOptions& options) {
  if (!sections_.has(SectionId::kFunctionIndex)) {
    return FormatError(kInvalidIndex, "the file has no FunctionIndex section");
  }
  const Section& section = *sections_[SectionId::kFunctionIndex];
  ByteReader reader(section.body, section.body_offset, "FunctionIndex section");
  reader.set_error_summary(kInvalidIndex);
  auto strings = sections_.body(SectionId::kStrings);
  size_t functions_size = sections_.body(SectionId::kFunctions).size();
  BEF_ASSIGN_OR_RETURN(uint32_t count, reader.ReadVbr32());
  if (count > reader.remaining()) {
    return reader.Error(absl::StrCat(count, " functions cannot fit in ",
                                     reader.remaining(), " bytes"));
  }
  functions_.resize(count);
  auto read_types = [&](std::vector<uint32_t>& types) -> absl::Status {
    BEF_ASSIGN_OR_RETURN(uint32_t n, reader.ReadVbr32());
    if (n > reader.remaining()) {
      return reader.Error(absl::StrCat(n, " types cannot fit in ",
                                       reader.remaining(), " bytes"));
    }
    for (uint32_t i = 0; i < n; ++i) {
      size_t at = reader.position();
      BEF_ASSIGN_OR_RETURN(uint32_t type, reader.ReadVbr32());
      if (type >= type_names_.size()) {
        return reader.ErrorAt(at, absl::StrCat("type index ", type, " of ",
                                               type_names_.size()));
      }
      types.push_back(type);
    }
    return absl::OkStatus();
  };
  for (uint32_t i = 0; i < count; ++i) {
    BefFunctionEntry& entry = functions_[i];
    entry.index = i;
    size_t at = reader.position();
    BEF_ASSIGN_OR_RETURN(uint8_t kind, reader.ReadByte());
    if (kind >= kNumFunctionKinds) {
      return reader.ErrorAt(at, absl::StrCat("function ", i, " has kind ",
                                             int{kind}));
    }
    entry.kind = static_cast<FunctionKind>(kind);
    size_t offset_at = reader.position();
    BEF_ASSIGN_OR_RETURN(entry.record_offset, reader.ReadVbr32());
    size_t name_at = reader.position();
    BEF_ASSIGN_OR_RETURN(uint32_t name_offset, reader.ReadVbr32());
    absl::StatusOr<std::string_view> name = ReadPoolString(strings, name_offset);
    if (!name.ok()) {
      return reader.ErrorAt(name_at, absl::StrCat("function ", i, " name: ",
                                                  FormatErrorDetail(name.status())));
    }
    entry.name = *name;
    BEF_RETURN_IF_ERROR(read_types(entry.argument_types));
    BEF_RETURN_IF_ERROR(read_types(entry.result_types));
    switch (entry.kind) {
      case FunctionKind::kBefFunction:
      case FunctionKind::kSyncBefFunction:
        if (entry.record_offset >= functions_size) {
          ByteReader error_reader(section.body, section.body_offset,
                                  "FunctionIndex section");
          error_reader.set_error_summary(
              entry.kind == FunctionKind::kBefFunction
                  ? "invalid FunctionIndex section in BEF file: Invalid "
                    "offset found for BEFFunction"
                  : "invalid FunctionIndex section in BEF file: Invalid "
                    "offset found for SyncBEFFunction");
          return error_reader.ErrorAt(
              offset_at, absl::StrCat("function ", i, " record offset ",
                                      entry.record_offset,
                                      " is outside the Functions section of ",
                                      functions_size, " bytes"));
        }
        break;
      case FunctionKind::kNativeFunction:
        if (options.native_functions != nullptr) {
          entry.native = options.native_functions->Find(entry.name);
          if (entry.native == nullptr) {
            return FormatError(
                "invalid FunctionIndex section in BEF file: unable to find "
                "native function in global registry",
                absl::StrCat("native function '", ToAbsl(entry.name),
                             "' is not registered"));
          }
        }
        break;
    }
    if (!entry.name.empty()) function_by_name_.try_emplace(entry.name, i);
  }
  // Record ends: the next record start (in offset order) or the section end.
  std::vector<uint32_t> starts;
  for (const BefFunctionEntry& entry : functions_) {
    if (entry.kind != FunctionKind::kNativeFunction) {
      starts.push_back(entry.record_offset);
    }
  }
  std::sort(starts.begin(), starts.end());
  record_ends_.assign(count, 0);
  for (BefFunctionEntry& entry : functions_) {
    if (entry.kind == FunctionKind::kNativeFunction) continue;
    auto next = std::upper_bound(starts.begin(), starts.end(), entry.record_offset);
    record_ends_[entry.index] = next == starts.end()
                                    ? static_cast<uint32_t>(functions_size)
                                    : *next;
  }
  return absl::OkStatus();
}

absl::Status BefFile::ReadAttributeTypes() {
  if (!sections_.has(SectionId::kAttributeTypes)) return absl::OkStatus();
  const Section& section = *sections_[SectionId::kAttributeTypes];
  ByteReader reader(section.body, section.body_offset, "AttributeTypes section");
  reader.set_error_summary("invalid AttributeTypes section in BEF file");
  BEF_ASSIGN_OR_RETURN(uint32_t count, reader.ReadVbr32());
  if (count > reader.remaining()) {
    return reader.Error("attribute count exceeds the section");
  }
  absl::flat_hash_map<uint32_t, uint32_t> types;
  for (uint32_t i = 0; i < count; ++i) {
    BEF_ASSIGN_OR_RETURN(uint32_t offset, reader.ReadVbr32());
    BEF_ASSIGN_OR_RETURN(uint32_t type, reader.ReadVbr32());
    types[offset] = type;
  }
  attribute_types_ = std::move(types);
  return absl::OkStatus();
}

const BefFunctionEntry* BefFile::FindFunction(std::string_view name) const {
  auto it = function_by_name_.find(name);
  return it == function_by_name_.end() ? nullptr : &functions_[it->second];
}

std::optional<uint32_t> BefFile::AttributeTypeAt(uint32_t offset) const {
  auto it = attribute_types_.find(offset);
  if (it == attribute_types_.end()) return std::nullopt;
  return it->second;
}

absl::StatusOr<const FunctionInfo*> BefFile::GetFunctionInfo(
    uint32_t index) const {
  LazyFunction& lazy = lazy_[index];
  std::call_once(lazy.once, [this, index, &lazy] {
    absl::StatusOr<std::unique_ptr<FunctionInfo>> info = Inflate(index);
    if (info.ok()) {
      lazy.info = std::move(info).value();
    } else {
      lazy.status = info.status();
    }
    num_inflated_.fetch_add(1, std::memory_order_relaxed);
  });
  if (!lazy.status.ok()) return lazy.status;
  return lazy.info.get();
}

// Per-function optional tables: VBR #functions, then per non-native function
// a VBR count and data. Returns a reader positioned at function `index`'s
// table, or std::nullopt when the section is absent.
namespace {
absl::StatusOr<std::optional<ByteReader>> SeekOptionalTable(
    const SectionTable& sections, SectionId id,
    const std::vector<BefFunctionEntry>& functions, uint32_t index,
    const std::function<absl::Status(ByteReader&)>& skip_table) {
  if (!sections.has(id)) return std::optional<ByteReader>();
  const Section& section = *sections[id];
  ByteReader reader(section.body, section.body_offset,
                    absl::StrCat(ToAbsl(SectionName(section.id)), " section"));
  reader.set_error_summary(
      absl::StrCat("invalid ", ToAbsl(SectionName(section.id)),
                   " section in BEF file"));
  BEF_ASSIGN_OR_RETURN(uint32_t count, reader.ReadVbr32());
  if (count != functions.size()) {
    return reader.Error(absl::StrCat("lists ", count, " functions, the index has ",
                                     functions.size()));
  }
  for (uint32_t i = 0; i < index; ++i) {
    if (functions[i].kind == FunctionKind::kNativeFunction) continue;
    BEF_RETURN_IF_ERROR(skip_table(reader));
  }
  return std::optional<ByteReader>(reader);
}
}  // namespace

absl::StatusOr<std::vector<uint32_t>> BefFile::RegisterTypes(uint32_t index) const {
  auto skip = [](ByteReader& reader) -> absl::Status {
    BEF_ASSIGN_OR_RETURN(uint32_t n, reader.ReadVbr32());
    if (n > reader.remaining()) return reader.Error("register count exceeds the section");
    for (uint32_t r = 0; r < n; ++r) BEF_RETURN_IF_ERROR(reader.ReadVbr32().status());
    return absl::OkStatus();
  };
  BEF_ASSIGN_OR_RETURN(std::optional<ByteReader> reader,
                       SeekOptionalTable(sections_, SectionId::kRegisterTypes,
                                         functions_, index, skip));
  std::vector<uint32_t> types;
  if (!reader) return types;
  BEF_ASSIGN_OR_RETURN(uint32_t n, reader->ReadVbr32());
  if (n > reader->remaining()) return reader->Error("register count exceeds the section");
  for (uint32_t r = 0; r < n; ++r) {
    size_t at = reader->position();
    BEF_ASSIGN_OR_RETURN(uint32_t type, reader->ReadVbr32());
    if (type >= type_names_.size()) {
      return reader->ErrorAt(at, absl::StrCat("register ", r, " has type index ",
                                              type, " of ", type_names_.size()));
    }
    types.push_back(type);
  }
  return types;
}

absl::StatusOr<std::vector<std::vector<std::string_view>>> BefFile::AttributeNames(
    uint32_t index) const {
  // Each function's list is as long as the sum of its kernels' attribute
  // counts, which only its record knows: earlier functions are inflated.
  std::vector<std::vector<std::string_view>> names;
  if (!sections_.has(SectionId::kAttributeNames)) return names;
  const Section& section = *sections_[SectionId::kAttributeNames];
  ByteReader reader(section.body, section.body_offset, "AttributeNames section");
  reader.set_error_summary("invalid AttributeNames section in BEF file");
  BEF_ASSIGN_OR_RETURN(uint32_t count, reader.ReadVbr32());
  if (count != functions_.size()) {
    return reader.Error(absl::StrCat("lists ", count, " functions, the index has ",
                                     functions_.size()));
  }
  auto strings = sections_.body(SectionId::kStrings);
  for (uint32_t i = 0; i <= index; ++i) {
    if (functions_[i].kind == FunctionKind::kNativeFunction) continue;
    BEF_ASSIGN_OR_RETURN(const FunctionInfo* info, GetFunctionInfo(i));
    BEF_ASSIGN_OR_RETURN(uint32_t kernels, reader.ReadVbr32());
    if (kernels != info->kernels.size()) {
      return reader.Error(absl::StrCat("function ", i, " lists ", kernels,
                                       " kernels, its record has ",
                                       info->kernels.size()));
    }
    names.assign(kernels, {});
    for (uint32_t k = 0; k < kernels; ++k) {
      uint32_t n = k == 0 ? 0 : info->kernels[k].num_attributes();
      for (uint32_t a = 0; a < n; ++a) {
        size_t at = reader.position();
        BEF_ASSIGN_OR_RETURN(uint32_t offset, reader.ReadVbr32());
        absl::StatusOr<std::string_view> name = ReadPoolString(strings, offset);
        if (!name.ok()) {
          return reader.ErrorAt(at, FormatErrorDetail(name.status()));
        }
        names[k].push_back(*name);
      }
    }
  }
  return names;
}

}  // namespace bef
