//! The language-model actor: streams the reply, cuts it into speakable segments and hands each
//! to synthesis as soon as it is complete; applies "keep only what was heard" to the history.

use std::ops::ControlFlow;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use super::pace::SynthPace;
use super::{BrainCtl, Report, Speak, Think};
use crate::chan::{Mail, Mailbox, Tx};
use crate::clock::Clock;
use crate::engines::{ChatEngine, TextSegmenter};
use crate::types::TurnId;

pub(crate) struct Brain {
    pub(crate) chat: Box<dyn ChatEngine>,
    pub(crate) segmenter: Box<dyn TextSegmenter>,
    pub(crate) mouth: Tx<Speak>,
    pub(crate) report: Tx<Report>,
    pub(crate) epoch: Arc<AtomicU64>,
    pub(crate) clock: Clock,
    /// See `PipelineConfig::first_audio_gate`.
    pub(crate) first_audio_gate: Option<Duration>,
    /// See `PipelineConfig::first_piece_due`.
    pub(crate) first_piece_due: Option<Duration>,
    /// See `PipelineConfig::later_piece_due_below`.
    pub(crate) later_piece_due_below: Option<Duration>,
    /// How far synthesis is ahead of playback (written by the mouth).
    pub(crate) pace: Arc<SynthPace>,
    /// Longest hold of a new turn for the truncation of the reply it cut off.
    pub(crate) cut_wait: Duration,
    /// The last error of `prepare` (reported once).
    pub(crate) prepare_failed: Option<crate::engines::EngineError>,
}

/// While synthesis works on a segment and less than this much of the reply's audio is queued
/// for the output, the model (when `first_audio_gate` is set) yields the CPU to synthesis: on
/// two cores the two engines slow each other down, and the model writes text far faster than
/// it is spoken, so it loses nothing by waiting while the output would otherwise run dry.
const YIELD_BELOW: Duration = Duration::from_millis(1500);

/// How often the model's actor looks for the awaited `Truncate` while it holds a new turn.
const CUT_POLL: Duration = Duration::from_millis(2);

/// The turn whose exchange is last in the history.
#[derive(Default)]
struct Last {
    /// Its reply, until truncated to what was heard (a cut is settled once).
    uncut: Option<TurnId>,
    /// Its exchange, until taken back or the conversation is reset.
    exchange: Option<TurnId>,
}

impl Brain {
    pub(crate) fn run(mut self, inbox: Mailbox<BrainCtl, Think>) {
        let mut last = Last::default();
        self.prepare();
        while let Some(mail) = inbox.recv() {
            match mail {
                Mail::Control(ctl) => self.control(ctl, &mut last),
                Mail::Data(think) => {
                    if let Some(cut) = think.after_cut
                        && last.uncut == Some(cut)
                    {
                        self.await_cut(&inbox, cut, &mut last);
                    }
                    let turn = self.think(think);
                    if turn.is_some() {
                        last = Last {
                            uncut: turn,
                            exchange: turn,
                        };
                    }
                }
            }
            self.prepare();
        }
    }

    fn control(&mut self, ctl: BrainCtl, last: &mut Last) {
        match ctl {
            BrainCtl::Truncate { turn, heard } => {
                if last.uncut == Some(turn) {
                    self.chat.truncate_last_reply(&heard);
                    // Settled (a cut is settled once): a turn queued behind this cut — the
                    // output can confirm it while the model still writes the old reply —
                    // need not wait for it, and no later `Truncate` may cut a newer reply.
                    last.uncut = None;
                }
            }
            BrainCtl::Reset => {
                *last = Last::default();
                self.chat.reset();
            }
            BrainCtl::Forget { turn } => {
                if last.exchange == Some(turn) {
                    self.chat.forget_last_exchange();
                    // Gone whole: no `Truncate` is owed to it (one still on its way finds
                    // nothing to cut), and what is last now was settled before it.
                    *last = Last::default();
                }
            }
            BrainCtl::Prefill { text, judge } => {
                if let Some(pause) = judge {
                    self.judge(pause, &text);
                }
                if let Err(e) = self.chat.prefill_user(&text) {
                    self.report.send(Report::Error {
                        message: format!("language model failed: {e}"),
                    });
                }
            }
        }
    }

    /// Holds a new turn until the reply it cut off (`cut`, last in the history) is truncated to
    /// what was heard, so the new words join a history that holds only that. The output
    /// confirms a cut at its next callback (a few ms; the conductor settles it itself once the
    /// output is lost or stalled), so this wait is short; `cut_wait` bounds it regardless.
    fn await_cut(&mut self, inbox: &Mailbox<BrainCtl, Think>, cut: TurnId, last: &mut Last) {
        let until = self.clock.now() + self.cut_wait;
        while last.uncut == Some(cut) {
            match inbox.try_recv_control() {
                Some(BrainCtl::Truncate { turn, heard }) if turn == cut => {
                    self.chat.truncate_last_reply(&heard);
                    // Settled: a later `Truncate` of this turn must not cut the new reply.
                    last.uncut = None;
                }
                Some(ctl) => self.control(ctl, last),
                None if self.clock.now() >= until => {
                    self.report.send(Report::Error {
                        message: format!(
                            "the output did not confirm where {cut} was cut off; its whole reply stays in the conversation"
                        ),
                    });
                    return;
                }
                None => self.clock.sleep(CUT_POLL),
            }
        }
    }

