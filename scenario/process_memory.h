#pragma once
// The process's allocator, set up for a run host's bursts.

namespace stormwatch {

// Large buffers come from the system and go back to it when freed. glibc otherwise raises its
// threshold for that after the first large free, up to 32 MB, and serves the next ones from
// its heaps, which keep the pages: after a site's deployment (a burst of tag-change batches)
// the process would hold on to the burst's memory for good. Call once, first thing in main;
// a no-op on other C libraries.
void giveLargeBuffersBack();

} // namespace stormwatch
