// BefFile: a loaded, verified BEF image.
//
//   absl::StatusOr<std::unique_ptr<BefFile>> file =
//       BefFile::Open("program.bef", {.kernels = &host.kernel_registry(),
//                                     .native_functions = &host.native_functions()});
//   const BefFunctionEntry* main = (*file)->FindFunction("main");
//   absl::StatusOr<const FunctionInfo*> info = (*file)->GetFunctionInfo(main->index);
//
// Open reads the file into memory the BefFile owns (or copies a buffer into
// 8-aligned storage; BefLoadOptions::map_file maps it instead), walks the
// sections, and verifies everything it will later trust: the
// Kernels and Types tables (names resolved against the kernel registry), the
// function index (kinds, record offsets, names, type indices; native
// functions resolved), and the records of sync functions. It costs time
// proportional to those tables, not to the file.
//
// A function's record is verified and inflated into a FunctionInfo on first
// use (GetFunctionInfo), exactly once even when called concurrently: every
// register, kernel offset, kernel code, argument, attribute (decoded as the
// kernel reads it), function index, result and used-by entry is checked, and
// the dataflow must be consistent (each register produced once, use counts
// matching uses, used-by lists matching operands, producers before users).
// After that the executor trusts the record and reads it in place.
//
// Errors are absl::Status with TFRT's summary as the message (what
// bef_executor prints) and the section, byte offset and cause in the detail
// (DescribeFormatError prints both). An unknown kernel error may carry the
// location of the first kernel that uses it (LoadErrorLocation).
//
// Thread safety: a BefFile is immutable after Open except for lazy
// inflation, which is thread-safe; all accessors may be called from any
// thread.
#ifndef BEF_LOADER_BEF_FILE_H_
#define BEF_LOADER_BEF_FILE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "bef/async/location.h"
#include "bef/format/bef_encoding.h"
#include "bef/format/bef_records.h"
#include "bef/format/byte_reader.h"
#include "bef/format/section_reader.h"
#include "bef/host/kernel_registry.h"
#include "bef/host/native_function.h"
#include "bef/loader/function_info.h"

namespace bef {

struct BefLoadOptions {
  // Resolve kernel names (unknown names fail the load). Null: names are not
  // resolved and FunctionInfo has no implementations (bef-dump).
  const KernelRegistry* kernels = nullptr;
  // Resolve native functions (unknown names fail the load). Null: not
  // resolved.
  const NativeFunctionRegistry* native_functions = nullptr;
  // Check kernel operand/result register types against kernel signatures
  // when the RegisterTypes section is present.
  bool check_register_types = true;

  // ---- How Open reads a file (docs/reliability.md, "Files").
  // By default the bytes are read into memory the BefFile owns: the file
  // may be rewritten, truncated or removed while the program runs, and the
  // program keeps the bytes it loaded. With `map_file` a regular file is
  // mapped read-only instead (no copy, pages shared with the page cache),
  // which is only safe for a file nothing changes while it is loaded: a
  // truncation makes the next read of a lost page kill the process with
  // SIGBUS, an in-place rewrite changes the program under it.
  bool map_file = false;
  // Refuse what is not a regular file (FIFOs, devices, sockets, "-") with
  // FAILED_PRECONDITION, without blocking on opening it: what a server
  // loading files others may replace wants. Otherwise such inputs are read
  // as a stream (the BEF magic first, so `/dev/zero` fails at once).
  bool regular_files_only = false;
  // The largest input read (a larger one fails with RESOURCE_EXHAUSTED
  // before it is read); also bounds a stream that never ends.
  uint64_t max_file_bytes = uint64_t{1} << 30;
};

// One FunctionIndex entry.
struct BefFunctionEntry {
  uint32_t index = 0;
  FunctionKind kind = FunctionKind::kBefFunction;
  std::string_view name;  // "" for anonymous (region) functions
  uint32_t record_offset = 0;  // in the Functions section (not for natives)
  std::vector<uint32_t> argument_types;  // Types-section indices
  std::vector<uint32_t> result_types;
  NativeCallable native = nullptr;  // resolved native functions
};

class BefFile : public LocationDecoder {
 public:
  // Loads `path` ("-": standard input) as `options` says.
  static absl::StatusOr<std::unique_ptr<BefFile>> Open(
      const std::string& path, BefLoadOptions options = {});
  // Loads from memory; copies into 8-aligned storage when `bytes` is not
  // 8-aligned (or when `copy` is true). Otherwise `bytes` must outlive the
  // BefFile.
  static absl::StatusOr<std::unique_ptr<BefFile>> OpenBuffer(
      std::span<const uint8_t> bytes, BefLoadOptions options = {},
      std::string name = "<buffer>", bool copy = false);

  ~BefFile() override;

  const std::string& name() const { return name_; }
  std::span<const uint8_t> image() const { return image_; }
  // Keeps the image's bytes alive (also after the BefFile is gone), for
  // values that view the image in place, e.g. tensors built from dense
  // attributes. Null when the bytes are the caller's (OpenBuffer without a
  // copy): such views must copy instead.
  const std::shared_ptr<const void>& image_owner() const { return image_owner_; }
  const SectionTable& sections() const { return sections_; }

