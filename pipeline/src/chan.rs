//! Bounded channels between actors, and the mailbox whose control lane overtakes its data lane.
//!
//! Every channel is `crossbeam_channel::bounded`: a slow consumer pushes back on its producer;
//! nothing queues without limit. Sends and receives are counted for the step-driven simulation.

use crossbeam_channel::{Receiver, Sender, TryRecvError, TrySendError};
use std::sync::Arc;

use crate::sim::Activity;

/// The sending side of a counted bounded channel.
pub(crate) struct Tx<T> {
    inner: Sender<T>,
    activity: Activity,
}

impl<T> Clone for Tx<T> {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
            activity: self.activity.clone(),
        }
    }
}

impl<T> Tx<T> {
    /// Sends, waiting for room (backpressure). `false` if the receiver is gone.
    pub(crate) fn send(&self, msg: T) -> bool {
        self.activity.begin();
        if self.inner.send(msg).is_err() {
            self.activity.end();
            return false;
        }
        true
    }

    /// Messages waiting in the channel.
    pub(crate) fn len(&self) -> usize {
        self.inner.len()
    }

    /// Sends without waiting. `false` if the channel is full or the receiver gone.
    pub(crate) fn try_send(&self, msg: T) -> bool {
        self.activity.begin();
        match self.inner.try_send(msg) {
            Ok(()) => true,
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
                self.activity.end();
                false
            }
        }
    }
}

/// The receiving side of a counted bounded channel.
pub(crate) struct Rx<T> {
    inner: Receiver<T>,
    activity: Activity,
}

/// A counted bounded channel of `cap` messages.
pub(crate) fn bounded<T>(cap: usize, activity: &Activity) -> (Tx<T>, Rx<T>) {
    let (tx, rx) = crossbeam_channel::bounded(cap);
    (
        Tx {
            inner: tx,
            activity: activity.clone(),
        },
        Rx {
            inner: rx,
            activity: activity.clone(),
        },
    )
}

impl<T: Send + 'static> Rx<T> {
    /// Waits for the next message; `None` once every sender is gone.
    pub(crate) fn recv(&self) -> Option<T> {
        if self.activity.is_sim() {
            let inner = self.inner.clone();
            crate::sim::register_inbox(move || Arc::new(move || inner.len()));
        }
        if let Some(msg) = self.try_recv() {
            return Some(msg);
        }
        self.activity.end(); // blocked: idle until a message hands us its unit
        match self.inner.recv() {
            Ok(msg) => Some(msg),
            Err(_) => {
                self.activity.begin();
                None
            }
        }
    }

    /// The next message if one is waiting.
    pub(crate) fn try_recv(&self) -> Option<T> {
        match self.inner.try_recv() {
            Ok(msg) => {
                self.activity.end();
                Some(msg)
            }
            Err(TryRecvError::Empty | TryRecvError::Disconnected) => None,
        }
    }
}

/// What a mailbox delivers.
pub(crate) enum Mail<C, D> {
    Control(C),
    Data(D),
}

/// An actor's inbox: a small control lane that is always read first, and a data lane.
pub(crate) struct Mailbox<C, D> {
    control: Rx<C>,
    data: Rx<D>,
}

/// The two senders that feed a mailbox.
pub(crate) struct Lanes<C, D> {
    pub(crate) control: Tx<C>,
    pub(crate) data: Tx<D>,
}

impl<C, D> Clone for Lanes<C, D> {
    fn clone(&self) -> Self {
        Self {
            control: self.control.clone(),
            data: self.data.clone(),
        }
    }
}

/// A mailbox with `control_cap` control and `data_cap` data slots.
pub(crate) fn mailbox<C, D>(
    control_cap: usize,
    data_cap: usize,
    activity: &Activity,
) -> (Lanes<C, D>, Mailbox<C, D>) {
    let (ctx, crx) = bounded(control_cap, activity);
    let (dtx, drx) = bounded(data_cap, activity);
    (
        Lanes {
            control: ctx,
            data: dtx,
        },
        Mailbox {
            control: crx,
            data: drx,
        },
    )
}

impl<C: Send + 'static, D: Send + 'static> Mailbox<C, D> {
    /// A mailbox over two existing channels.
    pub(crate) fn new(control: Rx<C>, data: Rx<D>) -> Self {
        Self { control, data }
    }

    /// A control message if one is waiting (for an actor that waits on its control lane alone).
    pub(crate) fn try_recv_control(&self) -> Option<C> {
        self.control.try_recv()
    }

    /// The next message, control first; `None` once both lanes are closed and drained.
    pub(crate) fn recv(&self) -> Option<Mail<C, D>> {
        if self.control.activity.is_sim() {
            let c = self.control.inner.clone();
            let d = self.data.inner.clone();
            crate::sim::register_inbox(move || Arc::new(move || c.len() + d.len()));
        }
        if let Some(c) = self.control.try_recv() {
            return Some(Mail::Control(c));
        }
        if let Some(d) = self.data.try_recv() {
            return Some(Mail::Data(d));
        }
        self.control.activity.end(); // blocked
        let mut sel = crossbeam_channel::Select::new();
        let ci = sel.recv(&self.control.inner);
        sel.recv(&self.data.inner);
        let op = sel.select();
        if op.index() == ci {
            match op.recv(&self.control.inner) {
                Ok(c) => Some(Mail::Control(c)),
                Err(_) => {
                    self.control.activity.begin();
                    // Control closed: serve the data lane alone until it closes too.
                    self.data.recv().map(Mail::Data)
                }
            }
        } else {
            match op.recv(&self.data.inner) {
                // A control message may have arrived at the same moment: it still goes first
                // next time round, and this data message is handled now.
                Ok(d) => Some(Mail::Data(d)),
                Err(_) => {
                    self.control.activity.begin();
                    self.control.recv().map(Mail::Control)
                }
            }
        }
    }
}
