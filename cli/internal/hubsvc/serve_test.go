package hubsvc

import (
	"os"
	"testing"

	"github.com/firewatch/firewatch/model"
)

// TestHubName: --name is made safe and bounded; without it the hub is
// named for the machine; a name with nothing left is refused.
func TestHubName(t *testing.T) {
	if n, err := Name("prod east/1", usage); err != nil || n != "prod-east-1" {
		t.Errorf("--name: %q %v", n, err)
	}
	host, _ := os.Hostname()
	want := model.HubName(host)
	if want == "" {
		want = "hub"
	}
	if n, err := Name("", usage); err != nil || n != want {
		t.Errorf("default: %q %v, want %q", n, err, want)
	}
	if _, err := Name("\x1b[!!", usage); err == nil {
		t.Error("a name with no letter or digit was taken")
	}
}

// usage is the command layer's bad usage, as the tests see it.
func usage(err error) error { return err }
