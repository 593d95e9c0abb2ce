package main

import (
	"context"
	"errors"
	"io"

	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/state"
	"github.com/okstra/cockpit/tui/wizard"
	"github.com/okstra/cockpit/workers/setup"
)

// WizardOptions are the flags of `wizard`.
type WizardOptions struct {
	IO  *IOStreams
	Ctx context.Context
	setup.Options
}

// NewCmdWizard parses `wizard`; runF (wizardRun when nil) does it.
func NewCmdWizard(f *Factory, runF func(*WizardOptions) error) *cobra.Command {
	if runF == nil {
		runF = wizardRun
	}
	o := &WizardOptions{IO: f.IO, Options: setup.Options{Getenv: f.Getenv}}
	cmd := &cobra.Command{
		Use:   "wizard [--project-root <dir>] [--lang ko|en] [--answers <file>] [--json]",
		Short: "Set up an okstra task: task type, related tasks, roles and models (Korean or English)",
		Long: `wizard asks, step by step, how to set up a task of this project for okstra:
the task key and group, the task type (the one the task's last run points at
comes first), related tasks, a directive, the worker roster, their models and
counts, the lead, the executor of an implementation, the report language, and
whether to save some answers as defaults. enter answers a step, esc goes back,
ctrl+c quits without setting anything up.

It writes nothing and runs nothing. At the end it shows your answers and the
okstra render-bundle command that carries them (and, to save defaults, the
okstra config set commands): your lead agent runs them to set the task up, or
you copy and run them yourself. --json prints the same as one JSON document
for a lead (docs/WIZARD.md). --answers <file> answers from a JSON file instead
of the form, for scripts. The wizard speaks Korean or English: --lang, else
your LC_ALL, LC_MESSAGES or LANG.`,
		Example: `  cockpit wizard
  cockpit wizard --lang ko
  cockpit wizard --answers answers.json --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Ctx = cmd.Context()
			return runF(o)
		},
	}
	addProjectRootFlag(f, cmd, &o.ProjectRoot, "the project whose .okstra/tasks the wizard reads")
	enumVar(cmd, &o.Lang, "lang", "", "the wizard's language: ko or en, or a locale such as ko_KR.UTF-8 (default from LC_ALL, LC_MESSAGES or LANG)",
		func(v string) bool { _, err := setup.DetectLang(v, nil); return err == nil }, "ko", "en")
	cmd.Flags().StringVar(&o.AnswersFile, "answers", "", "a JSON file of answers: run without the form")
	addJSONFlag(cmd, &o.JSON)
	return cmd
}

// wizardRun runs the wizard headless from --answers (workers/setup, no
// form), or as the form on a terminal (tui/wizard), then prints the
// outcome: the summary in the wizard's language, or the JSON document with
// --json. Quitting the form is the cancelled exit.
func wizardRun(o *WizardOptions) error {
	var out *setup.Outcome
	var err error
	switch {
	case o.AnswersFile != "":
		out, err = setup.Run(o.Options)
	case !o.IO.IsStdinTTY() || !o.IO.IsStdoutTTY():
		return &state.Error{Field: "--answers", Msg: "is required when stdin or stdout is not a terminal; pass a JSON file of answers (docs/WIZARD.md)"}
	default:
		out, err = wizard.RunTUI(wizard.Options{Options: o.Options, Ctx: o.Ctx}, o.IO.In, o.IO.Out)
	}
	if errors.Is(err, wizard.ErrAborted) {
		return &codedError{code: exitCancelled, err: err}
	}
	if err != nil {
		return err
	}
	text, err := setup.Render(out, out.Lang, o.JSON)
	if err != nil {
		return err
	}
	_, err = io.WriteString(o.IO.Out, text)
	return err
}
