package state

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

func TestErrorUnwrapsItsCause(t *testing.T) {
	cause := fs.ErrPermission
	e := &Error{File: "f.json", Field: "x", Msg: "cannot read", Err: cause}
	if e.Error() != "f.json: x: cannot read" {
		t.Fatalf("text %q: the cause must not change it", e.Error())
	}
	if !errors.Is(e, fs.ErrPermission) {
		t.Fatal("errors.Is does not see the cause")
	}
	if (&Error{Msg: "m"}).Unwrap() != nil {
		t.Fatal("an Error without a cause unwraps to something")
	}
}

// A JSON run file's decoding error keeps the decoder's error underneath the
// one-line text: a truncated file and a syntax error as *json.SyntaxError,
// a wrong type as *json.UnmarshalTypeError.
func TestJSONErrorsWrapTheDecoderError(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, body, text string
		syntax           bool
	}{
		{"truncated", `{"teamStatePath": "a",`, "m.json: is truncated: the JSON ends early; restore or regenerate the file", true},
		{"truncated in a string", `{"teamStatePath": "a`, "m.json: is truncated: the JSON ends early; restore or regenerate the file", true},
		{"syntax", `{"teamStatePath": "a" "x": 1}`, "m.json: malformed JSON at line 1, column 23: invalid character '\"' after object key:value pair", true},
		{"trailing", `{"teamStatePath": "a"} x`, "m.json: malformed JSON at line 1, column 24: invalid character 'x' after top-level value", true},
		{"type", `{"teamStatePath": 3}`, "m.json: teamStatePath: is a JSON number; expected a string", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, "m.json")
			if err := os.WriteFile(p, []byte(c.body), 0o644); err != nil {
				t.Fatal(err)
			}
			var m RunManifest
			err := readJSON(p, "m.json", &m)
			if err == nil || err.Error() != c.text {
				t.Fatalf("error %v\nwant    %s", err, c.text)
			}
			var syn *json.SyntaxError
			var typ *json.UnmarshalTypeError
			if c.syntax && !errors.As(err, &syn) {
				t.Fatalf("%v does not wrap a *json.SyntaxError", err)
			}
			if !c.syntax && !errors.As(err, &typ) {
				t.Fatalf("%v does not wrap a *json.UnmarshalTypeError", err)
			}
		})
	}
}

func TestOpenRootWrapsTheStatError(t *testing.T) {
	_, err := OpenRoot(filepath.Join(t.TempDir(), "missing"))
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("error %v does not wrap fs.ErrNotExist", err)
	}
}

// A team-state dispatch whose number does not parse keeps strconv's error.
func TestTeamStateErrorsKeepTheirCause(t *testing.T) {
	_, _, err := decodeTeamState([]byte(`{"workerDispatches": [{"dispatchId": "d", "attempt": 1.5}]}`), "ts.json")
	var num *strconv.NumError
	if err == nil || err.Error() != "ts.json: workerDispatches[0].attempt: is a number; expected an integer" || !errors.As(err, &num) {
		t.Fatalf("error %v (%T) does not name the member or lost its cause", err, errors.Unwrap(err))
	}
}
