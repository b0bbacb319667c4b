// Package text is the one answer to "how does firewatch write this for
// people": the sanitiser for untrusted text, durations, sizes, "ago", and the
// ASCII fallbacks of the symbols. It is a leaf (it imports nothing of
// firewatch) so that model, describe, poller, cli and ui all use it.
package text
