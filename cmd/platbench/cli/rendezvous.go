package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/platbench/platbench/bench"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/merge"
	"github.com/platbench/platbench/merge/rendezvous"
	"github.com/platbench/platbench/result"
)

// rendezvousFlags: --rendezvous HOST:PORT makes a sharded run start when
// every loader has loaded, and brings every loader's result to loader 0,
// which writes the merged result (package merge/rendezvous).
type rendezvousFlags struct {
	addr       string
	timeout    time.Duration
	secretFile string
	maxMessage units.Size
}

func (f *rendezvousFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.addr, "rendezvous", "", "HOST:PORT of loader 0 of a --shard run: loaders start the run phase together once all have loaded, and loader 0 collects and merges every result (no shared volume); loader 0 listens on PORT")
	fs.DurationVar(&f.timeout, "rendezvous-timeout", 30*time.Minute, "how long loader 0 waits for the others to load, and for their results")
	fs.StringVar(&f.secretFile, "rendezvous-secret-file", "", "a file whose first line is the run's secret (at least 16 bytes), the same on every loader: a connection that cannot prove it is refused (default: $"+envRendezvous+"; platbench k8s makes one)")
	f.maxMessage = rendezvous.DefaultMaxMessage
	fs.Var(&f.maxMessage, "rendezvous-max-message", "the largest result loader 0 accepts from a loader, a `size` in bytes")
}

// options reads the run's secret: from the file, else the environment.
func (f *rendezvousFlags) options(log io.Writer) (rendezvous.Options, error) {
	secret := os.Getenv(envRendezvous)
	if f.secretFile != "" {
		s, err := readSecretFile(f.secretFile)
		if err != nil {
			return rendezvous.Options{}, usagef("--rendezvous-secret-file: %v", err)
		}
		secret = s
	}
	if secret == "" {
		return rendezvous.Options{}, usagef("--rendezvous needs the run's secret, the same on every loader (fix: head -c 32 /dev/urandom | base64 > secret, then --rendezvous-secret-file secret on every loader, or $%s)", envRendezvous)
	}
	if len(secret) < rendezvous.MinSecret {
		return rendezvous.Options{}, usagef("the run's secret is %d bytes, under %d (fix: head -c 32 /dev/urandom | base64 > secret)", len(secret), rendezvous.MinSecret)
	}
	if f.maxMessage < 1<<20 || f.maxMessage > 1<<40 {
		return rendezvous.Options{}, usagef("--rendezvous-max-message %v is outside 1MiB..1TiB (fix: e.g. 1GiB; a result of an hour's run is tens of MB)", f.maxMessage)
	}
	return rendezvous.Options{Secret: []byte(secret), MaxMessage: int(f.maxMessage),
		Log: func(s string) { fmt.Fprintln(log, s) }}, nil
}

// distributed is one loader's part in a rendezvous.
type distributed struct {
	f     rendezvousFlags
	shard int
	coord *rendezvous.Coordinator
	peer  *rendezvous.Peer
	// journal is this loader's (its seconds go to loader 0 after its
	// result); out where its result goes (loader 0 keeps the others'
	// seconds beside it: loaderSeconds).
	journal *result.Journal
	out     string
	merged  bool // loader 0 made the merged result
}

// keepAs names where this loader keeps its seconds once its result is
// written: beside it, or, for loader 0 once its result is the merged one,
// as loader 0's among the others' (the merged result has no seconds file
// of its own: a later reader would take one loader's seconds for all).
func (d *distributed) keepAs(out string) func() string {
	return func() string {
		if d != nil && d.merged {
			return d.loaderSeconds(0)
		}
		return result.SecondsPath(out)
	}
}

// useJournal tells the loader where its seconds are and its result goes.
func (d *distributed) useJournal(j *result.Journal, out string) {
	if d != nil {
		d.journal, d.out = j, out
	}
}

// loaderSeconds is where loader 0 keeps loader shard's seconds: beside the
// merged result (RESULT.loader-N.seconds.jsonl.zst), or, with --out -, beside
// its own temporary journal (removed with it).
func (d *distributed) loaderSeconds(shard int) string {
	name := fmt.Sprintf("loader-%d.seconds.jsonl.zst", shard)
	if d.out == "-" || d.out == "" {
		return filepath.Join(filepath.Dir(d.journal.Path()), name)
	}
	return strings.TrimSuffix(d.out, filepath.Ext(d.out)) + "." + name
}

