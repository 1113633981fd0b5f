// The `relocate` strategy: a translation that needs no lifetimes.
//
// In every arena with a front region, each shared buffer (and every alias
// inside it) moves to its slot; every other tensor T moves up by
//   F - (slots of the method's shared buffers that lay below T in the input)
//     - (free space the input left below its lowest such tensor).
// The last term is 0 for exporter output (something always starts at 0); it
// makes a second run the identity (I7) for a method that lacks a shared
// buffer, whose empty slot would otherwise look like free space to reclaim.
// Because no tensor straddles a shared buffer (checked on input), and
// offsets are aligned, this keeps every overlap at its exact relative offset
// and creates none: T's neighbours on the same side of every shared buffer
// move by the same amount, and a gap that held shared buffers held at least
// their slots. The arena keeps its size when the method had all of the
// arena's shared buffers, and grows by the slots of those it lacked.
#pragma once

#include "rewriter/plan/plan.h"
#include "rewriter/program/program_view.h"
#include "rewriter/share/shared_buffers.h"

namespace pteshare {

MethodPlan RelocateMethod(const MethodView& method, const SharedBufferSet& shared,
                          const std::vector<FrontRegion>& fronts);

}  // namespace pteshare
