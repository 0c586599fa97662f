#include "shipped_profiles.h"

#include <algorithm>
#include <filesystem>

#include <yaml-cpp/yaml.h>

namespace cnuas::cli {

std::vector<std::string> shipped_profiles(const std::string& type) {
  namespace fs = std::filesystem;
  std::vector<std::string> found;
  std::error_code ec;
  const fs::path root(CNUAS_PROFILES_DIR);
  if (!fs::is_directory(root, ec)) return found;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() != ".yaml") continue;
    try {
      const YAML::Node doc = YAML::LoadFile(it->path().string());
      if (!doc.IsMap() || !doc["type"] || !doc["type"].IsScalar()) continue;
      if (doc["type"].as<std::string>() != type) continue;
    } catch (const YAML::Exception&) {
      continue;  // `validate --profile` reports a broken profile; here it is just not listed
    }
    found.push_back(fs::proximate(it->path(), ec).string());
  }
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace cnuas::cli
