#pragma once
// The process's allocator, set up for a run host's bursts.

namespace stormwatch {

// Call once, first thing in main; a no-op on other C libraries than glibc.
//  - Large buffers come from the system and go back to it when freed. glibc otherwise raises
//    its threshold for that after the first large free, up to 32 MB, and serves the next ones
//    from its heaps, which keep the pages: after a site's deployment (a burst of tag-change
//    batches) the process would hold on to the burst's memory for good.
//  - Two heaps (arenas) in all. glibc gives threads their own, up to eight per core, and each
//    keeps the pages freed in it; the console's threads (the window, the run host's worker,
//    gRPC's pollers) hand batches to each other, so a burst left free pages in several.
void setUpProcessMemory();

// Gives the pages of freed memory back to the system: glibc keeps them in its heaps for
// reuse, and a burst's stay resident for good. It walks every heap, so it is called once a
// burst is over, not per step. A no-op on other C libraries.
void returnFreedMemory();

} // namespace stormwatch
