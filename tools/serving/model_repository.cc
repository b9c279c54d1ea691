#include "tools/serving/model_repository.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "bef/async/async_value_ref.h"
#include "bef/loader/bef_file.h"
#include "bef/support/string_view.h"
#include "nlohmann/json.hpp"
#include "tools/serving/json_codec.h"
#include "tools/serving/protocol_datatypes.h"

namespace bef::serving {
namespace {

using Json = nlohmann::json;

// What stat (following symlinks) says of a path: missing (ENOENT,
// ENOTDIR: gone), a directory, a regular file, something else, or an error
// (a symlink loop, EACCES) that says nothing about whether it is there.
enum class PathKind { kMissing, kDirectory, kFile, kOther, kError };
struct PathState {
  PathKind kind = PathKind::kMissing;
  std::string error;            // kError: strerror
  int64_t modified_nanos = -1;  // when it was last modified (-1: unknown)
};

PathState Examine(const std::string& path) {
  struct stat info;
  PathState state;
  if (::stat(path.c_str(), &info) != 0) {
    if (errno != ENOENT && errno != ENOTDIR) {
      state.kind = PathKind::kError;
      state.error = std::strerror(errno);
    }
    return state;
  }
  state.kind = S_ISDIR(info.st_mode)   ? PathKind::kDirectory
               : S_ISREG(info.st_mode) ? PathKind::kFile
                                       : PathKind::kOther;
  state.modified_nanos =
      static_cast<int64_t>(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec;
  return state;
}

struct DirectoryEntry {
  std::string name;
  PathState state;
};

// The entries of directory `path` (without "." and ".."), each examined;
// FAILED_PRECONDITION naming the path and the error when it cannot be read.
absl::StatusOr<std::vector<DirectoryEntry>> ListDirectory(const std::string& path) {
  DIR* directory = ::opendir(path.c_str());
  if (directory == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot read directory ", path, ": ", std::strerror(errno)));
  }
  std::vector<DirectoryEntry> entries;
  while (true) {
    errno = 0;
    const dirent* entry = ::readdir(directory);
    if (entry == nullptr) {
      if (errno != 0) {
        int error = errno;
        ::closedir(directory);
        return absl::FailedPreconditionError(
            absl::StrCat("cannot read directory ", path, ": ", std::strerror(error)));
      }
      break;
    }
    std::string_view name = entry->d_name;
    if (name == "." || name == "..") continue;
    entries.push_back({std::string(name), Examine(absl::StrCat(path, "/", std::string(name)))});
  }
  ::closedir(directory);
  return entries;
}

absl::StatusOr<ModelConfig::Tensor> TensorConfig(const Json& json, const std::string& what) {
  if (!json.is_object()) return absl::InvalidArgumentError(what + " must be an object");
  ModelConfig::Tensor tensor;
  for (const auto& [key, value] : json.items()) {
    if (key == "name" && value.is_string()) {
      tensor.name = value.get<std::string>();
    } else if (key == "datatype" && value.is_string()) {
      absl::StatusOr<const ProtocolDatatype*> datatype =
          ResolveDatatype(value.get_ref<const std::string&>(), what);
      if (!datatype.ok()) return datatype.status();
      tensor.datatype = *datatype;
    } else if (key == "shape" && value.is_array()) {
      std::vector<int64_t> shape;
      for (const Json& dim : value) {
        if (!dim.is_number_integer() || dim.get<int64_t>() < -1) {
          return absl::InvalidArgumentError(what + " shape must be integers >= -1");
        }
        shape.push_back(dim.get<int64_t>());
      }
      tensor.shape = std::move(shape);
    } else {
      return absl::InvalidArgumentError(absl::StrCat(what, " has a bad field '", key, "'"));
    }
  }
  return tensor;
}

}  // namespace

// --- ModelConfig ---

absl::StatusOr<ModelConfig> ModelConfig::Parse(std::string_view text) {
  Json json = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) {
    return absl::InvalidArgumentError("config.json is not a JSON object");
  }
  ModelConfig config;
  for (const auto& [key, value] : json.items()) {
    if (key == "entry_function" && value.is_string()) {
      config.entry_function = value.get<std::string>();
    } else if ((key == "inputs" || key == "outputs") && value.is_array()) {
      for (size_t i = 0; i < value.size(); ++i) {
        absl::StatusOr<Tensor> tensor =
            TensorConfig(value[i], absl::StrCat("config.json ", key, "[", i, "]"));
        if (!tensor.ok()) return tensor.status();
        (key == "inputs" ? config.inputs : config.outputs).push_back(std::move(*tensor));
      }
    } else if (key == "version_policy" && value.is_object() && value.size() == 1) {
      auto only = value.begin();
      const std::string& kind = only.key();
      const Json& body = only.value();
      if (kind == "latest" && body.is_object() && body.contains("num_versions") &&
          body["num_versions"].is_number_integer() && body["num_versions"].get<int64_t>() > 0) {
        config.policy = Policy::kLatest;
        config.latest_versions = body["num_versions"].get<int64_t>();
      } else if (kind == "all") {
        config.policy = Policy::kAll;
      } else if (kind == "specific" && body.is_object() && body.contains("versions") &&
                 body["versions"].is_array()) {
        config.policy = Policy::kSpecific;
        for (const Json& version : body["versions"]) {
          if (!version.is_number_integer() || version.get<int64_t>() <= 0) {
            return absl::InvalidArgumentError("config.json: versions are positive integers");
          }
          config.specific_versions.push_back(version.get<int64_t>());
        }
      } else {
        return absl::InvalidArgumentError(
            "config.json: version_policy is {\"latest\": {\"num_versions\": N}}, {\"all\": {}} "
            "or {\"specific\": {\"versions\": [...]}}");
      }
    } else {
      return absl::InvalidArgumentError(absl::StrCat("config.json has a bad field '", key, "'"));
    }
  }
  return config;
}

std::vector<int64_t> ModelConfig::Select(const std::vector<int64_t>& available) const {
  switch (policy) {
    case Policy::kAll:
      return available;
    case Policy::kLatest: {
      size_t keep = std::min(available.size(), static_cast<size_t>(latest_versions));
      return std::vector<int64_t>(available.end() - keep, available.end());
    }
    case Policy::kSpecific: {
      std::vector<int64_t> chosen;
      for (int64_t version : available) {
        if (std::find(specific_versions.begin(), specific_versions.end(), version) !=
            specific_versions.end()) {
          chosen.push_back(version);
        }
      }
      return chosen;
    }
  }
  return {};
}

// --- LoadedModel ---

absl::StatusOr<std::shared_ptr<LoadedModel>> LoadedModel::Load(HostContext* host,
                                                               std::string name,
                                                               int64_t version,
                                                               const std::string& path,
                                                               const ModelConfig& config,
                                                               RunLimits* limits) {
  // A private copy of the file's bytes, read without blocking on what is
  // not a regular file (BefLoadOptions).
  absl::StatusOr<std::unique_ptr<BefProgram>> program = BefProgram::Open(
      host, path, {.regular_files_only = true, .max_file_bytes = limits->max_model_bytes});
  if (!program.ok()) return program.status();
  std::shared_ptr<LoadedModel> model(new LoadedModel());
  model->host_ = host;
  model->limits_ = limits;
  model->name_ = std::move(name);
  model->version_ = version;
  model->path_ = path;
  model->program_ = std::move(*program);
  model->resources_ = std::make_unique<ResourceContext>();
  model->metrics_ = std::make_unique<ModelMetrics>();

  const BefProgram& loaded = *model->program_;
  if (!config.entry_function.empty()) {
    model->entry_ = loaded.GetFunction(config.entry_function);
    if (model->entry_ == nullptr) {
      return absl::NotFoundError(
          absl::StrCat("no function '", config.entry_function, "' (config.json's entry_function)"));
    }
  } else {
    model->entry_ = loaded.GetFunction("main");
    if (model->entry_ == nullptr) {
      const Function* only = nullptr;
      int named = 0;
      for (size_t i = 0; i < loaded.num_functions(); ++i) {
        const Function* function = loaded.GetFunction(static_cast<uint32_t>(i));
        if (function != nullptr && !function->name().empty() &&
            function->kind() != FunctionKind::kSyncBefFunction) {
          only = function;
          ++named;
        }
      }
      if (named != 1) {
        return absl::NotFoundError(
            "no function 'main' and not exactly one function: name the entry function in "
            "config.json (\"entry_function\")");
      }
      model->entry_ = only;
    }
  }
  if (model->entry_->kind() == FunctionKind::kSyncBefFunction) {
    return absl::InvalidArgumentError("the entry function is a sync function");
  }

  auto describe = [](const std::vector<std::string_view>& types,
                     const std::vector<ModelConfig::Tensor>& configured, const char* prefix,
                     const char* what, std::vector<TensorSpec>* specs) -> absl::Status {
    for (size_t i = 0; i < types.size(); ++i) {
      std::string_view type = types[i];
      if (type == kChainTypeName) continue;
      TensorSpec spec;
      spec.position = i;
      spec.bef_type = std::string(type);
      size_t index = specs->size();
      spec.name = absl::StrCat(prefix, index);
      if (const ProtocolDatatype* datatype = DatatypeOfBefScalar(type)) {
        spec.datatype = datatype;
      } else if (type == kDenseHostTensorTypeName) {
        spec.shape = {-1};
      } else {
        return absl::InvalidArgumentError(absl::StrCat(what, " ", i, " has type ", ToAbsl(type),
                                                       ", which the protocol cannot carry"));
      }
      if (index < configured.size()) {
        const ModelConfig::Tensor& config = configured[index];
        if (!config.name.empty()) spec.name = config.name;
        if (type == kDenseHostTensorTypeName) {
          if (config.datatype != nullptr) spec.datatype = config.datatype;
          if (config.shape) spec.shape = *config.shape;
        }
      }
      specs->push_back(std::move(spec));
    }
    if (configured.size() > specs->size()) {
      return absl::InvalidArgumentError(absl::StrCat("config.json names ", configured.size(), " ",
                                                     what, "s; the function has ", specs->size()));
    }
    return absl::OkStatus();
  };
  absl::Status described = describe(model->entry_->argument_types(), config.inputs, "input_",
                                    "argument", &model->inputs_);
  if (described.ok()) {
    described = describe(model->entry_->result_types(), config.outputs, "output_", "result",
                         &model->outputs_);
  }
  if (!described.ok()) return described;
  return model;
}

LoadedModel::~LoadedModel() = default;

LoadedModel::Outcome LoadedModel::Run(std::vector<RCReference<AsyncValue>> inputs,
                                      std::optional<absl::Time> deadline,
                                      const StopCheck& stop) const {
  // The run's request holds this version until its last kernel has run, so
  // an unload or a reload never frees the program under it.
  FunctionRun run(*entry_, host_, resources_.get(), std::move(inputs), shared_from_this(),
                  limits_->NextRequestId());
  limits_->Run(run, deadline, stop, &short_runs_);

  Outcome outcome;
  if (int error_result = run.FirstErrorResult(); error_result >= 0) {
    const ErrorInfo& error = run.results()[error_result]->GetErrorInfo();
    // A Status of its own, not a copy sharing the payload's: the payload
    // dies on a runtime thread, and Debian's Abseil (not built for TSan)
    // counts the shared references where TSan cannot see it.
    const std::string location = LocationText(error.location);
    outcome.error = absl::Status(
        error.status.code(), location.empty()
                                 ? error.status.message()
                                 : absl::StrCat(error.status.message(), " (at ", location, ")"));
    return outcome;
  }
  outcome.outputs = run.TakeOutputs();
  return outcome;
}

// --- ModelRepository ---

ModelRepository::ModelRepository(HostContext* host, std::string root, RunLimits* limits)
    : host_(host), root_(std::move(root)), limits_(limits) {}

std::unique_ptr<ModelRepository> ModelRepository::Single(HostContext* host,
                                                         const std::string& name,
                                                         const std::string& bef_path,
                                                         RunLimits* limits) {
  auto repository = std::make_unique<ModelRepository>(host, "", limits);
  Version version;
  version.path = bef_path;
  version.modified_nanos = Examine(bef_path).modified_nanos;
  absl::StatusOr<std::shared_ptr<LoadedModel>> loaded =
      LoadedModel::Load(host, name, 1, bef_path, ModelConfig(), limits);
  if (loaded.ok()) {
    version.loaded = std::move(*loaded);
    version.state = "READY";
  } else {
    version.reason = std::string(loaded.status().message());
  }
  repository->models_[name].versions.emplace(1, std::move(version));
  return repository;
}

void ModelRepository::LoadAll() { Poll(); }

absl::Status ModelRepository::CheckModelName(std::string_view model) {
  bool control = std::any_of(model.begin(), model.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  });
  if (model.empty() || model.find('/') != std::string_view::npos || model == "." ||
      model == ".." || control) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad model name '", absl::CHexEscape(EchoName(model)),
                     "' (a model is a directory of the repository: no '/', no control "
                     "characters)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> ModelRepository::Load(const std::string& model) {
  if (root_.empty()) {
    return absl::FailedPreconditionError("bef_serve serves a single file, not a repository");
  }
  absl::Status name = CheckModelName(model);
  if (!name.ok()) return name;
  std::lock_guard<std::mutex> load_lock(load_mutex_);
  bool changed = false;
  absl::Status loaded = LoadFrom(model, root_ + "/" + model, &changed);
  if (!loaded.ok()) return loaded;
  return changed;
}

