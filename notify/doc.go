// Package notify tells people when something happens in a run they are not
// looking at: the run finished (with its outcome), it failed, an attention
// item of a kind not seen in this run yet was raised, or the credits used
// reached a share of the cap (--notify-on). It decides those moments from
// what firewatch already derives (the model's store and the attention
// tracker's changes) and hands each one to the sinks that were asked for:
//
//   - the terminal: a desktop notification as an OSC 9 or OSC 777 sequence
//     (through tmux's passthrough when it allows it, a bell otherwise);
//     on a full screen the screen writes it, and only while the terminal
//     is not focused (package ui/internal/alert);
//   - a command of the user's, run without a shell, with what happened in
//     FIREWATCH_* environment variables (command.go);
//   - a webhook: a JSON POST whose "text" Slack and Mattermost incoming
//     webhooks show as it is, with the structured fields (webhook.go).
//
// A moment is decided once per run (its key: the run's id, the event and,
// for attention, the kind), whoever follows the run and however often it
// is opened again. Deciding is cheap and happens on the goroutine that
// merges (Run.Saw); delivering happens on one goroutine per sink, behind a
// bounded queue, so that a slow or hanging sink never delays what the
// screen shows nor another sink; a sink too far behind drops the least
// important moment (a run's end last), and its next delivery says how
// many it dropped. Nothing a sink does changes an exit code.
//
// Everything sent is made of sanitised strings with the secrets (the API
// key, the webhook's own URL) and the run's live-view links redacted.
package notify