    /// Lets the chat do its idle-time work (prefill of the prompt so far) while no turn waits.
    fn prepare(&mut self) {
        match self.chat.prepare() {
            // Reported once: this runs after every message and would fail the same way.
            Err(e) if self.prepare_failed.as_ref() != Some(&e) => {
                self.report.send(Report::Error {
                    message: format!("language model failed: {e}"),
                });
                self.prepare_failed = Some(e);
            }
            Err(_) => {}
            Ok(()) => self.prepare_failed = None,
        }
    }

    /// Tells the capture actor how likely `text` is the user's whole turn (semantic
    /// endpointing decides on it while the user is silent at pause `pause`).
    fn judge(&mut self, pause: u64, text: &str) {
        match self.chat.turn_end_probability(text) {
            Ok(Some(p)) => {
                self.report.send(Report::TurnJudged { pause, p });
            }
            Ok(None) => {}
            Err(e) => {
                self.report.send(Report::Error {
                    message: format!("language model failed: {e}"),
                });
            }
        }
    }

    /// Replies to one user turn; `Some(turn)` if the history got a reply for it.
    fn think(
        &mut self,
        Think {
            turn, text, judge, ..
        }: Think,
    ) -> Option<TurnId> {
        let id = turn.id;
        if !turn.is_live(&self.epoch) {
            self.report.send(Report::ReplyDone {
                turn: id,
                segments: 0,
            });
            return None;
        }
        if let Some(pause) = judge {
            self.judge(pause, &text);
        }
        if let Some(message) = self.chat.notice() {
            self.report.send(Report::Error { message });
        }
        self.segmenter.reset();
        let mut segments = 0usize;
        let mut first_token_at = None;
        let mut out: Vec<String> = Vec::new();
        let Self {
            chat,
            segmenter,
            mouth,
            report,
            epoch,
            clock,
            first_audio_gate,
            first_piece_due,
            later_piece_due_below,
            pace,
            ..
        } = self;
        let mut on_piece = |piece: &str| -> ControlFlow<()> {
            if !turn.is_live(epoch) {
                return ControlFlow::Break(());
            }
            let first_at = *first_token_at.get_or_insert_with(|| {
                let at = clock.now();
                report.send(Report::FirstToken { turn: id, at });
                at
            });
            if !piece.is_empty() {
                report.send(Report::Piece {
                    turn: id,
                    text: piece.to_string(),
                });
            }
            segmenter.push(piece, &mut out);
            // Asked only while no piece is ready (it reads the clock or takes the pace's lock).
            let due = || {
                if segments == 0 {
                    first_piece_due.is_some_and(|due| clock.now() >= first_at + due)
                } else {
                    later_piece_due_below
                        .is_some_and(|low| pace.running_dry(id.0, segments as u64, low))
                }
            };
            if out.is_empty()
                && due()
                && let Some(seg) = segmenter.cut_due_piece()
            {
                out.push(seg);
            }
            for seg in out.drain(..) {
                segments += 1;
                if segments == 1 {
                    report.send(Report::FirstSegment {
                        turn: id,
                        at: clock.now(),
                    });
                    if first_audio_gate.is_some() {
                        pace.expect_synthesis(id.0);
                    }
                }
                mouth.send(Speak::Segment {
                    turn: turn.clone(),
                    text: seg,
                });
            }
            if segments > 0
                && let Some(gate) = *first_audio_gate
            {
                // Give the CPU to synthesis (bounded) while it works on this reply and the
                // output's queue runs low: from the first segment to its first chunk, and
                // whenever a later segment is due before the audio ahead of it runs out.
                let until = clock.now() + gate;
                while pace.starved(id.0, YIELD_BELOW) && turn.is_live(epoch) && clock.now() < until
                {
                    clock.sleep(Duration::from_millis(2));
                }
            }
            ControlFlow::Continue(())
        };
        let result = chat.reply(&text, &turn.cancel, &mut on_piece);
        if let Err(e) = &result {
            report.send(Report::Error {
                message: format!("language model failed: {e}"),
            });
        }
        if turn.is_live(epoch)
            && let Some(seg) = segmenter.flush()
        {
            segments += 1;
            if segments == 1 {
                report.send(Report::FirstSegment {
                    turn: id,
                    at: clock.now(),
                });
            }
            mouth.send(Speak::Segment {
                turn: turn.clone(),
                text: seg,
            });
        }
        if segments > 0 {
            mouth.send(Speak::EndOfReply { turn });
        }
        report.send(Report::ReplyDone { turn: id, segments });
        result.is_ok().then_some(id)
    }
}
