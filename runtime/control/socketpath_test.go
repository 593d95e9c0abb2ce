package control

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestShortSocketPathFallsBack: the fallback directory for a run whose
// socket path is too long is $XDG_RUNTIME_DIR/cockpit, else
// <tmp>/cockpit-<uid>, each only while the socket's path fits; with both
// too long (a 100-byte TMPDIR) it is /tmp/cockpit-<uid>. (The server
// makes whichever it is 0700 and refuses a shared one: prepareSocketDir.)
func TestShortSocketPathFallsBack(t *testing.T) {
	name := "cockpit-0123456789abcdef.sock"
	uid := "cockpit-" + strconv.Itoa(os.Getuid())
	long := "/" + strings.Repeat("x", 99)
	for _, c := range []struct{ xdg, tmp, want string }{
		{"/run/user/7", "/var/tmp", "/run/user/7/cockpit/" + name},
		{"", "/var/tmp", "/var/tmp/" + uid + "/" + name},
		{long, "/var/tmp", "/var/tmp/" + uid + "/" + name},
		{"", long, "/tmp/" + uid + "/" + name},
		{long, long, "/tmp/" + uid + "/" + name},
	} {
		t.Setenv("XDG_RUNTIME_DIR", c.xdg)
		t.Setenv("TMPDIR", c.tmp)
		if got := shortSocketPath(name); got != c.want || len(got) > MaxSocketPath {
			t.Errorf("XDG_RUNTIME_DIR=%q TMPDIR=%q: shortSocketPath = %s, want %s", c.xdg, c.tmp, got, c.want)
		}
	}

}

// TestFitSocketPath: a path that fits is kept; a longer one becomes the
// same short path every time it is asked about, and different paths
// different ones.
func TestFitSocketPath(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("TMPDIR", "/"+strings.Repeat("x", 99))
	if p := "/tmp/ck1/cockpit.sock"; FitSocketPath(p) != p {
		t.Errorf("FitSocketPath(%s) = %s, want it kept", p, FitSocketPath(p))
	}
	a, b := "/"+strings.Repeat("a", 120)+"/cockpit.sock", "/"+strings.Repeat("b", 120)+"/cockpit.sock"
	fa := FitSocketPath(a)
	if len(fa) > MaxSocketPath || !strings.HasPrefix(fa, "/tmp/cockpit-") || fa != FitSocketPath(a) || fa == FitSocketPath(b) {
		t.Errorf("FitSocketPath of two long paths: %s and %s; want short, stable and distinct", fa, FitSocketPath(b))
	}
}
