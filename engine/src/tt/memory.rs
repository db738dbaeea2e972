//! The table's memory: `n` buckets of zeroed memory, each aligned to its
//! own size so that no bucket straddles a cache line.
//!
//! Two wishes pull apart here. Zeroed memory should come from `calloc`:
//! for a big block it maps fresh pages that the kernel zeroes when first
//! touched, so even a 16 GB table is built in microseconds (building it
//! slot by slot touched every page: 8.5 s for 4 GB). But the system
//! allocator serves an alignment above 16 bytes with `posix_memalign` and
//! a `memset`, which touches every page (70 s for 16 GB). So the block is
//! asked for with the allocator's natural alignment and one bucket more,
//! and the buckets start at the first 32-byte boundary inside it.

use std::alloc::Layout;
use std::ops::Deref;
use std::ptr::NonNull;

use super::Bucket;

/// The natural alignment of the system allocator's `calloc` path.
const ALLOC_ALIGN: usize = 16;

/// `len` buckets in zeroed memory, aligned to `align_of::<Bucket>()`.
pub(super) struct Buckets {
    /// The block as allocated, and its layout, for freeing.
    block: NonNull<u8>,
    layout: Layout,
    /// The first bucket, inside the block.
    first: NonNull<Bucket>,
    len: usize,
}

// SAFETY: `Buckets` owns its block like a `Box<[Bucket]>` would, and a
// bucket is only atomics, which are `Send` and `Sync`.
unsafe impl Send for Buckets {}
// SAFETY: as above; shared access only reads `&[Bucket]`.
unsafe impl Sync for Buckets {}

impl Buckets {
    /// `len` empty buckets (`len` > 0), or `None` when the system cannot
    /// give the memory.
    pub(super) fn zeroed(len: usize) -> Option<Buckets> {
        let align = std::mem::align_of::<Bucket>();
        let bytes = len
            .checked_mul(std::mem::size_of::<Bucket>())?
            .checked_add(align)?;
        let layout = Layout::from_size_align(bytes, ALLOC_ALIGN).ok()?;
        if len == 0 {
            return None;
        }
        // SAFETY: the layout's size is at least one bucket, not zero, as
        // `alloc_zeroed` requires.
        let block = NonNull::new(unsafe { std::alloc::alloc_zeroed(layout) })?;
        let offset = block.as_ptr().align_offset(align);
        if offset >= align {
            // Cannot happen for a byte pointer and a power-of-two
            // alignment; refuse rather than overrun.
            // SAFETY: `block` was allocated just above with `layout`.
            unsafe { std::alloc::dealloc(block.as_ptr(), layout) };
            return None;
        }
        // SAFETY: `offset < align`, and the block has `align` spare bytes
        // beyond `len` buckets, so `len` buckets from `block + offset` lie
        // inside it.
        let first = unsafe { block.add(offset) }.cast::<Bucket>();
        Some(Buckets {
            block,
            layout,
            first,
            len,
        })
    }
}

impl Deref for Buckets {
    type Target = [Bucket];

    fn deref(&self) -> &[Bucket] {
        // SAFETY: `first` is aligned for `Bucket` and `len` buckets from it
        // lie inside the live block (see `zeroed`). They are initialised:
        // a bucket is four `AtomicU64`s (the representation of `u64`) with
        // no padding, and all-zero bytes are the valid value 0 of each,
        // i.e. empty slots, as `Bucket::default()`. Nothing hands out
        // `&mut` to them.
        unsafe { std::slice::from_raw_parts(self.first.as_ptr(), self.len) }
    }
}

impl Drop for Buckets {
    fn drop(&mut self) {
        // SAFETY: `block` was allocated by the global allocator with
        // `layout`, and is freed only here, once.
        unsafe { std::alloc::dealloc(self.block.as_ptr(), self.layout) };
    }
}

impl std::fmt::Debug for Buckets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Buckets({})", self.len)
    }
}
