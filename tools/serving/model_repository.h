// The models bef_serve serves (docs/serving.md, "Model repository").
//
// A repository is a directory:
//
//   DIR/<model>/config.json          optional (ModelConfig)
//   DIR/<model>/<version>/model.bef  versions are positive integers
//
// A model's interface comes from its entry function's BEF signature
// (ModelConfig names the function and its tensors): each argument other
// than a `!tfrt.chain` is an input, each result other than a chain an
// output. Scalars are tensors of shape [] (`i32` INT32, `f32` FP32, ...),
// `!tfrt.string` is BYTES of shape [], `!tfrt_tensor.tensor` a dense or
// string tensor whose datatype and shape the config may fix (otherwise any
// datatype, shape [-1]). Chain arguments are supplied by the server.
//
// Files: config.json and model.bef must be regular files (a FIFO, a device
// or a symlink to one is refused without blocking), within RunLimits'
// sizes; a loaded version owns the bytes it read (BefFile), so the file may
// be rewritten, truncated or removed while it serves: a changed file
// matters at the next load (or poll), never to the version loaded.
//
// The repository is read with error codes only, never exceptions: a
// directory, version directory or file the server cannot examine (a
// symlink loop, EACCES, ELOOP) is a load error of that model, which the
// index shows with its reason and stderr logs once, never a crash and
// never an unload of what is serving. Only a model directory or version
// that is gone (ENOENT, or no longer a directory) stops being served; an
// unreadable repository root changes nothing that is loaded. Names from
// requests are checked before they touch the file system: a name with a
// '/', a control character (NUL included) or "."/".." is refused and
// leaves no entry.
//
// config.json is part of a version's identity: a changed config.json
// reloads every selected version (by polling or an explicit load) and the
// new versions replace the old ones at once, under the lock requests take
// to find a version (a request runs on the version it found, old or new).
//
// Loaded versions are reference-counted (`std::shared_ptr<const
// LoadedModel>`): a request holds the version it started on until its last
// kernel has run, so loading, unloading or a repository change never pulls
// a program from under a request. A version that fails to load (bad BEF,
// an interface requests cannot supply) is reported in Index() with its
// reason and never replaces a working version.
//
// Thread-safety: every method may be called from any thread.
#ifndef BEF_TOOLS_SERVING_MODEL_REPOSITORY_H_
#define BEF_TOOLS_SERVING_MODEL_REPOSITORY_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "bef/async/async_value.h"
#include "bef/async/rc_reference.h"
#include "bef/executor/bef_program.h"
#include "bef/host/execution_context.h"
#include "bef/host/host_context.h"
#include "tools/serving/protocol_datatypes.h"
#include "tools/serving/run_limits.h"
#include "tools/serving/service_metrics.h"

namespace bef::serving {

// One input or output of a model as the Open Inference Protocol describes
// it.
struct TensorSpec {
  std::string name;
  const ProtocolDatatype* datatype = nullptr;  // null: a tensor of any datatype
  std::vector<int64_t> shape;  // -1: any size; {-1} for a tensor of any shape
  std::string bef_type;        // the BEF type of the argument or result
  size_t position = 0;         // argument or result index in the function
};

// DIR/<model>/config.json; every field optional.
//   {"entry_function": "main",
//    "inputs":  [{"name": "x", "datatype": "FP32", "shape": [-1, 3]}, ...],
//    "outputs": [{"name": "y"}, ...],
//    "version_policy": {"latest": {"num_versions": 1}} | {"all": {}} |
//                      {"specific": {"versions": [1, 3]}}}
struct ModelConfig {
  std::string entry_function;  // "": `main`, or the only named function
  struct Tensor {
    std::string name;
    const ProtocolDatatype* datatype = nullptr;  // null: not fixed
    std::optional<std::vector<int64_t>> shape;
  };
  std::vector<Tensor> inputs, outputs;
  enum class Policy { kLatest, kAll, kSpecific } policy = Policy::kLatest;
  int64_t latest_versions = 1;
  std::vector<int64_t> specific_versions;

  static absl::StatusOr<ModelConfig> Parse(std::string_view json);
  // Which of `available` (sorted ascending) to serve.
  std::vector<int64_t> Select(const std::vector<int64_t>& available) const;
};

// A loaded version of a model.
class LoadedModel : public std::enable_shared_from_this<LoadedModel> {
 public:
  // `limits` outlives the version.
  static absl::StatusOr<std::shared_ptr<LoadedModel>> Load(HostContext* host,
                                                           std::string name, int64_t version,
                                                           const std::string& path,
                                                           const ModelConfig& config,
                                                           RunLimits* limits);
  ~LoadedModel();

  const std::string& name() const { return name_; }
  int64_t version() const { return version_; }
  const std::string& path() const { return path_; }
  const std::vector<TensorSpec>& inputs() const { return inputs_; }
  const std::vector<TensorSpec>& outputs() const { return outputs_; }
  ModelMetrics& metrics() const { return *metrics_; }

