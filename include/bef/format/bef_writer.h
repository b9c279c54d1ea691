// BefWriter: builds a complete BEF file in memory.
//
// It is the one place that lays out whole files: mlir-to-bef writes through it,
// and tests and benchmarks build programs with it directly.
//
//   BefWriter writer;
//   BefWriter::Function& f = writer.AddFunction(
//       FunctionKind::kBefFunction, "add_one", {"i32"}, {"i32"});
//   uint32_t one = f.AddKernel("tfrt.constant.i32")
//                      .AddAttribute(BefAttribute::I32(1), "value")
//                      .AddResult("i32");
//   uint32_t sum = f.AddKernel("tfrt.add.i32")
//                      .AddArgument(f.argument(0)).AddArgument(one)
//                      .AddResult("i32");
//   f.Return({sum});
//   absl::StatusOr<std::vector<uint8_t>> bytes = writer.Finish();
//
// Tables follow call order: kernel codes, type indices and attribute offsets
// are assigned on first use (KernelCode, TypeIndex, AddAttribute -- which the
// convenience methods call), and functions are numbered in AddFunction order.
// A caller that must reproduce another writer's order (mlir-to-bef follows
// TFRT's post-order walk) registers entries in that order first. Strings are
// collected and sorted at Finish().
//
// Derived at Finish(), following TFRT's translator:
//  * registers: arguments 0..n-1, then each AddResult in call order; the use
//    count of a register counts every operand slot and every Return use;
//  * the pseudo kernel (kernel 0): its first result is the special register
//    numbered NumRegs, used by every zero-operand kernel in kernel order; its
//    other results publish the arguments;
//  * used-by lists: for each result, one entry per use, latest kernel first
//    and within a kernel the higher operand slot first (MLIR's use-list order
//    for parsed text); Return uses are omitted. Kernel::SetUsedBy overrides.
//  * locations: one record per function, then per kernel, in function order;
//    LocationStrings and Locations are written only when some location was
//    encodable;
//  * optional sections (AttributeTypes, AttributeNames, RegisterTypes) unless
//    Options::emit_optional_sections is false; attribute names are then also
//    added to the Strings section.
#ifndef BEF_FORMAT_BEF_WRITER_H_
#define BEF_FORMAT_BEF_WRITER_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "bef/format/attribute_writer.h"
#include "bef/format/bef_encoding.h"

namespace bef {

// A source location as the writer encodes it (Locations section).
struct BefLocation {
  enum class Kind {
    kUnknown,
    kFileLineColumn,
    kName,
    kCallSite,
    kFused,
    // Cannot be written (an MLIR opaque location): the op gets a virtual
    // location offset (0xFFFFFFFE, 0xFFFFFFFD, ...) instead of a record.
    kUnencodable,
  };

  static BefLocation Unknown() { return {}; }
  static BefLocation FileLineColumn(std::string file, uint32_t line,
                                    uint32_t column);
  static BefLocation Name(std::string name, BefLocation child);
  static BefLocation CallSite(BefLocation callee, BefLocation caller);
  static BefLocation Fused(std::vector<BefLocation> children);
  static BefLocation Unencodable();

  // Name: always (an unencodable child is written as unknown); call site:
  // when callee and caller are; fused: when at least one child is (only
  // encodable children are written).
  bool IsEncodable() const;

  Kind kind = Kind::kUnknown;
  std::string text;  // file name or location name
  uint32_t line = 0;
  uint32_t column = 0;
  std::vector<BefLocation> children;  // name: 1; call site: callee, caller
};

struct BefWriterOptions {
  // AttributeTypes, AttributeNames and RegisterTypes (for bef-to-mlir and
  // register type checks); mlir-to-bef --disable-optional-sections clears it.
  bool emit_optional_sections = true;
};

class BefWriter {
 public:
  using Options = BefWriterOptions;

  class Function;

  // One kernel of a function, in kernel-table order.
  class Kernel {
   public:
    Kernel& AddArgument(uint32_t register_index);
    // Adds (or reuses) a top-level attribute. `name` is written to the
    // AttributeNames section.
    Kernel& AddAttribute(const BefAttribute& attribute,
                         std::string_view name = {});
    // An attribute already added with BefWriter::AddAttribute.
    Kernel& AddAttributeOffset(uint32_t offset, std::string_view name = {});
    Kernel& AddFunction(uint32_t function_index);
    // A new register of type `type`, as the kernel's next result.
    uint32_t AddResult(std::string_view type);
    Kernel& set_stream(uint32_t stream) {
      stream_ = stream;
      return *this;
    }
    // Replaces the derived used-by list of result `result_index`.
    Kernel& SetUsedBy(size_t result_index, std::vector<uint32_t> kernels);

