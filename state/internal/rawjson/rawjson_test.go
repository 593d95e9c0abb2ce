package rawjson

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

func TestSplitObjectKeepsMembersAsWritten(t *testing.T) {
	doc := []byte(`{ "a\"b" : "x]}" , "list":["{",1,null], "n":1.5e3,"a\"b":{}}`)
	ms, err := SplitObject(doc)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, string(m.Key)+"="+string(m.Val))
	}
	want := []string{`"a\"b"="x]}"`, `"list"=["{",1,null]`, `"n"=1.5e3`, `"a\"b"={}`}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	for _, bad := range []string{`{"a" 1}`, `{"a":1`, `{1:2}`, `{"a":"x`} {
		if _, err := SplitObject([]byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestMergeLaysNewerOverOlder(t *testing.T) {
	var out bytes.Buffer
	older := `{"x":{"keep":1},"Status":"old","arr":[{"id":1,"f":true},{"id":2}],"tail":null}`
	newer := `{"status":"new","arr":[{"id":1}],"added":3}`
	if err := Merge(&out, []byte(older), []byte(newer)); err != nil {
		t.Fatal(err)
	}
	// Status is status as encoding/json reads it into a struct field.
	want := `{"x":{"keep":1},"Status":"new","arr":[{"id":1,"f":true}],"tail":null,"added":3}`
	if out.String() != want {
		t.Fatalf("got  %s\nwant %s", out.String(), want)
	}
}

func TestEqualIgnoresSpaceOutsideStrings(t *testing.T) {
	for _, c := range []struct {
		a, b string
		eq   bool
	}{
		{`{"a": 1}`, `{"a":1}`, true},
		{`{"a": "x y"}`, `{"a":"x  y"}`, false},
		{`["\" ", 1]`, `["\" ",1]`, true},
		{`[1]`, `[1, 2]`, false},
	} {
		if got := Equal([]byte(c.a), []byte(c.b)); got != c.eq {
			t.Errorf("Equal(%s, %s) = %v", c.a, c.b, got)
		}
	}
}

// FuzzFieldsMatch holds Fields.Match to encoding/json's matching of member
// names to struct fields.
func FuzzFieldsMatch(f *testing.F) {
	for _, s := range []string{"dispatchId", "DISPATCHID", "dispatch\\u0049d", "\u212aind", "diſpatchId", "pİd", "x-audit", "\xff"} {
		f.Add(s)
	}
	type fields struct {
		DispatchID string `json:"dispatchId"`
		Kind       string `json:"kind"`
		PID        string `json:"pid"`
	}
	m := NewFields("dispatchId", "kind", "pid")
	f.Fuzz(func(t *testing.T, name string) {
		key, _ := json.Marshal(name)
		if bytes.Contains([]byte(name), []byte(`\u`)) {
			key = []byte(`"` + name + `"`)
			if !json.Valid(key) {
				return
			}
		}
		var v fields
		if err := json.Unmarshal([]byte(`{`+string(key)+`:"set"}`), &v); err != nil {
			t.Fatal(err)
		}
		want := ""
		switch "set" {
		case v.DispatchID:
			want = "dispatchId"
		case v.Kind:
			want = "kind"
		case v.PID:
			want = "pid"
		}
		got, ok := m.Match(key)
		if got != want || ok != (want != "") {
			t.Fatalf("Match(%s) = %q, %v; encoding/json sets %q", key, got, ok, want)
		}
		for _, n := range []string{"dispatchId", "kind", "pid"} {
			if SameName(key, n) != (n == want) {
				t.Fatalf("SameName(%s, %s) = %v", key, n, !(n == want))
			}
		}
	})
}
