package state

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

// Every member Dispatch's tags name has its case in the codec: each set to
// a value of its own, alone and all together, decodes as encoding/json
// decodes it.
func TestDispatchCodecKnowsEveryMember(t *testing.T) {
	typ := reflect.TypeFor[Dispatch]()
	all := map[string]any{}
	for i := range typ.NumField() {
		f := typ.Field(i)
		name := jsonName(f)
		var v any
		switch f.Type.Kind() {
		case reflect.String:
			v = "value of " + name
		case reflect.Int:
			v = 1000 + i
		case reflect.Pointer:
			v = 2000 + i
		default:
			t.Fatalf("%s: no test value for a %s", f.Name, f.Type)
		}
		all[name] = v
		one, _ := json.Marshal(map[string]any{name: v})
		got := decodeOne(t, one)
		if reflect.ValueOf(got).Field(i).IsZero() {
			t.Errorf("member %q (Dispatch.%s) has no decode case in setMember", name, f.Name)
		}
	}
	raw, _ := json.Marshal(all)
	got := decodeOne(t, raw)
	for i := range typ.NumField() {
		if reflect.ValueOf(got).Field(i).IsZero() {
			t.Errorf("Dispatch.%s not decoded from %s", typ.Field(i).Name, raw)
		}
	}
}

// decodeOne decodes raw with the codec and with encoding/json and fails
// unless they agree.
func decodeOne(t *testing.T, raw []byte) Dispatch {
	t.Helper()
	var got, want Dispatch
	if derr := decodeDispatch(raw, &got); derr != nil {
		t.Fatalf("%s: %s: %s", raw, derr.field, derr.msg)
	}
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s\ncodec:         %+v\nencoding/json: %+v", raw, got, want)
	}
	return got
}

// The top-level members the codec names are TeamState's tags.
func TestTeamStateCodecKnowsEveryMember(t *testing.T) {
	typ := reflect.TypeFor[TeamState]()
	var tags []string
	for i := range typ.NumField() {
		tags = append(tags, jsonName(typ.Field(i)))
	}
	if !reflect.DeepEqual(tags, teamStateNames) {
		t.Fatalf("TeamState's members are %q; the codec (teamStateNames, decodeTeamState, tsEncoder.member) knows %q", tags, teamStateNames)
	}
	doc := `{"teamName": "t", "teamCreate": {"attempted": true, "status": "s", "reason": "r"}, "workers": [{"role": "R", "workerId": "w", "provider": "p", "model": "m"}], "workerDispatches": [{"dispatchId": "d"}]}`
	got, _, err := decodeTeamState([]byte(doc), "ts")
	if err != nil {
		t.Fatal(err)
	}
	var want TeamState
	if err := json.Unmarshal([]byte(doc), &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*got, want) {
		t.Fatalf("codec %+v\nencoding/json %+v", *got, want)
	}
	for i := range typ.NumField() {
		if reflect.ValueOf(*got).Field(i).IsZero() {
			t.Errorf("TeamState.%s not decoded", typ.Field(i).Name)
		}
	}
}

// The layout check (the test, not an init: teamstate_dispatch.go) refuses
// a Dispatch the codec's memory comparison would get wrong.
func TestDispatchLayoutCheck(t *testing.T) {
	if err := checkDispatchLayout(reflect.TypeFor[Dispatch]()); err != nil {
		t.Fatal(err)
	}
	for name, typ := range map[string]reflect.Type{
		"bool field": reflect.TypeFor[struct {
			A, B string
			C    bool
		}](),
		"padding": reflect.TypeFor[struct {
			A int32
			B string
		}](),
		"float field":  reflect.TypeFor[struct{ A float64 }](),
		"slice field":  reflect.TypeFor[struct{ A []string }](),
		"*string":      reflect.TypeFor[struct{ A *string }](),
		"nested":       reflect.TypeFor[struct{ A struct{ B string } }](),
		"map field":    reflect.TypeFor[struct{ A map[string]string }](),
		"trailing pad": reflect.TypeFor[struct{ A int32 }](),
	} {
		if err := checkDispatchLayout(typ); err == nil {
			t.Errorf("%s: accepted %s", name, typ)
		}
	}
	if err := checkDispatchLayout(reflect.TypeFor[struct {
		A string
		B int
		C *int
	}]()); err != nil {
		t.Errorf("a layout of strings, ints and *ints refused: %v", err)
	}
}