  // ---- Tables.
  size_t num_kernels() const { return kernel_names_.size(); }
  std::string_view kernel_name(uint32_t code) const { return kernel_names_[code]; }
  // Null when kernels were not resolved.
  const KernelEntry* kernel(uint32_t code) const {
    return kernel_entries_.empty() ? nullptr : kernel_entries_[code];
  }
  size_t num_types() const { return type_names_.size(); }
  std::string_view type_name(uint32_t index) const { return type_names_[index]; }

  // ---- Functions.
  size_t num_functions() const { return functions_.size(); }
  const BefFunctionEntry& function(uint32_t index) const { return functions_[index]; }
  // The named function, or null. Anonymous functions cannot be found by name.
  const BefFunctionEntry* FindFunction(std::string_view name) const;
  // Verifies and inflates a BEF or sync function's record on first use.
  // REQUIRES: the function is not native.
  absl::StatusOr<const FunctionInfo*> GetFunctionInfo(uint32_t index) const;
  // How many functions have been inflated so far (for tests).
  int num_inflated_functions() const { return num_inflated_.load(); }

  // ---- Optional sections (empty spans when absent).
  std::span<const uint8_t> attributes() const {
    return sections_.body(SectionId::kAttributes);
  }
  // The attribute type of a top-level attribute from the AttributeTypes
  // section, or std::nullopt.
  std::optional<uint32_t> AttributeTypeAt(uint32_t offset) const;
  // Attribute names of function `index` (AttributeNames section): one list
  // per kernel (kernel 0 is the pseudo kernel, with none). Empty when the
  // section is absent. Decoded and verified on each call (tools only).
  absl::StatusOr<std::vector<std::vector<std::string_view>>> AttributeNames(
      uint32_t index) const;
  // Register type indices of function `index` (RegisterTypes section), or
  // an empty vector when the section is absent.
  absl::StatusOr<std::vector<uint32_t>> RegisterTypes(uint32_t index) const;

  // ---- Locations.
  // A kernel or function location field as a diagnostic location. Offsets
  // outside the Locations section (virtual locations) decode as TFRT does:
  // a file location with an empty name and line/column 4294967295.
  DecodedLocation DecodeLocation(uint64_t offset) const override;
  // The same location as its tree, for tools (std::nullopt when out of
  // range or malformed).
  using LocationNode = LocationRecord;  // bef_records.h
  std::optional<LocationNode> DecodeLocationTree(uint32_t offset) const;

 private:
  struct Storage;
  BefFile() = default;
  absl::Status Load(const BefLoadOptions& options);
  absl::Status ReadKernels(const BefLoadOptions& options);
  absl::Status ReadTypes();
  absl::Status ReadFunctionIndex(const BefLoadOptions& options);
  absl::Status ReadAttributeTypes();
  absl::Status ReportUnknownKernel(uint32_t code) const;
  absl::StatusOr<std::unique_ptr<FunctionInfo>> Inflate(uint32_t index) const;
  absl::Status ReadNameTable(SectionId id, std::string_view summary, std::string_view what,
                             std::vector<std::string_view>& names);
  absl::Status VerifyKernel(uint32_t k, const KernelInfo& kernel,
                            const std::vector<uint32_t>& register_types,
                            const ByteReader& reader, size_t position,
                            bool sync) const;

  std::string name_;
  std::shared_ptr<Storage> storage_;
  std::shared_ptr<const void> image_owner_;
  std::span<const uint8_t> image_;
  SectionTable sections_;
  BefLoadOptions options_;

  std::vector<std::string_view> kernel_names_;
  std::vector<const KernelEntry*> kernel_entries_;
  std::vector<std::string_view> type_names_;
  std::vector<BefFunctionEntry> functions_;
  absl::flat_hash_map<std::string_view, uint32_t> function_by_name_;
  // End of each non-native function's record (start of the next record in
  // offset order, or the end of the section).
  std::vector<uint32_t> record_ends_;
  absl::flat_hash_map<uint32_t, uint32_t> attribute_types_;

  struct LazyFunction {
    std::once_flag once;
    std::unique_ptr<FunctionInfo> info;
    absl::Status status;
  };
  std::unique_ptr<LazyFunction[]> lazy_;
  mutable std::atomic<int> num_inflated_{0};
};

// The location attached to a load error (unknown kernel), if any.
std::optional<DecodedLocation> LoadErrorLocation(const absl::Status& status);

// The bytes of `path`, read as Open reads a file with `regular_files_only`
// and `max_file_bytes = limit`: opened without blocking (a FIFO is refused
// at once, never waited on), refused unless a regular file, refused before
// reading when larger than `limit`; a file that shrinks while read gives
// the bytes it had. For the other files a server loads beside its BEF
// files (a model's config.json). Errors as Open's: NOT_FOUND when it cannot
// be opened (gone, a symlink loop, EACCES: the message says which),
// FAILED_PRECONDITION when it is not a regular file, RESOURCE_EXHAUSTED
// when it is larger than `limit`, DATA_LOSS when a read fails.
absl::StatusOr<std::string> ReadRegularFile(const std::string& path, uint64_t limit);

}  // namespace bef

#endif  // BEF_LOADER_BEF_FILE_H_
