package panes

import (
	"strconv"
	"testing"

	"github.com/okstra/cockpit/panes/refvt"
	"github.com/okstra/cockpit/panes/term"
)

// benchEmulators are the emulators the read path is measured with. "null"
// drops everything: it prices the PTY plumbing alone (read syscalls, lock,
// dirty marking), so the difference to the others is the emulator's cost.
var benchEmulators = []struct {
	name string
	new  func(cols, rows int) term.Emulator
}{
	{"vt", nil},
	{"refvt", func(cols, rows int) term.Emulator { return refvt.New(cols, rows) }},
	{"null", func(cols, rows int) term.Emulator { return &nullEmulator{cols: cols, rows: rows} }},
}

// BenchmarkReadPath measures program output through a real PTY into the
// emulator: a helper writes b.N×64 KiB of coloured text lines as fast as it
// can and the benchmark ends when the pane has read all of it.
func BenchmarkReadPath(b *testing.B) {
	for _, be := range benchEmulators {
		b.Run(be.name, func(b *testing.B) {
			const chunk = 64 << 10
			m := NewManager()
			b.SetBytes(chunk)
			b.ReportAllocs()
			b.ResetTimer()
			p, err := m.Open(Config{
				Argv:        []string{helperBin, "spew", strconv.Itoa(b.N * chunk)},
				NewEmulator: be.new,
				Cols:        120,
				Rows:        40,
			})
			if err != nil {
				b.Fatal(err)
			}
			<-p.Done()
			<-p.readerDone
			b.StopTimer()
			if got := p.bytesRead.Load(); got < int64(b.N*chunk) {
				b.Fatalf("read %d bytes, want at least %d", got, b.N*chunk)
			}
			if st, _ := p.Status(); st.Code != 0 {
				b.Fatalf("helper: %v\n%s", st, screenText(p))
			}
			b.ReportMetric(float64(p.bytesRead.Load())/float64(p.reads.Load()), "B/read")
			_ = p.Close()
		})
	}
}

// BenchmarkSnapshot measures the UI side of a frame for a pane whose every
// row changed, and for one where nothing did.
func BenchmarkSnapshot(b *testing.B) {
	m := NewManager()
	p, err := m.Open(Config{Argv: []string{helperBin, "spew", "200000"}, Cols: 120, Rows: 40})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	<-p.Done()
	b.Run("unchanged", func(b *testing.B) {
		p.Snapshot()
		b.ReportAllocs()
		for b.Loop() {
			p.Snapshot()
		}
	})
	b.Run("all rows", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p.mu.Lock()
			p.seq++
			p.snapValid = false
			p.mu.Unlock()
			p.Snapshot()
		}
	})
}

// nullEmulator is a term.Emulator that keeps nothing.
type nullEmulator struct{ cols, rows int }

func (e *nullEmulator) Write(p []byte) (int, error)                       { return len(p), nil }
func (e *nullEmulator) Resize(cols, rows int)                             { e.cols, e.rows = cols, rows }
func (e *nullEmulator) Size() (int, int)                                  { return e.cols, e.rows }
func (e *nullEmulator) Cursor() term.Cursor                               { return term.Cursor{} }
func (e *nullEmulator) Modes() term.Modes                                 { return term.Modes{} }
func (e *nullEmulator) Title() string                                     { return "" }
func (e *nullEmulator) AppendLine(dst []byte, _ int, _ bool) []byte       { return dst }
func (e *nullEmulator) ScrollbackLen() int                                { return 0 }
func (e *nullEmulator) ScrollbackDropped() uint64                         { return 0 }
func (e *nullEmulator) AppendScrollback(dst []byte, _ int, _ bool) []byte { return dst }
func (e *nullEmulator) TakeDirty(dst []int) []int                         { return dst }
func (e *nullEmulator) SetCallbacks(func([]byte), func(term.Event))       {}