// FuzzTeamStateCodec holds the codec to encoding/json: a document decodes
// to what encoding/json decodes (and is refused when encoding/json refuses
// it or its dispatch ids are missing or repeated), and what the codec
// writes, as it is, after a change and as a new file, decodes back to the
// state it wrote, keeping foreign members as they were written.
func FuzzTeamStateCodec(f *testing.F) {
	for _, s := range []string{pythonTeamState, foreignTeamState, `{"teamName":"c","workerDispatches":[{"dispatchId":"a","status":"x","reason":""},{"dispatchId":"b","status":"y","reason":"","z":1}]}`} {
		f.Add([]byte(s))
	}
	if b, err := os.ReadFile("testdata/examples/team-state.json"); err == nil {
		f.Add(b)
	}
	f.Add(benchTeamState(3))
	f.Add([]byte(`{"TEAMNAME":"a","teamname":"b","workerdispatches":[{"DISPATCHID":"d","Status":"s","PID":3,"exitcode":null}]}`))
	f.Add([]byte(`{"workerDispatches":[{"dispatchId":"a","status":"x"}],"workerDispatches":[null,{"dispatchId":"b"}]}`))
	f.Add([]byte(`{"workerDispatches":[{"dispatchId":"a","exitCode":1,"exitCode":null,"status":"x","status":null}]}`))
	f.Add([]byte("{\"workerDispatches\":[{\"dispatchId\":\"a\\u0062\",\"st\\u0061tus\":\"\xff\xfe\",\"\u212aind\":1}]}"))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"workerDispatches":[{"dispatchId":"a","attempt":1.0}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ts, doc, err := decodeTeamState(data, "ts")
		var want TeamState
		jerr := json.Unmarshal(data, &want)
		if jerr == nil {
			jerr = want.validate("ts")
		}
		if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
			// encoding/json reads null as an empty struct; a team-state
			// must be an object.
			if err == nil {
				t.Fatal("the codec accepted null")
			}
			return
		}
		if (err == nil) != (jerr == nil) {
			t.Fatalf("codec error %v, encoding/json error %v\n%q", err, jerr, data)
		}
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error is not one line: %q", err)
			}
			return
		}
		if !reflect.DeepEqual(*ts, want) {
			t.Fatalf("decoded differently\ncodec:         %+v\nencoding/json: %+v\n%q", *ts, want, data)
		}
		orig := cloneTeamState(ts)
		out, ndoc := roundTrip(t, ts, doc, orig, data)
		keepsForeign(t, doc, ndoc)
		// The document just written, rewritten unchanged by the next writer
		// of this process (which takes ts and ndoc from tsCache) or of
		// another (which decodes it), is the same bytes.
		if again, _ := roundTrip(t, ts, ndoc, orig, out); !bytes.Equal(again, out) {
			t.Fatalf("rewriting an unchanged state changed the file\nfirst:  %q\nsecond: %q", out, again)
		}
		ts3, doc3, err := decodeTeamState(out, "out")
		if err != nil {
			t.Fatal(err)
		}
		// (A document with a member written twice is encoded anew, each
		// element merged over the bytes the later member left.)
		if again, _ := roundTrip(t, ts3, doc3, orig, out); doc3.ids != nil && !bytes.Equal(again, out) {
			t.Fatalf("rewriting a decoded unchanged state changed the file\nfirst:  %q\nsecond: %q", out, again)
		}
		// A change: every other dispatch settles, one more is appended.
		changed := cloneTeamState(orig)
		for i := range changed.WorkerDispatches {
			if i%2 == 0 {
				changed.WorkerDispatches[i].Status = Status(fmt.Sprintf("settled-%d", i))
				changed.WorkerDispatches[i].SettledAt = "2026-12-01T00:00:00Z"
			}
		}
		changed.WorkerDispatches = append(changed.WorkerDispatches, Dispatch{DispatchID: uniqueID(changed), Status: StatusInProgress, PID: 7})
		_, doc2, err := decodeTeamState(data, "ts")
		if err != nil {
			t.Fatal(err)
		}
		_, cdoc := roundTrip(t, cloneTeamState(changed), doc2, changed, data)
		keepsForeign(t, doc2, cdoc)
		// The same state as a new file.
		roundTrip(t, cloneTeamState(orig), nil, orig, nil)
	})
}

