package runner

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseEvent(t *testing.T) {
	ev, err := ParseEvent("60s:exec:echo hello: world")
	if err != nil || ev.At != time.Minute || ev.Kind != "exec" || ev.Arg != "echo hello: world" {
		t.Fatalf("ParseEvent = %+v, %v", ev, err)
	}
	out, err := ev.Do(context.Background())
	if err != nil || out != "hello: world" {
		t.Errorf("exec output %q, %v", out, err)
	}
	for _, bad := range []string{"", "60s", "60s:exec:", "soon:kill:1", "-1s:kill:12", "1s:kill:me", "1s:kill:1", "1s:explode:12"} {
		if _, err := ParseEvent(bad); err == nil {
			t.Errorf("ParseEvent(%q) accepted", bad)
		}
	}
}

// stop and cont really signal the process.
func TestStopContSignalProcess(t *testing.T) {
	c := exec.Command("sleep", "30")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer c.Process.Kill()
	pid := strconv.Itoa(c.Process.Pid)
	stateOf := func() string {
		out, _ := exec.Command("ps", "-o", "stat=", "-p", pid).Output()
		return strings.TrimSpace(string(out))
	}
	for _, step := range []struct{ kind, want string }{{"stop", "T"}, {"cont", "S"}} {
		ev, err := ParseEvent("0s:" + step.kind + ":" + pid)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ev.Do(context.Background()); err != nil {
			t.Fatal(err)
		}
		// The signal is delivered asynchronously: wait for the state to
		// change (the event), not for a fixed time; a minute is far past any
		// delivery, and only a signal that never lands fails.
		s := stateOf()
		for deadline := time.Now().Add(time.Minute); !strings.HasPrefix(s, step.want) && time.Now().Before(deadline); s = stateOf() {
			time.Sleep(10 * time.Millisecond)
		}
		if !strings.HasPrefix(s, step.want) {
			t.Errorf("after %s the process state is %q, want %s", step.kind, s, step.want)
		}
	}
}
