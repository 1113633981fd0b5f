#include "tools/synth/exporter_greedy.h"

#include <algorithm>
#include <numeric>

namespace pteshare::synth {
namespace {

uint64_t AlignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

/// A request placed in a bucket at `offset` (relative to the bucket).
struct Tenant {
  size_t request = 0;
  uint64_t offset = 0;
};

/// ET's SharedObject: a slab whose size is fixed by its first tenant.
struct Bucket {
  uint64_t size = 0;
  std::vector<Tenant> tenants;
};

bool AllTenantsDisjoint(const Bucket& bucket, const Lifetime& lifetime,
                        const std::vector<GreedyRequest>& requests) {
  return std::none_of(bucket.tenants.begin(), bucket.tenants.end(), [&](const Tenant& tenant) {
    return requests[tenant.request].lifetime.Overlaps(lifetime);
  });
}

/// Top of the highest tenant live at the same time as `lifetime` (ET's
/// _find_max_overlapping_allocations_offset).
uint64_t TopOfOverlappingTenants(const Bucket& bucket, const Lifetime& lifetime,
                                 const std::vector<GreedyRequest>& requests,
                                 const std::vector<uint64_t>& aligned_sizes) {
  uint64_t top = 0;
  for (const Tenant& tenant : bucket.tenants) {
    if (!requests[tenant.request].lifetime.Overlaps(lifetime)) continue;
    top = std::max(top, tenant.offset + aligned_sizes[tenant.request]);
  }
  return top;
}

}  // namespace

GreedyPlan PlanGreedy(const std::vector<GreedyRequest>& requests, uint64_t alignment) {
  std::vector<uint64_t> aligned_sizes(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    aligned_sizes[i] = AlignUp(requests[i].nbytes, alignment);
  }
  std::vector<size_t> order(requests.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return aligned_sizes[a] > aligned_sizes[b]; });

  std::vector<Bucket> buckets;
  std::vector<size_t> bucket_of(requests.size());
  std::vector<uint64_t> offset_in_bucket(requests.size());
  auto assign = [&](size_t request, size_t bucket, uint64_t offset) {
    buckets[bucket].tenants.push_back(Tenant{request, offset});
    bucket_of[request] = bucket;
    offset_in_bucket[request] = offset;
  };

  for (size_t request : order) {
    const Lifetime& lifetime = requests[request].lifetime;
    const uint64_t size = aligned_sizes[request];
    bool placed = false;
    for (size_t b = 0; b < buckets.size() && !placed; ++b) {
      if (AllTenantsDisjoint(buckets[b], lifetime, requests)) {
        assign(request, b, 0);
        placed = true;
      }
    }
    for (size_t b = 0; b < buckets.size() && !placed; ++b) {
      uint64_t top = TopOfOverlappingTenants(buckets[b], lifetime, requests, aligned_sizes);
      if (top > 0 && top + size <= buckets[b].size) {
        assign(request, b, top);
        placed = true;
      }
    }
    if (!placed) {
      buckets.push_back(Bucket{size, {}});
      assign(request, buckets.size() - 1, 0);
    }
  }

  GreedyPlan plan;
  std::vector<uint64_t> bucket_base(buckets.size());
  for (size_t b = 0; b < buckets.size(); ++b) {
    bucket_base[b] = plan.arena_size;
    plan.arena_size += buckets[b].size;
  }
  plan.offsets.resize(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    plan.offsets[i] = bucket_base[bucket_of[i]] + offset_in_bucket[i];
  }
  return plan;
}

}  // namespace pteshare::synth
