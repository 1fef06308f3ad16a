package redis

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/platbench/platbench/runner"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// templateSpec is a workload of command templates over records keys whose
// names start with prefix; sha is the loaded script's (INCRBY KEYS[1] 2).
func templateSpec(prefix, sha string, records uint64) *workload.Spec {
	s := &workload.Spec{Name: "templates", Records: records, FieldCount: 1, FieldLength: 16, KeyPrefix: prefix, Distribution: workload.DistUniform,
		Commands: []workload.Command{
			{Command: "LPUSH list:__key__ __data__", Weight: 2},
			{Name: "zadd", Command: "ZADD zset:__key__ __score__ __member__"},
			{Command: "XADD stream:__key__ * f __data__"},
			{Name: "hincr", Command: "HINCRBY hash:__key__ f 1"},
			{Command: "EVALSHA " + sha + " 1 ctr:__key__"},
		}}
	s.EnsureDefaults()
	return s
}

func loadScript(t *testing.T, raw string) string {
	t.Helper()
	sha, err := verifier(t, raw).ScriptLoad(context.Background(), "return redis.call('INCRBY', KEYS[1], 2)").Result()
	if err != nil {
		t.Fatal(err)
	}
	return sha
}

// Each template runs as its own operation, and what it did is there: the
// lists, sorted sets, streams, hash fields and script counters, read back
// with separate commands, add up to the operations counted.
func TestTemplatesEffects(t *testing.T) {
	raw := serverURL(t, "PLATBENCH_REDIS_URL")
	v := verifier(t, raw)
	ctx := context.Background()
	sha := loadScript(t, raw)
	for _, opts := range []map[string]string{{}, {"pipeline": "8"}} {
		prefix := "tpl" + opts["pipeline"] + uniq + "-"
		s := templateSpec(prefix, sha, 30)
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		tg := open(t, raw, opts)
		if err := tg.Setup(ctx, s); err != nil {
			t.Fatal(err)
		}
		ks := workload.NewKeyspace(s, 0, 1)
		p, _, err := runner.Run(ctx, tg, s, ks, runner.Config{Ops: 3001, Concurrency: 16})
		if err != nil {
			t.Fatal(err)
		}
		count := map[string]int64{}
		var total int64
		for _, o := range p.Ops {
			if len(o.Errors) > 0 {
				t.Errorf("%v: %s errors %v", opts, o.Op, o.Errors)
			}
			op, _ := vocab.ParseOp(o.Op)
			count[s.OpName(op)] = int64(o.Count)
			total += int64(o.Count)
		}
		if total != 3001 || len(count) != 5 {
			t.Fatalf("%v: %d ops over %v, want 3001 over the 5 templates", opts, total, count)
		}
		var lists, zsets, streams, hincr, ctr int64
		var keys []string
		for k := range uint64(30) {
			key := s.KeyName(k)
			lists += v.LLen(ctx, "list:"+key).Val()
			if vals := v.LRange(ctx, "list:"+key, 0, 0).Val(); len(vals) == 1 && len(vals[0]) != 16 {
				t.Errorf("list:%s holds a %d-byte value, want 16 (the workload's record size)", key, len(vals[0]))
			}
			zsets += v.ZCard(ctx, "zset:"+key).Val()
			streams += v.XLen(ctx, "stream:"+key).Val()
			n, _ := strconv.ParseInt(v.HGet(ctx, "hash:"+key, "f").Val(), 10, 64)
			hincr += n
			n, _ = strconv.ParseInt(v.Get(ctx, "ctr:"+key).Val(), 10, 64)
			ctr += n
			keys = append(keys, "list:"+key, "zset:"+key, "stream:"+key, "hash:"+key, "ctr:"+key)
		}
		if lists != count["lpush"] || zsets != count["zadd"] || streams != count["xadd"] || hincr != count["hincr"] || ctr != 2*count["evalsha"] {
			t.Errorf("%v: read back %d list entries, %d sorted-set members, %d stream entries, %d hash increments, script counters %d; ops %v",
				opts, lists, zsets, streams, hincr, ctr, count)
		}
		if count["lpush"] < count["zadd"] {
			t.Errorf("%v: lpush (weight 2) ran %d times, zadd (weight 1) %d", opts, count["lpush"], count["zadd"])
		}
		t.Logf("%v: %v", opts, count)
		v.Del(ctx, keys...)
	}
}

