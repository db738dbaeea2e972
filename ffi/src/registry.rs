//! The one global: the table from handles to engines. It holds no engine
//! state, only who is alive, so two engines share nothing but this lock,
//! which no call holds while it works on an engine.
//!
//! Handles are numbers, never pointers, so a stale or invented handle
//! finds nothing instead of freed memory; they count up from 1 and are
//! never reused (2⁶⁴ handles outlast any process), so a stale handle
//! cannot reach a newer engine either.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::ChariotEngine;
use crate::instance::Instance;

static ENGINES: Mutex<BTreeMap<ChariotEngine, Arc<Instance>>> = Mutex::new(BTreeMap::new());

/// The next handle to hand out; 0 is never one.
static NEXT: AtomicU64 = AtomicU64::new(1);

fn engines() -> MutexGuard<'static, BTreeMap<ChariotEngine, Arc<Instance>>> {
    ENGINES.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Registers `instance` under a new handle.
pub fn insert(instance: Arc<Instance>) -> ChariotEngine {
    let handle = NEXT.fetch_add(1, Ordering::Relaxed);
    engines().insert(handle, instance);
    handle
}

/// The engine `handle` names, if it is alive.
pub fn get(handle: ChariotEngine) -> Option<Arc<Instance>> {
    engines().get(&handle).cloned()
}

/// Unregisters the engine `handle` names and returns it; only one caller
/// ever gets it, so only one destroys it.
pub fn remove(handle: ChariotEngine) -> Option<Arc<Instance>> {
    engines().remove(&handle)
}
