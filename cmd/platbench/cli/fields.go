package cli

import (
	"errors"
	"strings"

	"github.com/platbench/platbench/internal/usererr"
)

// flagOfField is the one table from the config fields the library's errors
// name (usererr.Error.Field) to the flags that set them, so that a problem
// the library reports as "concurrency must be at least 1" reads
// "--concurrency must be at least 1" on the command line. A field missing
// here is printed as it is.
var flagOfField = map[string]string{
	// bench.Config and its workload.Spec (run, load, sweep)
	"target":          "target",
	"target_opts":     "target-opt",
	"workload":        "workload",
	"records":         "records",
	"dataset_size":    "dataset-size",
	"max_load_errors": "max-errors",
	"field_count":     "field-count",
	"field_length":    "field-length",
	"value_size":      "value-size",
	"mix":             "mix",
	"commands":        "command",
	"distribution":    "distribution",
	"duration":        "duration",
	"ops":             "ops",
	"concurrency":     "concurrency",
	"rate":            "rate",
	"pace_tick":       "pace-tick",
	"seed":            "seed",
	"shard":           "shard",
	"start_at":        "start-at",
	"events":          "event",
	"warmup":          "warmup",
	"threshold":       "threshold",
	"fail_on":         "fail-on",
	"group_by":        "group-by",
	"baseline":        "baseline",
	"spread_runs":     "run-spread-from",
	"out":             "out",
	"server_pid":      "server-pid",
	"server_process":  "server-process",
	"perf_scope":      "perf-scope",
	"validate":        "validate",
	"verify":          "verify",
	"verify_sample":   "verify-sample",

	// --store (run, sweep, suite, history) and history's --figures
	"store":           "store",
	"history.figures": "figures",

	// telemetry.Config's Interval
	"telemetry_interval": "telemetry-interval",
	"metrics_addr":       "metrics-addr",

	// telemetry.Config's node_exporter scraping (telemetry/nodes)
	"server_metrics":      "server-metrics",
	"server_metrics_port": "server-metrics-port",
	"db_metrics":          "db-metrics",
	"db_metrics_url":      "db-metrics-url",
	"link_limit":          "link-limit",

	// sweep.Config
	"rates":         "rates",
	"find_max":      "find-max",
	"objective_p99": "p99",
	"judge":         "judge",
	"start":         "start",
	"max":           "max",
	"bisect":        "bisect",
	"step":          "step",
	// analysis.Options, analysis.PlanOptions and catalog
	"platform":             "platform",
	"nodes":                "nodes",
	"price_per_hour":       "price-per-hour",
	"catalog":              "catalog",
	"catalog_file":         "catalog",
	"throughput_ops_per_s": "throughput",
	"p99":                  "p99",
	"rf":                   "rf",
	"max_error_ratio":      "max-error-ratio",
	"storage":              "storage",
	"zones":                "zones",
	"loader_instance":      "loader-instance",
	"region":               "region",
	// disk.Config (probe disk)
	"size":      "size",
	"jobs":      "jobs",
	"iodepth":   "iodepth",
	"rwmixread": "rwmixread",
	"bucket":    "bucket",
	"engine":    "engine",
	"throttle":  "throttle",
	"rw":        "rw",
	"bs":        "bs",
	"direct":    "direct",
	// stamping of write buffers (fio's option name)
	"scramble_buffers": "scramble-buffers",
	// disk.Config io_uring modes (fio's option names)
	"iodepth_batch_submit":       "iodepth-batch-submit",
	"iodepth_batch_complete_min": "iodepth-batch-complete-min",
	"registerfiles":              "registerfiles",
	"fixedbufs":                  "fixedbufs",
}

// flagName names a config field as the flag that sets it.
func flagName(field string) string {
	if f, ok := flagOfField[field]; ok {
		return "--" + f
	}
	return field
}

// fieldNamer is how a command's errors name config fields: as flags, except
// for the suite command, whose fields are the keys of its YAML file.
func fieldNamer(command string) func(string) string {
	if command == "suite" {
		return nil
	}
	return flagName
}

// renderError writes err as one line with every user error in it (wrapped
// or joined, at any depth) rendered by usererr.Render with name, in place.
func renderError(err error, name func(string) string) string {
	msg := err.Error()
	if name == nil {
		return msg
	}
	var b strings.Builder
	for _, e := range userErrors(err) {
		old := e.Error()
		i := strings.Index(msg, old)
		if e.Field == "" || i < 0 {
			continue
		}
		b.WriteString(msg[:i])
		b.WriteString(usererr.Render(e, name))
		msg = msg[i+len(old):]
	}
	b.WriteString(msg)
	return b.String()
}

// userErrors lists the user errors in err's tree, depth first.
func userErrors(err error) []*usererr.Error {
	var out []*usererr.Error
	var walk func(error)
	walk = func(e error) {
		if ue, ok := e.(*usererr.Error); ok {
			out = append(out, ue)
			return
		}
		switch u := e.(type) {
		case interface{ Unwrap() []error }:
			for _, x := range u.Unwrap() {
				walk(x)
			}
		case interface{ Unwrap() error }:
			if x := u.Unwrap(); x != nil {
				walk(x)
			}
		}
	}
	walk(err)
	return out
}

// usage marks err, a problem with the command line found before anything
// ran, as a usage error (exit 2, with a pointer to --help), keeping the
// fields of its user errors for rendering as flags.
func usage(err error) error {
	if err == nil {
		return nil
	}
	var ue *usageError
	if errors.As(err, &ue) {
		return err
	}
	return &usageError{err}
}

// validateFlagDoc is --validate's help (run, load, sweep, suite).
const validateFlagDoc = "write values that can be checked (a function of key, field and a generation) and check every read: a missing record counts as a validation_missing error, a wrong value as validation_corrupt (embedded, redis, cql, hazelcast IMap; load the dataset with --validate too)"

// verifyFlagDoc and verifySampleFlagDoc are the help of run's --verify and
// --verify-sample (docs/workloads.md, "Acknowledged writes, read back").
const (
	verifyFlagDoc       = "after the run, read back every key whose write the target acknowledged, at the run's consistency, and report those missing or wrong (exit status 1 if any); implies --validate (embedded, redis standalone, cql, hazelcast IMap); 'platbench verify RESULT' checks again later"
	verifySampleFlagDoc = "with --verify, read back only a `sample` of the acknowledged keys: a count (10k) or a fraction (10% or 0.1), evenly spread over the keys (default all)"
)
