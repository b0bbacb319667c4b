// Package model is the run as data: the trace events of one agent run,
// decoded, deduplicated, ordered and turned into the state a person watches
// (the agent tree, tool calls, artifacts, browser sessions, errors, phase,
// credits) and the machine-readable summary.
//
// It is pure: no I/O, no clock, no UI. The poller hands it response bodies;
// the UI and the printers read it.
//
// Two pieces:
//
//   - A Decoder turns successive trace response bodies of one run into Polls
//     holding only what is new. The service sends the whole trace on every
//     poll, so the decoder recognises events it has produced before by their
//     exact bytes, in place, and decodes only the new ones.
//   - A Store merges Polls: dedup by eventId, each agent's events in
//     producerSequence order, one timeline merged by occurredAt, and the
//     derived state, kept up to date by each merge.
//
// Every string from the server is sanitised once, as it is decoded (see
// text.Sanitize); each event keeps its raw bytes for JSON output and export.
// Every number is checked against its range in one place (see MaxCredits):
// one out of range is not used and is reported once as a Flaw. Events that
// cannot be used (a bad envelope, another run's, nested too deep, a changed
// duplicate) are set aside as Rejected, with a reason.
//
// Ownership: Decode copies what it keeps (the caller may reuse the body).
// An Event's strings may share memory with its Raw bytes, so neither may be
// modified; a Store keeps the Events of the Polls it merges. Everything a
// Store derives depends only on the set of events merged, not on how they
// were split into polls or the order the polls came in.
//
// See README.md for the design in more detail and the measured speed and
// memory figures.
package model
