package poller

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestInteractTimeoutSaysItsOwn: an interact call that gets no answer
// names the time it was given (its --timeout and the client's), not the
// client's default.
func TestInteractTimeoutSaysItsOwn(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer hs.Close()
	defer close(release)
	c, err := New(Config{BaseURL: hs.URL, APIKey: "fc-test", Timeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Interact(context.Background(), "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b", &InteractRequest{Code: "1", Timeout: 1})
	if err == nil || !strings.Contains(err.Error(), "within 1.1s") {
		t.Fatalf("%v: want the call's own 1.1s", err)
	}
}

// TestInteractAnswerTooLarge: a 100 MB answer to an interact call is not
// read, and is not called malformed: the code ran, its answer is lost.
func TestInteractAnswerTooLarge(t *testing.T) {
	t.Parallel()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "104857600")
		_, _ = w.Write([]byte(`{"success":true,"stdout":"`))
	}))
	defer hs.Close()
	c, err := New(Config{BaseURL: hs.URL, APIKey: "fc-test"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Interact(context.Background(), "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b", &InteractRequest{Code: "1"})
	if err == nil || strings.Contains(err.Error(), "malformed") || !strings.Contains(err.Error(), "the code ran") {
		t.Fatalf("%v", err)
	}
}
