// Package assets embeds the files the binary ships: JSON Schemas of the run
// files, the wizard prompts (ko, en) and the demo run.
package assets

import "embed"

// FS holds every embedded asset, addressed by its path under assets/.
//
//go:embed schemas prompts
var FS embed.FS
