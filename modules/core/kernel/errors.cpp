#include "core/kernel/errors.h"

#include <algorithm>
#include <string>

namespace cnuas {

static size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string InputError::bounded(const std::string& message) {
  constexpr std::size_t kMost = 4096;
  if (message.size() <= kMost) return message;
  std::size_t cut = kMost;
  while (cut > 0 && (static_cast<unsigned char>(message[cut]) & 0xC0) == 0x80) --cut;  // UTF-8
  return message.substr(0, cut) + "... (" + std::to_string(message.size() - cut) +
         " more bytes of the message left out)";
}

std::string nearest_name(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  if (word.size() > 256) return best;  // no name is that long; the distance would cost seconds
  size_t best_distance = std::max<size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

std::string join_names(const std::vector<std::string>& names, const char* separator) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) out += separator;
    out += names[i];
  }
  return out;
}

}  // namespace cnuas
