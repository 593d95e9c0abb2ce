package registry

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
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
	os.Exit(m.Run())
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
