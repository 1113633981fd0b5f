// What ExecuTorch's loader does with planned memory that matters to whoever
// shares it across methods (docs/format.md, "What the loader does"). The
// planner warns about these and runtime_check reports them, each with its
// own rule about when; the facts and their wording live here once.
// C++17, header-only, no dependency.
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace pteshare::loader {

/// Module(share_memory_arenas=true) hands every method the same memory for
/// memory_id 1 and 2 only (sized to the largest method); any other arena
/// the application binds itself.
inline constexpr uint32_t kLastArenaModuleShares = 2;

/// Whether a valid arena (memory_id >= 1) is one Module does not share.
inline constexpr bool ModuleLeavesArenaUnshared(uint32_t memory_id) {
  return memory_id > kLastArenaModuleShares;
}

inline constexpr const char kModuleSharesArenasOneAndTwo[] =
    "ExecuTorch's Module(share_memory_arenas=true) shares only arenas 1 and 2";

/// Loading a method copies each tensor's initial state into its planned
/// memory, so a shared buffer with an initial state in two or more methods
/// is overwritten whenever any of them is loaded.
inline constexpr bool StateRecopiedOnLoad(size_t methods_with_initial_state) {
  return methods_with_initial_state >= 2;
}

inline constexpr const char kStateRecopiedOnLoad[] =
    "loading any of these methods copies that state over the shared memory again, so load them "
    "all before the first run";

}  // namespace pteshare::loader
