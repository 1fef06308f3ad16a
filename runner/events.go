package runner

import (
	"context"
	"sync"
	"time"

	"github.com/platbench/platbench/recorder"
	"github.com/platbench/platbench/result"
)

// eventRun collects the outcome of the events of a phase.
type eventRun struct {
	wg  sync.WaitGroup
	mu  sync.Mutex
	out []result.Event
}

// startEvents schedules each event at its offset from the phase start.
// Events still pending when the phase ends do not run.
func startEvents(ctx context.Context, evs []Event, rec *recorder.Recorder) *eventRun {
	er := &eventRun{}
	for _, ev := range evs {
		er.wg.Add(1)
		go func(ev Event) {
			defer er.wg.Done()
			t := time.NewTimer(ev.At)
			defer t.Stop()
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			at := rec.Now()
			out, err := ev.Do(ctx)
			re := result.Event{AtNs: at, Kind: ev.Kind, Arg: ev.Arg, Output: out}
			if err != nil {
				re.Error = err.Error()
			}
			er.mu.Lock()
			er.out = append(er.out, re)
			er.mu.Unlock()
		}(ev)
	}
	return er
}

func (er *eventRun) wait() []result.Event {
	er.wg.Wait()
	return er.out
}
