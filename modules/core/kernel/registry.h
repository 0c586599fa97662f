// Element types by name: built-ins register at load time, plugins when loaded.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/inputs/schema.h"
#include "core/kernel/errors.h"

namespace cnuas {

class Element;

struct ModelInfo {
  const Schema* schema = nullptr;
  // A new element, owned by the caller (the platform module, a probe, a test).
  std::function<std::unique_ptr<Element>(const std::string& name, const ParamSet& params)> create;
  std::string origin;  // "built-in" or the plugin file that brought it
};

class Registry {
 public:
  static Registry& instance();

  // Registers a type; a second registration of the same name is an error.
  void add(ModelInfo info);
  const ModelInfo* find(const std::string& type) const;
  std::vector<const ModelInfo*> models() const;  // sorted by type name
  std::vector<std::string> type_names() const;
  // Like find, but an unknown type is an InputError with the nearest name.
  const ModelInfo& require(const std::string& type, const SourceLocation& where) const;

  // Loads a plugin .so: native Cnuas models register themselves from static
  // initializers; pure TLM-2.0 models are found through the C entry points in
  // plugin_abi.h and wrapped so they book through the shared scheduler.
  void load_plugin(const std::string& path, const SourceLocation& where);

 private:
  std::map<std::string, ModelInfo> models_;
  std::vector<std::unique_ptr<Schema>> owned_schemas_;
  std::vector<std::string> loaded_plugins_;
  friend class ForeignModelLoader;
};

template <class Model>
bool register_model() {
  Registry::instance().add(
      {&Model::schema(),
       [](const std::string& name, const ParamSet& params) -> std::unique_ptr<Element> {
         return std::make_unique<Model>(name.c_str(), params);
       },
       "built-in"});
  return true;
}

}  // namespace cnuas

// Registers a model class at load time; use at namespace scope in its .cpp.
#define CNUAS_REGISTER_MODEL(Model) \
  static const bool cnuas_registered_##Model [[maybe_unused]] = ::cnuas::register_model<Model>()
