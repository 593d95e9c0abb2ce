package main

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestFlagHelpLines checks every flag of every command as help prints it:
// pflag takes a back-quoted word of the usage as the value's name, so a
// quoted command in a usage becomes "--jobs-file okstra agent-prompt jobs";
// and a usage that says its default itself must not get pflag's
// "(default ...)" a second time, with the environment set or not.
func TestFlagHelpLines(t *testing.T) {
	for _, env := range []map[string]string{
		nil,
		{envProjectRoot: "/p", envRunManifest: "m.json", "COCKPIT_PREFIX": "ctrl+a"},
	} {
		var walk func(c *cobra.Command)
		walk = func(c *cobra.Command) {
			c.Flags().VisitAll(func(fl *pflag.Flag) {
				name, usage := pflag.UnquoteUsage(fl)
				if strings.ContainsAny(name, " \t") {
					t.Errorf("%s --%s: help names its value %q (a back-quoted phrase in the usage)", c.CommandPath(), fl.Name, name)
				}
				zero := fl.DefValue == "" || fl.DefValue == "false" || fl.DefValue == "0" || fl.DefValue == "[]" || fl.DefValue == "0s"
				if strings.Contains(usage, "(default") && !zero {
					t.Errorf("%s --%s: usage %q says its default and pflag adds (default %q)", c.CommandPath(), fl.Name, usage, fl.DefValue)
				}
			})
			for _, sub := range c.Commands() {
				walk(sub)
			}
		}
		walk(newRootCmd(testFactory(env)))
	}
}

func TestVersionOf(t *testing.T) {
	set := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i+1 < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	for _, c := range []struct {
		main     string
		settings []debug.BuildSetting
		want     string
	}{
		{"v1.4.0", set("vcs.revision", "0123456789abcdef0123", "vcs.modified", "true"), "v1.4.0"},
		{"(devel)", set("vcs.revision", "0123456789abcdef0123", "vcs.modified", "false"), "0123456789ab"},
		{"", set("vcs.revision", "0123456789abcdef0123", "vcs.modified", "true"), "0123456789ab-dirty"},
		{"(devel)", nil, "(devel)"},
	} {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/okstra/cockpit", Version: c.main}, Settings: c.settings}
		if got := versionOf(bi); got != c.want {
			t.Errorf("versionOf(%q, %v) = %q, want %q", c.main, c.settings, got, c.want)
		}
	}
	// Main: the flag prints one line, to stdout.
	var out, errw strings.Builder
	if code := Main([]string{"--version"}, strings.NewReader(""), &out, &errw); code != 0 || out.String() != "cockpit "+version()+"\n" || errw.Len() != 0 {
		t.Fatalf("cockpit --version: exit %d, stdout %q, stderr %q", code, out.String(), errw.String())
	}
}
