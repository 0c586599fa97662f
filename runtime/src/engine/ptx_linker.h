// The device linker for PTX: joins the PTX of several translation units
// (relocatable device code, cuLink inputs) into the text of one module the
// PTX engine loads, resolving `.extern` functions and variables across them
// as nvlink resolves them for a GPU.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace cnuas::cuda {

// One module's PTX and the name messages use for it ("b.ptx", "fatbin unit 2").
struct PtxUnit {
  std::string name;
  std::string text;
  // A member of a library: linked only when it defines a symbol the units
  // linked so far refer to and nothing defines, as a static library's are.
  bool from_library = false;
};

struct PtxLinkError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Links the units into one module's PTX text:
//  - every `.visible` (or `.weak`, `.common`) definition is one program-wide
//    symbol; `.extern` declarations in other units refer to it; two `.visible`
//    definitions of one name are an error; of several `.weak` ones the first wins;
//  - symbols without linkage (static functions, printf strings) stay private to
//    their unit: where two units use one name, it is renamed in each;
//  - a referenced extern function that no unit defines must be one the PTX
//    engine provides (`is_builtin`: vprintf, malloc, the device runtime); a
//    referenced extern variable must be defined by a unit (an unsized
//    `.extern .shared` array is dynamic shared memory and needs no definition).
// The result declares the highest `.version` and `.target` of the units.
// Throws PtxLinkError naming the symbol and the units involved.
std::string link_ptx(const std::vector<PtxUnit>& units,
                     const std::function<bool(const std::string&)>& is_builtin);

}  // namespace cnuas::cuda
