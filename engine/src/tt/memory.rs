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
//!
//! A table of 2 MiB or more starts instead on a 2 MiB boundary (the block
//! is 2 MiB bigger; the spare pages are never touched, so they cost address
//! space only), and on Linux the engine asks the kernel to back it with
//! transparent huge pages (`madvise(MADV_HUGEPAGE)`), as Stockfish does:
//! every probe lands on a random bucket, and with 4 KiB pages nearly every
//! one also missed the TLB, a page walk that is dearer still in a virtual
//! machine. Where the kernel has huge pages off, the advice is ignored and
//! the table works on small pages as before.
//!
//! [`prefetch`] lives here too: the hint that brings a random probe's
//! memory into the cache ahead of the probe, for the table's buckets and
//! for the search's evaluation cache.

use std::alloc::Layout;
use std::ops::Deref;
use std::ptr::NonNull;

use super::Bucket;

/// Asks the processor to bring the cache line holding `item` into its
/// cache, so that a read a little later finds it there (a hint: it reads
/// nothing, cannot fault, and changes no result). A no-op where the
/// architecture has no stable prefetch instruction in Rust.
#[inline]
pub(crate) fn prefetch<T>(item: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let at: *const T = item;
        // SAFETY: a prefetch reads nothing and cannot fault, and `at` is a
        // live reference's address; SSE, which provides it, is part of
        // every x86-64 processor.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(at.cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = item;
}

/// The natural alignment of the system allocator's `calloc` path.
const ALLOC_ALIGN: usize = 16;

/// The size of a transparent huge page on x86-64 and most ARM64 Linux
/// kernels: tables this big or bigger start on such a boundary.
const HUGE_PAGE: usize = 2 << 20;

/// `len` buckets in zeroed memory, aligned to `align_of::<Bucket>()`, or
/// to a huge page when they fill one or more (see the module doc).
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
        if len == 0 {
            return None;
        }
        let table_bytes = len.checked_mul(std::mem::size_of::<Bucket>())?;
        let align = if table_bytes >= HUGE_PAGE {
            HUGE_PAGE
        } else {
            std::mem::align_of::<Bucket>()
        };
        let bytes = table_bytes.checked_add(align)?;
        let layout = Layout::from_size_align(bytes, ALLOC_ALIGN).ok()?;
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
        if align == HUGE_PAGE {
            advise_huge_pages(first.cast(), table_bytes);
        }
        Some(Buckets {
            block,
            layout,
            first,
            len,
        })
    }
}

/// Asks Linux to back `bytes` from `start` (a huge-page boundary) with
/// transparent huge pages. A hint: refused or not, the memory and its
/// contents stay as they were.
#[cfg(target_os = "linux")]
fn advise_huge_pages(start: NonNull<u8>, bytes: usize) {
    // SAFETY: the range lies inside a live block this module allocated;
    // MADV_HUGEPAGE changes only how the kernel backs the pages, never
    // their contents or their mapping. The result is deliberately ignored
    // (EINVAL where the kernel has no transparent huge pages).
    unsafe {
        libc::madvise(start.as_ptr().cast(), bytes, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_start: NonNull<u8>, _bytes: usize) {}

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

#[cfg(test)]
mod tests {
    use super::*;

    /// Small tables start on a bucket boundary, big ones on a huge-page
    /// boundary, and the last bucket, the far end of the block the
    /// alignment shifted, reads as an empty bucket.
    #[test]
    fn alignment_and_zeroes() {
        for len in [
            1,
            3,
            1000,
            HUGE_PAGE / 32 - 1,
            HUGE_PAGE / 32,
            3 * HUGE_PAGE / 32,
        ] {
            let b = Buckets::zeroed(len).expect("memory");
            let start = b.as_ptr() as usize;
            let bytes = len * std::mem::size_of::<Bucket>();
            let want = if bytes >= HUGE_PAGE {
                HUGE_PAGE
            } else {
                std::mem::align_of::<Bucket>()
            };
            assert_eq!(start % want, 0, "{len} buckets start at {start:#x}");
            assert_eq!(b.len(), len);
            let last = &b[len - 1];
            assert_eq!(format!("{last:?}"), format!("{:?}", Bucket::default()));
        }
        assert!(Buckets::zeroed(0).is_none());
    }
}
