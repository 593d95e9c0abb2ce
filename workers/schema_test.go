package workers

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/okstra/cockpit/assets"
)

// Issue 20: a providers.json's shape is its schema's
// (assets/schemas/providers.schema.json), and the schema's complaint is
// one line naming the file, the JSON path and what to do; what a schema
// cannot say stays by hand (TestOverridesErrors, TestIdleBudgetErrors).
func TestProvidersShapeComesFromItsSchema(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, c := range []struct{ doc, want string }{
		{`{}`, `providers: is missing; the file holds {"providers": {<id>: {...}}}`},
		{`{"$comment": "x"}`, `providers: is missing; the file holds {"providers": {<id>: {...}}}`},
		{`{"providers": {"my agent": {}}}`, `providers.my agent: is not a usable provider id; use a short name such as "my-agent"`},
		{`{"providers": {"a/b": {}}}`, `providers.a/b: is not a usable provider id; use a short name such as "my-agent"`},
		{`{"providers": {"codex": []}}`, `providers.codex: is an empty array; expected an object`},
		{`{"providers": {"codex": {"displayLabel": ""}}}`, `providers.codex.displayLabel: is empty`},
		{`{"providers": {"codex": {"displayLabel": 3}}}`, `providers.codex.displayLabel: is a number; expected a string`},
		{`{"providers": {"codex": {"promptOn": 1}}}`, `providers.codex.promptOn: is 1; expected "stdin", "file" or "argv"`},
		{`{"providers": {"codex": {"models": []}}}`, `providers.codex.models: is an empty array; expected an object`},
		{`{"providers": {"codex": {"models": {"": {}}}}}`, `providers.codex.models.: is not a model id; name the model`},
		{`{"providers": {"codex": {"models": {"m": "fast"}}}}`, `providers.codex.models.m: is a string; expected an object, or null to remove the row`},
		{`{"providers": {"codex": {"models": {"m": {"executionValue": ""}}}}}`, `providers.codex.models.m.executionValue: is empty`},
		{`{"providers": {"codex": {"models": {"m": {"pricing": [1, -0.5, 2]}}}}}`, `providers.codex.models.m.pricing[1]: is negative`},
		{`{"providers": {"codex": {"models": {"m": {"pricing": [1, "2", 3]}}}}}`, `providers.codex.models.m.pricing[1]: is a string; expected a number`},
		{`{"providers": {"codex": {"models": {"m": {"pricing": [1, 2, 3, 4]}}}}}`, `providers.codex.models.m.pricing: is an array of 4; expected [input, cachedInput, output] in USD per 1M tokens, or null`},
		{`{"providers": {"codex": {"models": {"m": {"pricing": {"input": 1}}}}}}`, `providers.codex.models.m.pricing: is an object; expected [input, cachedInput, output] in USD per 1M tokens, or null`},
		{`{"providers": {"codex": {"models": {"m": {"cliArgs": ["-c", 1]}}}}}`, `providers.codex.models.m.cliArgs[1]: is a number; expected a string`},
		{`{"providers": {"codex": {"defaultModels": {"analyser": 5}}}}`, `providers.codex.defaultModels.analyser: is a number; expected a string`},
		{`{"providers": {"codex": {"roles": "analyser"}}}`, `providers.codex.roles: is a string; expected an array of strings`},
		{`{"idleBudgets": {"critic": true}}`, `idleBudgets.critic: is a boolean; expected whole seconds, 0 for no limit`},
		// The first problem in the document is the one named.
		{`{"providers": {"codex": {"argv": [1], "roles": [2]}, "a": {"argv": "x"}}}`, `providers.a.argv: is a string; expected an array of strings`},
	} {
		root := t.TempDir()
		file := writeProviders(t, ProjectProvidersFile(root), c.doc)
		_, err := LoadCatalog(root)
		if err == nil || err.Error() != file+": "+c.want {
			t.Errorf("%s:\n got  %v\n want %s: %s", c.doc, err, file, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %q is not one line", c.doc, err)
		}
	}
}

// TestProvidersSchemaAgreesWithTheCatalog: the shipped schema is valid
// against its draft's metaschema (the catalog compiles it trusted), and
// the library, given it, refuses each document the catalog refuses for
// its shape and accepts every document the catalog accepts (docs'
// examples, $-keys anywhere): the catalog checks with the schema, not
// beside it.
func TestProvidersSchemaAgreesWithTheCatalog(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	data, err := assets.FS.ReadFile("schemas/providers.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("providers.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("providers.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	valid := func(s string) bool {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(s))
		if err != nil {
			t.Fatal(err)
		}
		return sch.Validate(v) == nil
	}
	loads := func(s string) bool {
		root := t.TempDir()
		writeProviders(t, ProjectProvidersFile(root), s)
		_, err := LoadCatalog(root)
		return err == nil
	}
	for _, s := range []string{
		`{"providers": {"codex": {"argv": "codex"}}}`,
		`{"providers": {"codex": {"models": {"m": {"pricing": [1, 2]}}}}}`,
		`{"providers": {"codex": {"models": {"m": {"price": 1}}}}}`,
		`{"providers": {"my agent": {"argv": ["a"], "models": {"m": {}}}}}`,
		`{"idleBudgets": {"critic": -1}}`,
		`{"idleBudgets": {"critic": 604801}}`,
		`{"provider": {}}`,
	} {
		if valid(s) || loads(s) {
			t.Errorf("%s: schema valid %v, catalog loads %v; want both to refuse it", s, valid(s), loads(s))
		}
	}
	// The documented examples (docs/WORKERS.md), and $-keys at every level.
	md, err := os.ReadFile(filepath.Join("..", "docs", "WORKERS.md"))
	if err != nil {
		t.Fatal(err)
	}
	examples := regexp.MustCompile("(?s)```json\n(\\{.*?)\n```").FindAllStringSubmatch(string(md), -1)
	var docs []string
	for _, m := range examples {
		if strings.Contains(m[1], `"providers"`) || strings.Contains(m[1], `"idleBudgets": {"`) {
			docs = append(docs, m[1])
		}
	}
	if len(docs) < 2 {
		t.Fatalf("found %d providers.json examples in docs/WORKERS.md, want the two", len(docs))
	}
	docs = append(docs, `{"$schema": "x", "providers": {"$c": 1, "codex": {"$c": 1, "models": {"$c": 1, "gpt-6-luna": {"$c": 1, "pricing": null}}, "defaultModels": {"$c": 1}}}, "idleBudgets": {"$c": "x", "critic": 0}}`)
	for _, s := range docs {
		if !valid(s) || !loads(s) {
			t.Errorf("%s: schema valid %v, catalog loads %v; want both to accept it", s, valid(s), loads(s))
		}
	}
}
