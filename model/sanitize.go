package model

import "github.com/firewatch/firewatch/text"

// Sanitize makes a string from the server safe to show in a terminal; it is
// text.Sanitize (the one sanitiser), here so that the model's callers find it
// where untrusted text enters.
func Sanitize(s string) string { return text.Sanitize(s) }

func sanitizeBytes(b []byte) string { return text.SanitizeBytes(b) }
