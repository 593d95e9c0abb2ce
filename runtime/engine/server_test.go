package engine

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/runtime/control"
	"github.com/okstra/cockpit/runtime/internal/runtest"
	"github.com/okstra/cockpit/state"
)

// startCockpit starts a real cockpit on the fixture run with its socket in
// a short private dir.
func startCockpit(t *testing.T) (*Engine, string) {
	t.Helper()
	run := runtest.FixtureRun(t, state.BackendCockpitPane)
	sock := filepath.Join(runtest.ShortDir(t), "priv", "cockpit.sock")
	c, err := Start(Config{Run: run, Socket: sock, CloseGrace: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, sock
}

func TestSocketIsPrivate(t *testing.T) {
	_, sock := startCockpit(t)
	st, err := os.Stat(sock)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode()&os.ModeSocket == 0 || st.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode %v, want a socket with 0600", st.Mode())
	}
	dir, err := os.Stat(filepath.Dir(sock))
	if err != nil {
		t.Fatal(err)
	}
	if dir.Mode().Perm() != 0o700 {
		t.Fatalf("socket directory mode %v, want 0700", dir.Mode().Perm())
	}
}

// TestSecondUserCannotConnect runs a client as another user (nobody). It
// needs root to switch users; elsewhere TestForgedPeerUIDIsRefused covers
// the same check.
func TestSecondUserCannotConnect(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("switching to another user needs root; the forged-uid test covers the peer check")
	}
	_, sock := startCockpit(t)
	// The socket's directory is 0700, so another user cannot even reach it.
	cmd := exec.Command("/bin/sh", "-c", "exec 3<>/dev/null; test -e \"$1\"", "sh", sock)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	if err := cmd.Run(); err == nil {
		t.Fatalf("user nobody can see %s", sock)
	}
	// And connecting as nobody fails. The test binary sits in a private
	// build dir, so run a copy that nobody may execute.
	pub := testenv.PublicDir(t)
	bin := filepath.Join(pub, "engine.test")
	data, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	helper := exec.Command(bin)
	helper.Dir = pub
	helper.Env = append(os.Environ(), "COCKPIT_TEST_DIAL="+sock)
	helper.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := helper.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "DIAL-FAILED") {
		t.Fatalf("user nobody was not refused: %v\n%s", err, out)
	}
}

// TestMain doubles as the client TestSecondUserCannotConnect runs as
// another user: with COCKPIT_TEST_DIAL set, the test binary only dials that
// socket and says how it went.
func TestMain(m *testing.M) {
	runWrapper()
	if spec := os.Getenv(childEngineEnv); spec != "" {
		runChildEngine(spec)
	}
	if spec := os.Getenv(dyingEngineEnv); spec != "" {
		runDyingEngine(spec)
	}
	if sock := os.Getenv("COCKPIT_TEST_DIAL"); sock != "" {
		if _, err := control.Dial(context.Background(), sock, "intruder"); err != nil {
			os.Stdout.WriteString("DIAL-FAILED: " + err.Error() + "\n")
		} else {
			os.Stdout.WriteString("DIAL-SUCCEEDED\n")
		}
		os.Exit(0)
	}
	// -short: the parallel tests (TestFrozenEventsClientIsDropped's write
	// stall and those beside it) mostly wait.
	testenv.ParallelShort(8)
	code := testenv.Private(m).Run()
	fixture.Cleanup() // the fake providers' directory (TestEngineDeathIsNotAClosedPane)
	os.Exit(code)
}