void ModelRepository::SetModelError(const std::string& model, std::string error) {
  std::lock_guard<std::mutex> lock(mutex_);
  Model& entry = models_[model];
  if (entry.error == error) return;
  if (!error.empty()) {
    std::fprintf(stderr, "bef_serve: model %s: %s\n", model.c_str(), error.c_str());
  }
  entry.error = std::move(error);
}

absl::Status ModelRepository::LoadFrom(const std::string& model, const std::string& directory,
                                       bool* changed) {
  const PathState model_directory = Examine(directory);
  if (model_directory.kind == PathKind::kMissing || model_directory.kind == PathKind::kOther) {
    return absl::InvalidArgumentError(
        absl::StrCat("no model directory '", EchoName(model), "' in the repository"));
  }
  if (model_directory.kind == PathKind::kError) {
    std::string error =
        absl::StrCat("the model directory cannot be examined: ", model_directory.error);
    SetModelError(model, error);
    return absl::FailedPreconditionError(error);
  }
  ModelConfig config;
  std::string config_path = directory + "/config.json";
  std::string config_text;
  absl::Status config_status;
  if (Examine(config_path).kind != PathKind::kMissing) {
    // A symlink loop, EACCES, a FIFO or a huge file: ReadRegularFile (the
    // loader's read) says why, and the model does not load (400).
    absl::StatusOr<std::string> text = ReadRegularFile(config_path, limits_->max_config_bytes);
    if (!text.ok()) text = absl::FailedPreconditionError(text.status().message());
    absl::StatusOr<ModelConfig> parsed =
        text.ok() ? ModelConfig::Parse(*text) : absl::StatusOr<ModelConfig>(text.status());
    if (parsed.ok()) {
      config = std::move(*parsed);
      config_text = std::move(*text);
    } else {
      config_status = parsed.status();
    }
  }
  absl::StatusOr<std::vector<DirectoryEntry>> entries = ListDirectory(directory);
  if (!entries.ok()) {
    std::string error = absl::StrCat(entries.status().message(), "; serving what was loaded");
    SetModelError(model, error);
    return absl::FailedPreconditionError(error);
  }
  std::vector<int64_t> available;
  for (const DirectoryEntry& entry : *entries) {
    int64_t version = 0;
    if (!absl::SimpleAtoi(entry.name, &version) || version <= 0) continue;
    // A version directory that cannot be examined is offered to the load,
    // which fails and says why; one without model.bef (yet) is not a
    // version.
    if (entry.state.kind == PathKind::kError ||
        (entry.state.kind == PathKind::kDirectory &&
         Examine(absl::StrCat(directory, "/", entry.name, "/model.bef")).kind !=
             PathKind::kMissing)) {
      available.push_back(version);
    }
  }
  std::sort(available.begin(), available.end());
  available.erase(std::unique(available.begin(), available.end()), available.end());
  std::vector<int64_t> selected = config.Select(available);

  // Load outside the lock; requests keep running on what is there.
  std::map<int64_t, Version> next;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = models_.find(model);
    if (it != models_.end()) next = it->second.versions;
  }
  int ready = 0;
  std::string first_failure;  // "version N: why", for the load's answer
  for (int64_t number : selected) {
    std::string path = absl::StrCat(directory, "/", number, "/model.bef");
    int64_t modified = Examine(path).modified_nanos;
    Version& version = next[number];
    if (version.loaded && version.path == path && version.modified_nanos == modified &&
        version.config_text == config_text && config_status.ok()) {
      version.reason.clear();
      ++ready;
      continue;  // unchanged
    }
    absl::StatusOr<std::shared_ptr<LoadedModel>> loaded =
        config_status.ok() ? LoadedModel::Load(host_, model, number, path, config, limits_)
                           : absl::StatusOr<std::shared_ptr<LoadedModel>>(config_status);
    if (loaded.ok()) {
      version.loaded = std::move(*loaded);
      version.state = "READY";
      version.reason.clear();
      version.path = path;
      version.modified_nanos = modified;
      version.config_text = config_text;
      *changed = true;
      ++ready;
    } else if (version.loaded) {
      // A working version stays; the index says why the new file was not taken.
      version.reason = absl::StrCat("kept the loaded file; the new one failed: ",
                                    loaded.status().message());
      ++ready;
    } else {
      version.state = "UNAVAILABLE";
      version.reason = std::string(loaded.status().message());
      if (first_failure.empty()) {
        first_failure = absl::StrCat(" (version ", number, ": ", version.reason, ")");
      }
      version.path = path;
      version.modified_nanos = modified;
    }
  }
  // Versions no longer selected (or gone) stop being served -- unless no
  // selected version could be loaded: then the working ones stay (a bad new
  // file never takes a model down).
  bool selected_ready = false;
  for (int64_t number : selected) selected_ready |= next[number].loaded != nullptr;
  for (auto it = next.begin(); it != next.end();) {
    bool chosen = std::find(selected.begin(), selected.end(), it->first) != selected.end();
    if (chosen || (!selected_ready && it->second.loaded &&
                   Examine(it->second.path).kind != PathKind::kMissing)) {
      if (!chosen) it->second.reason = "kept: no newer version loaded";
      ++it;
    } else {
      if (it->second.loaded) *changed = true;
      it = next.erase(it);
    }
  }
  absl::Status status;
  if (!config_status.ok()) {
    status = config_status;
  } else if (ready == 0 && !selected_ready) {
    status = absl::InvalidArgumentError(
        selected.empty() ? absl::StrCat("model '", model, "' has no version to serve")
                         : absl::StrCat("no version of model '", model, "' loaded",
                                        first_failure));
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Model& entry = models_[model];
    entry.versions = std::move(next);
    entry.unloaded = false;
  }
  SetModelError(model, status.ok() ? std::string() : std::string(status.message()));
  return status;
}

