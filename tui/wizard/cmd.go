package wizard

import (
	"io"

	"github.com/okstra/cockpit/state"
)

// Main is the whole `cockpit wizard` command: with opts.AnswersFile it runs
// headless (Run); otherwise it needs a terminal (tty) and runs the form
// (RunTUI) on in and out. It then prints the outcome to out — the summary in
// the wizard's language, or the JSON document with opts.JSON.
func Main(opts Options, in io.Reader, out io.Writer, tty bool) error {
	var o *Outcome
	var err error
	if opts.AnswersFile != "" {
		o, err = Run(opts)
	} else {
		if !tty {
			return &state.Error{Field: "--answers", Msg: "is required when stdin or stdout is not a terminal; pass a JSON file of answers (docs/WIZARD.md)"}
		}
		o, err = RunTUI(opts, in, out)
	}
	if err != nil {
		return err
	}
	text, err := Render(o, o.Lang, opts.JSON)
	if err != nil {
		return err
	}
	_, err = io.WriteString(out, text)
	return err
}
