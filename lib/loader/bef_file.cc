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
#include "bef/format/bef_encoding.h"
#include "bef/format/bef_records.h"
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

// Closes a file descriptor on every path out.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }
  void Reset(int fd) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

// `setting` names where the limit comes from, if anywhere.
absl::Status TooLarge(const std::string& name, uint64_t limit,
                      std::string_view setting = "BefLoadOptions::max_file_bytes") {
  return absl::ResourceExhaustedError(absl::StrCat(
      "input file '", name, "' is larger than ", limit, " bytes, the limit of what is loaded",
      setting.empty() ? "" : absl::StrCat(" (", ToAbsl(setting), ")")));
}

absl::Status CannotOpen(const std::string& name) {
  return absl::NotFoundError(
      absl::StrCat("cannot open input file '", name, "': ", std::strerror(errno)));
}

absl::Status ReadError(const std::string& name) {
  return absl::DataLossError(
      absl::StrCat("cannot read input file '", name, "': ", std::strerror(errno)));
}

// Reads up to `size` bytes at the start of `fd` into `buffer`; fewer when
// the file ends sooner (it shrank since its size was taken).
absl::StatusOr<size_t> ReadPrefix(int fd, uint8_t* buffer, size_t size,
                                  const std::string& name) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::pread(fd, buffer + done, size - done, static_cast<off_t>(done));
    if (n > 0) {
      done += static_cast<size_t>(n);
    } else if (n == 0) {
      break;
    } else if (errno != EINTR) {
      return ReadError(name);
    }
  }
  return done;
}

// Opens `path` for reading without blocking (opening a FIFO without a
// writer returns at once) and takes its status.
absl::Status OpenWithoutBlocking(const std::string& path, FileDescriptor& fd, struct stat& info) {
  fd.Reset(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (fd.get() < 0) return CannotOpen(path);
  if (fstat(fd.get(), &info) != 0) return ReadError(path);
  return absl::OkStatus();
}

// The rest of `fd` (stdin, a pipe, a device), read to its end -- unless its
// first bytes are not BEF's magic (then what came so far, which the loader
// rejects, so `/dev/zero` fails at once) or it exceeds `limit` bytes.
absl::StatusOr<std::string> ReadStream(int fd, const std::string& name, uint64_t limit) {
  std::string data;
  char buffer[65536];
  while (true) {
    ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n > 0) {
      data.append(buffer, static_cast<size_t>(n));
      if (data.size() > limit) return TooLarge(name, limit);
      if (data.size() >= 2 && (static_cast<uint8_t>(data[0]) != kBefMagic1 ||
                               static_cast<uint8_t>(data[1]) != kBefMagic2)) {
        return data;
      }
    } else if (n == 0) {
      return data;
    } else if (errno != EINTR) {
      return ReadError(name);
    }
  }
}

const char* FileKind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

absl::Status NotRegular(const std::string& name, mode_t mode) {
  return absl::FailedPreconditionError(
      absl::StrCat("input file '", name, "' is ", FileKind(mode), ", not a regular file"));
}

}  // namespace

BefFile::~BefFile() = default;

absl::StatusOr<std::unique_ptr<BefFile>> BefFile::Open(const std::string& path,
                                                       BefLoadOptions options) {
  auto from_stream = [&](int fd, const std::string& name)
      -> absl::StatusOr<std::unique_ptr<BefFile>> {
    absl::StatusOr<std::string> data = ReadStream(fd, name, options.max_file_bytes);
    if (!data.ok()) return data.status();
    return OpenBuffer({reinterpret_cast<const uint8_t*>(data->data()), data->size()},
                      options, name, /*copy=*/true);
  };
  if (path == "-") {
    if (options.regular_files_only) {
      return absl::FailedPreconditionError(
          "standard input is not a regular file; give a file name");
    }
    return from_stream(STDIN_FILENO, "<stdin>");
  }
  FileDescriptor fd(-1);
  struct stat info;
  BEF_RETURN_IF_ERROR(OpenWithoutBlocking(path, fd, info));
  if (!S_ISREG(info.st_mode)) {
    if (options.regular_files_only || S_ISDIR(info.st_mode)) return NotRegular(path, info.st_mode);
    if (S_ISFIFO(info.st_mode)) {
      // A FIFO's read end opened without blocking reads end-of-file until
      // a writer opens it: opened again, blocking, it waits for the
      // writer, as `cat` does.
      FileDescriptor blocking(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
      if (blocking.get() < 0) return CannotOpen(path);
      return from_stream(blocking.get(), path);
    }
    // A device, read as a stream (blocking).
    int flags = fcntl(fd.get(), F_GETFL);
    if (flags >= 0) fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
    return from_stream(fd.get(), path);
  }
  const uint64_t size = static_cast<uint64_t>(info.st_size);
  if (size > options.max_file_bytes) return TooLarge(path, options.max_file_bytes);
  auto file = std::unique_ptr<BefFile>(new BefFile());
  file->name_ = path;
  file->storage_ = std::make_shared<Storage>();
  file->image_owner_ = file->storage_;
  if (size > 0 && options.map_file) {
    void* mapping = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd.get(), 0);
    if (mapping == MAP_FAILED) {
      return absl::InternalError(absl::StrCat("cannot map '", path,
                                              "': ", std::strerror(errno)));
    }
    file->storage_->mapping = mapping;
    file->storage_->mapping_size = size;
    file->image_ = {static_cast<const uint8_t*>(mapping), size};
  } else if (size > 0) {
    // The bytes become the program's own: whatever happens to the file
    // from now on, the loaded program keeps what was read here.
    file->storage_->copy.reset(new uint64_t[size / 8 + 1]);
    auto* bytes = reinterpret_cast<uint8_t*>(file->storage_->copy.get());
    absl::StatusOr<size_t> read = ReadPrefix(fd.get(), bytes, size, path);
    if (!read.ok()) return read.status();
    file->image_ = {bytes, *read};
  }
  BEF_RETURN_IF_ERROR(file->Load(options));
  return file;
}

