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
		Long: `wizard asks what okstra's render-bundle needs to set up a task and prints
outcome.renderArgv (the tokens in order; empty strings mean "use the phase
default") and actions[], as JSON with --json or as a summary. --answers runs it
without a form from a JSON file of answers (docs/WIZARD.md). The language comes
from --lang or LANG.`,
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
