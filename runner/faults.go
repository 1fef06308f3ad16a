package runner

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"github.com/platbench/platbench/internal/units"
)

// ParseEvent parses a fault event: "OFFSET:KIND:ARG", where KIND is exec
// (ARG is a shell command), kill, stop or cont (ARG is a process id), e.g.
// "60s:exec:systemctl stop cassandra", "30s:kill:4242", "45s:stop:4242".
func ParseEvent(s string) (Event, error) {
	at, rest, ok1 := strings.Cut(s, ":")
	kind, arg, ok2 := strings.Cut(rest, ":")
	if !ok1 || !ok2 || arg == "" {
		return Event{}, fmt.Errorf("bad event %q: use OFFSET:KIND:ARG, e.g. 60s:exec:\"CMD\" or 30s:kill:PID", s)
	}
	d, err := units.ParseDuration(at)
	if err != nil {
		return Event{}, fmt.Errorf("bad event %q: the offset %w", s, err)
	}
	ev := Event{At: d, Kind: kind, Arg: arg}
	switch kind {
	case "exec":
		ev.Do = func(ctx context.Context) (string, error) {
			out, err := exec.CommandContext(ctx, "sh", "-c", arg).CombinedOutput()
			o := strings.TrimSpace(string(out))
			if len(o) > 2000 {
				o = o[:2000] + "..."
			}
			return o, err
		}
	case "kill", "stop", "cont":
		pid, err := strconv.Atoi(arg)
		if err != nil || pid <= 1 {
			return Event{}, fmt.Errorf("bad event %q: %s takes a process id", s, kind)
		}
		sig := map[string]syscall.Signal{"kill": syscall.SIGKILL, "stop": syscall.SIGSTOP, "cont": syscall.SIGCONT}[kind]
		ev.Do = func(ctx context.Context) (string, error) {
			if err := syscall.Kill(pid, sig); err != nil {
				return "", fmt.Errorf("signal %s to pid %d: %w", sig, pid, err)
			}
			return fmt.Sprintf("sent %s to pid %d", sig, pid), nil
		}
	default:
		return Event{}, fmt.Errorf("bad event %q: kind %q is not one of exec, kill, stop, cont", s, kind)
	}
	return ev, nil
}
