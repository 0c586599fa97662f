// Kinds of profile that configure a model but are not placeable elements
// (a GPU architecture): `describe`, `list-models` and `validate --profile`
// know them next to the element types of the registry.
#pragma once

#include <string>
#include <vector>

#include "core/inputs/schema.h"

namespace cnuas::cli {

const std::vector<const Schema*>& profile_kinds();
// The profile kind named `type`, or nullptr.
const Schema* find_profile_kind(const std::string& type);

}  // namespace cnuas::cli