absl::Status ModelRepository::Unload(const std::string& model) {
  std::lock_guard<std::mutex> load_lock(load_mutex_);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = models_.find(model);
  if (it == models_.end()) {
    return absl::NotFoundError(absl::StrCat("no model '", EchoName(model), "'"));
  }
  for (auto& [number, version] : it->second.versions) {
    version.loaded.reset();  // requests running keep their reference
    version.state = "UNAVAILABLE";
    version.reason = "unloaded";
  }
  it->second.unloaded = true;
  return absl::OkStatus();
}

void ModelRepository::Poll() {
  if (root_.empty()) return;
  std::lock_guard<std::mutex> load_lock(load_mutex_);
  absl::StatusOr<std::vector<DirectoryEntry>> entries = ListDirectory(root_);
  if (!entries.ok()) {
    // An unreadable root is not an empty one: nothing is dropped.
    std::string error = absl::StrCat("the repository ", entries.status().message(),
                                     "; serving what was loaded");
    if (error != root_error_) std::fprintf(stderr, "bef_serve: %s\n", error.c_str());
    root_error_ = error;
    return;
  }
  root_error_.clear();
  std::vector<std::string> present;
  for (const DirectoryEntry& entry : *entries) {
    if (entry.state.kind != PathKind::kDirectory && entry.state.kind != PathKind::kError) {
      continue;
    }
    present.push_back(entry.name);
    bool unloaded;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = models_.find(entry.name);
      unloaded = it != models_.end() && it->second.unloaded;
    }
    if (unloaded) continue;
    if (entry.state.kind == PathKind::kError) {
      // A model directory that cannot be examined (a symlink loop): its
      // versions, if any, stay.
      SetModelError(entry.name,
                    absl::StrCat("the model directory cannot be examined: ", entry.state.error));
      continue;
    }
    bool changed = false;
    LoadFrom(entry.name, root_ + "/" + entry.name, &changed).IgnoreError();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = models_.begin(); it != models_.end();) {
    if (std::find(present.begin(), present.end(), it->first) == present.end()) {
      it = models_.erase(it);
    } else {
      ++it;
    }
  }
}

