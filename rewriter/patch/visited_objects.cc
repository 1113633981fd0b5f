#include "rewriter/patch/visited_objects.h"

#include <cstddef>
#include <cstdint>

namespace pteshare {

VisitedObjects::VisitedObjects(uint64_t size) : first_kind_(static_cast<size_t>(size / 4 + 1)) {}

bool VisitedObjects::InsertOther(uint64_t at, const void* kind) {
  return others_.insert({at, kind}).second;
}

uint8_t VisitedObjects::Number(const void* kind) {
  uint8_t number = kNoNumber;
  for (size_t i = 0; i < kinds_.size(); ++i) {
    if (kinds_[i] == kind) {
      number = static_cast<uint8_t>(i + 1);
      break;
    }
  }
  if (number == kNoNumber && kinds_.size() + 1 < kNoNumber) {
    kinds_.push_back(kind);
    number = static_cast<uint8_t>(kinds_.size());
  }
  recent_[RecentSlot(kind)] = {kind, number};
  return number;
}

}  // namespace pteshare
