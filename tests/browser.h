// Pictures rendered by a real browser: headless Chromium (Debian's `chromium`,
// installed by scripts/install-deps.sh). Each SVG is drawn on a canvas and
// its non-white pixels counted; an HTML page is loaded in a 1400 px wide frame
// and its images checked for having loaded and for their drawn width.
// No network: every file is local.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace cnuas::testing_support {

// The browser, or "" when none is installed (tests skip then).
inline std::string chromium_binary() {
  if (const char* env = std::getenv("CNUAS_CHROMIUM")) return env;
  for (const char* p : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (std::filesystem::exists(p)) return p;
  return "";
}

struct RenderedPicture {
  int width = 0, height = 0;  // as the browser laid the picture out
  long ink = -1;              // pixels that are not white (-1: it did not load)
};

struct RenderedPage {
  int images = 0, loaded = 0;  // <img> elements, and those that loaded
  int narrowest_image = 0;     // px, of the loaded ones (0: none)
  int details = 0;             // <details> sections
};

struct Rendering {
  std::map<std::string, RenderedPicture> pictures;  // by file name
  RenderedPage page;
  std::string output;  // what the browser printed, for failure messages
};

// Renders `svgs` (file names in `dir`) and, when given, the page `page` in `dir`.
inline Rendering render_in_browser(const std::string& dir, const std::vector<std::string>& svgs,
                                   const std::string& page = "") {
  const std::filesystem::path base = std::filesystem::absolute(dir);
  std::ostringstream html;
  html << "<!DOCTYPE html><html><body>";
  if (!page.empty())
    html << "<iframe id=\"page\" src=\"" << page << "\" width=\"1400\" height=\"900\"></iframe>";
  html << "<pre id=\"result\">pending</pre><script>\nconst svgs = [";
  for (const std::string& s : svgs) html << "'" << s << "',";
  html << "];\nconst lines = [];\n"
          "function ink(src) { return new Promise(done => { const img = new Image();\n"
          "  img.onload = () => { const c = document.createElement('canvas');\n"
          "    c.width = img.naturalWidth; c.height = img.naturalHeight;\n"
          "    const g = c.getContext('2d'); g.fillStyle = 'white'; g.fillRect(0, 0, c.width, "
          "c.height);\n"
          "    g.drawImage(img, 0, 0); const p = g.getImageData(0, 0, c.width, c.height).data;\n"
          "    let n = 0; for (let i = 0; i < p.length; i += 4) if (p[i] < 250 || p[i + 1] < 250 "
          "|| p[i + 2] < 250) ++n;\n"
          "    lines.push('svg ' + src + ' ' + c.width + ' ' + c.height + ' ' + n); done(); };\n"
          "  img.onerror = () => { lines.push('svg ' + src + ' 0 0 -1'); done(); };\n"
          "  img.src = src; }); }\n"
          "function frame() { return new Promise(done => { const f = "
          "document.getElementById('page');\n"
          "  if (!f) return done();\n"
          "  const check = () => { const d = f.contentDocument; let loaded = 0, narrowest = 0;\n"
          "    for (const i of d.images) if (i.complete && i.naturalWidth > 0) { ++loaded;\n"
          "      const w = Math.round(i.getBoundingClientRect().width);\n"
          "      narrowest = narrowest ? Math.min(narrowest, w) : w; }\n"
          "    lines.push('page ' + d.images.length + ' ' + loaded + ' ' + narrowest + ' ' + "
          "d.querySelectorAll('details').length); done(); };\n"
          "  const d = f.contentDocument;\n"
          "  if (d && d.URL !== 'about:blank' && d.readyState === 'complete') check();\n"
          "  else f.addEventListener('load', check); }); }\n"
          "Promise.all([...svgs.map(ink), frame()]).then(() => {\n"
          "  document.getElementById('result').textContent = lines.join('\\n') + '\\ndone'; });\n"
          "</script></body></html>\n";
  const std::filesystem::path wrapper = base / "render-check.html";
  std::ofstream(wrapper) << html.str();
  // A private profile directory; no sandbox (tests may run as root in containers).
  const std::string command =
      "timeout 60 " + chromium_binary() +
      " --headless --no-sandbox --disable-gpu --no-first-run --allow-file-access-from-files "
      "--user-data-dir=" +
      (base / "chromium-profile").string() +
      " --virtual-time-budget=10000 --window-size=1400,1000 --dump-dom file://" + wrapper.string() +
      " 2>/dev/null";
  Rendering r;
  // Under heavy load headless chromium can dump the page before the images
  // decoded (the result still "pending"): the scripts did not finish, which
  // says nothing about the pictures, so that run is repeated (three at most).
  for (int attempt = 0; attempt < 3; ++attempt) {
    r.output.clear();
    if (FILE* p = popen(command.c_str(), "r")) {
      char buf[4096];
      std::size_t n;
      while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
      pclose(p);
    }
    if (r.output.find("\ndone</pre>") != std::string::npos) break;
  }
  // The result is the text of <pre id="result"> once the scripts ran.
  const std::string open = "<pre id=\"result\">";
  const std::size_t from = r.output.find(open);
  const std::size_t to = r.output.find("</pre>", from);
  if (from == std::string::npos || to == std::string::npos) return r;
  std::istringstream lines(r.output.substr(from + open.size(), to - from - open.size()));
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string kind;
    words >> kind;
    if (kind == "svg") {
      std::string file;
      RenderedPicture pic;
      if (words >> file >> pic.width >> pic.height >> pic.ink) r.pictures[file] = pic;
    } else if (kind == "page") {
      words >> r.page.images >> r.page.loaded >> r.page.narrowest_image >> r.page.details;
    }
  }
  return r;
}

}  // namespace cnuas::testing_support
