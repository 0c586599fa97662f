// The declaration of a GPU architecture profile (profiles/gpu-arch/*.yaml):
// one field per figure, nested by section (`sm.count`, `sm.pipes.int.latency`,
// `dram.tRCD`). It drives parsing, validation, `cnuas describe cnuas.gpu_arch`
// and docs/models/cnuas.gpu_arch.md. A profile kind, not a placeable element.
#pragma once

#include "core/inputs/schema.h"
#include "core/inputs/yaml_source.h"

namespace cnuas::gpu {

const Schema& arch_schema();

// Reads and checks one profile's fields against arch_schema(), defaults filled;
// the relations between fields are checked when ArchConfig is built.
ParamSet read_arch_params(const YamlSource& src);

}  // namespace cnuas::gpu