// setupRendezvous checks the flags against cfg and, for loader 0, listens at
// once (a port in use is found before the load phase); it sets cfg.Gate.
func setupRendezvous(f rendezvousFlags, cfg *bench.Config, log io.Writer) (*distributed, error) {
	if f.addr == "" {
		return nil, nil
	}
	host, port, err := net.SplitHostPort(f.addr)
	switch {
	case err != nil || port == "":
		return nil, usagef("--rendezvous %q is not HOST:PORT (fix: loader 0's address, e.g. platbench-0.platbench:7070)", f.addr)
	case cfg.Shards < 2:
		return nil, usagef("--rendezvous needs --shard i/N with N > 1 (fix: e.g. --shard 0/3 on loader 0)")
	case !cfg.StartAt.IsZero():
		return nil, usagef("--rendezvous and --start-at both set the start (fix: drop --start-at)")
	case !cfg.Run:
		return nil, usagef("--rendezvous starts a run phase: it does not go with load alone")
	}
	opt, err := f.options(log)
	if err != nil {
		return nil, err
	}
	d := &distributed{f: f, shard: cfg.Shard}
	version := ToolVersion()
	if cfg.Shard == 0 {
		addr, note := listenAddr(host, port)
		if note != "" {
			opt.Log(note)
		}
		if d.coord, err = rendezvous.Listen(addr, cfg.Shards, version, opt); err != nil {
			return nil, err
		}
	}
	cfg.Gate = func(ctx context.Context) (time.Time, error) {
		ctx, cancel := context.WithTimeout(ctx, f.timeout)
		defer cancel()
		if d.coord != nil {
			return d.coord.Ready(ctx)
		}
		p, err := rendezvous.Dial(ctx, f.addr, cfg.Shard, cfg.Shards, version, opt)
		if err != nil {
			return time.Time{}, err
		}
		d.peer = p
		return p.Start(ctx)
	}
	return d, nil
}

// listenAddr is where loader 0 listens for --rendezvous HOST:PORT: HOST
// itself when it is an address or a name of this machine's (127.0.0.1 is
// not every address); every address when HOST is empty, a wildcard, or a
// name that does not resolve to this machine yet (a Kubernetes pod's name,
// published once the pod runs), said in note.
func listenAddr(host, port string) (addr, note string) {
	all := ":" + port
	if host == "" || host == "*" {
		return all, ""
	}
	if ip := net.ParseIP(strings.Trim(host, "[]")); ip != nil {
		return net.JoinHostPort(ip.String(), port), ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	ips, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	local := localIPs()
	for _, ip := range ips {
		if local[ip.IP.String()] {
			return net.JoinHostPort(ip.IP.String(), port), ""
		}
	}
	why := "is not an address of this machine"
	if err != nil || len(ips) == 0 {
		why = "does not resolve yet"
	}
	return all, fmt.Sprintf("rendezvous: %s %s: listening on every address of port %s", host, why, port)
}

// localIPs are this machine's interface addresses.
func localIPs() map[string]bool {
	out := map[string]bool{}
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			out[n.IP.String()] = true
		}
	}
	return out
}

// finish hands this loader's outcome over: a peer sends it to loader 0 and
// keeps its own result; loader 0 collects the others' and returns the
// merged result (the parts that arrived, with an error naming the others).
func (d *distributed) finish(ctx context.Context, r *result.Result, runErr error) (*result.Result, error) {
	if d == nil {
		return r, runErr
	}
	if d.peer != nil {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		seconds := ""
		if d.journal != nil {
			seconds = d.journal.Path() // the journal, whole: the run ended
		}
		if err := d.peer.Send(ctx, r, runErr, seconds); err != nil && runErr == nil {
			return r, err
		}
		return r, runErr
	}
	if d.coord == nil {
		return r, runErr
	}
	defer d.coord.Close()
	if runErr != nil {
		return r, runErr
	}
	ctx, cancel := context.WithTimeout(ctx, d.f.timeout)
	defer cancel()
	var keep func(int) string
	if d.journal != nil {
		keep = d.loaderSeconds
	}
	parts, collectErr := d.coord.Collect(ctx, r, keep)
	merged, err := merge.Merge(parts, nil)
	if err != nil {
		return r, errors.Join(fmt.Errorf("merging the loaders' results: %w", err), collectErr)
	}
	d.merged = true
	if collectErr != nil {
		merged.Notes = append(merged.Notes, fmt.Sprintf("merged from %d of the loaders: %v", len(parts), collectErr))
		return merged, fmt.Errorf("a loader's result is missing (the merged result holds the others): %w", collectErr)
	}
	return merged, nil
}
