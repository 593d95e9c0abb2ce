package tui

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
)

// overlayKeyGroups are the KeyMap groups that belong to an overlay.
var overlayKeyGroups = map[string]bool{"Gate": true, "Overview": true, "Result": true, "Help": true, "Confirm": true, "Prompt": true}

// TestRootHandlesNoOverlayKeys: no method of the root model (App) reads an
// overlay's keys; each overlay handles its own (issue 17, "The structure
// to build toward"). It reads the package's source: a selector
// <x>.keys.<Group> or a KeyMap field of an overlay group inside a method
// whose receiver is *App is a failure. It also checks that App has no
// field holding an overlay's state outside the stack.
func TestRootHandlesNoOverlayKeys(t *testing.T) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*ast.File{}
	for _, e := range entries {
		if name := e.Name(); strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			f, err := parser.ParseFile(fset, name, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files[name] = f
		}
	}
	methods := 0
	{
		for name, f := range files {
			for _, d := range f.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || fn.Recv == nil || len(fn.Recv.List) != 1 {
					continue
				}
				star, ok := fn.Recv.List[0].Type.(*ast.StarExpr)
				if !ok || star.X.(*ast.Ident).Name != "App" {
					continue
				}
				methods++
				ast.Inspect(fn.Body, func(n ast.Node) bool {
					sel, ok := n.(*ast.SelectorExpr)
					if !ok || !overlayKeyGroups[sel.Sel.Name] {
						return true
					}
					if inner, ok := sel.X.(*ast.SelectorExpr); ok && inner.Sel.Name == "keys" {
						t.Errorf("%s: (*App).%s reads the overlay keys keys.%s", name, fn.Name.Name, sel.Sel.Name)
					}
					return true
				})
			}
		}
	}
	if methods < 50 {
		t.Fatalf("found %d methods of *App: the check looks at the wrong thing", methods)
	}
	for _, f := range reflect.VisibleFields(reflect.TypeOf(App{})) {
		switch f.Type.String() {
		case "*tui.gateDialog", "*tui.overviewOverlay", "*tui.resultView", "*tui.helpOverlay", "*tui.confirmOverlay", "*tui.searchPrompt":
			t.Errorf("App.%s holds an overlay outside the stack", f.Name)
		}
	}
}

// bindings are every key.Binding of v (a KeyMap or one of its groups),
// with their field paths.
func bindings(v reflect.Value, path string, out map[string]key.Binding) {
	switch b := v.Interface().(type) {
	case key.Binding:
		out[path] = b
		return
	case []key.Binding:
		for i, x := range b {
			out[path+"["+string(rune('0'+i))+"]"] = x
		}
		return
	}
	if v.Kind() != reflect.Struct {
		return
	}
	for i := range v.NumField() {
		if v.Type().Field(i).Name == "Edit" {
			continue // textinput's own key map: its one row is checked below
		}
		bindings(v.Field(i), path+"."+v.Type().Field(i).Name, out)
	}
}

// TestHelpIsTheKeyMap: the help overlay is generated from the KeyMap:
// every binding with help text has its row, and every row is a binding's.
func TestHelpIsTheKeyMap(t *testing.T) {
	for _, attached := range []bool{false, true} {
		km := NewKeyMap("C-a")
		all := map[string]key.Binding{}
		bindings(reflect.ValueOf(km), "KeyMap", all)
		all["KeyMap.Prompt.Edit.DeleteWordBackward"] = km.Prompt.Edit.DeleteWordBackward
		rows := map[helpRow]bool{}
		for _, s := range km.helpSections(attached) {
			for _, r := range s.rows {
				rows[r] = true
			}
		}
		listed := map[helpRow]bool{}
		for path, b := range all {
			h := b.Help()
			if h.Key == "" {
				continue
			}
			if !attached && (path == "KeyMap.Nav.Detach" || path == "KeyMap.Confirm.Detach" || path == "KeyMap.Confirm.EndRun") {
				continue // a standalone screen has nothing to detach from
			}
			if attached && path == "KeyMap.Confirm.Yes" {
				continue // an attached screen's q asks detach or end
			}
			found := false
			for r := range rows {
				if (r.keys == h.Key || strings.HasSuffix(r.keys, " "+h.Key)) && (r.desc == h.Desc || path == "KeyMap.Nav.Quit") {
					found, listed[r] = true, true
				}
			}
			if !found {
				t.Errorf("attached=%v: %s (%q: %q) is not in the help", attached, path, h.Key, h.Desc)
			}
		}
		for r := range rows {
			if !listed[r] && r.desc != "detach or end the run" {
				t.Errorf("attached=%v: the help row %+v is no binding's", attached, r)
			}
		}
		if !rows[helpRow{"ctrl+a", "then one screen key"}] {
			t.Errorf("the help does not name the configured prefix")
		}
	}
}

// TestKeysOnlyFromKeyMap: no part of the screen matches a key by its
// name (`msg.String() == "pgup"`, a switch on it): keys are matched only
// through the KeyMap, so the help, generated from it, is the truth
// (issue 17). prefix.go is exempt: it turns a user's --prefix into the
// name the KeyMap is built with.
func TestKeysOnlyFromKeyMap(t *testing.T) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	isKeyName := func(e ast.Expr) bool {
		call, ok := e.(*ast.CallExpr)
		if !ok || len(call.Args) != 0 {
			return false
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "String" {
			return false
		}
		id, ok := sel.X.(*ast.Ident)
		return ok && (id.Name == "msg" || id.Name == "k" || id.Name == "key")
	}
	isLit := func(e ast.Expr) bool { l, ok := e.(*ast.BasicLit); return ok && l.Kind == token.STRING }
	files := 0
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || name == "prefix.go" {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files++
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BinaryExpr:
				if (n.Op == token.EQL || n.Op == token.NEQ) && ((isKeyName(n.X) && isLit(n.Y)) || (isKeyName(n.Y) && isLit(n.X))) {
					t.Errorf("%s: a key matched by its name, not through the KeyMap", fset.Position(n.Pos()))
				}
			case *ast.SwitchStmt:
				if n.Tag != nil && isKeyName(n.Tag) {
					t.Errorf("%s: a switch on a key's name, not the KeyMap", fset.Position(n.Pos()))
				}
			}
			return true
		})
	}
	if files < 30 {
		t.Fatalf("looked at %d files: the check looks at the wrong thing", files)
	}
}
