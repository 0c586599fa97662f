#include <iostream>

#include <fmt/format.h>
#include <boost/program_options.hpp>

#include "command_line.h"
#include "commands.h"
#include "core/kernel/registry.h"

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
  return 0;
}

int describe_command(const std::vector<std::string>& args) {
  std::vector<std::string> plugins;
  std::string type;
  po::options_description opts("cnuas describe TYPE [--markdown] [--plugin LIB.so]...");
  opts.add_options()("help,h", "show this help")("markdown",
                                                 "print the model reference page in Markdown")(
      "plugin", po::value(&plugins)->composing(), "load a plugin first");
  po::variables_map vm = parse_command_line(args, opts, &type);
  if (vm.count("help")) {
    std::cout << opts;
    return 0;
  }
  load_plugins(plugins);
  if (type.empty()) throw InputError("describe needs an element TYPE (see cnuas list-models)");
  const ModelInfo& m = Registry::instance().require(type, {});
  std::cout << (vm.count("markdown") ? m.schema->describe_markdown() : m.schema->describe_text());
  return 0;
}

}  // namespace cnuas::cli
