// Pairing unnamed state, the checker's own implementation of the rule
// pteshare's --share-auto follows (docs/design.md, "Pairing unnamed
// state"): exporters name mutable buffers only when asked to, and emit each
// method's buffers in the module's one order, so the k-th unnamed mutable
// buffer (planned, initial state, no name) of every method that has any is
// one buffer, when every such method has as many and the k-th agree in
// scalar type, sizes and arena. Paired tensors are named
// `paired_state.K` (K zero-padded to one width), the names pteshare gives
// them, so a check finds them with or without `--write-names`.
#ifndef PTESHARE_RUNTIME_CHECK_STATE_PAIRING_H_
#define PTESHARE_RUNTIME_CHECK_STATE_PAIRING_H_

#include <vector>

#include "runtime_check/alias_check.h"
#include "runtime_check/method_layout.h"

namespace pteshare::runtime_check::internal {

/// Names the unnamed state of `methods` when it pairs; a kUnpairedState
/// warning (nothing named) when two or more methods have unnamed state that
/// does not pair.
void PairUnnamedState(std::vector<MethodLayout>* methods, std::vector<Finding>* findings);

}  // namespace pteshare::runtime_check::internal

#endif  // PTESHARE_RUNTIME_CHECK_STATE_PAIRING_H_
