#include "command_line.h"

#include "core/kernel/registry.h"

namespace po = boost::program_options;

namespace cnuas::cli {

po::variables_map parse_command_line(const std::vector<std::string>& args,
                                     const po::options_description& visible,
                                     std::string* positional) {
  po::options_description all;
  all.add(visible);
  po::positional_options_description positions;
  if (positional != nullptr) {
    po::options_description hidden;
    hidden.add_options()("positional-argument", po::value(positional));
    all.add(hidden);
    positions.add("positional-argument", 1);
  }
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(positions).run(), vm);
  po::notify(vm);
  return vm;
}

void load_plugins(const std::vector<std::string>& plugins) {
  for (const auto& p : plugins)
    Registry::instance().load_plugin(p, SourceLocation{"--plugin " + p});
}

}  // namespace cnuas::cli
