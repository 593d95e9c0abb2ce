package workers

import (
	"fmt"
	"slices"
	"strings"

	"github.com/okstra/cockpit/internal/lazyre"
)

// Vars are the values an argv template's placeholders expand to.
type Vars struct {
	// Model is the model execution value (or the row id) for {model}; the
	// row's CLI args become {modelArgs...}.
	Model string
	// ProjectRoot, PromptPath, Worktree and ResultPath are absolute paths.
	// Worktree is the directory the CLI runs in: the worktree when given,
	// else the project root.
	ProjectRoot string
	PromptPath  string
	Worktree    string
	ResultPath  string
	// Role is the canonical role, SessionID the session id of this run (the
	// dispatcher's, else one the wrapper issued).
	Role      string
	SessionID string
	// Prompt is the prompt's text, for {prompt}.
	Prompt string
	// AddDirs are the absolute write-scope directories other than the
	// project root, for {addDirArgs...}.
	AddDirs []string
}

// Placeholders an argv token may be. {modelArgs...} and {addDirArgs...}
// expand to zero or more tokens; every other placeholder to exactly one.
var placeholders = []string{
	"{model}", "{modelArgs...}", "{projectRoot}", "{promptPath}", "{promptFile}", "{prompt}",
	"{worktree}", "{resultPath}", "{role}", "{sessionId}", "{addDirArgs...}",
}

// MaxArgPrompt is the largest prompt {prompt} passes: Linux refuses a single
// argument longer than 128 KiB (MAX_ARG_STRLEN) with E2BIG.
const MaxArgPrompt = 128<<10 - 1

var placeholderRE = &lazyre.Regexp{Pattern: `\{[A-Za-z][A-Za-z0-9]*(\.\.\.)?\}`}

// checkCommand validates an argv template: a non-empty program and only
// known placeholders, each a whole token. promptOn file needs {promptPath}.
// The error names the offending token; the caller adds file and field.
func checkCommand(argv []string, promptOn string) error {
	if len(argv) == 0 {
		return fmt.Errorf("is empty; give the program and its arguments, e.g. [\"codex\", \"exec\", \"--model\", \"{model}\", \"-\"]")
	}
	if argv[0] == "" || placeholderRE.Get().MatchString(argv[0]) {
		return fmt.Errorf("[0] is %q; the first token must name the program", argv[0])
	}
	hasPrompt := false
	for i, tok := range argv {
		if slices.Contains(placeholders, tok) {
			switch tok {
			case "{promptPath}", "{promptFile}":
				hasPrompt = hasPrompt || promptOn == PromptOnFile
			case "{prompt}":
				hasPrompt = hasPrompt || promptOn == PromptOnArgv
			}
			continue
		}
		if placeholderRE.Get().MatchString(tok) && placeholderRE.Get().FindString(tok) == tok {
			return fmt.Errorf("[%d] is the unknown placeholder %s (known: %s)", i, tok, strings.Join(placeholders, " "))
		}
		for _, m := range placeholderRE.Get().FindAllString(tok, -1) {
			if slices.Contains(placeholders, m) {
				return fmt.Errorf("[%d] %q embeds %s in other text; a placeholder must be a whole argv token (write it as its own token)", i, tok, m)
			}
		}
	}
	if promptOn == PromptOnFile && !hasPrompt {
		return fmt.Errorf("has no {promptPath} token, but promptOn is \"file\"; the CLI would never see its prompt")
	}
	if promptOn == PromptOnArgv && !hasPrompt {
		return fmt.Errorf("has no {prompt} token, but promptOn is \"argv\"; the CLI would never see its prompt")
	}
	return nil
}

// Argv expands the provider's argv template with vars. No shell is involved:
// each token is one argument, and a placeholder token is replaced whole.
func (p *Provider) Argv(vars Vars) ([]string, error) {
	m, ok := p.Model(vars.Model)
	if !ok {
		return nil, fmt.Errorf("expand %s argv: unknown model %q (known: %s)", p.ID, vars.Model, strings.Join(p.modelIDs(), ", "))
	}
	if p.PromptOn() == PromptOnFile && vars.PromptPath == "" {
		return nil, fmt.Errorf("expand %s argv: the provider reads its prompt from a file but no prompt path was given", p.ID)
	}
	if slices.Contains(p.Command, "{prompt}") && len(vars.Prompt) > MaxArgPrompt {
		return nil, fmt.Errorf("expand %s argv: the prompt is %d bytes, more than the %d one argument can hold ({prompt}); give the provider promptOn \"file\" or \"stdin\" in providers.json", p.ID, len(vars.Prompt), MaxArgPrompt)
	}
	out := make([]string, 0, len(p.Command)+len(m.CLIArgs))
	for _, tok := range p.Command {
		switch tok {
		case "{model}":
			out = append(out, m.ExecutionValue)
		case "{modelArgs...}":
			out = append(out, m.CLIArgs...)
		case "{projectRoot}":
			out = append(out, vars.ProjectRoot)
		case "{promptPath}", "{promptFile}":
			out = append(out, vars.PromptPath)
		case "{prompt}":
			out = append(out, vars.Prompt)
		case "{addDirArgs...}":
			for _, d := range vars.AddDirs {
				out = append(out, "--add-dir", d)
			}
		case "{worktree}":
			wt := vars.Worktree
			if wt == "" {
				wt = vars.ProjectRoot
			}
			out = append(out, wt)
		case "{resultPath}":
			out = append(out, vars.ResultPath)
		case "{role}":
			out = append(out, vars.Role)
		case "{sessionId}":
			out = append(out, vars.SessionID)
		default:
			out = append(out, tok)
		}
	}
	return out, nil
}
