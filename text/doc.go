// Package text is the one answer to "how does firewatch write this for
// people": the sanitiser for untrusted text, durations, countdowns, sizes,
// "ago", counts of credits, and the ASCII fallbacks of the symbols. It is a leaf (it imports nothing of
// firewatch) so that model, describe, poller, cli and ui all use it.
package text
