package registry

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/testenv"
)

// TestMain lets the test binary act as an engine that registers and then
// waits to be killed.
func TestMain(m *testing.M) {
	if os.Getenv("REGISTRY_TEST_ENGINE") == "1" {
		_, err := Register(Entry{PID: os.Getpid(), Socket: "/x.sock", ProjectRoot: "/p", RunManifest: "m.json", Started: time.Now()})
		if err != nil {
			os.Stdout.WriteString("error " + err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString("registered\n")
		time.Sleep(time.Hour) // until killed
	}
	os.Exit(testenv.Private(m).Run())
}

func useDir(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "engines")
	t.Setenv("COCKPIT_REGISTRY", dir)
	return dir
}

func TestRegisterListClose(t *testing.T) {
	dir := useDir(t)
	if es, err := List(); err != nil || len(es) != 0 {
		t.Fatalf("an empty registry lists %v, %v", es, err)
	}
	t0 := time.Date(2026, 12, 1, 1, 0, 0, 0, time.UTC)
	a, err := Register(Entry{PID: 100, Socket: "/a.sock", ProjectRoot: "/a", RunManifest: "a.json", TaskKey: "dev-1", Started: t0.Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Register(Entry{PID: 200, Socket: "/b.sock", ProjectRoot: "/b", RunManifest: "b.json", Started: t0})
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("registry dir mode %v, %v; want 0700", fi.Mode(), err)
	}
	es, err := List()
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 2 || es[0].PID != 200 || es[1].PID != 100 || es[1].TaskKey != "dev-1" || es[1].Socket != "/a.sock" {
		t.Fatalf("List = %+v; want b then a, oldest first", es)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "200.json")); !os.IsNotExist(err) {
		t.Fatalf("a closed registration left its entry: %v", err)
	}
	es, _ = List()
	if len(es) != 1 || es[0].PID != 100 {
		t.Fatalf("after Close, List = %+v; want only a", es)
	}
	a.Close()
}

// An engine killed without a chance to clean up drops out of the list, and
// its entry is removed by the reader.
func TestKilledEngineIsDropped(t *testing.T) {
	dir := useDir(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "REGISTRY_TEST_ENGINE=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "registered\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("engine said %q", line)
	}
	es, err := List()
	if err != nil || len(es) != 1 || es[0].PID != cmd.Process.Pid {
		t.Fatalf("live engine: List = %+v, %v", es, err)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	es, err = List()
	if err != nil || len(es) != 0 {
		t.Fatalf("killed engine still listed: %+v, %v", es, err)
	}
	if _, err := os.Stat(filepath.Join(dir, strconv.Itoa(cmd.Process.Pid)+".json")); !os.IsNotExist(err) {
		t.Fatalf("the killed engine's entry was not removed: %v", err)
	}
}

// A registry directory that belongs to someone else, or is shared, is not
// used.
func TestRegistryDirMustBePrivate(t *testing.T) {
	dir := useDir(t)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o777)
	r, err := Register(Entry{PID: 1, Started: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fi, _ := os.Stat(dir)
	if fi.Mode().Perm() != 0o700 {
		t.Fatalf("a registry dir of ours was left %v; want 0700", fi.Mode().Perm())
	}
	if os.Getuid() == 0 {
		other := filepath.Join(t.TempDir(), "theirs")
		os.Mkdir(other, 0o700)
		if err := os.Chown(other, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		t.Setenv("COCKPIT_REGISTRY", other)
		if _, err := Register(Entry{PID: 2, Started: time.Now()}); err == nil {
			t.Fatal("registered in another user's directory")
		}
	}
}

// Issue 19: another local user must not be able to swap the registry after
// its check. Every level above it is checked, as tmux checks its socket
// directory: a level another user owns, or one anybody may write into
// without the sticky bit, is refused by Register and by List, naming the
// level; /tmp itself (sticky) is fine.
func TestRegistrySquatting(t *testing.T) {
	entry := Entry{PID: 3, Started: time.Now()}
	t.Run("shared parent", func(t *testing.T) {
		shared := filepath.Join(t.TempDir(), "shared")
		if err := os.Mkdir(shared, 0o777); err != nil {
			t.Fatal(err)
		}
		os.Chmod(shared, 0o777) // past the umask
		t.Setenv("COCKPIT_REGISTRY", filepath.Join(shared, "cockpit", "engines"))
		_, err := Register(entry)
		if err == nil || !strings.Contains(err.Error(), shared+" is writable by others (mode 0777, not sticky)") {
			t.Fatalf("Register under a world-writable, non-sticky parent: %v", err)
		}
		// The same parent with the sticky bit, as /tmp, is fine.
		os.Chmod(shared, 0o777|os.ModeSticky)
		r, err := Register(entry)
		if err != nil {
			t.Fatalf("Register under a sticky parent: %v", err)
		}
		r.Close()
	})
	if os.Getuid() != 0 {
		t.Log("the levels owned by another user are checked only as root (chown needs it)")
		return
	}
	t.Run("parent of another user", func(t *testing.T) {
		theirs := filepath.Join(t.TempDir(), "cockpit-0")
		if err := os.Mkdir(theirs, 0o755); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(theirs, "engines")
		t.Setenv("COCKPIT_REGISTRY", dir)
		// An engine registered while the level was ours…
		r, err := Register(Entry{PID: 4, Started: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		// …and then the level is another user's (created by them before
		// us, in the attack): nobody registers there, nobody reads it.
		if err := os.Chown(theirs, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		want := theirs + " belongs to uid 65534, who could swap the registry"
		if _, err := Register(entry); err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("Register under another user's directory: %v", err)
		}
		if es, err := List(); err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("List under another user's directory: %v, %v", es, err)
		}
	})
	t.Run("symlink of another user", func(t *testing.T) {
		base := t.TempDir()
		mine := filepath.Join(base, "mine")
		if err := os.Mkdir(mine, 0o700); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(base, "cockpit-0")
		if err := os.Symlink(mine, link); err != nil {
			t.Fatal(err)
		}
		if err := os.Lchown(link, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		t.Setenv("COCKPIT_REGISTRY", filepath.Join(link, "engines"))
		if _, err := Register(entry); err == nil || !strings.Contains(err.Error(), link+" belongs to uid 65534") {
			t.Fatalf("Register through another user's symlink: %v", err)
		}
	})
	t.Run("registry open to others", func(t *testing.T) {
		dir := useDir(t)
		r, err := Register(entry)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		os.Chmod(dir, 0o777)
		if es, err := List(); err == nil || !strings.Contains(err.Error(), "is open to others (mode 0777)") {
			t.Fatalf("List of a registry open to others: %v, %v", es, err)
		}
	})
}

// Issue 17 item 11: every engine has a short name, unique among the live
// engines — two demos are demo-1-001 and demo-1-001-2 — freed when its
// engine is gone; Match finds an engine by name, pid or unique prefix.
func TestNames(t *testing.T) {
	useDir(t)
	base := BaseName("demo-1", "001", "x.json")
	if base != "demo-1-001" {
		t.Fatalf("BaseName = %q", base)
	}
	for _, c := range []struct{ key, seq, file, want string }{
		{"dev-10860", "", "m.json", "dev-10860"},
		{"", "", "state/run-manifest-x.json", "run-manifest-x"},
		{"a:b.c", "002", "", "a-b.c-002"},
		{"", "", "", "engine"},
	} {
		if got := BaseName(c.key, c.seq, c.file); got != c.want {
			t.Errorf("BaseName(%q, %q, %q) = %q, want %q", c.key, c.seq, c.file, got, c.want)
		}
	}
	a, err := Register(Entry{Name: base, PID: 10, Started: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Register(Entry{Name: base, PID: 11, Started: time.Now().Add(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Register(Entry{Name: "dev-7-001", PID: 12, Started: time.Now().Add(2 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if a.Name() != "demo-1-001" || b.Name() != "demo-1-001-2" {
		t.Fatalf("two demos are named %q and %q", a.Name(), b.Name())
	}
	es, _ := List()
	names := func(es []Entry) (out []string) {
		for _, e := range es {
			out = append(out, e.Name)
		}
		return out
	}
	if got := names(es); strings.Join(got, " ") != "demo-1-001 demo-1-001-2 dev-7-001" {
		t.Fatalf("List names %v", got)
	}
	for target, want := range map[string]string{
		"demo-1-001": "demo-1-001", "demo-1-001-2": "demo-1-001-2", "11": "demo-1-001-2", "dev": "dev-7-001",
		"demo": "demo-1-001", // the exact name wins over a longer one
	} {
		if target == "demo" {
			if got := names(Match(es, target)); len(got) != 2 {
				t.Errorf("Match(%q) = %v, want both demos (ambiguous)", target, got)
			}
			continue
		}
		if got := names(Match(es, target)); len(got) != 1 || got[0] != want {
			t.Errorf("Match(%q) = %v, want %s", target, got, want)
		}
	}
	if got := Match(es, "nope"); len(got) != 0 {
		t.Errorf("Match(nope) = %v", got)
	}
	// A name is free again once its engine is gone.
	a.Close()
	d, err := Register(Entry{Name: base, PID: 13, Started: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	defer b.Close()
	if d.Name() != "demo-1-001" {
		t.Fatalf("a freed name was not reused: %q", d.Name())
	}
}
