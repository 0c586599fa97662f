#include <iostream>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "commands.h"
#include "core/registry.h"

namespace po = boost::program_options;

namespace cnuas::cli {

int list_models_command(const std::vector<std::string>& args) {
  std::vector<std::string> plugins;
  po::options_description opts("cnuas list-models [--plugin LIB.so]...");
  opts.add_options()("help,h", "show this help")("plugin", po::value(&plugins)->composing(), "load a plugin first");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << opts;
    return 0;
  }
  for (const auto& p : plugins) Registry::instance().load_plugin(p, SourceLocation{"--plugin " + p});
  for (const ModelInfo* m : Registry::instance().models())
    std::cout << fmt::format("{:<24} {}  [{}]\n", m->schema->type(), m->schema->summary(), m->origin);
  return 0;
}

int describe_command(const std::vector<std::string>& args) {
  std::vector<std::string> plugins;
  std::string type;
  po::options_description opts("cnuas describe TYPE [--markdown] [--plugin LIB.so]...");
  opts.add_options()("help,h", "show this help")("markdown", "print the model reference page in Markdown")(
      "plugin", po::value(&plugins)->composing(), "load a plugin first");
  po::options_description hidden;
  hidden.add_options()("type", po::value(&type));
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description positional;
  positional.add("type", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << opts;
    return 0;
  }
  for (const auto& p : plugins) Registry::instance().load_plugin(p, SourceLocation{"--plugin " + p});
  if (type.empty()) throw InputError("describe needs an element TYPE (see cnuas list-models)");
  const ModelInfo& m = Registry::instance().require(type, {});
  std::cout << (vm.count("markdown") ? m.schema->describe_markdown() : m.schema->describe_text());
  return 0;
}

}  // namespace cnuas::cli
