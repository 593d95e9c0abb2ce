// Command fakeprovider is internal/fakeprovider as a program of its own:
// the fake worker CLI, for a test or a person that wants it on a PATH
// without a test binary (`go build -o <dir>/codex ./testdata/fakeprovider`;
// the name it is installed under says which CLI it plays). Tests need no
// build: internal/fixture.FakeBin installs the test binary itself under the
// CLIs' names.
package main

import (
	"os"

	"github.com/okstra/cockpit/internal/fakeprovider"
)

func main() { os.Exit(fakeprovider.Main(os.Args)) }