absl::StatusOr<std::string> ReadRegularFile(const std::string& path, uint64_t limit) {
  FileDescriptor fd(-1);
  struct stat info;
  BEF_RETURN_IF_ERROR(OpenWithoutBlocking(path, fd, info));
  if (!S_ISREG(info.st_mode)) return NotRegular(path, info.st_mode);
  const uint64_t size = static_cast<uint64_t>(info.st_size);
  if (size > limit) return TooLarge(path, limit, /*setting=*/"");
  std::string bytes(static_cast<size_t>(size), '\0');
  BEF_ASSIGN_OR_RETURN(
      const size_t read,
      ReadPrefix(fd.get(), reinterpret_cast<uint8_t*>(bytes.data()), bytes.size(), path));
  bytes.resize(read);
  return bytes;
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

// The Kernels and Types sections: a table of Strings offsets, the names.
absl::Status BefFile::ReadNameTable(SectionId id, std::string_view summary,
                                    std::string_view what,
                                    std::vector<std::string_view>& names) {
  const Section& section = *sections_[id];
  ByteReader reader(section.body, section.body_offset,
                    absl::StrCat(ToAbsl(SectionName(static_cast<uint8_t>(id))), " section"));
  reader.set_error_summary(summary);
  BEF_ASSIGN_OR_RETURN(std::vector<VbrEntry> offsets,
                       ReadVbrTable(reader, absl::StrCat(ToAbsl(what), "s")));
  auto strings = sections_.body(SectionId::kStrings);
  names.reserve(offsets.size());
  for (size_t i = 0; i < offsets.size(); ++i) {
    absl::StatusOr<std::string_view> name = ReadPoolString(strings, offsets[i].value);
    if (!name.ok()) {
      return reader.ErrorAt(offsets[i].at, absl::StrCat(ToAbsl(what), " ", i, ": ",
                                                        FormatErrorDetail(name.status())));
    }
    names.push_back(*name);
  }
  return absl::OkStatus();
}

absl::Status BefFile::ReadKernels(const BefLoadOptions& options) {
  if (!sections_.has(SectionId::kKernels)) {
    return FormatError(kInvalidKernels, "the file has no Kernels section");
  }
  BEF_RETURN_IF_ERROR(ReadNameTable(SectionId::kKernels, kInvalidKernels, "kernel",
                                    kernel_names_));
  if (options.kernels == nullptr) return absl::OkStatus();
  const uint32_t count = static_cast<uint32_t>(kernel_names_.size());
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
  absl::StatusOr<uint32_t> count = ReadTableCount(index, "functions");
  if (!count.ok()) return status;
  std::vector<FunctionIndexRecord> candidates;
  for (uint32_t i = 0; i < *count; ++i) {
    absl::StatusOr<FunctionIndexRecord> entry = ReadFunctionIndexRecord(index);
    if (!entry.ok() || !entry->argument_types.empty() || !entry->result_types.empty()) {
      return status;
    }
    candidates.push_back(std::move(*entry));
  }
  for (const FunctionIndexRecord& candidate : candidates) {
    if (candidate.kind == static_cast<uint8_t>(FunctionKind::kNativeFunction)) {
      continue;
    }
    ByteReader record(functions, 0, "record");
    if (!record.Seek(candidate.record_offset).ok()) continue;
    FunctionRecordPart failed;
    absl::StatusOr<FunctionRecordHead> head = ReadFunctionRecordHead(record, 0, &failed);
    if (!head.ok()) continue;
    const size_t list = record.position();
    for (size_t k = 1; k < head->kernels.size(); ++k) {
      uint64_t at = uint64_t{list} + head->kernels[k].offset;
      if (at + 8 > functions.size()) break;
      const uint8_t* words = functions.data() + at;
      if (reinterpret_cast<uintptr_t>(words) % alignof(uint32_t) != 0) break;
      const KernelRecord kernel{reinterpret_cast<const uint32_t*>(words)};
      if (kernel.code() == code) {
        SetLocationPayload(status, DecodeLocation(kernel.location()));
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
  return ReadNameTable(SectionId::kTypes, kInvalidTypes, "type", type_names_);
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
  BEF_ASSIGN_OR_RETURN(uint32_t count, ReadTableCount(reader, "functions"));
  functions_.resize(count);
  auto check_types = [&](const std::vector<uint32_t>& types, size_t at) -> absl::Status {
    for (uint32_t type : types) {
      if (type >= type_names_.size()) {
        return reader.ErrorAt(at, absl::StrCat("type index ", type, " of ",
                                               type_names_.size()));
      }
    }
    return absl::OkStatus();
  };
  for (uint32_t i = 0; i < count; ++i) {
    BefFunctionEntry& entry = functions_[i];
    entry.index = i;
    BEF_ASSIGN_OR_RETURN(FunctionIndexRecord record, ReadFunctionIndexRecord(reader));
    if (record.kind >= kNumFunctionKinds) {
      return reader.ErrorAt(record.kind_at, absl::StrCat("function ", i, " has kind ",
                                                         int{record.kind}));
    }
    entry.kind = static_cast<FunctionKind>(record.kind);
    entry.record_offset = record.record_offset;
    const size_t offset_at = record.record_offset_at;
    const size_t name_at = record.name_at;
    const uint32_t name_offset = record.name_offset;
    absl::StatusOr<std::string_view> name = ReadPoolString(strings, name_offset);
    if (!name.ok()) {
      return reader.ErrorAt(name_at, absl::StrCat("function ", i, " name: ",
                                                  FormatErrorDetail(name.status())));
    }
    entry.name = *name;
    BEF_RETURN_IF_ERROR(check_types(record.argument_types, record.types_at));
    BEF_RETURN_IF_ERROR(check_types(record.result_types, record.types_at));
    entry.argument_types = std::move(record.argument_types);
    entry.result_types = std::move(record.result_types);
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
  BEF_ASSIGN_OR_RETURN(std::vector<AttributeTypeEntry> entries, ReadAttributeTypeTable(reader));
  absl::flat_hash_map<uint32_t, uint32_t> types;
  for (const AttributeTypeEntry& entry : entries) types[entry.offset] = entry.type;
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
  BEF_ASSIGN_OR_RETURN(uint32_t count, ReadPerFunctionTableCount(reader));
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
    return ReadVbrTable(reader, "register types").status();
  };
  BEF_ASSIGN_OR_RETURN(std::optional<ByteReader> reader,
                       SeekOptionalTable(sections_, SectionId::kRegisterTypes,
                                         functions_, index, skip));
  std::vector<uint32_t> types;
  if (!reader) return types;
  BEF_ASSIGN_OR_RETURN(std::vector<VbrEntry> entries, ReadVbrTable(*reader, "register types"));
  for (size_t r = 0; r < entries.size(); ++r) {
    if (entries[r].value >= type_names_.size()) {
      return reader->ErrorAt(entries[r].at,
                             absl::StrCat("register ", r, " has type index ", entries[r].value,
                                          " of ", type_names_.size()));
    }
    types.push_back(entries[r].value);
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
  ByteReader section_reader(section.body, section.body_offset, "AttributeNames section");
  section_reader.set_error_summary("invalid AttributeNames section in BEF file");
  AttributeNamesReader reader(section_reader);
  BEF_ASSIGN_OR_RETURN(uint32_t count, reader.ReadFunctionCount());
  if (count != functions_.size()) {
    return reader.reader().Error(absl::StrCat("lists ", count, " functions, the index has ",
                                              functions_.size()));
  }
  auto strings = sections_.body(SectionId::kStrings);
  for (uint32_t i = 0; i <= index; ++i) {
    if (functions_[i].kind == FunctionKind::kNativeFunction) continue;
    BEF_ASSIGN_OR_RETURN(const FunctionInfo* info, GetFunctionInfo(i));
    BEF_ASSIGN_OR_RETURN(uint32_t kernels, reader.ReadKernelCount());
    if (kernels != info->kernels.size()) {
      return reader.reader().Error(absl::StrCat("function ", i, " lists ", kernels,
                                                " kernels, its record has ",
                                                info->kernels.size()));
    }
    names.assign(kernels, {});
    for (uint32_t k = 0; k < kernels; ++k) {
      uint32_t n = k == 0 ? 0 : info->kernels[k].num_attributes();
      for (uint32_t a = 0; a < n; ++a) {
        size_t at = reader.reader().position();
        BEF_ASSIGN_OR_RETURN(uint32_t offset, reader.ReadName());
        absl::StatusOr<std::string_view> name = ReadPoolString(strings, offset);
        if (!name.ok()) {
          return reader.reader().ErrorAt(at, FormatErrorDetail(name.status()));
        }
        names[k].push_back(*name);
      }
    }
  }
  return names;
}

}  // namespace bef
