package workers

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/okstra/cockpit/state"
)

type budget struct {
	seconds int
	source  string
}

func budgetOf(c *Catalog, role string) budget {
	s, src := c.IdleBudget(role)
	return budget{s, src}
}

// Every canonical role has a catalog budget; aliases count as their role;
// an empty or unknown role gets the general one.
func TestIdleBudgetDefaults(t *testing.T) {
	c := BuiltinCatalog()
	want := map[string]int{
		"analyser": 1800, "critic": 1200, "designer": 1800, "planner": 1800,
		"implementer": 3600, "verifier": 2400, "report-writer": 1800,
		"translator": 900, "leader": 1800,
	}
	for _, role := range state.CanonicalRoles {
		if got := budgetOf(c, role); got != (budget{want[role], IdleFromCatalog}) {
			t.Errorf("IdleBudget(%q) = %v, want %d from the catalog", role, got, want[role])
		}
	}
	for role, w := range map[string]budget{
		"executor":     {3600, IdleFromCatalog},
		"Lead":         {1800, IdleFromCatalog},
		" verifier ":   {2400, IdleFromCatalog},
		"":             {1800, IdleFromCatalog},
		"bookkeeper":   {1800, IdleFromCatalog},
		"Codex worker": {1800, IdleFromCatalog},
	} {
		if got := budgetOf(c, role); got != w {
			t.Errorf("IdleBudget(%q) = %v, want %v", role, got, w)
		}
	}
	if c.IdleBudgetFile("implementer") != "" {
		t.Error("a catalog budget names a file")
	}
}

// providers.json's idleBudgets override per role, "default" covers every
// role without its own entry, 0 is no limit, and for one key the project's
// file wins over the user's.
func TestIdleBudgetOverrides(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	root := t.TempDir()
	user := writeProviders(t, filepath.Join(cfg, "cockpit", "providers.json"), `{"idleBudgets": {"implementer": 2400, "critic": 600, "executor": 2400}}`)
	_, err := LoadCatalog(root)
	if err == nil {
		t.Fatal("implementer and its alias executor twice were accepted")
	}
	if want := user + ": idleBudgets.implementer: is the role implementer a second time; give each role once"; err.Error() != want {
		t.Fatalf("error %q\nwant  %q", err, want)
	}
	writeProviders(t, user, `{"idleBudgets": {"implementer": 2400, "critic": 600, "$comment": "seconds"}}`)
	c, err := LoadCatalog(root)
	if err != nil {
		t.Fatal(err)
	}
	for role, w := range map[string]budget{
		"implementer": {2400, IdleFromProviders},
		"executor":    {2400, IdleFromProviders},
		"critic":      {600, IdleFromProviders},
		"analyser":    {1800, IdleFromCatalog},
		"":            {1800, IdleFromCatalog},
	} {
		if got := budgetOf(c, role); got != w {
			t.Errorf("user file only: IdleBudget(%q) = %v, want %v", role, got, w)
		}
	}
	if f := c.IdleBudgetFile("critic"); f != user {
		t.Errorf("IdleBudgetFile(critic) = %q, want %q", f, user)
	}
	// The project's file, with providers beside: its critic wins, its
	// default covers the roles without an entry, the user's implementer
	// stays.
	project := writeProviders(t, ProjectProvidersFile(root), `{"providers": {"kimi": {"displayLabel": "K"}}, "idleBudgets": {"critic": 0, "default": 900}}`)
	if c, err = LoadCatalog(root); err != nil {
		t.Fatal(err)
	}
	for role, w := range map[string]budget{
		"implementer": {2400, IdleFromProviders},
		"critic":      {0, IdleFromProviders},
		"analyser":    {900, IdleFromProviders},
		"translator":  {900, IdleFromProviders},
		"bookkeeper":  {900, IdleFromProviders},
		"":            {900, IdleFromProviders},
	} {
		if got := budgetOf(c, role); got != w {
			t.Errorf("both files: IdleBudget(%q) = %v, want %v", role, got, w)
		}
	}
	if c.IdleBudgetFile("critic") != project || c.IdleBudgetFile("implementer") != user || c.IdleBudgetFile("analyser") != project {
		t.Errorf("files: critic %q implementer %q analyser %q", c.IdleBudgetFile("critic"), c.IdleBudgetFile("implementer"), c.IdleBudgetFile("analyser"))
	}
	if mustProvider(t, c, "kimi").DisplayLabel != "K" {
		t.Error("the providers beside idleBudgets were not applied")
	}
}

func TestIdleBudgetErrors(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, tc := range []struct{ name, json, want string }{
		{"not an object", `{"idleBudgets": [900]}`, "idleBudgets: is an array of 1; expected an object"},
		{"string", `{"idleBudgets": {"implementer": "40m"}}`, "idleBudgets.implementer: is a string; expected whole seconds, 0 for no limit"},
		{"null", `{"idleBudgets": {"critic": null}}`, "idleBudgets.critic: is null; expected whole seconds, 0 for no limit"},
		{"fraction", `{"idleBudgets": {"critic": 1.5}}`, "idleBudgets.critic: is 1.5; expected whole seconds, 0 for no limit"},
		{"exponent", `{"idleBudgets": {"critic": 1e3}}`, "idleBudgets.critic: is 1e3; expected whole seconds, 0 for no limit"},
		{"negative", `{"idleBudgets": {"verifier": -1}}`, "idleBudgets.verifier: is negative; expected whole seconds, 0 for no limit"},
		{"too long", `{"idleBudgets": {"verifier": 604801}}`, "idleBudgets.verifier: is 604801; expected at most 604800 seconds (a week), or 0 for no limit"},
		{"overflow", `{"idleBudgets": {"verifier": 99999999999999999999}}`, "idleBudgets.verifier: is 99999999999999999999; expected at most 604800 seconds (a week), or 0 for no limit"},
		{"unknown role", `{"idleBudgets": {"implementor": 900}}`, `idleBudgets.implementor: unknown role "implementor" (known: leader, analyser, critic, designer, planner, implementer, verifier, report-writer, translator; aliases lead, executor), or default`},
		{"alias twice", `{"idleBudgets": {"lead": 900, "leader": 600}}`, "idleBudgets.leader: is the role leader a second time; give each role once"},
		{"bad provider beside", `{"idleBudgets": {"critic": 600}, "providers": {"codex": {"argv": []}}}`, "providers.codex.argv: is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			file := writeProviders(t, ProjectProvidersFile(root), tc.json)
			_, err := LoadCatalog(root)
			if err == nil {
				t.Fatal("LoadCatalog accepted a bad idleBudgets")
			}
			if want := file + ": " + tc.want; !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("error %q\nwant  %q", err, want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q is not one line", err)
			}
		})
	}
}

// A file that fails leaves the catalog as it was: its valid idleBudgets are
// not half-applied.
func TestIdleBudgetsOfARefusedFileDoNotApply(t *testing.T) {
	c := BuiltinCatalog()
	err := c.apply("p.json", []byte(`{"idleBudgets": {"critic": 5}, "providers": {"codex": {"argv": []}}}`))
	if err == nil {
		t.Fatal("accepted")
	}
	if got := budgetOf(c, "critic"); got != (budget{1200, IdleFromCatalog}) {
		t.Fatalf("critic = %v after a refused file", got)
	}
}