func TestLiveSocketIsNeverStolen(t *testing.T) {
	c, sock := startCockpit(t)
	run := c.run
	_, err := Start(Config{Run: run, Socket: sock})
	if !errors.Is(err, control.ErrServing) {
		t.Fatalf("a second cockpit on a live socket: %v, want control.ErrServing", err)
	}
	if !strings.Contains(err.Error(), "pid "+itoa(os.Getpid())) {
		t.Fatalf("the refusal does not name the live server's pid: %v", err)
	}
	// The first one still answers.
	cl, err := control.Dial(context.Background(), sock, "test")
	if err != nil {
		t.Fatalf("the live cockpit stopped answering: %v", err)
	}
	cl.Close()
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestStaleSocketIsReplaced(t *testing.T) {
	run := runtest.FixtureRun(t, state.BackendCockpitPane)
	sock := filepath.Join(runtest.ShortDir(t), "s", "cockpit.sock")
	os.MkdirAll(filepath.Dir(sock), 0o700)
	// A server that died without cleaning up: its socket file is there and
	// its lock file names a dead pid, but nobody holds the lock.
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	os.WriteFile(sock+".lock", []byte("999999\n"), 0o600)
	if _, err := control.Dial(context.Background(), sock, "test"); !errors.Is(err, control.ErrNoCockpit) {
		t.Fatalf("a stale socket should read as no cockpit: %v", err)
	}
	c, err := Start(Config{Run: run, Socket: sock})
	if err != nil {
		t.Fatalf("stale socket not replaced: %v", err)
	}
	defer c.Close()
	cl, err := control.Dial(context.Background(), sock, "test")
	if err != nil {
		t.Fatal(err)
	}
	cl.Close()
	pid, _ := os.ReadFile(sock + ".lock")
	if strings.TrimSpace(string(pid)) != itoa(os.Getpid()) {
		t.Fatalf("lock file holds %q, want this server's pid", pid)
	}
}

func TestSharedSocketDirIsRefused(t *testing.T) {
	run := runtest.FixtureRun(t, state.BackendCockpitPane)
	shared := filepath.Join(runtest.ShortDir(t), "shared")
	os.Mkdir(shared, 0o777)
	os.Chmod(shared, 0o777|os.ModeSticky)
	_, err := Start(Config{Run: run, Socket: filepath.Join(shared, "c.sock")})
	if err == nil || !strings.Contains(err.Error(), "is shared") {
		t.Fatalf("a socket in a shared directory: %v", err)
	}
	st, _ := os.Stat(shared)
	if st.Mode().Perm() != 0o777 || st.Mode()&os.ModeSticky == 0 {
		t.Fatalf("the shared directory's mode was changed to %v", st.Mode())
	}
}

func TestSocketPathLength(t *testing.T) {
	run := runtest.FixtureRun(t, state.BackendCockpitPane)
	long := filepath.Join(runtest.ShortDir(t), strings.Repeat("d", 120), "cockpit.sock")
	_, err := Start(Config{Run: run, Socket: long})
	if err == nil || !strings.Contains(err.Error(), "COCKPIT_SOCKET") {
		t.Fatalf("want a path-length error naming COCKPIT_SOCKET, got %v", err)
	}
}

// rawConn speaks the protocol by hand.
type rawConn struct {
	c net.Conn
	r *bufio.Reader
}

func dialRaw(t *testing.T, sock string) *rawConn {
	t.Helper()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawConn{c, bufio.NewReader(c)}
}

func (rc *rawConn) roundTrip(t *testing.T, line string) control.Reply {
	t.Helper()
	if _, err := rc.c.Write([]byte(line + "\n")); err != nil {
		t.Fatal(err)
	}
	rc.c.SetReadDeadline(time.Now().Add(testenv.Scale(10 * time.Second)))
	msg, err := control.ReadMessage(rc.r)
	if err != nil {
		t.Fatal(err)
	}
	var rep control.Reply
	if err := json.Unmarshal(msg, &rep); err != nil {
		t.Fatalf("%v: %s", err, msg)
	}
	return rep
}

func TestProtocolHandshakeAndLimits(t *testing.T) {
	t.Parallel() // beside TestFrozenEventsClientIsDropped's wait
	_, sock := startCockpit(t)

	rc := dialRaw(t, sock)
	rep := rc.roundTrip(t, `{"id":1,"method":"list-panes"}`)
	if rep.Error == nil || !strings.Contains(rep.Error.Message, "hello") {
		t.Fatalf("a request before hello: %+v", rep)
	}

	rc = dialRaw(t, sock)
	rep = rc.roundTrip(t, `{"id":1,"method":"hello","params":{"version":99}}`)
	if rep.Error == nil || rep.Error.Code != control.CodeVersion {
		t.Fatalf("wrong version accepted: %+v", rep)
	}

	rc = dialRaw(t, sock)
	rep = rc.roundTrip(t, `{"id":1,"method":"hello","params":{"version":1,"client":"test"}}`)
	var hello control.HelloResult
	json.Unmarshal(rep.Result, &hello)
	if rep.Error != nil || hello.Version != control.ProtocolVersion || hello.PID != os.Getpid() {
		t.Fatalf("hello: %+v %+v", rep, hello)
	}
	// A 1 MiB request (well past bufio.Scanner's 64 KiB) is served.
	big := strings.Repeat("x", 1<<20)
	rep = rc.roundTrip(t, `{"id":2,"method":"close-panes","params":{"paneIds":[],"reason":"`+big+`"}}`)
	if rep.Error != nil || rep.ID != 2 {
		t.Fatalf("1 MiB request: %+v", rep.Error)
	}
	// Over the cap: refused, and the connection still works.
	huge := strings.Repeat("y", control.MaxMessage+10)
	rep = rc.roundTrip(t, `{"id":3,"method":"close-panes","params":{"reason":"`+huge+`"}}`)
	if rep.Error == nil || !strings.Contains(rep.Error.Message, "longer than") {
		t.Fatalf("oversized request: %+v", rep)
	}
	rep = rc.roundTrip(t, `{"id":4,"method":"list-panes"}`)
	if rep.Error != nil || rep.ID != 4 {
		t.Fatalf("connection unusable after an oversized request: %+v", rep)
	}
	rep = rc.roundTrip(t, `not json`)
	if rep.Error == nil || rep.Error.Code != control.CodeBadRequest {
		t.Fatalf("garbage: %+v", rep)
	}
	rep = rc.roundTrip(t, `{"id":5,"method":"fly"}`)
	if rep.Error == nil || !strings.Contains(rep.Error.Message, `unknown method "fly"`) {
		t.Fatalf("unknown method: %+v", rep)
	}
}

// TestLongRunPathGetsAShortSocket: a run whose state directory is too deep
// for a unix socket path still gets a cockpit, at a path the run's commands
// derive the same way.
func TestLongRunPathGetsAShortSocket(t *testing.T) {
	src := fixture.Copy(t)
	fixture.SetTerminalBackend(t, src, state.BackendCockpitPane)
	deep := filepath.Join(filepath.Dir(src), strings.Repeat("a-rather-deep-project-directory/", 3), "project")
	if err := os.MkdirAll(filepath.Dir(deep), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(src, deep); err != nil {
		t.Fatal(err)
	}
	run, err := state.LoadRun(deep, fixture.RunManifest)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("COCKPIT_SOCKET", "")
	t.Setenv("XDG_RUNTIME_DIR", runtest.ShortDir(t))
	if def := filepath.Join(run.StateDir(), "cockpit.sock"); len(def) <= control.MaxSocketPath {
		t.Fatalf("the test's run path is too short to test anything: %d bytes", len(def))
	}
	c, err := Start(Config{Run: run})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if p := c.SocketPath(); len(p) > control.MaxSocketPath || !strings.HasPrefix(p, os.Getenv("XDG_RUNTIME_DIR")) {
		t.Fatalf("socket at %s", p)
	}
	cl, err := control.DialRunAs(context.Background(), run, control.RunDial{Client: "test"})
	if err != nil {
		t.Fatalf("a command of the run does not find its cockpit: %v", err)
	}
	cl.Close()
}

// TestReadOnlyStateDirKeepsItsMode: the engine never adds a permission to
// the user's socket directory: a read-only one (0555) is refused with one
// line saying how to fix it and keeps its mode (before, it was made 0700,
// write added); one open to the group (0750) loses only the group's bits.
func TestReadOnlyStateDirKeepsItsMode(t *testing.T) {
	run := runtest.FixtureRun(t, state.BackendCockpitPane)
	dir := filepath.Join(runtest.ShortDir(t), "ro")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o755)
	_, err := Start(Config{Run: run, Socket: filepath.Join(dir, "cockpit.sock")})
	if err == nil || !strings.Contains(err.Error(), "socket directory "+dir+" is read-only for you (mode -r-xr-xr-x); make it writable (chmod u+wx "+dir+")") {
		t.Fatalf("a socket in a 0555 directory: %v", err)
	}
	if st, _ := os.Stat(dir); st.Mode().Perm() != 0o555 {
		t.Fatalf("the read-only directory's mode was changed to %v", st.Mode().Perm())
	}
	if err := os.Chmod(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	c, err := Start(Config{Run: run, Socket: filepath.Join(dir, "cockpit.sock")})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if st, _ := os.Stat(dir); st.Mode().Perm() != 0o700 {
		t.Fatalf("a 0750 socket directory is %v, want 0700 (the group's bits taken, none added)", st.Mode().Perm())
	}
}
