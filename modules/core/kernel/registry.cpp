#include "core/kernel/registry.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "core/kernel/foreign_model.h"
#include "core/kernel/plugin_abi.h"

namespace cnuas {

Registry& Registry::instance() {
  static Registry registry;
  return registry;
}

void Registry::add(ModelInfo info) {
  const std::string& type = info.schema->type();
  auto it = models_.find(type);
  if (it != models_.end())
    throw InputError(fmt::format("element type '{}' from {} is already registered by {}", type,
                                 info.origin, it->second.origin));
  models_.emplace(type, std::move(info));
}

const ModelInfo* Registry::find(const std::string& type) const {
  auto it = models_.find(type);
  return it == models_.end() ? nullptr : &it->second;
}

std::vector<const ModelInfo*> Registry::models() const {
  std::vector<const ModelInfo*> out;
  for (const auto& [name, info] : models_) out.push_back(&info);
  return out;
}

std::vector<std::string> Registry::type_names() const {
  std::vector<std::string> out;
  for (const auto& [name, info] : models_) out.push_back(name);
  return out;
}

const ModelInfo& Registry::require(const std::string& type, const SourceLocation& where) const {
  if (const ModelInfo* info = find(type)) return *info;
  std::string hint = nearest_name(type, type_names());
  throw InputError(where, fmt::format("unknown element type '{}'{}; known types: {} (a plugin "
                                      "adds more: --plugin LIB.so or plugins: in the platform)",
                                      type, hint.empty() ? "" : " (did you mean '" + hint + "'?)",
                                      join_names(type_names())));
}

// A bare file name is looked up in $CNUAS_PLUGIN_PATH, then beside libcnuas
// (build/lib, or <prefix>/lib once installed); anything with a '/' is a path.
std::string find_plugin(const std::string& given, std::vector<std::string>& searched) {
  if (given.find('/') != std::string::npos) return given;
  if (const char* env = std::getenv("CNUAS_PLUGIN_PATH")) {
    std::string dirs = env;
    for (size_t start = 0; start <= dirs.size();) {
      size_t end = dirs.find(':', start);
      if (end == std::string::npos) end = dirs.size();
      if (end > start) searched.push_back(dirs.substr(start, end - start));
      start = end + 1;
    }
  }
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&find_plugin), &info) && info.dli_fname)
    searched.push_back(std::filesystem::path(info.dli_fname).parent_path().string());
  for (const auto& dir : searched)
    if (std::filesystem::exists(dir + "/" + given)) return dir + "/" + given;
  return {};
}

void Registry::load_plugin(const std::string& given_path, const SourceLocation& where) {
  std::vector<std::string> searched;
  std::string found = find_plugin(given_path, searched);
  // The same library reached by two spellings of its path is loaded once.
  std::error_code ec;
  std::string path = found.empty() ? "" : std::filesystem::weakly_canonical(found, ec).string();
  if (found.empty() || ec || !std::filesystem::exists(path))
    throw InputError(
        where, fmt::format("cannot load plugin '{}': no such file{}", given_path,
                           searched.empty() ? "" : " (searched " + join_names(searched) + ")"));
  for (const auto& p : loaded_plugins_)
    if (p == path) return;
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (handle == nullptr)
    throw InputError(where, fmt::format("cannot load plugin '{}': {}", path, dlerror()));
  loaded_plugins_.push_back(path);
  using TypesFn = const char* const* (*)();
  auto types = reinterpret_cast<TypesFn>(dlsym(handle, CNUAS_PLUGIN_TYPES_SYMBOL));
  void* create = dlsym(handle, CNUAS_PLUGIN_CREATE_SYMBOL);
  if (types == nullptr) return;  // a native plugin registered itself while loading
  if (create == nullptr)
    throw InputError(where, fmt::format("plugin '{}' exports {} but not {}", path,
                                        CNUAS_PLUGIN_TYPES_SYMBOL, CNUAS_PLUGIN_CREATE_SYMBOL));
  for (const char* const* t = types(); t[0] != nullptr && t[1] != nullptr; t += 2) {
    owned_schemas_.push_back(foreign_model_schema(t[0], t[1]));
    add(foreign_model_info(*owned_schemas_.back(), reinterpret_cast<ForeignCreateFn>(create),
                           path));
  }
}

}  // namespace cnuas
