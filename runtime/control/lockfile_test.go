package control

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/okstra/cockpit/runtime/internal/runtest"
)

// TestLockFileLeavesWithItsServer: a closed server leaves neither its
// socket nor its lock file (178 of them had piled up in /tmp/cockpit-0).
func TestLockFileLeavesWithItsServer(t *testing.T) {
	sock := filepath.Join(runtest.ShortDir(t), "cockpit.sock")
	s, err := Listen(sock, &countingHandler{}, HelloResult{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sock + ".lock"); err != nil {
		t.Fatalf("a serving server's lock file: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{sock, sock + ".lock"} {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is left after Close: %v", filepath.Base(p), err)
		}
	}
}

// TestOneServerAtATimeWhileLockFilesComeAndGo: servers that start and stop
// on one path as fast as they can are never two at once. Removing the lock
// file on Close opens the classic race (a rival that opened the old file
// locks it after its removal while a third locks a new one); the taker's
// check that the path still names the inode it locked closes it.
func TestOneServerAtATimeWhileLockFilesComeAndGo(t *testing.T) {
	sock := filepath.Join(runtest.ShortDir(t), "cockpit.sock")
	var holders, most, served atomic.Int32
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				s, err := Listen(sock, &countingHandler{}, HelloResult{})
				if errors.Is(err, ErrServing) {
					continue
				}
				if err != nil {
					t.Error(err)
					return
				}
				n := holders.Add(1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				served.Add(1)
				holders.Add(-1)
				s.Close()
			}
		}()
	}
	wg.Wait()
	if most.Load() > 1 {
		t.Fatalf("%d servers held the lock at once", most.Load())
	}
	if served.Load() == 0 {
		t.Fatal("no server ever started")
	}
	if _, err := os.Lstat(sock + ".lock"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lock file is left: %v", err)
	}
}
