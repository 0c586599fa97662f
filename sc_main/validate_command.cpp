#include <iostream>

#include <fmt/format.h>
#include <boost/program_options.hpp>

#include "command_line.h"
#include "commands.h"
#include "core/inputs/yaml_source.h"
#include "gpu/arch_config.h"
#include "gpu/arch_schema.h"
#include "run/simulation.h"

namespace po = boost::program_options;

namespace cnuas::cli {
namespace {

// The resolved platform as YAML, each field with its description as a comment.
void dump_platform(const Simulation& sim) {
  const PlatformDesc& p = sim.platform();
  std::cout << fmt::format("# resolved platform from {}\nplatform: {}\nelements:\n", p.file,
                           p.name);
  for (const ElementInstance& e : p.elements) {
    const Schema& schema = *Registry::instance().find(e.type)->schema;
    const ParamSet& params = e.params;
    std::cout << fmt::format("  - name: {}   # {}\n    type: {}   # {}\n    set:\n", e.name,
                             e.where.str(), e.type, schema.summary());
    for (const FieldSpec& f : schema.fields()) {
      const FieldValue& v = params.get(f.name);
      std::cout << fmt::format("      {}: {}   # {} [{}; from {}]\n", f.name, v.text, f.description,
                               f.type_text(), v.where.str());
    }
  }
  std::cout << "connections:\n";
  for (const Connection& c : p.connections)
    std::cout << fmt::format("  - {} -> {}\n", c.from, c.to);
  std::cout << fmt::format("# workload '{}': {} operations\n", sim.workload().name,
                           sim.workload().operations.size());
}

// A resolved profile as YAML, sections nested as the file writes them, each
// field with its description, type and where its value came from.
void dump_profile(const Schema& schema, const ParamSet& params, const std::string& file) {
  std::cout << fmt::format("# resolved {} profile from {}\n", schema.type(), file);
  std::vector<std::string> open;  // the sections the previous field was in
  for (const FieldSpec& f : schema.fields()) {
    std::vector<std::string> path;
    for (std::size_t start = 0;;) {
      const std::size_t dot = f.name.find('.', start);
      path.push_back(f.name.substr(start, dot - start));
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    std::size_t same = 0;
    while (same < open.size() && same + 1 < path.size() && open[same] == path[same]) ++same;
    open.resize(same);
    for (; open.size() + 1 < path.size(); open.push_back(path[open.size()]))
      std::cout << fmt::format("{:{}}{}:\n", "", 2 * open.size(), path[open.size()]);
    const FieldValue& v = params.get(f.name);
    std::cout << fmt::format("{:{}}{}: {}   # {} [{}; from {}]\n", "", 2 * open.size(), path.back(),
                             v.text, f.description, f.type_text(), v.where.str());
  }
}

}  // namespace

int validate_command(const std::vector<std::string>& args) {
  RunOptions options;
  std::string profile;
  po::options_description opts("cnuas validate PLATFORM | --profile FILE [options]");
  opts.add_options()("help,h", "show this help")("profile", po::value(&profile),
                                                 "check one profile file")(
      "workload,w", po::value(&options.workload_file),
      "check this workload instead of the platform's")(
      "dump",
      "print the resolved platform (or --profile) with every field's value, source and "
      "description")("set", po::value(&options.sets)->composing(),
                     "override a field: ELEMENT.FIELD=VALUE")(
      "plugin", po::value(&options.plugins)->composing(), "load a model plugin LIB.so");
  po::variables_map vm = parse_command_line(args, opts, &options.platform_file);
  if (vm.count("help")) {
    std::cout << opts;
    return 0;
  }
  if (!profile.empty()) {
    // A GPU architecture profile (profiles/gpu-arch) names an architecture, not a type.
    const YamlSource source = load_yaml_file(profile);
    if (source.root.IsMap() && source.root["architecture"] && !source.root["type"]) {
      const gpu::ArchConfig arch = gpu::load_arch_file(profile);
      if (vm.count("dump")) {
        dump_profile(gpu::arch_schema(), gpu::read_arch_params(source), profile);
      } else {
        std::cout << fmt::format(
            "{}: valid GPU architecture profile '{}' ({} SMs, {} L2 slices, "
            "{} DRAM channels)\n",
            profile, arch.name, arch.sm.count, arch.l2.slices, arch.dram.channels);
      }
      return 0;
    }
    load_plugins(options.plugins);
    ProfileDoc doc = load_profile(profile);
    const Schema& schema = *Registry::instance().find(doc.type)->schema;
    const ParamSet params =
        resolve_params(schema, doc.values, "profile " + profile, SourceLocation{profile});
    if (vm.count("dump")) {
      dump_profile(schema, params, profile);
    } else {
      std::cout << fmt::format("{}: valid profile for {} ({} fields set)\n", profile, doc.type,
                               doc.values.size());
    }
    return 0;
  }
  if (options.platform_file.empty())
    throw InputError("validate needs a PLATFORM file or --profile FILE");
  Simulation sim(options);
  sim.elaborate_only();
  if (vm.count("dump")) {
    dump_platform(sim);
  } else {
    std::cout << fmt::format(
        "{}: valid platform '{}' ({} elements, {} connections); workload '{}' ({} operations)\n",
        options.platform_file, sim.platform().name, sim.platform().elements.size(),
        sim.platform().connections.size(), sim.workload().name, sim.workload().operations.size());
  }
  return 0;
}

}  // namespace cnuas::cli
