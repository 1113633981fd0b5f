// Test-only crash points of the writer. When the environment variable
// PTESHARE_TEST_CRASH_AT names a point the writer reaches, the process stops
// there with _exit(99): no destructors, no flush, no cleanup, as if the
// machine lost power between two system calls. The crash-safety tests use it
// to check that every interrupted rewrite is recovered. Never set it outside
// tests.
//
//   PTESHARE_TEST_CRASH_AT=after-journal         journal durable, file untouched
//   PTESHARE_TEST_CRASH_AT=after-mark            the identifier reads PTRW (journal.h), durable
//   PTESHARE_TEST_CRASH_AT=before-insert         (segments move) the same, gap not open
//   PTESHARE_TEST_CRASH_AT=after-insert          gap open, nothing written into it
//   PTESHARE_TEST_CRASH_AT=after-patch:K         K write runs written (write_runs.h; K >= 1; with a
//                                                gap, highest first, the header last)
//   PTESHARE_TEST_CRASH_AT=after-header-update   (segments move) every range written,
//                                                the header too, not yet synced
//   PTESHARE_TEST_CRASH_AT=before-unmark         every range written and synced, still PTRW
//   PTESHARE_TEST_CRASH_AT=before-journal-delete every range written and synced, the
//                                                identifier restored and synced
//   PTESHARE_TEST_CRASH_AT=during-segment-move   part of the segment data copied (-o,
//                                                or in place where no range can be inserted)
//   PTESHARE_TEST_CRASH_AT=before-publish        a new file complete, still nameless
//   PTESHARE_TEST_CRASH_AT=after-temp-link       a new file linked under its temporary
//                                                name, not yet renamed (pending_file.h)
#pragma once

#include <cstddef>
#include <string_view>

namespace pteshare {

/// The exit status of a test crash.
inline constexpr int kTestCrashExitStatus = 99;

/// _exit(99) if PTESHARE_TEST_CRASH_AT equals `point`.
void MaybeCrashAt(std::string_view point);
/// _exit(99) if PTESHARE_TEST_CRASH_AT is `after-patch:K` with K == `patches_written`.
void MaybeCrashAfterPatch(size_t patches_written);

}  // namespace pteshare
