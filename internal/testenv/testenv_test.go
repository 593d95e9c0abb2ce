package testenv

import (
	"flag"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestComputeFactor(t *testing.T) {
	for _, c := range []struct {
		scale   string
		race    bool
		loadavg string
		cpus    int
		want    float64
	}{
		{"", false, "0.50 0.40 0.30 1/100 42", 2, 1},
		{"", true, "0.50 0.40 0.30 1/100 42", 2, 3},
		{"", false, "6.00 5.00 4.00 1/100 42", 2, 3},
		{"", true, "6.00 5.00 4.00 1/100 42", 2, 9},
		{"", false, "40.0 5.00 4.00 1/100 42", 2, 4}, // the load part is capped
		{"", false, "", 2, 1},                        // no /proc/loadavg
		{"", false, "x", 2, 1},
		{"2.5", true, "40.0 5.00 4.00 1/100 42", 2, 2.5}, // COCKPIT_TEST_SCALE wins
		{"-1", false, "0.1", 2, 1},                       // and must be positive
	} {
		if got := computeFactor(c.scale, c.race, c.loadavg, c.cpus); got != c.want {
			t.Errorf("computeFactor(%q, %v, %q, %d) = %v, want %v", c.scale, c.race, c.loadavg, c.cpus, got, c.want)
		}
	}
}

func TestPollAndScale(t *testing.T) {
	if Scale(time.Second) < time.Second {
		t.Fatalf("Scale(1s) = %s, shorter than 1s", Scale(time.Second))
	}
	n := 0
	if !Poll(time.Second, func() bool { n++; return n == 3 }) || n != 3 {
		t.Fatalf("Poll stopped after %d calls", n)
	}
	start := time.Now()
	if Poll(10*time.Millisecond, func() bool { return false }) {
		t.Fatal("Poll reported a condition that never held")
	}
	if d := time.Since(start); d < Scale(10*time.Millisecond) {
		t.Fatalf("Poll gave up after %s, before Scale(10ms) = %s", d, Scale(10*time.Millisecond))
	}
}

// TestShortDirUnderALongTMPDIR: a socket with a 48-byte name binds in a
// ShortDir while $TMPDIR is 100 bytes long, and the directory is private.
func TestShortDirUnderALongTMPDIR(t *testing.T) {
	long := t.TempDir() // already longer than 100 bytes when TMPDIR is long
	if len(long) < 100 {
		long = filepath.Join(long, strings.Repeat("x", 99-len(long)))
		if err := os.Mkdir(long, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if len(long) < 100 {
		t.Fatalf("the long TMPDIR %s is %d bytes", long, len(long))
	}
	t.Setenv("TMPDIR", long)
	d := ShortDir(t)
	st, err := os.Stat(d)
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("ShortDir %s: %v, mode %v; want a 0700 directory", d, err, st.Mode())
	}
	sock := filepath.Join(d, strings.Repeat("s", socketRoom))
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatalf("listen on %s (%d bytes): %v", sock, len(sock), err)
	}
	l.Close()
}

// TestPublicDir: under a private TMPDIR a public directory goes to /tmp,
// and others may enter it.
func TestPublicDir(t *testing.T) {
	private := ShortDir(t)
	t.Setenv("TMPDIR", private)
	d := PublicDir(t)
	if strings.HasPrefix(d, private) || !othersCanReach(d) {
		t.Fatalf("PublicDir = %s under the 0700 TMPDIR %s: others cannot reach it", d, private)
	}
	t.Setenv("TMPDIR", "/tmp")
	if d := PublicDir(t); !strings.HasPrefix(d, "/tmp/ckpub") {
		t.Fatalf("PublicDir = %s, want it under TMPDIR=/tmp", d)
	}
}

// TestLeftovers: a live registered engine and a live tmux server are
// found and stopped; a stale entry and a dead server's socket are not
// reported.
func TestLeftovers(t *testing.T) {
	e := Env{Registry: filepath.Join(ShortDir(t), "engines"), Tmux: ShortDir(t)}
	if err := os.Mkdir(e.Registry, 0o700); err != nil {
		t.Fatal(err)
	}
	engine := exec.Command("sleep", "60")
	if err := engine.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { engine.Wait(); close(exited) }()
	t.Cleanup(func() { engine.Process.Kill(); <-exited })
	entry := filepath.Join(e.Registry, strconv.Itoa(engine.Process.Pid)+".json")
	f, err := os.Create(entry)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil { // as the engine holds its entry
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.Registry, "99999999.json"), nil, 0o600); err != nil { // stale: nobody holds it
		t.Fatal(err)
	}
	want := []string{"engine pid " + strconv.Itoa(engine.Process.Pid)}
	tmux := !testing.Short() // the tmux servers are the full tier's: -short starts no tmux
	if _, err := exec.LookPath("tmux"); tmux && err == nil {
		dir := filepath.Join(e.Tmux, "tmux-"+strconv.Itoa(os.Getuid()))
		os.Mkdir(dir, 0o700)
		live, dead := filepath.Join(dir, "live"), filepath.Join(dir, "dead")
		for _, s := range []string{live, dead} {
			if out, err := exec.Command("tmux", "-S", s, "-f", "/dev/null", "new-session", "-d", "sleep 60").CombinedOutput(); err != nil {
				t.Fatalf("tmux new-session: %v: %s", err, out)
			}
		}
		t.Cleanup(func() { exec.Command("tmux", "-S", live, "kill-server").Run() })
		exec.Command("tmux", "-S", dead, "kill-server").Run() // leaves its socket file
		want = append(want, "tmux server on "+live)
	} else if tmux && os.Getenv("CI") == "true" {
		t.Fatal("tmux is not installed")
	}
	left := e.Leftovers(true)
	if len(left) != len(want) {
		t.Fatalf("Leftovers = %q, want %d entries like %q", left, len(want), want)
	}
	for i, w := range want {
		if !strings.HasPrefix(left[i], w) {
			t.Errorf("Leftovers[%d] = %q, want %q…", i, left[i], w)
		}
	}
	select {
	case <-exited:
	case <-time.After(Scale(10 * time.Second)):
		t.Fatal("the registered engine was not stopped")
	}
	if left := e.Leftovers(false); len(left) != 1 || !strings.HasPrefix(left[0], want[0]) { // the entry is still locked (by this test), the server gone
		t.Fatalf("after stopping, Leftovers = %q", left)
	}
}

