#include "rewriter/patch/visited_objects.h"

#include <cstddef>
#include <cstdint>

namespace pteshare {

VisitedObjects::VisitedObjects(uint64_t size) : first_kind_(static_cast<size_t>(size / 4 + 1)) {}

bool VisitedObjects::InsertOther(uint64_t at, const void* kind) {
  return others_.insert({at, kind}).second;
}

uint8_t VisitedObjects::Number(const void* kind, size_t slot) {
  if (numbers_used_ + 1 >= kNoNumber) return kNoNumber;  // kept out: the table stays half empty
  numbered_[slot] = {kind, static_cast<uint8_t>(++numbers_used_)};
  return numbered_[slot].number;
}

}  // namespace pteshare
