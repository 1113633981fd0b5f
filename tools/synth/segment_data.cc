#include "tools/synth/segment_data.h"

#include <string>
#include <string_view>
#include <unordered_map>

namespace pteshare::synth {
namespace {

/// Appends blobs to a PackedBlobs once per distinct content.
class BlobInterner {
 public:
  BlobInterner(PackedBlobs& blobs, uint64_t alignment) : blobs_(blobs), alignment_(alignment) {
    blobs_.offsets.push_back(0);  // reserved entry: empty blob at 0
  }

  uint32_t Intern(const std::vector<uint8_t>& blob) {
    std::string key(blob.begin(), blob.end());
    auto [it, inserted] = index_.try_emplace(std::move(key), 0);
    if (!inserted) return it->second;
    // The exporter pads the previous blob so that this one starts aligned.
    blobs_.bytes.resize((blobs_.bytes.size() + alignment_ - 1) / alignment_ * alignment_, 0);
    it->second = static_cast<uint32_t>(blobs_.offsets.size());
    blobs_.offsets.push_back(blobs_.bytes.size());
    blobs_.bytes.insert(blobs_.bytes.end(), blob.begin(), blob.end());
    return it->second;
  }

 private:
  PackedBlobs& blobs_;
  uint64_t alignment_;
  std::unordered_map<std::string, uint32_t> index_;
};

}  // namespace

SegmentData CollectSegmentData(const ProgramSpec& spec, uint64_t constant_alignment) {
  SegmentData data;
  BlobInterner constants(data.constants, constant_alignment);
  BlobInterner states(data.mutable_states, 1);
  data.inline_constants.emplace_back();  // placeholder for index 0
  for (const MethodSpec& method : spec.methods) {
    auto& indices = data.data_buffer_idx.emplace_back(method.values.size(), 0);
    for (size_t v = 0; v < method.values.size(); ++v) {
      const auto* tensor = std::get_if<Tensor>(&method.values[v]);
      if (tensor == nullptr) continue;
      if (tensor->constant_data) {
        indices[v] = constants.Intern(*tensor->constant_data);
        if (indices[v] == data.inline_constants.size()) {
          data.inline_constants.push_back(*tensor->constant_data);
        }
      } else if (tensor->initial_state) {
        indices[v] = states.Intern(*tensor->initial_state);
      }
    }
  }
  return data;
}

}  // namespace pteshare::synth
