// bef_executor: runs the functions of a BEF file, with TFRT's bef_executor
// options and output (docs/cli.md, spec bef-executor-cli.md).
//
//   bef_executor [options] [FILE.bef]      (FILE "-" or none: standard input)
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "bef/async/async_value_ref.h"
#include "bef/executor/bef_program.h"
#include "bef/format/format_error.h"
#include "bef/host/function_run.h"
#include "bef/host/host_context.h"
#include "bef/kernels/kernel_types.h"
#include "bef/loader/bef_file.h"
#include "bef/tensor/dense_host_tensor.h"
#include "tools/diagnostic_verifier.h"
#include "tools/tbb_arena_plugin.h"

namespace bef {
namespace {

struct Options {
  std::vector<std::string> functions;
  std::string test_init_function;
  std::string work_queue_type = "s";
  std::string host_allocator_type = "leak_check_allocator";
  bool print_error_code = false;
  std::vector<std::string> shared_libs;
  bool enable_tracing = false;
  std::string tracing_level = "default";
  std::string trace_file;
  std::string input = "-";
};

void Fail(const char* program, const std::string& message) {
  std::fprintf(stderr, "%s: %s\n", program, message.c_str());
  std::exit(1);
}

// LLVM command-line syntax: one or two dashes, `--opt=value` or
// `--opt value`, lists comma separated and repeatable, options and the input
// in any order.
Options ParseOptions(int argc, char** argv) {
  Options options;
  const char* program = argv[0];
  bool input_seen = false;
  auto split_list = [](const std::string& value, std::vector<std::string>& into) {
    for (absl::string_view item : absl::StrSplit(value, ',', absl::SkipEmpty())) {
      into.emplace_back(item);
    }
  };
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.size() < 2 || arg[0] != '-') {
      if (input_seen) Fail(program, "Too many positional arguments specified!");
      options.input = arg;
      input_seen = true;
      continue;
    }
    std::string name = arg.substr(arg[1] == '-' ? 2 : 1);
    std::string value;
    bool has_value = false;
    if (size_t equals = name.find('='); equals != std::string::npos) {
      value = name.substr(equals + 1);
      name = name.substr(0, equals);
      has_value = true;
    }
    auto take_value = [&]() -> std::string {
      if (has_value) return value;
      if (i + 1 >= argc) {
        Fail(program, absl::StrCat("for the --", name,
                                   " option: requires a value!"));
      }
      return argv[++i];
    };
    if (name == "functions") {
      split_list(take_value(), options.functions);
    } else if (name == "test_init_function") {
      options.test_init_function = take_value();
    } else if (name == "work_queue_type") {
      options.work_queue_type = take_value();
    } else if (name == "host_allocator_type") {
      std::string type = take_value();
      if (type != "malloc" && type != "test_fixed_size_1k" &&
          type != "profiled_allocator" && type != "leak_check_allocator") {
        Fail(program, absl::StrCat("for the --host_allocator_type option: "
                                   "Cannot find option named '", type, "'!"));
      }
      options.host_allocator_type = type;
    } else if (name == "print_error_code") {
      options.print_error_code = !has_value || value == "true" || value == "1";
    } else if (name == "shared_libs") {
      split_list(take_value(), options.shared_libs);
    } else if (name == "enable_tracing") {
      options.enable_tracing = !has_value || value == "true" || value == "1";
    } else if (name == "trace_file") {
      options.trace_file = take_value();
    } else if (name == "tracing_level") {
      options.tracing_level = take_value();
      if (options.tracing_level != "default" && options.tracing_level != "verbose" &&
          options.tracing_level != "debug") {
        Fail(program, absl::StrCat("for the --tracing_level option: Cannot find "
                                   "option named '", options.tracing_level, "'!"));
      }
    } else if (name == "help") {
      std::printf(
          "USAGE: %s [options] <input file>\n\n"
          "  --functions=<name,...>        functions to run (default: all)\n"
          "  --test_init_function=<name>   run first, once\n"
          "  --work_queue_type=<spec>      s | mstd | mstd:N | mstd:N,M\n"
          "  --host_allocator_type=<type>  malloc | test_fixed_size_1k |\n"
          "                                profiled_allocator | leak_check_allocator\n"
          "  --print_error_code            print status codes of errors\n"
          "  --shared_libs=<path,...>      libraries with RegisterKernels\n"
          "  --enable_tracing, --tracing_level=default|verbose|debug\n"
          "  --trace_file=<path>           write a Chrome Trace Event JSON\n"
          "                                timeline of the run (enables tracing)\n",
          program);
      std::exit(0);
    } else {
      Fail(program, absl::StrCat("Unknown command line argument '", arg,
                                 "'.  Try: '", program, " --help'"));
    }
  }
  return options;
}

