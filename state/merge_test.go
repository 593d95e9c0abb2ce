package state

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/okstra/cockpit/state/internal/rawjson"
)

// mergeJSON lays newer over older as a rewrite does: older compacted,
// rawjson.Merge, the result indented.
func mergeJSON(older, newer []byte) ([]byte, error) {
	var compact, merged, out bytes.Buffer
	if err := json.Compact(&compact, older); err != nil {
		return nil, err
	}
	if err := rawjson.Merge(&merged, compact.Bytes(), newer); err != nil {
		return nil, err
	}
	if err := json.Indent(&out, merged.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

func TestMergeKeepsUnknownMembersInPlace(t *testing.T) {
	older := `{"teamName":"t","x-owner":{"by":"okstra","n":1},"workerDispatches":[{"dispatchId":"d1","x-audit":"keep","status":"in-progress"}],"tail":true}`
	ts := &TeamState{}
	if err := json.Unmarshal([]byte(older), ts); err != nil {
		t.Fatal(err)
	}
	ts.WorkerDispatches[0].Status = "completed"
	ts.WorkerDispatches = append(ts.WorkerDispatches, Dispatch{DispatchID: "d2", Status: "in-progress"})
	newer, _ := json.Marshal(ts)
	got, err := mergeJSON([]byte(older), newer)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(got, &doc); err != nil {
		t.Fatalf("merged output is not JSON: %v\n%s", err, got)
	}
	s := string(got)
	// Order of the top level: teamName, x-owner, workerDispatches, tail, then new members.
	order := []string{`"teamName"`, `"x-owner"`, `"workerDispatches"`, `"tail"`, `"workers"`}
	last := -1
	for _, k := range order {
		i := strings.Index(s, k)
		if i < 0 || i < last {
			t.Fatalf("member %s missing or out of place in\n%s", k, s)
		}
		last = i
	}
	d0 := doc["workerDispatches"].([]any)[0].(map[string]any)
	if d0["x-audit"] != "keep" || d0["status"] != "completed" {
		t.Fatalf("first dispatch lost its unknown member or its update: %v", d0)
	}
	if i, j := strings.Index(s, `"x-audit"`), strings.Index(s, `"status": "completed"`); i > j {
		t.Fatalf("x-audit moved after status:\n%s", s)
	}
	if doc["x-owner"].(map[string]any)["by"] != "okstra" || doc["tail"] != true {
		t.Fatalf("unknown top-level members changed: %v", doc)
	}
	if n := len(doc["workerDispatches"].([]any)); n != 2 {
		t.Fatalf("want 2 dispatches, got %d", n)
	}
}

func TestMergeEscapedKeysAndStrings(t *testing.T) {
	older := `{"a\"b":"x]}","list":["{",1,null],"n":1.5e3}`
	newer := `{"n":2,"list":["{",1,null,"new"]}`
	got, err := mergeJSON([]byte(older), []byte(newer))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(got, &doc); err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	if doc[`a"b`] != "x]}" || doc["n"] != 2.0 || len(doc["list"].([]any)) != 4 {
		t.Fatalf("bad merge: %s", got)
	}
}
