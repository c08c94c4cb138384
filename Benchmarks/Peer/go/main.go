// Command navhost-peer-go serves the Products catalog screen's Send the way a Go author would serve it with the Go
// Varlink implementation (github.com/varlink/go, Debian's golang-github-varlink-go-dev), as a second peer to compare
// navhostd with (navhost-bench, phase go-peer; see BENCHMARKS.md). It does what Benchmarks/Peer/navhost_peer.py does,
// and that file's comment is the specification both follow:
//
//	navhost-peer-go unix:/tmp/peer.sock --state-dir /tmp/peer-state --session rt=products.list
//
// One goroutine per connection (the library's Service); a session's Sends hold its lock, and a Send that changes the
// screen's state saves the session durably (temporary file, fsync, rename, fsync of the folder) before it answers.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/varlink/go/varlink"
)

const (
	interfaceName = "io.navhost.Navigation"
	route         = "products.list"
	screenID      = "s1"
)

// MARK: - Options

type sessionFlags []string

func (s *sessionFlags) String() string     { return strings.Join(*s, ",") }
func (s *sessionFlags) Set(v string) error { *s = append(*s, v); return nil }

type options struct {
	address      string
	stateDir     string
	catalog      string
	interfaceDir string
	sessions     []string
}

func parseOptions() options {
	var o options
	var sessions sessionFlags
	repository := repositoryRoot()
	flag.StringVar(&o.stateDir, "state-dir", "", "where each state change is saved (fsync) before the reply")
	flag.StringVar(&o.catalog, "catalog", filepath.Join(repository, "Plugins/Products/Resources/products.json"),
		"the catalog file")
	flag.StringVar(&o.interfaceDir, "interface-dir", filepath.Join(repository, "Sources/NavHostWire/Interfaces"),
		"the folder of io.navhost.Navigation.varlink")
	flag.Var(&sessions, "session", "a session and its root route, NAME=products.list; repeat for more (default main)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: navhost-peer-go unix:/path/to/socket [--state-dir DIR] [--session NAME=ROUTE]...")
		flag.PrintDefaults()
	}
	// The address comes first, as the Python peer takes it; the flags follow it.
	if len(os.Args) < 2 || !strings.HasPrefix(os.Args[1], "unix:") {
		flag.Usage()
		os.Exit(2)
	}
	o.address = os.Args[1]
	if err := flag.CommandLine.Parse(os.Args[2:]); err != nil {
		os.Exit(2)
	}
	o.sessions = sessions
	if len(o.sessions) == 0 {
		o.sessions = []string{"main=" + route}
	}
	return o
}

// repositoryRoot is the checkout this file is in when the program runs from its build folder (.build/…), else ".".
func repositoryRoot() string {
	executable, err := os.Executable()
	if err != nil {
		return "."
	}
	for folder := filepath.Dir(executable); folder != "/"; folder = filepath.Dir(folder) {
		if _, err := os.Stat(filepath.Join(folder, "Benchmarks/Peer/go/main.go")); err == nil {
			return folder
		}
	}
	return "."
}

// MARK: - Main

func main() {
	o := parseOptions()
	products, err := loadCatalog(o.catalog)
	if err != nil {
		fail("reading the catalog: %v", err)
	}
	description, err := os.ReadFile(filepath.Join(o.interfaceDir, interfaceName+".varlink"))
	if err != nil {
		fail("reading the interface: %v", err)
	}
	if o.stateDir != "" {
		if err := os.MkdirAll(filepath.Join(o.stateDir, "sessions"), 0o700); err != nil {
			fail("making the state folder: %v", err)
		}
	}
	navigation := &navigationInterface{description: string(description), sessions: map[string]*session{}}
	for _, spec := range o.sessions {
		name, sessionRoute, _ := strings.Cut(spec, "=")
		if sessionRoute != route {
			fail("--session %s: the peer serves only %s", spec, route)
		}
		opened, err := openSession(name, products, o.stateDir)
		if err != nil {
			fail("opening session %s: %v", name, err)
		}
		navigation.sessions[name] = opened
	}

	service, err := varlink.NewService("NavHost", "navhost-peer-go", "1", "")
	if err != nil {
		fail("%v", err)
	}
	if err := service.RegisterInterface(navigation); err != nil {
		fail("%v", err)
	}
	// Said before the socket listens: the benchmark reads this line as soon as the socket accepts.
	fmt.Fprintf(os.Stderr, "navhost-peer-go (%s, varlink-go 0.4.0): serving %s\n", runtime.Version(), o.address)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-stop
		os.Exit(0)
	}()
	if err := service.Listen(context.Background(), o.address, 0); err != nil {
		fail("serving %s: %v", o.address, err)
	}
}

func fail(format string, arguments ...any) {
	fmt.Fprintf(os.Stderr, "navhost-peer-go: "+format+"\n", arguments...)
	os.Exit(1)
}
