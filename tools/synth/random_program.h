// Random programs for property tests: valid, runnable programs built from the
// operator vocabulary (operators.h) with random shapes, whose methods share
// state the way real exports do. From one seed, always the same program.
//
// What a program may contain (each drawn at random):
//  - 1 to 3 methods, 1 to 3 arenas (arena 2 sometimes on a device);
//  - mutable buffers ("state.*") in several methods, same arena and size in
//    each, with random, zero or no initial state; sometimes unnamed (then
//    `namings` names them by position, as --name does);
//  - accumulators updated in place (add.out whose out aliases the buffer),
//    KV-style caches written by update_cache and read through a static view
//    (attention_scores / softmax / attention_mix);
//  - elementwise ops, linear, rms_norm, softmax, view_copy, embedding with
//    constant indices, cat over a TensorList (sometimes with an empty
//    tensor), in-place results, static views, MoveCall, DelegateCall, FreeCall,
//    unplanned activations;
//  - at most one loop per method: a body re-run by a backward JumpFalseCall
//    until the delegate stand-in (reference_kernels.h) sets its Bool, with
//    the counter reset by _local_scalar_dense at the start of every run.
// Every input is float32; every tensor the program reads was written first
// in that run, or is state, a constant, or an input. Placements come from
// the builder's exporter-like planner.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rewriter/base/result.h"
#include "tools/synth/program_spec.h"

namespace pteshare::synth {

/// A name given to an unnamed buffer by position (`--name M:V=NAME`).
struct BufferNaming {
  std::string method;
  ValueIndex value = 0;
  std::string name;
};

struct RandomProgram {
  ProgramSpec spec;
  /// Every mutable buffer's name, sorted: share all of them, so that no
  /// state is left for another method to clobber.
  std::vector<std::string> buffer_names;
  /// Names for buffers written without fully_qualified_name.
  std::vector<BufferNaming> namings;
};

/// The program of `seed`. Fails only if the generator itself is wrong.
Result<RandomProgram> GenerateRandomProgram(uint64_t seed);

}  // namespace pteshare::synth
