// Package attention says what needs a look in an agent run, from the trace
// alone: agents that stall, tool calls that hang, loops (the same call made
// again and again), failing streaks, the credit burn against the cap, and an
// estimate of what each agent cost. The terminal UI, the plain and JSON
// printers and the summary all read it.
//
// It is pure, like package model: no I/O and no clock of its own. A Tracker
// follows one model.Store: call Update after every merge (it looks only at
// what the merge added, so it costs next to nothing on a re-poll) and Tick
// while the run is quiet; the caller passes the local time "now" to both.
//
// # Clocks
//
// Time is the trace's own: the newest occurredAt seen so far. Detection runs
// in timeline order, before each event is applied, so a replay of a
// recording raises exactly the items the live watch raised, with the same
// firstAt. The local clock is used for one thing only: while the whole run
// is quiet (no new event at all), the trace clock is taken to run on from
// the newest event by the local time since that event arrived; that is how
// a run that has gone silent, and a tool call that hangs while nothing else
// happens, are noticed before the next event.
//
// # Detectors
//
//   - stall: a running agent whose last activity (its own events and those
//     of its subagents, so an orchestrator waiting on subagents that move is
//     not stalled) is older than the run's newest event by more than the
//     threshold: Options.Stall (default 60 s), or 5× the agent's median gap
//     between its own events when that is longer (from 3 gaps on). Cleared
//     when the agent moves again or ends. With no agent: the whole run quiet
//     for Options.Stall (cleared by the next event).
//   - slow-tool: a call running for longer than 3× the median duration of
//     that tool's finished calls in this run and at least 30 s, or longer
//     than 120 s when none has finished. Cleared when it finishes (or is left
//     unfinished by its agent or the run ending).
//   - loop: the same agent calling the same tool with the same parameters
//     (canonical JSON: key order and white space do not matter) 3 or more
//     times among its last 6 calls, with the number of such calls in the run
//     and the time they took together. (A window, not the whole run: an
//     agent that monitors pages goes round the same calls on purpose, many
//     calls apart.) Cleared when fewer than 2 of its last 6 calls are that
//     call, or the agent ends; the same item comes back, its count grown,
//     if the agent starts repeating it again.
//   - failing-streak: 3 or more failed calls (model.ResultFailed on the
//     result) of the same tool in a row by one agent. Cleared by a call of
//     that tool that does not fail, or the agent ending.
//   - budget: raised when 80 % of the cap is used, or when, from 30 s into
//     the run, the burn rate of the last minute projects the cap to be
//     reached before a typical run finishes (5 minutes after the start: the
//     real service's runs take 1 to 5 minutes). Cleared when neither holds
//     any more or the run ends, unless the run ended at its cap (it was
//     credit-limited, or used all of a cap that was told): then the item
//     says the run hit its cap and is marked reached, not cleared (raised
//     then if no warning came first).
//
// Every other item is cleared once the run has finished: what it pointed
// at ended.
//
// # Estimated credits per agent
//
// The trace has no per-event cost (the service keeps usage.recorded to
// itself); only the run's creditsUsed. EstimateCredits splits that figure
// over the agents by their tool-call time over the whole run (a call still
// open counts up to its agent's end, else the run's, else the newest
// event); when no tool call ran at all, by the number of events each agent
// emitted; with no event, to the root agent. The shares are rounded once,
// by largest remainder (ties to the agent seen first on the timeline), to
// whole credits (hundredths when creditsUsed has a fraction), so the parts
// always add up exactly to creditsUsed. It is a function of the events and
// the figure alone: when the polls arrived, or how many there were, does
// not change it, so the live screen, the summary, a replay, the report and
// compare show the same figures for the same run.
// It is an estimate, always shown with "≈", never as billing.
package attention
