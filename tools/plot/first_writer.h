// What puts each tensor's bytes in place first, for `plot`'s tooltips and
// trace: the caller (a method input), the loader (initial state), or the
// first instruction that writes it (instruction_effects.h says which
// instructions write which values), named by its operator
// ("aten::convolution.out"), its delegate's backend, or "move".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rewriter/program/program_view.h"

namespace pteshare::plot {

enum class WriterKind {
  kInput,         // the caller hands it in
  kInitialState,  // the loader copies it in when the method is loaded
  kInstruction,   // an instruction writes it
  kNone,          // nothing does: a static view of another tensor's bytes, or unused
};

struct FirstWrite {
  WriterKind kind = WriterKind::kNone;
  /// kInstruction: "aten::mm.out", "delegate XnnpackBackend", "move".
  std::string op;
  /// kInstruction: its index in the method (time, as in lifetimes.h).
  int64_t instruction = -1;

  /// "aten::mm.out (instruction 12)", "input", "initial state", "none".
  std::string Text() const;
};

/// By value index (MethodView::value_count entries).
std::vector<FirstWrite> FirstWriters(const MethodView& method);

}  // namespace pteshare::plot
