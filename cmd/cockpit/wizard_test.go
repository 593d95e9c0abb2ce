package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// wizardStep is one human action on the wizard's form: tmux key names, or
// literal text.
type wizardStep struct {
	keys []string
	text string
}

func k(keys ...string) wizardStep { return wizardStep{keys: keys} }
func typed(s string) wizardStep   { return wizardStep{text: s} }

func repeatKey(key string, n int) wizardStep {
	var ks []string
	for i := 0; i < n; i++ {
		ks = append(ks, key)
	}
	return wizardStep{keys: ks}
}

// wizardScripts are the three setups of workers/setup and tui/wizard, as keystrokes
// in a real terminal, with the answers file each must agree with.
var wizardScripts = []struct {
	name, answers string
	steps         []wizardStep
}{
	{"analysis", "analysis.json", []wizardStep{
		typed("ops-7"), k("Enter"), // task key
		k("Enter"),                       // group: ops, from the manifest
		repeatKey("Down", 9), k("Enter"), // feature-analysis
		k("Enter"), // related tasks: none
		typed("Map the vendor callback flow"), k("Enter"),
		k("Down", "Space", "Enter"),                  // claude off the roster
		k("Enter"), repeatKey("Down", 2), k("Enter"), // codex: gpt-6-astra
		typed("2"), k("Enter"), // analyser=2
		repeatKey("Down", 2), k("Enter"), // lead provider claude
		k("Enter"),                               // lead model opus
		k("g"), repeatKey("Down", 2), k("Enter"), // report language en
		k("Down", "Enter"), // save defaults: project
		k("Enter"),         // confirm
	}},
	{"implementation", "implementation.json", []wizardStep{
		typed("dev-10860"), k("Enter"),
		k("Enter"),                       // group billing
		k("Enter"),                       // implementation, from the ready pointer
		repeatKey("Down", 2), k("Enter"), // related: type them
		typed("dev-10001, ops-7"), k("Enter"),
		k("Enter"),                                   // no directive
		k("Space", "Enter"),                          // antigravity off
		k("Enter"), repeatKey("Down", 2), k("Enter"), // codex: gpt-6-astra
		k("Enter"),                       // role count: default
		k("Enter"),                       // lead: phase default
		repeatKey("Down", 2), k("Enter"), // executor: another provider, back to the roster
		k("Enter"),              // the roster as it was
		k("Enter", "Enter"),     // the models as they were
		k("Enter"),              // role count
		k("Enter"),              // lead
		k("Down", "Enter"),      // executor codex
		k("Up", "Enter"),        // gpt-6.1-sol: refused (split model)
		k("Down", "Enter"),      // gpt-6-astra
		k("g", "Down", "Enter"), // report language ko
		k("Enter"),              // save defaults: none
		k("Enter"),              // confirm
	}},
	{"group", "group.json", []wizardStep{
		typed("dev-10001"), k("Enter"),
		k("Enter"),
		repeatKey("Down", 7), k("Enter"), // improvement-discovery
		k("Down", "Enter"),           // all other tasks of the group
		k("Enter"),                   // no directive
		k("Enter"),                   // roster as is
		k("Enter", "Enter", "Enter"), // role models: defaults
		k("Enter"),                   // role count
		k("Enter"),                   // lead
		k("g", "Enter"),              // report language: phase default
		k("Enter"),                   // save defaults: none
		k("Enter"),                   // confirm
	}},
}

type wizardOutcome struct {
	Outcome struct {
		RenderArgv []string `json:"renderArgv"`
	} `json:"outcome"`
	Actions []map[string]string `json:"actions"`
}

// parseWizardJSON finds the outcome document in captured terminal text.
func parseWizardJSON(t *testing.T, text string) wizardOutcome {
	t.Helper()
	i := strings.Index(text, "{\n")
	j := strings.LastIndex(text, "\n}")
	if i < 0 || j < i {
		t.Fatalf("no JSON outcome in:\n%s", text)
	}
	var o wizardOutcome
	if err := json.Unmarshal([]byte(text[i:j+2]), &o); err != nil {
		t.Fatalf("outcome is not JSON: %v\n%s", err, text[i:j+2])
	}
	return o
}