// Templates that would put a pipeline out of step, and mixes naming a
// template the workload does not have, are refused with a fix.
func TestTemplatesRefused(t *testing.T) {
	tg := &Target{cfg: &Config{Mode: "kv"}}
	s := &workload.Spec{Name: "t", Commands: []workload.Command{{Command: "SUBSCRIBE ch __key__"}}}
	s.EnsureDefaults()
	err := tg.Setup(context.Background(), s)
	if err == nil || !strings.Contains(err.Error(), "SUBSCRIBE") || !strings.Contains(err.Error(), "fix:") {
		t.Errorf("SUBSCRIBE: %v", err)
	}
	s = &workload.Spec{Name: "t", NamedOps: []string{"insert"}, Mix: workload.MixList{{Op: vocab.OpNamed0, Weight: 1}}}
	if err := tg.Setup(context.Background(), s); err == nil || !strings.Contains(err.Error(), "not a command template") {
		t.Errorf("profile op: %v", err)
	}
}

// A templated op allocates nothing, one at a time or pipelined.
func TestTemplatesDoNotAllocate(t *testing.T) {
	raw := serverURL(t, "PLATBENCH_REDIS_URL")
	ctx := context.Background()
	sha := loadScript(t, raw)
	s := templateSpec("tplalloc"+uniq+"-", sha, 10)
	val := bytes.Repeat([]byte("v"), 16)
	r := &workload.Request{Key: []byte("tplalloc" + uniq), Value: val, Fields: 1, FieldLen: 16}
	tg := open(t, raw, nil)
	if err := tg.Setup(ctx, s); err != nil {
		t.Fatal(err)
	}
	w, err := tg.NewWorker(0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i := range s.Commands {
		r.Op = vocab.OpNamed0 + vocab.Op(i)
		if err := w.Do(ctx, r); err != nil {
			t.Fatal(err)
		}
		if n := testing.AllocsPerRun(200, func() {
			if err := w.Do(ctx, r); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%s: %.1f allocations per Do, want 0", s.Commands[i].Name, n)
		}
	}

	_, pw := pipelined(t, raw, map[string]string{"pipeline": "16"}, 16, s)
	got := 0
	done := func(_ int, err error) {
		if err != nil {
			t.Error(err)
		}
		got++
	}
	round := func() {
		for i := 0; i < 16; i++ {
			r.Op = vocab.OpNamed0 + vocab.Op(i%len(s.Commands))
			if err := pw.Submit(ctx, r, i); err != nil {
				t.Fatal(err)
			}
		}
		pw.Flush(ctx)
		for got < 16 {
			pw.Poll(ctx, -1, done)
		}
		got = 0
	}
	round()
	if n := testing.AllocsPerRun(100, round); n != 0 {
		t.Errorf("%.1f allocations per pipelined round of 16 templated ops, want 0", n)
	}
	v := verifier(t, raw)
	v.Del(ctx, "list:"+string(r.Key), "zset:"+string(r.Key), "stream:"+string(r.Key), "hash:"+string(r.Key), "ctr:"+string(r.Key))
}

// BenchmarkTemplate is one templated LPUSH through Do (a round trip each).
func BenchmarkTemplate(b *testing.B) {
	raw := serverURL(b, "PLATBENCH_REDIS_URL")
	ctx := context.Background()
	s := &workload.Spec{Name: "t", Records: 10, Commands: []workload.Command{{Command: "LPUSH benchlist:__key__ __data__"}}}
	s.EnsureDefaults()
	tg := open(b, raw, nil)
	if err := tg.Setup(ctx, s); err != nil {
		b.Fatal(err)
	}
	w, err := tg.NewWorker(0)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	r := &workload.Request{Op: vocab.OpNamed0, Key: []byte("b" + uniq), Value: []byte("0123456789")}
	b.ReportAllocs()
	for b.Loop() {
		if err := w.Do(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
	verifier(b, raw).Del(ctx, "benchlist:b"+uniq)
}
