package workers_test

// The wrapper reads the served model through workers/usage, which imports
// this package and registers its reader in its init (served.go). Linking
// it here puts it into the test binary, which plays the wrapper
// (main_test.go's TestMain), as the cockpit binary links it.
import _ "github.com/okstra/cockpit/workers/usage"