  // Runs the entry function on `inputs` (one value per input, in inputs()
  // order) until it ends, its deadline (`deadline` capped by the limits'
  // max_run_time) passes, `stop` says so or the server stops (run_limits.h);
  // the outputs, in outputs() order, or the first error of a result: its
  // code, and its message with " (at FILE:LINE:COLUMN)" when the program
  // knows the kernel's location (the one place the protocols' messages
  // get it).
  struct Outcome {
    std::vector<RCReference<AsyncValue>> outputs;
    absl::Status error;
  };
  Outcome Run(std::vector<RCReference<AsyncValue>> inputs, std::optional<absl::Time> deadline,
              const StopCheck& stop = {}) const;

  // Whether this version's runs are known to be short (ShortRunStreak).
  bool known_short() const { return short_runs_.known_short(); }

 private:
  LoadedModel() = default;

  HostContext* host_ = nullptr;
  RunLimits* limits_ = nullptr;
  std::string name_;
  int64_t version_ = 0;
  std::string path_;
  std::unique_ptr<BefProgram> program_;
  std::unique_ptr<ResourceContext> resources_;
  const Function* entry_ = nullptr;
  std::vector<TensorSpec> inputs_, outputs_;
  std::unique_ptr<ModelMetrics> metrics_;
  mutable ShortRunStreak short_runs_;
};

// The state of one version, as the repository extension's index shows it.
struct VersionState {
  std::string model;
  int64_t version = 0;
  std::string state;  // READY, UNAVAILABLE, LOADING, UNLOADING
  std::string reason;
};

class ModelRepository {
 public:
  // A repository of directory `root` (an empty `root` with a single file:
  // see Single). `host` and `limits` outlive it.
  ModelRepository(HostContext* host, std::string root, RunLimits* limits);
  // One model `name`, version 1, from `bef_path`, with the default config.
  static std::unique_ptr<ModelRepository> Single(HostContext* host, const std::string& name,
                                                 const std::string& bef_path,
                                                 RunLimits* limits);

  // Loads every model of the repository (Scan of each model directory).
  void LoadAll();
  // (Re)loads `model` from the repository: the versions its policy selects
  // are loaded (a version already loaded from the same file with the same
  // config.json is kept); a version that fails keeps the one it would have
  // replaced. INVALID_ARGUMENT for a bad name or one that names no model
  // directory (no entry is made), or when no version loaded;
  // FAILED_PRECONDITION when the model directory cannot be read. On
  // success, whether anything changed (a version loaded, replaced or
  // dropped).
  absl::StatusOr<bool> Load(const std::string& model);
  // Whether `model` may name a model directory: not empty, no '/', no
  // control character, not "." or "..".
  static absl::Status CheckModelName(std::string_view model);
  // Stops serving `model` (requests running finish on it).
  absl::Status Unload(const std::string& model);
  // Loads new models and versions, drops those gone, reloads changed files.
  void Poll();

  // The version to run: `version` ("" = the highest ready one). NOT_FOUND
  // with a message for an unknown model or version.
  absl::StatusOr<std::shared_ptr<const LoadedModel>> Find(const std::string& model,
                                                          const std::string& version) const;
  // Ready versions of `model`, ascending.
  std::vector<int64_t> ReadyVersions(const std::string& model) const;
  std::vector<VersionState> Index() const;
  // Every loaded version (for /metrics).
  std::vector<std::shared_ptr<const LoadedModel>> Loaded() const;
  // True when every model the repository knows has a ready version.
  bool AllReady() const;

 private:
  struct Version {
    std::shared_ptr<const LoadedModel> loaded;  // null unless READY
    std::string state = "UNAVAILABLE";
    std::string reason;
    std::string path;
    int64_t modified_nanos = 0;  // of `path` when loaded
    std::string config_text;     // the config.json it was loaded with ("": none)
  };
  struct Model {
    std::map<int64_t, Version> versions;
    bool unloaded = false;  // by request: Poll leaves it alone
    // Why the model's directory could not be read at the last load or
    // poll ("" when it could); logged when it changes.
    std::string error;
  };

  // `changed`: set when a version was loaded, replaced or dropped.
  absl::Status LoadFrom(const std::string& model, const std::string& directory, bool* changed);
  // Records (and logs, when new) why `model` could not be read; the
  // versions it has stay.
  void SetModelError(const std::string& model, std::string error);

  HostContext* host_;
  std::string root_;
  RunLimits* limits_;
  mutable std::mutex mutex_;
  std::map<std::string, Model> models_;
  std::mutex load_mutex_;  // one load or poll at a time
  std::string root_error_;  // guarded by load_mutex_: why the root could not be read
};

}  // namespace bef::serving

#endif  // BEF_TOOLS_SERVING_MODEL_REPOSITORY_H_