absl::StatusOr<std::shared_ptr<const LoadedModel>> ModelRepository::Find(
    const std::string& model, const std::string& version) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = models_.find(model);
  if (it == models_.end()) {
    return absl::NotFoundError(absl::StrCat("unknown model '", EchoName(model), "'"));
  }
  const std::map<int64_t, Version>& versions = it->second.versions;
  if (version.empty()) {
    for (auto v = versions.rbegin(); v != versions.rend(); ++v) {
      if (v->second.loaded) return v->second.loaded;
    }
    return absl::UnavailableError(absl::StrCat("model '", model, "' has no ready version"));
  }
  // Versions are written as the repository names them: "01" or "+1" is
  // not version 1.
  int64_t number = 0;
  bool canonical = !version.empty() && version[0] >= '1' && version[0] <= '9' &&
                   absl::SimpleAtoi(version, &number) && std::to_string(number) == version;
  auto v = canonical ? versions.find(number) : versions.end();
  if (v == versions.end() || !v->second.loaded) {
    return absl::NotFoundError(
        absl::StrCat("model '", model, "' has no ready version '", EchoName(version), "'"));
  }
  return v->second.loaded;
}

std::vector<int64_t> ModelRepository::ReadyVersions(const std::string& model) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<int64_t> ready;
  auto it = models_.find(model);
  if (it == models_.end()) return ready;
  for (const auto& [number, version] : it->second.versions) {
    if (version.loaded) ready.push_back(number);
  }
  return ready;
}

std::vector<VersionState> ModelRepository::Index() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<VersionState> index;
  for (const auto& [name, model] : models_) {
    if (model.versions.empty()) {
      index.push_back({name, 0, "UNAVAILABLE",
                       model.unloaded          ? "unloaded"
                       : !model.error.empty() ? model.error
                                               : "no version"});
    }
    for (const auto& [number, version] : model.versions) {
      // A version serving while its model directory cannot be read says so.
      index.push_back({name, number, version.state,
                       version.reason.empty() && !model.unloaded ? model.error : version.reason});
    }
  }
  return index;
}

std::vector<std::shared_ptr<const LoadedModel>> ModelRepository::Loaded() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::shared_ptr<const LoadedModel>> loaded;
  for (const auto& [name, model] : models_) {
    for (const auto& [number, version] : model.versions) {
      if (version.loaded) loaded.push_back(version.loaded);
    }
  }
  return loaded;
}

bool ModelRepository::AllReady() const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [name, model] : models_) {
    if (model.unloaded) continue;
    bool ready = false;
    for (const auto& [number, version] : model.versions) ready |= version.loaded != nullptr;
    if (!ready) return false;
  }
  return true;
}

}  // namespace bef::serving