// A function result as the reference driver prints it, by type name.
template <typename ValueOf>
std::string FormatValue(std::string_view type, ValueOf&& value) {
  if (type == "i1") return value.template operator()<bool>() ? "1" : "0";
  if (type == "i32") return absl::StrCat(value.template operator()<int32_t>());
  if (type == "i64") return absl::StrCat(value.template operator()<int64_t>());
  if (type == "f32") return FormatDouble(value.template operator()<float>());
  if (type == "f64") return FormatDouble(value.template operator()<double>());
  return absl::StrCat(absl::string_view(type.data(), type.size()), " value");
}

std::string FormatError(const absl::Status& status, bool print_code) {
  std::string text = absl::StrCat("<<error: ", status.message());
  if (print_code) absl::StrAppend(&text, ", code: ", absl::StatusCodeToString(status.code()));
  return text + ">>";
}

std::string FormatAsyncResult(std::string_view type, AsyncValue* value, bool print_code) {
  if (value->IsError()) return FormatError(value->GetError(), print_code);
  return FormatValue(type, [value]<typename T>() -> T { return value->get<T>(); });
}

class Driver {
 public:
  Driver(const char* program, Options options)
      : program_(program), options_(std::move(options)), verifier_(stderr) {}

  int Run() {
    // Whether the input can be opened is known before anything is printed
    // (TFRT's order). Checked without opening it: opening and closing a
    // FIFO would let its writer in and then leave it without a reader (it
    // dies of SIGPIPE, and the load then waits for a writer forever).
    std::unique_ptr<BefFile> file;
    absl::StatusOr<std::unique_ptr<BefFile>> probe;
    if (options_.input != "-" &&
        ::faccessat(AT_FDCWD, options_.input.c_str(), R_OK, AT_EACCESS) != 0) {
      std::fprintf(stderr, "cannot open input file '%s': %s\n", options_.input.c_str(),
                   std::strerror(errno));
      return 1;
    }
    static const std::map<std::string, std::string> kBanners = {
        {"malloc", "Choosing malloc."},
        {"test_fixed_size_1k", "Choosing fixed size malloc."},
        {"profiled_allocator", "Choosing profiled allocator based on malloc."},
        {"leak_check_allocator", "Choosing memory leak check allocator."}};
    PrintToStdout(kBanners.at(options_.host_allocator_type) + "\n");
    std::unique_ptr<HostAllocator> allocator =
        CreateHostAllocator(options_.host_allocator_type).value();
    absl::StatusOr<std::unique_ptr<ConcurrentWorkQueue>> queue =
        CreateWorkQueue(options_.work_queue_type);
    if (!queue.ok()) {
      std::fprintf(stderr, "%s: %s\n", program_, std::string(queue.status().message()).c_str());
      return 1;
    }
    PrintToStdout(absl::StrCat("Choosing ", (*queue)->name(), " work queue.\n"));
    // Tracing covers the whole run; the timeline is written once every
    // work-queue thread has finished (after the host is gone).
    std::unique_ptr<TraceRecorder> tracer;
    if (!options_.trace_file.empty()) tracer = TraceRecorder::Start().value();
    int status = 0;
    {
      HostContext host(
          [this](const DecodedDiagnostic& diagnostic) {
            verifier_.Report(diagnostic.location,
                             absl::StrCat("runtime error: ", diagnostic.message()));
          },
          std::move(allocator), std::move(*queue));
      RegisterStaticKernels(&host.kernel_registry());
      RegisterStaticNativeFunctions(&host.native_functions());
      for (const std::string& library : options_.shared_libs) {
        void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_GLOBAL);
        if (handle == nullptr) {
          std::fprintf(stderr, "%s: couldn't load library %s\n", program_, dlerror());
          return 1;
        }
        if (auto* register_kernels = reinterpret_cast<void (*)(KernelRegistry*)>(
                dlsym(handle, "RegisterKernels"))) {
          register_kernels(&host.kernel_registry());
        }
      }
      status = RunProgram(host);
    }  // the allocator's leak check runs here
    if (tracer != nullptr) {
      if (absl::Status written = tracer->WriteChromeTraceJson(options_.trace_file);
          !written.ok()) {
        std::fprintf(stderr, "%s: %s\n", program_, std::string(written.message()).c_str());
        return 1;
      }
    }
    return status;
  }

 private:
  int RunProgram(HostContext& host) {
    absl::StatusOr<std::unique_ptr<BefProgram>> program =
        BefProgram::Open(&host, options_.input);
    if (!program.ok()) {
      // Load errors go through the diagnostic path; nothing runs.
      verifier_.Report(LoadErrorLocation(program.status()),
                       absl::StrCat("runtime error: ", program.status().message()));
      return verifier_.Finish() ? 0 : 1;
    }
    const BefFile& file = (*program)->file();
    std::vector<uint32_t> order;
    if (options_.functions.empty()) {
      for (uint32_t i = 0; i < file.num_functions(); ++i) order.push_back(i);
    } else {
      for (const std::string& name : options_.functions) {
        const BefFunctionEntry* entry = file.FindFunction(name);
        if (entry == nullptr) {
          std::fprintf(stderr, "%s: couldn't find function %s\n", program_, name.c_str());
          return 1;
        }
        order.push_back(entry->index);
      }
    }
    std::optional<uint32_t> init;
    if (!options_.test_init_function.empty()) {
      if (const BefFunctionEntry* entry = file.FindFunction(options_.test_init_function)) {
        init = entry->index;
        RunFunction(host, **program, entry->index);
      }
    }
    for (uint32_t index : order) {
      if (init && index == *init) continue;
      RunFunction(host, **program, index);
    }
    program->reset();
    return verifier_.Finish() ? 0 : 1;
  }

  void RunFunction(HostContext& host, const BefProgram& program, uint32_t index) {
    const Function* function = program.GetFunction(index);
    std::string name(function->name());
    if (function->num_arguments() > 0) {
      PrintToStdout(absl::StrCat("--- Not running '", name, "' because it has arguments.\n"));
      return;
    }
    if (name.empty()) return;
    PrintToStdout(absl::StrCat("--- Running '", name, "':\n"));
    ResourceContext resources;
    const auto& types = function->result_types();
    if (function->kind() == FunctionKind::kSyncBefFunction) {
      ExecutionContext context(RequestContext::Create(&host, &resources));
      std::vector<SyncValue> values(function->num_results());
      std::vector<SyncValue*> results;
      for (SyncValue& value : values) results.push_back(&value);
      absl::Status status = function->ExecuteSync(context, {}, results);
      if (!status.ok()) {
        PrintToStdout(absl::StrCat("'", name, "' returned ",
                                   FormatError(status, false), "\n"));
      } else if (!values.empty()) {
        std::vector<std::string> texts;
        for (size_t i = 0; i < values.size(); ++i) {
          SyncValue* value = &values[i];
          texts.push_back(FormatValue(types[i], [value]<typename T>() -> T {
            return value->HasValue() && value->IsType<T>() ? value->get<T>() : T();
          }));
        }
        PrintToStdout(absl::StrCat("'", name, "' returned ", absl::StrJoin(texts, ","), "\n"));
      }
    } else {
      // Waits for the results, or for the request's cancellation (a run
      // can always end, even when a kernel of it never completes a result;
      // docs/executor-semantics.md §4): then what is queued still runs, as
      // it would have before the results, and what stays pending is the
      // cancellation's error.
      FunctionRun run(*function, &host, &resources, {}, nullptr, 0);
      run.Execute();
      const RCReference<AsyncValue> done = run.Done();
      host.Await({&done, 1});
      std::span<RCReference<AsyncValue>> results = run.results();
      if (run.request().IsCancelled()) {
        host.Quiesce();
        run.Settle();
      }
      if (!results.empty()) {
        std::vector<std::string> texts;
        for (size_t i = 0; i < results.size(); ++i) {
          texts.push_back(FormatAsyncResult(types[i], results[i].get(),
                                            options_.print_error_code));
        }
        PrintToStdout(absl::StrCat("'", name, "' returned ", absl::StrJoin(texts, ","), "\n"));
      }
    }
    host.Quiesce();
  }

  const char* program_;
  Options options_;
  DiagnosticVerifier verifier_;
};

}  // namespace
}  // namespace bef

int main(int argc, char** argv) {
  bef::tools::RegisterTbbArenaPlugin();
  bef::Options options = bef::ParseOptions(argc, argv);
  int status = bef::Driver(argv[0], std::move(options)).Run();
  // Output that could not be written (a full disk, a closed pipe) is an
  // error, not a silent success.
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::fprintf(stderr, "%s: cannot write standard output\n", argv[0]);
    return status != 0 ? status : 1;
  }
  return status;
}