    // Index in the function's kernel table (the pseudo kernel is 0).
    uint32_t index() const { return index_; }
    uint32_t result(size_t i) const { return results_[i]; }

   private:
    friend class BefWriter;
    friend class Function;
    Kernel(Function* function, uint32_t index, uint32_t code,
           BefLocation location)
        : function_(function),
          index_(index),
          code_(code),
          location_(std::move(location)) {}

    Function* function_;
    uint32_t index_;
    uint32_t code_;
    BefLocation location_;
    uint32_t stream_ = 0;
    std::vector<uint32_t> arguments_;
    std::vector<uint32_t> attributes_;
    std::vector<std::string> attribute_names_;
    std::vector<uint32_t> functions_;
    std::vector<uint32_t> results_;
    std::vector<std::optional<std::vector<uint32_t>>> used_by_override_;
  };

  // A BEF or sync BEF function under construction.
  class Function {
   public:
    uint32_t index() const { return index_; }
    FunctionKind kind() const { return kind_; }
    // The register of argument `i`.
    uint32_t argument(size_t i) const { return static_cast<uint32_t>(i); }
    uint32_t num_registers() const {
      return static_cast<uint32_t>(register_types_.size());
    }

    void set_location(BefLocation location) { location_ = std::move(location); }
    // Stream id of the pseudo kernel (the root stream).
    void set_root_stream(uint32_t stream) { root_stream_ = stream; }
    Kernel& AddKernel(std::string_view name,
                      BefLocation location = BefLocation::Unknown());
    // The function's result registers, in order (a register may repeat).
    void Return(std::vector<uint32_t> registers) {
      result_registers_ = std::move(registers);
    }

   private:
    friend class BefWriter;
    friend class Kernel;
    Function(BefWriter* writer, uint32_t index, FunctionKind kind)
        : writer_(writer), index_(index), kind_(kind) {}

    BefWriter* writer_;
    uint32_t index_;
    FunctionKind kind_;
    BefLocation location_;
    uint32_t root_stream_ = 0;
    std::vector<uint32_t> register_types_;  // type index per register
    std::deque<Kernel> kernels_;            // kernels 1..N
    std::vector<uint32_t> result_registers_;
  };

  explicit BefWriter(Options options = {});
  BefWriter(const BefWriter&) = delete;
  BefWriter& operator=(const BefWriter&) = delete;
  ~BefWriter();

  // Index of `name` in the Kernels section, added on first use.
  uint32_t KernelCode(std::string_view name);
  // Index of `name` in the Types section, added on first use.
  uint32_t TypeIndex(std::string_view name);
  // Offset of `attribute` in the Attributes section; an equal attribute
  // added before is reused.
  uint32_t AddAttribute(const BefAttribute& attribute);
  // Adds a string to the Strings section that nothing else names (TFRT adds
  // the names of array-of-symbol attributes this way).
  void AddString(std::string_view text);

  // Adds a BEF (async) or sync BEF function; argument and result types are
  // type names (registered with TypeIndex now).
  Function& AddFunction(FunctionKind kind, std::string_view name,
                        const std::vector<std::string>& argument_types,
                        const std::vector<std::string>& result_types);
  // Adds a native function (no body); returns its index.
  uint32_t AddNativeFunction(std::string_view name,
                             const std::vector<std::string>& argument_types,
                             const std::vector<std::string>& result_types);
  size_t num_functions() const { return functions_.size(); }

  // Lays out the file. Fails (InvalidArgument) when a kernel names a register
  // or function that does not exist, or a function returns a number of
  // registers that differs from its result types.
  absl::StatusOr<std::vector<uint8_t>> Finish();

 private:
  struct FunctionEntry {
    FunctionKind kind;
    std::string name;
    std::vector<uint32_t> argument_types;
    std::vector<uint32_t> result_types;
    std::unique_ptr<Function> body;  // null for native functions
  };
  class Layout;

  Options options_;
  std::vector<std::string> kernel_names_;
  absl::flat_hash_map<std::string, uint32_t> kernel_codes_;
  std::vector<std::string> type_names_;
  absl::flat_hash_map<std::string, uint32_t> type_indices_;
  ByteWriter attributes_;
  absl::flat_hash_map<std::string, uint32_t> attribute_offsets_;
  // (offset, BEF attribute type) of each top-level attribute, in order.
  std::vector<std::pair<uint32_t, uint8_t>> attribute_types_;
  std::vector<std::string> extra_strings_;
  std::vector<FunctionEntry> functions_;
};

}  // namespace bef

#endif  // BEF_FORMAT_BEF_WRITER_H_
