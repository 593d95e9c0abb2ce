package control

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/okstra/cockpit/state"
)

// MaxSocketPath is the room in sockaddr_un.sun_path, less the NUL.
const MaxSocketPath = 107

// SocketPath is where a run's cockpit listens: $COCKPIT_SOCKET when set,
// else <run state dir>/cockpit.sock. A unix socket path holds at most 107
// bytes, and a run deep in a project can exceed that; such a run's socket
// goes to a private per-user directory instead, named by a hash of the
// default path, so the cockpit and every command of the run still agree on
// it without configuration.
func SocketPath(run *state.Run) string {
	if p := os.Getenv("COCKPIT_SOCKET"); p != "" {
		return p
	}
	return FitSocketPath(filepath.Join(run.StateDir(), "cockpit.sock"))
}

// FitSocketPath is p when a unix socket can be made there, else a path in
// the per-user short directory named by a hash of p, the same for every
// process that asks about p.
func FitSocketPath(p string) string {
	if len(p) <= MaxSocketPath {
		return p
	}
	sum := sha256.Sum256([]byte(p))
	return shortSocketPath("cockpit-" + hex.EncodeToString(sum[:8]) + ".sock")
}

// shortSocketPath is name in the per-user directory for sockets whose
// default path is too long: $XDG_RUNTIME_DIR/cockpit when set, else
// <temp dir>/cockpit-<uid>; when that path too is longer than a socket
// allows (a long $TMPDIR or $XDG_RUNTIME_DIR), /tmp/cockpit-<uid>, which
// is short whatever the environment says. Every candidate is private in
// the same way: the server makes the directory 0700, refuses one another
// user owns and one that is shared (prepareSocketDir), so falling back
// never puts the socket where someone else can reach it.
func shortSocketPath(name string) string {
	uid := "cockpit-" + strconv.Itoa(os.Getuid())
	var dirs []string
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		dirs = append(dirs, filepath.Join(d, "cockpit"))
	}
	dirs = append(dirs, filepath.Join(os.TempDir(), uid))
	for _, d := range dirs {
		if p := filepath.Join(d, name); len(p) <= MaxSocketPath {
			return p
		}
	}
	return filepath.Join("/tmp", uid, name)
}

// NoCockpitError explains how to get a cockpit for a command that needs one.
type NoCockpitError struct {
	Socket string
	Run    *state.Run
	Err    error
	// WithoutPanes is how the command's work gets done with no cockpit
	// (RunDial.WithoutPanes); empty: the way is to start one.
	WithoutPanes string
}

func (e *NoCockpitError) Error() string {
	root, manifest := e.Run.Root.Dir(), e.Run.Manifest.Display
	msg := fmt.Sprintf("no cockpit is serving this run (no live socket at %s); start one with `cockpit open --project-root %s --run-manifest %s --lead -- <lead command>`", e.Socket, root, manifest)
	if e.WithoutPanes != "" {
		return msg + ", or " + e.WithoutPanes
	}
	return msg + fmt.Sprintf(", or without a terminal `cockpit serve --project-root %s --run-manifest %s`", root, manifest)
}

func (e *NoCockpitError) Unwrap() error { return e.Err }

// RunDial says who dials a run's cockpit. Behaviour never depends on the
// client's name: what differs between callers is said here.
type RunDial struct {
	// Client names the command in the engine's log ("team dispatch").
	Client string
	// WithoutPanes is what the command can do instead when no cockpit
	// serves the run, said after "or" in the error ("dispatch without
	// panes with `cockpit worker-dispatch`"); empty: start one.
	WithoutPanes string
}

// DialRunAs connects to the cockpit serving run.
func DialRunAs(ctx context.Context, run *state.Run, d RunDial) (*Client, error) {
	path := SocketPath(run)
	c, err := Dial(ctx, path, d.Client)
	if errors.Is(err, ErrNoCockpit) {
		return nil, &NoCockpitError{Socket: path, Run: run, Err: err, WithoutPanes: d.WithoutPanes}
	}
	return c, err
}

// PaneNumber is the N of a pane id "pane-N" (panes.Manager makes them);
// false for anything else.
func PaneNumber(id string) (int, bool) {
	s, ok := strings.CutPrefix(id, "pane-")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 0
}

// ComparePaneIDs orders pane ids ("pane-N") by N; an id of another form
// comes first, by its text.
func ComparePaneIDs(a, b string) int {
	na, oka := PaneNumber(a)
	nb, okb := PaneNumber(b)
	switch {
	case oka && okb:
		return cmp.Compare(na, nb)
	case oka != okb:
		if oka {
			return 1
		}
		return -1
	}
	return strings.Compare(a, b)
}
