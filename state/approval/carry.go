package approval

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/okstra/cockpit/state"
)

// CarryRequest is one `approval-decision carry`.
type CarryRequest struct {
	// Ledger is the ledger to carry into (this run's).
	Ledger string
	// FromResponses is a user-response sidecar, or a directory searched
	// recursively for *.md sidecars (a later file, in path order, wins for
	// the same id).
	FromResponses string
	// IDs are the clarification ids to carry.
	IDs []string
	// ProjectRoot resolves the project-relative "Source Report" of a
	// response; "" infers it from .okstra in FromResponses' path.
	ProjectRoot string
}

// CarryResult says which rows a carry added and which were already there.
type CarryResult struct {
	Ledger         string   `json:"ledger"`
	Carried        []Row    `json:"carried"`
	AlreadyCarried []string `json:"alreadyCarried"`
}

// Carry copies decisions answered in an earlier run into the ledger at path,
// as answered rows marked carried. See CarryWith.
func Carry(path, fromResponses string, ids []string) (*CarryResult, error) {
	return CarryWith(CarryRequest{Ledger: path, FromResponses: fromResponses, IDs: ids})
}

// response is one answer found in the responses bundle.
type response struct {
	file         string
	entry        *Section
	sourceReport string
}

// CarryWith carries each requested id: it finds the id's answer in the
// responses, follows the answer's Source Report (the section's own bullet,
// else the file's) to the ledger beside that report, and copies that row —
// statement, expected form, options and the rest — with status answered,
// carried true, carriedFrom the responses path, and a resolution holding the
// earlier answer. A row obsolete in its source ledger is refused (carry the
// row that superseded it). An id already carried into the ledger is left as
// it is; an id the ledger holds as a row of this run is refused. Nothing is
// written unless every id can be carried.
func CarryWith(req CarryRequest) (*CarryResult, error) {
	if req.FromResponses == "" {
		return nil, &state.Error{Field: "--from-responses", Msg: "is required; pass the user-responses file (or directory) that holds the earlier answers"}
	}
	if len(req.IDs) == 0 {
		return nil, &state.Error{Field: "--clarification-id", Msg: "is required; name at least one C-NNN to carry (repeat the flag for several)"}
	}
	var ids []string
	seen := map[string]bool{}
	for _, id := range req.IDs {
		if err := CheckID(id); err != nil {
			return nil, &state.Error{Field: "--clarification-id", Msg: err.Error(), Err: err}
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	found, err := readResponses(req.FromResponses)
	if err != nil {
		return nil, err
	}
	var missing []string
	for _, id := range ids {
		if found[id] == nil {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return nil, &state.Error{File: req.FromResponses, Field: "--clarification-id", Msg: fmt.Sprintf("holds no answer for %s; carry only ids these responses answer", strings.Join(missing, ", "))}
	}
	now := state.Timestamp(state.Now())
	var rows []Row
	for _, id := range ids {
		r, err := carriedRow(req, id, found[id], now)
		if err != nil {
			return nil, err
		}
		if l, by := supersededInBundle(req, id, found); by != "" {
			return nil, &state.Error{File: l, Field: id, Msg: fmt.Sprintf("is obsolete there (superseded by %s, resolved in a later run); carry %s instead", by, by)}
		}
		rows = append(rows, r)
	}
	res := &CarryResult{Ledger: req.Ledger, Carried: []Row{}, AlreadyCarried: []string{}}
	err = update(req.Ledger, true, "", func(d *ledgerDoc) (bool, error) {
		eff := effectiveRows(d.rows)
		var add []Row
		for _, r := range rows {
			i := d.index(r.ClarificationID)
			if i < 0 {
				add = append(add, r)
				continue
			}
			if d.rows[i].Carried {
				res.AlreadyCarried = append(res.AlreadyCarried, r.ClarificationID)
				continue
			}
			return false, &state.Error{File: req.Ledger, Field: "--clarification-id", Msg: fmt.Sprintf("%s is already a row of this run (status %s); carry admits only decisions answered in an earlier run", r.ClarificationID, eff[i].Status)}
		}
		for _, r := range add {
			if err := d.appendRow(r); err != nil {
				return false, err
			}
		}
		res.Carried = append(res.Carried, add...)
		return len(add) > 0, nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

func carriedRow(req CarryRequest, id string, resp *response, now string) (Row, error) {
	src := resp.sourceReport
	if src == "" {
		return Row{}, &state.Error{File: resp.file, Field: id, Msg: "names no Source Report; carry needs the report that posed the question"}
	}
	srcPath := src
	if !filepath.IsAbs(srcPath) {
		root := req.ProjectRoot
		if root == "" {
			root = projectRootOf(resp.file)
		}
		if root == "" {
			return Row{}, &state.Error{File: resp.file, Field: id, Msg: fmt.Sprintf("Source Report %s is project-relative but the project root is unknown; pass --project-root", src)}
		}
		srcPath = filepath.Join(root, filepath.FromSlash(src))
	}
	ledger, err := LedgerForReport(srcPath)
	if err != nil {
		return Row{}, &state.Error{File: resp.file, Field: id, Msg: fmt.Sprintf("cannot find the ledger of its Source Report %s (looked for %s); carry needs the original question and options", src, strings.Join(LedgerCandidates(srcPath), ", "))}
	}
	l, err := Read(ledger)
	if err != nil {
		return Row{}, err
	}
	orig := l.Row(id)
	if orig == nil {
		return Row{}, &state.Error{File: ledger, Field: id, Msg: fmt.Sprintf("is not a row of the ledger of its Source Report %s; carry needs the original question and options", src)}
	}
	if orig.Status == StatusObsolete {
		return Row{}, &state.Error{File: ledger, Field: id, Msg: fmt.Sprintf("is obsolete there (superseded by %s); carry %s instead", orig.ObsoletedBy, orig.ObsoletedBy)}
	}
	r := *orig
	r.Status = StatusAnswered
	r.Carried = true
	r.CarriedFrom = filepath.ToSlash(req.FromResponses)
	r.Supersedes = ""
	r.ObsoletedBy = ""
	r.OpenedAt = now
	answer := resp.entry.Get("Answer")
	disp := resp.entry.Get("Disposition")
	resolvedAt := now
	if orig.Resolution != nil {
		if disp == "" {
			disp = orig.Resolution.Disposition
		}
		if orig.Resolution.ResolvedAt != "" {
			resolvedAt = orig.Resolution.ResolvedAt
		}
	}
	if disp == "" {
		for _, o := range orig.Options {
			if o.Answer == answer {
				disp = o.Disposition
			}
		}
	}
	if disp == "" {
		disp = "select"
	}
	r.Resolution = &Resolution{
		Disposition:     disp,
		UserText:        answer,
		UserResponseRef: projectRel(req.ProjectRoot, resp.file) + "#" + id,
		ResolvedAt:      resolvedAt,
	}
	r.fillScopeEffects()
	// An incomplete row still carries: the user's answer stands.
	if err := CheckRow(r); err != nil {
		return Row{}, &state.Error{File: ledger, Msg: "cannot carry: " + err.Error(), Err: err}
	}
	return r, nil
}

// readResponses reads a sidecar, or every *.md under a directory in path
// order, and returns the last answer found for each id.
func readResponses(p string) (map[string]*response, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, &state.Error{Field: "--from-responses", Msg: fmt.Sprintf("%s does not exist; pass the user-responses file or directory", p)}
	}
	var files []string
	if st.IsDir() {
		err := filepath.WalkDir(p, func(f string, de fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !de.IsDir() && strings.HasSuffix(f, ".md") {
				files = append(files, f)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("read responses %s: %w", p, err)
		}
		sort.Strings(files)
	} else {
		files = []string{p}
	}
	out := map[string]*response{}
	for _, f := range files {
		data, err := state.ReadRegular(f, f)
		if err != nil {
			if state.IsNotRegular(err) {
				return nil, err
			}
			return nil, fmt.Errorf("read responses %s: %w", f, err)
		}
		s := ParseSidecar(data)
		for _, e := range s.Entries {
			if e.Get("Answer") == "" {
				continue
			}
			src := e.Get("Source Report")
			if src == "" {
				src = s.SourceReport
			}
			out[e.Heading] = &response{file: f, entry: e, sourceReport: src}
		}
	}
	return out, nil
}

// supersededInBundle looks for id in the ledgers of every report the
// responses bundle answers, not only the one that posed it: a later run
// that superseded it (a row opened --supersedes id, then resolved) has it
// obsolete in its own ledger, and then the next run does not carry it (the
// seed: "Once the new row is resolved … the next run does not carry it").
// It returns that ledger and the superseding id, or "" when none has.
func supersededInBundle(req CarryRequest, id string, found map[string]*response) (ledger, by string) {
	seen := map[string]bool{}
	for _, resp := range found {
		src := resp.sourceReport
		if src == "" {
			continue
		}
		if !filepath.IsAbs(src) {
			root := req.ProjectRoot
			if root == "" {
				root = projectRootOf(resp.file)
			}
			if root == "" {
				continue
			}
			src = filepath.Join(root, filepath.FromSlash(src))
		}
		l, err := LedgerForReport(src)
		if err != nil || seen[l] {
			continue
		}
		seen[l] = true
		led, err := Read(l)
		if err != nil {
			continue
		}
		if r := led.Row(id); r != nil && r.Status == StatusObsolete {
			return l, r.ObsoletedBy
		}
	}
	return "", ""
}
