//! Connection slots, split between connections that have authenticated and
//! those that have not (yet).
//!
//! Why: before the split, 1,000 clients that sent only the handshake held
//! every slot and a client with the right password got
//! `NoThreadsAvailable`. Now unauthenticated connections hold at most
//! `max - reserve` slots, so the reserve is always left to authenticated
//! ones. A new connection is never refused for the unauthenticated share
//! alone: it takes the place of the oldest unauthenticated connection,
//! which is closed. A legitimate client authenticates within a round trip
//! and a hash, so it gets through even while a flood keeps the share full;
//! a flooder only ever displaces itself or other clients that are slow to
//! log in. The total `max` still refuses new connections (with the
//! transient failure drivers retry), which needs at least `reserve`
//! authenticated connections.

use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::sync::Arc;
use tokio::sync::Notify;

/// The slot accounting of one listener.
#[derive(Debug)]
pub struct Slots {
    max: usize,
    /// How many of `max` unauthenticated connections may hold.
    unauthenticated_max: usize,
    state: Mutex<SlotState>,
}

#[derive(Debug, Default)]
struct SlotState {
    open: usize,
    next_id: u64,
    /// The unauthenticated connections, oldest first, with the signal that
    /// closes them when they are displaced.
    unauthenticated: BTreeMap<u64, Arc<Notify>>,
}

/// The default reserve for `max` connections: a tenth, at least 4, and
/// always leaving unauthenticated clients one slot.
pub fn default_reserve(max: usize) -> usize {
    (max / 10).max(4).min(max.saturating_sub(1))
}

impl Slots {
    /// `reserve` is clamped so that unauthenticated clients keep one slot.
    pub fn new(max: usize, reserve: usize) -> Arc<Self> {
        let max = max.max(1);
        Arc::new(Slots {
            max,
            unauthenticated_max: max - reserve.min(max - 1),
            state: Mutex::new(SlotState::default()),
        })
    }

    /// A slot for a new (unauthenticated) connection, or `None` when all
    /// `max` are taken. May displace the oldest unauthenticated connection.
    pub fn enter(self: &Arc<Self>) -> Option<Slot> {
        let mut state = self.state.lock();
        if state.open >= self.max {
            return None;
        }
        state.open += 1;
        let id = state.next_id;
        state.next_id += 1;
        drop(state);
        let slot = Slot {
            slots: self.clone(),
            id,
            displaced: Arc::new(Notify::new()),
        };
        self.mark_unauthenticated(&slot);
        Some(slot)
    }

    /// Connections holding a slot, and how many of them are unauthenticated.
    pub fn counts(&self) -> (usize, usize) {
        let state = self.state.lock();
        (state.open, state.unauthenticated.len())
    }

    fn mark_unauthenticated(&self, slot: &Slot) {
        let mut state = self.state.lock();
        if state.unauthenticated.contains_key(&slot.id) {
            return;
        }
        while state.unauthenticated.len() >= self.unauthenticated_max {
            let Some((_, oldest)) = state.unauthenticated.pop_first() else {
                break;
            };
            // `notify_one` keeps the wake-up until the connection waits.
            oldest.notify_one();
        }
        state
            .unauthenticated
            .insert(slot.id, slot.displaced.clone());
    }

    fn mark_authenticated(&self, slot: &Slot) {
        self.state.lock().unauthenticated.remove(&slot.id);
    }
}

/// One connection's place; released on drop.
#[derive(Debug)]
pub struct Slot {
    slots: Arc<Slots>,
    id: u64,
    displaced: Arc<Notify>,
}

impl Slot {
    /// The connection authenticated: it no longer counts against the
    /// unauthenticated share and cannot be displaced.
    pub fn authenticated(&self) {
        self.slots.mark_authenticated(self);
    }

    /// The connection logged off: it counts as unauthenticated again.
    pub fn unauthenticated(&self) {
        self.slots.mark_unauthenticated(self);
    }

    /// Completes once a newer connection took this one's place.
    pub async fn displaced(&self) {
        self.displaced.notified().await;
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut state = self.slots.state.lock();
        state.open -= 1;
        state.unauthenticated.remove(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    async fn is_displaced(slot: &Slot) -> bool {
        tokio::time::timeout(Duration::from_millis(20), slot.displaced())
            .await
            .is_ok()
    }

    #[tokio::test]
    async fn unauthenticated_connections_displace_the_oldest_but_never_the_reserve() {
        let slots = Slots::new(4, 2);
        let admin = slots.enter().unwrap();
        admin.authenticated();
        let first = slots.enter().unwrap();
        let second = slots.enter().unwrap();
        assert_eq!(slots.counts(), (3, 2));
        // A third unauthenticated one displaces the oldest.
        let third = slots.enter().unwrap();
        assert!(is_displaced(&first).await);
        assert!(!is_displaced(&second).await);
        assert!(!is_displaced(&admin).await);
        assert_eq!(slots.counts(), (4, 2));
        // All four slots are held until the displaced one leaves.
        assert!(slots.enter().is_none());
        drop(first);
        let fourth = slots.enter().unwrap();
        assert!(is_displaced(&second).await);
        third.authenticated();
        assert_eq!(slots.counts(), (4, 1));
        drop((second, third, fourth, admin));
        assert_eq!(slots.counts(), (0, 0));
    }

    #[tokio::test]
    async fn a_logged_off_connection_counts_as_unauthenticated_again() {
        let slots = Slots::new(3, 2);
        let a = slots.enter().unwrap();
        a.authenticated();
        let b = slots.enter().unwrap();
        a.unauthenticated();
        assert!(is_displaced(&b).await);
        assert_eq!(slots.counts(), (2, 1));
    }

    #[test]
    fn the_reserve_leaves_one_unauthenticated_slot() {
        assert_eq!(default_reserve(1000), 100);
        assert_eq!(default_reserve(10), 4);
        assert_eq!(default_reserve(2), 1);
        assert_eq!(default_reserve(1), 0);
        let slots = Slots::new(2, 5);
        assert_eq!(slots.unauthenticated_max, 1);
    }
}
