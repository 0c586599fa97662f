#include <iostream>

#include <fmt/format.h>
#include <boost/program_options.hpp>

#include "command_line.h"
#include "commands.h"
#include "core/kernel/registry.h"
#include "profile_kinds.h"
#include "shipped_profiles.h"

namespace po = boost::program_options;

namespace cnuas::cli {

int list_models_command(const std::vector<std::string>& args) {
  std::vector<std::string> plugins;
  po::options_description opts("cnuas list-models [--plugin LIB.so]...");
  opts.add_options()("help,h", "show this help")("plugin", po::value(&plugins)->composing(),
                                                 "load a plugin first");
  po::variables_map vm = parse_command_line(args, opts);
  if (vm.count("help")) {
    std::cout << opts;
    return 0;
  }
  load_plugins(plugins);
  for (const ModelInfo* m : Registry::instance().models())
    std::cout << fmt::format("{:<24} {}  [{}]\n", m->schema->type(), m->schema->summary(),
                             m->origin);
  // Kept apart: these configure a model and cannot be placed in a platform.
  std::cout << "\nprofile kinds (not elements; cnuas validate --profile FILE checks one):\n";
  for (const Schema* s : profile_kinds())
    std::cout << fmt::format("{:<24} {}  [profile]\n", s->type(), s->summary());
  return 0;
}

int describe_command(const std::vector<std::string>& args) {
  std::vector<std::string> plugins;
  std::string type;
  po::options_description opts(
      "cnuas describe TYPE|PROFILE_KIND [--markdown] [--plugin LIB.so]...");
  opts.add_options()("help,h", "show this help")("markdown",
                                                 "print the model reference page in Markdown")(
      "plugin", po::value(&plugins)->composing(), "load a plugin first");
  po::variables_map vm = parse_command_line(args, opts, &type);
  if (vm.count("help")) {
    std::cout << opts;
    return 0;
  }
  load_plugins(plugins);
  if (type.empty())
    throw InputError("describe needs an element TYPE or a profile kind (see cnuas list-models)");
  const Schema* schema = find_profile_kind(type);
  if (schema == nullptr) {
    const ModelInfo* m = Registry::instance().find(type);
    if (m == nullptr) {
      std::vector<std::string> kinds;
      for (const Schema* k : profile_kinds()) kinds.push_back(k->type());
      std::vector<std::string> all = Registry::instance().type_names();
      all.insert(all.end(), kinds.begin(), kinds.end());
      const std::string hint = nearest_name(type, all);
      throw InputError(fmt::format("unknown type '{}'{}; element types: {}; profile kinds: {}",
                                   type, hint.empty() ? "" : " (did you mean '" + hint + "'?)",
                                   join_names(Registry::instance().type_names()),
                                   join_names(kinds)));
    }
    schema = m->schema;
  }
  if (vm.count("markdown")) {
    std::cout << schema->describe_markdown();
    return 0;
  }
  std::cout << schema->describe_text();
  const std::vector<std::string> profiles = shipped_profiles(type);
  if (!profiles.empty()) {
    std::cout << "\nshipped profiles (use with `profile: FILE` in a platform):\n";
    for (const std::string& p : profiles) std::cout << "  " << p << "\n";
  }
  return 0;
}

}  // namespace cnuas::cli
