// cnuas ptx check FILE.ptx: parse a module and list what the engine cannot run.
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <boost/program_options.hpp>

#include "command_line.h"
#include "commands.h"
#include "core/kernel/errors.h"
#include "core/outputs/wording.h"
#include "ptx/errors.h"
#include "ptx/ir.h"

namespace po = boost::program_options;

namespace cnuas::cli {
namespace {

// Exit status of `ptx check` for valid PTX with instructions the engine lacks.
constexpr int kUnsupportedExit = 3;

int check(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("cannot open PTX file '{}'", path));
  std::stringstream text;
  text << in.rdbuf();
  std::shared_ptr<const ptx::Module> m;
  try {
    m = ptx::Module::parse(text.str(), path);
  } catch (const ptx::ParseError& e) {
    throw InputError(e.what());
  }
  std::size_t kernels = 0, functions = 0, instructions = 0;
  for (const ptx::Function& f : m->functions) {
    if (!f.defined) continue;
    (f.is_entry ? kernels : functions) += 1;
    instructions += f.code.size();
  }
  const auto missing = m->unsupported();
  std::cout << fmt::format("{}: PTX {} for {}, {}, {}, {}\n", path, m->version, m->target,
                           counted(kernels, "kernel"), counted(functions, "function"),
                           counted(instructions, "instruction"));
  if (missing.empty()) {
    std::cout << "all supported\n";
    return 0;
  }
  std::map<std::string, std::size_t> by_reason;
  for (const ptx::Unsupported& u : missing) {
    std::cout << fmt::format("{}:{}: in {}: '{}': {}\n", path, u.line, u.function, u.text,
                             u.reason);
    ++by_reason[u.reason];
  }
  std::cout << fmt::format("{} unsupported instructions:\n", missing.size());
  for (const auto& [reason, count] : by_reason)
    std::cout << fmt::format("  {:>5}  {}\n", count, reason);
  return kUnsupportedExit;
}

}  // namespace

int ptx_command(const std::vector<std::string>& args) {
  const char* usage =
      "cnuas ptx check FILE.ptx\n"
      "  parse a PTX module and list every instruction the engine cannot run;\n"
      "  exit 0 when all are supported, 3 when some are not, 2 on a parse error\n";
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << usage;
    return args.empty() ? 2 : 0;
  }
  if (args[0] != "check")
    throw InputError(fmt::format("unknown ptx subcommand '{}'; accepted: check", args[0]));
  std::string file;
  po::options_description opts("cnuas ptx check FILE.ptx");
  opts.add_options()("help,h", "show this help");
  po::variables_map vm =
      parse_command_line(std::vector<std::string>(args.begin() + 1, args.end()), opts, &file);
  if (vm.count("help")) {
    std::cout << usage;
    return 0;
  }
  if (file.empty()) throw InputError("ptx check needs a PTX file");
  return check(file);
}

}  // namespace cnuas::cli
