package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/okstra/cockpit/internal/fixture"
)

// shimDir makes an okstra shim for the binary under test, as `cockpit open`
// does for its lead.
func shimDir(t *testing.T) string {
	t.Helper()
	dir, remove, err := okstraShim(cockpitBin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(remove)
	return dir
}

// okstra runs `okstra args...` through the shim in dir, as a shell finds it
// on PATH (argv[0] "okstra"), in root with PATH set to path.
func okstra(t *testing.T, shim, root, path, stdin string, env []string, args ...string) result {
	t.Helper()
	cmd := &exec.Cmd{Path: filepath.Join(shim, "okstra"), Args: append([]string{"okstra"}, args...), Dir: root}
	cmd.Env = append(append(cleanEnv(), "PATH="+path), env...)
	cmd.Stdin = strings.NewReader(stdin)
	return runProcess(t, cmd)
}

// fakeOkstra writes an okstra script into a new directory: it records its
// arguments (one per line), its stdin and $OKSTRA_PROBE, prints a line on
// each stream and exits 7.
func fakeOkstra(t *testing.T) (dir, record string) {
	t.Helper()
	dir = t.TempDir()
	record = filepath.Join(t.TempDir(), "record")
	script := fmt.Sprintf(`#!/bin/sh
for a in "$@"; do printf '%%s\n' "$a"; done > %[1]s.args
/bin/cat > %[1]s.stdin
printf '%%s\n' "$OKSTRA_PROBE" > %[1]s.env
echo "real okstra out"
echo "real okstra err" >&2
exit 7
`, record)
	if err := os.WriteFile(filepath.Join(dir, "okstra"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, record
}

func pathOfDirs(dirs ...string) string { return strings.Join(dirs, string(os.PathListSeparator)) }

// TestOkstraRoutesTheCockpitsCommands: through the shim, an owned command
// runs in the cockpit with the output of `cockpit <same args>`, errors
// named after the program the lead called; the seed's spelling of
// worker-liveness (--team-state, --dispatch-id, no run manifest) works.
func TestOkstraRoutesTheCockpitsCommands(t *testing.T) {
	t.Parallel() // waits on cockpit processes of its own
	shim := shimDir(t)
	a, b := fixture.Copy(t), fixture.Copy(t)
	// A real okstra later on the PATH must not be reached for these.
	fake, record := fakeOkstra(t)
	path := pathOfDirs(shim, fake, fixture.FakeBin(t), "/usr/bin", "/bin")

	progress := []string{"lead-progress", "append", "--phase", "phase-1-intake", "--detail", "reading task bundle"}
	viaOkstra := okstra(t, shim, a, path, "", nil, runArgs(a, progress...)...)
	viaCockpit := cockpit(t, b, nil, runArgs(b, progress...)...)
	if viaOkstra.code != 0 || viaOkstra.stdout != viaCockpit.stdout || viaOkstra.stderr != "" || viaCockpit.code != 0 {
		t.Fatalf("okstra lead-progress append: exit %d, %q %q; cockpit: exit %d, %q", viaOkstra.code, viaOkstra.stdout, viaOkstra.stderr, viaCockpit.code, viaCockpit.stdout)
	}
	if got := ledgerLines(t, a); !slices.Equal(got, ledgerLines(t, b)) || !slices.Equal(got, []string{"PROGRESS: phase-1-intake reading task bundle"}) {
		t.Fatalf("okstra's ledger %q, cockpit's %q", got, ledgerLines(t, b))
	}

	// The same usage error, under the name the lead called.
	viaOkstra = okstra(t, shim, a, path, "", nil, runArgs(a, "team", "dispatch")...)
	viaCockpit = cockpit(t, b, nil, runArgs(b, "team", "dispatch")...)
	const noJobs = " team dispatch: --jobs-file: is required; pass the jobs file written by `okstra agent-prompt jobs`\n"
	if viaOkstra.code != 2 || viaOkstra.stderr != "okstra"+noJobs || viaCockpit.code != 2 || viaCockpit.stderr != "cockpit"+noJobs {
		t.Fatalf("okstra team dispatch: exit %d %q; cockpit: exit %d %q", viaOkstra.code, viaOkstra.stderr, viaCockpit.code, viaCockpit.stderr)
	}

	// A batch, then the seed's worker-liveness line, both through okstra.
	fixture.SetBehaviour(t, a, fixture.CodexPrompt, "ok")
	fixture.SetBehaviour(t, a, fixture.AntigravityPrompt, "ok")
	fixture.SetBehaviour(t, a, fixture.ClaudePrompt, "ok")
	r := okstra(t, shim, a, path, "", nil, runArgs(a, "worker-dispatch", "--jobs-file", fixture.JobsInitial)...)
	if r.code != 0 || !strings.Contains(r.stdout, `"progressLines"`) {
		t.Fatalf("okstra worker-dispatch: exit %d: %s\n%s", r.code, r.stderr, r.stdout)
	}
	r = okstra(t, shim, a, path, "", nil, "worker-liveness", "--team-state", filepath.Join(a, fixture.TeamState), "--dispatch-id", "dispatch-002")
	if r.code != 0 || r.stdout != "dispatch-002 done (completed)\n" {
		t.Fatalf("okstra worker-liveness: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(record + ".args"); err == nil {
		t.Fatal("an owned command reached the real okstra")
	}
}

// TestOkstraHandsOtherCommandsToTheRealOne: a command the cockpit does not
// own — or an owned group's other subcommand — reaches the next okstra on
// the PATH with the same arguments, stdin, environment and streams, and its
// exit status; the shim's directory twice on the PATH, or another link to
// the cockpit, is skipped rather than looped through.
func TestOkstraHandsOtherCommandsToTheRealOne(t *testing.T) {
	t.Parallel() // waits on cockpit processes of its own
	shim := shimDir(t)
	root := fixture.Copy(t)
	fake, record := fakeOkstra(t)
	other := t.TempDir() // another link to the cockpit, not the shim
	if err := os.Symlink(cockpitBin, filepath.Join(other, "okstra")); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"agent-prompt", "materialize", "--project-root", root, "--batch", "a batch.json", "--jobs-out", ""},
		{"team", "status", "--json"},
		{"lead-progress"},
		{"--version"},
	} {
		os.Remove(record + ".args")
		r := okstra(t, shim, root, pathOfDirs(shim, shim, other, fake, "/usr/bin", "/bin"), "line one\nline two\n", []string{"OKSTRA_PROBE=probe value"}, args...)
		if r.code != 7 || r.stdout != "real okstra out\n" || r.stderr != "real okstra err\n" {
			t.Fatalf("okstra %q: exit %d, stdout %q, stderr %q; want the real okstra's 7", args, r.code, r.stdout, r.stderr)
		}
		gotArgs, _ := os.ReadFile(record + ".args")
		if want := strings.Join(args, "\n") + "\n"; string(gotArgs) != want {
			t.Fatalf("the real okstra got args %q, want %q", gotArgs, want)
		}
		if in, _ := os.ReadFile(record + ".stdin"); string(in) != "line one\nline two\n" {
			t.Fatalf("the real okstra read stdin %q", in)
		}
		if env, _ := os.ReadFile(record + ".env"); string(env) != "probe value\n" {
			t.Fatalf("the real okstra's environment lost OKSTRA_PROBE: %q", env)
		}
	}
}

// TestOkstraWithoutARealOne: with no okstra after the shim (the shim twice
// on the PATH, and another link to the cockpit), a foreign command fails
// with one line naming the shim's directory, and exit 127.
func TestOkstraWithoutARealOne(t *testing.T) {
	t.Parallel() // waits on cockpit processes of its own
	shim := shimDir(t)
	root := fixture.Copy(t)
	other := t.TempDir()
	if err := os.Symlink(cockpitBin, filepath.Join(other, "okstra")); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	path := pathOfDirs(shim, other, shim, empty)
	for _, c := range []struct {
		args []string
		what string
	}{
		{[]string{"agent-prompt", "materialize", "--project-root", root}, "agent-prompt"},
		{[]string{"report-finalize"}, "report-finalize"},
		{[]string{"team", "status"}, "team status"},
		// Issue 17.16: a flag is named as given, never "okstra: okstra:".
		{[]string{"--help"}, "--help"},
		{[]string{"--version"}, "--version"},
	} {
		r := okstra(t, shim, root, path, "", nil, c.args...)
		want := "okstra: " + c.what + ": not a cockpit command, and no okstra found on PATH after the cockpit's shim (" + shim + "); install okstra or put it on PATH\n"
		if r.code != 127 || r.stderr != want || r.stdout != "" {
			t.Fatalf("okstra %q: exit %d, stderr %q, stdout %q\nwant exit 127 and %q", c.args, r.code, r.stderr, r.stdout, want)
		}
	}
	// Issue 17.16: a cockpit command called as okstra points to the
	// cockpit's, not to installing okstra; okstra alone names no command.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"gate", "ask", "--clarification-id", "C-001"}, "okstra: gate: not an okstra command; it is the cockpit's: run `cockpit gate ask --clarification-id C-001`\n"},
		{nil, "okstra: no okstra found on PATH after the cockpit's shim (" + shim + "); install okstra or put it on PATH\n"},
	} {
		r := okstra(t, shim, root, path, "", nil, c.args...)
		if r.code != 127 || r.stderr != c.want || r.stdout != "" {
			t.Fatalf("okstra %q: exit %d, stderr %q\nwant exit 127 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// TestOkstraShimIsPrivate: the shim directory is the user's alone and holds
// only the okstra link to the cockpit binary.
func TestOkstraShimIsPrivate(t *testing.T) {
	dir := shimDir(t)
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("shim dir %s: %v %v; want mode 0700", dir, fi.Mode(), err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "okstra" {
		t.Fatalf("shim dir holds %v", entries)
	}
	if target, err := os.Readlink(filepath.Join(dir, "okstra")); err != nil || target != cockpitBin {
		t.Fatalf("okstra links to %q (%v), want %s", target, err, cockpitBin)
	}
}