// roundTrip encodes ts over doc and checks that both decoders read the
// output back as want.
func roundTrip(t *testing.T, ts *TeamState, doc *teamStateDoc, want *TeamState, from []byte) ([]byte, *teamStateDoc) {
	t.Helper()
	ids, runs, err := validateUpdate(ts, doc, "ts")
	if err != nil {
		t.Fatalf("validate: %v\n%q", err, from)
	}
	out, ndoc, err := encodeTeamState(ts, doc, ids, runs)
	if err != nil {
		t.Fatalf("encode: %v\n%q", err, from)
	}
	back, _, err := decodeTeamState(out, "out")
	if err != nil {
		t.Fatalf("the codec refuses what it wrote: %v\nfrom %q\nwrote %q", err, from, out)
	}
	var jback TeamState
	if err := json.Unmarshal(out, &jback); err != nil {
		t.Fatalf("encoding/json refuses what the codec wrote: %v\n%q", err, out)
	}
	w := normalized(want)
	if got := normalized(back); !reflect.DeepEqual(got, w) {
		t.Fatalf("wrote a different state\nwant %+v\ngot  %+v\nfrom %q\nwrote %q", w, got, from, out)
	}
	if got := normalized(&jback); !reflect.DeepEqual(got, w) {
		t.Fatalf("encoding/json reads back a different state\nwant %+v\ngot  %+v\nfrom %q\nwrote %q", w, got, from, out)
	}
	return out, ndoc
}

// normalized is ts with absent arrays empty: the encoder always writes
// workers and workerDispatches, so an absent or null one reads back [].
func normalized(ts *TeamState) TeamState {
	n := *ts
	if n.Workers == nil {
		n.Workers = []Worker{}
	}
	if n.WorkerDispatches == nil {
		n.WorkerDispatches = []Dispatch{}
	}
	return n
}

// keepsForeign checks that every member the codec does not know of old's
// top level is in nd, as written and in the same order.
func keepsForeign(t *testing.T, old, nd *teamStateDoc) {
	t.Helper()
	var want, got []string
	for _, m := range old.members {
		if m.name == "" {
			want = append(want, string(m.key.of(old.data))+":"+string(m.val.of(old.data)))
		}
	}
	for _, m := range nd.members {
		if m.name == "" {
			got = append(got, string(m.key.of(nd.data))+":"+string(m.val.of(nd.data)))
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("foreign members changed\nwant %q\ngot  %q", want, got)
	}
}

func cloneTeamState(ts *TeamState) *TeamState {
	c := *ts
	if ts.TeamCreate != nil {
		tc := *ts.TeamCreate
		c.TeamCreate = &tc
	}
	c.Workers = append([]Worker(nil), ts.Workers...)
	if ts.Workers != nil && c.Workers == nil {
		c.Workers = []Worker{}
	}
	c.WorkerDispatches = append([]Dispatch(nil), ts.WorkerDispatches...)
	if ts.WorkerDispatches != nil && c.WorkerDispatches == nil {
		c.WorkerDispatches = []Dispatch{}
	}
	for i, d := range c.WorkerDispatches {
		if d.ExitCode != nil {
			n := *d.ExitCode
			c.WorkerDispatches[i].ExitCode = &n
		}
	}
	return &c
}

func uniqueID(ts *TeamState) string {
	for n := 0; ; n++ {
		id := fmt.Sprintf("fuzz-%d", n)
		if ts.Dispatch(id) == nil {
			return id
		}
	}
}

// checkDispatchLayout checks what dispatchBytes assumes of t: its fields
// are strings, ints and *ints only, laid end to end with no padding, so two
// values with equal fields are equal byte for byte.
func checkDispatchLayout(t reflect.Type) error {
	var next uintptr
	for i := range t.NumField() {
		f := t.Field(i)
		switch {
		case f.Type.Kind() == reflect.String, f.Type.Kind() == reflect.Int,
			f.Type.Kind() == reflect.Pointer && f.Type.Elem().Kind() == reflect.Int:
		default:
			return fmt.Errorf("%s.%s is a %s; the team-state codec (dispatchBytes, decodeDispatch) handles string, int and *int fields only", t.Name(), f.Name, f.Type)
		}
		if f.Offset != next {
			return fmt.Errorf("%s.%s sits at offset %d, not %d: padding would make dispatchBytes compare unequal copies", t.Name(), f.Name, f.Offset, next)
		}
		next += f.Type.Size()
	}
	if t.Size() != next {
		return fmt.Errorf("%s is %d bytes, its fields %d: dispatchBytes compares padding", t.Name(), t.Size(), next)
	}
	return nil
}
