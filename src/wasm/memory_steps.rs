//! The wasm memory grown in large steps, not 64 KB at a time as the allocator asks: every growth
//! of a WebAssembly memory tells V8 of more external memory, and V8 answers with a garbage
//! collection ("external memory pressure"). A 100,000-note index build grew the memory about
//! 3,000 times and collected as often (about 2,500 such collections in a traced build, one of
//! them beside its longest stall); a restart reading the index back grew it as many times.
//!
//! How: the global allocator is the standard one, watched. When an allocation made the memory
//! grow (the allocator ran out of room), a block of a whole step is allocated and freed at once:
//! the allocator grows the memory once for it and keeps the freed block as room for what comes
//! next (a wasm memory never shrinks, so the allocator never gives it back). The memory ends at
//! most one step past what the core needs.

use std::alloc::{GlobalAlloc, Layout, System};

/// The step: a sixteenth of the memory, between these bounds (bytes); the largest kept small
/// beside the index's 250 MB budget at 100,000 notes.
const MIN_STEP: usize = 4 << 20;
const MAX_STEP: usize = 8 << 20;
const PAGE: usize = 65_536;

/// The standard allocator, growing the memory a step at a time.
pub(crate) struct InSteps;

fn memory_bytes() -> usize {
    core::arch::wasm32::memory_size(0) * PAGE
}

impl InSteps {
    /// After an allocation that grew the memory: room for a whole step more, in one growth.
    unsafe fn after_growth(&self) {
        let step = (memory_bytes() / 16).clamp(MIN_STEP, MAX_STEP);
        if let Ok(layout) = Layout::from_size_align(step, 1) {
            // SAFETY: a layout of non-zero size; the block is freed at once with that layout.
            unsafe {
                let block = System.alloc(layout);
                if !block.is_null() {
                    System.dealloc(block, layout);
                }
            }
        }
    }
}

impl InSteps {
    /// Runs one of `System`'s allocating calls and, if it made the memory grow, makes room for a
    /// step more.
    fn watched(&self, call: impl FnOnce() -> *mut u8) -> *mut u8 {
        let before = memory_bytes();
        let out = call();
        if memory_bytes() > before {
            // SAFETY: no allocation of the caller's is touched.
            unsafe { self.after_growth() };
        }
        out
    }
}

// SAFETY: every call goes to `System` as it came; the only addition is an allocation freed at
// once, with its own layout.
unsafe impl GlobalAlloc for InSteps {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        self.watched(|| unsafe { System.alloc(layout) })
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        self.watched(|| unsafe { System.alloc_zeroed(layout) })
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        self.watched(|| unsafe { System.realloc(ptr, layout, new_size) })
    }
}

#[global_allocator]
static ALLOCATOR: InSteps = InSteps;