// TestWizardInATerminal runs `cockpit wizard` in a real terminal, in Korean
// and in English, through three scripted setups, and checks that each ends
// with the same renderArgv and actions as `--answers` gives headless — and
// that the implementation run offers no executor outside the roster (its
// last choice goes back to the roster step) and shows the split-model
// refusal.
func TestWizardInATerminal(t *testing.T) {
	t.Parallel() // waits on other processes most of its time
	needTmux(t)
	src, _ := filepath.Abs("../../workers/setup/testdata")
	cfg := t.TempDir() // no user providers.json
	for _, lang := range []string{"ko", "en"} {
		for _, sc := range wizardScripts {
			t.Run(lang+"/"+sc.name, func(t *testing.T) {
				t.Parallel()
				project := filepath.Join(src, "project")
				answers := filepath.Join(src, "answers", sc.answers)
				env := []string{"XDG_CONFIG_HOME=" + cfg, "HOME=" + cfg, "NO_COLOR=1"}
				want := cockpit(t, project, env, "wizard", "--project-root", project, "--lang", lang, "--answers", answers, "--json")
				if want.code != 0 {
					t.Fatalf("wizard --answers: %s", want.stderr)
				}
				wantOut := parseWizardJSON(t, want.stdout)

				exit := exitFile(t)
				s := newTmux(t, 120, 40, nil, fmt.Sprintf("cd %s && env %s %s wizard --project-root %s --lang %s --json; echo $? > %s; sleep 600",
					project, strings.Join(env, " "), cockpitBin, project, lang, exit))
				s.waitScreen("the wizard", 15*time.Second, func(scr string) bool { return strings.TrimSpace(scr) != "" })
				sawBack, sawOutside, sawSplit := false, false, false
				// Act as a person does: one key, then look at the screen
				// until it has answered, then the next.
				act := func(send func()) {
					before := s.screen()
					send()
					s.settle(before)
					// Refusals wrap across lines: read the screen as one line.
					scr := strings.Join(strings.Fields(s.screen()), " ")
					sawOutside = sawOutside || strings.Contains(scr, "is not in this run's roster")
					sawBack = sawBack || strings.Contains(scr, "back to the worker roster") || strings.Contains(scr, "worker roster 로 돌아가기")
					sawSplit = sawSplit || strings.Contains(scr, "one worker id carries one model") || strings.Contains(scr, "하나의 worker id 는 하나의 모델만")
				}
				for _, st := range sc.steps {
					if st.text != "" {
						act(func() { s.typeText(st.text) })
						continue
					}
					for _, key := range st.keys {
						act(func() { s.keys(key) })
					}
				}
				if code := readExit(t, exit, 20*time.Second); code != "0" {
					t.Fatalf("wizard exited %s; screen:\n%s", code, s.screen())
				}
				hist, err := s.cmd("capture-pane", "-p", "-J", "-S", "-500", "-t", "0").Output()
				if err != nil {
					t.Fatal(err)
				}
				got := parseWizardJSON(t, string(hist))
				if !slices.Equal(got.Outcome.RenderArgv, wantOut.Outcome.RenderArgv) {
					t.Fatalf("renderArgv in the terminal:\n%q\nwith --answers:\n%q", got.Outcome.RenderArgv, wantOut.Outcome.RenderArgv)
				}
				if fmt.Sprint(got.Actions) != fmt.Sprint(wantOut.Actions) {
					t.Fatalf("actions %v, want %v", got.Actions, wantOut.Actions)
				}
				if sc.name == "implementation" && (sawOutside || !sawBack || !sawSplit) {
					t.Fatalf("implementation: an executor outside the roster offered or refused %v, the way back to the roster %v, the split refusal %v", sawOutside, sawBack, sawSplit)
				}
			})
		}
	}
}
