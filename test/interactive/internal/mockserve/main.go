// Command mockserve serves internal/mockllm on 127.0.0.1 for recording the
// real CLIs by hand (test/interactive's record script): it prints the
// mock's URL and a home directory set up for every CLI (internal/realcli),
// then serves until killed or its lifetime ends.
//
//	go run ./test/interactive/internal/mockserve -home /tmp/clihome
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/okstra/cockpit/internal/mockllm"
	"github.com/okstra/cockpit/internal/realcli"
)

func main() {
	home := flag.String("home", "", "make this directory a home for the real CLIs, talking to the mock")
	life := flag.Duration("lifetime", 30*time.Minute, "end after this long")
	trace := flag.Bool("trace", false, "a line per request on stderr")
	flag.Parse()
	opts := mockllm.Options{Lifetime: *life, MaxRequests: 5000}
	if *trace {
		opts.Trace = os.Stderr
	}
	srv, err := mockllm.Start(opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mockserve:", err)
		os.Exit(1)
	}
	defer srv.Close()
	fmt.Println(srv.URL())
	if *home != "" {
		h, err := realcli.NewHome(*home, srv.URL(), "")
		if err != nil {
			fmt.Fprintln(os.Stderr, "mockserve:", err)
			os.Exit(1)
		}
		for _, kv := range h.Vars() {
			fmt.Println(kv)
		}
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	select {
	case <-sigs:
	case <-srv.Done():
	}
}
