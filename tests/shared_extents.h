// SharedBytes: how much of a file lies in blocks it shares with another
// file (a reflink), as the file system reports it through FIEMAP: the sum
// of the extents flagged FIEMAP_EXTENT_SHARED (what `filefrag -v` prints
// as "shared"). Bytes written share nothing; a clone shares every block it
// took.
// Its own header: <linux/fs.h> clashes with <sys/mount.h>, which
// filesystem_fixtures.h needs.
#pragma once

#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

namespace pteshare::test_support {

/// The bytes of `path` in extents flagged shared, or nullopt if the file
/// cannot be opened or its file system does not answer FIEMAP.
inline std::optional<uint64_t> SharedBytes(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  constexpr uint32_t kExtentsPerCall = 256;
  std::vector<uint8_t> buffer(sizeof(struct fiemap) +
                              kExtentsPerCall * sizeof(struct fiemap_extent));
  auto* map = reinterpret_cast<struct fiemap*>(buffer.data());
  uint64_t shared = 0, start = 0;
  for (;;) {
    std::fill(buffer.begin(), buffer.end(), uint8_t{0});
    map->fm_start = start;
    map->fm_length = FIEMAP_MAX_OFFSET - start;
    map->fm_flags = FIEMAP_FLAG_SYNC;  // delayed allocations get their blocks first
    map->fm_extent_count = kExtentsPerCall;
    if (::ioctl(fd, FS_IOC_FIEMAP, map) != 0) {
      ::close(fd);
      return std::nullopt;
    }
    if (map->fm_mapped_extents == 0) break;
    const struct fiemap_extent& last = map->fm_extents[map->fm_mapped_extents - 1];
    for (uint32_t i = 0; i < map->fm_mapped_extents; ++i) {
      if (map->fm_extents[i].fe_flags & FIEMAP_EXTENT_SHARED) {
        shared += map->fm_extents[i].fe_length;
      }
    }
    if (last.fe_flags & FIEMAP_EXTENT_LAST) break;
    start = last.fe_logical + last.fe_length;
  }
  ::close(fd);
  return shared;
}

}  // namespace pteshare::test_support