type fakeM func() int

func (f fakeM) Run() int { return f() }

// TestPrivate: Run gives the tests private, short directories for the
// registry, XDG_RUNTIME_DIR and tmux, fails a passing run that leaves a
// tmux server or a process, stops them, and removes the directory.
func TestPrivate(t *testing.T) {
	defer func(g time.Duration) { exitGrace = g }(exitGrace)
	exitGrace = 50 * time.Millisecond // its leftover process never leaves on its own
	for _, k := range []string{"COCKPIT_REGISTRY", "XDG_RUNTIME_DIR", "TMUX_TMPDIR"} {
		t.Setenv(k, "/nonexistent/user/"+k) // restored after the test
	}
	tmux := !testing.Short() // the tmux half is the full tier's: -short starts no tmux
	if _, err := exec.LookPath("tmux"); tmux && err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tmux is not installed")
		}
		tmux = false
	}
	var seen []string
	var server string
	exited := make(chan struct{})
	code := Private(fakeM(func() int {
		for _, k := range []string{"COCKPIT_REGISTRY", "XDG_RUNTIME_DIR", "TMUX_TMPDIR"} {
			seen = append(seen, os.Getenv(k))
		}
		left := exec.Command("sleep", "60") // inherits the private environment
		if err := left.Start(); err != nil {
			t.Error(err)
			close(exited)
		} else {
			go func() { left.Wait(); close(exited) }()
		}
		if tmux {
			name := "leak"
			if out, err := exec.Command("tmux", "-L", name, "-f", "/dev/null", "new-session", "-d", "sleep 60").CombinedOutput(); err != nil {
				t.Errorf("tmux -L: %v: %s", err, out)
			}
			server = filepath.Join(os.Getenv("TMUX_TMPDIR"), "tmux-"+strconv.Itoa(os.Getuid()), name)
		}
		return 0
	})).Run()
	for i, d := range seen {
		if strings.HasPrefix(d, "/nonexistent") || len(d)+1+socketRoom > MaxSocketPath {
			t.Errorf("variable %d inside Run = %q: not a private short directory", i, d)
		}
		if _, err := os.Stat(filepath.Dir(d)); err == nil {
			t.Errorf("%s is still there after Run", filepath.Dir(d))
		}
	}
	select {
	case <-exited:
	case <-time.After(Scale(10 * time.Second)):
		t.Fatal("the process the tests left still runs")
	}
	if code != 1 {
		t.Fatalf("Run = %d for a run that left a process and a tmux server, want 1", code)
	}
	if !tmux {
		return
	}
	if exec.Command("tmux", "-S", server, "list-sessions").Run() == nil {
		exec.Command("tmux", "-S", server, "kill-server").Run()
		t.Fatal("the tmux server the tests left still runs")
	}
}

// TestSweep: a private directory whose test process ended without cleaning
// up (killed by -timeout, say) is swept by the next Private run: what
// still runs there is stopped and the directory removed; a directory whose
// owner still runs is left alone.
func TestSweep(t *testing.T) {
	self, err := mkShortDir("ckenv")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(self)
	dead, err := mkShortDir("ckenv")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dead)
	live, err := mkShortDir("ckenv")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(live)
	// A pid that cannot run: above the kernel's pid_max.
	if err := os.WriteFile(filepath.Join(dead, ownerFile), []byte("4194305 1"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(live, ownerFile), []byte(processID(os.Getpid())), 0o600); err != nil {
		t.Fatal(err)
	}
	left := exec.Command("sleep", "60")
	left.Env = append(os.Environ(), "COCKPIT_REGISTRY="+filepath.Join(dead, "engines"))
	if err := left.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { left.Wait(); close(exited) }()
	defer left.Process.Kill()
	sweep(self)
	select {
	case <-exited:
	case <-time.After(Scale(10 * time.Second)):
		t.Fatal("the process left in the abandoned directory still runs")
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("the abandoned directory is still there (%v)", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("the directory of a running test process was swept: %v", err)
	}
}

// TestShrinkAndParallelShort: -short takes the small size and raises
// -test.parallel unless the command line set it; the full tier keeps the
// full size and the default.
func TestShrinkAndParallelShort(t *testing.T) {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	before := flag.Lookup("test.parallel").Value.String()
	defer flag.Set("test.parallel", before)
	ParallelShort(7)
	got := flag.Lookup("test.parallel").Value.String()
	if want := map[bool]int{true: 50, false: 200}[testing.Short()]; Shrink(200, 50) != want {
		t.Fatalf("Shrink(200, 50) = %d with -short %v, want %d", Shrink(200, 50), testing.Short(), want)
	}
	if want := map[bool]string{true: "7", false: before}[testing.Short() && !given]; got != want {
		t.Fatalf("-test.parallel %s after ParallelShort(7) (-short %v, given on the command line %v), want %s", got, testing.Short(), given, want)
	}
}
