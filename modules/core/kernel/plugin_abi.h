/* The C entry points a pure TLM-2.0 plugin exports. Nothing Cnuas-specific is
 * needed to write one: a module with a tlm::tlm_target_socket<32> (for example
 * tlm_utils::simple_target_socket) whose b_transport annotates its delay.
 *
 *   const char* const* cnuas_plugin_model_types(void);
 *       null-terminated array of alternating type names and one-line summaries
 *   sc_core::sc_module* cnuas_plugin_create(const char* type, const char* name);
 *       a new module of that type named `name` (allocated with `new`), or null
 *       for an unknown type. Cnuas owns it from then on: its wrapper element
 *       deletes it, before itself, when the platform is torn down.
 */
#pragma once

#define CNUAS_PLUGIN_TYPES_SYMBOL "cnuas_plugin_model_types"
#define CNUAS_PLUGIN_CREATE_SYMBOL "cnuas_plugin_create"
